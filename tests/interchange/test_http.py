"""POST /api/campuses/import/, GET /api/campuses/{id}/export/, POST /api/campuses/generate/."""

import json

import pytest
import yaml
from rest_framework.renderers import JSONRenderer

from campus.api import spec_views
from campus.api.spec_views import YAMLRenderer, _api_json
from campus.interchange.catalog import db_catalog
from campus.interchange.exporter import export_campus
from campus.interchange.formats import dump_spec, dump_spec_chunks, encode_chunks, parse_spec
from campus.interchange.generate import generate
from campus.interchange.importer import import_campus
from campus.models import Campus, Rack

from .conftest import inventory_counts

IMPORT_URL = "/api/campuses/import/"
GENERATE_URL = "/api/campuses/generate/"


def export_url(pk: int) -> str:
    return f"/api/campuses/{pk}/export/"


def post_spec(client, spec, content_type="application/x-yaml", fmt="yaml", url=IMPORT_URL):
    return client.generic("POST", url, dump_spec(spec, fmt).encode(), content_type=content_type)


@pytest.mark.parametrize(
    ("content_type", "fmt"),
    [
        ("application/x-yaml", "yaml"),
        ("application/yaml", "yaml"),
        ("text/yaml", "yaml"),
        ("application/json", "json"),
    ],
)
def test_planner_imports_yaml_or_json(planner_client, small_spec, content_type, fmt):
    response = post_spec(planner_client, small_spec, content_type, fmt)
    assert response.status_code == 201, response.content
    body = response.json()
    campus = Campus.objects.get(pk=body["id"])
    assert body["name"] == campus.name == "Small"
    assert body["counts"]["racks"] == 2 == Rack.objects.filter(campus=campus).count()
    assert body["counts"]["gpus"] == 64


def test_invalid_spec_gives_400_with_every_path_and_writes_nothing(planner_client, small_spec):
    small_spec["buildings"][0]["halls"][0]["rows"][0]["racks"][0]["feed_a"] = "PDU-9"
    small_spec["links"][2]["medium"] = "dac"
    before = inventory_counts()
    response = post_spec(planner_client, small_spec)
    assert response.status_code == 400
    assert response.json() == {
        "errors": [
            {
                "path": "buildings[0].halls[0].rows[0].racks[0].feed_a",
                "message": 'unknown power device "PDU-9"',
            },
            {"path": "links[2].length_m", "message": '15.0 m exceeds the reach of "dac" (3.0 m)'},
        ]
    }
    assert inventory_counts() == before


def test_malformed_yaml_gives_400_with_the_line(planner_client):
    response = planner_client.generic(
        "POST", IMPORT_URL, b"campus: [unclosed\n", content_type="application/x-yaml"
    )
    assert response.status_code == 400
    (error,) = response.json()["errors"]
    assert error["path"] == "$"
    assert "line" in error["message"]


@pytest.mark.parametrize("content_type", ["application/json", "application/x-yaml"])
def test_body_that_is_not_utf8_gives_400(planner_client, content_type):
    response = planner_client.generic(
        "POST", IMPORT_URL, b'{"campus": "\xff\xfe"}', content_type=content_type
    )
    assert response.status_code == 400
    assert response.json()["errors"][0]["path"] == "$"


def test_deeply_nested_json_gives_400(planner_client):
    body = b'{"campus": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    response = planner_client.generic("POST", IMPORT_URL, body, content_type="application/json")
    assert response.status_code == 400
    assert response.json()["errors"][0]["path"] == "$"


def test_body_over_the_limit_gives_413_and_writes_nothing(planner_client, small_spec, settings):
    # YAML is parsed whole: over TWIN_YAML_SPEC_MAX_BYTES it is refused (a larger one inline would be a job).
    body = dump_spec(small_spec, "yaml").encode()
    settings.TWIN_SPEC_MAX_BYTES = settings.TWIN_YAML_SPEC_MAX_BYTES = len(body) - 1
    before = inventory_counts()
    response = planner_client.generic("POST", IMPORT_URL, body, content_type="application/x-yaml")
    assert response.status_code == 413
    assert inventory_counts() == before
    settings.TWIN_SPEC_MAX_BYTES = settings.TWIN_YAML_SPEC_MAX_BYTES = len(body)
    assert (
        planner_client.generic("POST", IMPORT_URL, body, content_type="application/x-yaml").status_code == 201
    )


