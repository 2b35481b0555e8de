// @ts-check
// The `warnings` a write answers with when it takes a campus below its declared redundancy (docs/api.md,
// "Redundancy warnings"): read from any write's answer, put in words. Pure: no DOM (api.js shows them).

/**
 * @typedef {{code?: string, campus?: number, domain?: string, declared?: string, before?: string, after?: string,
 *   gpus_at_risk?: number, racks_at_risk?: number[], elements?: any[], message?: string}} WriteWarning
 */

/**
 * The warnings of a write's answer: an object's `warnings`, a bulk answer's `{results, warnings}`, a delete's
 * `{warnings}`; none for anything else.
 * @param {unknown} data
 * @returns {WriteWarning[]}
 */
export function writeWarnings(data) {
  if (!data || typeof data !== "object" || Array.isArray(data)) return [];
  const warnings = /** @type {{warnings?: unknown}} */ (data).warnings;
  return Array.isArray(warnings)
    ? /** @type {WriteWarning[]} */ (warnings.filter((w) => w && typeof w === "object"))
    : [];
}

/**
 * What the caller of a write gets back: a bulk answer carrying warnings (`{results, warnings}`) is its list, as
 * without warnings; anything else as it came.
 * @param {unknown} data
 * @returns {unknown}
 */
export function writeResult(data) {
  if (data && typeof data === "object" && !Array.isArray(data)) {
    const keys = Object.keys(data);
    const results = /** @type {{results?: unknown}} */ (data).results;
    if (Array.isArray(results) && keys.length === 2 && keys.includes("warnings")) return results;
  }
  return data;
}

/**
 * One line per warning, as a planner reads it: the domain, the declared level, the level before and after, the
 * GPUs newly at risk and the elements now costing them.
 * @param {WriteWarning} w
 * @returns {string}
 */
export function warningText(w) {
  const gpus = Number(w.gpus_at_risk ?? 0).toLocaleString("en-US");
  const before = w.before || "nothing declared";
  const names = (w.elements ?? [])
    .slice(0, 3)
    .map((e) => (e && e.maintenance ? `${e.maintenance.name} out + ${e.failure?.name} failed` : String(e?.name ?? "")));
  const more = (w.elements ?? []).length > 3 ? ` and ${(w.elements ?? []).length - 3} more` : "";
  const what = names.length ? ` (${names.join(", ")}${more})` : "";
  const levels = `${before} → ${w.after ?? "?"}`;
  const domain = w.domain ?? "redundancy";
  return `${domain} below the declared ${w.declared ?? "level"}: ${levels}, ${gpus} GPUs at risk${what}`;
}
