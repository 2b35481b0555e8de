// @ts-check
// The campus's summary figures as every page shows them: one label, unit and rounding per figure, so the overview
// and the design comparison write the same number the same way (10.9 MW on both, never 10.9 beside 10.95). No
// DOM here: node's tests import it as it is.
import { num, usd } from "./format.js";

/**
 * A summary figure: its label, the decimals it is shown with, and its unit ("USD" is money, "" a plain number).
 * @typedef {{label: string, digits: number, unit: string}} Figure
 */

/**
 * Keyed by the path in the summary (and in /api/campuses/{id}/diff/'s figures). Campus power to a tenth of a MW;
 * the headroom after the worst single failure to a hundredth (it decides whether one more rack fits); PUE to
 * two decimals.
 * @type {Record<string, Figure>}
 */
export const FIGURES = {
  "inventory.gpus": { label: "GPUs", digits: 0, unit: "" },
  "inventory.racks": { label: "Racks", digits: 0, unit: "" },
  "power.it_mw": { label: "IT load", digits: 1, unit: "MW" },
  "power.facility_mw": { label: "Facility power", digits: 1, unit: "MW" },
  "power.peak_facility_mw": { label: "Peak facility power", digits: 1, unit: "MW" },
  "power.pue": { label: "PUE", digits: 2, unit: "" },
  "power.grid_capacity_mw": { label: "Grid connection", digits: 1, unit: "MW" },
  "power.grid_headroom_mw": { label: "Grid connection − peak facility", digits: 1, unit: "MW" },
  "power.headroom_after_failover_mw": { label: "IT addable after the worst single failure", digits: 2, unit: "MW" },
  "power.stranded_mw": { label: "Stranded power", digits: 1, unit: "MW" },
  "power.redundancy_findings_count": { label: "Redundancy findings", digits: 0, unit: "" },
  "power.annual_cost_usd": { label: "Energy cost per year", digits: 0, unit: "USD" },
  "power.distribution.chain_loss_mw": { label: "Power chain losses", digits: 2, unit: "MW" },
  "power.distribution.copper_relative_to_ac": { label: "Distribution copper (× 415 VAC)", digits: 2, unit: "" },
  "power.distribution.power_capex_usd": { label: "Power equipment capex", digits: 0, unit: "USD" },
  "cooling.heat_load_mw": { label: "Heat to reject", digits: 1, unit: "MW" },
  "cooling.capacity_mw": { label: "Cooling units, usable capacity", digits: 1, unit: "MW" },
  "cooling.plant_usable_capacity_mw": { label: "Cooling plants, usable capacity", digits: 1, unit: "MW" },
  "cooling.spare_mw": { label: "Cooling spare (units and plants)", digits: 1, unit: "MW" },
  "capex.capex_usd.power": { label: "Capex: power", digits: 0, unit: "USD" },
  "capex.capex_usd.cooling": { label: "Capex: cooling", digits: 0, unit: "USD" },
  "capex.capex_usd.network": { label: "Capex: network", digits: 0, unit: "USD" },
  "capex.capex_usd.compute": { label: "Capex: compute", digits: 0, unit: "USD" },
  "capex.capex_usd.building": { label: "Capex: building", digits: 0, unit: "USD" },
  "capex.capex_usd.total": { label: "Capex: total", digits: 0, unit: "USD" },
  "capex.usd_per_mw_it": { label: "Capex per MW of IT", digits: 0, unit: "USD" },
};

/** @param {string} path */
export function figureInfo(path) {
  return FIGURES[path] ?? { label: path, digits: 2, unit: "" };
}

/**
 * A summary figure's text: "10.9 MW", "1.142", "$7.4 M", "6,272"; "–" when missing.
 * @param {string} path
 * @param {number | null | undefined} value
 */
export function figureText(path, value) {
  if (value === null || value === undefined || !Number.isFinite(value)) return "–";
  const { digits, unit } = figureInfo(path);
  if (unit === "USD") return usd(value);
  return unit ? `${num(value, digits)} ${unit}` : num(value, digits);
}

/**
 * A difference between two designs' figures: "0" when it rounds to nothing at the figure's precision (the API's
 * float differences leave 1e-14 MW after a rack's kW changed), else signed: "+0.3 MW", "−12".
 * @param {string} path
 * @param {number | null | undefined} d ours − theirs
 */
export function figureDelta(path, d) {
  if (d === null || d === undefined || !Number.isFinite(d)) return "–";
  if (figureUnchanged(path, d)) return "0";
  return `${d > 0 ? "+" : "−"}${figureText(path, Math.abs(d))}`;
}

/** True when a difference rounds to zero at the figure's precision. @param {string} path @param {number} d */
export function figureUnchanged(path, d) {
  return d === 0 || figureText(path, Math.abs(d)) === figureText(path, 0);
}
