"""Scenario forms without JSON, names that explain themselves, numbers as people write them and results that
say in words what happened, in a real browser against the demo campus.

Every form is built from the kind's schema the API gives; these tests walk every kind the API lists (so a
new kind is checked the day it is registered) and check what a planner reads and what the page sends.
"""

from __future__ import annotations

import re

import pytest

from .conftest import SCREENSHOTS, axe_violations, csrf_headers, screenshot
from .test_dashboard import RUN_TIMEOUT_MS, api, post

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=False)]

RAW_NAME = re.compile(r"[a-z]+_[a-z_]+")  # a snake_case name shown as such


def open_kind(page, campus_id: int, kind: str):
    page.goto(f"/campuses/{campus_id}/scenarios/")
    page.click(f"[data-testid=kind-{kind}]")
    page.wait_for_selector(f"[data-testid=kind-{kind}][aria-pressed=true]")
    page.wait_for_selector("[data-testid=param-fields].schema-form")
    return page.locator("[data-testid=param-fields]")


def sent_scenarios(page) -> list[dict]:
    bodies: list[dict] = []

    def keep(request):
        if request.method == "POST" and request.url.endswith("/api/scenarios/"):
            bodies.append(request.post_data_json)

    page.on("request", keep)
    return bodies


def cancel_open_run(page) -> None:
    """The run a test launched but does not follow is cancelled, so no queued work outlives the test."""
    run_id = page.get_attribute("[data-testid=run-detail]", "data-run-id")
    if run_id:
        page.request.post(f"/api/runs/{run_id}/cancel/", headers=csrf_headers(page))


def test_every_kind_has_a_form_without_json_with_labels_units_and_help(planner_page, demo):
    page, watch = planner_page
    campus_id = demo["campus_id"]
    page.goto(f"/campuses/{campus_id}/scenarios/")
    kinds = api(page, "/api/scenarios/kinds/")
    assert kinds
    for kind in kinds:
        fields = open_kind(page, campus_id, kind["kind"])
        # no field asks for JSON (a pasted list of numbers, a meter export, is the one text box)
        assert fields.locator("textarea:not([data-number-list])").count() == 0
        assert "JSON" not in fields.inner_text()
        # every control has a visible label, none of them a raw name
        labels = [(t or "").strip() for t in fields.locator("label, legend").all_text_contents()]
        assert labels and all(labels)
        raw = [t for t in labels if RAW_NAME.search(t)]
        assert raw == [], f"{kind['kind']}: raw names in labels: {raw}"
        unlabelled = page.evaluate(
            """() => [...document.querySelectorAll('[data-testid=param-fields] input, [data-testid=param-fields] select')]
                 .filter((i) => !i.labels || !i.labels.length).map((i) => i.id || i.name)"""
        )
        assert unlabelled == []
        # a name with a unit suffix shows the unit in its label (the schema's title)
        units = {
            "_s": "s",
            "_minutes": "min",
            "_hours": "h",
            "_days": "d",
            "_kw": "kW",
            "_c": "°C",
            "_mw": "MW",
        }
        for name, prop in kind["schema"]["properties"].items():
            unit = next((u for suffix, u in units.items() if name.endswith(suffix)), None)
            if unit:
                title = prop["title"]
                assert re.search(r"\([^)]*\b" + re.escape(unit) + r"\b[^)]*\)", title), f"{name}: {title}"
                assert fields.get_by_text(title, exact=True).count() >= 1
        # help text from the field descriptions
        assert fields.locator(".field-help").count() >= len(kind["schema"]["properties"]) // 2
        screenshot(page, f"form-{kind['kind']}", full_page=True)
    watch.check()


