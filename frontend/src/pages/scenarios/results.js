// @ts-check
// A finished run's results: time series with their percentile bands, distributions over the replicas, the
// summary table, interruptions by cause, the spread of every metric, and a link to replay per-rack series.
import { api, qs } from "../../lib/api.js";
import { $, add, el, errorBox } from "../../lib/dom.js";
import { histogram, timeChart } from "../../lib/charts.js";
import * as f from "../../lib/format.js";
import { rackSeriesMetrics } from "../../lib/replay.js";
import { renderDynamics } from "./dynamics.js";
import { renderTraining } from "./training.js";
import {
  causeLabel,
  loadCatalogue,
  metricInfo,
  metricLabel,
  metricNumber,
  metricShown,
  seriesTitle,
} from "../../lib/catalogue.js";
import { runTitle } from "../../lib/units.js";
import { prioritise, seriesFor } from "./shared.js";
import { renderSweep } from "./sweep.js";

const MAX_CHARTS = 8;

/**
 * Whether a run's figures are single values: one replica (a deterministic kind runs one), or replicas that all
 * gave the same figures. Its statistics would be five equal columns; the page shows each figure once.
 */
export function singleValued(run) {
  if ((run.summary?.replicas ?? run.replicas) === 1) return true;
  const stats = Object.values(run.summary?.metrics ?? {});
  return stats.length > 0 && stats.every((s) => s?.p5 != null && s.p5 === s.p95 && s.p5 === s.mean);
}

/** The figures of a single-valued run: one value per metric. */
function valueTable(kind, metrics, testid = "summary-table") {
  const names = Object.keys(metrics ?? {}).sort((a, b) => metricLabel(kind, a).localeCompare(metricLabel(kind, b)));
  return el(
    "table",
    { class: "table compact", "data-testid": testid, "data-single": "true" },
    el("thead", {}, el("tr", {}, el("th", {}, "Metric"), el("th", { class: "num" }, "Value"))),
    el(
      "tbody",
      {},
      names.map((name) =>
        el(
          "tr",
          { "data-metric": name },
          el("td", { title: metricInfo(kind, name).description || null }, metricLabel(kind, name)),
          el("td", { class: "num" }, metricNumber(kind, name, metrics[name]?.mean)),
        ),
      ),
    ),
  );
}

function summaryTable(kind, metrics, testid = "summary-table") {
  const names = Object.keys(metrics ?? {}).sort((a, b) => metricLabel(kind, a).localeCompare(metricLabel(kind, b)));
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
        const v = (x) => metricNumber(kind, name, x);
        const info = metricInfo(kind, name);
        // Replicas that all gave this figure: it is shown once, not as five equal statistics.
        const agreed = s.p5 != null && s.p5 === s.p95 && s.p5 === s.mean;
        if (agreed)
          return el(
            "tr",
            { "data-metric": name, "data-agreed": "true" },
            el("td", { title: info.description || null }, metricLabel(kind, name)),
            el("td", { class: "num" }, v(s.mean)),
            el("td", { colspan: 4, class: "muted small" }, "the same in every replica"),
          );
        return el(
          "tr",
          { "data-metric": name },
          el("td", { title: info.description || null }, metricLabel(kind, name)),
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
function percentileBars(kind, metrics) {
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
        el(
          "div",
          { class: "small" },
          el("strong", {}, metricLabel(kind, name)),
          ` ${metricNumber(kind, name, s.p50 ?? s.mean)}`,
        ),
        el(
          "div",
          {
            class: "pbar",
            role: "img",
            "aria-label": [
              `${metricLabel(kind, name)}: p5 ${metricNumber(kind, name, s.p5)}`,
              `median ${metricNumber(kind, name, s.p50)}`,
              `p95 ${metricNumber(kind, name, s.p95)}`,
            ].join(", "),
          },
          el("div", { class: "range", style: { left: pos(s.p5), width: `${(100 * (s.p95 - s.p5)) / span}%` } }),
          el("div", { class: "mid", style: { left: pos(s.p50 ?? s.mean) } }),
        ),
        el(
          "div",
          { class: "muted small" },
          `p5 ${metricNumber(kind, name, s.p5)} · p95 ${metricNumber(kind, name, s.p95)}`,
        ),
      );
    }),
  );
}

/** What the run showed, in words (the API's explanation), first on the page. */
function explanation(run) {
  const sentences = run.explanation ?? [];
  if (!sentences.length) return null;
  return el(
    "section",
    { class: "explanation", "data-testid": "run-explanation", "aria-labelledby": `explain-${run.id}` },
    el("h3", { class: "results-title", id: `explain-${run.id}` }, "What happened"),
    el(
      "ul",
      {},
      sentences.map((s) => el("li", {}, s)),
    ),
  );
}

