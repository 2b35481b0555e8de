"""The spec checks run on plain dicts with no database: a hand-made catalog index is all they need."""

import copy
import subprocess
import sys
from pathlib import Path

from campus.interchange.validation import CatalogIndex, check_spec

from .conftest import SMALL_SPEC

# Slugs the small spec uses; ids are arbitrary, reach from the catalog (SR multimode: 50 m).
CATALOG = CatalogIndex(
    node_models={"hgx-h100-8": (1, 8)},
    switch_models={"quantum-2-qm9700": 1},
    media={"sr": (1, 50.0)},
)


def test_a_valid_spec_has_no_errors_without_a_database():
    assert check_spec(copy.deepcopy(SMALL_SPEC), lambda: CATALOG) == []


def test_every_error_is_listed_with_its_path():
    spec = copy.deepcopy(SMALL_SPEC)
    spec["power_feeds"].append({"from": "PDU-A", "to": "SUB-A", "rating_kw": 10.0})
    spec["links"][0]["length_m"] = 60.0
    spec["cooling_units"][0]["plant"] = "NOPE"
    errors = check_spec(spec, lambda: CATALOG, campus_exists=lambda name: name == "Small")
    assert sorted(e["path"] for e in errors) == [
        "campus.name",
        "cooling_units[0].plant",
        "links[0].length_m",
        "power_feeds[4].to",
    ]


def test_the_catalog_is_not_read_for_a_spec_of_the_wrong_shape():
    def no_catalog():
        raise AssertionError("catalog read")

    assert check_spec({"spec_version": 1}, no_catalog)[0]["path"] == "campus"


def test_the_module_imports_no_model():
    code = (
        "import sys, campus.interchange.validation\n"
        "bad = [m for m in sys.modules if m.startswith(('campus.models', 'django.contrib'))]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).resolve().parents[2])


def test_price_overrides_name_a_catalog_row_and_a_price_in_range():
    spec = copy.deepcopy(SMALL_SPEC)
    spec["campus"]["price_overrides"] = {"switch/quantum-2-qm9700": 30_000, "optic/sr-400g": 500.5}
    assert check_spec(spec, lambda: CATALOG) == []
    spec["campus"]["price_overrides"] = {"switch/no-such-switch": 1.0}
    assert [e["path"] for e in check_spec(spec, lambda: CATALOG)] == ["campus.price_overrides"]
    spec["campus"]["price_overrides"] = {"switch/quantum-2-qm9700": -1}
    assert [e["path"] for e in check_spec(spec, lambda: CATALOG)][0].startswith("campus.price_overrides")
