"""Published and hand-calculated cases on the campus as the grid sees it: demand response, battery sizing and
the large-load rules (docs/fidelity.md explains each)."""

from __future__ import annotations

import dataclasses
from functools import cache

from campus.analysis import battery_sizing as bs
from campus.analysis.grid_rules import campus_rules
from campus.analysis.synthetic import synthetic_campus
from campus.fidelity.campuses import synthetic_100k_h100
from campus.fidelity.scorecard import Case, relative
from simulations.engine.loads import campus_load
from simulations.engine.runner import prepare

EMERALD = (
    "Colangelo et al., 'Turning AI Data Centers into Grid-Interactive Assets: Results from a Field "
    "Demonstration in Phoenix, Arizona', arXiv 2507.00909 (2025): the cluster's power held 25 % below its "
    "baseline for 3 h during the utility's peak"
)
SB6 = (
    "Texas Senate Bill 6 (2025) and ERCOT's large-load interconnection process: a load of 75 MW or more "
    "at one site is a large load"
)


@cache
def _dr_event() -> dict[str, float]:
    """A 25 %, 3 h event on a 2,048-H100 campus answered by capping, then pausing (no storage)."""
    params = {
        "duration_hours": 3.0,
        "step_minutes": 1.0,
        "capacity_kw": 1e7,
        "events": [{"start_hours": 0.0, "duration_hours": 3.0, "share_of_load": 0.25, "notice_minutes": 60}],
        "policy": "flexibility",
        "flexibility": [{"resource": "power_capping"}, {"resource": "job_pause"}],
    }
    return prepare(synthetic_campus(2048), "grid_limit", params).run(0).metrics


def _dr_share_shed() -> float:
    m = _dr_event()
    return 0.25 * m["event_shed_mwh"] / m["event_asked_mwh"] if m["event_asked_mwh"] else 0.0


def _large_load_mw() -> float | None:
    """The 100k-H100 campus's peak facility power if the ERCOT large-load rule applies to it in Texas."""
    snap = dataclasses.replace(synthetic_100k_h100(), climate="abilene-us")
    load = campus_load(snap, "bf16", 0.4)
    peak_kw = load.peak_facility_kw([1.0] * len(load.groups))
    rule = next(r for r in campus_rules(snap, peak_kw) if r["id"] == "ercot-large-load-interconnection")
    return peak_kw / 1000.0 if rule["applies"] else None


def _battery_by_search() -> float:
    need = bs.curtailment(0.25 * 91.0, 3.0)
    return bs.smallest_by_search(need, resolution=1e-5)[1]


CASES: list[Case] = [
    Case(
        "emerald-phoenix-25pct-3h",
        "grid",
        "share of a GPU cluster's load held off the grid for a 25 %, 3 h event, by capping then pausing",
        "fraction",
        EMERALD,
        "0.25 for 3 h",
        *relative(0.25, 0.01),
        twin=_dr_share_shed,
    ),
    Case(
        "battery-quarter-of-91mw-3h",
        "grid",
        "battery energy at the connection that rides a 25 %, 3 h curtailment of a 91 MW campus, brute force",
        "MWh",
        "by hand: 0.25 x 91 MW x 3 h",
        "68.25 (hand)",
        *relative(68.25, 0.001),
        twin=_battery_by_search,
    ),
    Case(
        "ercot-large-load-100k-h100",
        "grid",
        "peak facility power of a 100k-H100 campus in Texas, under the 75 MW large-load rule",
        "MW",
        SB6,
        ">= 75",
        75.0,
        1e6,
        ">= 75 (the rule applies)",
        twin=_large_load_mw,
    ),
]
