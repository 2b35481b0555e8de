// @ts-check
// The metric catalogue of each scenario kind, as /api/scenarios/kinds/ gives it: one label, unit, description
// and direction (higher is better, lower is better, or neither) per metric and series, and the labels of the
// causes of interruptions. Every page that names a metric asks here, so a label is written once (on the
// engine side); a name the catalogue lacks falls back to format.label.
import { api } from "./api.js";
import * as f from "./format.js";

let kindsPromise = null;
const byKind = new Map();

/** The kinds with schema, defaults and catalogue (fetched once per page). */
export function loadCatalogue() {
  kindsPromise ??= api.get("/api/scenarios/kinds/").then((kinds) => {
    for (const k of kinds) byKind.set(k.kind, k);
    return kinds;
  });
  return kindsPromise;
}

/** {label, unit, description, higher_is_better} of a metric or series of a kind. */
export function metricInfo(kind, name) {
  const known = byKind.get(kind)?.metrics?.[name];
  return known ?? { label: f.label(name), unit: "", description: "", higher_is_better: null };
}

/** The label with its unit in brackets (fractions are shown as %). */
export function metricLabel(kind, name) {
  const m = metricInfo(kind, name);
  const unit = String(m.unit ?? "").startsWith("fraction") ? "%" : m.unit;
  return unit && !m.label.includes(`(${unit})`) ? `${m.label} (${unit})` : m.label;
}

export function causeLabel(kind, name) {
  return byKind.get(kind)?.causes?.[name] ?? f.label(name);
}

/** A metric's value in its unit ("93.1 %", "71.4 °C", "6,272"). */
export function metricValue(kind, name, value) {
  return f.metricValue(value, metricInfo(kind, name).unit);
}

/** A value in a table whose header already carries the unit: fractions as % numbers, the rest plain. */
export function metricNumber(kind, name, value) {
  if (value === null || value === undefined) return "–";
  return String(metricInfo(kind, name).unit ?? "").startsWith("fraction") ? f.sig(value * 100) : f.sig(value);
}

/** A series' title (the API's label) and the factor its values are shown with: fractions as %. */
export function seriesTitle(kind, d) {
  const base = String(d.metric).split(".")[0];
  const fraction = String(metricInfo(kind, base).unit ?? "").startsWith("fraction");
  const title = d.label ?? metricLabel(kind, d.metric);
  return { title: fraction && !title.includes("(%)") ? `${title} (%)` : title, scale: fraction ? 100 : 1 };
}
