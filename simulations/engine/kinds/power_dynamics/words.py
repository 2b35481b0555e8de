"""What power_dynamics's metrics mean (``METRICS``) and what a finished run showed, in sentences
(``explain``), read off the run's summary (the means over the replicas) and its parameters."""

from __future__ import annotations

from campus.analysis.grid_rules import RULE_SETS
from simulations.engine.kinds.power_dynamics.params import PowerDynamicsParams
from simulations.engine.replay import replay_sentence
from simulations.engine.words import Metric, Summary, num, pct

M = Metric


METRICS: dict[str, Metric] = {
    "swing_mw": M(
        "Largest move at the grid connection",
        "MW",
        "Peak-to-trough of the grid draw within any window one iteration long, a job crash's or start's "
        "step included.",
        False,
    ),
    "generation_fuel_mmbtu": M(
        "Prime units' fuel", "MMBtu", "Gas the on-site generation burned (heat rate against load).", False
    ),
    "generation_fuel_cost_usd": M(
        "Prime units' fuel cost", "USD", "Their fuel at its full-load price.", False
    ),
    "generation_emissions_tco2": M("Prime units' CO₂", "t", "CO₂ of their fuel (EPA factors).", False),
    "iteration_swing_mw": M(
        "Iteration swing",
        "MW",
        "Peak-to-trough of the grid draw within one iteration of steady training, before the first event.",
        False,
    ),
    "max_ramp_mw_per_s": M(
        "Fastest ramp (per second)", "MW/s", "Largest change of the grid draw in 1 s.", False
    ),
    "max_ramp_mw_per_min": M(
        "Fastest ramp (per minute)", "MW/min", "Largest change of the grid draw within a minute.", False
    ),
    "band_amplitude_mw": M(
        "Oscillation in the band",
        "MW",
        "Spectral amplitude of the grid draw in the requirement's band.",
        False,
    ),
    "compliant": M("Meets every requirement", "", "1: the grid draw meets every interconnect rule.", True),
    "violation_count": M("Requirements broken", "", "Interconnect rules the grid draw breaks.", False),
    "smoothing_energy_mwh": M(
        "Energy burned holding the floor",
        "MWh",
        "GPU energy spent above the job's need by the power floor.",
        False,
    ),
    "smoothing_throttled_mwh": M(
        "Energy held back by the ramp limits",
        "MWh",
        "GPU energy the rise limit kept the job from drawing.",
        False,
    ),
    "bess_throughput_mwh": M(
        "Battery throughput", "MWh", "Energy the battery discharged plus charged.", None
    ),
    "bess_loss_mwh": M("Battery losses", "MWh", "The battery's round-trip losses.", False),
    "bess_soc_gain_mwh": M(
        "Battery charge gained", "MWh", "Charge at the end less charge at the start.", None
    ),
    "generation_mwh": M("On-site generation", "MWh", "Energy from on-site generation.", None),
    "tripped_mwh": M(
        "Load tripped by voltage dips", "MWh", "Energy not drawn while tripped load was off.", False
    ),
    "rack_storage_held_mwh": M(
        "Energy shifted by rack storage", "MWh", "Energy the power supplies' storage moved in time.", None
    ),
    "energy_natural_mwh": M("Campus load energy", "MWh", "What the load drew before the mitigations.", None),
    "energy_grid_mwh": M("Grid energy", "MWh", "Energy drawn at the grid connection.", None),
    "peak_grid_mw": M("Peak grid draw", "MW", "The highest draw at the grid connection.", False),
    "min_grid_mw": M("Lowest grid draw", "MW", "The lowest draw at the grid connection.", None),
    "mean_grid_mw": M("Mean grid draw", "MW", "Grid energy over the run's duration.", None),
    "min_floor_to_comply": M(
        "Smallest compliant power floor",
        "fraction",
        "The least GPU power floor (of TDP) meeting every rule.",
        None,
    ),
    "min_bess_mw_to_comply": M(
        "Smallest compliant battery", "MW", "The least battery power meeting every rule.", None
    ),
    # series
    "grid_mw": M("Grid draw", "MW", "Power at the grid connection.", None),
    "grid_min_mw": M("Grid draw, lowest in the interval", "MW", "The envelope's bottom at the grid.", None),
    "grid_max_mw": M("Grid draw, highest in the interval", "MW", "The envelope's top at the grid.", None),
    "load_mw": M("Campus load", "MW", "The campus's draw before the battery and on-site generation.", None),
    "load_min_mw": M("Campus load, lowest in the interval", "MW", "The envelope's bottom of the load.", None),
    "load_max_mw": M("Campus load, highest in the interval", "MW", "The envelope's top of the load.", None),
    "building": M(
        "Building draw", "MW", "One building's draw (mean, lowest and highest in the interval).", None
    ),
    "bess_mw": M("Battery power", "MW", "What the battery delivers (negative: charging).", None),
    "bess_soc_mwh": M("Battery charge", "MWh", "Energy stored in the battery.", None),
    "generation_mw": M("On-site generation", "MW", "What on-site generation delivers.", None),
}


