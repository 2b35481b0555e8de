// @ts-check
// The facility year in the measured weather beside the typical year (docs/live.md, "Measured weather for the
// plant"): the hours the campus's outdoor dry bulb is held (GET /api/campuses/{id}/measured/object/ of the campus's
// dry_bulb_c) replayed through the plant model (GET /api/campuses/{id}/facility-replay/), the year with those hours
// laid over the typical one set against the typical year, the window's figures against the same hours of the
// typical year, and its hours on a chart.
import { api, qs } from "../../lib/api.js";
import { timeChart } from "../../lib/charts.js";
import { el, errorBox, fill } from "../../lib/dom.js";
import * as f from "../../lib/format.js";

const BUCKET_S = 300;
const HOW_WORDS = { measured: "measured", interpolated: "interpolated", typical: "from the typical year" };

/** The year table: label, key of FacilityYear.annual(), digits, unit. @type {[string, string, number, string][]} */
const ROWS = [
  ["PUE (energy-weighted)", "pue", 3, ""],
  ["Facility energy", "annual_energy_mwh", 0, "MWh"],
  ["Peak facility power", "peak_facility_mw", 2, "MW"],
  ["Water", "water_m3", 0, "m³"],
  ["Hours short of cooling", "hours_short", 0, "h"],
];

/** @param {number | null | undefined} v @param {number} digits @param {string} unit */
const withUnit = (v, digits, unit) => (v == null ? "–" : `${f.num(v, digits)}${unit ? ` ${unit}` : ""}`);

/** @param {string} iso */
const utc = (iso) => `${iso.slice(0, 16).replace("T", " ")} UTC`;

/**
 * The section, filled once the campus's measured dry bulb and its replay arrive.
 * @param {{campusId: number, campusName: string}} page
 */
export function weatherReplay(page) {
  const box = el(
    "section",
    { class: "weather-replay", "data-testid": "weather-replay", "aria-labelledby": "weather-replay-title" },
    el("h3", { id: "weather-replay-title" }, "The year in the measured weather"),
    el("p", { class: "loading" }, "Loading the measured weather…"),
  );
  load(page, box).finally(() => {
    box.dataset.ready = "true";
  });
  return box;
}

/** @param {{campusId: number, campusName: string}} page @param {HTMLElement} box */
async function load(page, box) {
  const title = box.firstElementChild;
  try {
    const held = await api.get(
      `/api/campuses/${page.campusId}/measured/object/${qs({
        object_kind: "campus",
        object_name: page.campusName,
        metric: "dry_bulb_c",
        days: 35,
      })}`,
    );
    if (!held.times.length) {
      fill(
        box,
        title,
        el(
          "p",
          { class: "muted small", "data-testid": "weather-replay-none" },
          "No measured outdoor temperature (dry_bulb_c of the campus) in the last 35 days: upload one or map it " +
            "from Prometheus to replay the facility in it (docs/live.md).",
        ),
      );
      return;
    }
    const start = new Date(held.times[0] * 1000).toISOString();
    const end = new Date((held.times[held.times.length - 1] + BUCKET_S) * 1000).toISOString();
    const r = await api.get(`/api/campuses/${page.campusId}/facility-replay/${qs({ start, end })}`);
    render(box, title, r);
  } catch (error) {
    fill(box, title, errorBox(error, "weather-replay-error"));
  }
}

/**
 * Typical against measured, figure by figure, with the difference.
 * @param {string} scope "span" (the window's hours) or "year" @param {string} caption
 * @param {any} typical @param {any} measured @param {[string, string]} heads
 */
function sideBySide(scope, caption, typical, measured, heads) {
  return el(
    "table",
    { class: "table", "data-testid": `weather-replay-${scope}` },
    el("caption", {}, caption),
    el(
      "thead",
      {},
      el(
        "tr",
        {},
        el("th", { scope: "col" }, "Figure"),
        el("th", { scope: "col", class: "num" }, heads[0]),
        el("th", { scope: "col", class: "num" }, heads[1]),
        el("th", { scope: "col", class: "num" }, "Difference"),
      ),
    ),
    el(
      "tbody",
      {},
      ROWS.map(([label, key, digits, unit]) => {
        const a = typical[key];
        const b = measured[key];
        const d = a == null || b == null ? null : b - a;
        const id = `weather-replay-${scope}-${key}`;
        // the difference one decimal finer than the figures: a day replaced moves a year's total a little
        const dd = key === "hours_short" ? 0 : digits + 1;
        return el(
          "tr",
          {},
          el("th", { scope: "row" }, label),
          el("td", { class: "num", "data-testid": `${id}-typical`, "data-value": a }, withUnit(a, digits, unit)),
          el("td", { class: "num", "data-testid": `${id}-measured`, "data-value": b }, withUnit(b, digits, unit)),
          el(
            "td",
            { class: "num", "data-testid": `${id}-difference`, "data-value": d },
            d == null ? "–" : `${d > 0 ? "+" : d < 0 ? "−" : "±"}${withUnit(Math.abs(d), dd, unit)}`,
          ),
        );
      }),
    ),
  );
}

/** @param {HTMLElement} box @param {Element | null} title @param {any} r the facility-replay answer */
function render(box, title, r) {
  const how = Object.entries(r.how.dry_bulb)
    .map(([k, n]) => `${f.num(n)} ${HOW_WORDS[k] ?? k}`)
    .join(", ");
  const when = `${utc(r.window_start)} to ${utc(r.window_end)}`;
  const s = r.span;
  const spanText = el(
    "p",
    { "data-testid": "weather-replay-summary", "data-pue": s.pue, "data-hours": r.hours },
    el("strong", {}, `${f.num(r.hours)} hours replayed`),
    ` from ${when} (dry bulb ${how}): the plant model in the weather measured at the site, beside the same `,
    "hours of the typical year, and the typical year with those hours replaced.",
  );
  fill(
    box,
    title,
    spanText,
    sideBySide("span", `The ${f.num(r.hours)} hours replayed`, r.typical_span, s, [
      "Typical weather",
      "Measured weather",
    ]),
    sideBySide("year", "The facility year", r.typical_year, r.year, ["Typical year", "With the measured hours"]),
  );
  const hours = r.hourly.dry_bulb_c.map((_, i) => i + 1);
  timeChart(box, {
    title: "Replayed hours (hour of the window)",
    series: [
      { label: "dry bulb (°C)", t: hours, values: r.hourly.dry_bulb_c },
      { label: "wet bulb (°C)", t: hours, values: r.hourly.wet_bulb_c },
      { label: "facility (MW)", t: hours, values: r.hourly.facility_mw },
    ],
    testid: "weather-replay-chart",
  });
}
