"""Browser tests of the dashboard: a live server in a thread, the demo campus in the test database, Debian's
Chromium driven by Playwright, and a Celery worker for the runs a page launches.

The data of a module is written once, outside any test transaction, and removed when the module ends, so
the live server, the worker and the test all see the same rows without flushing the catalog tables that
the migrations filled.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import uuid
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("TWIN_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
SCREENSHOTS = Path(os.environ.get("TWIN_SCREENSHOTS", ROOT / "test-results" / "screenshots"))
BUNDLE = ROOT / "frontend" / "static" / "frontend" / "dist"
LOCAL_HOSTS = {"127.0.0.1", "localhost", "[::1]", "::1"}
PASSWORD = "e2e-password-1"
# axe-core (frontend/node_modules): the WCAG 2.1 AA checks, serious and critical violations only
AXE = ROOT / "frontend" / "node_modules" / "axe-core" / "axe.min.js"
AXE_RUN = """
async () => {
  const result = await axe.run(document, {
    runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
  });
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 5).map((n) => n.target.join(' ')) }));
}
"""


# ---------------------------------------------------------------- the bundle and the browser


@pytest.fixture(scope="session")
def frontend_bundle() -> Path:
    """The esbuild bundle (`make setup` builds it); built here when node_modules is there but dist is not."""
    if not all((BUNDLE / f"{name}.js").exists() for name in ("overview", "map", "scenarios", "compare")):
        if (ROOT / "frontend" / "node_modules").exists():
            subprocess.run(["npm", "run", "--silent", "build"], cwd=ROOT / "frontend", check=True)
        else:
            pytest.fail("The dashboard bundle is missing: run `make setup` (npm ci and npm run build).")
    return BUNDLE


@pytest.fixture(scope="session")
def chromium():
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: apt-get install -y chromium (never a downloaded browser).")
    from playwright.sync_api import sync_playwright

    # Playwright's sync API keeps an event loop in this thread while the browser is open; the database calls
    # the fixtures make meanwhile are still plain synchronous calls.
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            yield browser
            browser.close()
    finally:
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


class PageWatch:
    """Console errors, uncaught exceptions and any request that would leave this machine."""

    def __init__(self) -> None:
        self.console_errors: list[str] = []
        self.page_errors: list[str] = []
        self.external: list[str] = []
        self.failed: list[str] = []

    def check(self) -> None:
        assert not self.external, f"requests left localhost: {self.external}"
        assert not self.page_errors, f"uncaught errors in the page: {self.page_errors}"
        assert not self.console_errors, f"console errors: {self.console_errors}"


def _is_local(url: str) -> bool:
    parts = urlsplit(url)
    if parts.scheme in {"data", "blob", "about"}:
        return True
    return (parts.hostname or "") in LOCAL_HOSTS


def new_page(browser, base_url: str, width: int = 1280, height: int = 800):
    context = browser.new_context(viewport={"width": width, "height": height}, base_url=base_url)
    page = context.new_page()
    watch = PageWatch()

    def guard(route):
        if _is_local(route.request.url):
            route.continue_()
        else:
            watch.external.append(route.request.url)
            route.abort()

    page.route(re.compile(r".*"), guard)
    page.on("console", lambda msg: watch.console_errors.append(msg.text) if msg.type == "error" else None)
    page.on("pageerror", lambda exc: watch.page_errors.append(str(exc)))
    page.on("requestfailed", lambda req: watch.failed.append(req.url))
    page.set_default_timeout(20_000)
    return context, page, watch


def login(page, username: str, password: str = PASSWORD, next_path: str = "/") -> None:
    page.goto(f"/login/?next={next_path}")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("[data-testid=login-submit]")
    page.wait_for_url(lambda url: "/login/" not in url)


def screenshot(page, name: str, full_page: bool = False) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=full_page)
    return path


# ---------------------------------------------------------------- server, data and worker


def defer_test_transactions() -> None:
    """On a SQLite file, the transaction pytest-django wraps each test in must not take the write lock at its
    start (the settings' BEGIN IMMEDIATE): the live server and the worker write while the test runs. Only this
    thread's connection changes; theirs keep IMMEDIATE."""
    from django.db import connection

    if connection.vendor == "sqlite" and not connection.is_in_memory_db():
        connection.ensure_connection()
        connection.transaction_mode = "DEFERRED"


@pytest.fixture(scope="module")
def live_url(django_db_setup, django_db_blocker, frontend_bundle):
    """A threaded live server (static files from the finders, like runserver) on a free port."""
    from django.conf import settings
    from django.contrib.staticfiles.handlers import StaticFilesHandler
    from django.db import connections
    from django.test.testcases import LiveServerThread

    Path(settings.STATIC_ROOT).mkdir(parents=True, exist_ok=True)  # whitenoise warns when it is missing
    with django_db_blocker.unblock():
        defer_test_transactions()
        # An in-memory SQLite test database lives in one connection: share it with the server thread.
        overrides = {}
        for conn in connections.all():
            if conn.vendor == "sqlite" and conn.is_in_memory_db():
                overrides[conn.alias] = conn
                conn.inc_thread_sharing()
        thread = LiveServerThread("127.0.0.1", StaticFilesHandler, connections_override=overrides, port=0)
        thread.daemon = True
        thread.start()
        thread.is_ready.wait()
        if thread.error:
            raise thread.error
        yield f"http://127.0.0.1:{thread.port}"
        thread.terminate()
        for conn in overrides.values():
            conn.dec_thread_sharing()


@contextmanager
def planner_user(django_db_blocker, username: str):
    """A planner ``username`` for a module, removed after it with every campus made meanwhile; yields the
    name."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group
    from django.core.management import call_command

    from campus.models import Campus

    with django_db_blocker.unblock():
        call_command("sync_catalog", verbosity=0)
        before = set(Campus.objects.values_list("id", flat=True))
        user = get_user_model().objects.create_user(username=username, password=PASSWORD)
        user.groups.add(Group.objects.get_or_create(name="planner")[0])
    yield username
    with django_db_blocker.unblock():
        Campus.objects.exclude(id__in=before).delete()
        get_user_model().objects.filter(username=username).delete()


@contextmanager
def generated_campus(django_db_blocker, name: str, username: str, **spec):
    """A generated campus (``generate_spec(name, **spec)``) and a planner ``username``, written for a module
    and removed after it with any branch made of the campus meanwhile; yields the campus id."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group
    from django.core.management import call_command
    from django.db import transaction

    from campus.interchange.bulk import clear_campus
    from campus.interchange.generate import generate_spec
    from campus.interchange.importer import import_campus
    from campus.models import Campus

    with django_db_blocker.unblock():
        call_command("sync_catalog", verbosity=0)
        made = import_campus(generate_spec(name, **spec))
        user = get_user_model().objects.create_user(username=username, password=PASSWORD)
        user.groups.add(Group.objects.get_or_create(name="planner")[0])
    yield made.id
    with django_db_blocker.unblock():
        # contents first, one DELETE per table (as a re-import clears them): the ORM's cascade over a 1M-GPU
        # campus takes minutes
        for campus in [*Campus.objects.filter(parent_id=made.id), made]:
            with transaction.atomic():
                clear_campus(campus)
                campus.delete()
        get_user_model().objects.filter(username=username).delete()


def axe_violations(page) -> list[dict]:
    """The page's serious and critical WCAG 2.1 AA violations as axe-core finds them."""
    page.add_script_tag(path=str(AXE))
    return page.evaluate(AXE_RUN)


def csrf_headers(page) -> dict:
    """The headers of a write in the page's session: its CSRF token (set by the first page of the site)."""
    token = next(c["value"] for c in page.context.cookies() if c["name"] == "csrftoken")
    return {"X-CSRFToken": token, "Referer": page.url}


def ask_placement(page, campus_id: int, **request) -> None:
    """Asks the floor map's placement panel of the campus for ``request`` (``node_model``, ``racks`` and
    optionally ``nodes_per_rack``, as ``POST /api/campuses/{id}/placement/`` takes them)."""
    page.goto(f"/campuses/{campus_id}/map/")
    page.wait_for_function("window.floorMap && window.floorMap.ready === true")
    page.wait_for_selector("[data-testid=placement-node_model] option", state="attached")
    page.select_option("[data-testid=placement-node_model]", request["node_model"])
    page.fill("[data-testid=placement-racks]", str(request["racks"]))
    if "nodes_per_rack" in request:
        page.fill("[data-testid=placement-nodes_per_rack]", str(request["nodes_per_rack"]))
    page.click("[data-testid=placement-submit]")


def placement_answer(page, campus_id: int, **request) -> dict:
    """The API's answer to the placement ``request``, asked in the page's session."""
    return page.request.post(
        f"/api/campuses/{campus_id}/placement/", data=request, headers=csrf_headers(page)
    ).json()


def load_campus() -> int:
    """The demo campus (load_demo_campus) when the command is there, else a generated mixed campus."""
    from django.core.management import call_command
    from django.core.management.base import CommandError

    from campus.models import Campus

    before = set(Campus.objects.values_list("id", flat=True))
    try:
        call_command("load_demo_campus", verbosity=0)
    except CommandError:
        from campus.interchange.generate import generate_spec
        from campus.interchange.importer import import_campus

        spec = generate_spec(
            "E2E campus",
            mix=[{"gpu_model": "h100-sxm", "gpus": 1024}, {"gpu_model": "gb200", "gpus": 576}],
        )
        import_campus(spec)
    new = Campus.objects.exclude(id__in=before).order_by("id").values_list("id", flat=True)
    return new.first() or Campus.objects.order_by("id").values_list("id", flat=True).first()


@pytest.fixture(scope="module")
def demo(django_db_setup, django_db_blocker):
    """The campus and one user per role, written for the whole module and removed after it."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group
    from django.core.management import call_command

    from campus.models import Campus

    with django_db_blocker.unblock():
        call_command("sync_catalog", verbosity=0)
        before = set(Campus.objects.values_list("id", flat=True))
        campus_id = load_campus()
        users = {}
        for role in ("viewer", "planner", "admin"):
            user = get_user_model().objects.create_user(username=f"e2e-{role}", password=PASSWORD)
            user.groups.add(Group.objects.get_or_create(name=role)[0])
            users[role] = user.username
    yield {"campus_id": campus_id, "users": users}
    with django_db_blocker.unblock():
        from simulations.models import Scenario

        Scenario.objects.filter(campus_id=campus_id).delete()
        Campus.objects.exclude(id__in=before).delete()
        get_user_model().objects.filter(username__in=users.values()).delete()


def database_url() -> str:
    """The test database as a DATABASE_URL another process can open: PostgreSQL, or the SQLite file."""
    from django.db import connection

    db = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{db['NAME']}"
    auth = db["USER"] or "postgres"
    if db["PASSWORD"]:
        auth += f":{db['PASSWORD']}"
    return f"postgres://{auth}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


def require_shared_database() -> None:
    """A worker process needs a database it can open: PostgreSQL, or SQLite in a file (twin.settings.test
    puts the embedded test database in one). An in-memory database lives in this process only."""
    from django.db import connection

    if connection.vendor == "sqlite" and connection.is_in_memory_db():
        pytest.skip(
            "the worker process cannot open an in-memory SQLite database (twin.settings.test uses a file)"
        )


def _worker_env() -> dict[str, str]:
    """The environment of a worker process that reads the test database and shares this process' broker."""
    from django.conf import settings

    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "twin.settings.test",
        "DATABASE_URL": database_url(),
        "CONN_MAX_AGE": "0",
        "TWIN_VAR_DIR": str(settings.VAR_DIR),
        "LOG_LEVEL": "WARNING",
    }


