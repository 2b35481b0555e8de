// @ts-check
// A run's confidence target in words (docs/runs.md, "Replicas to a confidence target"): while it runs, the
// half-width reached so far; once finished, the replicas it used and whether the target was met.
import { num } from "./format.js";

/**
 * @typedef {{
 *   metric: string, relative_half_width: number, confidence: number, max_replicas: number,
 *   replicas?: number, relative_half_width_achieved?: number | null, converged?: boolean
 * }} ConfidenceState
 */

/** ±x % with enough digits to tell a target of 0.5 % from 1 %. @param {number} fraction */
function plusMinus(fraction) {
  const p = fraction * 100;
  return `±${num(p, p < 1 ? 2 : 1)} %`;
}

/**
 * @param {ConfidenceState | null | undefined} c the run's ``confidence``
 * @param {boolean} finished whether the run has finished
 * @returns {string | null}
 */
export function confidenceText(c, finished) {
  if (!c) return null;
  const target = `${c.metric} to ${plusMinus(c.relative_half_width)} (${num(c.confidence * 100)} % interval)`;
  const n = c.replicas ?? 0;
  const reached = c.relative_half_width_achieved;
  const reachedText = reached == null ? "not yet measurable" : plusMinus(reached);
  if (c.converged)
    return `Target met: ${target} after ${num(n)} of at most ${num(c.max_replicas)} replicas (${reachedText}).`;
  if (finished) return `Target not met: ${target} wanted, ${reachedText} after ${num(n)} replicas (the cap).`;
  return `Runs until ${target}: ${num(n)} replicas counted, ${reachedText} so far (at most ${num(c.max_replicas)}).`;
}
