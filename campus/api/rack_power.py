"""The power block of a rack's API representation, from prefetched rows and the catalog specs.

Loads come from ``CampusSnapshot.node_power_w`` (the same figure every analysis uses), on a snapshot that
holds only the catalog: one set of catalog queries per request, however many racks are listed; a page's
feeds are prefetched and its servers counted in one grouped query.
"""

from __future__ import annotations

from operator import itemgetter

from django.db.models import Count, Prefetch

from campus.analysis.feeds import rack_side_ratings_kw, redundant_rating_kw
from campus.analysis.snapshot import CampusSnapshot
from campus.choices import NodeStatus
from campus.models import Node, PowerFeed
from campus.snapshot_adapter import catalog_snapshot_parts

_CONTEXT_KEY = "_catalog_snapshot"
_MADE_KEY = "_rack_power_made"


def rack_prefetches() -> list[Prefetch]:
    """The feeds of racks, one query for a page; unordered, since rack_power sorts them (the model's ordering
    would join the campus for nothing)."""
    return [
        Prefetch(
            "feeds",
            queryset=PowerFeed.objects.select_related("upstream")
            .only("id", "rack_id", "side", "rating_kw", "upstream__id", "upstream__name")
            .order_by(),
            to_attr="power_feeds",
        ),
    ]


def attach_node_counts(racks) -> None:
    """Each rack's active servers as ``(node model slug, count)``, for a page of racks in one grouped query
    (rather than one object per server)."""
    by_rack = {rack.pk: rack for rack in racks}
    for rack in racks:
        rack.active_node_counts = []
    if not by_rack:
        return
    counts = (
        Node.objects.filter(rack_id__in=list(by_rack), status=NodeStatus.ACTIVE)
        .order_by()
        .values_list("rack_id", "node_model__slug")
        .annotate(n=Count("id"))
        .order_by("rack_id", "node_model__slug")
    )
    for rack_id, slug, count in counts:
        by_rack[rack_id].active_node_counts.append((slug, count))


def catalog_snapshot(context: dict) -> CampusSnapshot:
    """The catalog as a snapshot (its specs give a server's power), read once per request."""
    snap = context.get(_CONTEXT_KEY)
    if snap is None:
        snap = context[_CONTEXT_KEY] = CampusSnapshot(
            id=0,
            name="",
            grid_capacity_kw=0,
            price_usd_per_kwh=0,
            design_pue=1,
            ambient_temp_c=25,
            other_it_fraction=0,
            **catalog_snapshot_parts(),
        )
    return snap


_feed_order = itemgetter(1, 0)  # a feed row by side, then id
_feed_rating = itemgetter(1, 2)  # a feed row's (side, rating_kw)


def _figures(snap: CampusSnapshot, counts: tuple, extra_it_kw: float, ratings: tuple) -> tuple:
    """A rack's power figures but its feeds, from its active ``(node model, count)``, its in-rack extras (kW)
    and its feeds' ``(side, rating_kw)``: GPUs, GPUs by model, IT load at full GPU TDP (kW), side A's and
    side B's rating (kW) and the IT load as a % of what the rack may draw with its redundancy intact."""
    servers_w = 0.0
    gpus_by_model: dict[str, int] = {}
    for slug, count in counts:
        spec = snap.node_models.get(slug)
        if spec is None:
            continue
        servers_w += snap.node_power_w(slug) * count
        gpus_by_model[spec.gpu] = gpus_by_model.get(spec.gpu, 0) + spec.gpus_per_node * count
    it_load_kw = servers_w / 1000.0 + extra_it_kw
    side_kw = {"A": 0.0, "B": 0.0, "N": 0.0, **rack_side_ratings_kw(ratings)}
    weakest = redundant_rating_kw(side_kw)
    return (
        sum(gpus_by_model.values()),
        gpus_by_model,
        round(it_load_kw, 3),
        side_kw["A"],
        side_kw["B"],
        round(100.0 * it_load_kw / weakest, 2) if weakest > 0 else None,
    )


def rack_power(rack, context: dict) -> dict:
    counts = getattr(rack, "active_node_counts", None)
    if counts is None:
        counts = list(
            rack.nodes.filter(status=NodeStatus.ACTIVE)
            .order_by()
            .values_list("node_model__slug")
            .annotate(n=Count("id"))
            .order_by("node_model__slug")
        )
    objects = getattr(rack, "power_feeds", None)
    if objects is None:
        objects = rack.feeds.select_related("upstream")
    feeds = [(f.id, f.side, f.rating_kw, f.upstream_id, f.upstream.name) for f in objects]
    if len(feeds) > 1:
        feeds = sorted(feeds, key=_feed_order)
    # Racks of one make, extras and feed ratings share every figure but their feeds: worked out once per
    # request.
    made = context.get(_MADE_KEY)
    if made is None:
        made = context[_MADE_KEY] = {}
    key = (tuple(counts), rack.extra_it_kw, tuple(map(_feed_rating, feeds)))
    figures = made.get(key)
    if figures is None:
        figures = made[key] = _figures(catalog_snapshot(context), *key)
    gpus, gpus_by_model, it_load_kw, feed_a_kw, feed_b_kw, single_side_load_pct = figures
    return {
        "gpus": gpus,
        "gpus_by_model": dict(gpus_by_model),
        "it_load_kw": it_load_kw,
        "design_kw": rack.design_kw,
        "feeds": [
            {"id": id_, "side": side, "rating_kw": kw, "upstream_id": up_id, "upstream_name": up_name}
            for id_, side, kw, up_id, up_name in feeds
        ],
        "feed_a_kw": feed_a_kw,
        "feed_b_kw": feed_b_kw,
        "single_side_load_pct": single_side_load_pct,
    }