@pytest.fixture(scope="module")
def celery_worker(tmp_path_factory):
    """A `celery -A twin worker` process for the runs the pages launch, reading the test database (PostgreSQL,
    or the embedded default's SQLite file) and sharing this process' broker (Redis, or the filesystem)."""
    require_shared_database()
    log_path = tmp_path_factory.mktemp("worker") / "celery.log"
    with log_path.open("wb") as log:
        proc = subprocess.Popen(
            [
                str(Path(sys.executable).with_name("celery")),
                "-A",
                "twin",
                "worker",
                "--loglevel",
                "WARNING",
                "--concurrency",
                "1",
                "--hostname",
                f"dashboard-e2e-{uuid.uuid4().hex[:8]}@%h",
                "--without-gossip",
                "--without-mingle",
            ],
            cwd=ROOT,
            env=_worker_env(),
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            yield proc
        finally:
            # Stop the whole process group (the worker and its pool) before the test database is dropped.
            for sig, wait_s in ((signal.SIGTERM, 20), (signal.SIGKILL, 5)):
                if proc.poll() is not None:
                    break
                os.killpg(proc.pid, sig)
                try:
                    proc.wait(timeout=wait_s)
                except subprocess.TimeoutExpired:
                    continue


@pytest.fixture
def planner_page(chromium, live_url, demo, request):
    context, page, watch = new_page(chromium, live_url)
    login(page, demo["users"]["planner"])
    yield page, watch
    if getattr(request.node, "rep_call_failed", False):
        screenshot(page, "failed-" + re.sub(r"[^A-Za-z0-9_.-]+", "-", request.node.name).strip("-"))
    context.close()


@pytest.fixture
def admin_page(chromium, live_url, demo):
    context, page, watch = new_page(chromium, live_url)
    login(page, demo["users"]["admin"])
    yield page, watch
    context.close()


@pytest.fixture
def viewer_page(chromium, live_url, demo):
    context, page, watch = new_page(chromium, live_url)
    login(page, demo["users"]["viewer"])
    yield page, watch
    context.close()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if report.when == "call" and report.failed:
        item.rep_call_failed = True
    return report
