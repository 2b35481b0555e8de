// @ts-check
// uPlot charts: a time series with its 5th–95th percentile band across replicas, and a histogram of a metric
// over replicas. Charts follow their container's width.
import uPlot from "uplot";
import { el } from "./dom.js";
import { SERIES_COLORS } from "./colors.js";
import * as f from "./format.js";

/**
 * uPlot's options less the size, which follows the container.
 * @typedef {Omit<uPlot.Options, "width" | "height"> & {height?: number}} ChartOptions
 */

/** @type {Set<uPlot>} */
const live = new Set();

const observer = new ResizeObserver((entries) => {
  for (const entry of entries) {
    const plot = entry.target.__plot;
    if (!plot) continue;
    const width = Math.floor(entry.contentRect.width);
    if (width > 0 && Math.abs(width - plot.width) > 2) plot.setSize({ width, height: plot.height });
  }
});

/**
 * A uPlot chart in `container`, as wide as it is (and following its width).
 * @param {HTMLElement} container
 * @param {ChartOptions} opts
 * @param {uPlot.AlignedData} data
 */
export function mount(container, opts, data) {
  const width = Math.max(280, Math.floor(container.clientWidth || 460));
  const plot = new uPlot({ ...opts, width, height: opts.height ?? 220 }, data, container);
  container.__plot = plot;
  observer.observe(container);
  live.add(plot);
  return plot;
}

export function destroyCharts(root) {
  for (const plot of [...live]) {
    if (!root || root.contains(plot.root)) {
      observer.unobserve(plot.root.parentElement);
      plot.destroy();
      live.delete(plot);
    }
  }
}

function rgba(hex, alpha) {
  const n = parseInt(hex.slice(1), 16);
  return `rgba(${(n >> 16) & 255}, ${(n >> 8) & 255}, ${n & 255}, ${alpha})`;
}

const axisStyle = { stroke: "#4a5568", grid: { stroke: "#e7ebf0", width: 1 }, ticks: { stroke: "#d6dce5", width: 1 } };

/**
 * series: [{label, t, values, p5?, p95?}] on one time axis (hours). Several runs may share one chart when their
 * time axes are equal; otherwise give one chart per run.
 */
export function timeChart(container, { title, unit = "", series, yRange = null, testid = "chart" }) {
  const banded = series.length === 1 && series[0].p5 && series[0].p95;
  const box = el("div", { class: `chart${banded ? " has-band" : ""}`, "data-testid": testid, "data-metric": title });
  const head = el("h3", {}, title + (unit ? ` (${unit})` : ""));
  const plotBox = el("div", { class: "chart-plot" });
  box.append(head, plotBox);
  container.append(box);
  const t = series[0]?.t ?? [];
  const data = [t];
  /** @type {uPlot.Series[]} */
  const uSeries = [{ label: "time (h)", value: (u, v) => (v == null ? "–" : f.hours(v)) }];
  const bands = [];
  series.forEach((s, k) => {
    const color = SERIES_COLORS[k % SERIES_COLORS.length];
    const base = data.length;
    data.push(s.values);
    uSeries.push({
      label: s.label,
      stroke: color,
      width: 2,
      value: (u, v) => (v == null ? "–" : f.sig(v)),
    });
    if (s.p5 && s.p95) {
      data.push(s.p95, s.p5);
      uSeries.push(
        { label: `${s.label} p95`, stroke: rgba(color, 0.35), width: 1, show: true },
        { label: `${s.label} p5`, stroke: rgba(color, 0.35), width: 1 },
      );
      bands.push({ series: [base + 1, base + 2], fill: rgba(color, 0.14) });
    }
  });
  /** @type {ChartOptions} */
  const opts = {
    series: uSeries,
    bands,
    legend: { show: true, live: true },
    cursor: { drag: { x: true, y: false } },
    scales: { x: { time: false }, y: yRange ? { range: () => yRange } : { auto: true } },
    axes: [
      { ...axisStyle, label: "hours", labelSize: 18, size: 36 },
      { ...axisStyle, size: 56, values: (u, ticks) => f.ticks(ticks) },
    ],
  };
  const plot = mount(plotBox, opts, data);
  box.dataset.points = String(t.length);
  return plot;
}

