// @ts-check
// One run: its head (status, live progress while it runs, cancel, failure and flags), polled until it finishes,
// then its results.
import { api } from "../../lib/api.js";
import { $, clear, el, errorBox, fill } from "../../lib/dom.js";
import { destroyCharts } from "../../lib/charts.js";
import { confidenceText } from "../../lib/confidence.js";
import * as f from "../../lib/format.js";
import { renderResults } from "./results.js";
import { renderRuns } from "./run-list.js";
import { statusBadge } from "./shared.js";
import { sweepCaption } from "./sweep.js";

const POLL_MS = 1000;

export async function openRun(page, id) {
  page.openRunId = id;
  clearTimeout(page.pollTimer);
  const url = new URL(window.location.href);
  url.searchParams.set("run", id);
  history.replaceState(null, "", url);
  for (const row of /** @type {NodeListOf<HTMLTableRowElement>} */ (document.querySelectorAll("[data-testid=run-row]")))
    row.classList.toggle("selected", Number(row.dataset.runId) === id);
  const box = $("run-detail");
  box.hidden = false;
  destroyCharts(box);
  clear(box).append(el("p", { class: "loading" }, `Loading run #${id}…`));
  box.scrollIntoView({ behavior: "smooth", block: "start" });
  await poll(page, id, true);
}

async function poll(page, id, first = false) {
  if (id !== page.openRunId) return;
  let run;
  try {
    run = await api.get(`/api/runs/${id}/`);
  } catch (error) {
    clear($("run-detail")).append(errorBox(error, "run-error"));
    return;
  }
  if (id !== page.openRunId) return;
  const active = run.status === "queued" || run.status === "running";
  if (active || first) renderRunHead(page, run);
  if (active) {
    page.pollTimer = setTimeout(() => poll(page, id), POLL_MS);
    return;
  }
  const row = page.runs.find((r) => r.id === id);
  if (row && row.status !== run.status) {
    Object.assign(row, run);
    renderRuns(page);
  }
  renderRunHead(page, run);
  if (run.status === "succeeded") await renderResults(page, run);
}

function renderRunHead(page, run) {
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
        active && page.canWrite
          ? el(
              "button",
              { type: "button", class: "button", "data-testid": "cancel-run", onclick: () => cancelRun(page, run.id) },
              "Cancel",
            )
          : null,
        el(
          "button",
          { type: "button", class: "icon-button", "aria-label": "Close run", onclick: () => closeRun(page) },
          "×",
        ),
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
          page.kinds?.find((k) => k.kind === run.kind)?.label ?? f.label(run.kind),
          sweepCaption(run),
          `${f.num(run.replicas_done ?? 0)} of ${f.num(run.replicas)} replicas`,
          `seed ${run.seed ?? "–"}`,
          run.as_of ? `campus as of ${run.as_of}` : "campus as designed",
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
    run.confidence
      ? el("p", { class: "small", "data-testid": "run-confidence" }, confidenceText(run.confidence, !active))
      : null,
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

function closeRun(page) {
  page.openRunId = null;
  clearTimeout(page.pollTimer);
  const box = $("run-detail");
  destroyCharts(box);
  box.hidden = true;
  const url = new URL(window.location.href);
  url.searchParams.delete("run");
  history.replaceState(null, "", url);
}

async function cancelRun(page, id) {
  try {
    await api.post(`/api/runs/${id}/cancel/`);
  } catch (error) {
    $("run-detail").append(errorBox(error));
  }
  poll(page, id);
}
