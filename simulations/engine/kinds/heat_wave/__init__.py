"""A heat wave: the plant derates, the GPUs throttle where the heat cannot be rejected, the job slows.

The campus's weather year (``campus.analysis.weather.weather_of``: its uploaded EPW year, else its climate's
reference year) is warmed by ``temperature_rise_k`` over ``days`` days from day ``start_day``
(``with_heat_wave``: the air keeps its moisture, so the wet bulb rises by less than the dry bulb). For each
hour of the wave the facility engine (``campus.analysis.facility.year.facility_year``) gives facility
power, PUE, water and the plants' cooling margin with every GPU at a fraction ``f`` of its TDP.

A typed ``design_pue`` overrides the PUE here as everywhere (``facility.with_typed_pue``): facility power is
IT x that PUE in every hour of the wave, hot or not (the typed figure is the operator's statement of what
the facility draws). The heat wave's physics stay the plant model's: the plants' cooling margin, hence
the shortfall hours and the throttling (which lowers the IT load, and so the facility power), and the
water. Without a typed PUE the plant model's hourly PUE rises with the heat.

Throttling follows the liquid_cooling model's rule at its steady state: when the plants cannot reject the
heat, the loop warms until the GPUs reach their slowdown temperature, and they then lower their power to
what the cooling holds. The lumped RC of a rack settles in minutes (``liquid_cooling``'s time constants,
Incropera §5.1), far shorter than an hour, so each hour is taken at that steady state: ``f`` is the highest
power fraction, one for every GPU, at which every plant's margin is ≥ 0 (found on a grid of fractions from
TDP down to the highest minimum cap of the campus's parts, linear between grid points). Where even the
minimum cap leaves heat unrejected, the GPUs cannot hold the slowdown temperature and shut down for the
hour (``liquid_cooling``: below the part's minimum cap they heat on to shutdown): the job does no work.
The job is one synchronous job over every GPU: its pace in an hour is the slowest model's throughput at
``f`` (``job.cap_throughput_fraction``, each model's cap curve).

Takes a ``CampusSnapshot`` and ``HeatWaveParams`` (``start_day``, ``days``, ``temperature_rise_k``). Returns,
over the hours of the wave, ``cooling_shortfall_hours`` (hours in which the plants cannot reject the
heat at full GPU power), ``throughput_lost_fraction`` (1 - the job's mean pace), ``peak_facility_mw`` and
``max_pue`` at the power the GPUs actually draw, ``water_m3`` (cooling-tower make-up water); and series over
``t_hours`` from the start of the wave. Deterministic (no random element): one replica is enough, so
numpy over the hours, not SimPy.

The package is the kind: its parameters (``params``), its model (``model``), and its words (``words``: what
its metrics mean, what a finished run showed). It satisfies ``simulations.engine.contract.ScenarioModel``;
``simulations.engine.registry`` lists it.
"""

from simulations.engine.kinds.heat_wave.model import DEFAULT_REPLICAS, prepare, run, stochastic
from simulations.engine.kinds.heat_wave.params import HeatWaveParams as Params
from simulations.engine.kinds.heat_wave.words import METRICS, explain

KIND = "heat_wave"
LABEL = "Heat wave"

__all__ = [
    "KIND",
    "LABEL",
    "METRICS",
    "Params",
    "explain",
    "prepare",
    "run",
    "stochastic",
    "DEFAULT_REPLICAS",
]