/** A histogram of the values over replicas. */
export function histogram(container, { title, values, unit = "", testid = "histogram" }) {
  const box = el("div", { class: "chart", "data-testid": testid, "data-metric": title });
  const plotBox = el("div", { class: "chart-plot" });
  box.append(el("h3", {}, `${title}${unit ? ` (${unit})` : ""} over ${values.length} replicas`), plotBox);
  container.append(box);
  const clean = values.filter((v) => typeof v === "number" && Number.isFinite(v));
  const lo = Math.min(...clean);
  const hi = Math.max(...clean);
  const bins = Math.max(1, Math.min(30, Math.ceil(Math.sqrt(clean.length))));
  const width = hi > lo ? (hi - lo) / bins : 1;
  const counts = new Array(bins).fill(0);
  for (const v of clean) counts[Math.min(bins - 1, Math.floor((v - lo) / width))] += 1;
  const centers = counts.map((_, i) => lo + (i + 0.5) * width);
  /** @type {ChartOptions} */
  const opts = {
    height: 180,
    series: [
      { label: title, value: (u, v) => (v == null ? "–" : f.sig(v)) },
      {
        label: "replicas",
        fill: rgba(SERIES_COLORS[0], 0.55),
        stroke: SERIES_COLORS[0],
        width: 1,
        paths: uPlot.paths.bars({ size: [0.92, 80] }),
        points: { show: false },
      },
    ],
    legend: { show: true },
    scales: {
      x: { time: false, range: () => [lo - width / 2, hi + width / 2] },
      y: { range: (u, a, b) => [0, Math.max(1, b)] },
    },
    axes: [
      { ...axisStyle, size: 36, values: (u, ticks) => f.ticks(ticks) },
      // counts of replicas: whole ticks only
      { ...axisStyle, size: 40, values: (u, ticks) => ticks.map((v) => (Number.isInteger(v) ? f.sig(v) : "")) },
    ],
  };
  return mount(plotBox, opts, [centers, counts]);
}

/**
 * A metric against a swept parameter: one line per series (the mean at each value) with its confidence band
 * (ci95 low–high). ``x`` are numbers, or category labels shown at positions 0, 1, 2 … when ``categories``.
 * lines: [{label, mean: [...], lo: [...], hi: [...]}], each as long as ``x``.
 */
export function sweepChart(container, { title, xLabel, x, categories = null, lines, testid = "sweep-chart" }) {
  const box = el("div", { class: "chart sweep-chart", "data-testid": testid, "data-metric": title });
  const plotBox = el("div", { class: "chart-plot" });
  box.append(el("h3", {}, title), plotBox);
  container.append(box);
  const xs = categories ? categories.map((_, i) => i) : x;
  const data = [xs];
  /** @type {uPlot.Series[]} */
  const uSeries = [
    {
      label: xLabel,
      value: (u, v) => (v == null ? "–" : categories ? (categories[Math.round(v)] ?? "") : f.sig(v)),
    },
  ];
  const bands = [];
  lines.forEach((line, k) => {
    const color = SERIES_COLORS[k % SERIES_COLORS.length];
    const base = data.length;
    data.push(line.mean, line.hi, line.lo);
    uSeries.push(
      {
        label: line.label,
        stroke: color,
        width: 2,
        points: { show: true, size: 6, fill: color },
        value: (u, v) => (v == null ? "–" : f.sig(v)),
      },
      // the band's edges: drawn, but kept out of the legend (class sweep-ci)
      {
        label: `${line.label} 95 % CI high`,
        class: "sweep-ci",
        stroke: rgba(color, 0.35),
        width: 1,
        points: { show: false },
      },
      {
        label: `${line.label} 95 % CI low`,
        class: "sweep-ci",
        stroke: rgba(color, 0.35),
        width: 1,
        points: { show: false },
      },
    );
    bands.push({ series: [base + 1, base + 2], fill: rgba(color, 0.16) });
  });
  const pad = categories ? 0.5 : 0;
  /** @type {ChartOptions} */
  const opts = {
    height: 260,
    series: uSeries,
    bands,
    legend: { show: true, live: true },
    cursor: { drag: { x: false, y: false } },
    scales: {
      x: {
        time: false,
        range: categories
          ? () => [-pad, categories.length - 1 + pad]
          : (u, lo, hi) => (lo === hi ? [lo - 1, hi + 1] : [lo, hi]),
      },
      y: { auto: true },
    },
    axes: [
      {
        ...axisStyle,
        label: xLabel,
        labelSize: 18,
        size: 40,
        ...(categories
          ? { splits: () => categories.map((_, i) => i), values: (u, ticks) => ticks.map((t) => categories[t] ?? "") }
          : { values: (u, ticks) => f.ticks(ticks) }),
      },
      { ...axisStyle, size: 56, values: (u, ticks) => f.ticks(ticks) },
    ],
  };
  const plot = mount(plotBox, opts, data);
  box.dataset.points = String(xs.length);
  box.dataset.lines = String(lines.length);
  return plot;
}
