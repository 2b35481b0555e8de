"""Import a campus spec: validate everything in Python first, then write each table with one bulk insert.

Validation happens in two passes. The JSON Schema pass checks shape, types and ranges and reports every
violation with its path. Only a spec of the right shape reaches the second pass, which checks names,
references, catalog slugs, geometry, link reach and the power graph — again reporting every error. Any
error raises ``SpecError`` before a single row is written.

Writing is one transaction: a campus row, then one ``bulk_create`` per table in dependency order, with
the new primary keys read back from the insert (PostgreSQL and SQLite both return them). There is no
per-row ``save()`` and no per-row query, so a 100k-GPU campus takes a handful of seconds. Bulk inserts
write no django-simple-history rows: an import is one event, not thousands of edits.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable
from typing import Any

import fastjsonschema
from django.db import connections, models, router, transaction
from django.utils import timezone
from jsonschema import Draft7Validator

from campus.choices import FeedSide, Network, NodeStatus
from campus.interchange.schema import CAMPUS_SPEC_SCHEMA
from campus.models import (
    Building,
    Campus,
    CoolingPlant,
    CoolingUnit,
    DataHall,
    Link,
    LinkMedium,
    Node,
    NodeModel,
    Pod,
    PowerDevice,
    PowerFeed,
    Rack,
    Row,
    Switch,
    SwitchModel,
    UtilityFeed,
)

Progress = Callable[[str, int], None]
BATCH_SIZE = 2000
# Floating-point slack for geometry checks (a rack flush with the hall wall is inside).
_EPS = 1e-6

_VALIDATOR = Draft7Validator(CAMPUS_SPEC_SCHEMA)
# Compiled to Python code: ~20x faster than jsonschema on a valid spec, but it stops at the first error,
# so jsonschema is run to list them all only when this pass fails.
_FAST_VALIDATE = fastjsonschema.compile(CAMPUS_SPEC_SCHEMA)


class SpecError(Exception):
    """An invalid campus spec; ``errors`` is the full list of ``{"path", "message"}``."""

    def __init__(self, errors: list[dict[str, str]]) -> None:
        self.errors = errors
        head = "; ".join(f"{e['path']}: {e['message']}" for e in errors[:3])
        more = f" (and {len(errors) - 3} more)" if len(errors) > 3 else ""
        super().__init__(f"invalid campus spec: {head}{more}")


# ---------------------------------------------------------------- paths and schema errors


def format_path(parts: Iterable[Any]) -> str:
    """``["buildings", 1, "halls", 0]`` → ``buildings[1].halls[0]``."""
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def schema_errors(data: Any) -> list[dict[str, str]]:
    """Every JSON-Schema violation, each with the path of the field at fault."""
    try:
        _FAST_VALIDATE(data)
        return []
    except fastjsonschema.JsonSchemaException:
        pass
    errors: list[dict[str, str]] = []
    seen: set[tuple[str, str]] = set()

    def add(path: str, message: str) -> None:
        if (path, message) not in seen:
            seen.add((path, message))
            errors.append({"path": path, "message": message})

    for error in _VALIDATOR.iter_errors(data):
        path = format_path(error.absolute_path)
        instance = error.instance
        if error.validator == "required" and isinstance(instance, dict):
            for name in error.validator_value:
                if name not in instance:
                    add(_join(path, name), "this field is required")
        elif error.validator == "additionalProperties" and isinstance(instance, dict):
            known = error.schema.get("properties", {})
            for name in instance:
                if name not in known:
                    add(_join(path, str(name)), "unknown field")
        elif error.validator == "dependencies" and isinstance(instance, dict):
            for trigger, needed in error.validator_value.items():
                for name in needed:
                    if trigger in instance and name not in instance:
                        add(_join(path, name), f"required when {trigger} is given")
        else:
            add(path or "$", error.message)
    return errors


# ---------------------------------------------------------------- semantic validation


class _Catalog:
    """Catalog slugs → ids, read once per import (four queries)."""

    def __init__(self) -> None:
        self.node_models = {
            slug: (pk, gpus)
            for pk, slug, gpus in NodeModel.objects.values_list("id", "slug", "gpus_per_node")
        }
        self.switch_models = dict(SwitchModel.objects.values_list("slug", "id"))
        self.media = {
            slug: (pk, reach)
            for pk, slug, reach in LinkMedium.objects.values_list("id", "slug", "max_reach_m")
        }


class _Checker:
    """The second validation pass. Builds the name indexes the writer then uses."""

    def __init__(self, data: dict, catalog: _Catalog, replace: bool) -> None:
        self.data = data
        self.catalog = catalog
        self.replace = replace
        self.errors: list[dict[str, str]] = []
        self.utility_feeds: dict[str, str] = {}
        self.buildings: dict[str, str] = {}
        self.halls: dict[tuple[str, str], str] = {}
        self.racks: dict[str, str] = {}  # name -> path
        self.devices: dict[str, str] = {}
        self.plants: dict[str, str] = {}
        self.units: dict[str, str] = {}
        self.pods: dict[str, str] = {}
        self.switches: dict[str, str] = {}
        self.rack_sides: dict[tuple[str, str], str] = {}  # (rack, side) -> path of the feed

    def error(self, path: str, message: str) -> None:
        self.errors.append({"path": path, "message": message})

    def _unique(self, index: dict, key, path: str, what: str) -> None:
        if key in index:
            shown = key if isinstance(key, str) else "/".join(key)
            self.error(path, f'duplicate {what} name "{shown}" (first at {index[key]})')
        else:
            index[key] = path

    def _ref(self, index: dict, key, path: str, what: str) -> None:
        if key is not None and key not in index:
            shown = key if isinstance(key, str) else "/".join(key)
            self.error(path, f'unknown {what} "{shown}"')

    def run(self) -> None:
        data = self.data
        campus = data["campus"]
        if not self.replace and Campus.objects.filter(name=campus["name"]).exists():
            self.error(
                "campus.name", f'a campus named "{campus["name"]}" already exists (import with replace)'
            )

        # First collect every name, so references may point forward in the document.
        for i, feed in enumerate(data.get("utility_feeds", [])):
            self._unique(self.utility_feeds, feed["name"], f"utility_feeds[{i}].name", "utility feed")
        for i, dev in enumerate(data.get("power_devices", [])):
            self._unique(self.devices, dev["name"], f"power_devices[{i}].name", "power device")
        for i, plant in enumerate(data.get("cooling_plants", [])):
            self._unique(self.plants, plant["name"], f"cooling_plants[{i}].name", "cooling plant")
        for i, unit in enumerate(data.get("cooling_units", [])):
            self._unique(self.units, unit["name"], f"cooling_units[{i}].name", "cooling unit")
        for i, pod in enumerate(data.get("pods", [])):
            self._unique(self.pods, pod["name"], f"pods[{i}].name", "pod")
        for i, switch in enumerate(data.get("switches", [])):
            self._unique(self.switches, switch["name"], f"switches[{i}].name", "switch")
        for bi, building in enumerate(data.get("buildings", [])):
            bpath = f"buildings[{bi}]"
            self._unique(self.buildings, building["name"], f"{bpath}.name", "building")
            for hi, hall in enumerate(building.get("halls", [])):
                hpath = f"{bpath}.halls[{hi}]"
                self._unique(self.halls, (building["name"], hall["name"]), f"{hpath}.name", "hall")
                rows: dict[str, str] = {}
                for ri, row in enumerate(hall.get("rows", [])):
                    self._unique(rows, row["name"], f"{hpath}.rows[{ri}].name", "row")
                    for ki, rack in enumerate(row.get("racks", [])):
                        self._unique(self.racks, rack["name"], f"{hpath}.rows[{ri}].racks[{ki}].name", "rack")
                for ki, rack in enumerate(hall.get("racks", [])):
                    self._unique(self.racks, rack["name"], f"{hpath}.racks[{ki}].name", "rack")

        self._check_buildings()
        self._check_power()
        self._check_cooling()
        self._check_network()

    # -- sites and racks

    def _check_buildings(self) -> None:
        for bi, building in enumerate(self.data.get("buildings", [])):
            bpath = f"buildings[{bi}]"
            for hi, hall in enumerate(building.get("halls", [])):
                hpath = f"{bpath}.halls[{hi}]"
                for axis, size in (("x_m", "width_m"), ("y_m", "length_m")):
                    if size in building and hall.get(axis, 0) < -_EPS:
                        self.error(f"{hpath}.{axis}", "the hall lies outside its building")
                    elif size in building and hall.get(axis, 0) + hall[size] > building[size] + _EPS:
                        self.error(
                            f"{hpath}.{size}",
                            f"the hall ({hall.get(axis, 0)} + {hall[size]} m) extends beyond its building "
                            f"({building[size]} m)",
                        )
                for ri, row in enumerate(hall.get("rows", [])):
                    for ki, rack in enumerate(row.get("racks", [])):
                        self._check_rack(rack, hall, f"{hpath}.rows[{ri}].racks[{ki}]")
                for ki, rack in enumerate(hall.get("racks", [])):
                    self._check_rack(rack, hall, f"{hpath}.racks[{ki}]")

    def _check_rack(self, rack: dict, hall: dict, path: str) -> None:
        width, depth = rack.get("width_m", 0.6), rack.get("depth_m", 1.2)
        for axis, size, extent in (("x_m", "width_m", width), ("y_m", "length_m", depth)):
            start = rack[axis]
            if start < -_EPS or start + extent > hall[size] + _EPS:
                self.error(
                    f"{path}.{axis}",
                    f'rack "{rack["name"]}" at {axis}={start} (+{extent} m) lies outside its hall '
                    f"(0..{hall[size]} m)",
                )
        for side in ("a", "b"):
            device = rack.get(f"feed_{side}")
            if device is None:
                if f"feed_{side}_rating_kw" in rack:
                    self.error(f"{path}.feed_{side}_rating_kw", f"a rating without feed_{side}")
                continue
            self._ref(self.devices, device, f"{path}.feed_{side}", "power device")
            rating = rack.get(f"feed_{side}_rating_kw", rack.get("feed_rating_kw", rack["design_kw"]))
            if rating <= 0:
                self.error(f"{path}.feed_rating_kw", "a feed needs a rating above 0 kW (design_kw is 0)")
            self.rack_sides[(rack["name"], side.upper())] = f"{path}.feed_{side}"
        self._ref(self.units, rack.get("cooling_unit"), f"{path}.cooling_unit", "cooling unit")
        self._ref(self.pods, rack.get("pod"), f"{path}.pod", "pod")
        for ni, group in enumerate(rack.get("nodes", [])):
            self._ref(self.catalog.node_models, group["model"], f"{path}.nodes[{ni}].model", "node model")

    def _check_place(self, item: dict, path: str) -> None:
        """A building (and hall inside it) referenced by name."""
        building = item.get("building")
        self._ref(self.buildings, building, f"{path}.building", "building")
        if item.get("hall") is not None and building in self.buildings:
            self._ref(self.halls, (building, item["hall"]), f"{path}.hall", "hall")

    # -- power

    def _check_power(self) -> None:
        for i, dev in enumerate(self.data.get("power_devices", [])):
            path = f"power_devices[{i}]"
            self._check_place(dev, path)
            self._ref(self.utility_feeds, dev.get("utility_feed"), f"{path}.utility_feed", "utility feed")

        children: dict[str, list[tuple[str, int]]] = {}
        for i, feed in enumerate(self.data.get("power_feeds", [])):
            path = f"power_feeds[{i}]"
            self._ref(self.devices, feed["from"], f"{path}.from", "power device")
            to, rack = feed.get("to"), feed.get("rack")
            if (to is None) == (rack is None):
                self.error(f"{path}.to", "a feed goes to exactly one of: to (a device) or rack")
                continue
            if to is not None:
                self._ref(self.devices, to, f"{path}.to", "power device")
                if to == feed["from"]:
                    self.error(f"{path}.to", f'power chain has a cycle: "{to}" feeds itself')
                elif to in self.devices and feed["from"] in self.devices:
                    children.setdefault(feed["from"], []).append((to, i))
            else:
                self._ref(self.racks, rack, f"{path}.rack", "rack")
                side = feed.get("side", FeedSide.N)
                if side != FeedSide.N:
                    key = (rack, side)
                    if key in self.rack_sides:
                        self.error(
                            f"{path}.side",
                            f'rack "{rack}" already has a side {side} feed ({self.rack_sides[key]})',
                        )
                    else:
                        self.rack_sides[key] = path
        self._check_cycles(children)

    def _check_cycles(self, children: dict[str, list[tuple[str, int]]]) -> None:
        """Report each cycle of device → device feeds once, naming its devices, at the cycle's feed that
        comes last in the document (usually the one that closed it)."""
        white, grey, black = 0, 1, 2
        colour: dict[str, int] = {}
        reported: set[frozenset[str]] = set()
        for root in sorted(children):
            if colour.get(root, white) != white:
                continue
            # Iterative DFS. ``on_path`` holds (device, index of the feed that led to it).
            stack: list[tuple[str, Iterable]] = [(root, iter(children.get(root, ())))]
            on_path: list[tuple[str, int]] = [(root, -1)]
            colour[root] = grey
            while stack:
                device, it = stack[-1]
                step = next(it, None)
                if step is None:
                    stack.pop()
                    on_path.pop()
                    colour[device] = black
                    continue
                child, feed_index = step
                state = colour.get(child, white)
                if state == white:
                    colour[child] = grey
                    on_path.append((child, feed_index))
                    stack.append((child, iter(children.get(child, ()))))
                elif state == grey:
                    start = next(i for i, (name, _) in enumerate(on_path) if name == child)
                    cycle = [name for name, _ in on_path[start:]]
                    feeds = [index for _, index in on_path[start + 1 :]] + [feed_index]
                    key = frozenset(cycle)
                    if key not in reported and len(reported) < 20:
                        reported.add(key)
                        names = " → ".join(f'"{n}"' for n in [*cycle, child])
                        self.error(f"power_feeds[{max(feeds)}].to", f"power chain has a cycle: {names}")

    # -- cooling

    def _check_cooling(self) -> None:
        for i, plant in enumerate(self.data.get("cooling_plants", [])):
            path = f"cooling_plants[{i}]"
            self._check_place(plant, path)
            self._ref(self.devices, plant.get("power_device"), f"{path}.power_device", "power device")
        for i, unit in enumerate(self.data.get("cooling_units", [])):
            path = f"cooling_units[{i}]"
            self._check_place(unit, path)
            self._ref(self.plants, unit.get("plant"), f"{path}.plant", "cooling plant")
            self._ref(self.devices, unit.get("power_device"), f"{path}.power_device", "power device")
            supply, ret = unit.get("supply_temp_c", 25.0), unit.get("return_temp_c", 45.0)
            if ret < supply:
                self.error(f"{path}.return_temp_c", f"return {ret} °C is below supply {supply} °C")

    # -- network

    def _check_network(self) -> None:
        for i, pod in enumerate(self.data.get("pods", [])):
            path = f"pods[{i}]"
            self._ref(self.buildings, pod.get("building"), f"{path}.building", "building")
            self._ref(
                self.catalog.switch_models, pod.get("switch_model"), f"{path}.switch_model", "switch model"
            )
        for i, switch in enumerate(self.data.get("switches", [])):
            path = f"switches[{i}]"
            self._ref(self.pods, switch.get("pod"), f"{path}.pod", "pod")
            self._check_place(switch, path)
            self._ref(self.racks, switch.get("rack"), f"{path}.rack", "rack")
            self._ref(self.catalog.switch_models, switch["model"], f"{path}.model", "switch model")
        for i, link in enumerate(self.data.get("links", [])):
            path = f"links[{i}]"
            self._ref(self.pods, link.get("pod"), f"{path}.pod", "pod")
            a_rack, a_switch = link.get("a_rack"), link.get("a_switch")
            if (a_rack is None) == (a_switch is None):
                self.error(f"{path}.a_rack", "a link starts at exactly one of: a_rack or a_switch")
            self._ref(self.racks, a_rack, f"{path}.a_rack", "rack")
            self._ref(self.switches, a_switch, f"{path}.a_switch", "switch")
            self._ref(self.switches, link["b_switch"], f"{path}.b_switch", "switch")
            if a_switch is not None and a_switch == link["b_switch"]:
                self.error(f"{path}.b_switch", f'a link cannot join switch group "{a_switch}" to itself')
            medium = self.catalog.media.get(link["medium"])
            if medium is None:
                self._ref(self.catalog.media, link["medium"], f"{path}.medium", "link medium")
            elif link["length_m"] > medium[1] + _EPS:
                self.error(
                    f"{path}.length_m",
                    f'{link["length_m"]} m exceeds the reach of "{link["medium"]}" ({medium[1]} m)',
                )


def _text_problem(value: str) -> str | None:
    if "\x00" in value:
        return "text must not contain NUL characters"
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return "text must be valid Unicode (no lone surrogates)"
    return None


def value_errors(data: Any, limit: int = 100) -> list[dict[str, str]]:
    """Values JSON Schema lets through but the database must not get: NaN or infinite numbers (YAML
    ``.nan``, JSON ``NaN``), text with NUL characters or lone surrogates (JSON ``"\\ud800"``).
    Iterative, so deep nesting cannot overflow."""
    try:
        # Fast path: the C JSON encoder refuses NaN/infinity and writes NUL as \u0000; encoding the
        # result refuses lone surrogates.
        text = json.dumps(data, allow_nan=False, default=str, ensure_ascii=False)
        text.encode("utf-8")
        if "\\u0000" not in text:
            return []
    except (ValueError, TypeError, RecursionError):  # UnicodeEncodeError is a ValueError
        pass
    errors: list[dict[str, str]] = []
    stack: list[tuple[Any, tuple]] = [(data, ())]
    seen: set[int] = set()  # YAML anchors can make a document refer to itself
    while stack and len(errors) < limit:
        value, path = stack.pop()
        if isinstance(value, dict | list):
            if id(value) in seen:
                continue
            seen.add(id(value))
        if isinstance(value, dict):
            stack.extend((v, (*path, k)) for k, v in value.items())
        elif isinstance(value, list):
            stack.extend((v, (*path, i)) for i, v in enumerate(value))
        elif isinstance(value, float) and not math.isfinite(value):
            errors.append({"path": format_path(path) or "$", "message": f"{value} is not a finite number"})
        elif isinstance(value, str) and (problem := _text_problem(value)):
            errors.append({"path": format_path(path) or "$", "message": problem})
    errors.sort(key=lambda e: e["path"])
    return errors


def validate_spec(data: Any, replace: bool = False) -> list[dict[str, str]]:
    """All errors of a spec (empty when it can be imported). Reads the catalog, writes nothing."""
    if not isinstance(data, dict):
        return [{"path": "$", "message": "a campus spec is a mapping (YAML or JSON object)"}]
    try:
        errors = schema_errors(data) + value_errors(data)
    except RecursionError:
        return [{"path": "$", "message": "the document nests too deeply or refers to itself"}]
    if errors:
        return errors
    checker = _Checker(data, _Catalog(), replace)
    checker.run()
    return checker.errors


# ---------------------------------------------------------------- counts


def spec_counts(data: dict) -> dict[str, int]:
    """What a (valid) spec holds: entities per kind, and GPUs when the catalog is at hand."""
    racks = [
        rack
        for building in data.get("buildings", [])
        for hall in building.get("halls", [])
        for rack in [
            *(r for row in hall.get("rows", []) for r in row.get("racks", [])),
            *hall.get("racks", []),
        ]
    ]
    gpus_per = dict(NodeModel.objects.values_list("slug", "gpus_per_node"))
    return {
        "buildings": len(data.get("buildings", [])),
        "halls": sum(len(b.get("halls", [])) for b in data.get("buildings", [])),
        "racks": len(racks),
        "nodes": sum(g["count"] for r in racks for g in r.get("nodes", [])),
        "gpus": sum(g["count"] * gpus_per.get(g["model"], 0) for r in racks for g in r.get("nodes", [])),
        "power_devices": len(data.get("power_devices", [])),
        "cooling_plants": len(data.get("cooling_plants", [])),
        "cooling_units": len(data.get("cooling_units", [])),
        "pods": len(data.get("pods", [])),
        "switch_groups": len(data.get("switches", [])),
        "switches": sum(s.get("count", 1) for s in data.get("switches", [])),
        "link_bundles": len(data.get("links", [])),
        "links": sum(k["count"] for k in data.get("links", [])),
    }


# ---------------------------------------------------------------- writing

_CAMPUS_FIELDS = (
    "location",
    "latitude",
    "longitude",
    "grid_capacity_mw",
    "price_usd_per_kwh",
    "design_pue",
    "ambient_temp_c",
    "other_it_fraction",
    "description",
)


def _given(item: dict, fields: Iterable[str]) -> dict[str, Any]:
    """The optional fields the spec sets; the model defaults fill the rest."""
    return {f: item[f] for f in fields if f in item}


def _bulk(model, objs: list, progress: Progress | None, stage: str) -> list:
    """Insert model instances in batches; their primary keys are set from the insert's RETURNING."""
    created = model.objects.bulk_create(objs, batch_size=BATCH_SIZE)
    if progress:
        progress(stage, len(created))
    return created


