// @ts-check
// A run's confidence target in words (src/lib/confidence.js).
import assert from "node:assert/strict";
import { test } from "node:test";
import { confidenceText } from "../src/lib/confidence.js";

const target = { metric: "ettr", relative_half_width: 0.01, confidence: 0.95, max_replicas: 400 };

test("a run without a target says nothing of it", () => {
  assert.equal(confidenceText(null, false), null);
  assert.equal(confidenceText(undefined, true), null);
});

test("a running run shows the half-width reached so far against its target", () => {
  const c = { ...target, replicas: 100, relative_half_width_achieved: 0.0142, converged: false };
  assert.equal(
    confidenceText(c, false),
    "Runs until ettr to ±1.0 % (95 % interval): 100 replicas counted, ±1.4 % so far (at most 400).",
  );
  assert.match(confidenceText({ ...target, replicas: 0 }, false) ?? "", /not yet measurable/);
});

test("a finished run says how many replicas met the target, or that the cap came first", () => {
  const met = { ...target, replicas: 25, relative_half_width_achieved: 0.0098, converged: true };
  assert.equal(
    confidenceText(met, true),
    "Target met: ettr to ±1.0 % (95 % interval) after 25 of at most 400 replicas (±0.98 %).",
  );
  const capped = {
    ...target,
    relative_half_width: 0.005,
    replicas: 400,
    relative_half_width_achieved: 0.0061,
    converged: false,
  };
  assert.equal(
    confidenceText(capped, true),
    "Target not met: ettr to ±0.50 % (95 % interval) wanted, ±0.61 % after 400 replicas (the cap).",
  );
});
