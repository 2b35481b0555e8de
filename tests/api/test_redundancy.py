"""Redundancy across power and cooling on generated campuses, against impact mode element by element, and the
compound form of the impact endpoint."""

from __future__ import annotations

import pytest
from django.urls import reverse

from campus.analysis.impact import impact
from campus.analysis.power import rollup
from campus.analysis.redundancy import redundancy_check
from campus.interchange.generate import generate_spec
from campus.interchange.importer import import_campus
from campus.snapshot_adapter import build_snapshot

SMALL = {"hall_max_it_mw": 0.2, "building_max_it_mw": 0.5, "racks_per_row": 4, "pod_max_gpus": 256}


pytestmark = pytest.mark.usefixtures("fresh_analytics")


def _every_element(snap):
    """Independent of the redundancy module: every utility feed, every non-generator power device, unit and
    plant of the snapshot."""
    return (
        [("utility", u.id) for u in snap.utility_feeds]
        + [("power", d.id) for d in snap.power_devices if d.kind != "generator"]
        + [("cooling", u.id) for u in snap.cooling_units]
        + [("plant", p.id) for p in snap.cooling_plants]
    )


@pytest.mark.django_db
@pytest.mark.parametrize(
    "params",
    [
        {"gpus": 256, "cooling": "air"},
        {"gpus": 512, "cooling": "liquid", "fabric": "spectrum-x"},
        {"gpus": 288, "gpu_model": "gb200"},
        {
            "mix": [{"gpu_model": "h100-sxm", "gpus": 256}, {"gpu_model": "mi300x", "gpus": 128}],
            "cooling": "air",
        },
    ],
)
def test_redundancy_list_is_exactly_what_impact_mode_finds_element_by_element(params):
    snap = build_snapshot(import_campus(generate_spec("Agreement", **SMALL, **params)))
    design_trips = {(k, i) for k, i, _ in rollup(snap).tripped}
    expected = {}
    for kind, ident in _every_element(snap):
        im = impact(snap, ident, kind)
        trips = [t for t in im.tripped if (t[0], t[1]) not in design_trips]
        lost = im.gpus_lost_power + im.gpus_lost_cooling
        if trips or lost:
            effect = "cascade" if trips else ("power" if im.gpus_lost_power else "cooling")
            expected[(kind, ident)] = (effect, lost)
    got = {(f.device_kind, f.device_id): (f.effect, f.gpus_lost) for f in redundancy_check(snap)}
    assert got == expected


def _mpdu_spec(dual: bool) -> dict:
    """A generated air-cooled N+1 campus declared 2N: its CRAHs are dual-fed from a hall's mechanical PDU A
    and B (on two of its blocks); without ``dual`` they hang off PDU A alone. (The generator's 2N spreads
    the CRAHs over several mechanical PDUs a side, so one PDU alone stops no pool.)"""
    spec = generate_spec("Mechanical", 256, cooling="air", power_redundancy="N+1", **SMALL)
    spec["campus"]["power_redundancy"] = "2N"
    if not dual:
        for unit in spec["cooling_units"]:
            unit.pop("power_device_b", None)
    return spec


@pytest.mark.django_db
def test_a_hall_mechanical_pdu_shows_as_a_cooling_finding_with_every_gpu_behind_it(viewer_client):
    campus = import_campus(_mpdu_spec(dual=False))
    snap = build_snapshot(campus)
    gpus_by_hall: dict[int, int] = {}
    for r in snap.racks:
        gpus_by_hall[r.hall_id] = gpus_by_hall.get(r.hall_id, 0) + sum(snap.rack_gpus(r).values())
    mpdus = {u.power_device_id for u in snap.cooling_units}
    assert mpdus and all("MPDU" in d.name for d in snap.power_devices if d.id in mpdus)
    response = viewer_client.get(reverse("campus-redundancy", kwargs={"pk": campus.pk}))
    assert response.status_code == 200
    found = {(x["device_kind"], x["device_id"]): x for x in response.json()["findings"]}
    hall_of = {u.power_device_id: u.hall_id for u in snap.cooling_units}
    for did in mpdus:
        finding = found[("power", did)]
        assert finding["effect"] == "cooling"
        assert finding["gpus_lost"] == finding["gpus_lost_cooling"] == gpus_by_hall[hall_of[did]]
    summary = viewer_client.get(reverse("campus-summary", kwargs={"pk": campus.pk})).json()["power"]
    assert summary["redundancy_findings_count"] == response.json()["count"] > 0
    assert summary["redundancy_findings_by_effect"]["cooling"] >= len(mpdus)


@pytest.mark.django_db
def test_dual_fed_crahs_take_the_mechanical_pdu_off_the_list():
    snap = build_snapshot(import_campus(_mpdu_spec(dual=True)))
    findings = redundancy_check(snap)
    assert not [f for f in findings if "MPDU" in f.device_name]


