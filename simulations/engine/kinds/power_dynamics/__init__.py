"""Training power dynamics at the grid connection: swings, ramps, oscillations and what mitigates them.

Every synchronous job's GPUs compute, then communicate, in lock-step: each iteration the job's GPU power falls
from TDP to ``comm_power_fraction`` x TDP and back. Checkpoints (GPUs idle while the state is written),
crashes (the job's GPUs drop to idle), starts and restarts (a linear ramp from idle) and voltage dips (a share
of the campus load trips off the grid and comes back) shape the load further. A GPU in no running job idles at
``idle_gpu_fraction`` x TDP. Each job's GPUs are grouped per GPU model (its catalog TDP); the servers' fixed
power (CPUs, NICs, fans: the node model's overhead), the racks' extra IT, the network and the other IT
(``loads``: the summary's IT load, held at its full-load figure: switches and storage do not swing with the
GPUs) are constant; the facility overhead (PUE, that of the hour of peak facility power) follows the IT
load in proportion, at once: facility = (GPUs + fixed + network + other IT) x PUE. That is the upper bound
of the swing the facility passes on (cooling plant inertia damps its share over seconds to minutes).

A replayed load (``load_source``: a measured or given power series, ``simulations.engine.replay``) replaces the
jobs' load at the grid connection, each value held over its step and taken as the draw at the meter (no PUE);
the jobs, their events and the per-GPU mitigations (smoothing, rack storage) do not apply, grid dips, the
battery and the generation do, and the run lasts the series' span.

Mitigations, in the order the power flows:
- ``smoothing`` (per GPU, as NVIDIA's GB300 power smoothing defines it): a floor of ``floor_fraction`` x TDP
  held while the job runs (checkpoints included), then a ramp-down limit (the GPU burns power rather than
  fall faster) and a ramp-up limit (the GPU is held back). The energy above the natural draw is the burn.
- ``rack_storage_j_per_gpu``: energy in the power supplies and racks; the rack draws the trailing mean of
  its GPUs' power over the window the storage can buffer for a full compute/communication step
  (window = 2 E / (TDP (1 - comm_power_fraction)): a step of dP fills a trailing mean's buffer with dP w / 2).
- a ``grid_dip`` event takes ``trip_fraction`` of the load off the grid (carried by the UPS batteries) for
  ``return_seconds``, then brings it back over ``return_ramp_seconds``.
- ``generation``: on-site generation carrying the load above ``grid_import_mw`` up to its rating, at a
  limited ramp rate.
- ``bess``: a battery at the grid connection that holds the grid draw to the load's trailing mean over
  ``window_seconds``; it answers after ``response_ms``, within its power, its energy (charging and
  discharging each at the square root of the round-trip efficiency), and pulls its charge back towards half
  full (the gap over 15 minutes, re-set every minute, at most a tenth of its power).

Metrics at the grid connection: ``swing_mw`` (largest peak-to-trough within any window one iteration long),
``max_ramp_mw_per_s`` (largest |P(t) - P(t - 1 s)|), ``max_ramp_mw_per_min`` (largest change of the trailing
one-minute mean over a minute), ``band_amplitude_mw`` (largest sinusoid amplitude in ``band_hz`` of the Welch
spectrum: flat-top windowed segments, half overlapping, power averaged), ``compliant``/``violation_count``
against ``requirements`` (each violation named in ``details["violations"]``), ``smoothing_energy_mwh``,
``bess_throughput_mwh``, and the searched ``min_bess_mw_to_comply`` and ``min_floor_to_comply`` (absent when
no size up to the bound complies). Energy figures (``energy_*_mwh``) close the balance: grid = natural load
+ smoothing burn - smoothing throttle - rack storage held - tripped load - generation + battery losses +
battery charge gained.

Takes a ``CampusSnapshot`` and ``PowerDynamicsParams``. Returns the metrics above, series over ``t_hours``
(``grid_mw`` with its ``grid_min_mw``/``grid_max_mw`` envelope, ``load_mw`` (no mitigation) and envelope,
``bess_mw``, ``bess_soc_mwh``, ``generation_mw``, and ``building.<id>.mw``/``.min_mw``/``.max_mw``), and
``details``: the violations, the amplitude spectrum, the sizing sweeps and a full-resolution waveform window.

Vectorised numpy streamed in chunks, not SimPy: the load is a deterministic function of time sampled every
``resolution_ms`` (864,000 steps a day at 100 ms), the events are known in advance, and an event clock would
cost a Python step per sample. The full resolution is never held: chunks of about ten minutes flow through
the mitigations and the metrics, whose state (limiter outputs, trailing windows, battery charge, spectrum
sums, extremes) is carried across chunk boundaries. Searches and sweeps run many variants side by side in
one pass (a leading axis). The seed is accepted and unused (every replica is the same).

The package is the kind: its parameters (``params``), its model (``model``), and its words (``words``: what
its metrics mean, what a finished run showed). It satisfies ``simulations.engine.contract.ScenarioModel``;
``simulations.engine.registry`` lists it.
"""

from simulations.engine.kinds.power_dynamics.model import prepare, run, stochastic
from simulations.engine.kinds.power_dynamics.params import PowerDynamicsParams as Params
from simulations.engine.kinds.power_dynamics.words import METRICS, explain

KIND = "power_dynamics"
LABEL = "Training power dynamics"

__all__ = ["KIND", "LABEL", "METRICS", "Params", "explain", "prepare", "run", "stochastic"]