def test_caps_are_rows_with_pickers_and_an_api_error_lands_on_the_row(planner_page, demo):
    page, watch = planner_page
    campus_id = demo["campus_id"]
    fields = open_kind(page, campus_id, "power_capping")
    bodies = sent_scenarios(page)
    caps = fields.locator("[data-path=caps]")
    assert caps.locator("[data-testid=param-row]").count() == 1  # the default: every GPU at 0.8 of TDP
    # the GPU model picker offers the campus's models, as its summary counts them
    summary = api(page, f"/api/campuses/{campus_id}/summary/")
    in_campus = set(summary["inventory"]["gpus_by_model"])
    picker = page.locator("#param-caps-0-gpu-model")
    offered = {v for v in picker.locator("option").evaluate_all("os => os.map((o) => o.value)") if v}
    assert offered == in_campus
    pods = {p["id"] for p in api(page, f"/api/pods/?campus={campus_id}&limit=1000")["results"]}
    offered_pods = {
        int(v)
        for v in page.locator("#param-caps-0-pod-id option").evaluate_all("os => os.map((o) => o.value)")
        if v
    }
    assert offered_pods == pods
    # add a second rule, then remove the first: the second becomes rule 1
    caps.locator("[data-testid=add-row]").click()
    assert caps.locator("[data-testid=param-row]").count() == 2
    slug = sorted(in_campus)[0]
    page.select_option("#param-caps-1-gpu-model", slug)
    page.fill("#param-caps-1-cap-w", "500")
    caps.locator("[data-testid=remove-row]").first.click()
    assert caps.locator("[data-testid=param-row]").count() == 1
    assert caps.locator(".row-caption").inner_text() == "Cap rule 1"
    # both a fraction and watts: the schema lets it through, the API names caps[0]
    page.fill("[data-testid=scenario-name]", "E2E caps by model")
    page.fill("[data-testid=run-replicas]", "1")
    row = caps.locator("[data-testid=param-row]").first
    row.locator("input[name$='cap_fraction']").fill("0.7")
    page.click("[data-testid=launch]")
    page.wait_for_selector("[data-testid=api-errors]")
    assert bodies[-1]["params"]["caps"] == [
        {"gpu_model": slug, "pod_id": None, "cap_fraction": 0.7, "cap_w": 500}
    ]
    error = row.locator(".field-error").filter(has_text="exactly one")
    assert error.count() >= 1 and error.first.is_visible()
    assert row.locator("[aria-invalid=true]").count() >= 1
    screenshot(page, "form-caps-row-error", full_page=True)
    # one cap only: the scenario is saved and its run opens
    row.locator("input[name$='cap_fraction']").fill("")
    assert not row.locator(".field-error").filter(has_text="exactly one").is_visible()  # cleared while typing
    page.click("[data-testid=launch]")
    page.wait_for_selector("[data-testid=run-detail][data-run-id]", timeout=30_000)
    cancel_open_run(page)
    watch.console_errors = [e for e in watch.console_errors if "400" not in e]
    watch.check()


def test_a_taken_name_is_marked_on_the_name_field(planner_page, demo):
    page, watch = planner_page
    campus_id = demo["campus_id"]
    page.goto(f"/campuses/{campus_id}/scenarios/")
    post(
        page,
        "/api/scenarios/",
        {"campus": campus_id, "kind": "grid_limit", "name": "E2E taken name", "params": {}},
    )
    open_kind(page, campus_id, "grid_limit")
    page.fill("[data-testid=scenario-name]", "E2E taken name")
    page.click("[data-testid=launch]")
    page.wait_for_selector("[data-testid=api-errors]")
    name_error = page.locator("#name-error")
    assert name_error.is_visible() and "name" in name_error.inner_text().lower()
    assert page.get_attribute("[data-testid=scenario-name]", "aria-invalid") == "true"
    assert page.evaluate("document.activeElement.id") == "scenario-name"
    assert "must make a unique set" not in page.inner_text("[data-testid=form-errors]")
    watch.console_errors = [e for e in watch.console_errors if "400" not in e]
    watch.check()


def test_lists_mappings_and_enums_are_sent_as_the_api_expects(planner_page, demo):
    page, watch = planner_page
    campus_id = demo["campus_id"]
    kinds = {k["kind"]: k for k in api(page, "/api/scenarios/kinds/")}
    fields = open_kind(page, campus_id, "failure_cascade")
    bodies = sent_scenarios(page)
    # enums are selects with readable options; booleans checkboxes
    recovery = page.locator("#param-recovery")
    assert recovery.evaluate("e => e.tagName") == "SELECT"
    assert "In memory" in recovery.inner_text()
    assert page.locator("#param-include-infrastructure").get_attribute("type") == "checkbox"
    # GPU models: one checkbox per model of the campus
    models = fields.locator("[data-path=gpu_models] input[type=checkbox]")
    summary = api(page, f"/api/campuses/{campus_id}/summary/")
    assert models.count() == len(summary["inventory"]["gpus_by_model"])
    models.first.check()
    chosen = models.first.get_attribute("value")
    # an MTBF override: a row with a component picked from the catalogue's causes
    overrides = fields.locator("[data-path=rate_overrides]")
    overrides.locator("[data-testid=add-row]").click()
    key = overrides.locator("select").first
    labels = key.locator("option").all_inner_texts()
    assert "NCCL watchdog timeouts" in labels and "CPU" in labels and "Silent data corruption" in labels
    key.select_option("gpu")
    overrides.locator("input[type=number]").first.fill("50000")
    page.select_option("#param-recovery", "in_memory")
    page.fill("#param-duration-days", "2")
    page.fill("[data-testid=scenario-name]", "E2E lists and mappings")
    page.fill("[data-testid=run-replicas]", "2")
    page.click("[data-testid=launch]")
    page.wait_for_selector("[data-testid=run-detail][data-run-id]", timeout=30_000)
    cancel_open_run(page)
    params = bodies[-1]["params"]
    assert params["gpu_models"] == [chosen]
    assert params["rate_overrides"] == {"gpu": 50000}
    assert params["recovery"] == "in_memory" and params["duration_days"] == 2
    assert params["repair_hours_overrides"] == {}
    assert set(params) == set(kinds["failure_cascade"]["schema"]["properties"])
    watch.check()


