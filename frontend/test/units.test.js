// @ts-check
// One unit per quantity and the words around figures (src/lib/units.js), against figures written out by hand.
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { deltaText, displayUnit, relabel, runTitle, seriesName, withUnit } from "../src/lib/units.js";

test("campus power is shown in MW whatever it was recorded in; a device's watts stay watts", () => {
  assert.deepEqual(displayUnit("kW"), { unit: "MW", factor: 1e-3 });
  assert.deepEqual(displayUnit("MW"), { unit: "MW", factor: 1 });
  assert.deepEqual(displayUnit("kWh"), { unit: "MWh", factor: 1e-3 });
  assert.deepEqual(displayUnit("W"), { unit: "W", factor: 1 });
  assert.deepEqual(displayUnit("fraction of GPUs"), { unit: "%", factor: 100 });
  assert.deepEqual(displayUnit(""), { unit: "", factor: 1 });
  // a heat wave's water per hour (L) on the page of its total (m³): one unit for water
  assert.deepEqual(displayUnit("L"), { unit: "m³", factor: 1e-3 });
  assert.deepEqual(displayUnit("m³"), { unit: "m³", factor: 1 });
  // a 4,200 kW series on a chart beside a 4.2 MW table figure
  const { factor } = displayUnit("kW");
  assert.equal(4200 * factor, 4.2);
});

test("a label's unit is in brackets only when there is one: 'PUE', never 'PUE ()'", () => {
  assert.equal(withUnit("PUE", ""), "PUE");
  assert.equal(withUnit("PUE ()", null), "PUE");
  assert.equal(withUnit("IT power", "MW"), "IT power (MW)");
  assert.equal(withUnit("IT power (MW)", "MW"), "IT power (MW)");
  assert.equal(relabel("Grid draw (kW)", "kW"), "Grid draw (MW)");
  assert.equal(relabel("Goodput (ETTR) (fraction)", "fraction"), "Goodput (ETTR) (%)");
  assert.equal(relabel("PUE ()", ""), "PUE");
});

test("a change that crosses zero is a difference in the unit, not '+534 %'", () => {
  // a margin from −0.2 MW to +0.868 MW: (0.868 − (−0.2)) / −0.2 would read −534 %
  assert.equal(deltaText({ baseline: -0.2, mean: 0.868, unit: "MW" }), "Δ +1.07 MW");
  assert.equal(deltaText({ baseline: -500, mean: 1500, unit: "kW" }), "Δ +2 MW");
  assert.equal(deltaText({ baseline: 0, mean: 3, unit: "h" }), "Δ +3 h");
});

test("a change of a percentage is in points; others are relative to the baseline", () => {
  assert.equal(deltaText({ baseline: 0.9, mean: 0.93, unit: "fraction" }), "Δ +3 points");
  assert.equal(deltaText({ baseline: 0.05, mean: -0.02, unit: "fraction" }), "Δ −7 points");
  assert.equal(deltaText({ baseline: 100, mean: 112, unit: "MW" }), "Δ +12 %");
  assert.equal(deltaText({ baseline: 5000, mean: 4000, unit: "kW" }), "Δ −20 %");
  assert.equal(deltaText({ baseline: null, mean: 4, unit: "MW" }), "–");
  assert.equal(deltaText({ baseline: 285, mean: 285, unit: "MWh" }), "Δ 0");
});

test("the sign of a change follows the means, and a percentage never comes out in %", () => {
  const finite = fc.double({ min: -1e6, max: 1e6, noNaN: true, noDefaultInfinity: true });
  fc.assert(
    fc.property(finite, finite, fc.constantFrom("MW", "kW", "h", "fraction", ""), (baseline, mean, unit) => {
      const text = deltaText({ baseline, mean, unit });
      const sign = text.charAt(2);
      if (mean > baseline) assert.equal(sign, "+", text);
      if (mean < baseline) assert.equal(sign, "−", text);
      if (unit === "fraction") assert.match(text, / points$/);
      if (baseline !== 0 && Math.sign(baseline) !== Math.sign(mean)) assert.doesNotMatch(text, / %$/);
    }),
    { numRuns: 500 },
  );
});

test("runs are named 'Run 12 · Heat wave', never '#12' or '#12 null'", () => {
  assert.equal(runTitle({ id: 12, scenario_name: "Heat wave" }), "Run 12 · Heat wave");
  assert.equal(runTitle({ id: 12, scenario_name: null }), "Run 12");
  assert.equal(runTitle({ id: 12 }), "Run 12");
  fc.assert(
    fc.property(fc.nat(), fc.constantFrom(null, undefined, "", "  "), (id, name) => {
      const text = runTitle({ id, scenario_name: name });
      assert.equal(text, `Run ${id}`);
    }),
  );
});

test("series are named as people read them, not '1.max_mw'", () => {
  assert.equal(seriesName("building.3.max_mw", "Building — 3.max_mw"), "Building 3, highest draw (MW)");
  assert.equal(seriesName("building.1.min_mw"), "Building 1, lowest draw (MW)");
  assert.equal(seriesName("building.1.mw"), "Building 1, draw (MW)");
  assert.equal(seriesName("rack.12.gpu_temp_c", "GPU temperature (°C) — rack 12"), "GPU temperature (°C) — rack 12");
  assert.equal(seriesName("grid_kw", "Grid draw (kW)"), "Grid draw (kW)");
  assert.equal(seriesName("grid_kw"), "Grid (kW)");
});
