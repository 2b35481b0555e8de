"""A page's keys and the list's count (compiled once per request, twin.api.pagination): the truth is the ORM's own
count and ordered slice of the same filter, at the first, a middle, the last and a past-the-end offset."""

import pytest

from campus.interchange.generate import generate_spec
from campus.interchange.importer import import_campus
from campus.models import Rack


@pytest.mark.django_db
def test_the_count_and_the_keys_are_the_orms_at_every_offset(admin_client_api):
    campus = import_campus(generate_spec("Pages", 512, cooling="liquid"))
    hall = Rack.objects.filter(campus=campus).values_list("hall", flat=True).first()
    cases = [
        (f"campus={campus.pk}", Rack.objects.filter(campus=campus).order_by("campus_id", "name")),
        (f"campus={campus.pk}&hall={hall}&ordering=-name", Rack.objects.filter(hall=hall).order_by("-name")),
    ]
    for query, expected in cases:
        total = expected.count()
        assert total > 6
        ids = list(expected.values_list("pk", flat=True))
        for offset in (0, 3, total - 2, total, total + 5):
            body = admin_client_api.get(f"/api/racks/?{query}&limit=4&offset={offset}&brief=1").json()
            assert body["count"] == total, (query, offset)
            assert [rack["id"] for rack in body["results"]] == ids[offset : offset + 4], (query, offset)
            assert (body["next"] is None) == (offset + 4 >= total)
