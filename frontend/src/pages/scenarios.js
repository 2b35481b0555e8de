// Scenarios and runs: new scenario from a kind's template (schema-driven form), launch, live progress, results
// (time series, distributions over replicas, replay link), compare runs, scheduled runs.
import { ApiError, api, qs } from "../lib/api.js";
import { boot, clear, el, errorBox, fill, wireCampusPicker } from "../lib/dom.js";
import * as f from "../lib/format.js";
import { SchemaForm } from "../lib/schemaform.js";
import { destroyCharts, histogram, timeChart } from "../lib/charts.js";
import { rackSeriesMetrics } from "../lib/replay.js";

const state = boot();
wireCampusPicker();
const $ = (id) => document.getElementById(id);

const KIND_HELP = {
  power_capping: "Cap GPU power; see energy, cost and throughput.",
  grid_limit: "Cut the grid connection for a while; cap, pause, ride through or start generators.",
  liquid_cooling: "Lose a CDU, pump or chiller; watch temperatures and throttling.",
  failure_cascade: "Failures over weeks; job interruptions, recovery and ETTR.",
};
const POLL_MS = 1000;
const MAX_CHARTS = 8;

let kinds = [];
let form = null;
let selectedKind = null;
let runs = [];
const compareSet = new Set();
let pollTimer = null;
let openRunId = null;

// ------------------------------------------------------------------ new scenario

async function loadKinds() {
  const list = $("kind-list");
  try {
    kinds = await api.get("/api/scenarios/kinds/");
  } catch (error) {
    clear(list).append(errorBox(error, "kinds-error"));
    return;
  }
  clear(list);
  for (const k of kinds) {
    list.append(
      el(
        "button",
        {
          type: "button",
          class: "kind-card",
          "aria-pressed": "false",
          "data-kind": k.kind,
          "data-testid": `kind-${k.kind}`,
          onclick: () => chooseKind(k.kind),
        },
        el("strong", {}, k.label ?? k.kind),
        el("span", {}, KIND_HELP[k.kind] ?? ""),
      ),
    );
  }
}

function chooseKind(kind) {
  selectedKind = kinds.find((k) => k.kind === kind);
  for (const b of $("kind-list").querySelectorAll(".kind-card"))
    b.setAttribute("aria-pressed", String(b.dataset.kind === kind));
  const formEl = $("scenario-form");
  clear(formEl);
  formEl.hidden = false;
  const stamp = new Date().toISOString().slice(0, 16).replace("T", " ");
  const nameId = "scenario-name";
  formEl.append(
    el(
      "div",
      { class: "form-grid" },
      el(
        "div",
        { class: "field", "data-path": "name" },
        el("label", { for: nameId }, "Name"),
        el("input", {
          id: nameId,
          name: "name",
          required: true,
          maxlength: 128,
          value: `${selectedKind.label ?? kind} ${stamp}`,
          "data-testid": "scenario-name",
        }),
        el("div", { class: "field-error", hidden: true, id: "name-error" }),
      ),
      el(
        "div",
        { class: "field" },
        el("label", { for: "run-replicas" }, "Replicas"),
        el("input", {
          id: "run-replicas",
          type: "number",
          min: 1,
          max: 1000,
          step: 1,
          value: 10,
          "data-testid": "run-replicas",
        }),
        el("div", { class: "field-help" }, "independent Monte Carlo replicas, 1–1000"),
        el("div", { class: "field-error", hidden: true, id: "replicas-error" }),
      ),
      el(
        "div",
        { class: "field" },
        el("label", { for: "run-seed" }, "Seed"),
        el("input", {
          id: "run-seed",
          type: "number",
          min: 0,
          step: 1,
          placeholder: "random",
          "data-testid": "run-seed",
        }),
        el("div", { class: "field-help" }, "same seed, same results"),
        el("div", { class: "field-error", hidden: true, id: "seed-error" }),
      ),
    ),
  );
  const paramsBox = el("div", { "data-testid": "param-fields" });
  formEl.append(el("h3", { class: "params-title" }, "Parameters"), paramsBox);
  form = new SchemaForm(paramsBox, selectedKind.schema, selectedKind.defaults);
  const launch = el(
    "button",
    {
      type: "submit",
      class: "button-primary",
      "data-testid": "launch",
      disabled: !state.canWrite,
      title: state.canWrite ? null : "Launching runs needs the planner role",
    },
    "Save & launch",
  );
  formEl.append(
    el("div", { id: "form-errors", "data-testid": "form-errors", "aria-live": "assertive" }),
    el(
      "div",
      { class: "button-row" },
      launch,
      el("button", { type: "button", class: "button-quiet", onclick: () => chooseKind(kind) }, "Reset to defaults"),
    ),
  );
  formEl.onsubmit = (e) => {
    e.preventDefault();
    launchScenario();
  };
}

