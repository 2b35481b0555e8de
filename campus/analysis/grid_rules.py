"""Large-load interconnection rules as data, with their sources, and which of them a campus falls under
(the summary's ``grid.rules``: ``{rule, source, applies, requires}``); the limits on ramps and oscillation
``power_dynamics`` checks a run against (``RULE_SETS``); ride-through curves (``RIDE_THROUGH``).

Every figure here is the rule's own, cited; where the twin had to choose a number the rule leaves open it
says so (``estimate``). docs/grid.md lists them all.
"""

from __future__ import annotations

from dataclasses import dataclass

from campus.analysis.energy import GridSupply
from campus.analysis.generation import PRIME_MOVERS, grid_intensity
from campus.analysis.power_graph import DEAD_STATUSES
from campus.analysis.snapshot import CampusSnapshot
from campus.analysis.units import kw_to_mw

# The grid each shipped site sits on (campus.choices.Climate): the rules of a region apply to a campus there.
REGION_BY_CLIMATE = {
    "abilene-us": "ercot",
    "ashburn-us": "pjm",
    "columbus-us": "pjm",
    "memphis-us": "tva",
    "phoenix-us": "wecc",
    "dublin-ie": "eirgrid",
    "singapore-sg": "singapore",
    "ulanqab-cn": "china",
}
NORTH_AMERICA = frozenset({"ercot", "pjm", "tva", "wecc"})


@dataclass(frozen=True)
class Rule:
    id: str
    rule: str
    source: str
    regions: frozenset[str]  # where it applies (empty: everywhere)
    threshold_mw: float | None  # the campus's peak demand at or above which it applies (None: any load)
    requires: tuple[str, ...]
    needs_onsite: bool = False  # applies only to a campus with its own generation or storage


SB6 = (
    "Texas Senate Bill 6, 89th Legislature (signed June 2025), amending Utilities Code ch. 37 and 39 "
    "for large loads of 75 MW or more in ERCOT"
)
RULES: tuple[Rule, ...] = (
    Rule(
        "ercot-large-load-interconnection",
        "ERCOT large-load interconnection (75 MW)",
        "ERCOT large-load interconnection process (2022 onward): a load of 75 MW or more at one site is "
        "studied before it connects; " + SB6,
        frozenset({"ercot"}),
        75.0,
        (
            "a large-load interconnection study (steady-state, and dynamic for the load's ride-through), with "
            "its fee, before energisation",
            "disclosure of on-site backup generation able to serve 50 % or more of the load",
            "curtailment, or deployment of the backup generation, at ERCOT's direction in an emergency",
            "equipment letting ERCOT disconnect the load remotely during firm load shed (loads connected "
            "after 31 December 2025)",
        ),
    ),
    Rule(
        "nerc-large-load-ride-through",
        "NERC large loads: voltage-sensitive load loss",
        "NERC, Incident Review: Considering Simultaneous Voltage-Sensitive Load Reductions (January 2025): a "
        "230 kV fault on 10 July 2024 in Northern Virginia dropped ~1,500 MW of data-centre load at once; "
        "NERC Large Loads Task Force, Characteristics and Risks of Emerging Large Loads (2025)",
        NORTH_AMERICA,
        75.0,
        (
            "ride through normally cleared faults (the ITIC/CBEMA and SEMI F47 curves of the IT and "
            "cooling loads; see ride_through) instead of transferring the whole load to UPS at once",
            "coordinate the return to the grid after a transfer (staggered, not the full load in one step)",
            "model the load's dynamic behaviour for the transmission planner",
        ),
    ),
    Rule(
        "utility-ramp-and-oscillation",
        "Ramp and oscillation limits on training loads",
        "Choukse et al., Power Stabilization for AI Training Datacenters, arXiv 2508.14318 (2025): utilities "
        "limit a large load's ramps (MW/s, MW/min) and its oscillation within frequency bands (about "
        "0.1-2 Hz and 3-30 Hz); the limits' values are the interconnection agreement's (the twin's "
        "utility-practice set is an estimate)",
        frozenset(),
        75.0,
        (
            "keep ramps and the iteration swing within the agreement's MW/s and MW/min limits",
            "keep the oscillation of the draw within 0.1-2 Hz and 3-30 Hz under the agreement's amplitude",
            "a mitigation (GPU power floor, rack or site storage, filler work) sized to the limits",
        ),
    ),
    Rule(
        "ride-through-onsite-sources",
        "Ride-through of on-site inverter and generator sources",
        "IEEE 2800-2022 (inverter-based resources on transmission), IEEE 1547-2018 Category III (distributed "
        "resources), NERC PRC-024-2/-3 (generator voltage and frequency protective relay settings)",
        frozenset(),
        None,
        (
            "battery inverters and prime units stay connected inside the no-trip voltage and frequency "
            "envelope (PRC-024-2: 0.45 pu for 0.15 s, 0.65 pu for 0.3 s, 0.75 pu for 2 s, 0.9 pu for 3 s)",
        ),
        needs_onsite=True,
    ),
)


@dataclass(frozen=True)
class RuleSet:
    """Limits power_dynamics checks a run against: MW/s, MW/min, peak-to-trough in MW (None: no rule),
    the oscillation band (Hz) and its largest amplitude (MW)."""

    id: str
    label: str
    source: str
    max_ramp_mw_per_s: float | None
    max_ramp_mw_per_min: float | None
    max_swing_mw: float | None
    band_hz: tuple[float, float]
    max_band_mw: float | None


