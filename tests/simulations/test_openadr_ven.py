"""The campus as an OpenADR 2.0b VEN against a real VTN (openleadr's server, started by the test in its own
process): it registers, receives two events, evaluates each through grid_limit on the campus's inventory,
and opts in to the one it can hold and out of the one it cannot; the answers reach the VTN and are stored
and listed."""

from __future__ import annotations

import asyncio
import copy
import json
import socket
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from django.urls import reverse

from campus.interchange.importer import import_campus
from simulations.models import DemandResponseEvent
from simulations.openadr.ven import CampusVen
from tests.interchange.conftest import SMALL_SPEC

VTN = Path(__file__).with_name("openadr_vtn.py")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_for(port: int, seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    raise TimeoutError(f"the VTN did not listen on {port}")


def _answers(out: Path) -> dict[str, str]:
    if not out.exists():
        return {}
    return {a["event_id"]: a["opt"] for a in map(json.loads, out.read_text().splitlines())}


@pytest.mark.django_db(transaction=True)
def test_the_ven_answers_a_real_vtn_with_the_scenario_engines_verdict(tmp_path, viewer_client):
    campus = import_campus(copy.deepcopy(SMALL_SPEC))
    port, out = _free_port(), tmp_path / "answers.jsonl"
    vtn = subprocess.Popen(
        [sys.executable, str(VTN), "--port", str(port), "--out", str(out)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        _wait_for(port)
        url = f"http://127.0.0.1:{port}/OpenADR2/Simple/2.0b"

        async def main() -> None:
            ven = CampusVen(campus.pk, url, "campus-twin")
            await ven.run()
            deadline = time.monotonic() + 90
            while len(_answers(out)) < 2 and time.monotonic() < deadline:
                await asyncio.sleep(0.5)
            await ven.stop()

        # a loop of its own in a thread of its own: in the whole suite, the browser tests' Playwright keeps an
        # event loop running in this thread, where asyncio.run refuses to start another
        with ThreadPoolExecutor(max_workers=1) as pool:
            pool.submit(asyncio.run, main()).result()
    finally:
        vtn.terminate()
        vtn.wait(timeout=10)

    assert _answers(out) == {"ev-simple": "optIn", "ev-zero": "optOut"}
    rows = {r.event_id: r for r in DemandResponseEvent.objects.filter(campus=campus)}
    simple, zero = rows["ev-simple"], rows["ev-zero"]
    assert simple.ven_id == "ven-campus" and simple.opt == "optIn"
    assert simple.params["events"][0]["share_of_load"] == pytest.approx(0.10)
    assert simple.impact["can_commit"] == 1.0 and simple.impact["event_shed_mwh"] > 0
    assert 35 < simple.notice_minutes <= 40
    assert zero.opt == "optOut" and zero.impact["event_over_mwh"] > 0
    assert "above the level" in zero.reason
    listed = viewer_client.get(reverse("demandresponseevent-list"), {"campus": campus.pk}).json()
    assert {r["event_id"]: r["opt"] for r in listed["results"]} == {"ev-simple": "optIn", "ev-zero": "optOut"}
