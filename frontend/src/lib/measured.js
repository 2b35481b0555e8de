// @ts-check
// Measured against modelled (docs/live.md): one object's modelled figure beside its measured peak, mean and
// highest sample, its deviation and alarm, and a small trend chart of its 5-minute means against the model
// (GET /api/campuses/{id}/measured/object/). Used on the rack and power-device pages; a cooling unit's page has
// one row per metric (supply and return temperature, flow, heat) and a chart of each.
import { api } from "./api.js";
import { mount } from "./charts.js";
import { ALARM, deviationText } from "./deviation.js";
import { el, errorBox, fill } from "./dom.js";
import * as f from "./format.js";

/** @param {string} term @param {any} value @param {string} testid @param {any} [raw] */
const fact = (term, value, testid, raw) => [
  el("dt", {}, term),
  el("dd", { "data-testid": testid, "data-value": raw ?? null }, value),
];

/** The measured card's frame, busy until its body is filled: {card, body}. */
function cardShell() {
  const body = el("div", {}, el("p", { class: "loading" }, "Loading the measurements…"));
  const card = el(
    "section",
    {
      class: "card card-wide",
      "aria-labelledby": "measured-title",
      "data-testid": "measured-card",
      "aria-busy": "true",
    },
    el("h2", { id: "measured-title" }, "Measured against modelled"),
    body,
  );
  return { card, body };
}

/**
 * The card, filled once the object's series arrives.
 * @param {number} campusId
 * @param {string} kind "rack" or a power device's kind
 * @param {string} name
 */
export function measuredCard(campusId, kind, name) {
  const { card, body } = cardShell();
  const query = new URLSearchParams({ object_kind: kind, object_name: name });
  api
    .get(`/api/campuses/${campusId}/measured/object/?${query}`)
    .then((answer) => render(body, answer))
    .catch((error) => fill(body, errorBox(error, "measured-error")))
    .finally(() => {
      card.setAttribute("aria-busy", "false");
      card.dataset.ready = "true";
    });
  return card;
}

/** @param {HTMLElement} body @param {any} a the /measured/object/ answer */
function render(body, a) {
  const c = a.comparison;
  const alarm = c?.alarm ? ALARM[c.alarm] : null;
  const side = (/** @type {string} */ title, /** @type {any} */ value, /** @type {string} */ testid, note) =>
    el(
      "div",
      { class: "figure" },
      el("div", { class: "figure-title" }, title),
      el("div", { class: "figure-value", "data-testid": testid, "data-value": value ?? null }, f.kw(value)),
      note ? el("div", { class: "figure-sub" }, note) : null,
    );
  fill(
    body,
    el(
      "div",
      { class: "figure-row", "data-testid": "measured-side-by-side" },
      side("Modelled", a.modelled_kw, "measured-modelled", kindNote(a.object_kind)),
      side(
        "Measured peak",
        c?.measured_peak_kw,
        "measured-peak",
        c ? "highest 5-minute mean in the window" : "not measured",
      ),
    ),
    c
      ? el(
          "dl",
          { class: "facts", "data-testid": "measured-facts" },
          fact(
            "Deviation",
            [
              el("strong", { class: alarm?.cls ?? null }, deviationText(c.deviation)),
              alarm ? ` — alarm: ${alarm.text} by more than ${f.pct(a.band)}` : ` (within ±${f.pct(a.band)})`,
            ],
            "measured-deviation",
            c.deviation,
          ),
          fact("Mean over the window", f.kw(c.measured_mean_kw), "measured-mean", c.measured_mean_kw),
          fact("Highest sample", f.kw(c.measured_max_kw), "measured-max", c.measured_max_kw),
          fact(
            "Trend of the daily peaks",
            c.trend_kw_per_day == null ? "– (one day held)" : `${f.num(c.trend_kw_per_day, 2)} kW/day`,
            "measured-trend",
            c.trend_kw_per_day,
          ),
        )
      : el(
          "p",
          { class: "muted", "data-testid": "measured-none" },
          "No measurement of it in the window: measurements come by upload or from Prometheus (docs/live.md).",
        ),
  );
  if (a.times.length) trendChart(body, a, "Measured (5-minute mean and highest sample) and modelled, kW");
}

