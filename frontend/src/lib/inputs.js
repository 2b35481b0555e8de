// @ts-check
// Which inputs of compared runs differ: their parameters flattened to paths ("caps[0].cap_w") and the paths whose
// values are not the same in every run, plus replicas, seed and the campus date. No DOM here: node's tests
// import it as it is.
import { label } from "./format.js";

/**
 * A nested value as {path: leaf}: objects by key ("a.b"), lists by index ("a[0]"); an empty object or list is
 * a leaf of its own.
 * @param {unknown} value
 * @param {string} [prefix]
 * @param {Record<string, unknown>} [out]
 * @returns {Record<string, unknown>}
 */
export function flatten(value, prefix = "", out = {}) {
  if (Array.isArray(value) && value.length) value.forEach((v, i) => flatten(v, `${prefix}[${i}]`, out));
  else if (value && typeof value === "object" && !Array.isArray(value) && Object.keys(value).length)
    for (const [k, v] of Object.entries(value)) flatten(v, prefix ? `${prefix}.${k}` : k, out);
  else out[prefix] = value;
  return out;
}

/**
 * The inputs in which runs differ: one row per path whose value is not the same in all of them (a path a run
 * lacks counts as missing there), in the order the first run lists them; replicas, seed and the campus date first.
 * @param {{params?: Record<string, unknown> | null, replicas?: number, seed?: number | null,
 *   as_of?: string | null}[]} runs
 * @returns {{path: string, label: string, values: unknown[]}[]}
 */
export function inputDifferences(runs) {
  /** @type {Record<string, unknown>[]} */
  const flat = runs.map((r) => ({
    replicas: r.replicas,
    seed: r.seed,
    as_of: r.as_of ?? null,
    ...(r.params && Object.keys(r.params).length ? flatten(r.params, "params") : {}),
  }));
  /** @type {string[]} */
  const paths = [];
  const seen = new Set();
  for (const f of flat)
    for (const p of Object.keys(f))
      if (!seen.has(p)) {
        seen.add(p);
        paths.push(p);
      }
  return paths
    .map((path) => ({ path, values: flat.map((f) => f[path]) }))
    .filter(({ values }) => new Set(values.map((v) => JSON.stringify(v ?? null))).size > 1)
    .map(({ path, values }) => ({ path, label: inputLabel(path), values }));
}

/**
 * "params.caps[1].cap_w" -> "Caps 2 · Cap (W)"; "as_of" -> "Campus as of".
 * @param {string} path
 */
export function inputLabel(path) {
  if (path === "as_of") return "Campus as of";
  return path
    .replace(/^params\./, "")
    .split(".")
    .map((part) => part.replace(/^(\w+)\[(\d+)\]$/, (_, name, i) => `${label(name)} ${Number(i) + 1}`))
    .map((part) => (/ \d+$/.test(part) ? part : label(part)))
    .join(" · ");
}

/**
 * An input's value as text: numbers and words as they are, lists and objects as JSON, a missing one as "–".
 * @param {unknown} value
 */
export function inputText(value) {
  if (value === null || value === undefined) return "–";
  if (typeof value === "object") return JSON.stringify(value);
  if (typeof value === "boolean") return value ? "yes" : "no";
  return String(value);
}
