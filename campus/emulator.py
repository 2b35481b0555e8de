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

Beyond power (``readings``):

* a power device with a hidden ``efficiency``: the drawn figure is its output, served as
  ``device_output_power_watts``, its input (``device_power_watts``) that output / efficiency;
* a cooling unit (``kind`` crah, cdu, rear-door, immersion; ``heat_kw``, ``supply_c``, ``flow_lpm``): heat
  (``heat_kw`` × load), supply temperature, return = supply + heat / (flow × ρc_p) and flow, as
  ``cooling_unit_{heat_watts,supply_temperature_celsius,return_temperature_celsius,flow_litres_per_minute}``;
* a cooling plant (``kind`` chiller, dry-cooler, …; ``heat_kw`` and the hidden ``fixed_kw``, ``eir_ref``,
  ``eir_per_k``): heat Q = ``heat_kw`` × load, power = fixed + Q × (eir_ref + eir_per_k × (T − 20 °C)) at the
  outdoor temperature T, as ``cooling_plant_{heat,power}_watts``;
* the campus meter (``campus_power_watts``: racks + conversion losses + plants) and ``campus_pue_ratio``
  (campus meter / racks).

``load(t)`` (every object) = training(t) × (1 − ``load_swing`` × (½ + ½ sin 2πt / ``load_period_s``)): the
job mix's slow swing, on a period that is not a day's so heat load and outdoor temperature vary apart.
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

RHO_CP_KJ_PER_L_K = 4.18  # water near 30 °C: 0.996 kg/L × 4.18 kJ/(kg·K) (rounded)
REFERENCE_C = 20.0  # the plant's eir_ref is stated at this outdoor temperature
UNIT_KINDS = ("crah", "cdu", "rear-door", "immersion")
PLANT_KINDS = ("chiller", "dry-cooler", "cooling-tower", "air-chiller", "adiabatic-cooler")


@dataclass
class Profile:
    campus: str
    # {"kind": "rack" | "pdu" | ..., "name": ..., "nominal_kw": ...}, or with "gpu_kw" and "other_kw" in
    # place of "nominal_kw": the GPUs at TDP and the rest, drawn as gpu_kw × gpu_fraction + other_kw ×
    # overhead_scale (the two parameters calibration fits); cooling units and plants as in the module doc
    objects: list[dict]
    gpu_fraction: float = 1.0
    overhead_scale: float = 1.0
    swing: float = 0.0
    period_s: float = 60.0
    dip_s: float = 6.0
    noise: float = 0.01
    temp_noise_k: float = 0.05  # a temperature sensor's noise, K (1σ)
    load_swing: float = 0.0
    load_period_s: float = 7 * 3600.0
    offsets: dict[str, float] = field(default_factory=dict)  # "kind:name" -> fraction
    drift: dict = field(default_factory=dict)  # {"object": "kind:name", "pct_per_day": ...}
    weather: dict = field(default_factory=lambda: {"mean_c": 20.0, "amplitude_c": 6.0})
    gpus_per_rack: int = 4
    seed: int = 1


def training(t: float, p: Profile) -> float:
    return 1.0 - p.swing if (t % p.period_s) < p.dip_s else 1.0


def load(t: float, p: Profile) -> float:
    slow = 0.5 + 0.5 * math.sin(2 * math.pi * t / p.load_period_s)
    return training(t, p) * (1.0 - p.load_swing * slow)


def outdoor_c(t: float, p: Profile) -> float:
    hour = (t % 86400.0) / 3600.0
    return p.weather["mean_c"] + p.weather["amplitude_c"] * math.sin(2 * math.pi * (hour - 9.0) / 24.0)


def _true_kw(obj: dict, t: float, t0: float, p: Profile) -> float:
    """An object's power before its meter's offset and noise."""
    key = f"{obj['kind']}:{obj['name']}"
    if "gpu_kw" in obj:
        base = obj["gpu_kw"] * p.gpu_fraction + obj.get("other_kw", 0.0) * p.overhead_scale
    else:
        base = obj["nominal_kw"] * p.gpu_fraction
    kw = base * load(t, p)
    if p.drift.get("object") == key:
        kw *= 1.0 + p.drift.get("pct_per_day", 0.0) / 100.0 * (t - t0) / 86400.0
    return kw


def _metered(kw: float, p: Profile, rng: np.random.Generator) -> float:
    return max(0.0, kw * (1.0 + p.noise * rng.standard_normal()))


def power_kw(obj: dict, t: float, t0: float, p: Profile, rng: np.random.Generator) -> float:
    key = f"{obj['kind']}:{obj['name']}"
    return _metered(_true_kw(obj, t, t0, p) * (1.0 + p.offsets.get(key, 0.0)), p, rng)