def test_the_form_passes_the_wcag_aa_checks_with_rows_open(planner_page, demo):
    page, watch = planner_page
    for kind in ("power_capping", "liquid_cooling", "failure_cascade"):
        fields = open_kind(page, demo["campus_id"], kind)
        for add in fields.locator("[data-testid=add-row]").all():
            add.click()
        assert axe_violations(page) == [], kind
    watch.check()


def _make_run(
    campus_id: int, kind: str, name: str, metrics: dict, params: dict | None = None, campus_state=None
) -> int:
    """A finished run stored as the workers leave one (summary only), for pages that read summaries."""
    from django.contrib.auth import get_user_model

    from simulations.models import Run, Scenario

    user = get_user_model().objects.get(username="e2e-planner")
    scenario = Scenario.objects.create(
        campus_id=campus_id, kind=kind, name=name, params=params or {}, owner=user
    )
    summary = {"metrics": metrics, "by_cause": {}, "replicas": 10, "events": 0, "compute_s": 1.0}
    run = Run.objects.create(
        scenario=scenario,
        kind=kind,
        campus_id=campus_id,
        scenario_name=name,
        status="succeeded",
        replicas=10,
        replicas_done=10,
        progress=1.0,
        seed=1,
        params=params or {},
        summary=summary,
        created_by=user,
        campus_state=campus_state,
    )
    return run.pk


def _stats(mean: float, half: float) -> dict:
    return {
        "mean": mean,
        "p5": mean - half,
        "p50": mean,
        "p95": mean + half,
        "ci95_low": mean - half,
        "ci95_high": mean + half,
        "n": 10.0,
    }


@pytest.fixture(scope="module")
def stored_runs(demo, django_db_blocker):
    """Three finished runs written outside the test's transaction (the live server reads them): two of
    failure_cascade, one of grid_limit."""
    campus_id = demo["campus_id"]
    with django_db_blocker.unblock():
        # ETTR higher is better; the job's size is a fact with no direction.
        base = _make_run(
            campus_id,
            "failure_cascade",
            "E2E cmp base",
            {"ettr": _stats(0.95, 0.005), "job_gpus": _stats(1000.0, 0)},
            campus_state={"version": "v1", "as_of": None, "pue": 1.2},
        )
        # computed after the campus's PUE was typed differently
        other = _make_run(
            campus_id,
            "failure_cascade",
            "E2E cmp other",
            {"ettr": _stats(0.90, 0.005), "job_gpus": _stats(2000.0, 0)},
            campus_state={"version": "v2", "as_of": None, "pue": 1.5},
        )
        foreign = _make_run(campus_id, "grid_limit", "E2E cmp foreign", {"shortfall_mwh": _stats(1.0, 0.1)})
    return base, other, foreign


