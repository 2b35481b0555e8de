"""Loss of a CDU, a pump or a chiller, or a supply-temperature excursion: GPU temperatures, throttling,
shutdown and what it costs the training job.

Thermal model (the lumped-capacitance method, Incropera et al., Fundamentals of Heat and Mass Transfer,
§5.1): every group of identical racks (same cooling type and GPU model, hit by the same events) is one
lumped RC, scaled per kW of load,

    c dT/dt = 1000 p - g (T - T_coolant(t)),   tau = c / g,

with ``p`` the heat as a fraction of full load, ``c`` J/K per kW and ``g`` W/K per kW. Between events the
coolant temperature is constant or a ramp, so the solution is an exact exponential (plus a ramp term);
the code jumps from event to event and never takes small time steps. Threshold crossings are found in
closed form (constant coolant) or by bisection on the closed form (ramp), both in ``engine/rc.py``.

- cdu_loss: the unit's flow stops (``g`` falls to the residual fraction) unless the live units of its
  redundancy group (same ``group`` and hall) have the spare capacity to carry it, in which case they do
  (flow scaled by the cover). Spare capacity counts once: while several units of a group are lost at
  the same time, cover = spare of the group's live units / heat of all its lost units, recomputed at
  every start and end of a loss in the group; with every unit lost there is no cover at all. A unit's
  heat is its share in the campus heat balance (``campus.analysis.heat``: the cold-plate share of its
  racks for a CDU).
- pump_loss: the flow falls to ``remaining_flow_fraction``; ``g`` scales as flow^``flow_exponent``.
- supply_temp_excursion: the supply temperature rises by ``supply_rise_k``.
- chiller_loss: heat is no longer rejected; the loop water heats at full load / (loop volume x 4.186
  kJ/(L K)) less what the live plants of its loop can absorb (``heat.plant_loops``: the building's plants
  taking the same medium, so an air-side chiller never covers a liquid loop), their spare counted once
  over all the loop's plants lost at that moment (conservative: the rate at full load).
  Cooling returns after the repair plus the chiller's restart time; the loop is then assumed back at its
  supply temperature at once.
- At the slowdown temperature the GPUs lower their power to hold it (p = g (T_slow - T_c) / 1000); below
  the part's minimum cap they cannot, heat at minimum power and may reach the shutdown temperature; a shut
  down group stays off until cooling is back, then restarts after ``node_restart_minutes``.
- The job is one synchronous job over every GPU of the campus: it runs at the pace of the slowest group;
  a shutdown interrupts it (work since the last checkpoint lost, at a random checkpoint phase) and it
  restarts ``restart_minutes`` after the group is back.

Takes a ``CampusSnapshot`` and ``LiquidCoolingParams``; returns GPU and coolant peak temperatures, throttled
and shut-down GPU-hours, time to throttle and to shutdown, the job's slowdown and lost work, and series of
temperatures, pace and GPU states over ``t_hours``. Closed form between cooling events rather than SimPy:
the events are known up front and the temperature between two of them is an exact exponential, so the code
jumps from event to event.

The package is the kind: its parameters (``params``), its model (``model``, with its per-snapshot plan in
``plan``), and its words (``words``: what its metrics mean, what a finished run showed). It satisfies
``simulations.engine.contract.ScenarioModel``; ``simulations.engine.registry`` lists it.
"""

from simulations.engine.kinds.liquid_cooling.model import prepare, run, stochastic
from simulations.engine.kinds.liquid_cooling.params import UNION_TAGS
from simulations.engine.kinds.liquid_cooling.params import LiquidCoolingParams as Params
from simulations.engine.kinds.liquid_cooling.words import METRICS, explain

KIND = "liquid_cooling"
LABEL = "Liquid cooling loss"

__all__ = ["KIND", "LABEL", "METRICS", "Params", "explain", "prepare", "run", "stochastic", "UNION_TAGS"]
