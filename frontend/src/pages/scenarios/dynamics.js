// @ts-check
// A power_dynamics run: the verdict per requirement in words, the grid-connection waveform (drag to zoom), its
// amplitude spectrum with the band limit, the sizing sweeps (swing against the power floor and the battery
// size) and the batteries and generation the run used. Everything comes from the run's summary
// (summary.details: the replica's violations, waveform, spectrum, sizing and assets).
import { add, el } from "../../lib/dom.js";
import { SERIES_COLORS } from "../../lib/colors.js";
import { mount } from "../../lib/charts.js";
import * as f from "../../lib/format.js";

// Each requirement of the interconnect, the metric it limits and how to say it.
const REQUIREMENTS = [
  { name: "max_swing_mw", metric: "swing_mw", what: "Swing within one iteration", unit: "MW" },
  { name: "max_ramp_mw_per_s", metric: "max_ramp_mw_per_s", what: "Ramp over one second", unit: "MW/s" },
  { name: "max_ramp_mw_per_min", metric: "max_ramp_mw_per_min", what: "Ramp over one minute", unit: "MW/min" },
  { name: "max_band_mw", metric: "band_amplitude_mw", what: "Oscillation in the band", unit: "MW" },
];

const axisStyle = { stroke: "#4a5568", grid: { stroke: "#e7ebf0", width: 1 }, ticks: { stroke: "#d6dce5", width: 1 } };
const valueOf = (digits) => (u, v) => (v == null ? "–" : f.num(v, digits));

function rgba(hex, alpha) {
  const n = parseInt(hex.slice(1), 16);
  return `rgba(${(n >> 16) & 255}, ${(n >> 8) & 255}, ${n & 255}, ${alpha})`;
}

function metricValue(metrics, name) {
  const s = metrics?.[name];
  if (s == null) return null;
  return typeof s === "object" ? (s.mean ?? s.p50 ?? null) : s;
}

/** One row per requirement: its limit, the run's value, pass or fail, and a sentence saying so. */
export function verdicts(requirements, metrics) {
  const band = requirements?.band_hz ?? [];
  return REQUIREMENTS.filter((r) => requirements?.[r.name] != null).map((r) => {
    const limit = requirements[r.name];
    const value = metricValue(metrics, r.metric);
    const pass = value != null && value <= limit * (1 + 1e-9);
    const where = r.metric === "band_amplitude_mw" && band.length === 2 ? ` (${band[0]}–${band[1]} Hz)` : "";
    const sentence =
      value == null
        ? `${r.what}${where}: no value.`
        : `${r.what}${where} is ${f.num(value, 2)} ${r.unit}, ${pass ? "within" : "above"} the limit of ` +
          `${f.num(limit, 2)} ${r.unit}: ${pass ? "passes" : "fails"}.`;
    return { ...r, limit, value, pass, sentence };
  });
}

function verdictTable(rows) {
  if (!rows.length) return el("p", { class: "muted", "data-testid": "verdicts" }, "The scenario sets no requirement.");
  const passed = rows.filter((r) => r.pass).length;
  return el(
    "div",
    { "data-testid": "verdicts" },
    el(
      "p",
      { class: `notice ${passed === rows.length ? "" : "notice-warn"}`, "data-testid": "verdict-overall" },
      passed === rows.length
        ? `Complies: all ${rows.length} requirements of the interconnect are met.`
        : `Does not comply: ${rows.length - passed} of ${rows.length} requirements are broken.`,
    ),
    el(
      "table",
      { class: "table compact" },
      el(
        "thead",
        {},
        el(
          "tr",
          {},
          el("th", {}, "Requirement"),
          el("th", { class: "num" }, "Limit"),
          el("th", { class: "num" }, "Value"),
          el("th", {}, "Verdict"),
        ),
      ),
      el(
        "tbody",
        {},
        rows.map((r) =>
          el(
            "tr",
            { "data-testid": "verdict", "data-requirement": r.name, "data-pass": String(r.pass) },
            el("td", {}, r.sentence),
            el("td", { class: "num" }, `${f.num(r.limit, 2)} ${r.unit}`),
            el("td", { class: "num" }, r.value == null ? "–" : `${f.num(r.value, 2)} ${r.unit}`),
            el("td", { class: r.pass ? "good" : "bad" }, r.pass ? "Pass" : "Fail"),
          ),
        ),
      ),
    ),
  );
}

function chartBox(container, { title, note, testid, label }) {
  const box = el("div", { class: "chart", "data-testid": testid });
  const plotBox = el("div", { class: "chart-plot", role: "img", "aria-label": label });
  box.append(el("h3", {}, title), plotBox);
  if (note) box.append(el("p", { class: "muted small" }, note));
  container.append(box);
  return { box, plotBox };
}

