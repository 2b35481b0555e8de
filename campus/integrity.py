"""The inventory rules (``campus.interchange.rules``) applied to database rows.

Two entry points, so every write path runs the same rules as the spec importer:

- ``instance_errors(obj)``: the rules one object can break on its own, called from the models' ``clean()``
  (so by the admin's forms and by the API serializers): references within one campus, a hall inside the
  object's building, a power feed closing a loop, a rack leaving its hall or overlapping another rack, a
  server tray splitting a rack-scale NVLink domain; a hall or building that moves or shrinks is checked
  against what it already holds (a hall leaving its building or its racks, a building its halls).
- ``WriteCheck``: the rules a set of writes can break together (two racks of one bulk request on the same
  tiles, feeds that close a loop between them, 18 trays created in one request, a tray moved away or
  dated apart from its domain, servers beyond their rack's units or design power on some day, a catalog
  row made bigger than the racks holding its servers allow: ``rack_limit_problems``). The
  API notes what it writes inside the request's transaction, then asks for the problems of the final
  state; any problem undoes the whole request.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from django.db import models, transaction

from campus.interchange.rules import (
    EPS,
    GENERATION_FIELDS,
    GRID_CAPACITY_FIELD,
    UTILITY_CAPACITY_FIELD,
    Footprint,
    cycle_text,
    foreign_references,
    generation_problems,
    grid_capacity_problem,
    hall_outside_building,
    outside_hall,
    over_design_message,
    over_units_message,
    overlapping_racks,
    partial_domain_day,
    peak_in_service,
    phase_problem,
    power_cycles,
    server_power_w,
    unit_in_other_hall,
    unit_position_problems,
    utility_capacity_problem,
    whole_rack_nodes,
)
from campus.models import (
    Building,
    Campus,
    CoolingUnit,
    DataHall,
    EnergyStorage,
    GPUModel,
    Node,
    NodeModel,
    PowerDevice,
    PowerFeed,
    Rack,
    Row,
    Switch,
    UtilityFeed,
)

# Racks are at most 5 m wide or deep (Rack.width_m/depth_m validators): a rack can only overlap racks whose
# corner lies within 5 m of its own.
_MAX_RACK_SIZE_M = 5.0


def campus_of(obj: models.Model) -> int | None:
    """The campus an inventory object belongs to (catalog rows belong to none)."""
    if isinstance(obj, Campus):
        return obj.pk
    if hasattr(obj, "campus_id"):
        return obj.campus_id
    if isinstance(obj, DataHall):
        return obj.building.campus_id if obj.building_id else None
    if isinstance(obj, Row):
        return obj.hall.building.campus_id if obj.hall_id else None
    if isinstance(obj, Node):
        return obj.rack.campus_id if obj.rack_id else None
    if isinstance(obj, Building):
        return obj.campus_id
    return None


def _reference_errors(obj: models.Model) -> dict[str, str]:
    own = campus_of(obj)
    referenced: dict[str, int | None] = {}
    for f in obj._meta.concrete_fields:
        if not f.is_relation or f.name == "campus" or getattr(obj, f.attname) is None:
            continue
        target = getattr(obj, f.name)
        if hasattr(target, "campus_id") or f.related_model.__name__ in ("DataHall", "Row"):
            referenced[f.name] = campus_of(target)
    errors = {
        name: f"The {obj._meta.get_field(name).verbose_name} belongs to another campus."
        for name in foreign_references(own, referenced)
    }
    building_id = getattr(obj, "building_id", None)
    hall = getattr(obj, "hall", None) if getattr(obj, "hall_id", None) else None
    if "hall" not in errors and hall is not None and building_id and hall.building_id != building_id:
        errors["hall"] = "The hall is in another building."
    return errors


def _feed_cycle_error(feed) -> str | None:
    """A device → device feed that would close a loop in its campus's power graph."""
    if not (feed.downstream_device_id and feed.upstream_id and feed.campus_id):
        return None
    children: dict[int, list[tuple[int, int | None]]] = defaultdict(list)
    edges = (
        PowerFeed.objects.filter(campus_id=feed.campus_id, downstream_device__isnull=False)
        .exclude(pk=feed.pk)
        .values_list("upstream_id", "downstream_device_id", "id")
    )
    for up, down, pk in edges:
        children[up].append((down, pk))
    children[feed.upstream_id].append((feed.downstream_device_id, None))
    for cycle, tags in power_cycles(children):
        if None in tags:
            names = dict(PowerDevice.objects.filter(pk__in=cycle).values_list("id", "name"))
            return f"This feed closes a loop in the power chain: {cycle_text([names[i] for i in cycle])}."
    return None


