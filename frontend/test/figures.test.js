// @ts-check
// The campus's summary figures as the overview and the design comparison both show them (src/lib/figures.js).
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { FIGURES, figureDelta, figureText, figureUnchanged } from "../src/lib/figures.js";

test("one rounding per figure: the overview's 10.9 MW is the comparison's 10.9 MW, not 10.95", () => {
  assert.equal(figureText("power.it_mw", 10.94), "10.9 MW");
  assert.equal(figureText("power.facility_mw", 12.449), "12.4 MW");
  assert.equal(figureText("power.headroom_after_failover_mw", 0.456), "0.46 MW");
  assert.equal(figureText("power.pue", 1.1549), "1.15");
  assert.equal(figureText("power.annual_cost_usd", 7_412_000), "$7.4 M");
  assert.equal(figureText("inventory.gpus", 16384), "16,384");
  assert.equal(figureText("power.it_mw", null), "–");
});

test("every power figure on both pages is in MW (no kW beside MW)", () => {
  for (const [path, figure] of Object.entries(FIGURES)) {
    if (path.endsWith("_mw")) assert.equal(figure.unit, "MW", path);
    assert.notEqual(figure.unit, "kW", path);
  }
});

test("a float difference that rounds to nothing is no change; others carry their sign", () => {
  assert.equal(figureDelta("power.it_mw", 2.8e-14), "0");
  assert.equal(figureDelta("power.it_mw", 0.26), "+0.3 MW");
  assert.equal(figureDelta("power.it_mw", -1.04), "−1.0 MW");
  assert.equal(figureDelta("power.pue", 0.004), "0");
  assert.equal(figureDelta("inventory.racks", -4), "−4");
  assert.equal(figureDelta("power.it_mw", null), "–");
});

test("a difference is shown as '0' exactly when it rounds to zero at the figure's precision", () => {
  const paths = fc.constantFrom(...Object.keys(FIGURES));
  const d = fc.double({ min: -1e4, max: 1e4, noNaN: true, noDefaultInfinity: true });
  fc.assert(
    fc.property(paths, d, (path, delta) => {
      const digits = FIGURES[path].digits;
      // rounds to zero at `digits` decimals, reckoned without the formatter
      const zero = Math.abs(delta) * 10 ** digits < 0.5 - 1e-9;
      if (zero) assert.equal(figureDelta(path, delta), "0");
      if (Math.abs(delta) * 10 ** digits > 0.5 + 1e-9 && FIGURES[path].unit !== "USD")
        assert.notEqual(figureDelta(path, delta), "0");
      assert.equal(figureDelta(path, delta) === "0", figureUnchanged(path, delta));
    }),
    { numRuns: 500 },
  );
});
