// @ts-check
// Measured against modelled (docs/live.md): one object's modelled figure beside its measured peak, mean and
// highest sample, its deviation and alarm, and a small trend chart of its 5-minute means against the model
// (GET /api/campuses/{id}/measured/object/). Used on the rack and power-device pages.
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

/**
 * The card, filled once the object's series arrives.
 * @param {number} campusId
 * @param {string} kind "rack" or a power device's kind
 * @param {string} name
 */
export function measuredCard(campusId, kind, name) {
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
  if (a.times.length) trendChart(body, a);
}

/** @param {string} kind */
function kindNote(kind) {
  return kind === "rack" ? "IT load: servers at full GPU TDP plus extras" : "input in the healthy roll-up";
}

/** 5-minute means and maxima against the modelled line. @param {HTMLElement} body @param {any} a */
function trendChart(body, a) {
  const first = new Date(a.times[0] * 1000).toISOString().slice(0, 16).replace("T", " ");
  const last = new Date(a.times[a.times.length - 1] * 1000).toISOString().slice(0, 16).replace("T", " ");
  const peak = a.comparison?.measured_peak_kw;
  const summary =
    `5-minute mean power of ${a.object_name} from ${first} to ${last} UTC (${f.num(a.times.length)} points), ` +
    `peak ${f.kw(peak)} against ${f.kw(a.modelled_kw)} modelled`;
  const plotBox = el("div", { class: "chart-plot", role: "img", "aria-label": summary });
  const box = el(
    "figure",
    { class: "chart chart-small", "data-testid": "measured-chart", "data-points": a.times.length },
    el("figcaption", { class: "small" }, "Measured (5-minute mean and highest sample) and modelled, kW"),
    plotBox,
  );
  body.append(box);
  const modelled = a.times.map(() => a.modelled_kw);
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
    [a.times, a.mean_kw, a.max_kw, modelled],
  );
}
