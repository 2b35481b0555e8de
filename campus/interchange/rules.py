"""The inventory rules every write path shares: the spec importer, the REST API (single and bulk) and the admin.

Pure functions on plain values (no database): the importer feeds them the names of a spec, the models'
``clean()`` and the API's final check (``campus.integrity``) feed them rows read from the database. Each
rule is written here once.

- the power graph is acyclic: a device never feeds itself, directly or through other devices;
- racks do not overlap on the floor: in one hall no two footprints share area (touching is fine);
- a rack lies inside its hall, footprint included, and a hall inside its building;
- a rack-scale NVLink domain comes whole: on every day a rack holds 0 or all the trays of a GB200 NVL72
  in service (NVIDIA GB200 NVL72 datasheet, 2024: 18 compute trays of 4 GPUs per rack), so service dates
  that split a domain are refused like a deleted tray (a tray's status is operational and may differ);
- a rack's servers fit it: on every day, the rack units of the servers in service are at most the rack's
  ``rack_units``, and their power at full TDP plus ``extra_it_kw`` is at most its ``design_kw``
  (servers of any status count: a failed server still takes its space and comes back at full power);
- references stay within one campus;
- a declared redundancy (campus ``power_redundancy`` / ``cooling_redundancy``) is what the topology
  achieves: N+1 or 2N declared and a single point found is an error; N declared and single points found is
  a warning (the design asked for them); nothing declared, nothing checked;
- a campus's ``grid_capacity_mw`` is greater than 0: the twin models no campus without a grid limit, so 0
  (once read as "no limit" by the importer and the admin) is refused on every write path with one message;
- a utility feed's ``capacity_mw`` is greater than 0 likewise: 0 was read as "not rated" and the feed
  dropped out of the utility and failover headroom without a word;
- a cooling plant's fitted coefficients (``fixed_kw``, ``eir_ref``, ``eir_per_k``) come all three or none;
- only a generator carries on-site generation fields (prime rating, load-following ramp, fuel price), and
  its prime rating is at most its rated (standby) power (ISO 8528-1: prime power is the continuous,
  variable-load rating, below the standby rating).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from campus.analysis.rackscale import whole_rack_nodes
from campus.catalog_data import NIC_KINDS
from campus.interchange.generator.common import RACK_DEPTH_M, RACK_WIDTH_M

__all__ = [
    "EPS",
    "GENERATION_FIELDS",
    "RACK_DEPTH_M",
    "RACK_UNITS",
    "RACK_WIDTH_M",
    "Footprint",
    "foreign_references",
    "generation_problems",
    "in_service_profile",
    "over_design_message",
    "over_units_message",
    "partial_domain_day",
    "peak_in_service",
    "server_power_w",
    "hall_outside_building",
    "outside_hall",
    "unit_in_other_hall",
    "unit_position_problems",
    "overlapping_racks",
    "partial_domain_message",
    "phase_problem",
    "power_cycles",
    "design_redundancy",
    "redundancy_declaration_checks",
    "whole_rack_nodes",
]

# A rack's height when none is given (Rack.rack_units default: a 48U EIA-310 rack).
RACK_UNITS = 48

# Floating-point slack for geometry checks (a rack flush with the hall wall is inside; racks side by side
# at a 0.6 m pitch touch without overlapping).
EPS = 1e-6


# ---------------------------------------------------------------- phases


def phase_problem(in_service_date, retire_date) -> str | None:
    """An object retires after it enters service: ``retire_date`` > ``in_service_date`` when both are set."""
    if in_service_date is not None and retire_date is not None and not retire_date > in_service_date:
        return f"Must be after in_service_date ({in_service_date.isoformat()})."
    return None


Phased = tuple  # (in_service_date or None, retire_date or None, amount)


def in_service_profile(items: Iterable[Phased]) -> list[tuple[object, float]]:
    """How much of ``amount`` is in service from each day on where it changes: ``[(day, total)]`` in day
    order, the first day None (before any date: what has no in_service_date). An object is in service on D
    when in_service_date is empty or <= D and retire_date is empty or > D (models.InventoryModel)."""
    start = 0.0
    deltas: dict[object, float] = {}
    for in_service, retire, amount in items:
        if in_service is None:
            start += amount
        else:
            deltas[in_service] = deltas.get(in_service, 0.0) + amount
        if retire is not None:
            deltas[retire] = deltas.get(retire, 0.0) - amount
    out = [(None, start)]
    total = start
    for day in sorted(deltas):
        total += deltas[day]
        out.append((day, total))
    return out


def peak_in_service(items: Iterable[Phased]) -> tuple[float, object]:
    """The most in service on any one day and the first day it is reached (None: from the start)."""
    peak, when = 0.0, None
    for day, total in in_service_profile(items):
        if total > peak + EPS:
            peak, when = total, day
    return peak, when


def _on(day) -> str:
    return f" on {day.isoformat()}" if day is not None else ""


# ---------------------------------------------------------------- power graph


def power_cycles(
    children: Mapping[Hashable, Iterable[tuple[Hashable, Hashable]]], limit: int = 20
) -> list[tuple[list[Hashable], list[Hashable]]]:
    """Every cycle of device → device feeds, each once: ``(devices in order, tags of the feeds on it)``.

    ``children`` maps a device to ``(downstream device, feed tag)`` pairs; the tag identifies the feed
    (a spec index, a primary key) so the caller can name the one at fault. Iterative depth-first search,
    so a long chain cannot overflow the stack. At most ``limit`` cycles are returned.
    """
    white, grey, black = 0, 1, 2
    colour: dict[Hashable, int] = {}
    found: list[tuple[list[Hashable], list[Hashable]]] = []
    reported: set[frozenset] = set()
    for root in sorted(children, key=repr):
        if colour.get(root, white) != white:
            continue
        stack: list[tuple[Hashable, Iterable]] = [(root, iter(children.get(root, ())))]
        on_path: list[tuple[Hashable, Hashable]] = [(root, None)]  # (device, tag of the feed into it)
        colour[root] = grey
        while stack:
            device, it = stack[-1]
            step = next(it, None)
            if step is None:
                stack.pop()
                on_path.pop()
                colour[device] = black
                continue
            child, tag = step
            state = colour.get(child, white)
            if state == white:
                colour[child] = grey
                on_path.append((child, tag))
                stack.append((child, iter(children.get(child, ()))))
            elif state == grey:
                start = next(i for i, (name, _) in enumerate(on_path) if name == child)
                cycle = [name for name, _ in on_path[start:]]
                tags = [t for _, t in on_path[start + 1 :]] + [tag]
                key = frozenset(cycle)
                if key not in reported and len(found) < limit:
                    reported.add(key)
                    found.append((cycle, tags))
    return found


def cycle_text(cycle: Sequence) -> str:
    return " → ".join(f'"{name}"' for name in [*cycle, cycle[0]])


# ---------------------------------------------------------------- floor


@dataclass(frozen=True)
class Footprint:
    """A rack on the floor of its hall: corner and size, m."""

    key: Hashable
    x_m: float
    y_m: float
    width_m: float = RACK_WIDTH_M
    depth_m: float = RACK_DEPTH_M


def outside_hall(rack: Footprint, hall_width_m: float, hall_length_m: float) -> list[tuple[str, str]]:
    """``(axis field, message)`` for each axis on which the footprint leaves the hall."""
    out = []
    for axis, start, extent, size in (
        ("x_m", rack.x_m, rack.width_m, hall_width_m),
        ("y_m", rack.y_m, rack.depth_m, hall_length_m),
    ):
        if start < -EPS or start + extent > size + EPS:
            out.append((axis, f"at {axis}={start} (+{extent} m) lies outside its hall (0..{size} m)"))
    return out


def hall_outside_building(
    x_m: float, y_m: float, width_m: float, length_m: float, building_width_m: float, building_length_m: float
) -> list[tuple[str, str]]:
    """``(hall field, message)`` for each axis on which a hall leaves its building: a negative corner is
    reported on the corner (``x_m``/``y_m``), an overhang on the size (``width_m``/``length_m``)."""
    out = []
    for axis, start, size_field, extent, size in (
        ("x_m", x_m, "width_m", width_m, building_width_m),
        ("y_m", y_m, "length_m", length_m, building_length_m),
    ):
        if start < -EPS:
            out.append((axis, "the hall lies outside its building"))
        elif start + extent > size + EPS:
            out.append(
                (size_field, f"the hall ({start} + {extent} m) extends beyond its building ({size} m)")
            )
    return out


def unit_position_problems(
    x_m: float | None, y_m: float | None, hall_width_m: float | None, hall_length_m: float | None
) -> list[tuple[str, str]]:
    """``(field, message)`` for a cooling unit's floor position that says nothing true: its corner is a point
    of its hall (``x_m`` and ``y_m`` together, 0..width and 0..length; ``hall_width_m`` None: the unit stands in
    no hall, so it has no floor position)."""
    if x_m is None and y_m is None:
        return []
    if x_m is None or y_m is None:
        missing = "x_m" if x_m is None else "y_m"
        return [(missing, "x_m and y_m go together (the unit's corner in its hall)")]
    if hall_width_m is None or hall_length_m is None:
        return [("x_m", "a position is the unit's corner in its hall; the unit stands in no hall")]
    out = []
    for axis, start, size in (("x_m", x_m, hall_width_m), ("y_m", y_m, hall_length_m)):
        if start < -EPS or start > size + EPS:
            out.append((axis, f"the unit at {axis}={start:g} lies outside its hall (0..{size:g} m)"))
    return out


def unit_in_other_hall(
    rack_hall: Hashable | None, unit_hall: Hashable | None, unit_hall_name: str
) -> str | None:
    """A rack cooled by a unit standing in another hall: a CRAH, CDU or rear door serves the racks of its own
    room (a unit placed in no hall, such as a campus-level one, may serve any). ``rack_hall`` and ``unit_hall``
    identify the halls (ids, or ``(building, hall)`` names in a spec)."""
    if rack_hall is None or unit_hall is None or rack_hall == unit_hall:
        return None
    return f"the cooling unit stands in another hall ({unit_hall_name}); a rack is cooled by a unit of its own hall"


def _overlap(a: Footprint, b: Footprint) -> bool:
    return (
        a.x_m < b.x_m + b.width_m - EPS
        and b.x_m < a.x_m + a.width_m - EPS
        and a.y_m < b.y_m + b.depth_m - EPS
        and b.y_m < a.y_m + a.depth_m - EPS
    )


def overlapping_racks(racks: Iterable[Footprint], limit: int = 100) -> list[tuple[Footprint, Footprint]]:
    """Pairs of racks (of one hall) whose footprints share area. A sweep along x: each rack is compared
    only with racks that start before it ends, so a hall of thousands of racks in rows stays cheap."""
    ordered = sorted(racks, key=lambda r: (r.x_m, r.y_m))
    pairs: list[tuple[Footprint, Footprint]] = []
    active: list[Footprint] = []
    for rack in ordered:
        active = [r for r in active if r.x_m + r.width_m - EPS > rack.x_m]
        for other in active:
            if _overlap(other, rack):
                pairs.append((other, rack))
                if len(pairs) >= limit:
                    return pairs
        active.append(rack)
    return pairs


# ---------------------------------------------------------------- rack-scale domains


def partial_domain_message(rack: str, slug: str, count: int, whole: int, day=None) -> str | None:
    """The error for a rack holding part of a rack-scale domain (0 or ``whole`` nodes are fine)."""
    if count in (0, whole):
        return None
    return (
        f'rack "{rack}" would hold {count} "{slug}" nodes{_on(day)}: a rack takes 0 or {whole} '
        "(whole racks only)"
    )


def partial_domain_day(rack: str, slug: str, items: Iterable[Phased], whole: int) -> str | None:
    """The error for the first day a rack holds part of a domain, its trays ``items`` with their service
    dates (amount 1 per tray, or a spec's group count): service dates may not split a domain."""
    for day, total in in_service_profile(items):
        if message := partial_domain_message(rack, slug, round(total), whole, day):
            return message
    return None


# ---------------------------------------------------------------- what a rack holds


def server_power_w(gpus_per_node: int, tdp_w: float, overhead_w: float, nics: int, nic_kind: str) -> float:
    """One server at full GPU TDP, W: its GPUs, the rest of the server and its NICs' extra draw (the
    analytics' ``CampusSnapshot.node_power_w``)."""
    extra = float(NIC_KINDS.get(nic_kind, {}).get("extra_w_per_nic", 0.0))
    return gpus_per_node * tdp_w + overhead_w + nics * extra


def over_units_message(rack: str, rack_units: int, used: float, day=None) -> str | None:
    """The error for servers taking more rack units than the rack has."""
    if used <= rack_units:
        return None
    return f'rack "{rack}" would hold {used:g}U of servers{_on(day)}: more than its {rack_units}U'


def over_design_message(rack: str, design_kw: float, it_kw: float, day=None) -> str | None:
    """The error for servers (at full TDP, with the rack's extra IT) drawing more than the rack's design.
    A slack of 0.01 kW lets a design_kw rounded to 10 W (placement writes 3 decimals) hold its servers."""
    if it_kw <= design_kw + 0.01:
        return None
    return (
        f'rack "{rack}" would hold {_kw(it_kw)} kW of IT{_on(day)} (servers at full TDP + extra_it_kw): more '
        f"than its design_kw ({design_kw:g} kW)"
    )


def _kw(value: float) -> str:
    """kW as a person reads them: two decimals up to a million, then four significant digits (1e308 kW is
    '1e+308', not 309 digits)."""
    return f"{value:.2f}" if abs(value) < 1e6 else f"{value:.4g}"


# ---------------------------------------------------------------- references


def foreign_references(own_campus: int | None, referenced: Mapping[str, int | None]) -> list[str]:
    """The fields (of ``field -> campus of the object it points at``) that leave ``own_campus``."""
    if own_campus is None:
        return []
    return [name for name, campus in referenced.items() if campus is not None and campus != own_campus]


# ---------------------------------------------------------------- on-site generation

GRID_CAPACITY_FIELD = "grid_capacity_mw"
# 0 would read as "no grid limit" to stranded capacity, headroom and placement, yet as a grid with no capacity
# to the summary's grid_headroom_mw: refused on every write path (the API, the spec importer, the admin)
GRID_CAPACITY_MESSAGE = (
    "must be greater than 0 MW: the capacity of the campus's grid connection, which bounds the headroom, "
    "stranded capacity and placement. The twin models no campus without a grid limit; to leave the grid out "
    "of the way, give a capacity above the campus's peak facility load."
)


def grid_capacity_problem(value: float | None) -> str | None:
    """``GRID_CAPACITY_MESSAGE`` for a campus grid capacity (MW) of 0 or less, else None (None: not given,
    which the field's own rules judge)."""
    return _not_above_zero(value, GRID_CAPACITY_MESSAGE)


def _not_above_zero(value: float | None, message: str) -> str | None:
    return message if value is not None and value <= 0 else None


UTILITY_CAPACITY_FIELD = "capacity_mw"
# 0 would read as "not rated" to the utility headroom, the failover headroom and placement (the feed would
# drop out of them without a word), yet as a feed with no capacity to a reader: refused like the campus grid
UTILITY_CAPACITY_MESSAGE = (
    "must be greater than 0 MW: the capacity of the utility feed, which bounds the utility headroom, the "
    "failover headroom and placement. A feed with no capacity carries nothing; to leave a feed out of the "
    "way, give a capacity above what it can be asked to carry."
)


def utility_capacity_problem(value: float | None) -> str | None:
    """``UTILITY_CAPACITY_MESSAGE`` for a utility feed capacity (MW) of 0 or less, else None (None: not
    given, which the field's own rules judge)."""
    return _not_above_zero(value, UTILITY_CAPACITY_MESSAGE)


GENERATION_FIELDS = ("prime_rating_kw", "ramp_kw_per_s", "fuel_usd_per_mwh")


def generation_problems(
    kind: str, rated_kw: float | None, values: Mapping[str, float | None]
) -> list[tuple[str, str]]:
    """``(field, message)`` for each on-site generation field a power device may not have: the fields
    belong to generators only, and a prime rating stays within the rated (standby) power."""
    out = []
    if kind != "generator":
        for name in GENERATION_FIELDS:
            if values.get(name) is not None:
                out.append((name, f"only a generator has {name} (this device is a {kind})"))
        return out
    prime = values.get("prime_rating_kw")
    if prime is not None and rated_kw is not None and prime > rated_kw + EPS:
        out.append(
            (
                "prime_rating_kw",
                f"the prime rating ({prime:g} kW) exceeds the generator's rated_kw ({rated_kw:g} kW)",
            )
        )
    return out


# ---------------------------------------------------------------- a fitted cooling plant

PLANT_FIT_FIELDS = ("fixed_kw", "eir_ref", "eir_per_k")  # a fitted plant's coefficients (docs/model.md)


def plant_fit_problem(values: Mapping[str, float | None]) -> tuple[str, str] | None:
    """A cooling plant's fitted coefficients come all three or none: (the first one missing, the message)."""
    given = [f for f in PLANT_FIT_FIELDS if values.get(f) is not None]
    if not given or len(given) == len(PLANT_FIT_FIELDS):
        return None
    missing = next(f for f in PLANT_FIT_FIELDS if values.get(f) is None)
    return (
        missing,
        f"{', '.join(PLANT_FIT_FIELDS)} are set together: {', '.join(given)} given without {missing}.",
    )


# ---------------------------------------------------------------- declared redundancy

REDUNDANCY_LEVELS = ("N", "N+1", "2N")

# the check itself is the core's (campus.analysis.redundancy); kept here under its old names
from campus.analysis.redundancy import design_redundancy, redundancy_declaration_checks  # noqa: E402