def test_unsupported_content_type_gives_415(planner_client, small_spec):
    response = planner_client.generic("POST", IMPORT_URL, b"<campus/>", content_type="application/xml")
    assert response.status_code == 415


def test_replace_query_parameter_replaces_an_existing_campus(planner_client, small_spec):
    first = post_spec(planner_client, small_spec).json()["id"]
    assert post_spec(planner_client, small_spec).status_code == 400
    small_spec["campus"]["grid_capacity_mw"] = 5.0
    response = post_spec(planner_client, small_spec, url=IMPORT_URL + "?replace=true")
    assert response.status_code == 201
    assert response.json()["id"] == first
    assert Campus.objects.get(pk=first).grid_capacity_mw == 5.0


def test_anonymous_gets_401_and_viewer_gets_403_on_import(anon_client, viewer_client, small_spec):
    assert post_spec(anon_client, small_spec).status_code == 401
    assert post_spec(viewer_client, small_spec).status_code == 403
    assert post_spec(viewer_client, small_spec, url=GENERATE_URL).status_code == 403
    assert Campus.objects.count() == 0


def body(response) -> bytes:
    """The body of a streamed response, read to its end."""
    assert response.streaming
    return b"".join(response.streaming_content)


def test_export_is_yaml_by_default_and_json_on_request(viewer_client, small_spec):
    campus = import_campus(small_spec)
    expected = export_campus(campus)
    response = viewer_client.get(export_url(campus.pk))
    assert response.status_code == 200
    assert response["Content-Type"] == "application/x-yaml; charset=utf-8"
    assert response["Content-Disposition"] == f'inline; filename="campus-{campus.pk}.yaml"'
    assert yaml.safe_load(body(response)) == expected
    for query, headers in (("?format=json", {}), ("", {"HTTP_ACCEPT": "application/json"})):
        response = viewer_client.get(export_url(campus.pk) + query, **headers)
        assert response.status_code == 200
        assert response["Content-Type"] == "application/json"
        assert response["Content-Disposition"] == f'inline; filename="campus-{campus.pk}.json"'
        assert json.loads(body(response)) == expected


def _generated(name: str, **options) -> Campus:
    return import_campus(generate(catalog=db_catalog(), name=name, **options).spec)


@pytest.mark.django_db
def test_the_streamed_export_is_byte_for_byte_the_whole_rendering_and_imports_back(planner_client, settings):
    settings.TWIN_JOB_THRESHOLD_GPUS = 1 << 20
    campuses = [
        _generated("Stream – H100", gpus=2048, bess_mw_per_building=2.0),
        _generated(
            "Stream – mix",
            mix=[{"gpu_model": "h100-sxm", "gpus": 512}, {"gpu_model": "gb200", "gpus": 288}],
            power_redundancy="2N",
        ),
        _generated("Stream – air", gpus=256, cooling="air"),
    ]
    for campus in campuses:
        spec = export_campus(campus)
        whole = {
            "yaml": YAMLRenderer().render(spec),
            "json": JSONRenderer().render(spec),  # what the view rendered before it streamed
        }
        assert whole["yaml"] == dump_spec(spec, "yaml").encode()
        for batch in (1, 3, 200):  # the pieces join to the same text however the lists are cut
            assert "".join(dump_spec_chunks(spec, batch=batch)) == dump_spec(spec, "yaml")
            assert "".join(encode_chunks(spec, _api_json, batch=batch)).encode() == whole["json"]
        for fmt in ("yaml", "json"):
            response = planner_client.get(export_url(campus.pk) + f"?format={fmt}")
            text = body(response)
            assert text == whole[fmt], fmt
            copy_name = f"{campus.name} ({fmt})"
            document = parse_spec(text, fmt)
            document["campus"]["name"] = copy_name
            content_type = "application/json" if fmt == "json" else "application/x-yaml"
            back = planner_client.generic(
                "POST", IMPORT_URL, dump_spec(document, fmt), content_type=content_type
            )
            assert back.status_code == 201, back.content
            again = export_campus(Campus.objects.get(name=copy_name))
            again["campus"]["name"] = campus.name
            assert again == spec