function setError(id, message) {
  const node = $(id);
  if (!node) return;
  node.hidden = !message;
  node.textContent = message ?? "";
}

function clientChecks() {
  let ok = true;
  const name = $("scenario-name").value.trim();
  setError("name-error", name ? null : "A name is required.");
  ok &&= Boolean(name);
  const replicas = Number($("run-replicas").value);
  const replicasOk = Number.isInteger(replicas) && replicas >= 1 && replicas <= 1000;
  setError("replicas-error", replicasOk ? null : "Replicas must be a whole number from 1 to 1000.");
  ok &&= replicasOk;
  const seedText = $("run-seed").value.trim();
  const seedOk = seedText === "" || (Number.isInteger(Number(seedText)) && Number(seedText) >= 0);
  setError("seed-error", seedOk ? null : "The seed is a whole number ≥ 0, or empty.");
  ok &&= seedOk;
  const paramErrors = form.validateAll();
  return ok && paramErrors.length === 0;
}

async function launchScenario() {
  const box = $("form-errors");
  clear(box);
  if (!state.canWrite) return;
  if (!clientChecks()) {
    box.append(
      el("p", { class: "notice notice-error", role: "alert" }, "Some values need fixing before the run can start."),
    );
    form.focusFirstError();
    return;
  }
  const button = $("scenario-form").querySelector("[data-testid=launch]");
  button.disabled = true;
  button.textContent = "Launching…";
  try {
    let scenario;
    try {
      scenario = await api.post("/api/scenarios/", {
        campus: state.campusId,
        kind: selectedKind.kind,
        name: $("scenario-name").value.trim(),
        params: form.value(),
      });
    } catch (error) {
      if (error instanceof ApiError && error.status === 400) {
        showApiErrors(error);
        return;
      }
      throw error;
    }
    const seedText = $("run-seed").value.trim();
    const run = await api.post(`/api/scenarios/${scenario.id}/run/`, {
      replicas: Number($("run-replicas").value),
      ...(seedText ? { seed: Number(seedText) } : {}),
    });
    await loadRuns();
    openRun(run.id);
  } catch (error) {
    if (error instanceof ApiError && error.status === 400) showApiErrors(error);
    else box.append(errorBox(error, "launch-error"));
  } finally {
    button.disabled = !state.canWrite;
    button.textContent = "Save & launch";
  }
}

function showApiErrors(error) {
  const box = $("form-errors");
  const fields = error.fieldErrors();
  const params = {};
  const other = [];
  for (const [path, message] of Object.entries(fields)) {
    if (path.startsWith("params.")) params[path.slice(7)] = message;
    else if (path === "params") other.push(message);
    else if (path === "name") setError("name-error", message);
    else if (path === "replicas") setError("replicas-error", message);
    else if (path === "seed") setError("seed-error", message);
    else other.push(`${path}: ${message}`);
  }
  other.push(...form.showErrors(params));
  const where = other.length ? other.join(" ") : "The fields concerned are marked above.";
  box.append(
    el(
      "div",
      { class: "notice notice-error", role: "alert", "data-testid": "api-errors" },
      "The API refused these values. ",
      where,
    ),
  );
  form.focusFirstError();
}

// ------------------------------------------------------------------ run list

async function loadRuns() {
  const box = $("run-list");
  try {
    const page = await api.get(`/api/runs/${qs({ campus: state.campusId, ordering: "-created", limit: 50 })}`);
    runs = Array.isArray(page) ? page : (page.results ?? []);
  } catch (error) {
    clear(box).append(errorBox(error, "runs-error"));
    return;
  }
  renderRuns();
}

