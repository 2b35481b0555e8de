"""A build-out in phases: each phase's GPUs in buildings of their own, in service from the phase's date.

``phases`` is a list of ``{"date": "YYYY-MM-DD", "gpus": n, "gpu_model": slug}`` in ascending date order,
each optionally with its own ``building_max_it_mw`` (the phase's buildings' IT limit).
Each phase is planned like a ``mix`` entry (whole servers; whole NVL72 racks, rounded up); the layout
starts a new building at each phase, so a building, everything in it (halls, rows, racks, servers, its
power chain, plants, cooling units, pods, switches) and the links and feeds between them enter service on
the date of the phase it holds. What serves the whole campus (the utility feeds, the inter-island
super-spine in the first building) enters service with the first phase; a link or feed enters service when
both its ends are. Nothing is in service before the first date (docs/generator.md, "Phases").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any

from campus.interchange.generator.builder import Builder
from campus.interchange.generator.common import GeneratorError
from campus.interchange.generator.plan import PodPlan

PHASE_KEYS = ("date", "gpus", "gpu_model")
OPTIONAL_PHASE_KEYS = ("building_max_it_mw",)  # the phase's own building IT limit, MW
MAX_PHASES = 32


def check_phases(phases: Any, gpu_models: Mapping[str, Any]) -> list[date]:
    """The phases' dates, after checking every entry; a ``GeneratorError`` names ``phases[i].field``."""
    if not isinstance(phases, Sequence) or isinstance(phases, str) or not phases:
        raise GeneratorError("phases", "a non-empty list of {date, gpus, gpu_model}")
    if len(phases) > MAX_PHASES:
        raise GeneratorError("phases", f"at most {MAX_PHASES} phases")
    days: list[date] = []
    for i, phase in enumerate(phases):
        where = f"phases[{i}]"
        if not isinstance(phase, Mapping):
            raise GeneratorError(where, "a phase is an object with date, gpus and gpu_model")
        for key in phase:
            if key not in PHASE_KEYS + OPTIONAL_PHASE_KEYS:
                raise GeneratorError(
                    f"{where}.{key}",
                    "unknown parameter; a phase takes: date, gpus, gpu_model (and building_max_it_mw)",
                )
        if "building_max_it_mw" in phase:
            mw = phase["building_max_it_mw"]
            if isinstance(mw, bool) or not isinstance(mw, (int, float)) or not 0.1 <= mw <= 2000:
                raise GeneratorError(f"{where}.building_max_it_mw", "must be a number between 0.1 and 2000")
        for key in PHASE_KEYS:
            if key not in phase:
                raise GeneratorError(f"{where}.{key}", "this field is required")
        raw = phase["date"]
        try:
            day = raw if isinstance(raw, date) else date.fromisoformat(str(raw))
        except ValueError:
            raise GeneratorError(f"{where}.date", f'"{raw}" is not a date (YYYY-MM-DD)') from None
        if days and day <= days[-1]:
            raise GeneratorError(
                f"{where}.date", f"must be after phases[{i - 1}].date ({days[-1].isoformat()}): dates ascend"
            )
        days.append(day)
        gpus = phase["gpus"]
        if isinstance(gpus, bool) or not isinstance(gpus, int) or gpus <= 0:
            raise GeneratorError(f"{where}.gpus", "must be a whole number above 0")
        if phase["gpu_model"] not in gpu_models:
            raise GeneratorError(
                f"{where}.gpu_model",
                f'unknown GPU model "{phase["gpu_model"]}"; known: {", ".join(sorted(gpu_models))}',
            )
    return days


def stamp_phases(b: Builder, pods: list[PodPlan], days: list[date]) -> None:
    """Give every object of the built spec the in_service_date of the phase it serves (module docstring)."""
    first = days[0].isoformat()
    building_day = {
        b.buildings[bi]["name"]: days[pod.entry].isoformat()
        for pod, spans in zip(pods, b.pod_spans, strict=True)
        for bi in spans
    }
    rack_day: dict[str, str] = {}
    for building in b.buildings:
        day = building_day.get(building["name"], first)
        building["in_service_date"] = day
        for hall in building.get("halls", []):
            hall["in_service_date"] = day
            for row in hall.get("rows", []):
                row["in_service_date"] = day
                for rack in row.get("racks", []):
                    rack["in_service_date"] = day
                    rack_day[rack["name"]] = day
                    for group in rack.get("nodes", []):
                        group["in_service_date"] = day

    def at(row: dict) -> str:
        return building_day.get(row.get("building"), first)

    for feed in b.utility_feeds:
        feed["in_service_date"] = first
    device_day = {}
    for device in b.devices:
        device["in_service_date"] = device_day[device["name"]] = at(device)
    for feed in b.feeds:
        below = device_day[feed["to"]] if "to" in feed else rack_day[feed["rack"]]
        feed["in_service_date"] = max(device_day[feed["from"]], below)
    for row in (*b.storage, *b.plants, *b.units):
        row["in_service_date"] = at(row)
    pod_day = {}
    for pod in b.pods:
        pod["in_service_date"] = pod_day[pod["name"]] = at(pod)
    switch_day = {}
    for switch in b.switches:
        switch["in_service_date"] = switch_day[switch["name"]] = at(switch)
    for link in b.links:
        ends = [switch_day[link["b_switch"]]]
        if "a_rack" in link:
            ends.append(rack_day[link["a_rack"]])
        if "a_switch" in link:
            ends.append(switch_day[link["a_switch"]])
        if "pod" in link:
            ends.append(pod_day[link["pod"]])
        link["in_service_date"] = max(ends)