def test_compare_offers_only_runs_of_one_kind_and_arrows_only_where_the_direction_is_known(
    planner_page, demo, stored_runs
):
    page, watch = planner_page
    campus_id = demo["campus_id"]
    base, other, foreign = stored_runs
    page.goto(f"/campuses/{campus_id}/scenarios/")
    page.wait_for_selector(f"[data-testid=run-row][data-run-id='{base}']")
    box = lambda run_id: page.locator(f"[data-testid=run-row][data-run-id='{run_id}'] input[type=checkbox]")  # noqa: E731
    box(base).check()
    assert box(foreign).is_disabled() and "same kind" in box(foreign).get_attribute("title")
    assert box(other).is_enabled()
    box(other).check()
    page.click("[data-testid=compare-button]")
    page.wait_for_selector("[data-testid=compare-view][data-ready=true]", timeout=60_000)
    ettr = page.locator("[data-testid=compare-table] tr[data-metric=ettr]")
    gpus = page.locator("[data-testid=compare-table] tr[data-metric=job_gpus]")
    assert "Goodput" in ettr.inner_text()
    assert "worse" in ettr.locator("[data-testid=delta]").inner_text()  # 0.90 < 0.95, intervals apart
    delta = gpus.locator("[data-testid=delta]").inner_text()
    assert "+100 %" in delta
    assert not re.search("better|worse|✔|▲|▼", delta)
    # integers as integers
    assert "2,000" in gpus.inner_text() and "2,000.0" not in gpus.inner_text()
    # the runs computed on different campus states: the comparison says so, and what differs
    state = page.locator("[data-testid=compare-campus-state]")
    assert "notice-warn" in state.get_attribute("class")
    assert "pue 1.2 vs 1.5" in state.inner_text() and f"run {other}" in state.inner_text()
    box(base).uncheck()
    box(other).uncheck()
    assert box(foreign).is_enabled()
    page.locator("[data-testid=compare-view]").scroll_into_view_if_needed()
    screenshot(page, "compare-one-kind")
    watch.check()


@pytest.mark.parametrize("kind", ["liquid_cooling", "power_capping", "failure_cascade", "grid_limit"])
def test_a_result_page_says_what_happened_before_its_charts(planner_page, demo, celery_worker, kind):
    page, watch = planner_page
    campus_id = demo["campus_id"]
    page.goto(f"/campuses/{campus_id}/scenarios/")
    page.click(f"[data-testid=kind-{kind}]")
    page.wait_for_selector(f"[data-testid=kind-{kind}][aria-pressed=true]")
    page.fill("[data-testid=scenario-name]", f"E2E explained {kind}")
    if kind == "failure_cascade":
        page.fill("#param-duration-days", "5")
    page.fill("[data-testid=run-replicas]", "3")
    page.fill("[data-testid=run-seed]", "5")
    page.click("[data-testid=launch]")
    page.wait_for_selector("[data-testid=run-detail][data-results=ready]", timeout=RUN_TIMEOUT_MS)
    run_id = int(page.get_attribute("[data-testid=run-detail]", "data-run-id"))
    run = api(page, f"/api/runs/{run_id}/")
    assert run["explanation"], "the API explains the run"
    shown = page.locator("[data-testid=run-explanation] li").all_inner_texts()
    assert shown == run["explanation"]
    if kind == "liquid_cooling":
        # the demo's CDU groups each carry one lost unit: the default fails both CDUs of hall B2-H2, by name
        assert "the loss of CDUs B2-H2-CDU-01 and B2-H2-CDU-02" in shown[0]
        assert [f["name"] for f in run["summary"]["details"]["failed"]] == ["B2-H2-CDU-01", "B2-H2-CDU-02"]
    # a figure every replica agreed on is shown once, not as five equal statistics
    for row in page.locator("[data-testid=summary-table] tbody tr[data-agreed=true]").all():
        stats = run["summary"]["metrics"][row.get_attribute("data-metric")]
        assert stats["p5"] == stats["p95"] == stats["mean"]
        assert row.locator("td").count() == 3 and "same in every replica" in row.inner_text()
    # the words come before the first chart
    above = page.evaluate(
        """() => {
          const words = document.querySelector('[data-testid=run-explanation]');
          const chart = document.querySelector('[data-testid=run-charts]');
          return words.compareDocumentPosition(chart) & Node.DOCUMENT_POSITION_FOLLOWING;
        }"""
    )
    assert above
    # names that explain themselves: the catalogue's labels, never a raw name
    kinds = {k["kind"]: k for k in api(page, "/api/scenarios/kinds/")}
    catalogue = kinds[kind]["metrics"]
    for row in page.locator("[data-testid=summary-table] tbody tr").all():
        name = row.get_attribute("data-metric")
        label = row.locator("td").first.inner_text()
        assert label.startswith(catalogue[name]["label"]), (name, label)
        assert not RAW_NAME.search(label)
    titles = page.locator("[data-testid=run-charts] [data-testid=chart] h3").all_inner_texts()
    assert titles and not [t for t in titles if RAW_NAME.search(t) or re.search(r"\btemp c\b", t, re.I)]
    # integers are shown without decimals; power recorded in kW is shown in MW, as every campus power figure is
    for row in page.locator("[data-testid=summary-table] tbody tr").all():
        name = row.get_attribute("data-metric")
        mean = run["summary"]["metrics"][name]["mean"]
        unit = catalogue[name]["unit"]
        if mean is not None and unit in ("kW", "kWh"):
            shown = float(row.locator("td").nth(1).inner_text().replace(",", ""))
            assert shown == pytest.approx(mean / 1000, rel=5e-3, abs=5e-4), (name, mean, shown)
        elif mean is not None and float(mean).is_integer() and not unit.startswith("fraction"):
            assert row.locator("td").nth(1).inner_text() == f"{int(mean):,}"
    # histogram ticks: no label repeats on an axis
    repeated = page.evaluate(
        """() => [...document.querySelectorAll('[data-testid=histogram] .u-axis')].map((axis) => {
             const texts = [...axis.querySelectorAll('.u-value')].map((v) => v.textContent).filter(Boolean);
             return texts.length - new Set(texts).size;
           }).filter((n) => n > 0)"""
    )
    assert repeated == []
    detail = page.locator("[data-testid=run-detail]")
    detail.scroll_into_view_if_needed()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    detail.screenshot(path=str(SCREENSHOTS / f"result-{kind}.png"))
    watch.check()


