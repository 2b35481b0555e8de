"""What voltage_dip's metrics mean (``METRICS``) and what a finished run showed (``explain``)."""

from __future__ import annotations

from simulations.engine.kinds.voltage_dip.params import VoltageDipParams
from simulations.engine.words import NON_NEGATIVE, SHARE, Metric, Summary, num, pct

M = Metric

METRICS: dict[str, Metric] = {
    "load_mw": M("Load before the dip", "MW", "The campus's draw from the grid before the dip.", None),
    "mw_lost_within_1s": M(
        "Load lost within a second", "MW", "What the grid sees leave at once.", False, bounds=NON_NEGATIVE
    ),
    "share_lost": M(
        "Share of the load lost", "fraction", "Load lost over the load before.", False, bounds=SHARE
    ),
    "it_transferred_mw": M(
        "IT load on UPS", "MW", "IT load the UPSs took onto their batteries.", False, bounds=NON_NEGATIVE
    ),
    "drives_dropped_mw": M(
        "Drives dropped", "MW", "Pumps and fans whose drives tripped.", False, bounds=NON_NEGATIVE
    ),
    "chillers_dropped_mw": M("Chillers dropped", "MW", "Chillers that tripped.", False, bounds=NON_NEGATIVE),
    "cooling_restart_minutes": M(
        "Cooling restart",
        "min",
        "Until the chillers are back (0: they rode through).",
        False,
        bounds=NON_NEGATIVE,
    ),
    "back_to_grid_minutes": M(
        "Back on the grid",
        "min",
        "Until the whole load draws from the grid again.",
        False,
        bounds=NON_NEGATIVE,
    ),
    "grid_energy_not_drawn_mwh": M(
        "Grid energy not drawn",
        "MWh",
        "Energy the grid did not deliver while loads were off.",
        None,
        bounds=NON_NEGATIVE,
    ),
    "ups_battery_mwh": M(
        "UPS energy used", "MWh", "Energy the UPS batteries gave the IT load.", None, bounds=NON_NEGATIVE
    ),
    # series
    "grid_mw": M("Grid draw", "MW", "What the campus draws from the grid.", None),
    "lost_mw": M("Load off the grid", "MW", "Load not drawn from the grid.", False),
}


def explain(s: Summary, p: VoltageDipParams) -> list[str]:
    lost = s.mean("mw_lost_within_1s") or 0.0
    dip = f"A dip to {pct(p.residual_pu)} of nominal voltage for {num(p.duration_s * 1000.0)} ms"
    if lost <= 0:
        return [f"{dip}: every load rode through; the grid saw nothing leave."]
    parts = []
    for key, words in (
        ("it_transferred_mw", "IT load onto the UPS batteries"),
        ("drives_dropped_mw", "pumps and fans (drives tripped)"),
        ("chillers_dropped_mw", "chillers"),
    ):
        mw = s.mean(key) or 0.0
        if mw > 0:
            parts.append(f"{num(mw)} MW of {words}")
    out = [
        f"{dip}: the grid lost {num(lost)} MW within a second ({pct(s.mean('share_lost') or 0.0)} of the "
        f"load): {', '.join(parts)}."
    ]
    restart = s.mean("cooling_restart_minutes") or 0.0
    if restart > 0:
        out.append(
            f"The chillers restart in {num(restart)} min; the liquid loops run on their pumps meanwhile."
        )
    back = s.mean("back_to_grid_minutes") or 0.0
    out.append(f"The whole load draws from the grid again after {num(back)} min.")
    return out
