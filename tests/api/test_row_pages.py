"""A list page read as plain rows (twin.api.rows) is REST framework's answer over model objects, byte for
byte: every registered list endpoint, full and brief, several pages, orderings and filters, on a generated
campus and on one row of every model. The row path is really taken (no model object is built for the rows
of a page of racks), and a page it cannot show (a related object without a name) keeps the object path."""

import pytest
from django.db.models.signals import post_init

from campus.api.urls import REGISTRY as CAMPUS_REGISTRY
from campus.interchange.generate import generate_spec
from campus.interchange.importer import import_campus
from campus.models import Campus, Pod, Rack
from simulations.api.urls import REGISTRY as SIMULATION_REGISTRY
from twin.api import rows
from twin.api.mixins import BriefModeMixin

REGISTRY = [(prefix, viewset) for prefix, viewset, _ in (*CAMPUS_REGISTRY, *SIMULATION_REGISTRY)]


def both_ways(client, monkeypatch, url: str):
    with monkeypatch.context() as m:
        m.setattr(rows, "ENABLED", True)
        fast = client.get(url)
    with monkeypatch.context() as m:
        m.setattr(rows, "ENABLED", False)
        reference = client.get(url)
    return fast, reference


@pytest.fixture
def generated(one_of_each):
    campus = import_campus(generate_spec("Rows", 256, cooling="liquid"))
    # Some racks with no pod and no cooling unit (their brief objects are null).
    Rack.objects.filter(campus=campus, name__endswith="1").update(pod=None, cooling_unit=None)
    return campus


@pytest.mark.django_db
@pytest.mark.parametrize(("prefix", "viewset"), REGISTRY)
@pytest.mark.parametrize("brief", ["", "&brief=1"])
def test_every_list_page_is_the_object_paths_answer(
    generated, admin_client_api, monkeypatch, prefix, viewset, brief
):
    if brief and not issubclass(viewset, BriefModeMixin):
        pytest.skip("no brief objects on this endpoint")
    campus_filter = hasattr(viewset, "filterset_class") and "campus" in getattr(
        viewset.filterset_class, "base_filters", {}
    )
    queries = ["?limit=7", "?limit=5&offset=3", "?limit=1000", "?ordering=-id&limit=9"]
    if campus_filter:
        queries += [
            f"?campus={generated.pk}&limit=11&offset=4",
            f"?campus={generated.pk}&ordering=-id&limit=13",
        ]
    for query in queries:
        fast, reference = both_ways(admin_client_api, monkeypatch, f"/api/{prefix}/{query}{brief}")
        assert fast.status_code == reference.status_code == 200, (prefix, query, fast.content[:300])
        assert fast.content == reference.content, (prefix, query)


@pytest.mark.django_db
def test_a_page_of_racks_builds_no_rack_objects(generated, admin_client_api, monkeypatch):
    built = []

    def count(sender, instance, **kwargs):
        built.append(instance)

    post_init.connect(count, sender=Rack, dispatch_uid="row-page-test")
    try:
        fast, reference = both_ways(
            admin_client_api, monkeypatch, f"/api/racks/?campus={generated.pk}&limit=20"
        )
        with monkeypatch.context() as m:
            m.setattr(rows, "ENABLED", True)
            built.clear()
            assert admin_client_api.get(f"/api/racks/?campus={generated.pk}&limit=20").status_code == 200
            assert built == []
            m.setattr(rows, "ENABLED", False)
            admin_client_api.get(f"/api/racks/?campus={generated.pk}&limit=20")
            assert len(built) == Rack.objects.filter(campus=generated).count()
    finally:
        post_init.disconnect(dispatch_uid="row-page-test", sender=Rack)
    body = fast.json()
    assert fast.content == reference.content
    assert body["count"] == len(body["results"]) == Rack.objects.filter(campus=generated).count() > 1
    # The power block is there, from the rows: 256 GPUs over the campus' racks.
    everything = admin_client_api.get(f"/api/racks/?campus={generated.pk}&limit=1000").json()["results"]
    assert sum(rack["power"]["gpus"] for rack in everything) == 256


@pytest.mark.django_db
def test_a_related_object_without_a_name_keeps_the_object_path(generated, admin_client_api, monkeypatch):
    pod = Pod.objects.filter(campus=generated).first()
    Pod.objects.filter(pk=pod.pk).update(name="")
    url = f"/api/racks/?campus={generated.pk}&pod={pod.pk}&limit=3"
    fast, reference = both_ways(admin_client_api, monkeypatch, url)
    assert fast.status_code == 200 and fast.content == reference.content
    shown = fast.json()["results"][0]["pod"]
    assert shown["id"] == pod.pk and shown["name"] == str(Pod.objects.get(pk=pod.pk))


@pytest.mark.django_db
def test_an_empty_page_and_a_page_past_the_end(generated, admin_client_api, monkeypatch):
    other = Campus.objects.create(name="Empty rows", grid_capacity_mw=10)
    for url in (f"/api/racks/?campus={other.pk}", f"/api/racks/?campus={generated.pk}&offset=100000"):
        fast, reference = both_ways(admin_client_api, monkeypatch, url)
        assert fast.status_code == 200 and fast.content == reference.content
        assert fast.json()["results"] == []
