"""The model's figure for each measured series (docs/live.md, "Measured against modelled"): one figure for a
series the model gives at design conditions, a figure per 5-minute bucket where the model is evaluated at the
measured conditions (a device's input at its measured output, a plant's power at its measured heat load and
the measured outdoor temperature, the outdoor temperature of the campus's weather year at that hour, read in
the year's local standard time).

Pure: the snapshot, its healthy roll-up and the measured buckets in, figures out.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime

import numpy as np

from campus.analysis.cooling import cooling_balance
from campus.analysis.facility import campus_facility_year, campus_pue
from campus.analysis.facility.year import plant_power_kw
from campus.analysis.measurements import Bucket, modelled_kw
from campus.analysis.power import PowerRollup
from campus.analysis.snapshot import CampusSnapshot, CoolingPlantSnap
from campus.analysis.weather import hour_of_year, weather_of

Series = Mapping[tuple[str, str, str], Mapping[datetime, Bucket]]  # (kind, name, metric) -> buckets
Figure = float | dict[datetime, float]


def wet_bulb_estimate_c(snap: CampusSnapshot, dry_bulb_c: np.ndarray, times: list[datetime]) -> np.ndarray:
    """A wet bulb for a measured dry bulb: the measured dry bulb less the weather year's wet-bulb depression
    at that hour (an estimate: the outdoor humidity is not measured)."""
    w = weather_of(snap)
    hours = np.array([hour_of_year(t, w.utc_offset_h) for t in times], dtype=int)
    depression = w.dry_bulb_c[hours] - w.wet_bulb_c[hours]
    return np.asarray(dry_bulb_c, dtype=float) - np.maximum(depression, 0.0)


@dataclass(frozen=True)
class PlantConditions:
    """A plant's measured buckets with heat load and outdoor temperature, and its water temperatures."""

    plant: CoolingPlantSnap
    times: list[datetime]
    heat_kw: np.ndarray
    dry_bulb_c: np.ndarray
    wet_bulb_c: np.ndarray
    supply_c: float
    return_c: float

    def power_kw(self, cop: float | None = None) -> np.ndarray:
        """The plant's modelled power in these buckets; at ``cop``: its kind's equations at that rated COP
        (any fitted coefficients set aside)."""
        p = (
            self.plant
            if cop is None
            else replace(self.plant, cop=cop, fixed_kw=None, eir_ref=None, eir_per_k=None)
        )
        return plant_power_kw(p, self.heat_kw, self.supply_c, self.return_c, self.dry_bulb_c, self.wet_bulb_c)


def plant_conditions(snap: CampusSnapshot, series: Series) -> dict[int, PlantConditions]:
    """Plants whose heat load is measured, in the buckets where the campus's outdoor temperature is too."""
    outdoor = series.get(("campus", snap.name, "dry_bulb_c"), {})
    if not outdoor:
        return {}
    temps = {p.id: (p.supply_c, p.return_c) for p in campus_facility_year(snap).plants}
    out = {}
    for p in snap.cooling_plants:
        heat = series.get((p.kind, p.name, "heat_kw"), {})
        times = sorted(t for t in heat if t in outdoor)
        if not times or p.id not in temps:
            continue
        db = np.array([outdoor[t].mean for t in times])
        out[p.id] = PlantConditions(
            p,
            times,
            np.array([heat[t].mean for t in times]),
            db,
            np.minimum(wet_bulb_estimate_c(snap, db, times), db),
            *temps[p.id],
        )
    return out