def _footprint(rack) -> Footprint:
    return Footprint(rack.pk, rack.x_m, rack.y_m, rack.width_m, rack.depth_m)


def _rack_errors(rack, neighbours: bool = True) -> dict[str, str]:
    errors: dict[str, str] = {}
    if rack.row_id and rack.hall_id and rack.row.hall_id != rack.hall_id:
        errors["row"] = "The row belongs to another hall."
    if rack.cooling_unit_id and rack.hall_id:
        unit = rack.cooling_unit
        if message := unit_in_other_hall(rack.hall_id, unit.hall_id, unit.hall.name if unit.hall_id else ""):
            errors["cooling_unit"] = f"{message[0].upper()}{message[1:]}."
    if not rack.hall_id or None in (rack.x_m, rack.y_m, rack.width_m, rack.depth_m):
        return errors
    # The rack being written is keyed None: it may not have a primary key yet.
    place = Footprint(None, rack.x_m, rack.y_m, rack.width_m, rack.depth_m)
    for axis, message in outside_hall(place, rack.hall.width_m, rack.hall.length_m):
        errors.setdefault(axis, f"The rack {message}.")
    if not neighbours:
        return errors
    near = (
        Rack.objects.filter(
            hall_id=rack.hall_id,
            x_m__gt=rack.x_m - _MAX_RACK_SIZE_M,
            x_m__lt=rack.x_m + rack.width_m,
            y_m__gt=rack.y_m - _MAX_RACK_SIZE_M,
            y_m__lt=rack.y_m + rack.depth_m,
        )
        .exclude(pk=rack.pk)
        .only("id", "name", "x_m", "y_m", "width_m", "depth_m")
    )
    names = {}
    others = []
    for other in near:
        names[other.pk] = other.name
        others.append(_footprint(other))
    for a, b in overlapping_racks([place, *others]):
        other = b.key if a.key is None else a.key if b.key is None else None
        if other is not None:
            errors.setdefault("x_m", f'The rack overlaps rack "{names[other]}" on the floor.')
            break
    return errors


def _hall_errors(hall) -> dict[str, str]:
    """A hall written (moved, resized, put in another building) must lie inside its building and still
    hold its racks, and whatever sits in it must stay in its campus and building."""
    errors: dict[str, str] = {}
    if None in (hall.x_m, hall.y_m, hall.width_m, hall.length_m):
        return errors
    if hall.building_id:
        b = hall.building
        for name, message in hall_outside_building(
            hall.x_m, hall.y_m, hall.width_m, hall.length_m, b.width_m, b.length_m
        ):
            errors.setdefault(name, f"{message[0].upper()}{message[1:]}.")
    if not hall.pk:
        return errors
    racks = Rack.objects.filter(hall_id=hall.pk).annotate(
        right_m=models.F("x_m") + models.F("width_m"), back_m=models.F("y_m") + models.F("depth_m")
    )
    for name, size, beyond in (
        ("width_m", hall.width_m, racks.filter(right_m__gt=hall.width_m + EPS).order_by("-right_m")),
        ("length_m", hall.length_m, racks.filter(back_m__gt=hall.length_m + EPS).order_by("-back_m")),
    ):
        rack = beyond.first()
        if rack is not None and name not in errors:
            count = beyond.count()
            others = f" and {count - 1} other rack(s)" if count > 1 else ""
            errors[name] = f'Rack "{rack.name}"{others} would lie outside the hall ({size} m).'
    units = CoolingUnit.objects.filter(hall_id=hall.pk)
    for name, size, beyond in (
        ("width_m", hall.width_m, units.filter(x_m__gt=hall.width_m + EPS).order_by("-x_m")),
        ("length_m", hall.length_m, units.filter(y_m__gt=hall.length_m + EPS).order_by("-y_m")),
    ):
        unit = beyond.first()
        if unit is not None and name not in errors:
            errors[name] = f'Cooling unit "{unit.name}" would lie outside the hall ({size} m).'
    if hall.building_id and "building" not in errors:
        errors.update(_moved_hall_errors(hall))
    return errors


