// @ts-check
// The floor map's colour scales (src/lib/colors.js): bins, legends and the busier feed.
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { METRICS, NO_DATA, gpuColor } from "../src/lib/colors.js";

test("a rack's load falls in the bin its legend names; the lower edge belongs to the upper bin", () => {
  const scale = METRICS.load_kw.scale;
  assert.deepEqual(
    scale.bins.map((b) => b.label),
    ["< 10 kW", "10–20 kW", "20–40 kW", "40–60 kW", "60–80 kW", "80–100 kW", "100–130 kW", "≥ 130 kW"],
  );
  assert.equal(scale.color(5), scale.bins[0].color);
  assert.equal(scale.color(10), scale.bins[1].color);
  assert.equal(scale.color(41.4), scale.bins[3].color); // a 4 × DGX H100 rack
  assert.equal(scale.color(132), scale.bins[7].color); // a GB200 NVL72 rack
  assert.equal(scale.color(null), NO_DATA);
  assert.equal(scale.color(Number.NaN), NO_DATA);
});

test("binned colours never go back down as the value rises", () => {
  for (const [name, metric] of Object.entries(METRICS)) {
    if (metric.scale.kind !== "binned") continue;
    const order = new Map(metric.scale.bins.map((b, i) => [b.color, i]));
    fc.assert(
      fc.property(
        fc.double({ min: -1e3, max: 1e3, noNaN: true }),
        fc.double({ min: 0, max: 1e3, noNaN: true }),
        (a, d) => {
          assert.ok(order.get(metric.scale.color(a)) <= order.get(metric.scale.color(a + d)), name);
        },
      ),
      { numRuns: 200 },
    );
  }
});

test("the feed colour is the busier of a rack's two feeds; none when neither is known", () => {
  const value = METRICS.feed_pct.value;
  assert.equal(value({ feed_a_pct: 40, feed_b_pct: 85 }), 85);
  assert.equal(value({ feed_a_pct: 40, feed_b_pct: null }), 40);
  assert.equal(value({ feed_a_pct: null, feed_b_pct: null }), null);
  assert.equal(METRICS.feed_pct.scale.color(100), METRICS.feed_pct.scale.bins.at(-1).color);
});

test("categories have their own colours, an unknown one is 'no data'", () => {
  const scale = METRICS.cooling_type.scale;
  assert.notEqual(scale.color("air"), scale.color("direct-to-chip"));
  assert.equal(scale.color("something-else"), NO_DATA);
});

test("a GPU model keeps its colour, and one family shares it", () => {
  assert.equal(gpuColor("h100-sxm"), gpuColor("h100-sxm"));
  assert.equal(gpuColor("h100-sxm"), gpuColor("h200-sxm"));
  assert.notEqual(gpuColor("h100-sxm"), gpuColor("mi300x"));
});
