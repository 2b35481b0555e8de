"""A measurement emulator: a Prometheus exporter serving what a campus's meters would show (docs/live.md,
"The emulator"), for the demo and the end-to-end tests.

    python -m campus.emulator --profile profile.json --port 9464

The profile (JSON) names the campus and its objects with their nominal power; every scrape draws

    P = nominal × gpu_fraction × training(t) × (1 + offset) × drift(t) × (1 + noise·N(0, 1))

(an object given as ``gpu_kw`` and ``other_kw``: ``gpu_kw × gpu_fraction + other_kw × overhead_scale`` in place
of ``nominal × gpu_fraction``)

* ``training(t)``: a synchronous training job's swing: full power, with a checkpoint dip to
  ``1 − swing`` for ``dip_s`` seconds every ``period_s`` seconds;
* ``offset``: a known error on one object (``"pdu:PDU-1": 0.3`` reads 30 % high);
* ``drift``: one device whose reading grows by ``pct_per_day`` % a day from the emulator's start;
* the outdoor temperature follows a diurnal sine (``weather``), coldest at 05:00 and warmest at 15:00 UTC.

Racks are served as ``dcgm_power_usage_watts{campus, rack, gpu}`` (their power split over ``gpus_per_rack``
GPU series, as DCGM reports per GPU), so ``sum by (rack) (dcgm_power_usage_watts{campus="…"})`` reads a
rack; power devices as ``device_power_watts{campus, kind, device}``; the weather as
``outdoor_temperature_celsius{campus}``. The hidden parameters are the profile's: the twin never reads them.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from dataclasses import dataclass, field

import numpy as np
from prometheus_client import start_http_server
from prometheus_client.core import REGISTRY, GaugeMetricFamily
from prometheus_client.registry import Collector


@dataclass
class Profile:
    campus: str
    # {"kind": "rack" | "pdu" | ..., "name": ..., "nominal_kw": ...}, or with "gpu_kw" and "other_kw" in
    # place of "nominal_kw": the GPUs at TDP and the rest, drawn as gpu_kw × gpu_fraction + other_kw ×
    # overhead_scale (the two parameters calibration fits)
    objects: list[dict]
    gpu_fraction: float = 1.0
    overhead_scale: float = 1.0
    swing: float = 0.0
    period_s: float = 60.0
    dip_s: float = 6.0
    noise: float = 0.01
    offsets: dict[str, float] = field(default_factory=dict)  # "kind:name" -> fraction
    drift: dict = field(default_factory=dict)  # {"object": "kind:name", "pct_per_day": ...}
    weather: dict = field(default_factory=lambda: {"mean_c": 20.0, "amplitude_c": 6.0})
    gpus_per_rack: int = 4
    seed: int = 1


def training(t: float, p: Profile) -> float:
    return 1.0 - p.swing if (t % p.period_s) < p.dip_s else 1.0


def outdoor_c(t: float, p: Profile) -> float:
    hour = (t % 86400.0) / 3600.0
    return p.weather["mean_c"] + p.weather["amplitude_c"] * math.sin(2 * math.pi * (hour - 9.0) / 24.0)


def power_kw(obj: dict, t: float, t0: float, p: Profile, rng: np.random.Generator) -> float:
    key = f"{obj['kind']}:{obj['name']}"
    if "gpu_kw" in obj:
        base = obj["gpu_kw"] * p.gpu_fraction + obj.get("other_kw", 0.0) * p.overhead_scale
    else:
        base = obj["nominal_kw"] * p.gpu_fraction
    kw = base * training(t, p) * (1.0 + p.offsets.get(key, 0.0))
    if p.drift.get("object") == key:
        kw *= 1.0 + p.drift.get("pct_per_day", 0.0) / 100.0 * (t - t0) / 86400.0
    return max(0.0, kw * (1.0 + p.noise * rng.standard_normal()))


class CampusCollector(Collector):
    def __init__(self, profile: Profile) -> None:
        self.p = profile
        self.t0 = time.time()
        self.rng = np.random.default_rng(profile.seed)

    def collect(self):
        p, t = self.p, time.time()
        gpu = GaugeMetricFamily(
            "dcgm_power_usage_watts", "GPU power (emulated)", labels=["campus", "rack", "gpu"]
        )
        dev = GaugeMetricFamily(
            "device_power_watts", "Power device input (emulated)", labels=["campus", "kind", "device"]
        )
        for obj in p.objects:
            w = power_kw(obj, t, self.t0, p, self.rng) * 1000.0
            if obj["kind"] == "rack":
                for g in range(p.gpus_per_rack):
                    gpu.add_metric([p.campus, obj["name"], str(g)], w / p.gpus_per_rack)
            else:
                dev.add_metric([p.campus, obj["kind"], obj["name"]], w)
        weather = GaugeMetricFamily(
            "outdoor_temperature_celsius", "Outdoor dry bulb (emulated)", labels=["campus"]
        )
        weather.add_metric([p.campus], outdoor_c(t, p))
        yield gpu
        yield dev
        yield weather


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--profile", required=True, help="JSON file: campus, objects, hidden parameters")
    ap.add_argument("--port", type=int, default=9464)
    ap.add_argument("--addr", default="127.0.0.1")
    args = ap.parse_args(argv)
    with open(args.profile, encoding="utf-8") as fh:
        profile = Profile(**json.load(fh))
    REGISTRY.register(CampusCollector(profile))
    start_http_server(args.port, addr=args.addr)
    while True:
        time.sleep(3600)


if __name__ == "__main__":
    main()
