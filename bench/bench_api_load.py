"""API load benchmark: ApacheBench (``ab``, C) against gunicorn + PostgreSQL on 127.0.0.1, in one run.

Starts gunicorn itself (``--workers`` x ``--threads``, gthread, keep-alive; unless ``--base-url`` is given),
makes sure the campus exists (``--generate`` builds it with ``manage.py generate_campus``), gets a viewer
token, warms each worker's analytics cache, then measures each endpoint in turn with ``--clients``
keep-alive clients for ``--duration`` seconds, all against the same server in the same run:

  floor       GET /api/no-such-endpoint/            a 404 through Django's URL resolver (no DRF): the floor
  trivial     GET /api/gpu-models/<id>/             a small authenticated DRF detail
  summary     GET /api/campuses/ID/summary/         cached
  floor-map   GET /api/campuses/ID/floor-map/       cached, whole campus
  racks       GET /api/racks/?campus=ID&limit=50&offset=<middle>   a page of 50 racks
  health      GET /api/health/                      liveness probe

and prints requests/s, p50/p99 latency and failures per endpoint with the ratios the targets are stated in
(trivial / floor >= 0.5; summary and floor map / trivial >= 0.8 with p99 <= 300 ms; racks / trivial >= 0.3;
health p50 <= 50 ms). ab's keep-alive connections stay with the worker that accepted them, and now and then one
worker takes most of them: the run then measures one process. Each endpoint's run is repeated (up to four runs)
until no worker used more than 70 % of the workers' CPU, and the table gives that share. Then the cold cases: a rack's ``design_kw`` is changed with a PATCH and the floor map
(largest hall, whole campus) and the summary are timed on their first request after it
(``--cold-rounds`` times each). A benchmark, not a test: it asserts nothing.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/twin_bench .venv/bin/python bench/bench_api_load.py \\
        --generate --duration 10 --clients 50

Needs ``ab`` (Debian/Ubuntu: ``apt-get install apache2-utils``). Only 127.0.0.1 is ever contacted.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
PYTHON = str(ROOT / ".venv" / "bin" / "python") if (ROOT / ".venv").exists() else sys.executable
GUNICORN = str(Path(PYTHON).parent / "gunicorn")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def manage(env: dict, *args: str) -> str:
    out = subprocess.run(
        [PYTHON, "manage.py", *args], cwd=ROOT, env=env, check=True, capture_output=True, text=True
    )
    return out.stdout.strip()


def server_env(settings: str) -> dict:
    env = dict(os.environ)
    env.setdefault("DJANGO_SETTINGS_MODULE", settings)
    env.setdefault("SECRET_KEY", "bench-" + "x" * 60)
    env.setdefault("SECURE_SSL_REDIRECT", "false")
    env.setdefault("TWIN_THROTTLE_USER", "10000000/min")
    env.setdefault("LOG_LEVEL", "WARNING")
    env.setdefault("DEBUG", "false")
    return env


class Client:
    """A keep-alive HTTP client for the set-up and the cold requests (the load itself is ab's)."""

    def __init__(self, base: str, token: str):
        parts = urlsplit(base)
        if parts.hostname not in ("127.0.0.1", "localhost"):
            raise SystemExit("only 127.0.0.1 is benchmarked")
        self.host, self.port = parts.hostname, parts.port or 80
        self.headers = {"Authorization": f"Token {token}", "Accept": "application/json"}

    def request(self, method: str, path: str, body: dict | None = None, timeout: float = 300.0):
        conn = http.client.HTTPConnection(self.host, self.port, timeout=timeout)
        try:
            headers = dict(self.headers)
            data = None
            if body is not None:
                data = json.dumps(body).encode()
                headers["Content-Type"] = "application/json"
            conn.request(method, path, body=data, headers=headers)
            response = conn.getresponse()
            return response.status, response.read()
        finally:
            conn.close()

    def get(self, path: str, timeout: float = 300.0):
        return self.request("GET", path, timeout=timeout)


def wait_ready(client: Client, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            status, _ = client.get("/api/health/", timeout=5)
            if status in (200, 503):
                return
        except OSError:
            pass
        time.sleep(0.3)
    raise SystemExit("gunicorn did not come up")


def settle(client: Client, seconds: float = 120.0) -> None:
    """Wait until the server has worked off what the last ab run left queued (ab stops at its time limit,
    the server does not): three liveness answers in a row under 100 ms."""
    deadline = time.monotonic() + seconds
    fast = 0
    while fast < 3 and time.monotonic() < deadline:
        t0 = time.perf_counter()
        client.get("/api/health/", timeout=seconds)
        fast = fast + 1 if time.perf_counter() - t0 < 0.1 else 0


def ab(base: str, path: str, token: str, clients: int, duration: float) -> dict:
    """One ab run: keep-alive, ``clients`` concurrent, for ``duration`` seconds."""
    out = subprocess.run(
        [
            "ab",
            "-q",
            "-k",
            "-l",  # bodies of varying length are not failures
            "-c",
            str(clients),
            "-t",
            str(duration),
            "-n",
            "10000000",
            "-s",
            "120",
            "-H",
            f"Authorization: Token {token}",
            "-H",
            "Accept: application/json",
            base + path,
        ],
        capture_output=True,
        text=True,
    ).stdout

    def number(pattern: str, default: float = 0.0) -> float:
        match = re.search(pattern, out, re.MULTILINE)
        return float(match.group(1)) if match else default

    return {
        "requests": int(number(r"^Complete requests:\s+(\d+)")),
        "rps": number(r"^Requests per second:\s+([\d.]+)"),
        "p50": number(r"^\s+50%\s+(\d+)", float("nan")),
        "p99": number(r"^\s+99%\s+(\d+)", float("nan")),
        "failed": int(number(r"^Failed requests:\s+(\d+)")),
        "non2xx": int(number(r"^Non-2xx responses:\s+(\d+)")),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--duration", type=float, default=10.0, help="Seconds of load per endpoint (10).")
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers (2)")
    parser.add_argument("--threads", type=int, default=4, help="threads per gunicorn worker (4)")
    parser.add_argument("--campus", default="bench-100k", help="Campus name.")
    parser.add_argument("--gpus", type=int, default=100_000, help="GPUs of a generated campus.")
    parser.add_argument("--generate", action="store_true", help="Generate the campus if it does not exist.")
    parser.add_argument(
        "--base-url", help="Benchmark a running server (127.0.0.1 only) instead of starting one."
    )
    parser.add_argument("--token", help="API token (default: create a 'bench' viewer).")
    parser.add_argument("--settings", default="twin.settings.production")
    parser.add_argument("--cold-rounds", type=int, default=3, help="Rack changes timed cold (3; 0: none).")
    parser.add_argument("--skip-load", action="store_true", help="Only the cold cases.")
    args = parser.parse_args()
    if shutil.which("ab") is None and not args.skip_load:
        raise SystemExit("ab not found: apt-get install apache2-utils")

    env = server_env(args.settings)
    if "DATABASE_URL" not in env:
        print("note: DATABASE_URL is not set; the bench is meant for PostgreSQL", file=sys.stderr)
    manage(env, "migrate", "--no-input", "-v", "0")
    found = manage(
        env,
        "shell",
        "--no-imports",
        "-c",
        f"from campus.models import Campus; c = Campus.objects.filter(name={args.campus!r}).first(); "
        "print(c.pk if c else '')",
    ).splitlines()
    campus_id = found[-1].strip() if found else ""
    if not campus_id:
        if not args.generate:
            raise SystemExit(f"no campus {args.campus!r}: pass --generate to build one")
        started = time.perf_counter()
        campus_id = manage(
            env, "generate_campus", "--name", args.campus, "--gpus", str(args.gpus)
        ).splitlines()[-1]
        print(f"generated {args.campus} ({args.gpus} GPUs) in {time.perf_counter() - started:.1f} s")
    viewer = args.token or manage(env, "create_api_token", "bench", "--role", "viewer").splitlines()[-1]
    planner = manage(env, "create_api_token", "bench-planner", "--role", "planner").splitlines()[-1]

    server = None
    base = args.base_url
    if base is None:
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        server = subprocess.Popen(
            [
                GUNICORN,
                "twin.wsgi:application",
                "--bind",
                f"127.0.0.1:{port}",
                "--workers",
                str(args.workers),
                "--threads",
                str(args.threads),
                "--worker-class",
                "gthread",
                "--keep-alive",
                "5",
                "--backlog",
                "2048",
                "--limit-request-line",
                "8190",
                "--timeout",
                "300",
                "--log-level",
                "warning",
            ],
            cwd=ROOT,
            env=env,
        )
    try:
        run(args, base.rstrip("/"), viewer, planner, int(campus_id), server.pid if server else None)
    finally:
        if server is not None:
            server.terminate()
            server.wait(timeout=30)


def worker_pids(master: int | None) -> list[int]:
    """The gunicorn master's worker processes (none when the bench did not start the server)."""
    if master is None:
        return []
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == master:
                pids.append(int(entry.name))
    return sorted(pids)


def cpu_seconds(pids: list[int]) -> list[float]:
    """User + system CPU of each process, in seconds (0 for one that is gone)."""
    tick = os.sysconf("SC_CLK_TCK")
    out = []
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            out.append((int(fields[11]) + int(fields[12])) / tick)
        except OSError:
            out.append(0.0)
    return out


# ab opens its keep-alive connections at once and each stays with the worker that accepted it: now and then
# one worker takes most of them and the run measures one process (half the throughput). A run whose busiest
# worker used more than this share of the workers' CPU is run again (up to BALANCE_TRIES runs in all).
BALANCE_SHARE = 0.7
BALANCE_TRIES = 4


def balanced_ab(
    base: str, path: str, token: str, clients: int, duration: float, pids: list[int], settle_
) -> dict:
    """``ab`` until the load spreads over the workers (``busiest``: the busiest worker's CPU share)."""
    for attempt in range(1, BALANCE_TRIES + 1):
        before = cpu_seconds(pids)
        row = ab(base, path, token, clients, duration)
        used = [b - a for a, b in zip(before, cpu_seconds(pids), strict=True)]
        row["busiest"] = max(used) / sum(used) if pids and sum(used) > 0 else float("nan")
        row["tries"] = attempt
        settle_()
        if not pids or len(pids) < 2 or not row["busiest"] > BALANCE_SHARE:
            break
    return row


def run(args, base: str, viewer: str, planner: str, campus_id: int, master: int | None = None) -> None:
    client = Client(base, viewer)
    wait_ready(client)
    status, body = client.get(f"/api/halls/?campus={campus_id}&limit=1000")
    halls = json.loads(body)["results"] if status == 200 else []
    status, body = client.get(f"/api/racks/?campus={campus_id}&limit=1&brief=1")
    racks = json.loads(body)
    if not halls or not racks["count"]:
        raise SystemExit("campus has no halls or racks")
    status, body = client.get("/api/gpu-models/?limit=1&brief=1")
    gpu_model = json.loads(body)["results"][0]["id"]
    rack_count = racks["count"]
    paths = {
        "floor": "/api/no-such-endpoint/",
        "trivial": f"/api/gpu-models/{gpu_model}/",
        "summary": f"/api/campuses/{campus_id}/summary/",
        "floor-map": f"/api/campuses/{campus_id}/floor-map/",
        "health": "/api/health/",
        "racks": f"/api/racks/?campus={campus_id}&limit=50&offset={max(0, rack_count // 2 - 25)}",
    }

    if not args.skip_load:
        # Warm-up (not measured): every worker builds the campus state and renders the cached bodies.
        started = time.perf_counter()
        for name in ("summary", "floor-map", "trivial", "racks"):
            ab(base, paths[name], viewer, args.workers * args.threads, max(2.0, args.duration / 5))
            settle(client)
        print(f"warm-up: {time.perf_counter() - started:.1f} s")
        results = {}
        pids = worker_pids(master)
        for name, path in paths.items():
            results[name] = balanced_ab(
                base, path, viewer, args.clients, args.duration, pids, lambda: settle(client)
            )
        print_load(args, results, rack_count)

    if args.cold_rounds > 0:
        cold(args, base, viewer, planner, campus_id, halls)


def print_load(args, results: dict, rack_count: int) -> None:
    floor, trivial = results["floor"]["rps"], results["trivial"]["rps"]
    targets = {
        "floor": ("", None),
        "trivial": ("/ floor >= 0.5", floor),
        "summary": ("/ trivial >= 0.8, p99 <= 300 ms", trivial),
        "floor-map": ("/ trivial >= 0.8, p99 <= 300 ms", trivial),
        "racks": ("/ trivial >= 0.3", trivial),
        "health": ("p50 <= 50 ms", None),
    }
    targets = {name: targets[name] for name in results}
    print(
        f"\n{args.clients} keep-alive clients (ab), {args.duration:.0f} s per endpoint, gunicorn "
        f"{args.workers} workers x {args.threads} threads, racks: {rack_count}"
    )
    print(
        f"{'endpoint':<10} {'requests':>9} {'req/s':>8} {'p50 ms':>7} {'p99 ms':>7} {'failed':>7} "
        f"{'non-2xx':>8} {'busiest':>8} {'ratio':>6}  target"
    )
    for name, row in results.items():
        target, against = targets[name]
        ratio = f"{row['rps'] / against:.2f}" if against else "-"
        print(
            f"{name:<10} {row['requests']:>9} {row['rps']:>8.1f} {row['p50']:>7.0f} {row['p99']:>7.0f} "
            f"{row['failed']:>7} {row['non2xx']:>8} {busiest(row):>8} {ratio:>6}  {target}"
        )
    print("(the floor answers 404 by design: its non-2xx are its answers)")
    print(
        f"(busiest: the busiest worker's share of the workers' CPU during the run, and how many runs it took to "
        f"bring it to {BALANCE_SHARE:.0%} or below)"
    )


def busiest(row: dict) -> str:
    share = row.get("busiest", float("nan"))
    return "-" if share != share else f"{share:.0%}/{row['tries']}"


def cold(args, base: str, viewer: str, planner: str, campus_id: int, halls: list[dict]) -> None:
    """First requests after an inventory change: PATCH one rack's design_kw, then time each view once."""
    reader, writer = Client(base, viewer), Client(base, planner)
    by_hall = {
        h["id"]: json.loads(reader.get(f"/api/racks/?hall={h['id']}&limit=1&brief=1")[1])["count"]
        for h in halls
    }
    largest = max(halls, key=lambda h: by_hall.get(h["id"], 0))
    status, body = reader.get(f"/api/racks/?hall={largest['id']}&limit=1")
    rack = json.loads(body)["results"][0]
    views = {
        f"floor map, largest hall ({largest['name']})": f"/api/campuses/{campus_id}/floor-map/?hall={largest['id']}",
        "floor map, whole campus": f"/api/campuses/{campus_id}/floor-map/",
        "summary": f"/api/campuses/{campus_id}/summary/",
    }
    print(
        f"\ncold: first request after a PATCH of rack {rack['name']}'s design_kw ({args.cold_rounds} rounds)"
    )
    print(f"{'view':<40} {'PATCH ms':>9} {'cold s':>7} {'2nd ms':>8}")
    design = rack["design_kw"]
    for view, path in views.items():
        colds, warms, patches = [], [], []
        for round_ in range(args.cold_rounds):
            reader.get(path)  # the state before the change is warm
            design = design + (0.5 if round_ % 2 == 0 else -0.5)
            t0 = time.perf_counter()
            status, body = writer.request("PATCH", f"/api/racks/{rack['id']}/", {"design_kw": design})
            patches.append(time.perf_counter() - t0)
            if status != 200:
                raise SystemExit(f"PATCH failed: {status} {body[:200]!r}")
            t0 = time.perf_counter()
            status, _ = reader.get(path)
            colds.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            reader.get(path)
            warms.append(time.perf_counter() - t0)
        colds.sort()
        print(
            f"{view:<40} {1000 * sorted(patches)[len(patches) // 2]:>9.0f} "
            f"{colds[len(colds) // 2]:>7.2f} {1000 * sorted(warms)[len(warms) // 2]:>8.0f}"
            f"   (cold min {colds[0]:.2f}, max {colds[-1]:.2f})"
        )
    print("(median of the rounds; every worker sees the PATCH at once through the campus's revision; the")
    print(" second request may reach another worker, which then builds its own state)")


if __name__ == "__main__":
    main()