/** The grid draw and the load at full resolution over the waveform window; drag across to zoom. */
function waveformChart(container, wave, resolutionMs) {
  const t = wave?.t_s ?? [];
  if (!t.length) return null;
  const { box, plotBox } = chartBox(container, {
    title: "Grid connection, full resolution (MW)",
    note:
      `Every ${f.num(resolutionMs)} ms step of a ${f.num(t[t.length - 1] - t[0], 0)} s window. ` +
      "Drag across the chart to zoom in; double-click to zoom out.",
    testid: "waveform",
    label: `Grid draw and load from ${f.num(t[0], 0)} s to ${f.num(t[t.length - 1], 0)} s`,
  });
  /** @type {import("../../lib/charts.js").ChartOptions} */
  const opts = {
    series: [
      { label: "time (s)", value: valueOf(1) },
      { label: "grid", stroke: SERIES_COLORS[0], width: 1.5, value: valueOf(2) },
      {
        label: "load without mitigation",
        stroke: rgba(SERIES_COLORS[1], 0.8),
        width: 1,
        dash: [4, 3],
        value: valueOf(2),
      },
    ],
    legend: { show: true, live: true },
    cursor: { drag: { x: true, y: false, setScale: true } },
    scales: { x: { time: false }, y: { auto: true } },
    axes: [
      { ...axisStyle, label: "seconds", labelSize: 18, size: 36 },
      { ...axisStyle, size: 56, values: (u, ticks) => ticks.map((v) => f.compact(v)) },
    ],
  };
  const plot = mount(plotBox, opts, [t, wave.grid_mw ?? [], wave.load_mw ?? []]);
  const reset = el(
    "button",
    {
      type: "button",
      class: "button small",
      "data-testid": "waveform-reset",
      onclick: () => plot.setScale("x", { min: t[0], max: t[t.length - 1] }),
    },
    "Zoom out",
  );
  box.querySelector("h3").append(" ", reset);
  box.dataset.points = String(t.length);
  return plot;
}

/** The amplitude spectrum on a log frequency axis, the band shaded and its limit drawn across it. */
function spectrumChart(container, spectrum, requirements) {
  const fr = spectrum?.f_hz ?? [];
  const amp = spectrum?.amplitude_mw ?? [];
  const keep = fr.map((x, i) => i).filter((i) => fr[i] > 0);
  if (!keep.length) return null;
  const x = keep.map((i) => fr[i]);
  const y = keep.map((i) => amp[i]);
  const [lo, hi] = spectrum.band_hz ?? requirements?.band_hz ?? [null, null];
  const limit = requirements?.max_band_mw ?? null;
  const limitLine = x.map((v) => (limit != null && lo != null && v >= lo && v <= hi ? limit : null));
  const { box, plotBox } = chartBox(container, {
    title: "Spectrum at the grid connection (MW amplitude)",
    note:
      lo != null
        ? `The shaded band is ${lo}–${hi} Hz` +
          (limit != null ? `; the red line is its limit of ${f.num(limit, 2)} MW.` : ".")
        : null,
    testid: "spectrum",
    label: `Amplitude spectrum from ${f.num(x[0], 3)} Hz to ${f.num(x[x.length - 1], 1)} Hz`,
  });
  const shade = (u) => {
    if (lo == null) return;
    const ctx = u.ctx;
    const x0 = u.valToPos(Math.max(lo, u.scales.x.min), "x", true);
    const x1 = u.valToPos(Math.min(hi, u.scales.x.max), "x", true);
    ctx.save();
    ctx.fillStyle = "rgba(214, 158, 46, 0.14)";
    ctx.fillRect(x0, u.bbox.top, Math.max(0, x1 - x0), u.bbox.height);
    ctx.restore();
  };
  /** @type {import("../../lib/charts.js").ChartOptions} */
  const opts = {
    series: [
      { label: "frequency (Hz)", value: valueOf(3) },
      { label: "amplitude", stroke: SERIES_COLORS[0], width: 1.2, value: valueOf(3) },
      { label: "band limit", stroke: "#c53030", width: 2, dash: [6, 3], value: valueOf(2), spanGaps: false },
    ],
    legend: { show: true, live: true },
    cursor: { drag: { x: true, y: false, setScale: true } },
    hooks: { drawClear: [shade] },
    scales: {
      x: { time: false, distr: 3 },
      y: { auto: true, range: (u, a, b) => [0, Math.max(b, limit ?? 0) * 1.1 || 1] },
    },
    axes: [
      { ...axisStyle, label: "Hz", labelSize: 18, size: 36 },
      { ...axisStyle, size: 56, values: (u, ticks) => ticks.map((v) => f.compact(v)) },
    ],
  };
  box.dataset.bandHz = lo != null ? `${lo}-${hi}` : "";
  box.dataset.limitMw = limit ?? "";
  return mount(plotBox, opts, [x, y, limitLine]);
}