/** @param {string} kind */
function kindNote(kind) {
  return kind === "rack" ? "IT load: servers at full GPU TDP plus extras" : "input in the healthy roll-up";
}

/** @param {number | null | undefined} v @param {string} unit */
function withUnit(v, unit) {
  if (v === null || v === undefined) return "–";
  if (unit === "kW") return f.kw(v);
  return `${f.num(v, unit === "°C" ? 1 : 0)} ${unit}`;
}

/**
 * 5-minute means and maxima against the modelled line (one figure, or one per bucket).
 * @param {HTMLElement} body @param {any} a a /measured/object/ answer @param {string} caption
 * @param {string} [testid]
 */
function trendChart(body, a, caption, testid = "measured-chart") {
  const unit = a.unit ?? "kW";
  const first = new Date(a.times[0] * 1000).toISOString().slice(0, 16).replace("T", " ");
  const last = new Date(a.times[a.times.length - 1] * 1000).toISOString().slice(0, 16).replace("T", " ");
  const peak = a.comparison?.measured_peak;
  const what = METRIC_WORDS[a.metric ?? "power_kw"] ?? a.metric;
  const summary =
    `5-minute mean ${what} of ${a.object_name} from ${first} to ${last} UTC (${f.num(a.times.length)} points), ` +
    `peak ${withUnit(peak, unit)} against ${withUnit(a.modelled, unit)} modelled`;
  const plotBox = el("div", { class: "chart-plot", role: "img", "aria-label": summary });
  const box = el(
    "figure",
    { class: "chart chart-small", "data-testid": testid, "data-points": a.times.length },
    el("figcaption", { class: "small" }, caption),
    plotBox,
  );
  body.append(box);
  const modelled = a.modelled_series ?? a.times.map(() => a.modelled);
  mount(
    plotBox,
    {
      height: 160,
      legend: { show: true, live: false },
      cursor: { drag: { x: true, y: false } },
      scales: { x: { time: true }, y: { auto: true } },
      series: [
        {},
        { label: "5-minute mean", stroke: "#2f6fde", width: 1.5 },
        { label: "highest sample", stroke: "rgba(224, 69, 43, 0.55)", width: 1 },
        { label: "modelled", stroke: "#4a5568", width: 1.5, dash: [6, 4] },
      ],
      axes: [
        { stroke: "#4a5568", grid: { stroke: "#e7ebf0", width: 1 } },
        { stroke: "#4a5568", grid: { stroke: "#e7ebf0", width: 1 }, size: 56, values: (u, t) => f.ticks(t) },
      ],
    },
    [a.times, a.mean ?? a.mean_kw, a.max ?? a.max_kw, modelled],
  );
}

/** A cooling unit's metrics, in the order the card lists them, with their words. */
export const COOLING_METRICS = ["supply_temp_c", "return_temp_c", "flow_lpm", "heat_kw"];
/** @type {Record<string, string>} */
const METRIC_WORDS = {
  power_kw: "power",
  supply_temp_c: "supply temperature",
  return_temp_c: "return temperature",
  flow_lpm: "flow",
  heat_kw: "heat",
};
/** @type {Record<string, string>} */
const MODEL_NOTES = {
  supply_temp_c: "the inventory's design supply temperature",
  return_temp_c: "the inventory's design return temperature",
  flow_lpm: "the inventory's flow, or 1.5 L/min per kW of its modelled heat",
  heat_kw: "its heat in the cooling balance, GPUs at full TDP",
};

