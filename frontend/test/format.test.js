// @ts-check
// The number and word formatting every page uses (src/lib/format.js), against figures written out by hand.
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { byName, compact, energy, hours, label, num, pct, sig, ticks, usd } from "../src/lib/format.js";

test("numbers are grouped by thousands and a missing value is a dash, never 'null' or 'NaN'", () => {
  assert.equal(num(1234.5, 1), "1,234.5");
  assert.equal(num(6272), "6,272");
  assert.equal(num(null), "–");
  assert.equal(num(undefined), "–");
  assert.equal(num(Number.NaN), "–");
});

test("energy is in TWh from 1 TWh up and in GWh below, with a decimal under 10 GWh", () => {
  assert.equal(energy(1.234), "1.23 TWh");
  assert.equal(energy(0.0734), "73 GWh");
  assert.equal(energy(0.005), "5.0 GWh");
});

test("money, shares, durations and counts read as a planner writes them", () => {
  assert.equal(usd(7_412_000), "$7.4 M");
  assert.equal(usd(2.5e9), "$2.50 B");
  assert.equal(usd(950), "$950");
  assert.equal(pct(0.934), "93 %");
  assert.equal(hours(0.5), "30 min");
  assert.equal(hours(5), "5.0 h");
  assert.equal(hours(72), "3.0 d");
  assert.equal(compact(12_345), "12.3 k");
  assert.equal(compact(2_500_000), "2.50 M");
  assert.equal(compact(3.14159), "3.14");
});

test("significant figures: whole numbers stay whole, others keep about three figures", () => {
  assert.equal(sig(0.91349), "0.913");
  assert.equal(sig(12.44), "12.4");
  assert.equal(sig(6272), "6,272");
  assert.equal(sig(-0.0004), "-0.0004");
  assert.equal(sig(null), "–");
});

test("slugs and keys are shown as words: no fabric_ports, gpu temp c or h100-sxm on a page", () => {
  assert.equal(label("fabric_ports"), "Fabric ports");
  assert.equal(label("gpu temp c"), "GPU temp (°C)");
  assert.equal(label("max_gpu_temp_c"), "Max GPU temp (°C)");
  assert.equal(label("h100-sxm"), "H100 SXM");
  assert.equal(label("gb200-nvl72"), "GB200 NVL72");
  assert.equal(label("mi300x"), "MI300X");
  assert.equal(label("ascend-910b"), "Ascend 910B");
  assert.equal(label("direct-to-chip"), "Direct to chip");
  assert.equal(label("nccl_watchdog"), "NCCL watchdog");
  assert.equal(label("it_kw"), "IT (kW)");
  assert.equal(label("cap_w"), "Cap (W)");
  assert.equal(label("2nd_shift"), "2nd shift");
  // a title with spaces is written as it is: its hyphens and figures stay
  assert.equal(label("Liquid-cooled heat capacity (J/K per kW)"), "Liquid-cooled heat capacity (J/K per kW)");
  assert.equal(label("Ramp over 30s"), "Ramp over 30s");
});

test("a label made from a key never keeps an underscore or a hyphen between letters", () => {
  const word = fc.stringMatching(/^[a-z][a-z0-9]{0,7}$/);
  fc.assert(
    fc.property(fc.array(word, { minLength: 1, maxLength: 5 }), fc.constantFrom("_", "-", " "), (words, sep) => {
      const text = label(words.join(sep));
      assert.doesNotMatch(text, /[a-z0-9][_-][a-z0-9]/i);
    }),
    { numRuns: 300 },
  );
});

test("axis ticks tell neighbours apart: uPlot's evenly spaced ticks never get two equal labels", () => {
  assert.deepEqual(ticks([0.9, 0.91, 0.92]), ["0.9", "0.91", "0.92"]);
  assert.deepEqual(ticks([0, 20000, 40000]), ["0", "20 k", "40 k"]);
  // uPlot steps are 1, 2 or 5 times a power of ten, at whole multiples of the step
  const steps = fc.tuple(fc.constantFrom(1, 2, 5), fc.integer({ min: -3, max: 6 })).map(([m, e]) => m * 10 ** e);
  fc.assert(
    fc.property(steps, fc.integer({ min: -1000, max: 1000 }), fc.integer({ min: 2, max: 10 }), (step, k0, n) => {
      const values = Array.from({ length: n }, (_, i) => (k0 + i) * step);
      const labels = ticks(values);
      assert.equal(new Set(labels).size, n, `${values} -> ${labels}`);
    }),
    { numRuns: 500 },
  );
});

test("names are ordered as people count: B2 before B10", () => {
  const names = ["B10", "B2", "B1"].map((name) => ({ name }));
  assert.deepEqual(
    names.sort(byName).map((n) => n.name),
    ["B1", "B2", "B10"],
  );
});