/** One sweep: the swing (and ramp) against the swept size, compliant sizes marked, the swing limit drawn. */
function sizingChart(container, { sweep, key, title, xLabel, limit, found, testid, format, tick = format }) {
  const xs = sweep?.[key] ?? [];
  if (!xs.length) return null;
  const order = xs.map((v, i) => i).sort((a, b) => xs[a] - xs[b]);
  const x = order.map((i) => xs[i]);
  const swing = order.map((i) => sweep.swing_mw[i]);
  const ok = order.map((i) => (sweep.compliant?.[i] ? sweep.swing_mw[i] : null));
  const line = x.map(() => limit);
  const { plotBox } = chartBox(container, {
    title,
    note:
      found != null
        ? `The smallest size that meets every requirement: ${format(found)} (searched).`
        : "No size in the searched range meets every requirement.",
    testid,
    label: `${title}: ${x.length} sizes from ${format(x[0])} to ${format(x[x.length - 1])}`,
  });
  /** @type {import("../../lib/charts.js").ChartOptions} */
  const opts = {
    series: [
      { label: xLabel, value: (u, v) => (v == null ? "–" : format(v)) },
      { label: "swing (MW)", stroke: SERIES_COLORS[0], width: 2, value: valueOf(2), points: { show: true, size: 5 } },
      {
        label: "complies",
        stroke: "#2f855a",
        width: 0,
        value: valueOf(2),
        paths: () => null,
        points: { show: true, size: 9, fill: "#2f855a" },
      },
      // no swing limit in the rules: no line, and no greyed-out legend entry for it
      ...(limit != null
        ? [{ label: "swing limit", stroke: "#c53030", width: 1.5, dash: [6, 3], value: valueOf(2) }]
        : []),
    ],
    legend: { show: true, live: true },
    scales: { x: { time: false }, y: { auto: true, range: (u, a, b) => [0, Math.max(b, limit ?? 0) * 1.1 || 1] } },
    axes: [
      { ...axisStyle, label: xLabel, labelSize: 18, size: 36, values: (u, ticks) => ticks.map((v) => tick(v)) },
      { ...axisStyle, size: 56, values: (u, ticks) => ticks.map((v) => f.compact(v)) },
    ],
  };
  return mount(plotBox, opts, limit != null ? [x, swing, ok, line] : [x, swing, ok]);
}

function assetsList(assets) {
  if (!assets) return null;
  const { bess, generation } = assets;
  const from = (s) => (s === "campus" ? "the campus's own" : "set in the scenario");
  return el(
    "dl",
    { class: "kv", "data-testid": "dynamics-assets" },
    el("dt", {}, "Battery"),
    el(
      "dd",
      { "data-source": bess?.source ?? "" },
      bess && bess.power_mw > 0
        ? `${f.mw(bess.power_mw, 1)} / ${f.num(bess.energy_mwh, 1)} MWh, ` +
            `${f.pct(bess.round_trip_efficiency)} round trip, ${f.num(bess.response_ms)} ms (${from(bess.source)})`
        : `none (${from(bess?.source)})`,
    ),
    el("dt", {}, "On-site generation"),
    el(
      "dd",
      { "data-source": generation?.source ?? "" },
      generation && generation.rating_mw > 0
        ? `${f.mw(generation.rating_mw, 1)} at ${f.num(generation.ramp_mw_per_s, 2)} MW/s ` +
            `above ${f.mw(generation.grid_import_mw, 1)} (${from(generation.source)})`
        : `none (${from(generation?.source)})`,
    ),
  );
}

/** The power_dynamics section of a finished run, before the generic results. */
export function renderDynamics(box, run) {
  const details = run.summary?.details;
  if (!details) return null;
  const metrics = run.summary?.metrics ?? {};
  const requirements = details.requirements ?? {};
  const section = el("section", { class: "dynamics", "data-testid": "dynamics", "aria-label": "Power dynamics" });
  const charts = el("div", { class: "charts" });
  const sizing = el("div", { class: "charts", "data-testid": "sizing" });
  add(
    section,
    el("h3", { class: "results-title" }, "Verdict against the interconnect's requirements"),
    verdictTable(verdicts(requirements, metrics)),
    assetsList(details.assets),
    el("h3", { class: "results-title" }, "Waveform and spectrum at the grid connection"),
    charts,
  );
  box.append(section);
  waveformChart(charts, details.waveform, details.resolution_ms);
  spectrumChart(charts, details.spectrum, requirements);
  if (details.sizing) {
    section.append(
      el("h3", { class: "results-title" }, "Sizing: swing against the power floor and the battery"),
      sizing,
    );
    // a replayed load has no power floor to sweep (it acts on the jobs' own GPUs)
    if (details.sizing.floor)
      sizingChart(sizing, {
        sweep: details.sizing.floor,
        key: "floor_fraction",
        title: "Swing against the GPU power floor",
        xLabel: "floor (% of TDP)",
        limit: requirements.max_swing_mw ?? null,
        found: details.min_floor_to_comply,
        testid: "sizing-floor",
        format: (v) => f.pct(v),
        tick: (v) => f.num(v * 100),
      });
    sizingChart(sizing, {
      sweep: details.sizing.bess,
      key: "bess_mw",
      title: "Swing against the battery power",
      xLabel: "battery (MW)",
      limit: requirements.max_swing_mw ?? null,
      found: details.min_bess_mw_to_comply,
      testid: "sizing-bess",
      format: (v) => f.mw(v, 1),
      tick: (v) => f.compact(v),
    });
  }
  return section;
}
