// @ts-check
// The words of one /measured/ row (docs/live.md): its alarm, its deviation in its own unit (a fraction shown as
// %, a temperature's in K), how far it lies beyond its alarm band, and the page it links to. Pure, so the
// overview, the floor map's legend and the device pages word a row the same way.
import * as f from "./format.js";

/** Words of an alarm, and its CSS class. */
export const ALARM = {
  over: { text: "over the model", cls: "bad" },
  under: { text: "under the model", cls: "alarm-under" },
};

const COOLING_UNIT_KINDS = new Set(["crah", "cdu", "rear-door", "immersion"]);
const PLANT_KINDS = new Set(["chiller", "dry-cooler", "cooling-tower", "air-chiller", "adiabatic-cooler"]);
const NOT_DEVICES = new Set(["campus", "building", "hall", "rack"]);

/** Whether a /measured/ row is a power device's. @param {{object_kind: string}} row */
export function isPowerDevice(row) {
  return (
    !NOT_DEVICES.has(row.object_kind) && !COOLING_UNIT_KINDS.has(row.object_kind) && !PLANT_KINDS.has(row.object_kind)
  );
}

/**
 * "+12.0 %" for a deviation given as a fraction, "−17.5 K" for one in kelvin (a temperature's).
 * @param {number | null | undefined} d @param {string} [unit] the row's `deviation_unit`
 */
export function deviationText(d, unit = "fraction") {
  if (d === null || d === undefined) return "–";
  const sign = d > 0 ? "+" : d < 0 ? "−" : "";
  return unit === "K" ? `${sign}${f.num(Math.abs(d), 1)} K` : `${sign}${f.num(Math.abs(d) * 100, 1)} %`;
}

/**
 * How many times its alarm band a row's deviation is (a fraction against `band`, kelvin against `band_k`):
 * rows of different units sort by it, "furthest from the model" first.
 * @param {{deviation: number | null, deviation_unit?: string}} row @param {{band: number, band_k: number}} answer
 */
export function beyondBand(row, answer) {
  const d = Math.abs(row.deviation ?? 0);
  const band = row.deviation_unit === "K" ? answer.band_k : answer.band;
  return band > 0 ? d / band : d;
}

/**
 * "return_temp_c: measured peak 27.5 °C, modelled 45.0 °C" in the row's own unit.
 * @param {{metric: string, unit: string, measured_peak: number | null, modelled: number | null}} row
 */
export function peakText(row) {
  const v = (/** @type {number | null} */ x) => (x === null || x === undefined ? "–" : `${f.num(x, 1)} ${row.unit}`);
  return `${row.metric}: measured peak ${v(row.measured_peak)}, modelled ${v(row.modelled)}`;
}

/**
 * The inventory page of a row's object (a rack, a power device, a cooling unit), or null (a plant, the campus,
 * a building, a hall).
 * @param {number} campusId @param {{object_kind: string, object_id: number | null}} row
 */
export function objectHref(campusId, row) {
  if (row.object_id == null) return null;
  const base = `/campuses/${campusId}/inventory`;
  if (row.object_kind === "rack") return `${base}/racks/${row.object_id}/`;
  if (COOLING_UNIT_KINDS.has(row.object_kind)) return `${base}/cooling-units/${row.object_id}/`;
  return isPowerDevice(row) ? `${base}/power-devices/${row.object_id}/` : null;
}
