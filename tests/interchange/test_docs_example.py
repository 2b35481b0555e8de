"""The example in docs/campus-spec.md is a valid spec."""

import re
from pathlib import Path

import pytest

from campus.interchange.formats import parse_spec
from campus.interchange.importer import import_campus
from campus.models import Node

DOC = Path(__file__).resolve().parents[2] / "docs" / "campus-spec.md"


@pytest.mark.django_db
def test_the_documented_example_imports():
    blocks = re.findall(r"```yaml\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)
    (example,) = [b for b in blocks if b.startswith("spec_version") and "racks:" in b and "nodes:" in b]
    campus = import_campus(parse_spec(example))
    assert Node.objects.filter(rack__campus=campus).count() == 4