function renderRuns() {
  const box = $("run-list");
  clear(box);
  if (!runs.length) {
    box.append(el("p", { class: "muted" }, "No runs yet. Pick a kind on the left and launch one."));
    return;
  }
  box.append(
    el(
      "table",
      { class: "table compact run-list-table" },
      el(
        "thead",
        {},
        el(
          "tr",
          {},
          el("th", {}, el("span", { class: "visually-hidden" }, "Compare")),
          el("th", {}, "Run"),
          el("th", {}, "Scenario"),
          el("th", {}, "Status"),
          el("th", { class: "num" }, "Replicas"),
          el("th", {}, "Created"),
        ),
      ),
      el(
        "tbody",
        {},
        runs.map((r) =>
          el(
            "tr",
            {
              "data-run-id": r.id,
              "data-testid": "run-row",
              class: r.id === openRunId ? "selected" : "",
              onclick: (e) => (e.target.tagName !== "INPUT" ? openRun(r.id) : null),
            },
            el(
              "td",
              {},
              el("input", {
                type: "checkbox",
                "aria-label": `Compare run ${r.id}`,
                checked: compareSet.has(r.id),
                disabled: r.status !== "succeeded",
                onchange: (e) => toggleCompare(r.id, e.target.checked),
              }),
            ),
            el(
              "td",
              {},
              el("a", { href: `?run=${r.id}`, onclick: (e) => (e.preventDefault(), openRun(r.id)) }, `#${r.id}`),
            ),
            el("td", {}, r.scenario_name ?? "", el("div", { class: "muted small" }, r.kind ?? "")),
            el(
              "td",
              {},
              statusBadge(r),
              r.flagged
                ? el("span", { class: "flag", title: "A threshold of its schedule was crossed" }, "flagged")
                : null,
            ),
            el("td", { class: "num" }, `${f.num(r.replicas_done ?? 0)}/${f.num(r.replicas)}`),
            el("td", { class: "small" }, f.dateTime(r.created)),
          ),
        ),
      ),
    ),
  );
}

function statusBadge(r) {
  return el("span", { class: `status status-${r.status}`, "data-testid": "run-status" }, r.status);
}

function toggleCompare(id, on) {
  if (on) compareSet.add(id);
  else compareSet.delete(id);
  $("compare-button").disabled = compareSet.size < 2;
  $("compare-button").textContent = compareSet.size >= 2 ? `Compare ${compareSet.size} runs` : "Compare selected";
}

$("compare-button").addEventListener("click", () => compareRuns([...compareSet]));

// ------------------------------------------------------------------ one run

async function openRun(id) {
  openRunId = id;
  clearTimeout(pollTimer);
  const url = new URL(window.location.href);
  url.searchParams.set("run", id);
  history.replaceState(null, "", url);
  for (const row of document.querySelectorAll("[data-testid=run-row]"))
    row.classList.toggle("selected", Number(row.dataset.runId) === id);
  const box = $("run-detail");
  box.hidden = false;
  destroyCharts(box);
  clear(box).append(el("p", { class: "loading" }, `Loading run #${id}…`));
  box.scrollIntoView({ behavior: "smooth", block: "start" });
  await poll(id, true);
}

async function poll(id, first = false) {
  if (id !== openRunId) return;
  let run;
  try {
    run = await api.get(`/api/runs/${id}/`);
  } catch (error) {
    clear($("run-detail")).append(errorBox(error, "run-error"));
    return;
  }
  if (id !== openRunId) return;
  const active = run.status === "queued" || run.status === "running";
  if (active || first) renderRunHead(run);
  if (active) {
    pollTimer = setTimeout(() => poll(id), POLL_MS);
    return;
  }
  const row = runs.find((r) => r.id === id);
  if (row && row.status !== run.status) {
    Object.assign(row, run);
    renderRuns();
  }
  renderRunHead(run);
  if (run.status === "succeeded") await renderResults(run);
}

