"""Racks down at design through the API: a generated 2N air campus whose row PDUs are set offline but one,
re-rated below its racks' load, so it trips at design load and its racks are dark before anything
fails (docs/model.md §1 "Racks already down at design", §8 "What runs at design")."""

from __future__ import annotations

import pytest
from django.urls import reverse

from campus import models
from campus.interchange.generate import generate_spec
from campus.interchange.importer import import_campus

SMALL = {"hall_max_it_mw": 0.2, "building_max_it_mw": 0.5, "racks_per_row": 4, "pod_max_gpus": 256}

pytestmark = pytest.mark.usefixtures("fresh_analytics")


@pytest.mark.django_db
def test_pdu_a_offline_and_pdu_b_tripping_is_an_error_and_the_summary_counts_what_runs(planner_client):
    campus = import_campus(generate_spec("Dark", 256, cooling="air", power_redundancy="2N", **SMALL))
    summary_url = reverse("campus-summary", kwargs={"pk": campus.pk})
    before = planner_client.get(summary_url).json()
    pdus = models.PowerDevice.objects.filter(building__campus=campus, kind="pdu").order_by("id")
    # the PDUs feeding the same racks: the A and B whips of one row (two a side in 2(N+1))
    by_racks: dict[frozenset, list] = {}
    for pdu in pdus:
        fed = frozenset(
            models.PowerFeed.objects.filter(upstream=pdu, rack__isnull=False).values_list("rack", flat=True)
        )
        if fed:
            by_racks.setdefault(fed, []).append(pdu)
    racks, row_pdus = next((fed, group) for fed, group in by_racks.items() if len(group) > 1)
    assert len(row_pdus) == 4
    *offline, b = row_pdus
    # the truth, counted from the inventory: the GPUs of the racks the row's PDUs feed
    gpus = sum(n.node_model.gpus_per_node for n in models.Node.objects.filter(rack__in=racks))
    for a in offline:
        assert (
            planner_client.patch(
                f"/api/power-devices/{a.pk}/", {"status": "offline"}, format="json"
            ).status_code
            == 200
        )
    # the last re-rated to 1 kW: it carries the row's whole load alone and trips at design load
    assert (
        planner_client.patch(f"/api/power-devices/{b.pk}/", {"rated_kw": 1.0}, format="json").status_code
        == 200
    )

    body = planner_client.get(reverse("campus-redundancy", kwargs={"pk": campus.pk})).json()
    power = next(d for d in body["declared"] if d["domain"] == "power")
    assert power["severity"] == "error"
    assert power["achieved"] == "N"
    assert sorted(power["racks_down_at_design"]) == sorted(r for r in racks)
    assert power["gpus_down_at_design"] == gpus

    after = planner_client.get(summary_url).json()
    p, c = after["power"], after["compute"]
    assert p["racks_without_power"] == len(racks)
    assert p["gpus_down_at_design"] == gpus
    # the design figures are those of the whole campus as before; what runs is less
    assert p["design_it_mw"] == pytest.approx(before["power"]["it_mw"])
    assert 0 < p["it_mw"] < p["design_it_mw"]
    # the cooling is checked for the design: every rack's heat, the dark ones' included (docs/model.md §3)
    assert after["cooling"]["heat_load_mw"] == pytest.approx(p["design_it_mw"])
    # every view gives what runs: the building cards and the floor map add up to the summary's it_mw (they
    # gave the design's)
    assert sum(card["it_mw"] for card in after["buildings"]) == pytest.approx(p["it_mw"], rel=1e-9)
    floor = planner_client.get(summary_url.replace("summary", "floor-map")).json()
    assert floor["campus"]["it_mw"] == pytest.approx(p["it_mw"], rel=1e-9)
    assert sum(b["it_mw"] for b in floor["buildings"]) == pytest.approx(p["it_mw"], rel=1e-9)
    rows = [dict(zip(floor["rack_columns"], r, strict=True)) for r in floor["racks"]]
    # the racks' feeds and the network and allowance beside them (which keep running)
    beside_mw = sum(h["beside_racks_mw"] for b in floor["buildings"] for h in b["halls"])
    assert beside_mw > 0
    assert sum(r["fed_kw"] for r in rows) / 1000 + beside_mw == pytest.approx(p["it_mw"], rel=1e-9)
    assert all(r["fed_kw"] == 0 for r in rows if not r["powered"])
    assert 0 < p["annual_cost_usd"] < p["design_annual_cost_usd"]
    total = before["inventory"]["gpus"]
    assert c["design_peak_pflops"]["bf16"] == pytest.approx(before["compute"]["peak_pflops"]["bf16"])
    # compute scales with the GPUs that run: (total - dark) / total of the design peak
    assert c["peak_pflops"]["bf16"] == pytest.approx(
        before["compute"]["peak_pflops"]["bf16"] * (total - gpus) / total
    )
