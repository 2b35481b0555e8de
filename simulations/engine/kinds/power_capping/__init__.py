"""Static or scheduled GPU power caps: campus power, energy, cost, throughput and perf/W over time.

A capped GPU under load draws its cap (never more than TDP) times the utilisation; its throughput follows
its model's cap curve (``GpuSpec.cap_curve``). IT power is the summary's (``loads``): the network and the
other IT stay at their full-load figure under any cap. Energy, cost and the ``facility_kw`` series use the
annual energy-weighted PUE; ``peak_facility_mw`` the PUE of the hour of peak facility power (the same figure
when the PUE is typed). Caps change only at schedule steps, so power is piecewise
constant and energy is an exact sum over the segments; the series carry both ends of each segment so that
the trapezoid integral of the power series equals the reported energy.

Takes a ``CampusSnapshot`` and ``PowerCappingParams`` (caps by GPU model or pod, an optional schedule of cap
steps, utilisation, PUE, energy price). Returns, per replica, energy (IT and facility), cost, mean and peak
facility power, throughput, useful work and perf/W with their change against the uncapped campus, and the
series ``it_kw``, ``facility_kw`` and ``throughput_pflops`` over ``t_hours``.

Closed form, not SimPy: nothing here is random or waits on anything; every quantity changes only at the
schedule's known steps, so one pass over the constant segments is exact, and an event clock would add cost
without a single event to order. The seed is accepted and unused (every replica is the same).

The package is the kind: its parameters (``params``), its model (``model``), and its words (``words``: what
its metrics mean, what a finished run showed). It satisfies ``simulations.engine.contract.ScenarioModel``;
``simulations.engine.registry`` lists it.
"""

from simulations.engine.kinds.power_capping.model import prepare, run, stochastic
from simulations.engine.kinds.power_capping.params import PowerCappingParams as Params
from simulations.engine.kinds.power_capping.words import METRICS, explain

KIND = "power_capping"
LABEL = "Power capping"

__all__ = ["KIND", "LABEL", "METRICS", "Params", "explain", "prepare", "run", "stochastic"]
