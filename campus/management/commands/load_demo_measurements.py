"""A day of emulated measurements for the demo campus, when no Prometheus is configured (docs/live.md)."""

from datetime import UTC, datetime, timedelta

import numpy as np
from django.conf import settings
from django.core.management.base import BaseCommand
from django.utils import timezone

from campus import measured
from campus import state as states
from campus.analysis import measurements as m
from campus.analysis.heat import rack_it_kw_by_id
from campus.emulator import Profile, power_kw
from campus.interchange.demo import DEMO_NAME
from campus.models import Campus, MeasurementRollup

STEP_S = 60  # one sample a minute
# the demo's hidden truth: GPUs near 80 % of the model's full-TDP figure with checkpoint dips, 1 % meter
# noise, and the first PDU's meter reading 50 % high: 0.8 × 1.5 = 1.2 of its model, the `over` alarm the demo shows
GPU_FRACTION, SWING, NOISE, OFFSET = 0.8, 0.1, 0.01, 0.5


class Command(BaseCommand):
    help = (
        "Emulate the last 24 hours of rack, PDU and UPS measurements for the demo campus, once: "
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
        profile = Profile(DEMO_NAME, objects, GPU_FRACTION, SWING, noise=NOISE, offsets=offsets)
        known = m.objects(snap)
        objects = [o for o in objects if len(known.get((o["kind"], o["name"]), ())) == 1]
        rng = np.random.default_rng(1)
        end = m.bucket_start(timezone.now())
        t0 = (end - timedelta(days=1)).timestamp()
        samples = [
            m.Sample(o["kind"], o["name"], "power_kw", datetime.fromtimestamp(float(t), UTC), kw)
            for o in objects
            for t in np.arange(t0, end.timestamp(), STEP_S)
            for kw in (power_kw(o, float(t), t0, profile, rng),)
        ]
        result = measured.ingest(campus.pk, samples)
        self.stderr.write(f"demo measurements: {len(objects)} objects, {result['buckets']} buckets")
