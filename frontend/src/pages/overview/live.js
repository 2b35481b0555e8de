// @ts-check
// The live twin on the overview (docs/live.md): the basis the page's figures stand on (the model's design load, or
// each measured rack at its measured peak plus the margin), the headline figures on both bases side by side, and
// the measured objects whose peak leaves the model's band, worst first.
import { el } from "../../lib/dom.js";
import * as f from "../../lib/format.js";
import { ALARM, beyondBand, deviationText, objectHref, peakText } from "../../lib/deviation.js";

/** The basis named in the page's URL (?basis=measured), else the design load. */
export function basisFromUrl() {
  return new URLSearchParams(window.location.search).get("basis") === "measured" ? "measured" : "design";
}

function keepInUrl(basis) {
  const url = new URL(window.location.href);
  if (basis === "measured") url.searchParams.set("basis", "measured");
  else url.searchParams.delete("basis");
  history.replaceState(history.state, "", url.pathname + url.search);
}

const ROWS = [
  ["IT load", (s) => s?.power?.it_mw, "it"],
  ["Facility power", (s) => s?.power?.facility_mw, "facility"],
  ["IT addable after the worst single failure", (s) => s?.power?.headroom_after_failover_mw, "headroom"],
  ["Cooling spare", (s) => s?.cooling?.spare_mw, "cooling"],
];

/**
 * @param {{campusId: number, basis: string, summary: any, sides: Record<string, any> | null, measured: any}} page
 * @param {(basis: string) => void} onBasis called when the planner picks the other basis
 */
export function liveCard(page, onBasis) {
  const measured = page.measured;
  const count = measured?.count ?? 0;
  const margin = page.sides?.measured?.margin ?? page.summary?.margin ?? 0.1;
  const radio = (/** @type {string} */ value, /** @type {string} */ text) =>
    el(
      "label",
      {},
      el("input", {
        type: "radio",
        name: "basis",
        value,
        checked: page.basis === value,
        disabled: !count && value === "measured" && page.basis !== "measured",
        "data-testid": `basis-${value}`,
        onchange: () => {
          keepInUrl(value);
          onBasis(value);
        },
      }),
      ` ${text}`,
    );
  return el(
    "section",
    { class: "card card-wide", "aria-labelledby": "live-title", "data-testid": "live-card" },
    el("h2", { id: "live-title" }, "Measured against modelled"),
    el(
      "fieldset",
      { class: "basis-toggle", "data-testid": "basis-toggle" },
      el("legend", { class: "small" }, "The page's figures stand on"),
      radio("design", "the design load (the model)"),
      radio("measured", `measured peak + ${f.pct(margin)}`),
    ),
    el(
      "p",
      { class: "small", "data-testid": "basis-note", "data-basis": page.summary?.basis ?? "design" },
      page.summary?.basis === "measured"
        ? `Every figure on this page is on the measured basis: ${f.num(page.summary.measured_racks)} measured ` +
            `racks at their highest 5-minute mean of the last ${f.num(page.summary.window_days)} days plus ` +
            `${f.pct(page.summary.margin)}, the other racks at their modelled load.`
        : "Every figure on this page is on the design basis: each rack at its modelled load (servers at full GPU TDP).",
    ),
    count ? sideBySide(page.sides) : null,
    count
      ? alarms(page.campusId, measured)
      : el(
          "p",
          { class: "muted", "data-testid": "live-none" },
          "No measurements yet: upload them (POST /api/campuses/{id}/measurements/) or map a Prometheus source.",
        ),
  );
}

/** @param {Record<string, any> | null} sides summaries by basis */
function sideBySide(sides) {
  const design = sides?.design;
  const onPeak = sides?.measured;
  return el(
    "table",
    { class: "table", "data-testid": "live-side-by-side" },
    el("caption", { class: "small" }, "The campus on both bases"),
    el(
      "thead",
      {},
      el(
        "tr",
        {},
        el("th", { scope: "col" }, "Figure"),
        el("th", { scope: "col", class: "num" }, "Modelled (design load)"),
        el("th", { scope: "col", class: "num" }, "On measured peak"),
        el("th", { scope: "col", class: "num" }, "Difference"),
      ),
    ),
    el(
      "tbody",
      {},
      ROWS.map(([label, read, key]) => {
        const a = /** @type {(s: any) => number | null} */ (read)(design);
        const b = /** @type {(s: any) => number | null} */ (read)(onPeak);
        return el(
          "tr",
          { "data-testid": `live-${key}` },
          el("th", { scope: "row" }, /** @type {string} */ (label)),
          el("td", { class: "num", "data-value": a ?? null, "data-testid": `live-${key}-design` }, f.mw(a, 2)),
          el("td", { class: "num", "data-value": b ?? null, "data-testid": `live-${key}-measured` }, f.mw(b, 2)),
          el("td", { class: "num" }, a != null && b != null ? signed(b - a) : "–"),
        );
      }),
    ),
  );
}

/** @param {number} v MW */
function signed(v) {
  return `${v > 0 ? "+" : v < 0 ? "−" : ""}${f.mw(Math.abs(v), 2)}`;
}

/** The measured objects and their alarms, the five furthest from the model first. */
function alarms(campusId, measured) {
  const over = measured.objects.filter((o) => o.alarm === "over");
  const under = measured.objects.filter((o) => o.alarm === "under");
  const worst = [...over, ...under].sort((a, b) => beyondBand(b, measured) - beyondBand(a, measured)).slice(0, 5);
  const link = (o) => {
    const href = objectHref(campusId, o);
    return href ? el("a", { href }, o.object_name) : o.object_name;
  };
  return el(
    "div",
    { "data-testid": "live-alarms", "data-over": over.length, "data-under": under.length },
    el(
      "p",
      { class: "small" },
      `${f.num(measured.count)} series measured (an object and a metric); `,
      el("strong", { class: over.length ? "bad" : null }, `${f.num(over.length)} over`),
      " and ",
      el("strong", { class: under.length ? "alarm-under" : null }, `${f.num(under.length)} under`),
      ` their model by more than ±${f.pct(measured.band)} ` +
        `(a temperature by more than ±${f.num(measured.band_k, 1)} K; peak: the highest 5-minute mean of the window).`,
    ),
    worst.length
      ? el(
          "ul",
          { class: "small", "data-testid": "live-worst" },
          worst.map((o) =>
            el(
              "li",
              {},
              `${o.object_kind} `,
              link(o),
              ` ${peakText(o)} (`,
              el("span", { class: ALARM[o.alarm]?.cls ?? null }, deviationText(o.deviation, o.deviation_unit)),
              ")",
            ),
          ),
        )
      : null,
  );
}