def _moved_hall_errors(hall) -> dict[str, str]:
    """A hall put into another building: what it holds must stay in the building's campus, and objects that
    name both a building and this hall must name the new building."""
    campus_id = hall.building.campus_id
    holders = [
        (Rack, "rack"),
        (PowerDevice, "power device"),
        (CoolingUnit, "cooling unit"),
        (Switch, "switch"),
    ]
    for model, label in holders:
        here = model.objects.filter(hall_id=hall.pk)
        if here.exclude(campus_id=campus_id).exists():
            return {"building": f"The hall holds a {label} of another campus."}
        if "building" in {f.name for f in model._meta.concrete_fields}:
            stray = here.exclude(building_id=hall.building_id).exclude(building__isnull=True).first()
            if stray is not None:
                return {"building": f'The hall holds {label} "{stray.name}" of another building.'}
    return {}


def _building_errors(building) -> dict[str, str]:
    """A building written (resized) must still hold its halls."""
    errors: dict[str, str] = {}
    if not building.pk or None in (building.width_m, building.length_m):
        return errors
    halls = DataHall.objects.filter(building_id=building.pk).annotate(
        right_m=models.F("x_m") + models.F("width_m"), back_m=models.F("y_m") + models.F("length_m")
    )
    for name, size, beyond in (
        ("width_m", building.width_m, halls.filter(right_m__gt=building.width_m + EPS).order_by("-right_m")),
        ("length_m", building.length_m, halls.filter(back_m__gt=building.length_m + EPS).order_by("-back_m")),
    ):
        hall = beyond.first()
        if hall is not None:
            errors[name] = f'Hall "{hall.name}" would extend beyond the building ({size} m).'
    return errors


def _node_domain_error(node) -> str | None:
    """A tray added to (or moved into, or given other service dates in) a rack one at a time splits a
    rack-scale domain on some day."""
    if not (node.rack_id and node.node_model_id):
        return None
    model = node.node_model
    whole = whole_rack_nodes(model.slug, model.gpus_per_node)
    if whole is None:
        return None
    others = (
        Node.objects.filter(rack_id=node.rack_id, node_model_id=node.node_model_id)
        .exclude(pk=node.pk)
        .values("in_service_date", "retire_date")
        .annotate(n=models.Count("id"))
        .order_by()
        .values_list("in_service_date", "retire_date", "n")
    )
    trays = [*others, (node.in_service_date, node.retire_date, 1)]
    return partial_domain_day(node.rack.name, model.slug, trays, whole)


def _rack_contents(rack_ids) -> dict[int, list[tuple]]:
    """The servers of each rack grouped by model and service dates: ``rack -> [(model id, in service,
    retire, count)]`` (one query)."""
    out: dict[int, list[tuple]] = defaultdict(list)
    rows = (
        Node.objects.filter(rack_id__in=list(rack_ids))
        .values("rack_id", "node_model_id", "in_service_date", "retire_date")
        .annotate(n=models.Count("id"))
        .order_by()
        .values_list("rack_id", "node_model_id", "in_service_date", "retire_date", "n")
    )
    for rack_id, model_id, in_service, retire, n in rows:
        out[rack_id].append((model_id, in_service, retire, n))
    return out


@dataclass(frozen=True)
class _Size:
    slug: str
    whole: int | None
    units: int
    server_kw: float


def _sizes(model_ids) -> dict[int, _Size]:
    out = {}
    for m in NodeModel.objects.filter(pk__in=list(model_ids)).select_related("gpu_model"):
        watts = server_power_w(m.gpus_per_node, m.gpu_model.tdp_w, m.overhead_w, m.nics, m.nic_kind)
        out[m.pk] = _Size(m.slug, whole_rack_nodes(m.slug, m.gpus_per_node), m.rack_units, watts / 1000.0)
    return out


