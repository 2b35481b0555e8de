"""API load benchmark: concurrent clients against gunicorn + PostgreSQL on 127.0.0.1.

Starts gunicorn itself (unless --base-url is given), makes sure the campus exists (``--generate`` builds a
100k-GPU campus with ``manage.py generate_campus``), gets a viewer token, warms each worker's analytics
cache, then runs ``--clients`` threads for ``--duration`` seconds, each picking endpoints round-robin:

  list        GET /api/racks/?campus=ID&limit=50&offset=<random>
  detail      GET /api/racks/<random rack>/
  summary     GET /api/campuses/ID/summary/
  floor-map   GET /api/campuses/ID/floor-map/?hall=<random hall>
  floor-map*  GET /api/campuses/ID/floor-map/            (whole campus, compact arrays)

and prints requests/s, p50/p99 latency and errors per endpoint. A benchmark, not a test: it asserts nothing.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/twin_bench .venv/bin/python bench/bench_api_load.py \\
        --generate --duration 60 --clients 50

Only 127.0.0.1 is ever contacted.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
PYTHON = str(ROOT / ".venv" / "bin" / "python") if (ROOT / ".venv").exists() else sys.executable
GUNICORN = str(ROOT / ".venv" / "bin" / "gunicorn") if (ROOT / ".venv").exists() else "gunicorn"
ENDPOINTS = ("list", "detail", "summary", "floor-map", "floor-map*")


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
    """One keep-alive-less HTTP client per thread (gunicorn sync workers close after each response)."""

    def __init__(self, base: str, token: str):
        parts = urlsplit(base)
        if parts.hostname not in ("127.0.0.1", "localhost"):
            raise SystemExit("only 127.0.0.1 is benchmarked")
        self.host, self.port = parts.hostname, parts.port or 80
        self.headers = {"Authorization": f"Token {token}", "Accept": "application/json"}

    def get(self, path: str, timeout: float = 60.0) -> tuple[int, bytes]:
        conn = http.client.HTTPConnection(self.host, self.port, timeout=timeout)
        try:
            conn.request("GET", path, headers=self.headers)
            response = conn.getresponse()
            return response.status, response.read()
        finally:
            conn.close()


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


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100.0 * len(ordered) + 0.5) - 1))
    return ordered[index]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--duration", type=float, default=60.0, help="Seconds of measured load (default 60).")
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument(
        "--workers", type=int, default=max(2, (os.cpu_count() or 2) + 1), help="gunicorn workers"
    )
    parser.add_argument("--campus", default="bench-100k", help="Campus name.")
    parser.add_argument("--gpus", type=int, default=100_000, help="GPUs of a generated campus.")
    parser.add_argument("--generate", action="store_true", help="Generate the campus if it does not exist.")
    parser.add_argument(
        "--base-url", help="Benchmark a running server (127.0.0.1 only) instead of starting one."
    )
    parser.add_argument("--token", help="API token (default: create a 'bench' viewer).")
    parser.add_argument("--settings", default="twin.settings.production")
    parser.add_argument(
        "--warmup-requests", type=int, default=0, help="Per analytics endpoint (default 4 x workers)."
    )
    args = parser.parse_args()

    env = server_env(args.settings)
    if "DATABASE_URL" not in env:
        print("note: DATABASE_URL is not set; the bench is meant for PostgreSQL", file=sys.stderr)
    manage(env, "migrate", "--no-input", "-v", "0")
    campus_id = manage(
        env,
        "shell",
        "--no-imports",
        "-c",
        f"from campus.models import Campus; c = Campus.objects.filter(name={args.campus!r}).first(); "
        "print(c.pk if c else '')",
    ).splitlines()
    campus_id = campus_id[-1].strip() if campus_id else ""
    if not campus_id:
        if not args.generate:
            raise SystemExit(f"no campus {args.campus!r}: pass --generate to build one")
        started = time.perf_counter()
        campus_id = manage(
            env, "generate_campus", "--name", args.campus, "--gpus", str(args.gpus)
        ).splitlines()[-1]
        print(f"generated {args.campus} ({args.gpus} GPUs) in {time.perf_counter() - started:.1f} s")
    token = args.token or manage(env, "create_api_token", "bench", "--role", "viewer").splitlines()[-1]

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
                "--backlog",
                "2048",
                "--timeout",
                "120",
                "--log-level",
                "warning",
            ],
            cwd=ROOT,
            env=env,
        )
    try:
        run(args, base, token, int(campus_id))
    finally:
        if server is not None:
            server.terminate()
            server.wait(timeout=30)


def run(args, base: str, token: str, campus_id: int) -> None:
    client = Client(base, token)
    wait_ready(client)
    status, body = client.get(f"/api/halls/?campus={campus_id}&limit=1000&brief=1")
    halls = [h["id"] for h in json.loads(body)["results"]] if status == 200 else []
    status, body = client.get(f"/api/racks/?campus={campus_id}&limit=1000&brief=1")
    payload = json.loads(body)
    racks, rack_count = [r["id"] for r in payload["results"]], payload["count"]
    if not halls or not racks:
        raise SystemExit("campus has no halls or racks")
    paths = {
        "list": lambda rnd: (
            f"/api/racks/?campus={campus_id}&limit=50&offset={rnd.randrange(max(1, rack_count - 50))}"
        ),
        "detail": lambda rnd: f"/api/racks/{rnd.choice(racks)}/",
        "summary": lambda rnd: f"/api/campuses/{campus_id}/summary/",
        "floor-map": lambda rnd: f"/api/campuses/{campus_id}/floor-map/?hall={rnd.choice(halls)}",
        "floor-map*": lambda rnd: f"/api/campuses/{campus_id}/floor-map/",
    }

    # Warm-up (not measured): each worker builds its snapshot once per campus version.
    warm = args.warmup_requests or 4 * args.workers
    started = time.perf_counter()
    for name in ("summary", "floor-map*"):
        threads = [
            threading.Thread(target=client.get, args=(paths[name](random.Random(i)),)) for i in range(warm)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    for hall in halls:
        client.get(f"/api/campuses/{campus_id}/floor-map/?hall={hall}")
    print(f"warm-up: {time.perf_counter() - started:.1f} s ({warm} requests per analytics endpoint)")

    latencies: dict[str, list[float]] = {name: [] for name in ENDPOINTS}
    errors: dict[str, int] = dict.fromkeys(ENDPOINTS, 0)
    lock = threading.Lock()
    stop_at = time.monotonic() + args.duration

    def worker(index: int) -> None:
        rnd = random.Random(index)
        own = Client(base, token)
        step = index
        while time.monotonic() < stop_at:
            name = ENDPOINTS[step % len(ENDPOINTS)]
            step += 1
            path = paths[name](rnd)
            t0 = time.perf_counter()
            try:
                status, _ = own.get(path)
                ok = status == 200
            except OSError:
                ok = False
            elapsed = time.perf_counter() - t0
            with lock:
                latencies[name].append(elapsed)
                if not ok:
                    errors[name] += 1

    t0 = time.perf_counter()
    threads = [threading.Thread(target=worker, args=(i,)) for i in range(args.clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0

    print(f"\n{args.clients} clients, {wall:.1f} s, gunicorn workers: {args.workers}, racks: {rack_count}")
    print(
        f"{'endpoint':<12} {'requests':>9} {'req/s':>8} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8} {'errors':>7}"
    )
    total = 0
    for name in ENDPOINTS:
        values = latencies[name]
        total += len(values)
        print(
            f"{name:<12} {len(values):>9} {len(values) / wall:>8.1f} {percentile(values, 50) * 1000:>8.1f} "
            f"{percentile(values, 99) * 1000:>8.1f} {max(values, default=0) * 1000:>8.1f} {errors[name]:>7}"
        )
    all_values = [v for values in latencies.values() for v in values]
    print(
        f"{'all':<12} {total:>9} {total / wall:>8.1f} {statistics.median(all_values) * 1000:>8.1f} "
        f"{percentile(all_values, 99) * 1000:>8.1f} {max(all_values) * 1000:>8.1f} {sum(errors.values()):>7}"
    )


if __name__ == "__main__":
    main()
