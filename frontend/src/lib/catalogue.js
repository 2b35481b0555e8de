// @ts-check
// The metric catalogue of each scenario kind, as /api/scenarios/kinds/ gives it: one label, unit, description
// and direction (higher is better, lower is better, or neither) per metric and series, and the labels of the
// causes of interruptions. Every page that names a metric asks here, so a label is written once (on the
// engine side); a name the catalogue lacks falls back to format.label.
import { api } from "./api.js";
import * as f from "./format.js";
import { displayUnit, relabel, seriesName, withUnit } from "./units.js";

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

/**
 * {label, unit, description, higher_is_better} of a metric or series of a kind (the unit as recorded).
 * @param {string} kind
 * @param {string} name
 * @returns {{label: string, unit: string, description: string, higher_is_better: boolean | null}}
 */
export function metricInfo(kind, name) {
  const known = byKind.get(kind)?.metrics?.[name];
  return known ?? { label: f.label(name), unit: "", description: "", higher_is_better: null };
}

/**
 * The unit a metric is shown in and the factor from its recorded unit: fractions as %, kW as MW (units.js).
 * @param {string} kind
 * @param {string} name
 */
export function metricShown(kind, name) {
  return displayUnit(metricInfo(kind, name).unit);
}

/**
 * The label with the unit it is shown in, in brackets ("Mean IT power (MW)", "PUE").
 * @param {string} kind
 * @param {string} name
 */
export function metricLabel(kind, name) {
  const m = metricInfo(kind, name);
  return withUnit(relabel(m.label, m.unit), metricShown(kind, name).unit);
}

/** A kind as people name it ("Liquid cooling loss"), never its key; after loadCatalogue. @param {string} kind */
export function kindLabel(kind) {
  return byKind.get(kind)?.label ?? f.label(kind);
}

/** @param {string} kind @param {string} name */
export function causeLabel(kind, name) {
  return byKind.get(kind)?.causes?.[name] ?? f.label(name);
}

/**
 * A metric's value in the unit it is shown in ("93.1 %", "71.4 °C", "6,272", "1.2 MW").
 * @param {string} kind
 * @param {string} name
 * @param {number | null | undefined} value
 */
export function metricValue(kind, name, value) {
  const { unit, factor } = metricShown(kind, name);
  if (value === null || value === undefined || !Number.isFinite(Number(value))) return "–";
  return unit === "%" ? `${f.sig(value * factor)} %` : f.metricValue(value * factor, unit);
}

/**
 * A value in a table whose header already carries the unit: in the unit shown, plain.
 * @param {string} kind
 * @param {string} name
 * @param {number | null | undefined} value
 */
export function metricNumber(kind, name, value) {
  if (value === null || value === undefined) return "–";
  return f.sig(value * metricShown(kind, name).factor);
}

/**
 * A series' title (the API's label, in the unit it is shown in) and the factor its values are shown with.
 * @param {string} kind
 * @param {{metric: string, label?: string | null}} d the series as /api/runs/{id}/timeseries/ gives it
 * @returns {{title: string, scale: number}}
 */
export function seriesTitle(kind, d) {
  const base = String(d.metric).split(".")[0];
  const recorded = metricInfo(kind, base).unit;
  const shown = displayUnit(recorded);
  const given = d.label ? relabel(d.label, recorded) : null;
  const title = withUnit(seriesName(d.metric, given ?? metricLabel(kind, d.metric)), shown.unit);
  return { title, scale: shown.factor };
}
