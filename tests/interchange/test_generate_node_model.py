"""A ``mix`` entry may name its server model (docs/generator.md: ``[{gpu_model, gpus, node_model?}]``); the
API refused ``node_model`` as an unknown parameter. The server must carry the entry's GPU model, else a 400
naming ``mix[i].node_model``.

Hand figures: an NVIDIA DGX H100 holds 8 H100 SXM GPUs (NVIDIA DGX H100 datasheet), so 64 GPUs are 8
servers; the catalog's first H100 server, picked without ``node_model``, is the HGX H100 8-GPU board."""

import pytest

from campus.interchange.catalog import db_catalog
from campus.interchange.generate import GeneratorError, generate
from campus.models import Campus, Job, Node

from .conftest import inventory_counts

GENERATE_URL = "/api/campuses/generate/"


def test_a_mix_entry_builds_the_server_model_it_names(planner_client):
    body = {"name": "DGX", "mix": [{"gpu_model": "h100-sxm", "gpus": 64, "node_model": "dgx-h100"}]}
    response = planner_client.post(GENERATE_URL, body, format="json")
    assert response.status_code == 201, response.content
    nodes = Node.objects.filter(rack__campus_id=response.json()["id"])
    assert sorted(set(nodes.values_list("node_model__slug", flat=True))) == ["dgx-h100"]
    assert nodes.count() == 8


def test_without_node_model_the_gpu_models_first_server_is_built(planner_client):
    body = {"name": "HGX", "mix": [{"gpu_model": "h100-sxm", "gpus": 64}]}
    response = planner_client.post(GENERATE_URL, body, format="json")
    assert response.status_code == 201, response.content
    nodes = Node.objects.filter(rack__campus_id=response.json()["id"])
    assert set(nodes.values_list("node_model__slug", flat=True)) == {"hgx-h100-8"}


@pytest.mark.parametrize(
    ("mix", "field", "words"),
    [
        (
            [{"gpu_model": "h100-sxm", "gpus": 64, "node_model": "hgx-b200-8"}],
            "mix[0].node_model",
            '"hgx-b200-8" carries b200 GPUs, not h100-sxm; node models of h100-sxm: dgx-h100, dgx-h100-bf3, '
            "hgx-h100-8",
        ),
        (
            [{"gpu_model": "h100-sxm", "gpus": 64, "node_model": "dgx-z9"}],
            "mix[0].node_model",
            'unknown node model "dgx-z9"; node models of h100-sxm: dgx-h100, dgx-h100-bf3, hgx-h100-8',
        ),
        (
            [
                {"gpu_model": "h100-sxm", "gpus": 64},
                {"gpu_model": "b200", "gpus": 64, "node_model": "dgx-h100"},
            ],
            "mix[1].node_model",
            '"dgx-h100" carries h100-sxm GPUs, not b200; node models of b200: hgx-b200-8',
        ),
    ],
)
@pytest.mark.parametrize("background", [False, True])
def test_a_node_model_without_the_entrys_gpu_is_400_naming_it(planner_client, mix, field, words, background):
    before = inventory_counts()
    body = {"name": "Bad", "mix": mix, "background": background}
    response = planner_client.post(GENERATE_URL, body, format="json")
    assert response.status_code == 400, response.content
    assert response.json() == {field: [words]}
    assert inventory_counts() == before
    assert not Campus.objects.filter(name="Bad").exists()
    assert not Job.objects.exists()


@pytest.mark.django_db
def test_the_generator_itself_refuses_a_node_model_without_the_gpu():
    with pytest.raises(GeneratorError) as caught:
        generate(
            name="X",
            mix=[{"gpu_model": "h100-sxm", "gpus": 64, "node_model": "mi300x-8"}],
            catalog=db_catalog(),
        )
    assert caught.value.field == "mix[0].node_model"
    assert caught.value.message.startswith('"mi300x-8" carries mi300x GPUs, not h100-sxm')
