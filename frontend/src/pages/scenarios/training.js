// @ts-check
// A training_step run: the step's breakdown, the scaling curve with where its linearity breaks and why, and
// the sweep over TP x PP. Everything comes from the run's summary (summary.details: step, checkpoint,
// scaling, sweep).
import { add, el } from "../../lib/dom.js";
import { SERIES_COLORS } from "../../lib/colors.js";
import { mount } from "../../lib/charts.js";
import * as f from "../../lib/format.js";
import { COSTS, TIERS, breakSentence } from "../../lib/scaling.js";

const axisStyle = { stroke: "#4a5568", grid: { stroke: "#e7ebf0", width: 1 }, ticks: { stroke: "#d6dce5", width: 1 } };

function breakdownList(step) {
  const parts = Object.entries(step?.breakdown_s ?? {}).filter(([, v]) => v > 0);
  const total = step?.step_s || 1;
  const tiers = Object.fromEntries(Object.entries(step?.collectives ?? {}).map(([k, c]) => [k, c.tier]));
  return el(
    "dl",
    { class: "kv", "data-testid": "step-breakdown" },
    ...parts.flatMap(([name, seconds]) => [
      el("dt", {}, COSTS[name] ?? name),
      el(
        "dd",
        {},
        `${f.num(seconds, 3)} s (${f.pct(seconds / total)})` +
          (tiers[name] ? ` — ${TIERS[tiers[name]] ?? tiers[name]}` : ""),
      ),
    ]),
  );
}

function scalingChart(container, curve) {
  if (!curve?.length) return null;
  const pts = [...curve].sort((a, b) => a.gpus - b.gpus);
  const box = el("div", { class: "chart", "data-testid": "scaling" });
  const plot = el("div", {
    class: "chart-plot",
    role: "img",
    "aria-label": `Scaling efficiency from ${f.num(pts[0].gpus)} to ${f.num(pts[pts.length - 1].gpus)} GPUs`,
  });
  box.append(
    el("h3", {}, "Scaling efficiency against GPUs"),
    plot,
    el("p", { class: "muted small" }, breakSentence(pts)),
  );
  container.append(box);
  /** @type {import("../../lib/charts.js").ChartOptions} */
  const opts = {
    series: [
      { label: "GPUs", value: (u, v) => (v == null ? "–" : f.num(v)) },
      {
        label: "linearity",
        stroke: SERIES_COLORS[0],
        width: 2,
        points: { show: true, size: 6 },
        value: (u, v) => (v == null ? "–" : f.pct(v)),
      },
      {
        label: "MFU",
        stroke: SERIES_COLORS[1],
        width: 1.5,
        points: { show: true, size: 4 },
        value: (u, v) => (v == null ? "–" : f.pct(v)),
      },
    ],
    legend: { show: true, live: true },
    scales: { x: { time: false, distr: 3, log: 2 }, y: { auto: false, range: [0, 1.05] } },
    axes: [
      { ...axisStyle, label: "GPUs", labelSize: 18, size: 36, values: (u, ticks) => ticks.map((v) => f.compact(v)) },
      { ...axisStyle, size: 56, values: (u, ticks) => ticks.map((v) => f.pct(v)) },
    ],
  };
  return mount(plot, opts, [pts.map((p) => p.gpus), pts.map((p) => p.linearity), pts.map((p) => p.mfu)]);
}

function scalingTable(curve) {
  if (!curve?.length) return null;
  const rows = [...curve].sort((a, b) => a.gpus - b.gpus);
  return el(
    "table",
    { class: "table", "data-testid": "scaling-table" },
    el(
      "thead",
      {},
      el("tr", {}, ...["GPUs", "step (s)", "MFU", "linearity", "grew most", "its tier"].map((h) => el("th", {}, h))),
    ),
    el(
      "tbody",
      {},
      ...rows.map((p) =>
        el(
          "tr",
          {},
          el("td", {}, f.num(p.gpus)),
          el("td", {}, f.num(p.step_s, 2)),
          el("td", {}, f.pct(p.mfu, 1)),
          el("td", {}, f.pct(p.linearity, 1)),
          el("td", {}, p.grew_most ? (COSTS[p.grew_most] ?? p.grew_most) : "–"),
          el("td", {}, p.grew_most_tier || "–"),
        ),
      ),
    ),
  );
}

function sweepTable(sweep) {
  if (!sweep?.length) return null;
  return el(
    "table",
    { class: "table", "data-testid": "sweep-table" },
    el("thead", {}, el("tr", {}, ...["TP", "PP", "DP", "step (s)", "MFU", "largest cost"].map((h) => el("th", {}, h)))),
    el(
      "tbody",
      {},
      ...sweep.map((p) =>
        el(
          "tr",
          {},
          el("td", {}, f.num(p.tp)),
          el("td", {}, f.num(p.pp)),
          el("td", {}, f.num(p.dp)),
          el("td", {}, p.error ? "–" : f.num(p.step_s, 2)),
          el("td", {}, p.error ? "–" : f.pct(p.mfu, 1)),
          el("td", {}, p.error ? p.error : (COSTS[p.limiter] ?? p.limiter)),
        ),
      ),
    ),
  );
}

/** The training_step section of a finished run, before the generic results. */
export function renderTraining(box, run) {
  const details = run.summary?.details;
  if (!details) return null;
  const section = el("section", { class: "training", "data-testid": "training", "aria-label": "Training step" });
  const charts = el("div", { class: "charts" });
  add(
    section,
    el("h3", { class: "results-title" }, "Where the step goes"),
    breakdownList(details.step),
    el("h3", { class: "results-title" }, "Where linearity breaks, and why"),
    charts,
    scalingTable(details.scaling),
  );
  if (details.sweep?.length)
    add(section, el("h3", { class: "results-title" }, "Sweep over TP x PP"), sweepTable(details.sweep));
  box.append(section);
  scalingChart(charts, details.scaling);
  return section;
}