/** Where a replayed run's load came from (the run's own parameters: the series it replayed), or null. */
function loadSource(run) {
  const source = run.params?.load_source;
  if (!source || source.kind === "synthetic" || !source.kind) return null;
  const count = source.values_kw?.length ?? 0;
  const text =
    source.kind === "measured"
      ? `Load replayed from the measured power of ${source.object_kind === "building" ? "building " : "campus "}` +
        `${source.object_name ?? ""}, ${source.start ?? "?"} to ${source.end ?? "?"} ` +
        `(${count} 5-minute means${source.filled_steps ? `, ${source.filled_steps} filled in` : ""}` +
        `${source.last_hours != null ? `; the last ${source.last_hours} h before the run` : ""}).`
      : `Load replayed from a given series of ${count} values, one every ${source.step_seconds} s.`;
  return el("p", { class: "load-source", "data-testid": "load-source" }, text);
}

export async function renderResults(page, run) {
  const box = $("run-detail");
  const kind = run.kind;
  try {
    await loadCatalogue();
  } catch {
    // labels fall back to the names
  }
  if (run.sweep) {
    box.append(explanation(run) ?? "");
    await renderSweep(box, run);
    box.dataset.results = "ready";
    return;
  }
  const metrics = run.summary?.metrics ?? {};
  const chartsBox = el("div", { class: "charts", "data-testid": "run-charts" });
  const dist = el("div", { class: "charts", "data-testid": "run-distributions" });
  // a training step's causes are the seconds of its step, shown with their words above ("Where the step goes")
  const byCause = run.kind === "training_step" ? {} : (run.summary?.by_cause ?? {});
  box.append(loadSource(run) ?? "", explanation(run) ?? "");
  if (run.kind === "power_dynamics") renderDynamics(box, run);
  if (run.kind === "training_step") renderTraining(box, run);
  const single = singleValued(run);
  // add, not the DOM's append: a one-replica run leaves the distributions out (null), which append wrote as "null"
  add(
    box,
    el(
      "h3",
      { class: "results-title series-title" },
      "Time series",
      single
        ? el("span", { class: "muted small" }, " — one replica: this run gives the same figures every time")
        : el("span", { class: "muted small" }, " — mean over replicas; the band spans the 5th to 95th percentile"),
    ),
    chartsBox,
    single ? null : el("h3", { class: "results-title" }, "Distributions over replicas"),
    single ? null : dist,
    el(
      "div",
      { class: "results-grid" },
      single
        ? el("div", {}, el("h3", { class: "results-title" }, "Results"), valueTable(kind, metrics))
        : el("div", {}, el("h3", { class: "results-title" }, "Summary over replicas"), summaryTable(kind, metrics)),
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
                  el("dt", {}, causeLabel(kind, k)),
                  el("dd", {}, f.sig(typeof v === "object" ? (v.mean ?? 0) : v)),
                ]),
              ),
            ]
          : null,
        single ? null : el("h3", { class: "results-title" }, "Spread (p5–p95, median)"),
        single ? null : percentileBars(kind, metrics),
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
            { href: `/campuses/${page.campusId}/map/?run=${run.id}&metric=temperature`, "data-testid": "replay-link" },
            "Replay it on the floor map",
          ),
        ),
        box.querySelector(".series-title"),
      );
    }
    if (!plain.length) chartsBox.append(el("p", { class: "muted" }, "This run recorded no time series."));
    const wanted = prioritise(plain).slice(0, MAX_CHARTS);
    const data = await Promise.all(wanted.map((m) => api.get(`/api/runs/${run.id}/timeseries/${qs({ metric: m })}`)));
    if (run.id !== page.openRunId) return;
    for (const d of data) {
      const { title, scale } = seriesTitle(kind, d);
      const scaled = (xs) => (xs ? xs.map((x) => (x == null ? x : x * scale)) : xs);
      timeChart(chartsBox, {
        title,
        series: [
          { label: runTitle(run), t: d.t_hours, values: scaled(d.values), p5: scaled(d.p5), p95: scaled(d.p95) },
        ],
      });
    }
  } catch (error) {
    chartsBox.append(errorBox(error));
  }

  try {
    const body = await api.get(`/api/runs/${run.id}/replicas/${qs({ limit: 1000 })}`);
    const reps = Array.isArray(body) ? body : (body.results ?? []);
    if (run.id !== page.openRunId) return;
    if (reps.length > 1) {
      const names = prioritise(
        Object.keys(reps[0].metrics ?? {}).filter((n) => new Set(reps.map((r) => r.metrics?.[n])).size > 1),
      ).slice(0, 6);
      for (const name of names) {
        const { factor } = metricShown(kind, name);
        histogram(dist, {
          title: metricLabel(kind, name),
          values: reps.map((r) => (r.metrics?.[name] != null ? r.metrics[name] * factor : r.metrics?.[name])),
        });
      }
      if (!names.length) dist.append(el("p", { class: "muted" }, "Every replica gave the same figures."));
    } else {
      dist.append(el("p", { class: "muted" }, "One replica: no distribution to show."));
    }
  } catch (error) {
    dist.append(errorBox(error));
  }
  box.dataset.results = "ready";
}
