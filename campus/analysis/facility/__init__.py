"""Facility physics: conversion losses, the cooling plant and the weather, hour by hour (docs/model.md).

``campus_facility_year`` is the year of a campus in its own weather (``weather.weather_of``), computed once
per snapshot; ``campus_pue`` is the one PUE every consumer reads (summary, energy and cost, building cards,
stranded grid capacity, the scenario engines): a typed ``design_pue`` is an explicit override, otherwise
the plant model's annual energy-weighted PUE.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from campus.analysis.design_weather import DesignConditions, design_conditions_of
from campus.analysis.facility.year import FacilityYear, PlantYear, facility_year
from campus.analysis.power_graph import power_graph
from campus.analysis.snapshot import CampusSnapshot
from campus.analysis.weather import weather_of

PLANT_MODEL = "plant-model"
OVERRIDE = "override"

__all__ = [
    "OVERRIDE",
    "PLANT_MODEL",
    "CampusPue",
    "DesignFacility",
    "FacilityYear",
    "PlantYear",
    "campus_facility_year",
    "campus_pue",
    "design_facility",
    "facility_year",
    "heat_rejection_risks",
    "heat_rejection_shortfalls",
    "plant_weather_margin_kw",
    "with_typed_pue",
]


def campus_facility_year(snap: CampusSnapshot, gpu_power_fraction: float = 1.0) -> FacilityYear:
    """``facility_year`` in the campus's weather, computed once per snapshot and GPU draw (shared: callers
    must not modify it)."""
    memo = power_graph(snap).memo
    key = f"facility_year:{gpu_power_fraction!r}"
    if key not in memo:
        w = weather_of(snap)
        memo[key] = facility_year(snap, w.dry_bulb_c, w.wet_bulb_c, gpu_power_fraction)
    return memo[key]  # type: ignore[return-value]


@dataclass(frozen=True)
class DesignFacility:
    """The campus at its design conditions (``design_weather``): one hour per condition."""

    conditions: DesignConditions
    labels: tuple[str, ...]
    hours: FacilityYear

    @property
    def peak_facility_mw(self) -> float:
        return self.hours.peak_facility_mw

    @property
    def hours_short(self) -> int:
        return self.hours.hours_short

    def as_dict(self) -> dict:
        h = self.hours
        return {
            "conditions": self.conditions.as_dict(),
            "peak_facility_mw": self.peak_facility_mw,
            "hours_short": self.hours_short,
            "hours": [
                {
                    "label": label,
                    "dry_bulb_c": float(h.dry_bulb_c[i]),
                    "wet_bulb_c": float(h.wet_bulb_c[i]),
                    "facility_mw": float(h.facility_mw[i]),
                    "pue": float(h.pue[i]) if h.it_mw[i] > 0 else None,
                    "cooling_margin_mw": float(h.cooling_margin_mw[i]),
                }
                for i, label in enumerate(self.labels)
            ],
        }


def design_facility(snap: CampusSnapshot, gpu_power_fraction: float = 1.0) -> DesignFacility:
    """``facility_year`` over the campus's design hours (computed once per snapshot and GPU draw)."""
    memo = power_graph(snap).memo
    key = f"design_facility:{gpu_power_fraction!r}"
    if key not in memo:
        conditions = design_conditions_of(snap)
        db, wb = conditions.arrays()
        labels = tuple(label for label, _, _ in conditions.hours())
        memo[key] = DesignFacility(conditions, labels, facility_year(snap, db, wb, gpu_power_fraction))
    return memo[key]  # type: ignore[return-value]


def plant_weather_margin_kw(snap: CampusSnapshot, gpu_power_fraction: float = 1.0) -> dict[int, float]:
    """Per plant, the heat it could still take in its worst hour of the campus's typical year and design
    hours, kW (< 0: heat it cannot reject then): what a plant's weather leaves of its rating."""
    typical = campus_facility_year(snap, gpu_power_fraction)
    design = design_facility(snap, gpu_power_fraction).hours
    out: dict[int, float] = {}
    for p_year, p_design in zip(typical.plants, design.plants, strict=True):
        worst = min(
            float(p_year.margin_kw.min()) if p_year.margin_kw.size else 0.0,
            float(p_design.margin_kw.min()) if p_design.margin_kw.size else 0.0,
        )
        out[p_year.id] = worst
    return out


