// @ts-check
// A write's redundancy warnings (src/lib/warnings.js) read from every answer shape the API gives (docs/api.md,
// "Redundancy warnings") and put in words.
import assert from "node:assert/strict";
import { test } from "node:test";
import { warningText, writeResult, writeWarnings } from "../src/lib/warnings.js";

const W = {
  code: "redundancy_below_declared",
  campus: 1,
  domain: "power",
  declared: "N+1",
  before: "N+1",
  after: "N",
  gpus_at_risk: 4096,
  racks_at_risk: [7],
  elements: [{ kind: "power", id: 3, name: "PDU-A" }],
};

test("warnings are read from an object, a bulk answer and a delete's answer, and from nothing else", () => {
  assert.deepEqual(writeWarnings({ id: 1, name: "F", warnings: [W] }), [W]);
  assert.deepEqual(writeWarnings({ results: [{ id: 1 }], warnings: [W] }), [W]);
  assert.deepEqual(writeWarnings({ warnings: [W] }), [W]);
  assert.deepEqual(writeWarnings([{ id: 1 }]), []);
  assert.deepEqual(writeWarnings(null), []);
  assert.deepEqual(writeWarnings({ id: 1 }), []);
});

test("a bulk answer with warnings gives its callers the list, as one without", () => {
  assert.deepEqual(writeResult({ results: [{ id: 1 }], warnings: [W] }), [{ id: 1 }]);
  const page = { count: 1, results: [{ id: 1 }] };
  assert.equal(writeResult(page), page);
});

test("a warning reads with its levels, GPUs and elements", () => {
  assert.equal(warningText(W), "power below the declared N+1: N+1 → N, 4,096 GPUs at risk (PDU-A)");
  const pair = {
    ...W,
    declared: "2N",
    before: "",
    after: "N+1",
    elements: [{ maintenance: { name: "UPS-A" }, failure: { name: "UPS-B" } }],
  };
  assert.equal(
    warningText(pair),
    "power below the declared 2N: nothing declared → N+1, 4,096 GPUs at risk (UPS-A out + UPS-B failed)",
  );
});