/**
 * A cooling unit's card: supply and return temperature, flow and heat, each measured against the model with
 * its deviation, alarm and trend, and a chart of each metric measured.
 * @param {number} campusId
 * @param {string} kind the unit's kind (cdu, crah, rear-door, immersion)
 * @param {string} name
 */
export function coolingMeasuredCard(campusId, kind, name) {
  const { card, body } = cardShell();
  Promise.all(
    COOLING_METRICS.map((metric) => {
      const query = new URLSearchParams({ object_kind: kind, object_name: name, metric });
      return api.get(`/api/campuses/${campusId}/measured/object/?${query}`);
    }),
  )
    .then((answers) => renderCooling(body, answers))
    .catch((error) => fill(body, errorBox(error, "measured-error")))
    .finally(() => {
      card.setAttribute("aria-busy", "false");
      card.dataset.ready = "true";
    });
  return card;
}

/** @param {HTMLElement} body @param {any[]} answers one /measured/object/ answer per COOLING_METRICS */
function renderCooling(body, answers) {
  const measured = answers.filter((a) => a.comparison);
  const band = answers[0]?.band ?? 0.1;
  const bandK = answers[0]?.band_k ?? 2;
  const cell = (/** @type {string} */ testid, /** @type {any} */ raw, /** @type {any} */ text) =>
    el("td", { class: "num", "data-testid": testid, "data-value": raw ?? null }, text);
  const rows = answers.map((a) => {
    const c = a.comparison;
    const alarm = c?.alarm ? ALARM[c.alarm] : null;
    const id = `measured-${a.metric}`;
    return el(
      "tr",
      { "data-testid": id, "data-alarm": c?.alarm ?? "" },
      el(
        "th",
        { scope: "row" },
        f.label(METRIC_WORDS[a.metric]),
        el("div", { class: "muted small" }, MODEL_NOTES[a.metric]),
      ),
      cell(`${id}-modelled`, a.modelled, withUnit(a.modelled, a.unit)),
      cell(`${id}-peak`, c?.measured_peak, c ? withUnit(c.measured_peak, a.unit) : "not measured"),
      cell(`${id}-mean`, c?.measured_mean, c ? withUnit(c.measured_mean, a.unit) : "–"),
      el(
        "td",
        { class: "num", "data-testid": `${id}-deviation`, "data-value": c?.deviation ?? null },
        el("strong", { class: alarm?.cls ?? null }, deviationText(c.deviation, c.deviation_unit)),
        alarm ? el("div", { class: "small" }, `alarm: ${alarm.text}`) : null,
      ),
      cell(
        `${id}-trend`,
        c?.trend_per_day,
        c?.trend_per_day == null ? "–" : `${f.num(c.trend_per_day, 2)} ${a.unit}/day`,
      ),
    );
  });
  fill(
    body,
    el(
      "table",
      { class: "table", "data-testid": "measured-cooling" },
      el(
        "caption",
        {},
        "Peak: the highest 5-minute mean of the last 7 days held. Alarm beyond ",
        `±${f.num(bandK, 1)} K of a temperature's design, ±${f.pct(band)} of the flow and heat.`,
      ),
      el(
        "thead",
        {},
        el(
          "tr",
          {},
          ["Metric", "Modelled", "Measured peak", "Mean", "Deviation", "Trend of the daily peaks"].map((h, i) =>
            el("th", { scope: "col", class: i ? "num" : null }, h),
          ),
        ),
      ),
      el("tbody", {}, rows),
    ),
    measured.length
      ? null
      : el(
          "p",
          { class: "muted", "data-testid": "measured-none" },
          "No measurement of it in the window: measurements come by upload or from Prometheus (docs/live.md).",
        ),
  );
  const charts = el("div", { class: "measured-charts" });
  body.append(charts);
  for (const a of answers) {
    if (!a.times.length) continue;
    const caption = `${f.label(METRIC_WORDS[a.metric])} (${a.unit}): 5-minute mean, highest sample and model`;
    trendChart(charts, a, caption, `measured-chart-${a.metric}`);
  }
}
