"""A test run keeps what it did not make: the OpenAPI file scripts/test.sh writes into test-results/ just before
pytest starts, and the screenshots of the previous run. pytest-playwright empties its ``--output`` folder at
the start of every session, so that folder must be one of its own."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_a_test_run_keeps_the_openapi_file_and_the_previous_screenshots(tmp_path):
    results = tmp_path / "test-results"
    (results / "screenshots").mkdir(parents=True)
    openapi = results / "openapi.yaml"
    openapi.write_text("openapi: 3.0.3\n")
    previous = results / "screenshots" / "previous-run.png"
    previous.write_bytes(b"\x89PNG")
    (tmp_path / "test_probe.py").write_text("def test_probe():\n    assert True\n")
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")},
        "PYTHONPATH": str(ROOT),
        "TWIN_VAR_DIR": str(tmp_path / "var"),
    }
    # The project's own configuration (pyproject.toml) in a folder of its own: relative paths land in tmp_path.
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-c", str(ROOT / "pyproject.toml"), "--rootdir", str(tmp_path)]
        + ["-p", "no:cacheprovider", "-q", "test_probe.py"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert openapi.read_text() == "openapi: 3.0.3\n"
    assert previous.exists()