RULE_SETS: dict[str, RuleSet] = {
    s.id: s
    for s in (
        RuleSet(
            "utility-practice",
            "Utility practice for training loads (estimate)",
            "Band 0.1-2 Hz from Choukse et al., arXiv 2508.14318 (2025); the amplitudes (10 MW in the band, "
            "20 MW/s, 100 MW/min) are estimates of an interconnection agreement's, not a published tariff",
            20.0,
            100.0,
            None,
            (0.1, 2.0),
            10.0,
        ),
        RuleSet(
            "utility-practice-high-band",
            "Utility practice, the 3-30 Hz band (estimate)",
            "Band 3-30 Hz from Choukse et al., arXiv 2508.14318 (2025) (subsynchronous torsional modes of "
            "turbine-generators); amplitudes as utility-practice (estimates)",
            20.0,
            100.0,
            None,
            (3.0, 30.0),
            10.0,
        ),
        RuleSet("none", "No limits", "No interconnection limit checked", None, None, None, (0.1, 2.0), None),
    )
}
DEFAULT_RULE_SET = "utility-practice"

# Voltage ride-through curves: (voltage in per unit, longest time in seconds the equipment rides through a
# dip to that voltage). Below the curve the equipment drops.
RIDE_THROUGH: dict[str, tuple[str, tuple[tuple[float, float], ...]]] = {
    "itic": (
        "ITI (CBEMA) Curve, Information Technology Industry Council (2000): IT power supplies ride 0 V for "
        "20 ms, 70 % for 0.5 s, 80 % for 10 s",
        ((0.0, 0.02), (0.7, 0.5), (0.8, 10.0), (0.9, float("inf"))),
    ),
    "semi-f47": (
        "SEMI F47-0706: equipment (drives, chillers' controls) rides 50 % for 0.2 s, 70 % for 0.5 s, 80 % for 1 s",
        ((0.5, 0.2), (0.7, 0.5), (0.8, 1.0), (0.9, float("inf"))),
    ),
    "prc-024": (
        "NERC PRC-024-2 Attachment 2, low-voltage no-trip boundary for generators: 0.45 pu 0.15 s, "
        "0.65 pu 0.3 s, 0.75 pu 2 s, 0.9 pu 3 s",
        ((0.45, 0.15), (0.65, 0.3), (0.75, 2.0), (0.9, float("inf"))),
    ),
}


def rides_through(curve: str, voltage_pu: float, seconds: float) -> bool:
    """Whether equipment on ``curve`` rides a dip to ``voltage_pu`` lasting ``seconds``: it does when some
    point at or below the dip's voltage allows at least its duration."""
    points = RIDE_THROUGH[curve][1]
    return any(v <= voltage_pu + 1e-12 and seconds <= t + 1e-12 for v, t in points)


def region(snap: CampusSnapshot) -> str | None:
    return REGION_BY_CLIMATE.get(snap.climate or "")


def campus_rules(snap: CampusSnapshot, peak_facility_kw: float) -> list[dict]:
    """Every rule with whether the campus falls under it (its region, its peak demand against the rule's
    threshold, on-site sources) and what it requires."""
    where = region(snap)
    peak_mw = kw_to_mw(peak_facility_kw)
    onsite = bool(snap.energy_storage) or any(
        d.kind == "generator" and (d.prime_rating_kw or 0) > 0 for d in snap.power_devices
    )
    out = []
    for r in RULES:
        reasons = []
        applies = True
        if r.regions:
            inside = where in r.regions
            applies &= inside
            reasons.append(
                f"site grid {where or 'unknown'}" + ("" if inside else f", not {'/'.join(sorted(r.regions))}")
            )
        if r.threshold_mw is not None:
            over = peak_mw >= r.threshold_mw
            applies &= over
            reasons.append(f"peak demand {peak_mw:,.1f} MW {'≥' if over else '<'} {r.threshold_mw:g} MW")
        if r.id == "ercot-large-load-interconnection":
            backup_kw = sum(
                d.rated_kw
                for d in snap.power_devices
                if d.kind == "generator" and d.status not in DEAD_STATUSES
            )
            share = backup_kw / peak_facility_kw if peak_facility_kw > 0 else 0.0
            reasons.append(
                f"on-site generation {kw_to_mw(backup_kw):,.1f} MW, {share:.0%} of the peak, to disclose"
            )
        if r.needs_onsite:
            applies &= onsite
            reasons.append("on-site storage or prime generation" if onsite else "no on-site source")
        out.append(
            {
                "id": r.id,
                "rule": r.rule,
                "source": r.source,
                "applies": applies,
                "requires": list(r.requires),
                "why": "; ".join(reasons),
            }
        )
    return out


def grid_block(snap: CampusSnapshot, peak_facility_kw: float, supply: GridSupply | None = None) -> dict:
    """The summary's ``grid``: the site's grid region, the rules, and a year's CO2 and generator fuel cost
    (the grid's energy at the region's intensity, the standby sets' diesel for the energy above the
    connection)."""
    out: dict = {"region": region(snap), "rules": campus_rules(snap, peak_facility_kw)}
    if supply is not None:
        intensity, source = grid_intensity(region(snap))
        mean = sum(intensity) / len(intensity)
        diesel = PRIME_MOVERS["diesel_standby"]
        onsite_t = diesel.co2_t(supply.generator_energy_mwh * diesel.heat_rate_btu_per_kwh / 1000.0)
        grid_t = supply.grid_energy_mwh * mean
        out.update(
            {
                "grid_co2_t_per_mwh": mean,
                "grid_co2_source": source,
                "grid_emissions_tco2": grid_t,
                "onsite_emissions_tco2": onsite_t,
                "emissions_tco2": grid_t + onsite_t,
                "fuel_cost_usd": supply.generator_cost_usd,
            }
        )
    return out
