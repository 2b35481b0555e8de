// @ts-check
// Which inputs of compared runs differ (src/lib/inputs.js).
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { flatten, inputDifferences, inputLabel, inputText } from "../src/lib/inputs.js";

test("parameters flatten to the paths the API names its errors by", () => {
  assert.deepEqual(flatten({ job_mfu: 0.4, caps: [{ cap_w: 700 }, { cap_w: 560 }], events: [], band: {} }), {
    job_mfu: 0.4,
    "caps[0].cap_w": 700,
    "caps[1].cap_w": 560,
    events: [],
    band: {},
  });
});

test("compare shows the inputs that differ, and only those", () => {
  const runs = [
    { replicas: 10, seed: 1, as_of: null, params: { job_mfu: 0.4, caps: [{ gpu_model: "h100-sxm", cap_w: 700 }] } },
    { replicas: 10, seed: 2, as_of: null, params: { job_mfu: 0.4, caps: [{ gpu_model: "h100-sxm", cap_w: 560 }] } },
  ];
  assert.deepEqual(inputDifferences(runs), [
    { path: "seed", label: "Seed", values: [1, 2] },
    { path: "params.caps[0].cap_w", label: "Caps 1 · Cap (W)", values: [700, 560] },
  ]);
  assert.deepEqual(inputDifferences([runs[0], runs[0]]), []);
});

test("an input one run lacks is a difference, shown as a dash there", () => {
  const rows = inputDifferences([{ params: { heat_wave_k: 5 } }, { params: {} }]);
  assert.deepEqual(
    rows.map((r) => [r.label, r.values.map(inputText)]),
    [["Heat wave (K)", ["5", "–"]]],
  );
  assert.equal(inputLabel("as_of"), "Campus as of");
  assert.equal(inputText(true), "yes");
});

test("identical runs never differ, and a run differs from a copy with one value changed", () => {
  const leaf = fc.oneof(fc.integer(), fc.double({ noNaN: true }), fc.string(), fc.boolean(), fc.constant(null));
  const params = fc.dictionary(fc.stringMatching(/^[a-z_]{1,8}$/), leaf, { minKeys: 1 });
  fc.assert(
    fc.property(params, (p) => {
      assert.deepEqual(inputDifferences([{ params: p }, { params: structuredClone(p) }]), []);
      const [key] = Object.keys(p);
      const changed = { ...p, [key]: JSON.stringify(p[key] ?? null) + "x" };
      assert.deepEqual(
        inputDifferences([{ params: p }, { params: changed }]).map((r) => r.path),
        [`params.${key}`],
      );
    }),
    { numRuns: 200 },
  );
});
