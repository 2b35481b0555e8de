// @ts-check
// One unit per quantity on every page, and the words around figures: campus power in MW and energy in MWh
// whatever unit a series or metric is recorded in, fractions as %, a label's unit in brackets only when there is
// one, differences of percentages in points, runs and series named as people read them. No DOM here: node's
// tests import it as it is.
import { label, sig } from "./format.js";

/**
 * How a value recorded in one unit is shown: in `unit`, multiplied by `factor`.
 * @typedef {{unit: string, factor: number}} Shown
 */

/**
 * The unit each recorded unit is shown in. Campus power is shown in MW and energy in MWh on every chart and table
 * (the engine records some series in kW, the summaries in MW); watts stay watts, being a device's figure (a GPU's
 * cap), never a campus's.
 * @type {Record<string, Shown>}
 */
const SHOWN_AS = {
  kW: { unit: "MW", factor: 1e-3 },
  MW: { unit: "MW", factor: 1 },
  GW: { unit: "MW", factor: 1e3 },
  kWh: { unit: "MWh", factor: 1e-3 },
  MWh: { unit: "MWh", factor: 1 },
  GWh: { unit: "MWh", factor: 1e3 },
  // water: a heat wave's hourly series (L) beside its total (m³)
  L: { unit: "m³", factor: 1e-3 },
  "m³": { unit: "m³", factor: 1 },
};

/**
 * The unit a value recorded in `unit` is shown in, and the factor that converts it: "kW" -> MW × 0.001,
 * "fraction" (or "fraction of …") -> % × 100, "L" -> m³ × 0.001; any other unit as it is.
 * @param {string | null | undefined} unit
 * @returns {Shown}
 */
export function displayUnit(unit) {
  const u = String(unit ?? "").trim();
  if (u.startsWith("fraction")) return { unit: "%", factor: 100 };
  return SHOWN_AS[u] ?? { unit: u, factor: 1 };
}

/**
 * A label with its unit in brackets, never empty brackets: ("PUE", "") -> "PUE", ("IT power", "MW") ->
 * "IT power (MW)", and a label that already ends in "(MW)" or in "()" is not given a second pair.
 * @param {string} text
 * @param {string | null | undefined} [unit]
 */
export function withUnit(text, unit) {
  const bare = String(text ?? "")
    .replace(/\s*\(\s*\)/g, "")
    .trim();
  const u = String(unit ?? "").trim();
  if (!u || bare.includes(`(${u})`)) return bare;
  return `${bare} (${u})`;
}

/**
 * A label written for one unit, rewritten for the unit it is shown in: "IT power (kW)" -> "IT power (MW)".
 * @param {string} text
 * @param {string | null | undefined} recorded
 */
export function relabel(text, recorded) {
  const shown = displayUnit(recorded);
  const from = String(recorded ?? "").trim();
  if (!from || from === shown.unit) return withUnit(text, null);
  const swapped = String(text ?? "").replace(`(${from})`, `(${shown.unit})`);
  return withUnit(swapped, null);
}

/**
 * The change of a mean from a baseline's, as a planner reads it: a relative change in % where both are on the
 * same side of zero; a difference in the value's unit where the baseline is zero or the value crossed zero (a
 * change from −0.2 to +0.9 is not "+550 %"); and a difference in percentage points for a quantity that is
 * itself a percentage (a goodput from 90 % to 93 % is "+3 points", not "+3.3 %").
 * @param {{baseline: number | null | undefined, mean: number | null | undefined, unit?: string | null}} d
 *   the means in the recorded unit
 * @returns {string} "Δ +12 %", "Δ −3.1 points", "Δ +0.52 MW", or "–" when either mean is missing
 */
export function deltaText({ baseline, mean, unit }) {
  if (baseline == null || mean == null || !Number.isFinite(baseline) || !Number.isFinite(mean)) return "–";
  const shown = displayUnit(unit);
  if (mean === baseline) return "Δ 0";
  const diff = (mean - baseline) * shown.factor;
  const sign = mean > baseline ? "+" : mean < baseline ? "−" : "";
  if (shown.unit === "%") return `Δ ${sign}${sig(Math.abs(diff), 2)} points`;
  const crossed = baseline === 0 || Math.sign(baseline) !== Math.sign(mean);
  if (!crossed && mean !== baseline) return `Δ ${sign}${sig(Math.abs((100 * (mean - baseline)) / baseline), 2)} %`;
  return `Δ ${sign}${sig(Math.abs(diff))}${shown.unit ? ` ${shown.unit}` : ""}`;
}

/**
 * A run as people name it: "Run 12 · Heat wave", or "Run 12" when it has no scenario name (never "null").
 * @param {{id: number, scenario_name?: string | null}} run
 */
export function runTitle(run) {
  const name = String(run.scenario_name ?? "").trim();
  return name && name !== "null" ? `Run ${run.id} · ${name}` : `Run ${run.id}`;
}

/** The suffixes of a building's or a rack's series: which figure of the interval they hold. */
const PART_WORDS = /** @type {Record<string, string>} */ ({
  mw: "draw",
  min_mw: "lowest draw",
  max_mw: "highest draw",
  kw: "draw",
  min_kw: "lowest draw",
  max_kw: "highest draw",
});

/**
 * A series key as a person reads it where the catalogue has no label for it: "building.3.max_mw" ->
 * "Building 3, highest draw (MW)", "rack.12.gpu_temp_c" -> "Rack 12, GPU temp (°C)", "grid_max_mw" ->
 * "Grid max (MW)"; a label the API gives is kept unless it still shows the raw key ("Building — 3.max_mw").
 * @param {string} key
 * @param {string | null} [given] the API's label
 */
export function seriesName(key, given = null) {
  const m = /^([a-z_]+)\.(\d+)\.([a-z0-9_]+)$/i.exec(String(key));
  if (!m || (given && !given.includes(`${m[2]}.${m[3]}`))) return given || label(key);
  const [, owner, id, part] = m;
  const words = PART_WORDS[part.toLowerCase()];
  const recorded = /(?:^|_)(mw|kw)$/i.exec(part)?.[1]?.toLowerCase();
  const unit = recorded ? displayUnit(recorded === "mw" ? "MW" : "kW").unit : null;
  return `${label(owner)} ${id}, ${words ? withUnit(words, unit) : label(part)}`;
}