def heat_rejection_risks(snap: CampusSnapshot, gpu_power_fraction: float = 1.0) -> list[dict]:
    """The plants that cannot reject their heat in some hours of the typical year or at design conditions,
    as risks: ``{kind, severity, plant, plant_kind, hours_short, design_hours_short, worst_margin_mw,
    message}``, worst first."""
    typical = campus_facility_year(snap, gpu_power_fraction)
    design = design_facility(snap, gpu_power_fraction)
    buildings = {p.id: p.building_id for p in snap.cooling_plants}
    out: list[dict] = []
    for p_year, p_design in zip(typical.plants, design.hours.plants, strict=True):
        short = int((p_year.margin_kw < 0).sum())
        labels = [design.labels[i] for i in np.flatnonzero(p_design.margin_kw < 0)]
        if not short and not labels:
            continue
        worst = min(float(p_year.margin_kw.min()), float(p_design.margin_kw.min()))
        where = []
        if short:
            where.append(f"{short:,} h of the typical year")
        if labels:
            where.append("at design conditions (" + ", ".join(labels) + ")")
        out.append(
            {
                "kind": "heat_rejection_short",
                "severity": "error",
                "plant": p_year.name,
                "plant_id": p_year.id,
                "building_id": buildings.get(p_year.id),
                "plant_kind": p_year.kind,
                "hours_short": short,
                "design_hours_short": len(labels),
                "worst_margin_mw": worst / 1000.0,
                "message": (
                    f'{p_year.kind} "{p_year.name}" cannot reject its heat in '
                    + " and ".join(where)
                    + f"; up to {-worst / 1000.0:,.2f} MW short"
                ),
            }
        )
    return sorted(out, key=lambda r: r["worst_margin_mw"])


def heat_rejection_shortfalls(snap: CampusSnapshot) -> list[dict]:
    """``heat_rejection_risks`` as placement's already-short elements (``placement.cooling_fit.short_at_design``)."""
    names = {b.id: b.name for b in snap.buildings}
    return [
        {
            "constraint": "cooling",
            "level": "cooling plant",
            "element": r["plant"],
            "shortfall_kw": -r["worst_margin_mw"] * 1000.0,
            "detail": r["message"],
            "hall": "",
            "hall_id": None,
            "building": names.get(r["building_id"]),
            "building_id": r["building_id"],
        }
        for r in heat_rejection_risks(snap)
    ]


@dataclass(frozen=True)
class CampusPue:
    pue: float  # annual, energy-weighted
    peak_pue: float  # facility over IT in the hour of peak facility power (the grid connection's ratio)
    source: str  # "plant-model" | "override"


def campus_pue(snap: CampusSnapshot, pue: float | None = None, gpu_power_fraction: float = 1.0) -> CampusPue:
    """The campus's PUE: ``pue`` when given, else the typed ``design_pue`` (both ``"override"``: one figure
    every hour), else the plant model's in the campus's weather (``"plant-model"``)."""
    typed = pue if pue is not None else snap.design_pue
    if typed is not None:
        return CampusPue(float(typed), float(typed), OVERRIDE)
    fy = campus_facility_year(snap, gpu_power_fraction)
    if fy.annual_it_energy_mwh <= 0:
        return CampusPue(1.0, 1.0, PLANT_MODEL)
    peak = fy.peak_hour
    return CampusPue(fy.energy_weighted_pue, float(fy.facility_mw[peak] / fy.it_mw[peak]), PLANT_MODEL)


def with_typed_pue(year: FacilityYear, snap: CampusSnapshot) -> FacilityYear:
    """``year`` as every other consumer reads it (``campus_pue``): with a typed ``design_pue`` the facility
    power is IT × that PUE every hour, so the hourly series adds up to the summary's energy and peak. The
    overhead above IT is split between conversion losses and cooling as the plant model splits it that
    hour (so IT + losses + cooling = facility); water, cooling margin and the plants stay the model's.
    Without a typed PUE, the year itself."""
    if snap.design_pue is None:
        return year
    pue = float(snap.design_pue)
    it = year.it_mw
    overhead = it * (pue - 1.0)
    modelled = year.losses_mw + year.cooling_mw
    share = np.divide(year.losses_mw, modelled, out=np.zeros_like(modelled), where=modelled > 0)
    return replace(
        year,
        facility_mw=it * pue,
        pue=np.where(it > 0, pue, np.nan),
        losses_mw=overhead * share,
        cooling_mw=overhead * (1.0 - share),
    )
