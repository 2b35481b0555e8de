// @ts-check
// A training job's scaling curve in words: where its linearity breaks and why (which cost, which tier).
// The curve is the training_step run's details.scaling (campus.analysis.training.scaling).

/** @typedef {{gpus: number, linearity: number, mfu: number, step_s: number, grew_most?: string,
 *   grew_most_tier?: string, tiers?: Record<string, string>, breakdown_s?: Record<string, number>}} ScalePoint */

/** What each cost of a step is, as a person reads it. */
export const COSTS = /** @type {Record<string, string>} */ ({
  compute: "compute",
  bubble: "the pipeline bubble",
  tp: "tensor-parallel communication",
  cp: "context-parallel communication",
  ep: "expert all-to-all",
  pp: "pipeline sends",
  dp: "the data-parallel gradient reduction",
  io: "data loading",
});

/** What each tier is. */
export const TIERS = /** @type {Record<string, string>} */ ({
  "scale-up": "inside the scale-up (NVLink) domain",
  island: "across the island's fabric",
  campus: "across islands, over the oversubscribed campus layer",
});

/**
 * The first point whose linearity falls below `threshold`, or null when the curve holds it throughout.
 * @param {ScalePoint[]} curve
 * @param {number} [threshold]
 * @returns {ScalePoint | null}
 */
export function linearityBreak(curve, threshold = 0.9) {
  const sorted = [...curve].sort((a, b) => a.gpus - b.gpus);
  return sorted.find((p) => p.linearity < threshold) ?? null;
}

/**
 * One sentence: where linearity breaks and why.
 * @param {ScalePoint[]} curve
 * @param {number} [threshold]
 */
export function breakSentence(curve, threshold = 0.9) {
  if (!curve.length) return "No scaling curve.";
  const last = [...curve].sort((a, b) => a.gpus - b.gpus)[curve.length - 1];
  const point = linearityBreak(curve, threshold);
  const pct = (/** @type {number} */ v) => `${Math.round(v * 100)} %`;
  const n = (/** @type {number} */ v) => v.toLocaleString("en-US");
  if (!point) {
    return `Scaling stays above ${pct(threshold)} linear up to ${n(last.gpus)} GPUs (${pct(last.linearity)}).`;
  }
  const cost = point.grew_most ? (COSTS[point.grew_most] ?? point.grew_most) : "";
  const tier = point.grew_most_tier ? (TIERS[point.grew_most_tier] ?? point.grew_most_tier) : "";
  const why = cost ? `: ${cost} grew most${tier ? `, ${tier}` : ""}` : "";
  return `Linearity falls below ${pct(threshold)} at ${n(point.gpus)} GPUs (${pct(point.linearity)})${why}.`;
}
