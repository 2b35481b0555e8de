"""Every view of one generated campus gives the same failover headroom: the summary, the building cards, the
floor map (campus and hall) and the power chain of a rack in every hall."""

import pytest
from django.urls import reverse

from campus.interchange.generate import generate_spec
from campus.interchange.importer import import_campus
from campus.models import PowerFeed

pytestmark = pytest.mark.usefixtures("fresh_analytics")


def url(name: str, campus) -> str:
    return reverse(f"campus-{name}", kwargs={"pk": campus.pk})


@pytest.mark.django_db
def test_summary_cards_floor_map_and_power_chain_agree(viewer_client):
    # ~1.3 MW per 1k H100 GPUs: two buildings of at most 2 MW, halls of at most 1 MW.
    campus = import_campus(
        generate_spec(
            "Agreement",
            gpus=3072,
            pod_max_gpus=1024,
            building_max_it_mw=2.0,
            hall_max_it_mw=1.0,
            racks_per_row=8,
        )
    )
    summary = viewer_client.get(url("summary", campus), {"include_redundancy": "false"}).json()
    floor = viewer_client.get(url("floor-map", campus)).json()
    assert len(floor["buildings"]) >= 2
    assert floor["campus"]["headroom_mw"] == pytest.approx(summary["power"]["headroom_after_failover_mw"])
    assert floor["campus"]["headroom_binding"] == summary["power"]["headroom_binding"]
    cards = {c["id"]: c for c in summary["buildings"]}
    columns = floor["rack_columns"]
    racks = [dict(zip(columns, row, strict=True)) for row in floor["racks"]]
    for building in floor["buildings"]:
        card = cards[building["id"]]
        assert building["headroom_mw"] is not None
        assert building["headroom_mw"] == pytest.approx(card["headroom_mw"])
        assert building["headroom_binding"] == card["headroom_binding"]
        # failover-aware: never more than both sides' healthy headroom added up
        assert card["headroom_mw"] < card["headroom_both_sides_mw"]
        for hall in building["halls"]:
            detail = viewer_client.get(url("floor-map", campus), {"hall": hall["id"]}).json()["hall"]
            assert detail["headroom_mw"] == pytest.approx(hall["headroom_mw"])
            rack = next(r for r in racks if r["hall_id"] == hall["id"])
            chain = viewer_client.get(url("power-chain", campus), {"rack": rack["id"]}).json()
            assert chain["hall"]["headroom_mw"] == pytest.approx(hall["headroom_mw"])
            assert chain["hall"]["headroom_binding"] == hall["headroom_binding"]
            assert chain["building"]["headroom_mw"] == pytest.approx(building["headroom_mw"])
            # the binding device of a hall fed A and B lies on the path of one of its racks (a row PDU only
            # on its row's), with its failover headroom
            binding = hall["headroom_binding"]
            if binding["kind"] == "feed":
                # a rack's whip binds (the generated 2N is 2(N+1): a row PDU's failure leaves each of its
                # racks on its other whips): the feed of a rack of this hall
                assert PowerFeed.objects.get(pk=binding["id"]).rack.hall_id == hall["id"]
                continue
            on_path = {}
            for other in (r for r in racks if r["hall_id"] == hall["id"]):
                if other["id"] != rack["id"]:
                    chain = viewer_client.get(url("power-chain", campus), {"rack": other["id"]}).json()
                on_path = {d["id"]: d for side in chain["sides"] for d in side["devices"]}
                if binding["id"] in on_path:
                    break
            assert binding["id"] in on_path
            assert on_path[binding["id"]]["headroom_after_failover_kw"] is not None
    # the campus can never add more than the sum of its buildings
    total = sum(c["headroom_mw"] for c in cards.values())
    assert summary["power"]["headroom_after_failover_mw"] <= total + 1e-9
