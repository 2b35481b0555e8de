"""The power block of a rack's API representation, from its servers, its feeds and the catalog's specs.

Loads come from ``CampusSnapshot.node_power_w`` (the same figure every analysis uses), on the catalog kept
by the campus state while the rack's campus's revision holds (``campus.state.catalog``: a catalog write
raises every campus's revision). A page of racks reads its servers (counted by model) and its feeds (as
plain values) in one query each, however many racks it lists.
"""

from __future__ import annotations

from operator import itemgetter

from django.db.models import Count

from campus import state
from campus.analysis.feeds import rack_side_ratings_kw, redundant_rating_kw
from campus.analysis.snapshot import CampusSnapshot
from campus.choices import NodeStatus
from campus.models import Node, PowerFeed

_CONTEXT_KEY = "_catalog_snapshot"
_MADE_KEY = "_rack_power_made"
_FEED_COLUMNS = ("id", "side", "rating_kw", "upstream_id", "upstream__name")


def attach_power_rows(racks) -> None:
    """Each rack's active servers as ``(node model slug, count)`` and its feeds as ``(id, side, rating_kw,
    upstream id, upstream name)``, for a page of racks in one query each (rather than objects per server
    and per feed)."""
    by_rack = {rack.pk: rack for rack in racks}
    for rack in racks:
        rack.active_node_counts = []
        rack.power_feed_rows = []
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
    feeds = (
        PowerFeed.objects.filter(rack_id__in=list(by_rack)).order_by().values_list("rack_id", *_FEED_COLUMNS)
    )
    for rack_id, *feed in feeds:
        by_rack[rack_id].power_feed_rows.append(tuple(feed))


def catalog_snapshot(context: dict, campus_id: int) -> CampusSnapshot:
    """The catalog as a snapshot with the campus's calibrated server power (its specs and the campus's
    ``gpu_power_fraction`` and ``server_overhead_scale`` give a server's power), asked for once per request
    and campus."""
    by_campus = context.setdefault(_CONTEXT_KEY, {})
    snap = by_campus.get(campus_id)
    if snap is None:
        snap = by_campus[campus_id] = state.catalog(campus_id)
    return snap


_feed_order = itemgetter(1, 0)  # a feed row by side, then id
_feed_rating = itemgetter(1, 2)  # a feed row's (side, rating_kw)


def _figures(snap: CampusSnapshot, counts: tuple, extra_it_kw: float, ratings: tuple) -> tuple:
    """A rack's power figures but its feeds, from its active ``(node model, count)``, its in-rack extras (kW)
    and its feeds' ``(side, rating_kw)``: GPUs, GPUs by model, modelled IT load (kW; GPUs at TDP unless the campus is calibrated), side A's and
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
    feeds = getattr(rack, "power_feed_rows", None)
    if feeds is None:
        feeds = list(rack.feeds.order_by().values_list(*_FEED_COLUMNS))
    if len(feeds) > 1:
        feeds = sorted(feeds, key=_feed_order)
    # Racks of one make, extras and feed ratings share every figure but their feeds: worked out once per
    # request.
    made = context.get(_MADE_KEY)
    if made is None:
        made = context[_MADE_KEY] = {}
    key = (tuple(counts), rack.extra_it_kw, tuple(map(_feed_rating, feeds)))
    figures = made.get((rack.campus_id, key))
    if figures is None:
        figures = made[(rack.campus_id, key)] = _figures(catalog_snapshot(context, rack.campus_id), *key)
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