function renderRunHead(run) {
  const box = $("run-detail");
  destroyCharts(box);
  box.dataset.runId = run.id;
  box.dataset.status = run.status;
  delete box.dataset.results;
  const active = run.status === "queued" || run.status === "running";
  const pct = Math.round((run.progress ?? 0) * 100);
  fill(
    box,
    el(
      "div",
      { class: "card-head" },
      el("h2", {}, `Run #${run.id} · ${run.scenario_name ?? ""}`),
      el(
        "div",
        { class: "button-row" },
        active && state.canWrite
          ? el(
              "button",
              { type: "button", class: "button", "data-testid": "cancel-run", onclick: () => cancelRun(run.id) },
              "Cancel",
            )
          : null,
        el("button", { type: "button", class: "icon-button", "aria-label": "Close run", onclick: closeRun }, "×"),
      ),
    ),
    el(
      "div",
      { class: "run-meta" },
      statusBadge(run),
      " ",
      el(
        "span",
        { class: "muted" },
        [
          run.kind,
          `${f.num(run.replicas_done ?? 0)} of ${f.num(run.replicas)} replicas`,
          `seed ${run.seed ?? "–"}`,
          run.duration_s != null ? `${f.num(run.duration_s, 1)} s` : null,
          run.created_by ? `by ${run.created_by}` : null,
        ]
          .filter((part) => part != null)
          .join(" · "),
      ),
    ),
    active
      ? el(
          "div",
          {
            class: "progress",
            role: "progressbar",
            "aria-valuemin": 0,
            "aria-valuemax": 100,
            "aria-valuenow": pct,
            "data-testid": "run-progress",
          },
          el("div", { style: { width: `${pct}%` } }),
        )
      : null,
    active ? el("p", { class: "muted small" }, `${pct} % done — this page follows the run.`) : null,
    run.status === "failed"
      ? el("p", { class: "notice notice-error", "data-testid": "run-failed" }, run.error || "The run failed.")
      : null,
    run.flagged
      ? el(
          "div",
          { class: "notice notice-warn", "data-testid": "run-flags" },
          el("strong", {}, "Flagged: "),
          (run.flag_reasons ?? []).map((r) =>
            el(
              "span",
              { class: "flag" },
              typeof r === "object" ? (r.message ?? `${r.metric} ${r.op} ${r.value}`) : String(r),
            ),
          ),
        )
      : null,
  );
}

function closeRun() {
  openRunId = null;
  clearTimeout(pollTimer);
  const box = $("run-detail");
  destroyCharts(box);
  box.hidden = true;
  const url = new URL(window.location.href);
  url.searchParams.delete("run");
  history.replaceState(null, "", url);
}

async function cancelRun(id) {
  try {
    await api.post(`/api/runs/${id}/cancel/`);
  } catch (error) {
    $("run-detail").append(errorBox(error));
  }
  poll(id);
}

function summaryTable(metrics, testid = "summary-table") {
  const names = Object.keys(metrics ?? {}).sort();
  return el(
    "table",
    { class: "table compact", "data-testid": testid },
    el(
      "thead",
      {},
      el(
        "tr",
        {},
        el("th", {}, "Metric"),
        el("th", { class: "num" }, "Mean"),
        el("th", { class: "num" }, "p5"),
        el("th", { class: "num" }, "p50"),
        el("th", { class: "num" }, "p95"),
        el("th", { class: "num" }, "95 % CI of the mean"),
      ),
    ),
    el(
      "tbody",
      {},
      names.map((name) => {
        const s = metrics[name] ?? {};
        const v = (x) => f.num(x, Math.abs(x ?? 0) < 10 ? 3 : 1);
        return el(
          "tr",
          { "data-metric": name },
          el("td", {}, f.label(name)),
          el("td", { class: "num" }, v(s.mean)),
          el("td", { class: "num" }, v(s.p5)),
          el("td", { class: "num" }, v(s.p50)),
          el("td", { class: "num" }, v(s.p95)),
          el("td", { class: "num" }, s.ci95_low != null ? `${v(s.ci95_low)} – ${v(s.ci95_high)}` : "–"),
        );
      }),
    ),
  );
}