@pytest.fixture(scope="module")
def runs_with_other_inputs(demo, django_db_blocker):
    """Two finished power-capping runs that differ in their cap and their utilisation, written outside the
    test's transaction (the live server reads them)."""
    campus_id = demo["campus_id"]
    with django_db_blocker.unblock():
        base = _make_run(
            campus_id,
            "power_capping",
            "E2E inputs base",
            {"energy_saving_fraction": _stats(0.05, 0.001), "mean_it_mw": _stats(9.6558, 0.0)},
            params={"caps": [{"cap_fraction": 0.8}], "utilization": 1.0, "duration_hours": 24.0},
        )
        other = _make_run(
            campus_id,
            "power_capping",
            "E2E inputs other",
            {"energy_saving_fraction": _stats(0.12, 0.001), "mean_it_mw": _stats(8.6523, 0.0)},
            params={"caps": [{"cap_fraction": 0.7}], "utilization": 0.9, "duration_hours": 24.0},
        )
    return base, other


def test_compare_lists_the_inputs_that_differ_and_a_shares_change_in_points(
    planner_page, demo, runs_with_other_inputs
):
    page, watch = planner_page
    campus_id = demo["campus_id"]
    base, other = runs_with_other_inputs
    page.goto(f"/campuses/{campus_id}/scenarios/")
    for run_id in (base, other):
        page.locator(f"[data-testid=run-row][data-run-id='{run_id}'] input[type=checkbox]").check()
    page.click("[data-testid=compare-button]")
    page.wait_for_selector("[data-testid=compare-view][data-ready=true]", timeout=60_000)
    inputs = page.locator("[data-testid=compare-inputs]")
    rows = inputs.locator("tbody tr")
    # the cap and the utilisation differ; the length and the seed do not, so they are not listed
    assert sorted(rows.nth(i).get_attribute("data-input") for i in range(rows.count())) == [
        "params.caps[0].cap_fraction",
        "params.utilization",
    ]
    cap = inputs.locator("tr[data-input='params.caps[0].cap_fraction']")
    assert cap.locator("th").inner_text() == "Caps 1 · Cap (fraction of TDP)"  # the parameters' titles
    assert [cap.locator("td").nth(i).inner_text() for i in range(2)] == ["0.8", "0.7"]
    assert not any(RAW_NAME.search(t) for t in inputs.locator("tbody th").all_inner_texts())
    # a share's change in percentage points (5 % -> 12 %), a power's in % of the baseline
    table = page.locator("[data-testid=compare-table]")
    saving = table.locator("tr[data-metric=energy_saving_fraction] [data-testid=delta]")
    assert saving.inner_text().startswith("Δ +7 points")
    it = table.locator("tr[data-metric=mean_it_mw] [data-testid=delta]")
    assert it.inner_text().startswith("Δ −10 %")
    page.locator("[data-testid=compare-inputs]").scroll_into_view_if_needed()
    screenshot(page, "compare-inputs")
    watch.check()