def _insert_rows(
    model, rows: list[dict[str, Any]], progress: Progress | None, stage: str, return_ids: bool = False
) -> list[int]:
    """Insert rows (dicts of column attnames, the same keys in every row) of the big tables: racks,
    nodes, rack feeds, links. Returns the new ids when ``return_ids``, in row order.

    On PostgreSQL this is one COPY per table, several times faster than a multi-row INSERT through the
    ORM for tens of thousands of rows; ids, when needed, are drawn from the table's sequence first (one
    query). Columns left out take the model field's default, as the ORM would.
    """
    connection = connections[router.db_for_write(model)]
    if connection.vendor != "postgresql":
        created = _bulk(model, [model(**row) for row in rows], progress, stage)
        return [obj.pk for obj in created] if return_ids else []
    ids: list[int] = []
    if return_ids and rows:
        table = model._meta.db_table
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT nextval(pg_get_serial_sequence(%s, %s)) FROM generate_series(1, %s)",
                [table, model._meta.pk.column, len(rows)],
            )
            ids = [row[0] for row in cursor.fetchall()]
        rows = [{model._meta.pk.attname: pk, **row} for pk, row in zip(ids, rows, strict=True)]
    now = timezone.now()
    fields = [f for f in model._meta.concrete_fields if not f.primary_key or ids]
    given = set().union(*(row.keys() for row in rows[:1])) if rows else set()
    constant: dict[str, Any] = {}
    for f in fields:
        if f.attname in given:
            continue
        if getattr(f, "auto_now", False) or getattr(f, "auto_now_add", False):
            constant[f.attname] = now
        else:
            constant[f.attname] = f.get_db_prep_save(f.get_default(), connection)
    columns = [f.attname for f in fields]
    sql = "COPY {} ({}) FROM STDIN".format(
        connection.ops.quote_name(model._meta.db_table),
        ", ".join(connection.ops.quote_name(c) for c in columns),
    )
    with connection.cursor() as cursor, cursor.cursor.copy(sql) as copy:
        for row in rows:
            copy.write_row([row[c] if c in row else constant[c] for c in columns])
    if progress:
        progress(stage, len(rows))
    return ids


