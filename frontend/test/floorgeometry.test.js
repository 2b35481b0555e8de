// @ts-check
// The floor map's geometry without a canvas (src/lib/floorgeometry.js): hit tests against a brute-force search,
// merged cells, bounds, readable text on every fill.
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import {
  boundsOf,
  buildGrid,
  kindCode,
  lastPart,
  mergeCells,
  plantNear,
  rackNear,
  shortName,
  textOn,
} from "../src/lib/floorgeometry.js";

/** @param {number} x @param {number} y @param {number} [w] @param {number} [h] */
const rack = (x, y, w = 0.6, h = 1.2) => ({ x, y, w, h, name: `R-${x}-${y}` });

test("the rack under the pointer is found; a point in the aisle finds none", () => {
  const racks = [rack(0, 0), rack(0.6, 0), rack(1.2, 0), rack(0, 3)];
  const grid = buildGrid(racks);
  assert.equal(rackNear(grid, racks, 0.3, 0.6, 0), 0);
  assert.equal(rackNear(grid, racks, 0.9, 0.6, 0), 1);
  assert.equal(rackNear(grid, racks, 0.3, 3.5, 0), 3);
  assert.equal(rackNear(grid, racks, 0.3, 2.0, 0), -1);
  assert.equal(rackNear(grid, racks, 0.3, 2.0, 1), 0); // within a metre of the first row: its nearest centre
});

test("the hover grid finds the same rack as looking at every rack", () => {
  const racks = fc.array(
    fc.record({
      x: fc.double({ min: 0, max: 60, noNaN: true }),
      y: fc.double({ min: 0, max: 60, noNaN: true }),
      w: fc.double({ min: 0.3, max: 9, noNaN: true }),
      h: fc.double({ min: 0.3, max: 9, noNaN: true }),
    }),
    { minLength: 1, maxLength: 40 },
  );
  const coord = fc.double({ min: -5, max: 70, noNaN: true });
  fc.assert(
    fc.property(racks, coord, coord, fc.double({ min: 0, max: 6, noNaN: true }), (rs, x, y, slop) => {
      const found = rackNear(buildGrid(rs), rs, x, y, slop);
      // brute force: every rack within `slop` of the point, the nearest centre
      const centre = (/** @type {{x: number, y: number, w: number, h: number}} */ r) =>
        Math.hypot(x - (r.x + r.w / 2), y - (r.y + r.h / 2));
      const near = rs.filter(
        (r) => x >= r.x - slop && x <= r.x + r.w + slop && y >= r.y - slop && y <= r.y + r.h + slop,
      );
      if (!near.length) return assert.equal(found, -1);
      assert.ok(found >= 0);
      assert.equal(centre(rs[found]), Math.min(...near.map(centre)));
    }),
    { numRuns: 400 },
  );
});

test("the smallest plant item under the pointer wins (a PDU inside its hall's plant room)", () => {
  const plant = [
    { x: 0, y: 0, w: 20, h: 10 },
    { x: 2, y: 2, w: 1, h: 1 },
  ];
  assert.equal(plantNear(plant, 2.5, 2.5, 0), 1);
  assert.equal(plantNear(plant, 10, 5, 0), 0);
  assert.equal(plantNear(plant, 30, 5, 0), -1);
});

test("racks merged into a cell take the colour most of them have; a highlighted rack wins its cell", () => {
  const racks = [rack(0, 0), rack(0.6, 0), rack(1.2, 0)];
  const colors = ["red", "red", "blue"];
  const plain = mergeCells(racks, colors, new Set(), 10);
  assert.deepEqual([...plain.groups.keys()], ["red"]);
  const [block] = plain.groups.get("red");
  assert.ok(block.w >= 9 && block.h >= 9); // at least 90 % of a cell, over the racks
  const hit = mergeCells(racks, colors, new Set([2]), 10);
  assert.deepEqual([...hit.groups.keys()], ["blue"]);
});

test("the scene's bounds cover racks and outlines, with room above for the names", () => {
  assert.deepEqual(boundsOf([rack(2, 5)], [{ x: 0, y: 4, w: 10, h: 8 }]), { x: 0, y: 1, w: 10, h: 11 });
  assert.deepEqual(boundsOf([], []), { x: 0, y: 0, w: 10, h: 10 });
});

/** WCAG 2 contrast ratio, written out here rather than taken from the code under test. */
function contrast(/** @type {string} */ a, /** @type {string} */ b) {
  const lum = (/** @type {string} */ hex) => {
    const [r, g, bl] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255);
    const lin = (/** @type {number} */ c) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
    return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(bl);
  };
  const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

test("rack names are dark on light fills and white on dark ones, readable on every fill", () => {
  assert.equal(textOn("#ffffff"), "#111827");
  assert.equal(textOn("#e3b50f"), "#111827"); // amber
  assert.equal(textOn("#000000"), "#ffffff");
  assert.equal(textOn("#2f6fde"), "#ffffff"); // blue
  const hex = fc.integer({ min: 0, max: 0xffffff }).map((n) => `#${n.toString(16).padStart(6, "0")}`);
  fc.assert(
    fc.property(hex, (fill) => {
      // WCAG's 3:1 for large or bold text is met on any fill
      assert.ok(contrast(textOn(fill), fill) >= 3, fill);
    }),
    { numRuns: 1000 },
  );
});

test("short names and plant codes fit inside small shapes", () => {
  assert.equal(shortName("B1-H1-R01-07"), "R01-07");
  assert.equal(lastPart("B1-H1-R01-07"), "07");
  assert.equal(shortName("R7"), "R7");
  assert.equal(kindCode("ups"), "UPS");
  assert.equal(kindCode("cooling-tower"), "TWR");
  assert.equal(kindCode("sst"), "SST");
});
