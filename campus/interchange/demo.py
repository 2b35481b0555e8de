"""The demo campus: two buildings of H100, GB200 NVL72 and MI300X, a few thousand GPUs.

Built by the reference-design generator with a mix, so it exercises every kind of inventory: a 2N power
chain with generators, CDUs and CRAHs on chillers with a water-side economiser (Ashburn's hottest hours are
too warm for dry coolers on a 25 °C loop), four compute islands sharing a non-blocking core (islands of
2,048 H100 with 7:1 uplinks would need three tiers of their own on radix 64; docs/model.md §4).
"""

from __future__ import annotations

from django.db import transaction

from campus.interchange.catalog import db_catalog
from campus.interchange.generate import generate_spec
from campus.interchange.generator.common import Catalog
from campus.interchange.importer import import_campus
from campus.models import Campus

DEMO_NAME = "Demo campus"
# Two phases, so that the dashboard's "as of" day has something to show: building 1 (the H100 islands) in
# service first, building 2 (GB200 and MI300X) fifteen months later. Both dates are past, so today's figures
# are the whole campus's; an earlier day shows phase 1 alone (docs/planning.md, "Phases by date").
DEMO_PHASES = {"B1": "2025-03-01", "B2": "2026-06-01"}
# Two H100 islands of 2,048 fill building 1 (hall limit 6 MW, building limit 12 MW); GB200 and MI300X
# islands go to building 2.
DEMO_MIX = (
    {"gpu_model": "h100-sxm", "gpus": 4096},
    {"gpu_model": "gb200", "gpus": 1152},
    {"gpu_model": "mi300x", "gpus": 1024},
)


def demo_spec(catalog: Catalog | None = None) -> dict:
    """The demo campus's spec, generated from ``catalog`` (None: the database's; ``Catalog.defaults()``
    builds it without a database, as the engine's tests of the demo's default runs do)."""
    spec = _generated(catalog if catalog is not None else db_catalog())
    for building in spec["buildings"]:
        if building["name"] in DEMO_PHASES:
            building["in_service_date"] = DEMO_PHASES[building["name"]]
    return spec


def _generated(catalog: Catalog) -> dict:
    return generate_spec(
        DEMO_NAME,
        mix=[dict(m) for m in DEMO_MIX],
        fabric="infiniband-ndr",
        topology="rail-optimized",
        cooling="liquid",
        pod_max_gpus=2048,
        building_max_it_mw=6.0,
        hall_max_it_mw=3.0,
        location="Demo site",
        catalog=catalog,
    )


def load_demo_campus() -> tuple[Campus, bool]:
    """The demo campus and whether it was created now (idempotent: an existing one is left alone)."""
    with transaction.atomic():
        existing = Campus.objects.filter(name=DEMO_NAME).first()
        if existing is not None:
            return existing, False
        return import_campus(demo_spec()), True