/** Percentile bars (p5–p95 range, median tick) for every metric, scaled per metric. */
function percentileBars(metrics) {
  const varying = Object.values(metrics ?? {}).some((s) => s?.p5 != null && s?.p95 > s?.p5);
  if (!varying)
    return el("p", { class: "muted", "data-testid": "percentile-bars" }, "No metric varies over the replicas.");
  return el(
    "div",
    { class: "dist", "data-testid": "percentile-bars" },
    Object.entries(metrics ?? {}).map(([name, s]) => {
      // Only metrics that vary over the replicas: a constant has no spread to show.
      if (s?.p5 == null || s?.p95 == null || !(s.p95 > s.p5)) return null;
      const lo = Math.min(s.p5, s.min ?? s.p5);
      const hi = Math.max(s.p95, s.max ?? s.p95);
      const span = hi - lo || 1;
      const pos = (x) => `${(100 * (x - lo)) / span}%`;
      return el(
        "div",
        { "data-metric": name },
        el("div", { class: "small" }, el("strong", {}, f.label(name)), ` ${f.num(s.p50 ?? s.mean, 3)}`),
        el(
          "div",
          { class: "pbar", role: "img", "aria-label": `${name}: p5 ${s.p5}, p50 ${s.p50}, p95 ${s.p95}` },
          el("div", { class: "range", style: { left: pos(s.p5), width: `${(100 * (s.p95 - s.p5)) / span}%` } }),
          el("div", { class: "mid", style: { left: pos(s.p50 ?? s.mean) } }),
        ),
        el("div", { class: "muted small" }, `p5 ${f.num(s.p5, 3)} · p95 ${f.num(s.p95, 3)}`),
      );
    }),
  );
}

async function seriesFor(runId) {
  const index = await api.get(`/api/runs/${runId}/timeseries/`);
  const metrics = index.metrics ?? [];
  const plain = metrics.filter((m) => !rackSeriesMetrics([m]).length);
  return { all: metrics, plain };
}

async function renderResults(run) {
  const box = $("run-detail");
  const metrics = run.summary?.metrics ?? {};
  const chartsBox = el("div", { class: "charts", "data-testid": "run-charts" });
  const dist = el("div", { class: "charts", "data-testid": "run-distributions" });
  const byCause = run.summary?.by_cause ?? {};
  box.append(
    el(
      "h3",
      { class: "results-title" },
      "Time series",
      el("span", { class: "muted small" }, " — mean over replicas; the band spans the 5th to 95th percentile"),
    ),
    chartsBox,
    el("h3", { class: "results-title" }, "Distributions over replicas"),
    dist,
    el(
      "div",
      { class: "results-grid" },
      el("div", {}, el("h3", { class: "results-title" }, "Summary over replicas"), summaryTable(metrics)),
      el(
        "div",
        {},
        Object.keys(byCause).length
          ? [
              el("h3", { class: "results-title" }, "Interruptions by cause (mean per replica)"),
              el(
                "dl",
                { class: "kv", "data-testid": "by-cause" },
                Object.entries(byCause).flatMap(([k, v]) => [
                  el("dt", {}, f.label(k)),
                  el("dd", {}, typeof v === "object" ? f.num(v.mean ?? 0, 2) : f.num(v, 2)),
                ]),
              ),
            ]
          : null,
        el("h3", { class: "results-title" }, "Spread (p5–p95, median)"),
        percentileBars(metrics),
      ),
    ),
  );

  try {
    const { all, plain } = await seriesFor(run.id);
    if (rackSeriesMetrics(all).length) {
      box.insertBefore(
        el(
          "p",
          { class: "notice" },
          "This run has per-rack series. ",
          el(
            "a",
            { href: `/campuses/${state.campusId}/map/?run=${run.id}&metric=temperature`, "data-testid": "replay-link" },
            "Replay it on the floor map",
          ),
        ),
        box.querySelector(".results-title"),
      );
    }
    if (!plain.length) chartsBox.append(el("p", { class: "muted" }, "This run recorded no time series."));
    const wanted = prioritise(plain).slice(0, MAX_CHARTS);
    const data = await Promise.all(wanted.map((m) => api.get(`/api/runs/${run.id}/timeseries/${qs({ metric: m })}`)));
    if (run.id !== openRunId) return;
    for (const d of data) {
      timeChart(chartsBox, {
        title: f.label(d.metric),
        series: [{ label: `#${run.id}`, t: d.t_hours, values: d.values, p5: d.p5, p95: d.p95 }],
      });
    }
  } catch (error) {
    chartsBox.append(errorBox(error));
  }

  try {
    const page = await api.get(`/api/runs/${run.id}/replicas/${qs({ limit: 1000 })}`);
    const reps = Array.isArray(page) ? page : (page.results ?? []);
    if (run.id !== openRunId) return;
    if (reps.length > 1) {
      const names = prioritise(
        Object.keys(reps[0].metrics ?? {}).filter((n) => new Set(reps.map((r) => r.metrics?.[n])).size > 1),
      ).slice(0, 6);
      for (const name of names) histogram(dist, { title: f.label(name), values: reps.map((r) => r.metrics?.[name]) });
      if (!names.length) dist.append(el("p", { class: "muted" }, "Every replica gave the same figures."));
    } else {
      dist.append(el("p", { class: "muted" }, "One replica: no distribution to show."));
    }
  } catch (error) {
    dist.append(errorBox(error));
  }
  box.dataset.results = "ready";
}