def explain(s: Summary, p: PowerDynamicsParams) -> list[str]:
    replayed = replay_sentence(p.load_source)
    out = [replayed] if replayed else []
    swing, ramp_s, ramp_min = s.mean("swing_mw"), s.mean("max_ramp_mw_per_s"), s.mean("max_ramp_mw_per_min")
    steady = s.mean("iteration_swing_mw")
    if steady is not None:
        out.append(f"Steady training swung the grid draw by {num(steady)} MW within an iteration.")
    if swing is not None:
        if steady is not None and swing > steady * (1 + 1e-6) + 1e-9:
            text = (
                f"With the events, the draw moved by up to {num(swing)} MW within an iteration's time "
                "(a job crash or start is a step, not an iteration swing)"
            )
        elif steady is not None:
            text = "No event moved it further"
        elif p.load_source.replayed:
            window = max(job.iteration_seconds for job in p.jobs)
            text = f"The replayed draw moved by up to {num(swing)} MW within {num(window)} s"
        else:
            text = f"The grid draw moved by up to {num(swing)} MW within an iteration's time"
        if ramp_s is not None and ramp_min is not None:
            text += f", ramping at most {num(ramp_s)} MW in a second and {num(ramp_min)} MW in a minute"
        out.append(text + ".")
    band = s.mean("band_amplitude_mw")
    if band is not None:
        lo, hi = p.requirements.band_hz
        out.append(f"Its oscillation between {num(lo)} and {num(hi)} Hz was {num(band)} MW.")
    rules = [
        v
        for v in (
            p.requirements.max_ramp_mw_per_s,
            p.requirements.max_ramp_mw_per_min,
            p.requirements.max_swing_mw,
            p.requirements.max_band_mw,
        )
        if v is not None
    ]
    broken = s.mean("violation_count")
    named = "" if p.rule_set == "custom" else f" ({RULE_SETS[p.rule_set].label})"
    if not rules:
        out.append("No interconnect requirement was set, so nothing was checked against one.")
    elif broken is not None and broken <= 0:
        out.append(f"It meets all {len(rules)} of the interconnect's requirements{named}.")
    elif broken is not None:
        out.append(f"It breaks {num(broken)} of the interconnect's {len(rules)} requirements{named}.")
    if p.search and rules and broken:
        floor, bess = s.mean("min_floor_to_comply"), s.mean("min_bess_mw_to_comply")
        if not p.load_source.replayed:
            out.append(
                f"A GPU power floor of {pct(floor)} of TDP would meet them."
                if floor is not None
                else "No GPU power floor up to full TDP meets them."
            )
        out.append(
            f"A battery of {num(bess)} MW would meet them."
            if bess is not None
            else "No battery up to twice the campus's peak draw meets them."
        )
    burned = s.mean("smoothing_energy_mwh") or 0.0
    if burned > 0:
        out.append(f"Holding the power floor burned {num(burned)} MWh.")
    generated = s.mean("generation_mwh") or 0.0
    if generated > 0:
        out.append(
            f"The prime units gave {num(generated)} MWh, burning {num(s.mean('generation_fuel_mmbtu') or 0.0)} "
            f"MMBtu of gas ({num(s.mean('generation_emissions_tco2') or 0.0)} t CO₂)."
        )
    cycled = s.mean("bess_throughput_mwh") or 0.0
    if cycled > 0:
        out.append(
            f"The battery cycled {num(cycled)} MWh and lost {num(s.mean('bess_loss_mwh') or 0.0)} MWh."
        )
    return out
