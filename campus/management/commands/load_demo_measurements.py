"""A day of emulated measurements for the demo campus, when no Prometheus is configured (docs/live.md)."""

from datetime import UTC, datetime, timedelta

import numpy as np
from django.conf import settings
from django.core.management.base import BaseCommand
from django.utils import timezone

from campus import measured
from campus import state as states
from campus.analysis import measurements as m
from campus.analysis.cooling import cooling_balance
from campus.analysis.facility import campus_facility_year
from campus.analysis.facility.year import plant_power_kw
from campus.analysis.heat import rack_it_kw_by_id
from campus.analysis.weather import hour_of_year, weather_of
from campus.emulator import REFERENCE_C, Profile, readings
from campus.interchange.demo import DEMO_NAME
from campus.models import Campus, MeasurementRollup

STEP_S = 60  # one sample a minute
# the demo's hidden truth: GPUs near 80 % of the model's full-TDP figure with checkpoint dips, 1 % meter
# noise, and the first PDU's meter reading 50 % high: 0.8 × 1.5 = 1.2 of its model, the `over` alarm the demo shows
GPU_FRACTION, SWING, NOISE, OFFSET = 0.8, 0.1, 0.01, 0.5
# the plants' hidden truth: 25 % above the plant model's mean power over the day at the emulated heat (the
# `over` alarm the demo shows, and what calibration corrects), 30 % of it fans and pumps whatever the load,
# the rest rising 2 % a K (demo figures, not sourced). The campus meter and PUE are not emulated for the demo:
# the emulator's meter counts only what it draws (racks, plants), not the model's other loads.
PLANT_OVER, PLANT_FIXED_SHARE, EIR_RISE_PER_K = 1.25, 0.3, 0.02


class Command(BaseCommand):
    help = (
        "Emulate the last 24 hours of rack, power-device, cooling and weather measurements for the demo "
        "campus, once: "
        "nothing when a Prometheus is configured or the campus already holds measurements."
    )

    def handle(self, *args, **options):
        campus = Campus.objects.filter(name=DEMO_NAME).first()
        if campus is None or getattr(settings, "TWIN_PROMETHEUS_URL", ""):
            self.stderr.write(
                "demo measurements: no demo campus, or a Prometheus is configured; nothing done"
            )
            return
        if MeasurementRollup.objects.filter(campus=campus).exists():
            self.stderr.write("demo measurements: already present")
            return
        state = states.designed_state(campus)
        snap, roll = state.snap, state.rollup()
        names = {r.id: r.name for r in snap.racks}
        objects = [
            {"kind": "rack", "name": names[rid], "nominal_kw": kw}
            for rid, kw in rack_it_kw_by_id(snap).items()
        ]
        loaded = [d for d in snap.power_devices if roll.device_load_kw.get(d.id, 0) > 0]
        devices = [d for kind in ("pdu", "ups") for d in loaded if d.kind == kind]  # the PDUs first
        objects += [
            {"kind": d.kind, "name": d.name, "nominal_kw": roll.device_load_kw[d.id]} for d in devices
        ]
        offsets = {f"pdu:{devices[0].name}": OFFSET} if devices and devices[0].kind == "pdu" else {}
        day_start = m.bucket_start(timezone.now()) - timedelta(days=1)
        offset = weather_of(snap).utc_offset_h
        hours = [hour_of_year(day_start + timedelta(hours=h), offset) for h in range(24)]
        objects += cooling_objects(snap, hours)
        known = m.objects(snap)
        objects = [o for o in objects if len(known.get((o["kind"], o["name"]), ())) == 1]
        end = m.bucket_start(timezone.now())
        t0 = (end - timedelta(days=1)).timestamp()
        # the dip lasts one sample in ten: at one sample a minute a shorter dip is either missed or always hit
        profile = Profile(
            DEMO_NAME,
            objects,
            gpu_fraction=GPU_FRACTION,
            swing=SWING,
            period_s=10 * STEP_S,
            dip_s=STEP_S,
            noise=NOISE,
            offsets=offsets,
            weather=weather_of_day(snap, hours),
        )
        rng = np.random.default_rng(1)
        samples = [
            m.Sample(kind, name, metric, datetime.fromtimestamp(float(t), UTC), value)
            for t in np.arange(t0, end.timestamp(), STEP_S)
            for kind, name, metric, value in readings(profile, float(t), t0, rng)
            if kind != "campus" or metric == "dry_bulb_c"
        ]
        result = measured.ingest(campus.pk, samples)
        self.stderr.write(f"demo measurements: {len(objects)} objects, {result['buckets']} buckets")


def cooling_objects(snap, hours: list[int]) -> list[dict]:
    """The demo's cooling units and plants as emulator objects: heat at the GPU fraction of the model's,
    the units at their design supply temperature and flow (or the flow their heat needs), the plants
    ``PLANT_OVER`` × the model's mean power over the day's ``hours``."""
    out = []
    units = {u.id: u for u in snap.cooling_units}
    for ul in cooling_balance(snap).units:
        u = units[ul.id]
        flow = u.flow_lpm if u.flow_lpm > 0 else ul.flow_needed_lpm
        if ul.heat_kw > 0 and flow > 0:
            out.append(
                {
                    "kind": u.kind,
                    "name": u.name,
                    "heat_kw": ul.heat_kw * GPU_FRACTION,
                    "supply_c": u.supply_temp_c,
                    "flow_lpm": flow,
                }
            )
    plants = {p.id: p for p in snap.cooling_plants}
    mean_c = weather_of_day(snap, hours)["mean_c"]
    w = weather_of(snap)
    for py in campus_facility_year(snap).plants:
        p = plants[py.id]
        heat = py.heat_kw * GPU_FRACTION
        db, wb = w.dry_bulb_c[hours], w.wet_bulb_c[hours]
        model = plant_power_kw(p, np.full(len(hours), heat), py.supply_c, py.return_c, db, wb)
        power = PLANT_OVER * float(model.mean())
        if heat > 0 and power > 0:
            eir = (1.0 - PLANT_FIXED_SHARE) * power / heat  # at the day's mean temperature
            per_k = EIR_RISE_PER_K * eir
            out.append(
                {
                    "kind": p.kind,
                    "name": p.name,
                    "heat_kw": heat,
                    "fixed_kw": PLANT_FIXED_SHARE * power,
                    "eir_ref": eir - per_k * (mean_c - REFERENCE_C),  # stated at 20 °C
                    "eir_per_k": per_k,
                }
            )
    return out


def weather_of_day(snap, hours: list[int]) -> dict:
    """The emulator's diurnal sine fitted to the campus's weather year over the day's ``hours``: its mean
    and half its range, so the demo's outdoor temperature reads near the model's."""
    day = weather_of(snap).dry_bulb_c[hours]
    return {"mean_c": float(day.mean()), "amplitude_c": float(day.max() - day.min()) / 2.0}
