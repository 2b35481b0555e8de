"""A limit on the grid interconnect over time, and how the campus sheds load to stay under it.

Capacity: a base value (the campus interconnect), an optional schedule of new values, and demand-response
events in the utility's terms: a share of the campus's load to shed, MW to shed or a level to stay under
(the level is the lowest an event in force allows, never above the interconnect), or the older cut of the
interconnect by a fraction (cuts of overlapping events multiply); each with its notice, price and penalty. The campus wants its
full facility demand (every GPU at TDP x utilisation, with the network and other IT of the summary's IT
load, ``loads``), x the PUE of the campus's hour of peak facility power (``facility.campus_pue``'s
``peak_pue``: the plant model's in the hour of its weather year with the highest facility power, or the
typed PUE). The scenario's hours are not calendar hours, so every step is judged at that worst hour, as
the grid connection is sized: a limit between the annual mean and the peak is a shortfall. The shortfall
is what does not fit. A replayed load (``load_source``, ``simulations.engine.replay``) is the demand of each step
instead (the draw at the meter, held over its step; the run lasts the series' span); capping and pausing then
act on the modelled campus scaled to the step's measured draw, and the events' baseline is that draw.

Policies (time-stepped at ``step_minutes``; every quantity is constant within a step):
- "flexibility" (the default): the campus's flexibility resources in the planner's order, each with its cost
  (battery storage, prime units, GPU power capping, pausing pods; ``dispatch``), a resource slower than the
  event's notice missing its start; the run says what each gave and cost, what the events earned and owed,
  and whether the campus held every event's level (``can_commit``; ``ledger``).
- "cap": one uniform GPU power cap (each part no lower than its minimum) sized so the draw fits; if even
  the minimum caps do not fit, pods are paused as under "pause".
- "pause": pods are paused, lowest priority first, until the draw fits; a paused GPU idles.
- "ride_through": the UPS batteries carry the shortfall down to their reserve (never dispatched: the
  generators' start plus a margin), then "cap" takes over; they recharge from the grid headroom afterwards.
- "generators": on-site (prime-rated) generators follow the shortfall at once, cheapest fuel first, each no
  faster than its ramp; standby generators are called when a shortfall remains; they deliver nothing during
  their start delay and ramp linearly to full output; the batteries bridge the gap and "cap" covers what
  none can. A start fails with the catalog's fail-to-start probability (the one random element).
Batteries: the UPS batteries and, under "ride_through" and "generators", the campus's energy storage
systems (BESS), discharged after the generators and before the UPSs; the BESS recharges from the grid
headroom at up to its power rating, storing ``round_trip_efficiency`` of what it draws. Fuel is costed at
each generator's ``fuel_usd_per_mwh`` at full load, more per MWh at part load by the prime mover's heat rate
against load (``campus.analysis.generation``; ``fuel_cost_usd``, part of ``cost_usd``); CO2 of the grid's
energy at the site's hourly intensity and of the on-site fuel (``emissions_tco2``).
Throughput: each pod is a synchronous job at the pace of its slowest (most capped) GPU group; a paused
pod does no work.

Takes a ``CampusSnapshot`` and ``GridLimitParams`` (capacity, its schedule, demand-response events, the
policy, batteries and generators, pod priorities). Returns shortfall, overload and lost-work figures,
battery, generator and grid energy, cost, generator starts and failed starts, and per-step series
(``demand_kw``, ``grid_kw``, ``battery_kwh``, ``generator_kw``, ``shortfall_kw``, ``cap_fraction``,
``throughput_fraction``, ``paused_pods``) over ``t_hours``.

Time-stepped numpy, not SimPy, for now: the grid events and the capacity schedule are known before the
replica starts, and the policies (the cap that fits, which pods to pause, battery and generator dispatch)
are a search over the whole campus at each step, which caches per (target, policy) and vectorises; the one
random element, a generator's failed start, is drawn at the step where a shortfall starts. Grid events and
generator starts are events a SimPy clock would order naturally, so this kind moves onto one when kinds
are composed on a shared timeline.

The package is the kind: its parameters (``params``), its model (``model``), and its words (``words``: what
its metrics mean, what a finished run showed). It satisfies ``simulations.engine.contract.ScenarioModel``;
``simulations.engine.registry`` lists it.
"""

from simulations.engine.kinds.grid_limit.model import prepare, run, stochastic
from simulations.engine.kinds.grid_limit.params import GridLimitParams as Params
from simulations.engine.kinds.grid_limit.words import METRICS, explain

KIND = "grid_limit"
LABEL = "Grid limit / demand response"

__all__ = ["KIND", "LABEL", "METRICS", "Params", "explain", "prepare", "run", "stochastic"]
