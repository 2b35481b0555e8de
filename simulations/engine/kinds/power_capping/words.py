"""What power_capping's metrics mean (``METRICS``) and what a finished run showed, in sentences (``explain``),
read off the run's summary (the means over the replicas) and its parameters."""

from __future__ import annotations

from simulations.engine.kinds.power_capping.params import PowerCappingParams
from simulations.engine.words import Metric, Summary, duration_h, num, pct

M = Metric


METRICS: dict[str, Metric] = {
    "energy_it_mwh": M("IT energy", "MWh", "Energy drawn by the IT equipment over the run.", False),
    "energy_facility_mwh": M("Facility energy", "MWh", "IT energy times the annual PUE.", False),
    "cost_usd": M("Energy cost", "USD", "Facility energy times the electricity price.", False),
    "mean_it_mw": M("Mean IT power", "MW", "IT energy over the run's duration.", None),
    "mean_facility_mw": M("Mean facility power", "MW", "Facility energy over the run's duration.", None),
    "peak_facility_mw": M(
        "Peak facility power",
        "MW",
        "The highest IT draw times the PUE of the campus's hour of peak facility power.",
        False,
    ),
    "mean_throughput_pflops": M(
        "Mean throughput", "PFLOPS", "Training throughput at the chosen precision and MFU, averaged.", True
    ),
    "useful_eflop": M("Useful work", "EFLOP", "Floating-point operations done for the job.", True),
    "perf_per_w_tflops_per_kw": M(
        "Throughput per power", "TFLOPS per kW", "Throughput per kW of facility power.", True
    ),
    "energy_saving_fraction": M(
        "Energy saved", "fraction", "Facility energy saved against the same campus uncapped.", True
    ),
    "throughput_fraction": M(
        "Throughput kept", "fraction", "Throughput as a fraction of the same campus uncapped.", True
    ),
    "perf_per_w_gain": M(
        "Throughput-per-power gain",
        "fraction",
        "Change in throughput per kW against the uncapped campus.",
        True,
    ),
    # series
    "it_kw": M("IT power", "kW", "Power drawn by the IT equipment.", None),
    "facility_kw": M("Facility power", "kW", "IT power times the annual PUE.", None),
    "throughput_pflops": M("Throughput", "PFLOPS", "Training throughput.", True),
    "mean_cap_fraction": M("Mean cap", "fraction of TDP", "The GPUs' power cap, averaged over GPUs.", None),
}


def explain(s: Summary, p: PowerCappingParams) -> list[str]:
    kept = s.mean("throughput_fraction")
    saved = s.mean("energy_saving_fraction")
    out = []
    if kept is not None:
        lost = 1.0 - kept
        if lost <= 1e-4:
            out.append("The caps cost no throughput: the GPUs' cap curves keep full speed at these limits.")
        else:
            out.append(
                f"The caps cost {pct(lost)} of the throughput against the same campus uncapped "
                f"(mean {num(s.mean('mean_throughput_pflops') or 0.0)} PFLOPS)."
            )
    if saved is not None:
        energy = s.mean("energy_facility_mwh")
        cost = s.mean("cost_usd")
        out.append(
            f"They saved {pct(saved)} of the facility energy"
            + (f"; the run used {num(energy)} MWh" if energy is not None else "")
            + (f", costing {num(cost)} USD" if cost is not None else "")
            + f" over {duration_h(p.duration_hours)}."
        )
    gain = s.mean("perf_per_w_gain")
    if gain is not None and abs(gain) > 1e-4:
        word = "rose" if gain > 0 else "fell"
        out.append(f"Throughput per kW of facility power {word} by {pct(abs(gain))}.")
    peak = s.mean("peak_facility_mw")
    if peak is not None:
        out.append(f"The facility drew at most {num(peak)} MW.")
    return out