@pytest.mark.django_db
class TestCompoundImpact:
    def _campus(self):
        campus = import_campus(generate_spec("Compound", 256, cooling="air", **SMALL))
        return campus, build_snapshot(campus)

    def test_several_units_of_a_group_lost_at_once(self, viewer_client):
        campus, snap = self._campus()
        group = {}
        for u in snap.cooling_units:
            group.setdefault(u.group, []).append(u.id)
        members = sorted(next(iter(group.values())))
        url = reverse("campus-impact", kwargs={"pk": campus.pk})
        one = viewer_client.get(url, {"device": members[0], "kind": "cooling"}).json()
        every = ",".join(f"cooling:{u}" for u in members)
        response = viewer_client.get(url, {"failed": every})
        assert response.status_code == 200, response.json()
        body = response.json()
        racks_of_group = sorted(r.id for r in snap.racks if r.cooling_unit_id in members)
        # the whole group gone: every rack it served loses cooling, whatever a single loss did
        assert body["racks"]["lost_cooling"] == racks_of_group
        assert body["gpus"]["lost_cooling"] > one["gpus"]["lost_cooling"]
        assert [e["id"] for e in body["failed"]] == members
        assert body["effect"] == "cooling"
        # repeated form and comma form agree, and ?device= combines with ?failed=
        repeated = viewer_client.get(url + "?" + "&".join(f"failed=cooling:{u}" for u in members)).json()
        assert repeated["racks"] == body["racks"]
        combined = viewer_client.get(
            url,
            {
                "device": members[0],
                "kind": "cooling",
                "failed": ",".join(f"cooling:{u}" for u in members[1:]),
            },
        ).json()
        assert combined["racks"] == body["racks"]

    def test_five_hundred_elements_of_the_longest_form_in_one_value(self, viewer_client):
        # docs/api.md: up to 500 elements, comma-separated in one value; each here as long as an element can
        # be written (a 7-letter kind and a 19-digit id).
        campus, snap = self._campus()
        known = [("cooling", u.id) for u in snap.cooling_units] + [
            ("utility", u.id) for u in snap.utility_feeds
        ]
        items = [f"{kind}:{ident:019d}" for kind, ident in (known * 500)[:500]]
        assert all(len(item) == 27 for item in items)
        url = reverse("campus-impact", kwargs={"pk": campus.pk})
        response = viewer_client.get(url, {"failed": ",".join(items)})
        assert response.status_code == 200, response.json()
        assert sorted((e["kind"], e["id"]) for e in response.json()["failed"]) == sorted(set(known))
        short = [f"{kind}:{ident}" for kind, ident in (known * 501)[:501]]
        too_many = viewer_client.get(url, {"failed": ",".join(short)})
        assert too_many.status_code == 400
        assert too_many.json() == {"failed": ["at most 500 elements"]}

    @pytest.mark.parametrize("bad", ["cooling", "pump:3", "power:x", "power:0", "cooling:999999"])
    def test_bad_elements_are_400_naming_failed(self, viewer_client, bad):
        campus, _ = self._campus()
        response = viewer_client.get(reverse("campus-impact", kwargs={"pk": campus.pk}), {"failed": bad})
        assert response.status_code == 400
        assert "failed" in response.json()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("params", "power", "cooling"),
    [
        # asked for: the N domains' single points are warnings
        ({"power_redundancy": "N", "cooling_redundancy": "N"}, "warning", "warning"),
        # 2N cooling keeps two spares: a hall's three CRAHs where one carries it, one out for maintenance
        # and another failed (docs/model.md, "Achieved redundancy"): achieved 2N, as declared
        ({"power_redundancy": "N+1", "cooling_redundancy": "2N"}, "ok", "ok"),
        # 2N power over N cooling: a CRAH's two mechanical PDUs, one out and the other failed, stop it
        # and an N pool has no unit to spare: achieved N+1, an error against the declared 2N
        ({"power_redundancy": "2N", "cooling_redundancy": "N"}, "error", "warning"),
    ],
)
def test_the_redundancy_endpoint_checks_the_declared_redundancy(viewer_client, params, power, cooling):
    campus = import_campus(generate_spec("Declared", 256, cooling="air", **SMALL, **params))
    body = viewer_client.get(reverse("campus-redundancy", kwargs={"pk": campus.pk})).json()
    declared = {d["domain"]: d for d in body["declared"]}
    assert (declared["power"]["severity"], declared["cooling"]["severity"]) == (power, cooling)
    assert declared["power"]["declared"] == params["power_redundancy"]
    # every single point named is a finding of the list, in its domain
    named = {f["device_name"] for f in body["findings"]}
    assert set(declared["power"]["single_points"]) | set(declared["cooling"]["single_points"]) == named


@pytest.mark.django_db
def test_a_declared_2n_chain_with_a_single_point_is_an_error(viewer_client):
    campus = import_campus(_mpdu_spec(dual=False))  # declares 2N, but its CRAHs hang off MPDU A alone
    body = viewer_client.get(
        reverse("campus-redundancy", kwargs={"pk": campus.pk}), {"include_single_points": "false"}
    ).json()
    power = next(d for d in body["declared"] if d["domain"] == "power")
    assert (power["declared"], power["achieved"], power["severity"]) == ("2N", "N", "error")
    # the mechanical PDUs A and what feeds them (their block's UPS and switchgear)
    assert any("MPDU-A" in name for name in power["single_points"])
    assert not any(name.endswith("MPDU-B") or "-UPS-B" in name for name in power["single_points"])