def test_the_export_streams_in_pieces_of_bounded_size(planner_client, settings, monkeypatch):
    campus = _generated("Stream – pieces", gpus=4096)
    monkeypatch.setattr(spec_views, "STREAM_CHUNK", 4096)
    pieces = list(planner_client.get(export_url(campus.pk)).streaming_content)
    assert b"".join(pieces) == dump_spec(export_campus(campus), "yaml").encode()
    # sent as soon as STREAM_CHUNK bytes are ready: many pieces, none holding most of the text
    assert pieces[0] == b""  # the headers leave before the campus is read
    assert len(pieces) > 5 and all(len(p) >= 4096 for p in pieces[1:-1])
    assert max(map(len, pieces)) < len(b"".join(pieces)) / 2


def test_exported_yaml_imports_back(planner_client, small_spec):
    campus = import_campus(small_spec)
    text = body(planner_client.get(export_url(campus.pk)))
    campus.delete()
    response = planner_client.generic("POST", IMPORT_URL, text, content_type="application/x-yaml")
    assert response.status_code == 201
    assert export_campus(Campus.objects.get(pk=response.json()["id"])) == yaml.safe_load(text)


def test_export_needs_a_role_and_an_existing_campus(anon_client, viewer_client, small_spec):
    campus = import_campus(small_spec)
    assert anon_client.get(export_url(campus.pk)).status_code == 401
    assert viewer_client.get(export_url(campus.pk + 1000)).status_code == 404


def test_generate_creates_a_campus(planner_client):
    response = planner_client.post(
        GENERATE_URL,
        {
            "name": "Generated",
            "mix": [{"gpu_model": "h100-sxm", "gpus": 512}, {"gpu_model": "gb200", "gpus": 144}],
        },
        format="json",
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["counts"]["gpus"] == 656
    campus = Campus.objects.get(pk=body["id"])
    assert campus.name == "Generated"
    assert Rack.objects.filter(campus=campus).count() == body["counts"]["racks"]


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"name": "X", "gpus": 1024, "fabric": "token-ring"}, "fabric"),
        ({"name": "X", "gpus": 0}, "gpus"),
        ({"name": "X"}, "gpus"),
        ({"name": "X", "gpus": 1001}, "gpus"),
        ({"name": "X", "gpus": 1024, "gpu_model": "tpu-v5"}, "gpu_model"),
        ({"name": "X", "gpus": 1024, "gpu_model": "gb200", "cooling": "air"}, "cooling"),
        ({"name": "X", "gpus": 1024, "pue": 5}, "pue"),
        ({"name": "X", "mix": [{"gpu_model": "h100-sxm", "gpus": -8}]}, "mix"),
        ({"gpus": 1024}, "name"),
        # a parameter the generator does not take is refused, not ignored
        ({"name": "X", "gpus": 1024, "racks_per_hall": 8}, "racks_per_hall"),
        ({"name": "X", "mix": [{"gpu_model": "h100-sxm", "gpus": 1024, "nics": 8}]}, "mix"),
        # fabrics per vendor
        ({"name": "X", "gpus": 1024, "gpu_model": "ascend-910b", "fabric": "infiniband-ndr"}, "fabric"),
        ({"name": "X", "gpus": 1024, "gpu_model": "mi300x", "fabric": "spectrum-x"}, "fabric"),
        # redundancy options
        ({"name": "X", "gpus": 1024, "power_redundancy": "3N"}, "power_redundancy"),
        ({"name": "X", "gpus": 1024, "power_redundancy": "n+1"}, "power_redundancy"),
        ({"name": "X", "gpus": 1024, "cooling_redundancy": "N+2"}, "cooling_redundancy"),
        # IT limits a compute island (8,192 H100: 10.4 MW of servers) or one rack cannot be held within
        ({"name": "X", "gpus": 16384, "building_max_it_mw": 8, "hall_max_it_mw": 4}, "building_max_it_mw"),
        ({"name": "X", "gpus": 1024, "hall_max_it_mw": 0.03}, "hall_max_it_mw"),
        # island size and planning margin
        ({"name": "X", "gpus": 1024, "island_gpus": 4}, "island_gpus"),
        ({"name": "X", "gpus": 1024, "island_gpus": 70_000}, "island_gpus"),
        ({"name": "X", "gpus": 1024, "island_gpus": "many"}, "island_gpus"),
        ({"name": "X", "gpus": 1024, "island_gpus": 512, "pod_max_gpus": 256}, "island_gpus"),
        ({"name": "X", "gpus": 1024, "planning_margin_pct": -5}, "planning_margin_pct"),
        ({"name": "X", "gpus": 1024, "planning_margin_pct": 150}, "planning_margin_pct"),
        ({"name": "X", "gpus": 1024, "island_spans_buildings": "sometimes"}, "island_spans_buildings"),
    ],
)
def test_generate_bad_field_gives_400_naming_it(planner_client, payload, field):
    before = inventory_counts()
    response = planner_client.post(GENERATE_URL, payload, format="json")
    assert response.status_code == 400
    assert field in response.json()
    assert inventory_counts() == before


