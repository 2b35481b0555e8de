"""End to end with a real Prometheus (Debian's ``prometheus`` package) scraping the emulator the project ships:
a PDU whose meter reads 30 % over its model is found as a deviation and an alarm, the racks are not; a source
that goes down mid-way loses and duplicates nothing."""

import json
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests
from django.utils import timezone

from campus import prometheus_sync
from campus.models import MeasurementRollup, PrometheusSource
from tests import factories as f
from tests.live.sites import cooled_rack, rack_on_pdu, url

PROMETHEUS = shutil.which("prometheus") or "/usr/bin/prometheus"
pytestmark = [
    pytest.mark.e2e,
    pytest.mark.django_db,
    pytest.mark.usefixtures("fresh_analytics"),
    pytest.mark.skipif(
        not Path(PROMETHEUS).exists(),
        reason="Prometheus is not installed (apt-get install -y prometheus; .ci/run installs it)",
    ),
]
ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(check, seconds: float = 30.0):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            if check():
                return
        except requests.RequestException:
            pass
        time.sleep(0.3)
    raise AssertionError("timed out")


def start_prometheus(tmp_path: Path, port: int, target_port: int) -> subprocess.Popen:
    config = tmp_path / "prometheus.yml"
    config.write_text(
        "global: {scrape_interval: 1s, evaluation_interval: 1s}\n"
        f"scrape_configs: [{{job_name: emulator, static_configs: [{{targets: ['127.0.0.1:{target_port}']}}]}}]\n"
    )
    proc = subprocess.Popen(
        [
            PROMETHEUS,
            f"--config.file={config}",
            f"--storage.tsdb.path={tmp_path / 'tsdb'}",
            f"--web.listen-address=127.0.0.1:{port}",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    wait_for(lambda: requests.get(f"http://127.0.0.1:{port}/-/ready", timeout=2).status_code == 200)
    return proc


def stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@pytest.fixture
def emulated(tmp_path, settings):
    """Starts the emulator on a profile and a Prometheus scraping it every second."""
    started = []

    def start(profile: dict):
        procs = serve(tmp_path, settings, profile)
        started.append(procs)
        return procs

    yield start
    for procs in started:
        for p in procs.values():
            if isinstance(p, subprocess.Popen):
                stop(p)


@pytest.fixture
def live(emulated):
    campus, _, _ = rack_on_pdu()
    procs = emulated(
        {
            "campus": "Live",
            "objects": [
                {"kind": "rack", "name": "R1", "nominal_kw": 40.0},
                {"kind": "pdu", "name": "PDU-1", "nominal_kw": 40.0},
            ],
            "noise": 0.01,
            "offsets": {"pdu:PDU-1": 0.3},
        }
    )
    return campus, procs, procs["restart"]


def serve(tmp_path, settings, profile_body: dict) -> dict:
    profile = tmp_path / "profile.json"
    profile.write_text(json.dumps(profile_body))
    emulator_port, prom_port = free_port(), free_port()
    emulator = subprocess.Popen(
        [sys.executable, "-m", "campus.emulator", "--profile", str(profile), "--port", str(emulator_port)],
        cwd=ROOT,
    )
    wait_for(lambda: requests.get(f"http://127.0.0.1:{emulator_port}/metrics", timeout=2).ok)
    prom = start_prometheus(tmp_path, prom_port, emulator_port)
    settings.TWIN_PROMETHEUS_URL = f"http://127.0.0.1:{prom_port}"
    settings.TWIN_PROMETHEUS_STEP_S = 1
    settings.TWIN_PROMETHEUS_BACKFILL_HOURS = 0.05
    procs = {"prometheus": prom, "emulator": emulator}

    def restart():
        procs["prometheus"] = start_prometheus(tmp_path, prom_port, emulator_port)
        return procs["prometheus"]

    procs["restart"] = restart
    return procs


MAPPING = [
    {
        "query": 'sum by (rack) (dcgm_power_usage_watts{campus="Live"})',
        "object_kind": "rack",
        "name_label": "rack",
        "metric": "power_w",
    },
    {
        "query": 'device_power_watts{campus="Live", kind="pdu"}',
        "object_kind": "pdu",
        "name_label": "device",
        "metric": "power_w",
    },
]


def rollups(campus, values=False):
    fields = ["object_name", "bucket_start", "samples"] + (["mean", "max"] if values else [])
    return sorted(MeasurementRollup.objects.filter(campus=campus, resolution="5m").values_list(*fields))


def test_a_pdu_reading_30_percent_high_is_found_and_a_source_down_loses_and_duplicates_nothing(
    live, planner_client, viewer_client
):
    campus, procs, restart = live
    r = planner_client.put(url("prometheus", campus), {"mapping": MAPPING}, format="json")
    assert r.status_code == 200, r.content
    assert "127.0.0.1" in r.json()["url"]
    bad = planner_client.put(
        url("prometheus", campus), {"mapping": [{**MAPPING[0], "metric": "amps"}]}, format="json"
    )
    assert bad.status_code == 400 and bad.json()["entry"] == 0 and bad.json()["field"] == "metric"

    wait_for(lambda: scrapes(procs) >= 12)
    sync = planner_client.post(url("prometheus-sync", campus)).json()
    assert sync["status"] == "ok", sync
    assert sync["buckets"] >= 2 and not sync["unknown_objects"]

    body = viewer_client.get(url("measured", campus)).json()
    by = {(o["object_kind"], o["object_name"]): o for o in body["objects"]}
    pdu, rack = by[("pdu", "PDU-1")], by[("rack", "R1")]
    assert pdu["deviation"] == pytest.approx(0.3, abs=0.05) and pdu["alarm"] == "over"
    assert rack["deviation"] == pytest.approx(0.0, abs=0.05) and rack["alarm"] is None

    # the source goes down: the sync reports it, keeps where it was, writes nothing
    before = rollups(campus)
    until = PrometheusSource.objects.get(campus=campus).synced_until
    stop(procs["prometheus"])
    down = planner_client.post(url("prometheus-sync", campus)).json()
    assert down["status"] == "error" and "ConnectionError" in down["error"]
    assert rollups(campus) == before
    assert PrometheusSource.objects.get(campus=campus).synced_until == until
    assert viewer_client.get(url("prometheus", campus)).json()["last_error"]

    # back up: it resumes; reading the same window again replaces its buckets instead of adding to them
    restart()
    time.sleep(2)
    assert planner_client.post(url("prometheus-sync", campus)).json()["status"] == "ok"
    source = PrometheusSource.objects.get(campus=campus)
    now = source.synced_until + (timezone.now() - source.synced_until) / 2
    source.synced_until = None
    assert prometheus_sync.sync(source, now=now)["status"] == "ok"
    once = rollups(campus, values=True)
    source.synced_until = None
    assert prometheus_sync.sync(source, now=now)["status"] == "ok"
    assert rollups(campus, values=True) == once
    # a bucket holds at most one sample per step (1 s) of what it covers
    assert all(samples <= 300 for _, _, samples, *_ in once)


def scrapes(procs, metric: str = 'device_power_watts{campus="Live"}') -> float:
    """Samples Prometheus holds of ``metric`` over the last minute, all series together."""
    answer = requests.get(
        procs["prometheus"].args[3].replace("--web.listen-address=", "http://") + "/api/v1/query",
        params={"query": f"sum(count_over_time({metric}[1m]))"},
        timeout=2,
    ).json()["data"]["result"]
    return float(answer[0]["value"][1]) if answer else 0.0


def test_calibration_recovers_the_emulators_hidden_gpu_fraction_and_overhead_scale(emulated, viewer_client):
    """Eight racks of 1 to 4 servers of one make (8 × 700 W GPUs, 4,600 W overhead) and 0 to 2 of another (4 ×
    700 W GPUs, 3,000 W overhead), drawn by the emulator with a hidden GPU fraction of 0.78 and overhead scale
    of 1.08 and 2 % noise per scrape: the fit from what Prometheus holds gives both back within three
    standard errors."""
    campus = f.CampusFactory(name="Cal", other_it_fraction=0.0)
    hall = f.DataHallFactory(building=f.BuildingFactory(campus=campus))
    big, small = f.NodeModelFactory(), f.NodeModelFactory(gpus_per_node=4, overhead_w=3000.0, rack_units=4)
    objects = []
    for i in range(8):
        servers, others = 1 + i % 4, i % 3
        rack = f.RackFactory(hall=hall, name=f"C{i}", extra_it_kw=0.0, design_kw=60.0)
        for model, count in ((big, servers), (small, others)):
            for _ in range(count):
                f.NodeFactory(rack=rack, node_model=model)
        objects.append(
            {
                "kind": "rack",
                "name": f"C{i}",
                "gpu_kw": 5.6 * servers + 2.8 * others,
                "other_kw": 4.6 * servers + 3.0 * others,
            }
        )
    procs = emulated(
        {"campus": "Cal", "objects": objects, "gpu_fraction": 0.78, "overhead_scale": 1.08, "noise": 0.02}
    )
    source = PrometheusSource.objects.create(
        campus=campus,
        mapping=[{**MAPPING[0], "query": 'sum by (rack) (dcgm_power_usage_watts{campus="Cal"})'}],
    )
    wait_for(lambda: scrapes(procs, "dcgm_power_usage_watts") >= 12 * 32)
    assert prometheus_sync.sync(source)["status"] == "ok"
    c = viewer_client.get(url("calibration", campus)).json()
    assert c["racks"] == 8 and c["fitted"] == ["gpu_power_fraction", "overhead_scale"]
    assert abs(c["gpu_power_fraction"] - 0.78) < 3 * c["gpu_power_fraction_se"]
    assert abs(c["overhead_scale"] - 1.08) < 3 * c["overhead_scale_se"]
    assert c["rms_residual_after_kw"] < c["rms_residual_before_kw"]


def test_the_mapping_templates_read_every_metric_beyond_power(emulated, planner_client, viewer_client):
    """A UPS of efficiency 0.95 with both meters, a CDU of 100 kW at 143.54 L/min (a 10.0 K rise: 40 °C back
    against the modelled 45 °C), an air-cooled chiller plant, the campus meter and the weather, all served by
    the emulator and read through the templates ``GET /prometheus/`` offers: every series is known, and
    ``/measured/`` sets each against the model."""
    campus, _ = cooled_rack("Beyond", plant_cop=4.0, ups_efficiency=0.95)
    procs = emulated(
        {
            "campus": "Beyond",
            "objects": [
                {"kind": "rack", "name": "R1", "nominal_kw": 100.0},
                {"kind": "ups", "name": "UPS-1", "nominal_kw": 100.0, "efficiency": 0.95},
                {"kind": "cdu", "name": "CDU-1", "heat_kw": 100.0, "supply_c": 30.0, "flow_lpm": 143.54},
                {"kind": "air-chiller", "name": "AC-1", "heat_kw": 100.0, "fixed_kw": 12.0, "eir_ref": 0.22},
            ],
            "noise": 0.01,
        }
    )
    templates = viewer_client.get(url("prometheus", campus)).json()["templates"]
    assert (
        planner_client.put(url("prometheus", campus), {"mapping": templates}, format="json").status_code
        == 200
    )
    wait_for(lambda: scrapes(procs, 'cooling_unit_flow_litres_per_minute{campus="Beyond"}') >= 12)
    sync = planner_client.post(url("prometheus-sync", campus)).json()
    assert sync["status"] == "ok" and not sync["unknown_objects"] and not sync["unmatched_series"], sync
    rows = {
        (o["object_kind"], o["object_name"], o["metric"]): o
        for o in viewer_client.get(url("measured", campus)).json()["objects"]
    }
    for key in (
        ("ups", "UPS-1", "power_out_kw"),
        ("cdu", "CDU-1", "heat_kw"),
        ("cdu", "CDU-1", "flow_lpm"),
        ("air-chiller", "AC-1", "heat_kw"),
        ("air-chiller", "AC-1", "power_kw"),
        ("campus", "Beyond", "power_kw"),
        ("campus", "Beyond", "pue"),
        ("campus", "Beyond", "dry_bulb_c"),
    ):
        assert key in rows, key
    assert rows[("cdu", "CDU-1", "return_temp_c")]["deviation"] == pytest.approx(-5.0, abs=0.3)
    assert rows[("cdu", "CDU-1", "supply_temp_c")]["alarm"] is None
    # the UPS's input at its measured output over the inventory's (true) efficiency: no deviation
    ups_in = rows[("ups", "UPS-1", "power_kw")]
    assert ups_in["basis"] == "paired" and ups_in["deviation"] == pytest.approx(0.0, abs=0.02)
    # 12 kW + 100 kW × 0.22 at the emulated outdoor temperature (no slope): 34 kW
    assert rows[("air-chiller", "AC-1", "power_kw")]["measured_mean"] == pytest.approx(34.0, rel=0.03)