def readings(p: Profile, t: float, t0: float, rng: np.random.Generator) -> list[tuple[str, str, str, float]]:
    """Every reading of the profile at ``t``: (object kind, object name, metric, value) in the twin's stored
    units (kW, °C, L/min), as an upload names them."""
    out: list[tuple[str, str, str, float]] = []
    it_kw = facility_kw = 0.0
    outdoor = outdoor_c(t, p)
    for obj in p.objects:
        kind, name = obj["kind"], obj["name"]
        if kind in UNIT_KINDS:
            heat = obj["heat_kw"] * load(t, p)
            rise = heat * 60.0 / (obj["flow_lpm"] * RHO_CP_KJ_PER_L_K)
            out += [
                (kind, name, "heat_kw", _metered(heat, p, rng)),
                (kind, name, "supply_temp_c", obj["supply_c"] + p.temp_noise_k * rng.standard_normal()),
                (
                    kind,
                    name,
                    "return_temp_c",
                    obj["supply_c"] + rise + p.temp_noise_k * rng.standard_normal(),
                ),
                (kind, name, "flow_lpm", _metered(obj["flow_lpm"], p, rng)),
            ]
        elif kind in PLANT_KINDS:
            heat = obj["heat_kw"] * load(t, p)
            eir = obj["eir_ref"] + obj.get("eir_per_k", 0.0) * (outdoor - REFERENCE_C)
            plant = obj.get("fixed_kw", 0.0) + heat * eir
            facility_kw += plant
            out += [
                (kind, name, "heat_kw", _metered(heat, p, rng)),
                (kind, name, "power_kw", _metered(plant, p, rng)),
            ]
        elif kind == "rack":
            kw = _true_kw(obj, t, t0, p)
            it_kw += kw
            out.append((kind, name, "power_kw", power_kw(obj, t, t0, p, rng)))
        elif "efficiency" in obj:
            delivered = _true_kw(obj, t, t0, p)
            facility_kw += delivered / obj["efficiency"] - delivered
            out += [
                (kind, name, "power_out_kw", _metered(delivered, p, rng)),
                (kind, name, "power_kw", power_kw(obj, t, t0, p, rng) / obj["efficiency"]),
            ]
        else:
            out.append((kind, name, "power_kw", power_kw(obj, t, t0, p, rng)))
    out.append(("campus", p.campus, "dry_bulb_c", outdoor))
    if it_kw > 0:
        out += [
            ("campus", p.campus, "power_kw", _metered(it_kw + facility_kw, p, rng)),
            ("campus", p.campus, "pue", (it_kw + facility_kw) / it_kw),
        ]
    return out


# metric -> Prometheus family name ("{group}": cooling_unit or cooling_plant), its help, the factor from the
# stored unit to the served one
FAMILIES = {
    "power_out_kw": ("device_output_power_watts", "Power device output (emulated)", 1000.0),
    "heat_kw": ("{group}_heat_watts", "Heat taken (emulated)", 1000.0),
    "supply_temp_c": ("cooling_unit_supply_temperature_celsius", "Supply temperature (emulated)", 1.0),
    "return_temp_c": ("cooling_unit_return_temperature_celsius", "Return temperature (emulated)", 1.0),
    "flow_lpm": ("cooling_unit_flow_litres_per_minute", "Coolant flow (emulated)", 1.0),
    "dry_bulb_c": ("outdoor_temperature_celsius", "Outdoor dry bulb (emulated)", 1.0),
    "pue": ("campus_pue_ratio", "Campus meter over IT (emulated)", 1.0),
}


def family_of(kind: str, metric: str) -> tuple[str, str, list[str], float]:
    """The Prometheus family a reading is served in: name, help, labels, factor from the stored unit."""
    if kind == "rack":
        return "dcgm_power_usage_watts", "GPU power (emulated)", ["campus", "rack", "gpu"], 1000.0
    if kind == "campus":
        if metric == "power_kw":
            return "campus_power_watts", "Campus meter (emulated)", ["campus"], 1000.0
        name, help_, factor = FAMILIES[metric]
        return name, help_, ["campus"], factor
    if kind in UNIT_KINDS or kind in PLANT_KINDS:
        group, label = ("cooling_unit", "unit") if kind in UNIT_KINDS else ("cooling_plant", "plant")
        if metric == "power_kw":
            return f"{group}_power_watts", "Electrical power (emulated)", ["campus", "kind", label], 1000.0
        name, help_, factor = FAMILIES[metric]
        return name.format(group=group), help_, ["campus", "kind", label], factor
    if metric == "power_kw":
        return "device_power_watts", "Power device input (emulated)", ["campus", "kind", "device"], 1000.0
    name, help_, factor = FAMILIES[metric]
    return name, help_, ["campus", "kind", "device"], factor


class CampusCollector(Collector):
    def __init__(self, profile: Profile) -> None:
        self.p = profile
        self.t0 = time.time()
        self.rng = np.random.default_rng(profile.seed)

    def collect(self):
        p, t = self.p, time.time()
        families: dict[str, GaugeMetricFamily] = {}
        for kind, name, metric, value in readings(p, t, self.t0, self.rng):
            fam, help_, labels, factor = family_of(kind, metric)
            if fam not in families:
                families[fam] = GaugeMetricFamily(fam, help_, labels=labels)
            if kind == "rack":
                for g in range(p.gpus_per_rack):
                    families[fam].add_metric([p.campus, name, str(g)], value * factor / p.gpus_per_rack)
            elif kind == "campus":
                families[fam].add_metric([p.campus], value * factor)
            else:
                families[fam].add_metric([p.campus, kind, name], value * factor)
        yield from families.values()


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