# Children before parents, so every delete leaves no dangling reference inside the inventory.
_CLEAR_ORDER = (
    Link,
    Switch,
    PowerFeed,
    Node,
    Rack,
    CoolingUnit,
    CoolingPlant,
    Pod,
    PowerDevice,
    Row,
    DataHall,
    Building,
    UtilityFeed,
)


def _referenced_only_by_inventory() -> bool:
    """True when nothing outside the inventory tables points at them (other apps refer to the campus
    only), so the contents can be deleted table by table in SQL."""
    inventory = set(_CLEAR_ORDER)
    for model in _CLEAR_ORDER:
        for rel in model._meta.related_objects:
            if rel.related_model not in inventory and rel.on_delete is not models.DO_NOTHING:
                return False
    return True


def _clear_campus(campus: Campus) -> None:
    """Delete a campus's contents, keeping the campus row (and its id) for the new contents.

    Like the import, this is one bulk event: one DELETE per table and no per-row history. Should another
    model ever point at inventory rows, the ORM's cascading delete is used instead.
    """
    bulk = _referenced_only_by_inventory()
    for model in _CLEAR_ORDER:
        if model is Node:
            qs = Node.objects.filter(rack__campus=campus)
        elif model in (Row, DataHall):
            qs = model.objects.filter(
                **{"hall__building__campus" if model is Row else "building__campus": campus}
            )
        else:
            qs = model.objects.filter(campus=campus)
        if bulk:
            qs._raw_delete(qs.db)
        else:
            qs.delete()


