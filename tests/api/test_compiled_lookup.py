"""A plain detail GET reads its object with a statement kept per queryset shape (twin.api.lookup). The ORM is
the truth: every registered endpoint's detail, full and brief, is the same answer both ways, and so are the
404s; the kept path is really taken, and a shape it cannot take falls back to the ORM."""

import pytest

from campus.api.urls import REGISTRY
from campus.models import GPUModel, Rack
from twin.api import lookup


def _orm_only(monkeypatch):
    monkeypatch.setattr(lookup, "get_by_pk", lambda queryset, pk: None)


@pytest.mark.django_db
@pytest.mark.parametrize(("prefix", "viewset"), [(prefix, viewset) for prefix, viewset, _ in REGISTRY])
@pytest.mark.parametrize("query", ["", "?brief=1"])
def test_every_detail_is_the_orms_answer(one_of_each, admin_client_api, monkeypatch, prefix, viewset, query):
    ids = list(viewset.queryset.model.objects.values_list("pk", flat=True)[:3])
    assert ids, prefix
    kept = {pk: admin_client_api.get(f"/api/{prefix}/{pk}/{query}") for pk in ids}
    missing = admin_client_api.get(f"/api/{prefix}/987654321/{query}")
    malformed = admin_client_api.get(f"/api/{prefix}/abc/{query}")
    with monkeypatch.context() as m:
        _orm_only(m)
        for pk, response in kept.items():
            reference = admin_client_api.get(f"/api/{prefix}/{pk}/{query}")
            assert response.status_code == reference.status_code == 200, (prefix, pk)
            assert response.json() == reference.json(), (prefix, pk)
            assert response.headers.get("Last-Modified") == reference.headers.get("Last-Modified")
        for response, path in ((missing, "987654321"), (malformed, "abc")):
            reference = admin_client_api.get(f"/api/{prefix}/{path}/{query}")
            assert response.status_code == reference.status_code == 404
            assert response.json() == reference.json()


@pytest.mark.django_db
def test_the_kept_statement_is_taken_and_reads_one_query(
    one_of_each, viewer_client, django_assert_num_queries, monkeypatch
):
    gpu = GPUModel.objects.first()
    lookup.forget()
    viewer_client.get(f"/api/gpu-models/{gpu.pk}/")  # the first read compiles and keeps the statement
    assert any(shape[0] is GPUModel for shape in lookup._plans)
    calls = []

    class Spy(lookup._Stand):
        def __init__(self, queryset, compiler):
            calls.append(queryset.model)
            super().__init__(queryset, compiler)

    with monkeypatch.context() as m:
        m.setattr(lookup, "_Stand", Spy)
        with django_assert_num_queries(1):
            response = viewer_client.get(f"/api/gpu-models/{gpu.pk}/")
    assert response.status_code == 200 and response.json()["slug"] == gpu.slug
    assert calls == [GPUModel]


@pytest.mark.django_db
def test_a_rack_detail_keeps_its_related_objects_and_prefetched_feeds(one_of_each, viewer_client):
    rack = Rack.objects.get(nodes__isnull=False)
    body = viewer_client.get(f"/api/racks/{rack.pk}/").json()
    assert body["hall"]["id"] == rack.hall_id and body["hall"]["name"] == rack.hall.name
    assert len(body["power"]["feeds"]) == 2


@pytest.mark.django_db
def test_a_shape_with_a_filter_or_annotation_is_left_to_the_orm(one_of_each):
    from django.db.models import Count

    gpu = GPUModel.objects.first()
    assert lookup.get_by_pk(GPUModel.objects.filter(vendor=gpu.vendor), gpu.pk) is None
    assert lookup.get_by_pk(GPUModel.objects.annotate(n=Count("node_models")), gpu.pk) is None
    assert lookup.get_by_pk(GPUModel.objects.all(), gpu.pk) == [gpu]
    assert lookup.get_by_pk(GPUModel.objects.all(), 987654321) == []


@pytest.mark.django_db
@pytest.mark.parametrize(("prefix", "viewset"), [(prefix, viewset) for prefix, viewset, _ in REGISTRY])
def test_a_kept_existence_check_is_the_orms(one_of_each, prefix, viewset):
    model = viewset.queryset.model
    for pk in [*model.objects.values_list("pk", flat=True)[:3], 987654321]:
        found = lookup.pk_exists(model.objects.all(), pk)
        assert found is None or found is model.objects.filter(pk=pk).exists(), (prefix, pk)
        if model._meta.app_label == "campus":  # the kept path is taken for the inventory
            assert found is not None, prefix
    gpu = GPUModel.objects.first()
    assert lookup.pk_exists(GPUModel.objects.filter(vendor=gpu.vendor), gpu.pk) is None


@pytest.mark.django_db
def test_a_model_choice_filter_gives_the_object_by_its_key(one_of_each, viewer_client):
    """The filter's object carries its key and reads any other column when it is used."""
    from campus.api.filtersets import RackFilterSet
    from campus.models import Campus

    campus = Campus.objects.first()
    filterset = RackFilterSet({"campus": str(campus.pk)}, queryset=Rack.objects.all())
    assert filterset.is_valid(), filterset.errors
    chosen = filterset.form.cleaned_data["campus"]
    assert chosen.pk == campus.pk and chosen.name == campus.name
    assert list(filterset.qs) == list(Rack.objects.filter(campus=campus))