// Charts people look at first: power, temperature, throughput, then the rest.
function prioritise(names) {
  const rank = (n) => {
    const order = [/power|_kw|_mw/, /temp/, /throughput|goodput|tflops|ettr/, /cost|energy/];
    const i = order.findIndex((re) => re.test(n));
    return i < 0 ? order.length : i;
  };
  return [...names].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

// ------------------------------------------------------------------ compare

async function compareRuns(ids) {
  const box = $("compare-view");
  box.hidden = false;
  delete box.dataset.ready;
  destroyCharts(box);
  clear(box).append(el("p", { class: "loading" }, "Comparing…"));
  box.scrollIntoView({ behavior: "smooth", block: "start" });
  try {
    const data = await api.get(`/api/runs/compare/${qs({ ids: ids.join(",") })}`);
    clear(box);
    box.append(
      el(
        "div",
        { class: "card-head" },
        el("h2", {}, `Compare runs ${data.runs.map((r) => `#${r.id}`).join(" vs ")}`),
        el(
          "button",
          {
            type: "button",
            class: "icon-button",
            "aria-label": "Close comparison",
            onclick: () => ((box.hidden = true), destroyCharts(box)),
          },
          "×",
        ),
      ),
      el(
        "p",
        { class: "muted small" },
        `Baseline #${data.baseline}; Δ is the difference of the means; ✔ where the 95 % intervals do not overlap.`,
      ),
    );
    const table = el(
      "table",
      { class: "table compact", "data-testid": "compare-table" },
      el(
        "thead",
        {},
        el(
          "tr",
          {},
          el("th", {}, "Metric"),
          data.runs.map((r) => el("th", { class: "num" }, `#${r.id} ${r.scenario_name}`)),
        ),
      ),
      el(
        "tbody",
        {},
        Object.entries(data.metrics).map(([name, entries]) =>
          el(
            "tr",
            { "data-metric": name },
            el("td", {}, f.label(name)),
            entries.map((e) => {
              const s = e.stats ?? {};
              const d = e.vs_baseline;
              return el(
                "td",
                { class: "num" },
                f.num(s.mean, Math.abs(s.mean ?? 0) < 10 ? 3 : 1),
                d ? el("div", { class: `small ${d.significant ? "bad" : "muted"}` }, deltaText(d)) : null,
              );
            }),
          ),
        ),
      ),
    );
    box.append(table);
    // Side by side: each run's charts in its own column, one y range per metric so the eye can compare.
    const grid = el("div", { class: "compare-grid" });
    box.append(grid);
    const pair = data.runs.slice(0, 2);
    const lists = await Promise.all(pair.map((r) => seriesFor(r.id).then((s) => s.plain)));
    const shared = prioritise(lists[0].filter((m) => lists.slice(1).every((l) => l.includes(m)))).slice(0, 4);
    const series = await Promise.all(
      pair.map((r) => Promise.all(shared.map((m) => api.get(`/api/runs/${r.id}/timeseries/${qs({ metric: m })}`)))),
    );
    const columns = pair.map((r) => {
      const col = el(
        "div",
        { "data-testid": "compare-column", "data-run-id": r.id },
        el("h3", {}, `#${r.id} ${r.scenario_name}`),
      );
      grid.append(col);
      return col;
    });
    shared.forEach((metric, k) => {
      const all = series
        .flatMap((s) => [...(s[k].p5 ?? []), ...(s[k].p95 ?? []), ...s[k].values])
        .filter((v) => v != null);
      const lo = Math.min(...all);
      const hi = Math.max(...all);
      const pad = (hi - lo) * 0.05 || Math.abs(hi) * 0.05 || 1;
      pair.forEach((r, i) => {
        const d = series[i][k];
        timeChart(columns[i], {
          title: f.label(metric),
          series: [{ label: `#${r.id}`, t: d.t_hours, values: d.values, p5: d.p5, p95: d.p95 }],
          yRange: [lo - pad, hi + pad],
          testid: "compare-chart",
        });
      });
    });
    box.dataset.ready = "true";
  } catch (error) {
    clear(box).append(errorBox(error, "compare-error"));
  }
}

// ------------------------------------------------------------------ schedules

async function loadSchedules() {
  const box = $("schedule-list");
  let schedules;
  try {
    schedules = await api.all(`/api/schedules/${qs({ campus: state.campusId })}`);
  } catch (error) {
    clear(box).append(errorBox(error, "schedules-error"));
    return;
  }
  clear(box);
  if (!schedules.length) {
    box.append(
      el("p", { class: "muted" }, "No scheduled runs. Administrators add them through the API (/api/schedules/)."),
    );
    return;
  }
  box.append(
    el(
      "table",
      { class: "table compact", "data-testid": "schedule-table" },
      el(
        "thead",
        {},
        el(
          "tr",
          {},
          el("th", {}, "Name"),
          el("th", {}, "When (UTC)"),
          el("th", { class: "num" }, "Replicas"),
          el("th", {}, "Thresholds"),
          el("th", {}, "Last run"),
          el("th", {}, "Enabled"),
        ),
      ),
      el(
        "tbody",
        {},
        schedules.map((s) =>
          el(
            "tr",
            { "data-schedule-id": s.id },
            el("td", {}, s.name),
            el("td", {}, s.crontab || (s.interval_seconds ? `every ${f.num(s.interval_seconds)} s` : "–")),
            el("td", { class: "num" }, f.num(s.replicas)),
            el(
              "td",
              { class: "small" },
              (s.thresholds ?? [])
                .map((t) => `${t.metric}${t.stat ? ` (${t.stat})` : ""} ${t.op} ${t.value}`)
                .join("; ") || "–",
            ),
            el(
              "td",
              {},
              s.last_run
                ? [
                    el(
                      "a",
                      { href: `?run=${s.last_run.id}`, onclick: (e) => (e.preventDefault(), openRun(s.last_run.id)) },
                      `#${s.last_run.id}`,
                    ),
                    " ",
                    statusBadge(s.last_run),
                    s.last_run.flagged
                      ? el("span", { class: "flag" }, "flagged")
                      : s.last_run.status === "succeeded"
                        ? el("span", { class: "flag flag-ok" }, "ok")
                        : null,
                    el("div", { class: "muted small" }, f.dateTime(s.last_run.created)),
                  ]
                : el("span", { class: "muted" }, "not run yet"),
            ),
            el("td", {}, s.enabled ? "yes" : "no"),
          ),
        ),
      ),
    ),
  );
}

// ------------------------------------------------------------------ start

loadKinds();
loadRuns().then(() => {
  if (state.runId) openRun(state.runId);
});
loadSchedules();

// The difference from the baseline: in % of it when the baseline is not zero, else absolute; ✔ when the 95%
// intervals are apart.
function deltaText(d) {
  const sign = d.mean_delta_pct > 0 ? "+" : "";
  const delta = d.mean_delta_pct != null ? `${sign}${f.num(d.mean_delta_pct, 1)} %` : f.num(d.mean_delta, 3);
  return `Δ ${delta}${d.significant ? " ✔" : ""}`;
}