def test_generate_takes_the_redundancy_options_and_the_spec_keeps_them(planner_client):
    response = planner_client.post(
        GENERATE_URL,
        {"name": "Tier II", "gpus": 1024, "power_redundancy": "N", "cooling_redundancy": "2N"},
        format="json",
    )
    assert response.status_code == 201, response.content
    campus = Campus.objects.get(pk=response.json()["id"])
    assert (campus.power_redundancy, campus.cooling_redundancy) == ("N", "2N")
    spec = export_campus(campus)
    assert (spec["campus"]["power_redundancy"], spec["campus"]["cooling_redundancy"]) == ("N", "2N")
    # an N chain: every rack on side A alone
    racks = _racks_of(spec)
    assert racks and all("feed_a" in rack and "feed_b" not in rack for rack in racks)
    # the defaults: 2N power, N+1 cooling
    response = planner_client.post(GENERATE_URL, {"name": "Default", "gpus": 1024}, format="json")
    campus = Campus.objects.get(pk=response.json()["id"])
    assert (campus.power_redundancy, campus.cooling_redundancy) == ("2N", "N+1")


def _racks_of(spec: dict) -> list[dict]:
    out = list(spec.get("racks", []))
    for b in spec["buildings"]:
        for h in b.get("halls", []):
            out += h.get("racks", [])
            for row in h.get("rows", []):
                out += row.get("racks", [])
    return out


def test_generate_rounds_gb200_up_to_whole_racks_and_says_so(planner_client):
    response = planner_client.post(
        GENERATE_URL, {"name": "NVL", "gpus": 1000, "gpu_model": "gb200"}, format="json"
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["counts"]["gpus"] == 1008  # 14 racks of 72
    assert body["notes"] == ["gb200: 1,000 GPUs rounded up to 1,008 (14 whole NVL72 racks of 72)"]


def test_generate_refuses_an_existing_name_unless_replace(planner_client):
    payload = {"name": "Twice", "gpus": 256}
    first = planner_client.post(GENERATE_URL, payload, format="json").json()["id"]
    response = planner_client.post(GENERATE_URL, payload, format="json")
    assert response.status_code == 400
    assert "name" in response.json()
    response = planner_client.post(GENERATE_URL, {**payload, "replace": True, "gpus": 512}, format="json")
    assert response.status_code == 201
    assert response.json()["id"] == first
    assert response.json()["counts"]["gpus"] == 512


def test_spec_endpoints_are_in_the_openapi_schema(viewer_client):
    response = viewer_client.get("/api/schema/?format=json")
    assert response.status_code == 200
    paths = json.loads(response.content)["paths"]
    assert "post" in paths["/api/campuses/import/"]
    assert "post" in paths["/api/campuses/generate/"]
    assert "get" in paths["/api/campuses/{id}/export/"]