def downstream_output_kw(
    snap: CampusSnapshot, roll: PowerRollup, rack_kw: Mapping[int, float], series: Series
) -> dict[int, dict[datetime, float]]:
    """A device's output read from what it feeds, per bucket: the sum of its children's measured power (racks'
    power, devices' input), where every child is fed by this device alone and is measured, and the children
    make up the device's whole modelled output (within 0.5 %: no cooling or other load on it that is not
    measured). Buckets where every child has a figure."""
    racks = {r.id: r for r in snap.racks}
    devices = {d.id: d for d in snap.power_devices}

    def child(f) -> tuple[tuple[str, str, str], float, tuple[str, int]] | None:
        """(its measured series, its modelled load, its key) of what a feed supplies."""
        if f.rack_id is not None and f.rack_id in racks:
            r = racks[f.rack_id]
            return ("rack", r.name, "power_kw"), rack_kw.get(r.id, 0.0), ("rack", r.id)
        if f.downstream_device_id is not None and f.downstream_device_id in devices:
            d = devices[f.downstream_device_id]
            return (d.kind, d.name, "power_kw"), roll.device_load_kw.get(d.id, 0.0), ("device", d.id)
        return None

    feeds = [(f.upstream_id, child(f)) for f in snap.power_feeds]
    fed_by: dict[tuple[str, int], int] = {}
    for _, c in feeds:
        if c is not None:
            fed_by[c[2]] = fed_by.get(c[2], 0) + 1
    kids: dict[int, list] = {}
    for upstream, c in feeds:
        kids.setdefault(upstream, []).append(c if c is not None and fed_by[c[2]] == 1 else None)
    out = {}
    for did, cs in kids.items():
        modelled = roll.device_output_kw.get(did, 0.0)
        if None in cs or modelled <= 0 or abs(sum(c[1] for c in cs) - modelled) > 0.005 * modelled:
            continue
        measured = [series.get(c[0]) for c in cs]
        if all(measured):
            times = set.intersection(*(set(b) for b in measured))
            out[did] = {t: sum(b[t].mean for b in measured) for t in sorted(times)}
    return out


def device_outputs_kw(
    snap: CampusSnapshot, roll: PowerRollup, rack_kw: Mapping[int, float], series: Series
) -> dict[int, tuple[str, dict[datetime, float]]]:
    """Each device's measured output per bucket and where it comes from: ``"meter"`` (its own
    ``power_out_kw``) or ``"downstream"`` (``downstream_output_kw``)."""
    out = {
        did: ("downstream", b) for did, b in downstream_output_kw(snap, roll, rack_kw, series).items() if b
    }
    for d in snap.power_devices:
        own = series.get((d.kind, d.name, "power_out_kw"))
        if own:
            out[d.id] = ("meter", {t: b.mean for t, b in own.items()})
    return out


def modelled_figures(snap: CampusSnapshot, roll: PowerRollup, rack_kw: Mapping[int, float], series: Series):
    """(kind, id, metric) -> the model's figure: one number, or one per bucket (``measurements.compare``)."""
    out: dict[tuple[str, int, str], Figure] = {
        (kind, oid, "power_kw"): kw
        for (kind, oid), kw in modelled_kw(snap, rack_kw, roll.device_load_kw, roll.total_input_kw).items()
    }
    for d in snap.power_devices:
        out[(d.kind, d.id, "power_out_kw")] = roll.device_output_kw.get(d.id, 0.0)
        # with its own output meter, the roll-up's rule (input = output / efficiency) bucket by bucket; an
        # output read from what the device feeds stays calibration's (its deviation would mix the device's
        # meter with its children's)
        metered = series.get((d.kind, d.name, "power_out_kw"))
        if metered and d.efficiency > 0:
            out[(d.kind, d.id, "power_kw")] = {t: b.mean / d.efficiency for t, b in metered.items()}
    balance = cooling_balance(snap, rack_load_kw=rack_kw)
    units = {u.id: u for u in snap.cooling_units}
    for ul in balance.units:
        u = units[ul.id]
        out[(u.kind, u.id, "heat_kw")] = ul.heat_kw
        out[(u.kind, u.id, "supply_temp_c")] = u.supply_temp_c
        out[(u.kind, u.id, "return_temp_c")] = u.return_temp_c
        out[(u.kind, u.id, "flow_lpm")] = u.flow_lpm if u.flow_lpm > 0 else ul.flow_needed_lpm
    year = campus_facility_year(snap)
    for py in year.plants:
        out[(py.kind, py.id, "heat_kw")] = py.heat_kw
        out[(py.kind, py.id, "supply_temp_c")] = py.supply_c
        out[(py.kind, py.id, "return_temp_c")] = py.return_c
        out[(py.kind, py.id, "power_kw")] = float(py.power_kw.max()) if py.power_kw.size else 0.0
    for pid, c in plant_conditions(snap, series).items():
        out[(c.plant.kind, pid, "power_kw")] = dict(zip(c.times, c.power_kw().tolist(), strict=True))
    out[("campus", snap.id, "pue")] = campus_pue(snap).peak_pue
    outdoor = series.get(("campus", snap.name, "dry_bulb_c"), {})
    w = weather_of(snap)
    out[("campus", snap.id, "dry_bulb_c")] = {
        t: float(w.dry_bulb_c[hour_of_year(t, w.utc_offset_h)]) for t in outdoor
    }
    return out