def rack_limit_problems(rack_ids) -> dict[int, dict[str, str]]:
    """What each rack's servers break, ``rack -> {rule: message}``: ``rack_units`` (more units than the
    rack has on some day), ``design_kw`` (more power at full TDP, with the rack's extra IT, than its
    design) and ``domain`` (part of a rack-scale NVLink domain on some day). Three queries."""
    contents = _rack_contents(rack_ids)
    if not contents:
        return {}
    sizes = _sizes({model_id for rows in contents.values() for model_id, *_ in rows})
    racks = Rack.objects.filter(pk__in=list(contents)).only(
        "id", "name", "rack_units", "design_kw", "extra_it_kw"
    )
    out: dict[int, dict[str, str]] = {}
    for rack in racks:
        rows = contents[rack.pk]
        found: dict[str, str] = {}
        units, power = (
            peak_in_service((i, r, n * sizes[m].units) for m, i, r, n in rows),
            peak_in_service((i, r, n * sizes[m].server_kw) for m, i, r, n in rows),
        )
        if message := over_units_message(rack.name, rack.rack_units, *units):
            found["rack_units"] = message
        if message := over_design_message(rack.name, rack.design_kw, power[0] + rack.extra_it_kw, power[1]):
            found["design_kw"] = message
        for model_id in sorted({m for m, *_ in rows}):
            size = sizes[model_id]
            if size.whole is None:
                continue
            trays = [(i, r, n) for m, i, r, n in rows if m == model_id]
            if message := partial_domain_day(rack.name, size.slug, trays, size.whole):
                found.setdefault("domain", message)
        if found:
            out[rack.pk] = found
    return out


def _storage_errors(storage) -> dict[str, str]:
    """A battery placed in a building connects to a power device of that building (or of none)."""
    if not (storage.power_device_id and storage.building_id):
        return {}
    device_building = storage.power_device.building_id
    if device_building is not None and device_building != storage.building_id:
        return {"power_device": "The power device is in another building."}
    return {}


def _unit_errors(unit, errors: dict[str, str]) -> dict[str, str]:
    """A cooling unit serves the racks of its own hall and stands inside it (its corner, when recorded)."""
    out: dict[str, str] = {}
    if "hall" in errors:
        return out
    hall = unit.hall if unit.hall_id else None
    for name, message in unit_position_problems(
        unit.x_m, unit.y_m, hall.width_m if hall else None, hall.length_m if hall else None
    ):
        out.setdefault(name, f"{message[0].upper()}{message[1:]}.")
    if unit.pk is not None and unit.hall_id:
        elsewhere = Rack.objects.filter(cooling_unit_id=unit.pk).exclude(hall_id=unit.hall_id).count()
        if elsewhere:
            out["hall"] = (
                f"{elsewhere} rack{'s' if elsewhere != 1 else ''} of other halls "
                f"{'are' if elsewhere != 1 else 'is'} cooled by this unit; a unit serves the racks of its own hall."
            )
    return out


