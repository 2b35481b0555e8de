"""Property-based run of the whole OpenAPI schema (stateless, with a planner token).

Every operation gets ``SCHEMATHESIS_MAX_EXAMPLES`` generated requests (default 5; set it higher for a longer
run). Each response must not be a 5xx, must use a documented status code and content type, and its body must
conform to the documented schema. Run alone with::

    .venv/bin/pytest -m schemathesis tests/api/test_schemathesis.py

Left out: the Swagger/ReDoc HTML pages (not JSON APIs), and the operations that start heavy work
(spec import/generate, scenario runs), which would make a bounded run of every operation slow; their
validation has its own tests.
"""

from __future__ import annotations

import json
import os

import pytest
import schemathesis
from django.contrib.auth.models import Group
from django.core import signals
from django.core.serializers.json import DjangoJSONEncoder
from django.db import close_old_connections
from drf_spectacular.generators import SchemaGenerator
from hypothesis import HealthCheck, settings
from rest_framework.authtoken.models import Token
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from tests import factories as f
from twin.wsgi import application

MAX_EXAMPLES = int(os.environ.get("SCHEMATHESIS_MAX_EXAMPLES", "5"))
EXCLUDED_PATHS = r"^/api/(docs|redoc|schema)/|/import/|/generate/|/run/$|/spec/"


def _schema():
    raw = SchemaGenerator().get_schema(request=None, public=True)
    raw = json.loads(json.dumps(raw, cls=DjangoJSONEncoder))
    loaded = schemathesis.openapi.from_dict(raw)
    loaded.app = application
    return loaded.exclude(path_regex=EXCLUDED_PATHS)


schema = _schema()


@pytest.fixture
def in_process_requests():
    """Like Django's test client: requests must not close the test's database connection."""
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    yield
    signals.request_started.connect(close_old_connections)
    signals.request_finished.connect(close_old_connections)


@pytest.fixture
def planner_token(db, in_process_requests):
    user = f.UserFactory(username="schemathesis-planner")
    user.groups.add(Group.objects.get_or_create(name="planner")[0])
    # One object of each kind so that list bodies and some detail ids exercise real serializers.
    node = f.NodeFactory()
    f.PowerFeedFactory(rack=node.rack, campus=node.rack.campus)
    f.LinkFactory(campus=node.rack.campus)
    f.CoolingUnitFactory(campus=node.rack.campus)
    f.CoolingPlantFactory(campus=node.rack.campus)
    f.UtilityFeedFactory(campus=node.rack.campus)
    f.PodFactory(campus=node.rack.campus)
    f.FailureRateFactory()
    return Token.objects.create(user=user).key


@pytest.mark.schemathesis
@pytest.mark.django_db
@schema.parametrize()
@settings(
    max_examples=MAX_EXAMPLES,
    deadline=None,
    derandomize=True,
    # The token fixture is read-only across examples; each example is one independent request.
    suppress_health_check=list(HealthCheck),
)
def test_api_conforms_to_its_schema(case, planner_token):
    response = case.call(headers={"Authorization": f"Token {planner_token}"})
    case.validate_response(
        response,
        checks=[
            not_a_server_error,
            status_code_conformance,
            content_type_conformance,
            response_schema_conformance,
        ],
    )
