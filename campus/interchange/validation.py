"""Pure validation of a campus spec: plain dicts in, the full list of ``{"path", "message"}`` errors out.

Nothing here touches the database. The catalog arrives as a ``CatalogIndex`` of slugs and whether a
campus name is taken as a callable, both supplied by the caller (``campus.interchange.importer`` reads
them through the ORM). Validation happens in two passes. The JSON Schema pass checks shape, types and
ranges and reports every violation with its path. Only a spec of the right shape reaches the second
pass, which checks names, references, catalog slugs, geometry, link reach and the power graph — again
reporting every error.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import date
from typing import Any

import fastjsonschema
from jsonschema import Draft7Validator

from campus.interchange.rules import (
    EPS,
    GRID_CAPACITY_FIELD,
    GRID_CAPACITY_MESSAGE,
    RACK_DEPTH_M,
    RACK_UNITS,
    RACK_WIDTH_M,
    UTILITY_CAPACITY_FIELD,
    UTILITY_CAPACITY_MESSAGE,
    Footprint,
    cycle_text,
    generation_problems,
    hall_outside_building,
    outside_hall,
    over_design_message,
    over_units_message,
    overlapping_racks,
    partial_domain_day,
    peak_in_service,
    phase_problem,
    plant_fit_problem,
    power_cycles,
    unit_in_other_hall,
    unit_position_problems,
    whole_rack_nodes,
)
from campus.interchange.schema import CAMPUS_SPEC_SCHEMA

# The service dates every spec object may carry (models.InventoryModel).
PHASE_FIELDS = ("in_service_date", "retire_date")

# The spec's single-feed side (``FeedSide.N``), spelled out so this module needs no ORM import.

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


def _day(text: str | None) -> date | None:
    """A service date of the spec (a malformed one is reported by ``_check_dates``; read as none here)."""
    try:
        return date.fromisoformat(text) if text else None
    except ValueError:
        return None


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
        elif path == f"campus.{GRID_CAPACITY_FIELD}" and error.validator == "exclusiveMinimum":
            # the message of every write path (the API's, the admin's)
            add(path, GRID_CAPACITY_MESSAGE)
        elif (
            error.validator == "exclusiveMinimum"
            and path.startswith("utility_feeds[")
            and path.endswith(f".{UTILITY_CAPACITY_FIELD}")
        ):
            add(path, UTILITY_CAPACITY_MESSAGE)
        else:
            add(path or "$", error.message)
    return errors


# ---------------------------------------------------------------- semantic validation


@dataclass(frozen=True)
class CatalogIndex:
    """The catalog as the checks need it: slugs mapped to (id, what matters of the entry)."""

    node_models: dict[str, tuple[int, int]] = field(default_factory=dict)  # slug -> (id, gpus per node)
    switch_models: dict[str, int] = field(default_factory=dict)  # slug -> id
    media: dict[str, tuple[int, float]] = field(default_factory=dict)  # slug -> (id, max reach m)
    # slug -> (rack units, W of one server at full TDP); a model left out is not sized
    node_sizes: dict[str, tuple[int, float]] = field(default_factory=dict)


class SpecChecker:
    """The second validation pass. Builds the name indexes the writer then uses."""

    def __init__(self, data: dict, catalog: CatalogIndex, campus_exists: Callable[[str], bool]) -> None:
        self.data = data
        self.catalog = catalog
        self.campus_exists = campus_exists
        self.errors: list[dict[str, str]] = []
        self.utility_feeds: dict[str, str] = {}
        self.buildings: dict[str, str] = {}
        self.halls: dict[tuple[str, str], str] = {}
        self.unit_places: dict[str, dict] = {}  # cooling unit name -> its entry (building, hall)
        self.racks: dict[str, str] = {}  # name -> path
        self.devices: dict[str, str] = {}
        self.plants: dict[str, str] = {}
        self.storage: dict[str, str] = {}
        self.units: dict[str, str] = {}
        self.pods: dict[str, str] = {}
        self.switches: dict[str, str] = {}

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
        if self.campus_exists(campus["name"]):
            self.error(
                "campus.name", f'a campus named "{campus["name"]}" already exists (import with replace)'
            )

        # First collect every name, so references may point forward in the document.
        for i, feed in enumerate(data.get("utility_feeds", [])):
            self._unique(self.utility_feeds, feed["name"], f"utility_feeds[{i}].name", "utility feed")
        for i, dev in enumerate(data.get("power_devices", [])):
            self._unique(self.devices, dev["name"], f"power_devices[{i}].name", "power device")
        for i, store in enumerate(data.get("energy_storage", [])):
            self._unique(self.storage, store["name"], f"energy_storage[{i}].name", "energy storage")
        storage_systems: dict[str, str] = {}
        for i, system in enumerate(data.get("storage_systems", [])):
            self._unique(storage_systems, system["name"], f"storage_systems[{i}].name", "storage system")
        for i, plant in enumerate(data.get("cooling_plants", [])):
            self._unique(self.plants, plant["name"], f"cooling_plants[{i}].name", "cooling plant")
        for i, unit in enumerate(data.get("cooling_units", [])):
            self._unique(self.units, unit["name"], f"cooling_units[{i}].name", "cooling unit")
            self.unit_places.setdefault(unit["name"], unit)
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

        self._check_dates()
        self._check_buildings()
        self._check_power()
        self._check_cooling()
        self._check_network()

    def _check_dates(self) -> None:
        """Every service date is a real day, and an object retires after it enters service."""
        stack: list[tuple[Any, str]] = [(self.data, "")]
        while stack:
            value, path = stack.pop()
            if isinstance(value, list):
                stack.extend((v, f"{path}[{i}]") for i, v in enumerate(value))
                continue
            if not isinstance(value, dict):
                continue
            days = {}
            for name in PHASE_FIELDS:
                if name in value:
                    try:
                        days[name] = date.fromisoformat(value[name])
                    except ValueError:
                        self.error(_join(path, name), f'"{value[name]}" is not a date (YYYY-MM-DD)')
            if len(days) == 2 and (message := phase_problem(days["in_service_date"], days["retire_date"])):
                self.error(_join(path, "retire_date"), message[0].lower() + message[1:].rstrip("."))
            stack.extend((v, _join(path, str(k))) for k, v in value.items() if isinstance(v, dict | list))

    # -- sites and racks

    def _check_buildings(self) -> None:
        for bi, building in enumerate(self.data.get("buildings", [])):
            bpath = f"buildings[{bi}]"
            for hi, hall in enumerate(building.get("halls", [])):
                hpath = f"{bpath}.halls[{hi}]"
                # A building without a size bounds nothing on that axis.
                for name, message in hall_outside_building(
                    hall.get("x_m", 0) if "width_m" in building else 0,
                    hall.get("y_m", 0) if "length_m" in building else 0,
                    hall["width_m"],
                    hall["length_m"],
                    building.get("width_m", math.inf),
                    building.get("length_m", math.inf),
                ):
                    self.error(f"{hpath}.{name}", message)
                where = (building["name"], hall["name"])
                places = [
                    self._check_rack(rack, hall, f"{hpath}.rows[{ri}].racks[{ki}]", where)
                    for ri, row in enumerate(hall.get("rows", []))
                    for ki, rack in enumerate(row.get("racks", []))
                ]
                places += [
                    self._check_rack(rack, hall, f"{hpath}.racks[{ki}]", where)
                    for ki, rack in enumerate(hall.get("racks", []))
                ]
                for first, second in overlapping_racks(places):
                    self.error(f"{second.key}.x_m", f"the rack overlaps the rack at {first.key} on the floor")

    def _check_rack(
        self, rack: dict, hall: dict, path: str, where: tuple[str, str] | None = None
    ) -> Footprint:
        place = Footprint(
            path,
            rack["x_m"],
            rack["y_m"],
            rack.get("width_m", RACK_WIDTH_M),
            rack.get("depth_m", RACK_DEPTH_M),
        )
        for axis, message in outside_hall(place, hall["width_m"], hall["length_m"]):
            self.error(f"{path}.{axis}", f'rack "{rack["name"]}" {message}')
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
        self._ref(self.units, rack.get("cooling_unit"), f"{path}.cooling_unit", "cooling unit")
        unit = self.unit_places.get(rack.get("cooling_unit"))
        if unit is not None and where is not None:
            unit_hall = (
                (unit["building"], unit["hall"]) if unit.get("building") and unit.get("hall") else None
            )
            if message := unit_in_other_hall(where, unit_hall, " ".join(unit_hall or ())):
                self.error(f"{path}.cooling_unit", f'rack "{rack["name"]}": {message}')
        self._ref(self.pods, rack.get("pod"), f"{path}.pod", "pod")
        by_model: dict[str, list[tuple]] = {}
        units: list[tuple] = []
        watts: list[tuple] = []
        for ni, group in enumerate(rack.get("nodes", [])):
            self._ref(self.catalog.node_models, group["model"], f"{path}.nodes[{ni}].model", "node model")
            phases = (_day(group.get("in_service_date")), _day(group.get("retire_date")))
            count = int(group["count"])
            by_model.setdefault(group["model"], []).append((*phases, count))
            if group["model"] in self.catalog.node_sizes:
                size_u, server_w = self.catalog.node_sizes[group["model"]]
                units.append((*phases, count * size_u))
                watts.append((*phases, count * server_w / 1000.0))
        for slug, groups in by_model.items():
            whole = whole_rack_nodes(slug, self.catalog.node_models.get(slug, (0, 0))[1])
            message = whole and partial_domain_day(rack["name"], slug, groups, whole)
            if message:
                self.error(f"{path}.nodes", message)
        used, day = peak_in_service(units)
        if message := over_units_message(rack["name"], rack.get("rack_units", RACK_UNITS), used, day):
            self.error(f"{path}.rack_units" if "rack_units" in rack else f"{path}.nodes", message)
        server_kw, day = peak_in_service(watts)
        if server_kw > 0 and (
            message := over_design_message(
                rack["name"], rack["design_kw"], server_kw + rack.get("extra_it_kw", 0.0), day
            )
        ):
            self.error(f"{path}.design_kw", message)
        return place

    def _hall_size(self, building: str | None, hall: str | None):
        """(width, length) of a hall named in the spec, (None, None) for no hall, False for one not found."""
        if hall is None:
            return (None, None)
        for b in self.data.get("buildings", []):
            if b["name"] == building:
                for h in b.get("halls", []):
                    if h["name"] == hall:
                        return (h["width_m"], h["length_m"])
        return False

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
            for name, message in generation_problems(dev["kind"], dev["rated_kw"], dev):
                self.error(f"{path}.{name}", message)
        kinds = {dev["name"]: dev for dev in self.data.get("power_devices", [])}
        for i, store in enumerate(self.data.get("energy_storage", [])):
            path = f"energy_storage[{i}]"
            self._ref(self.buildings, store.get("building"), f"{path}.building", "building")
            device = store.get("power_device")
            self._ref(self.devices, device, f"{path}.power_device", "power device")
            where = kinds.get(device, {}).get("building")
            if where is not None and store.get("building") is not None and where != store["building"]:
                self.error(f"{path}.power_device", f'power device "{device}" is in building "{where}"')

        for i, system in enumerate(self.data.get("storage_systems", [])):
            self._ref(self.buildings, system.get("building"), f"storage_systems[{i}].building", "building")

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
                # several feeds of one side share its load, their ratings adding up (the whips of a
                # 2(N+1) design: two per side)
                self._ref(self.racks, rack, f"{path}.rack", "rack")
        self._check_cycles(children)

    def _check_cycles(self, children: dict[str, list[tuple[str, int]]]) -> None:
        """Report each cycle of device → device feeds once, naming its devices, at the cycle's feed that
        comes last in the document (usually the one that closed it)."""
        for cycle, feeds in power_cycles(children):
            self.error(f"power_feeds[{max(feeds)}].to", f"power chain has a cycle: {cycle_text(cycle)}")

    # -- cooling

    def _check_cooling(self) -> None:
        for i, plant in enumerate(self.data.get("cooling_plants", [])):
            path = f"cooling_plants[{i}]"
            self._check_place(plant, path)
            self._ref(self.devices, plant.get("power_device"), f"{path}.power_device", "power device")
            self._ref(self.devices, plant.get("power_device_b"), f"{path}.power_device_b", "power device")
            if problem := plant_fit_problem(plant):
                self.error(f"{path}.{problem[0]}", f'cooling plant "{plant["name"]}": {problem[1]}')
        for i, unit in enumerate(self.data.get("cooling_units", [])):
            path = f"cooling_units[{i}]"
            self._check_place(unit, path)
            self._ref(self.plants, unit.get("plant"), f"{path}.plant", "cooling plant")
            self._ref(self.devices, unit.get("power_device"), f"{path}.power_device", "power device")
            self._ref(self.devices, unit.get("power_device_b"), f"{path}.power_device_b", "power device")
            size = self._hall_size(unit.get("building"), unit.get("hall"))
            if size is not False:
                for axis, message in unit_position_problems(unit.get("x_m"), unit.get("y_m"), *size):
                    self.error(f"{path}.{axis}", f'cooling unit "{unit["name"]}": {message}')
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
            elif link["length_m"] > medium[1] + EPS:
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


def check_spec(
    data: Any,
    catalog: Callable[[], CatalogIndex],
    campus_exists: Callable[[str], bool] = lambda name: False,
) -> list[dict[str, str]]:
    """All errors of a spec (empty when it can be imported). ``catalog`` is called only for a spec of
    the right shape; ``campus_exists(name)`` says whether the campus name is already taken."""
    if not isinstance(data, dict):
        return [{"path": "$", "message": "a campus spec is a mapping (YAML or JSON object)"}]
    try:
        errors = schema_errors(data) + value_errors(data)
    except RecursionError:
        return [{"path": "$", "message": "the document nests too deeply or refers to itself"}]
    if errors:
        return errors
    checker = SpecChecker(data, catalog(), campus_exists)
    checker.run()
    return checker.errors
