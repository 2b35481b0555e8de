// @ts-check
// A campus's design choices in words: the power architecture, the heat-rejection plant kinds, the facility water
// class and the summary's risks (campus/analysis/summary.py), so the dashboard never shows their API codes alone.
import * as f from "./format.js";

/** Power architectures (campus.choices.PowerArchitecture; docs/generator.md). */
const ARCHITECTURE = {
  ac: "415 VAC (transformers, UPS, PDUs)",
  "dc-800": "800 VDC (solid-state transformers, DC busways)",
  "dc-400": "±400 VDC (sidecar power racks, DC busways)",
};

/** Cooling plant kinds (campus.choices.CoolingPlantKind), as a planner names them. */
const PLANT_KIND = {
  chiller: "Water-cooled chillers (evaporative towers)",
  "air-chiller": "Air-cooled chillers (closed loop)",
  "dry-cooler": "Dry coolers (closed loop)",
  "adiabatic-cooler": "Dry coolers with adiabatic assist",
  "cooling-tower": "Cooling towers (evaporative)",
};

/** Cooling unit and power device kinds the floor map draws, in words. */
const ELEMENT_KIND = {
  ...PLANT_KIND,
  cdu: "Coolant distribution unit",
  crah: "CRAH (air handler)",
  "rear-door": "Rear-door heat exchanger",
  immersion: "Immersion tank",
  pdu: "PDU",
  rpp: "Remote power panel",
  busway: "Busway",
  ups: "UPS",
  switchgear: "Switchgear",
  transformer: "Transformer",
  generator: "Standby generator",
  substation: "Substation",
  sst: "Solid-state transformer",
  rectifier: "Rectifier (power rack)",
  "dc-busway": "DC busway",
};

/**
 * The power architecture in words; an unknown code is shown as it is.
 * @param {string | null | undefined} code
 */
export function architectureWords(code) {
  if (!code) return "–";
  return ARCHITECTURE[code] ?? code;
}

/**
 * A plant or unit kind in words ("air-chiller" → "Air-cooled chillers (closed loop)").
 * @param {string | null | undefined} kind
 */
export function kindWords(kind) {
  if (!kind) return "–";
  return ELEMENT_KIND[kind] ?? kind;
}

/**
 * The heat rejection of a campus from its cooling plants: each kind in words with its plants and capacity,
 * largest capacity first.
 * @param {{kind: string, capacity_kw?: number | null}[]} plants
 * @returns {{kind: string, words: string, count: number, capacity_mw: number}[]}
 */
export function heatRejection(plants) {
  /** @type {Map<string, {kind: string, words: string, count: number, capacity_mw: number}>} */
  const byKind = new Map();
  for (const p of plants) {
    const row = byKind.get(p.kind) ?? { kind: p.kind, words: kindWords(p.kind), count: 0, capacity_mw: 0 };
    row.count += 1;
    row.capacity_mw += (p.capacity_kw ?? 0) / 1000;
    byKind.set(p.kind, row);
  }
  return [...byKind.values()].sort((a, b) => b.capacity_mw - a.capacity_mw || a.kind.localeCompare(b.kind));
}

/**
 * The ASHRAE liquid cooling class the campus description names ("facility water W40 (40 °C supply)"), or null.
 * @param {string | null | undefined} description
 */
export function waterClass(description) {
  const m = /facility water (W\d{2})\b/.exec(description ?? "");
  return m ? m[1] : null;
}

/**
 * Copper of the distribution against a 415 VAC chain: "45 % less copper than 415 VAC", "as 415 VAC".
 * @param {number | null | undefined} relative copper / copper of the AC chain
 */
export function copperWords(relative) {
  if (relative == null) return "–";
  const less = 1 - relative;
  if (Math.abs(less) < 0.005) return "as much copper as 415 VAC";
  return less > 0 ? `${f.pct(less)} less copper than 415 VAC` : `${f.pct(-less)} more copper than 415 VAC`;
}

/** Risk kinds of the summary (campus/analysis/summary.py, facility/__init__.py) and their headings. */
const RISK_TITLE = {
  grid_shortfall: "Grid connection below the peak facility power",
  grid_short_at_design: "Grid connection below the peak at design conditions",
  utility_trips_at_design_load: "A utility feed trips at design load",
  heat_rejection_short: "A cooling plant cannot reject its heat",
};

/**
 * One summary risk in words: its heading, the elements it names and its figures, for the risk card.
 * @param {Record<string, any>} risk
 * @returns {{title: string, severity: string, elements: string[], figures: string[], message: string}}
 */
export function riskWords(risk) {
  const title = RISK_TITLE[risk.kind] ?? String(risk.kind ?? "Risk").replaceAll("_", " ");
  /** @type {string[]} */
  const elements = [];
  /** @type {string[]} */
  const figures = [];
  if (risk.plant) elements.push(`${kindWords(risk.plant_kind)} “${risk.plant}”`);
  if (risk.utility_feed_id != null) elements.push(`utility feed ${risk.utility_feed_id}`);
  if (risk.shortfall_mw != null) figures.push(`${f.mw(risk.shortfall_mw, 2)} short`);
  if (risk.hours != null) figures.push(`${f.num(risk.hours)} h a year`);
  if (risk.hours_short) figures.push(`${f.num(risk.hours_short)} h of the typical year`);
  if (risk.design_hours_short) figures.push(`${f.num(risk.design_hours_short)} design conditions`);
  if (risk.worst_margin_mw != null && risk.worst_margin_mw < 0) {
    figures.push(`up to ${f.mw(-risk.worst_margin_mw, 2)} short`);
  }
  if (risk.generator_energy_mwh) {
    figures.push(
      `${f.num(risk.generator_energy_mwh)} MWh a year from generators at ` +
        `${f.usd(risk.generator_fuel_usd_per_mwh)}/MWh (${f.usd(risk.generator_cost_usd)} a year)`,
    );
  }
  return { title, severity: risk.severity ?? "warning", elements, figures, message: risk.message ?? "" };
}

/**
 * A site's climatic design conditions (the weather API's ``design_conditions``, ASHRAE Handbook — Fundamentals
 * ch. 14) in one line: "0.4 % 34.8 °C dry bulb / 23.7 °C wet bulb · 1 % 33.3 / 23.1 °C · 0.4 % wet bulb 25.4 °C ·
 * 20-year extreme 39.2 °C", with "(estimate)" when the API flags the values as one.
 * @param {Record<string, any> | null | undefined} dc
 */
export function designConditionsWords(dc) {
  if (!dc) return "–";
  /** @param {number | null | undefined} v */
  const c = (v) => f.num(v, 1);
  const parts = [];
  if (dc.cooling_db_04_c != null) {
    parts.push(`0.4 % ${c(dc.cooling_db_04_c)} °C dry bulb / ${c(dc.cooling_mcwb_04_c)} °C wet bulb`);
  }
  if (dc.cooling_db_1_c != null) parts.push(`1 % ${c(dc.cooling_db_1_c)} / ${c(dc.cooling_mcwb_1_c)} °C`);
  if (dc.evaporation_wb_04_c != null) parts.push(`0.4 % wet bulb ${c(dc.evaporation_wb_04_c)} °C`);
  if (dc.extreme_db_20y_c != null) parts.push(`20-year extreme ${c(dc.extreme_db_20y_c)} °C`);
  return (parts.join(" · ") || "–") + (dc.estimate ? " (estimate)" : "");
}
