"""A list's count and keys statements are kept per view and set of parameters (twin.api.pagination). The truth
is the same request answered with nothing kept, at the same moment: over random sequences of list requests
(endpoints, filters, search, ordering, pages) with writes in between (a rack added, a rack and a hall deleted,
a campus deleted), every answer, error or page, is the same both ways."""

import django_filters
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from campus.api.urls import REGISTRY
from campus.interchange.generate import generate_spec
from campus.interchange.importer import import_campus
from campus.models import Campus, DataHall, Rack
from twin.api import pagination


def _both_ways(client, monkeypatch, path: str):
    kept = client.get(path)
    with monkeypatch.context() as m:
        m.setattr(pagination, "KEEP_STATEMENTS", False)
        fresh = client.get(path)
    return kept, fresh


_QUERIES = st.sampled_from(
    [
        "racks/?campus={c}",
        "racks/?campus={c}&ordering=-name",
        "racks/?campus={c}&hall={h}",
        "racks/?hall={h}&ordering=design_kw",
        "racks/?campus={c}&search=R",
        "racks/?id__in={r},{r2}",
        "racks/?campus={c}&brief=1",
        "nodes/?rack__campus={c}",
        "power-devices/?campus={c}&ordering=-rated_kw",
        "links/?campus={c}",
        "gpu-models/?ordering=slug",
        "halls/?building__campus={c}",
    ]
)
_STEPS = st.lists(
    st.tuples(
        _QUERIES,
        st.sampled_from([1, 3, 50]),
        st.integers(0, 40),
        st.sampled_from(["read", "read", "read", "add rack", "delete rack", "delete hall", "delete campus"]),
    ),
    min_size=3,
    max_size=12,
)


@pytest.mark.django_db
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=_STEPS)
def test_kept_statements_answer_as_fresh_ones_through_writes(admin_client_api, monkeypatch, steps):
    campus = import_campus(generate_spec(f"Kept {Campus.objects.count()}", 256, cooling="liquid"))
    for template, limit, offset, action in steps:
        racks = list(Rack.objects.filter(campus=campus).values_list("pk", flat=True)[:2]) or [0, 0]
        hall = DataHall.objects.filter(building__campus=campus).values_list("pk", flat=True).first() or 0
        path = "/api/" + template.format(c=campus.pk, h=hall, r=racks[0], r2=racks[-1])
        kept, fresh = _both_ways(admin_client_api, monkeypatch, f"{path}&limit={limit}&offset={offset}")
        assert kept.status_code == fresh.status_code, path
        assert kept.json() == fresh.json(), path
        if action == "add rack":
            rack = Rack.objects.filter(campus=campus).first()
            if rack is not None:
                rack.pk, rack.name = None, f"{rack.name}-x{Rack.objects.count()}"
                rack.save()
        elif action == "delete rack":
            Rack.objects.filter(
                pk=Rack.objects.filter(campus=campus).values_list("pk", flat=True).last()
            ).delete()
        elif action == "delete hall":
            DataHall.objects.filter(pk=hall).delete()
        elif action == "delete campus":
            Campus.objects.filter(pk=campus.pk).delete()


@pytest.mark.django_db
def test_a_deleted_campus_is_still_a_400_on_a_kept_shape(admin_client_api):
    campus = import_campus(generate_spec("Gone", 64, cooling="liquid"))
    path = f"/api/racks/?campus={campus.pk}&limit=5"
    assert admin_client_api.get(path).status_code == 200
    assert admin_client_api.get(path).status_code == 200
    Campus.objects.filter(pk=campus.pk).delete()
    response = admin_client_api.get(path)
    assert response.status_code == 400
    assert "campus" in response.json()


# Method filters whose statement depends on their parameter alone (a date: the same Q for the same day).
_PARAMETER_ONLY_METHODS = {"filter_in_service_on"}


@pytest.mark.parametrize(("prefix", "viewset"), [(prefix, viewset) for prefix, viewset, _ in REGISTRY])
def test_lists_kept_by_parameters_filter_by_parameters_alone(prefix, viewset):
    """A list whose statements are kept per set of parameters may only have filters whose statement follows from
    their parameter: a model-choice filter by key (the object enters the statement by the key given), a method
    filter known to read nothing else."""
    if not getattr(viewset, "list_by_parameters", False):
        return
    filterset_class = getattr(viewset, "filterset_class", None)
    for name, filter_ in filterset_class.base_filters.items() if filterset_class else []:
        if isinstance(filter_, django_filters.ModelChoiceFilter | django_filters.ModelMultipleChoiceFilter):
            assert filter_.extra.get("to_field_name") in (None, "pk", "id"), (prefix, name)
        if filter_.method is not None:
            assert filter_.method in _PARAMETER_ONLY_METHODS, (prefix, name)
