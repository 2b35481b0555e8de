"""The API test base (NetBox ``utilities/testing/api.py`` style).

A subclass declares what is particular to one endpoint and inherits the tests of list/get/create/update/
delete, the roles (anonymous 401, viewer reads but gets 403 on writes, planner writes), bulk create/update/
delete, 400 naming the field, brief mode, conditional GET, filters and history::

    class TestRacks(APIViewTests):
        model = Rack
        basename = "rack"
        factory = RackFactory
        brief_fields = ("id", "name", "url")
        update_data = {"design_kw": 90.0}
        bulk_update_data = {"status": "planned"}
        bad_data = {"design_kw": -1}
        filter_params = {"campus": "campus_id", "status": "status"}

        def create_data(self):
            hall = DataHallFactory()
            return [{"campus": hall.building.campus_id, "hall": hall.pk, "name": f"R{i}", ...} for i in range(3)]

``create_data``, ``update_data``, ``bulk_update_data`` and ``bad_data`` may be values or methods (methods run
inside the test, with the database available, so they can build related objects with the factories).
"""

from __future__ import annotations

import math

import pytest
from django.urls import reverse

from tests.conftest import client_for, make_user


def _value(attr, owner):
    return attr() if callable(attr) else attr


def _same(sent, got) -> bool:
    if isinstance(got, dict) and "id" in got and not isinstance(sent, dict):
        return got["id"] == sent
    if isinstance(sent, float) or isinstance(got, float):
        return got is not None and sent is not None and math.isclose(float(sent), float(got), rel_tol=1e-9)
    return sent == got


def _attr(obj, path: str):
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