def import_campus(data: dict, progress: Progress | None = None, replace: bool = False) -> Campus:
    """Validate ``data`` (a parsed spec) and write it as a new campus; returns the campus.

    Raises ``SpecError`` listing every error, with nothing written. With ``replace`` an existing
    campus of the same name keeps its id and has its contents replaced.
    """
    errors = validate_spec(data, replace=replace)
    if errors:
        raise SpecError(errors)
    if progress:
        progress("validated", 1)
    catalog = _Catalog()
    with transaction.atomic():
        return _write(data, catalog, progress, replace)


def _write(data: dict, catalog: _Catalog, progress: Progress | None, replace: bool) -> Campus:
    spec_campus = data["campus"]
    fields = {f: spec_campus[f] for f in _CAMPUS_FIELDS if f in spec_campus}
    campus = Campus.objects.select_for_update().filter(name=spec_campus["name"]).first() if replace else None
    if campus is not None:
        _clear_campus(campus)
        for field in _CAMPUS_FIELDS:
            model_field = Campus._meta.get_field(field)
            default = model_field.get_default() if model_field.has_default() else None
            if default is None and not model_field.null:
                default = ""
            setattr(campus, field, fields.get(field, default))
        campus.full_clean(validate_unique=False)
        campus.save()
        if progress:
            progress("cleared", 1)
    else:
        campus = Campus.objects.create(name=spec_campus["name"], **fields)
    cid = campus.pk

    feeds = _bulk(
        UtilityFeed,
        [
            UtilityFeed(
                campus_id=cid, name=f["name"], **_given(f, ("utility", "capacity_mw", "voltage_kv", "status"))
            )
            for f in data.get("utility_feeds", [])
        ],
        progress,
        "utility_feeds",
    )
    feed_id = {f.name: f.pk for f in feeds}

    # Sites: buildings, halls, rows.
    building_specs = data.get("buildings", [])
    buildings = []
    for b in building_specs:
        extra = _given(b, ("x_m", "y_m", "width_m", "length_m", "design_it_mw", "status"))
        halls = b.get("halls", [])
        # A building without a size encloses its halls (the model default of 100 m may be too small).
        for size, axis in (("width_m", "x_m"), ("length_m", "y_m")):
            if size not in extra and halls:
                extra[size] = max(100.0, max(h.get(axis, 0) + h[size] for h in halls))
        buildings.append(Building(campus_id=cid, name=b["name"], **extra))
    buildings = _bulk(Building, buildings, progress, "buildings")
    building_id = {b.name: b.pk for b in buildings}

    halls = [
        DataHall(
            building_id=building_id[b["name"]],
            name=h["name"],
            width_m=h["width_m"],
            length_m=h["length_m"],
            **_given(h, ("x_m", "y_m", "design_it_mw")),
        )
        for b in building_specs
        for h in b.get("halls", [])
    ]
    halls = _bulk(DataHall, halls, progress, "halls")
    hall_keys = [(b["name"], h["name"]) for b in building_specs for h in b.get("halls", [])]
    hall_id = {key: h.pk for key, h in zip(hall_keys, halls, strict=True)}

    rows = []
    row_keys = []
    for b in building_specs:
        for h in b.get("halls", []):
            hid = hall_id[(b["name"], h["name"])]
            for r in h.get("rows", []):
                rows.append(Row(hall_id=hid, name=r["name"], **_given(r, ("x_m", "y_m"))))
                row_keys.append((b["name"], h["name"], r["name"]))
    rows = _bulk(Row, rows, progress, "rows")
    row_id = {key: r.pk for key, r in zip(row_keys, rows, strict=True)}

    def place(item: dict) -> dict[str, int | None]:
        b = item.get("building")
        out: dict[str, int | None] = {}
        if "building" in item:
            out["building_id"] = building_id[b]
        if "hall" in item:
            out["hall_id"] = hall_id[(b, item["hall"])]
        return out

    # Pods and the power chain.
    pods = _bulk(
        Pod,
        [
            Pod(
                campus_id=cid,
                name=p["name"],
                building_id=building_id.get(p.get("building")),
                switch_model_id=catalog.switch_models.get(p.get("switch_model")),
                **_given(p, ("fabric", "topology", "oversubscription", "priority")),
            )
            for p in data.get("pods", [])
        ],
        progress,
        "pods",
    )
    pod_id = {p.name: p.pk for p in pods}

    devices = _bulk(
        PowerDevice,
        [
            PowerDevice(
                campus_id=cid,
                name=d["name"],
                kind=d["kind"],
                rated_kw=d["rated_kw"],
                utility_feed_id=feed_id.get(d.get("utility_feed")),
                **place(d),
                **_given(
                    d,
                    ("efficiency", "max_utilization", "battery_minutes", "start_delay_s", "ramp_s", "status"),
                ),
            )
            for d in data.get("power_devices", [])
        ],
        progress,
        "power_devices",
    )
    device_id = {d.name: d.pk for d in devices}
    device_feeds = [
        PowerFeed(
            campus_id=cid,
            upstream_id=device_id[f["from"]],
            downstream_device_id=device_id[f["to"]],
            side=f.get("side", FeedSide.N),
            rating_kw=f["rating_kw"],
        )
        for f in data.get("power_feeds", [])
        if "to" in f
    ]
    _bulk(PowerFeed, device_feeds, progress, "power_feeds")

    # Cooling.
    plants = _bulk(
        CoolingPlant,
        [
            CoolingPlant(
                campus_id=cid,
                name=p["name"],
                kind=p["kind"],
                capacity_kw=p["capacity_kw"],
                power_device_id=device_id.get(p.get("power_device")),
                **place(p),
                **_given(p, ("cop", "restart_minutes", "status")),
            )
            for p in data.get("cooling_plants", [])
        ],
        progress,
        "cooling_plants",
    )
    plant_id = {p.name: p.pk for p in plants}
    units = []
    for u in data.get("cooling_units", []):
        where = place(u)
        where.pop("building_id", None)  # a unit is placed by its hall
        units.append(
            CoolingUnit(
                campus_id=cid,
                name=u["name"],
                kind=u["kind"],
                capacity_kw=u["capacity_kw"],
                plant_id=plant_id.get(u.get("plant")),
                power_device_id=device_id.get(u.get("power_device")),
                **where,
                **_given(u, ("supply_temp_c", "return_temp_c", "flow_lpm", "group", "x_m", "y_m", "status")),
            )
        )
    units = _bulk(CoolingUnit, units, progress, "cooling_units")
    unit_id = {u.name: u.pk for u in units}

    # Racks, their feeds and nodes.
    rack_rows: list[dict[str, Any]] = []
    rack_specs: list[dict] = []
    rack_defaults = {
        f: Rack._meta.get_field(f).get_default()
        for f in ("width_m", "depth_m", "rack_units", "cooling_type", "extra_it_kw", "status")
    }
    for b in building_specs:
        for h in b.get("halls", []):
            hid = hall_id[(b["name"], h["name"])]
            placed = [
                (row_id[(b["name"], h["name"], r["name"])], k)
                for r in h.get("rows", [])
                for k in r.get("racks", [])
            ]
            placed += [(None, k) for k in h.get("racks", [])]
            for rid, k in placed:
                rack_specs.append(k)
                rack_rows.append(
                    {
                        "campus_id": cid,
                        "hall_id": hid,
                        "row_id": rid,
                        "name": k["name"],
                        "x_m": k["x_m"],
                        "y_m": k["y_m"],
                        "design_kw": k["design_kw"],
                        "cooling_unit_id": unit_id.get(k.get("cooling_unit")),
                        "pod_id": pod_id.get(k.get("pod")),
                        **{f: k.get(f, default) for f, default in rack_defaults.items()},
                    }
                )
    rack_ids = _insert_rows(Rack, rack_rows, progress, "racks", return_ids=True)
    rack_id = {k["name"]: pk for k, pk in zip(rack_specs, rack_ids, strict=True)}

    # Leaf tables: rows as plain dicts (every row of a table has the same keys), no model instances.
    rack_feeds: list[dict[str, Any]] = []
    nodes: list[dict[str, Any]] = []
    for spec, rack_pk in zip(rack_specs, rack_ids, strict=True):
        for side in ("a", "b"):
            if side_device := spec.get(f"feed_{side}"):
                rating = spec.get(f"feed_{side}_rating_kw", spec.get("feed_rating_kw", spec["design_kw"]))
                rack_feeds.append(
                    {
                        "campus_id": cid,
                        "upstream_id": device_id[side_device],
                        "downstream_device_id": None,
                        "rack_id": rack_pk,
                        "side": side.upper(),
                        "rating_kw": rating,
                    }
                )
        groups = spec.get("nodes", [])
        # Zero-padded to the rack's node count so names sort in creation order.
        width = max(2, len(str(sum(g["count"] for g in groups))))
        index = 0
        for g in groups:
            model_pk, _ = catalog.node_models[g["model"]]
            status = g.get("status", NodeStatus.ACTIVE.value)
            for _ in range(int(g["count"])):  # JSON Schema lets 4.0 pass as an integer
                index += 1
                nodes.append(
                    {
                        "rack_id": rack_pk,
                        "node_model_id": model_pk,
                        "name": f"{spec['name']}-n{index:0{width}d}",
                        "status": status,
                    }
                )
    for f in data.get("power_feeds", []):
        if "rack" in f:
            rack_feeds.append(
                {
                    "campus_id": cid,
                    "upstream_id": device_id[f["from"]],
                    "downstream_device_id": None,
                    "rack_id": rack_id[f["rack"]],
                    "side": f.get("side", FeedSide.N.value),
                    "rating_kw": f["rating_kw"],
                }
            )
    _insert_rows(PowerFeed, rack_feeds, progress, "rack_feeds")
    _insert_rows(Node, nodes, progress, "nodes")

    # Network.
    switches = _bulk(
        Switch,
        [
            Switch(
                campus_id=cid,
                name=s["name"],
                tier=s["tier"],
                model_id=catalog.switch_models[s["model"]],
                pod_id=pod_id.get(s.get("pod")),
                hall_id=hall_id[(s["building"], s["hall"])] if "hall" in s else None,
                rack_id=rack_id.get(s.get("rack")),
                **_given(s, ("network", "count")),
            )
            for s in data.get("switches", [])
        ],
        progress,
        "switches",
    )
    switch_id = {s.name: s.pk for s in switches}
    default_speed = Link._meta.get_field("speed_gbps").default
    _insert_rows(
        Link,
        [
            {
                "campus_id": cid,
                "pod_id": pod_id.get(k.get("pod")),
                "network": k.get("network", Network.BACKEND.value),
                "a_rack_id": rack_id.get(k.get("a_rack")),
                "a_switch_id": switch_id.get(k.get("a_switch")),
                "b_switch_id": switch_id[k["b_switch"]],
                "medium_id": catalog.media[k["medium"]][0],
                "count": int(k["count"]),
                "length_m": k["length_m"],
                "speed_gbps": k.get("speed_gbps", default_speed),
            }
            for k in data.get("links", [])
        ],
        progress,
        "links",
    )
    return campus
