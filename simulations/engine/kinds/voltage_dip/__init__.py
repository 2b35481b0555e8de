"""A voltage dip on the grid: which loads of the campus leave the grid within a second, and when they
come back.

A fault on the transmission system leaves ``residual_pu`` of nominal voltage at the campus for
``duration_s``. Three classes of load answer by their own rules (docs/grid.md, "Voltage dip"):
- the IT load behind the UPSs leaves the grid when the voltage falls below the UPSs' input limit
  (``ups_input_min_pu``): the batteries carry it, and it returns after ``ups_return_minutes`` over a
  walk-in ramp (what NERC's review of the July 2024 Northern Virginia event found: ~1,500 MW of data-centre
  load gone at once);
- pumps and fans on variable-speed drives drop when the dip falls outside their ride-through curve
  (``drive_curve``: SEMI F47 by default) and restart after ``drive_restart_s``;
- chillers drop outside ``chiller_curve`` and are back after their restart time (each plant's
  ``restart_minutes``, catalog 4-8 min typical).
The IT load and its PUE are the campus's (``loads``: the summary's IT load, the PUE of the hour of peak
facility power); the facility overhead is split between chillers and drives by ``chiller_share`` and
``drive_share`` (estimates), the rest riding through.

Takes a ``CampusSnapshot`` and ``VoltageDipParams``. Returns the load before the dip, the MW the grid sees
lost within a second and by class, the cooling restart minutes, the time until the whole load is back, the
grid energy not drawn and the UPS energy used, and the series ``grid_mw`` and ``lost_mw`` over ``t_hours``
at one-second steps.

Closed form, not SimPy: the dip is one event at a known time and every class answers by a fixed rule (a
curve, a restart delay), so the series is a sum of steps and ramps; the seed is unused.

The package is the kind: its parameters (``params``), its model (``model``), and its words (``words``). It
satisfies ``simulations.engine.contract.ScenarioModel``; ``simulations.engine.registry`` lists it.
"""

from simulations.engine.kinds.voltage_dip.model import prepare, run, stochastic
from simulations.engine.kinds.voltage_dip.params import VoltageDipParams as Params
from simulations.engine.kinds.voltage_dip.words import METRICS, explain

KIND = "voltage_dip"
LABEL = "Grid voltage dip"

__all__ = ["KIND", "LABEL", "METRICS", "Params", "explain", "prepare", "run", "stochastic"]
