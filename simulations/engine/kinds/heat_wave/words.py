"""What heat_wave's metrics mean (``METRICS``) and what a finished run showed, in sentences (``explain``),
read off the run's summary (the means over the replicas) and its parameters."""

from __future__ import annotations

from simulations.engine.kinds.heat_wave.params import HeatWaveParams
from simulations.engine.words import Metric, Summary, num, pct

M = Metric


METRICS: dict[str, Metric] = {
    "cooling_shortfall_hours": M(
        "Hours short of cooling", "h", "Hours in which the plants could not reject the heat.", False
    ),
    "throughput_lost_fraction": M(
        "Throughput lost", "fraction", "Share of the job's work lost to throttled and shut-down GPUs.", False
    ),
    "peak_facility_mw": M("Peak facility power", "MW", "The highest hourly facility draw.", False),
    "shutdown_hours": M(
        "Hours shut down",
        "h",
        "Hours in which even the GPUs' minimum power cap left heat unrejected: they shut down, no work done.",
        False,
    ),
    "max_pue": M("Highest hourly PUE", "", "Facility power over IT power in the worst hour.", False),
    "peak_facility_rise_mw": M(
        "Peak facility power added by the wave",
        "MW",
        "Peak facility power less that of the same days of the campus's weather without the wave.",
        False,
    ),
    "max_pue_rise": M(
        "Highest hourly PUE added by the wave",
        "",
        "Highest hourly PUE less that of the same days without the wave.",
        False,
    ),
    "water_m3": M("Water", "m³", "Make-up water of the evaporative plant over the wave.", False),
    # series
    "dry_bulb_c": M("Dry-bulb temperature", "°C", "Outdoor air temperature with the wave added.", None),
    "wet_bulb_c": M("Wet-bulb temperature", "°C", "Outdoor wet-bulb temperature with the wave added.", None),
    "facility_mw": M("Facility power", "MW", "IT, conversion losses and cooling.", False),
    "pue": M("PUE", "", "Facility power over IT power, hour by hour.", False),
    "water_l": M("Water", "L", "Make-up water per hour.", False),
    "cooling_margin_mw": M(
        "Cooling margin", "MW", "Heat the plants could still reject (negative: heat they cannot).", True
    ),
    "gpu_power_fraction": M("GPU power", "fraction", "GPU power against full, after throttling.", True),
    "throughput_fraction": M("Job pace", "fraction", "The training job's speed against full speed.", True),
}


def explain(s: Summary, p: HeatWaveParams) -> list[str]:
    start = p.start_day if p.start_day is not None else s.details.get("start_day")
    length = f"{num(p.days)} day{'s' if p.days != 1 else ''}"
    if p.start_day is None and start is not None:
        when = f"{length} from day {num(start)}, the hottest {length} of the campus's weather year,"
    elif start is not None:
        when = f"{length} from day {num(start)} of the campus's weather year"
    else:
        when = f"the hottest {length} of the campus's weather year"
    out = [f"The run warmed {when} by {num(p.temperature_rise_k)} K."]
    short = s.mean("cooling_shortfall_hours") or 0.0
    lost = s.mean("throughput_lost_fraction") or 0.0
    if short <= 0:
        out.append("The plants rejected all the heat in every hour; no GPU throttled.")
    else:
        off = s.mean("shutdown_hours")
        if off is None:  # a run from before shut-down hours were counted
            what = "GPUs throttled or shut down"
        elif off >= short - 1e-9:
            what = (
                "the GPUs shut down in every one of them (even their minimum power cap left heat unrejected)"
            )
        elif off > 0:
            what = f"GPUs throttled, and for {num(off)} of those hours shut down"
        else:
            what = "GPUs throttled"
        out.append(
            f"The plants could not reject all the heat for {num(short)} hours, so {what}; the job "
            f"lost {pct(lost)} of its throughput over the wave."
        )
    peak, max_pue, water = s.mean("peak_facility_mw"), s.mean("max_pue"), s.mean("water_m3")
    if peak is not None and max_pue is not None:
        out.append(f"Facility power peaked at {num(peak)} MW; the worst hour's PUE was {num(max_pue)}.")
    rise, pue_rise = s.mean("peak_facility_rise_mw"), s.mean("max_pue_rise")
    if rise is not None and pue_rise is not None and p.temperature_rise_k > 0:
        out.append(
            f"Against the same days without the wave, it added {num(rise)} MW to the peak facility "
            f"power and {num(pue_rise)} to the worst hour's PUE."
        )
    if water:
        out.append(f"The plants used {num(water)} m³ of water.")
    return out