@pytest.mark.django_db
class APIViewTests:
    model = None
    basename: str = ""
    factory = None
    brief_fields: tuple[str, ...] = ("id", "name", "url")
    update_data: dict | None = None
    bulk_update_data: dict | None = None
    bad_data: dict | None = None
    filter_params: dict[str, str] = {}
    has_history = True
    write_role = "planner"
    read_role = "viewer"

    def create_data(self) -> list[dict]:
        raise NotImplementedError

    # ---------------------------------------------------------------- helpers

    def list_url(self) -> str:
        return reverse(f"{self.basename}-list")

    def detail_url(self, pk) -> str:
        return reverse(f"{self.basename}-detail", kwargs={"pk": pk})

    @pytest.fixture
    def writer(self, db):
        return client_for(make_user("writer", self.write_role))

    @pytest.fixture
    def reader(self, db):
        return client_for(make_user("reader", self.read_role))

    @pytest.fixture
    def below_writer(self, db):
        """A client whose role may read but not write."""
        return client_for(make_user("lesser", self.read_role))

    def _assert_matches(self, data: dict, body: dict) -> None:
        for key, sent in data.items():
            if key in ("password",):
                continue
            assert _same(sent, body[key]), f"{key}: sent {sent!r}, got {body[key]!r}"

    # ---------------------------------------------------------------- reads

    def test_list_returns_paginated_objects(self, reader):
        objects = self.factory.create_batch(3)
        response = reader.get(self.list_url(), {"limit": 1000})
        assert response.status_code == 200, response.data
        assert response.data["count"] >= 3
        ids = {row["id"] for row in response.data["results"]}
        assert {o.pk for o in objects} <= ids

    def test_list_limit_pages_results(self, reader):
        self.factory.create_batch(3)
        response = reader.get(self.list_url(), {"limit": 2})
        assert response.status_code == 200
        assert len(response.data["results"]) == 2
        assert response.data["next"]

    def test_list_rows_are_the_detail_objects(self, reader):
        # A list page is read its own way (a page of keys, brief related objects, related rows attached
        # per page); each of its rows is still exactly what the object's own GET answers.
        objects = self.factory.create_batch(3)
        response = reader.get(self.list_url(), {"limit": 1000})
        assert response.status_code == 200, response.data
        rows = {row["id"]: row for row in response.json()["results"]}
        for obj in objects:
            detail = reader.get(self.detail_url(obj.pk))
            assert detail.status_code == 200
            assert rows[obj.pk] == detail.json()

    def test_brief_list_returns_brief_fields_only(self, reader):
        self.factory.create_batch(2)
        response = reader.get(self.list_url(), {"brief": "1"})
        assert response.status_code == 200
        for row in response.data["results"]:
            assert sorted(row) == sorted(self.brief_fields)

    def test_get_object_returns_it_with_its_url(self, reader):
        obj = self.factory()
        response = reader.get(self.detail_url(obj.pk))
        assert response.status_code == 200, response.data
        assert response.data["id"] == obj.pk
        assert response.data["url"].endswith(self.detail_url(obj.pk))

    def test_get_unknown_object_is_404(self, reader):
        response = reader.get(self.detail_url(2**40))
        assert response.status_code == 404

    def test_conditional_get_answers_304_when_unchanged(self, reader):
        obj = self.factory()
        first = reader.get(self.detail_url(obj.pk))
        assert first.status_code == 200
        etag = first.headers.get("ETag")
        assert etag
        again = reader.get(self.detail_url(obj.pk), HTTP_IF_NONE_MATCH=etag)
        assert again.status_code == 304

    def test_filters_select_matching_objects(self, reader):
        if not self.filter_params:
            pytest.skip("no filters declared")
        objects = self.factory.create_batch(3)
        target = objects[0]
        for param, path in self.filter_params.items():
            value = _attr(target, path)
            response = reader.get(self.list_url(), {param: value, "limit": 1000})
            assert response.status_code == 200, (param, response.data)
            ids = [row["id"] for row in response.data["results"]]
            assert target.pk in ids, param
            for obj in self.model.objects.filter(pk__in=ids):
                assert _attr(obj, path) == value, param

    def test_filters_combine(self, reader):
        # Each request builds only the filters it names: every declared filter at once selects the target,
        # and a request naming one of them after it is not narrowed by the others.
        if len(self.filter_params) < 2:
            pytest.skip("fewer than two filters declared")
        objects = self.factory.create_batch(3)
        target = objects[0]
        params = {param: _attr(target, path) for param, path in self.filter_params.items()}
        response = reader.get(self.list_url(), {**params, "limit": 1000})
        assert response.status_code == 200, response.data
        assert target.pk in [row["id"] for row in response.data["results"]]
        first, path = next(iter(self.filter_params.items()))
        alone = reader.get(self.list_url(), {first: params[first], "limit": 1000})
        expected = self.model.objects.filter(**{path.replace(".", "__"): params[first]}).count()
        assert alone.data["count"] == expected

    def test_invalid_filter_value_is_400_naming_the_filter(self, reader):
        id_filters = [p for p, path in self.filter_params.items() if path.endswith("_id")]
        if not id_filters:
            pytest.skip("no id filters declared")
        response = reader.get(self.list_url(), {id_filters[0]: "not-a-number"})
        assert response.status_code == 400
        assert id_filters[0] in response.data

    def test_unknown_query_parameter_is_400_naming_it_on_list_and_detail(self, reader):
        # A misspelt or unsupported filter must not answer every row as if it had filtered.
        obj = self.factory()
        for url in (self.list_url(), self.detail_url(obj.pk)):
            response = reader.get(url, {"campuss": "1", "rack__campus": "1"})
            assert response.status_code == 400, (url, response.data)
            assert set(response.data) == {"campuss", "rack__campus"}
            message = response.data["campuss"][0]
            assert message.startswith("Unknown query parameter; this endpoint takes:")
            assert "brief" in message
        listed = reader.get(self.list_url(), {"page_size": "3"})
        assert listed.status_code == 400
        assert "limit" in listed.data["page_size"][0] and "ordering" in listed.data["page_size"][0]

    def test_every_parameter_the_list_names_is_accepted(self, reader):
        # The parameters an unknown one's answer lists are the list's: format, brief, paging, search,
        # ordering and every filter of the filter set.
        response = reader.get(self.list_url(), {"nosuchparameter": "1"})
        listed = response.data["nosuchparameter"][0].split(": ", 1)[1].rstrip(".").split(", ")
        assert {"format", "brief", "limit", "offset", "ordering", "search", *self.filter_params} <= set(
            listed
        )
        params = {
            "format": "json",
            "brief": "1",
            "limit": "5",
            "offset": "0",
            "ordering": "-id",
            "search": "x",
        }
        assert reader.get(self.list_url(), params).status_code == 200

    def test_bad_paging_and_ordering_are_400_naming_the_parameter(self, reader):
        self.factory()
        for params, name in (
            ({"limit": "-1"}, "limit"),
            ({"limit": "0"}, "limit"),
            ({"limit": "ten"}, "limit"),
            ({"offset": "-5"}, "offset"),
            ({"offset": "1.5"}, "offset"),
            ({"ordering": "nosuchfield"}, "ordering"),
            ({"ordering": "id,-nosuchfield"}, "ordering"),
        ):
            response = reader.get(self.list_url(), params)
            assert response.status_code == 400, (params, response.data)
            assert list(response.data) == [name], params
        assert "nosuchfield" in response.data["ordering"][0]
        # Beyond the caps is still answered: the page size is capped, an offset past the rows is an empty page.
        capped = reader.get(self.list_url(), {"limit": "9" * 40, "offset": "9" * 5000, "ordering": "-id"})
        assert capped.status_code == 200, capped.data
        assert capped.data["results"] == []

    # ---------------------------------------------------------------- roles

    def test_anonymous_is_401_on_read_and_write(self, anon_client):
        assert anon_client.get(self.list_url()).status_code == 401
        response = anon_client.post(self.list_url(), {}, format="json")
        assert response.status_code == 401
        assert "WWW-Authenticate" in response.headers

    def test_read_only_role_is_403_on_writes(self, below_writer, db):
        if self.write_role == self.read_role:
            pytest.skip("readers may write")
        obj = self.factory()
        data = _value(self.create_data, self)[0]
        assert below_writer.post(self.list_url(), data, format="json").status_code == 403
        assert below_writer.patch(self.detail_url(obj.pk), {}, format="json").status_code == 403
        assert below_writer.delete(self.detail_url(obj.pk)).status_code == 403
        assert self.model.objects.filter(pk=obj.pk).exists()

    # ---------------------------------------------------------------- writes

    def test_create_object_stores_what_was_sent(self, writer):
        data = _value(self.create_data, self)[0]
        before = self.model.objects.count()
        response = writer.post(self.list_url(), data, format="json")
        assert response.status_code == 201, response.data
        assert self.model.objects.count() == before + 1
        self._assert_matches(data, response.data)
        stored = writer.get(self.detail_url(response.data["id"])).data
        self._assert_matches(data, stored)

    def test_bulk_create_creates_every_object(self, writer):
        data = _value(self.create_data, self)
        before = self.model.objects.count()
        response = writer.post(self.list_url(), data, format="json")
        assert response.status_code == 201, response.data
        assert len(response.data) == len(data)
        assert self.model.objects.count() == before + len(data)

    def test_invalid_data_is_400_naming_the_field(self, writer):
        bad = _value(self.bad_data, self)
        data = {**_value(self.create_data, self)[0], **bad}
        response = writer.post(self.list_url(), data, format="json")
        assert response.status_code == 400, response.data
        assert set(bad) & set(response.data), response.data

    def test_bulk_create_error_names_index_and_field_and_creates_nothing(self, writer):
        bad = _value(self.bad_data, self)
        data = _value(self.create_data, self)
        data[1] = {**data[1], **bad}
        before = self.model.objects.count()
        response = writer.post(self.list_url(), data, format="json")
        assert response.status_code == 400, response.data
        assert "1" in response.data and set(bad) & set(response.data["1"]), response.data
        assert self.model.objects.count() == before

    def test_update_object_changes_the_fields(self, writer):
        obj = self.factory()
        data = _value(self.update_data, self)
        response = writer.patch(self.detail_url(obj.pk), data, format="json")
        assert response.status_code == 200, response.data
        self._assert_matches(data, response.data)
        self._assert_matches(data, writer.get(self.detail_url(obj.pk)).data)

    def test_bulk_update_changes_every_object(self, writer):
        objects = self.factory.create_batch(3)
        data = _value(self.bulk_update_data, self)
        payload = [{"id": o.pk, **data} for o in objects]
        response = writer.patch(self.list_url(), payload, format="json")
        assert response.status_code == 200, response.data
        for o in objects:
            self._assert_matches(data, writer.get(self.detail_url(o.pk)).data)

    def test_bulk_update_unknown_id_is_400_at_its_index(self, writer):
        obj = self.factory()
        data = _value(self.bulk_update_data, self)
        payload = [{"id": obj.pk, **data}, {"id": 2**40, **data}]
        response = writer.patch(self.list_url(), payload, format="json")
        assert response.status_code == 400
        assert "id" in response.data["1"]

    def test_delete_object_removes_it(self, writer):
        obj = self.factory()
        response = writer.delete(self.detail_url(obj.pk))
        assert response.status_code == 204
        assert not self.model.objects.filter(pk=obj.pk).exists()

    def test_bulk_delete_removes_every_object(self, writer):
        objects = self.factory.create_batch(3)
        response = writer.delete(self.list_url(), [{"id": o.pk} for o in objects], format="json")
        assert response.status_code == 204, getattr(response, "data", None)
        assert not self.model.objects.filter(pk__in=[o.pk for o in objects]).exists()

    # ---------------------------------------------------------------- history

    def test_history_records_create_and_change_with_user(self, writer):
        if not self.has_history:
            pytest.skip("model keeps no history")
        created = writer.post(self.list_url(), _value(self.create_data, self)[0], format="json")
        assert created.status_code == 201, created.data
        pk = created.data["id"]
        data = _value(self.update_data, self)
        assert writer.patch(self.detail_url(pk), data, format="json").status_code == 200
        response = writer.get(reverse(f"{self.basename}-history", kwargs={"pk": pk}))
        assert response.status_code == 200, response.data
        entries = response.data["results"]
        assert [e["type"] for e in entries] == ["~", "+"]
        assert entries[0]["user"]["username"] == "writer"
        changed = {c["field"] for c in entries[0]["changes"]}
        assert set(data) <= changed