def instance_errors(obj: models.Model) -> dict[str, str]:
    """Every rule ``obj`` breaks on its own, as ``{field: message}``.

    In a bulk request (``obj._in_bulk``) the rules that read the object's neighbours (loops, overlaps,
    whole racks) are left to ``WriteCheck`` on the final state: the request's objects arrive together,
    and one query per object over the whole campus would make a 5,000-object request quadratic."""
    in_bulk = getattr(obj, "_in_bulk", False)
    errors = _reference_errors(obj)
    if hasattr(obj, "retire_date") and (
        message := phase_problem(getattr(obj, "in_service_date", None), obj.retire_date)
    ):
        errors["retire_date"] = message
    if isinstance(obj, PowerFeed) and not in_bulk and "downstream_device" not in errors:
        if message := _feed_cycle_error(obj):
            errors["downstream_device"] = message
    elif isinstance(obj, Rack):
        for name, message in _rack_errors(obj, neighbours=not in_bulk).items():
            errors.setdefault(name, message)
    elif isinstance(obj, DataHall):
        for name, message in _hall_errors(obj).items():
            errors.setdefault(name, message)
    elif isinstance(obj, Building):
        for name, message in _building_errors(obj).items():
            errors.setdefault(name, message)
    elif isinstance(obj, PowerDevice):
        values = {name: getattr(obj, name) for name in GENERATION_FIELDS}
        for name, message in generation_problems(obj.kind, obj.rated_kw, values):
            errors.setdefault(name, f"{message[0].upper()}{message[1:]}.")
    elif isinstance(obj, CoolingUnit):
        for name, message in _unit_errors(obj, errors).items():
            errors.setdefault(name, message)
    elif isinstance(obj, EnergyStorage) and "power_device" not in errors and "building" not in errors:
        errors.update(_storage_errors(obj))
    elif isinstance(obj, Campus):
        # a negative capacity is the field's own validator's to refuse; 0 passes it and is refused here
        grid = obj.grid_capacity_mw
        if grid is not None and grid >= 0 and (message := grid_capacity_problem(grid)):
            errors[GRID_CAPACITY_FIELD] = message
    elif isinstance(obj, UtilityFeed):
        # the same for a utility feed: a negative capacity is its validator's, 0 is refused here
        capacity = obj.capacity_mw
        if capacity is not None and capacity >= 0 and (message := utility_capacity_problem(capacity)):
            errors[UTILITY_CAPACITY_FIELD] = message
    elif isinstance(obj, Node) and not in_bulk and "rack" not in errors:
        message = _node_domain_error(obj)
        if message:
            errors["rack"] = message
    return errors


# ---------------------------------------------------------------- the final state of a request


@dataclass
class Problem:
    obj: tuple[str, int]  # (model label, pk) of the written object the problem is reported on
    field: str
    message: str


@dataclass
class WriteCheck:
    """What a request wrote, and the rules its final state must keep."""

    campuses: set[int] = field(default_factory=set)  # campuses whose power graph changed
    halls: dict[int, list[tuple[str, int]]] = field(default_factory=lambda: defaultdict(list))
    racks: dict[int, list[tuple[str, int]]] = field(default_factory=lambda: defaultdict(list))
    feeds: dict[int, tuple[str, int]] = field(default_factory=dict)
    written_racks: dict[int, tuple[str, int]] = field(default_factory=dict)  # racks written themselves
    node_models: dict[int, tuple[str, int]] = field(default_factory=dict)  # catalog rows written
    gpu_models: dict[int, tuple[str, int]] = field(default_factory=dict)
    # A written rack's (design_kw, extra_it_kw) when first noted and when last noted: an over-design rack
    # whose extra_it_kw alone changed is reported on extra_it_kw, the field the request gave.
    rack_power: dict[int, list[tuple]] = field(default_factory=dict)

    def note(self, obj: models.Model) -> None:
        """Record an object as it stands now (call before and after changing it)."""
        key = (obj._meta.label_lower, obj.pk)
        if isinstance(obj, PowerFeed):
            self.campuses.add(obj.campus_id)
            self.feeds[obj.pk] = key
        elif isinstance(obj, PowerDevice):
            self.campuses.add(obj.campus_id)
        elif isinstance(obj, Rack):
            if obj.hall_id:
                self.halls[obj.hall_id].append(key)
            if obj.pk:
                self.written_racks[obj.pk] = key
                values = (obj.design_kw, obj.extra_it_kw)
                self.rack_power.setdefault(obj.pk, [values, values])[1] = values
        elif isinstance(obj, Node) and obj.rack_id:
            self.racks[obj.rack_id].append(key)
        elif isinstance(obj, NodeModel) and obj.pk:
            self.node_models[obj.pk] = key
        elif isinstance(obj, GPUModel) and obj.pk:
            self.gpu_models[obj.pk] = key

    def problems(self) -> list[Problem]:
        return [*self._cycles(), *self._overlaps(), *self._contents()]

    def _cycles(self) -> Iterable[Problem]:
        for campus_id in sorted(self.campuses):
            children: dict[int, list[tuple[int, int]]] = defaultdict(list)
            edges = PowerFeed.objects.filter(campus_id=campus_id, downstream_device__isnull=False)
            for up, down, pk in edges.values_list("upstream_id", "downstream_device_id", "id"):
                children[up].append((down, pk))
            for cycle, tags in power_cycles(children):
                written = [self.feeds[t] for t in tags if t in self.feeds]
                names = dict(PowerDevice.objects.filter(pk__in=cycle).values_list("id", "name"))
                message = (
                    f"This feed closes a loop in the power chain: {cycle_text([names[i] for i in cycle])}."
                )
                yield Problem(written[-1] if written else ("", 0), "downstream_device", message)

    def _overlaps(self) -> Iterable[Problem]:
        for hall_id, written in self.halls.items():
            racks = {
                r.pk: r
                for r in Rack.objects.filter(hall_id=hall_id).only(
                    "id", "name", "x_m", "y_m", "width_m", "depth_m"
                )
            }
            mine = {pk for _, pk in written}
            for a, b in overlapping_racks(_footprint(r) for r in racks.values()):
                if a.key in mine or b.key in mine:
                    at, other = (a, b) if a.key in mine else (b, a)
                    key = next(k for k in written if k[1] == at.key)
                    yield Problem(
                        key, "x_m", f'The rack overlaps rack "{racks[other.key].name}" on the floor.'
                    )

    def _contents(self) -> Iterable[Problem]:
        """What the racks the request touched hold on every day: their units, their design power and
        whole rack-scale domains. A problem is reported on the rack when the request wrote it (its
        ``rack_units`` or ``design_kw``), else on the last server written into it (its ``rack``), else on
        the catalog row whose change made the servers bigger."""
        model_keys = dict(self.node_models)
        if self.gpu_models:
            for pk, gpu_id in NodeModel.objects.filter(gpu_model_id__in=list(self.gpu_models)).values_list(
                "id", "gpu_model_id"
            ):
                model_keys.setdefault(pk, self.gpu_models[gpu_id])
        rack_ids = {*self.racks, *self.written_racks}
        by_model: dict[int, int] = {}
        if model_keys:
            for rack_id, model_id in (
                Node.objects.filter(node_model_id__in=list(model_keys))
                .values_list("rack_id", "node_model_id")
                .distinct()
            ):
                rack_ids.add(rack_id)
                by_model.setdefault(rack_id, model_id)
        for rack_id, found in rack_limit_problems(rack_ids).items():
            for rule, message in found.items():
                if rule != "domain" and rack_id in self.written_racks:
                    yield Problem(self.written_racks[rack_id], self._rack_field(rack_id, rule), message)
                elif rack_id in self.racks:
                    yield Problem(self.racks[rack_id][-1], "rack", message)
                elif rule != "domain" and rack_id in by_model:
                    key = model_keys[by_model[rack_id]]
                    field_name = {"rack_units": "rack_units", "design_kw": "overhead_w"}[rule]
                    if key[0] == "campus.gpumodel":
                        field_name = "tdp_w"
                    yield Problem(key, field_name, message)

    def _rack_field(self, rack_id: int, rule: str) -> str:
        if rule == "design_kw" and rack_id in self.rack_power:
            (design_before, extra_before), (design_after, extra_after) = self.rack_power[rack_id]
            if design_before == design_after and extra_before != extra_after:
                return "extra_it_kw"
        return rule


class _Undo(Exception):
    """Raised to roll back a trial write."""


def trial_problems(write: Callable[[], None], before: Iterable[models.Model], after: Iterable[models.Model]):
    """The problems the final state of ``write()`` would have, with nothing kept: the write runs in a
    savepoint that is always rolled back. ``before`` are the written objects as the database holds them,
    ``after`` the objects as they will be (the admin saves one form at a time, so this is how it judges
    the request's final state before saving, with the same rules as the API)."""
    check = WriteCheck()
    problems: list[Problem] = []
    try:
        with transaction.atomic():
            for obj in before:
                check.note(obj)
            write()
            for obj in after:
                check.note(obj)
            problems = check.problems()
            raise _Undo
    except _Undo:
        pass
    return problems
