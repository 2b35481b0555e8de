// @ts-check
// The floor plan's conventions (src/lib/floorplan.js): rows and the side their fronts face, hot and cold aisles
// between them, the 600 mm tile grid's coordinates and a scale bar of a round length. Truth: layouts worked by
// hand (ASHRAE TC 9.9's alternating hot/cold aisles at the generator's 3.0 m row pitch: 1.2 m racks, 1.8 m
// aisles), spreadsheet column letters, and properties over random layouts.
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import {
  MAX_AISLE_M,
  TILE_M,
  aislesOf,
  frontEdge,
  rackFronts,
  rowKey,
  rowsOf,
  scaleBar,
  tileAt,
  tileColumn,
  tileLines,
} from "../src/lib/floorplan.js";

/** Racks of `rows` rows of `n` at a 3.0 m pitch, named like the generator's ("B1-H1-R01-01"). */
function hall(rows, n, hallId = 1) {
  const racks = [];
  for (let j = 0; j < rows; j += 1) {
    for (let i = 0; i < n; i += 1) {
      const row = `R${String(j + 1).padStart(2, "0")}`;
      racks.push({ x: 2 + i * 0.6, y: 3 + j * 3.0, w: 0.6, h: 1.2, hall_id: hallId, name: `B1-H1-${row}-${i + 1}` });
    }
  }
  return racks;
}

test("three rows of ten: labels R01-R03, fronts alternate, a cold aisle then a contained hot aisle", () => {
  const racks = hall(3, 10);
  const rows = rowsOf(racks);
  assert.deepEqual(
    rows.map((r) => [r.label, r.front, r.racks]),
    [
      ["R01", "down", 10],
      ["R02", "up", 10],
      ["R03", "down", 10],
    ],
  );
  // R01 spans x 2..8 m, y 3..4.2 m
  assert.deepEqual([rows[0].x, rows[0].y], [2, 3]);
  assert.ok(Math.abs(rows[0].w - 6) < 1e-9 && Math.abs(rows[0].h - 1.2) < 1e-9);
  const aisles = aislesOf(rows);
  assert.equal(aisles.length, 2);
  // between R01 (front down) and R02 (front up): fronts face, cold, open; 1.8 m wide
  assert.equal(aisles[0].kind, "cold");
  assert.equal(aisles[0].contained, false);
  assert.ok(Math.abs(aisles[0].h - 1.8) < 1e-9);
  assert.ok(Math.abs(aisles[0].y - 4.2) < 1e-9);
  // between R02 and R03: backs face, hot, contained
  assert.equal(aisles[1].kind, "hot");
  assert.equal(aisles[1].contained, true);
  assert.deepEqual(
    rackFronts(racks, rows).filter((_, i) => i % 10 === 0),
    ["down", "up", "down"],
  );
});

test("rows of two halls are kept apart, and a wide gap is open floor, not an aisle", () => {
  const a = hall(2, 4, 1);
  const b = hall(2, 4, 2);
  const rows = rowsOf([...a, ...b]);
  assert.equal(rows.length, 4);
  assert.equal(aislesOf(rows).length, 2);
  const far = [...hall(1, 4), ...hall(1, 4).map((r) => ({ ...r, y: r.y + MAX_AISLE_M + 2, name: "B1-H1-R09-1" }))];
  assert.equal(aislesOf(rowsOf(far)).length, 0);
});

test("a rack's front edge is on the side its row faces", () => {
  const r = { x: 1, y: 2, w: 0.6, h: 1.2 };
  assert.deepEqual(frontEdge(r, "down"), [1, 3.2, 1.6, 3.2]);
  assert.deepEqual(frontEdge(r, "up"), [1, 2, 1.6, 2]);
  assert.deepEqual(frontEdge(r, "left"), [1, 2, 1, 3.2]);
  assert.deepEqual(frontEdge(r, "right"), [1.6, 2, 1.6, 3.2]);
});

test("a rack without a row in its name falls back to its line", () => {
  assert.equal(rowKey({ name: "B1-H1-R07-03", x: 0, y: 0, w: 0.6, h: 1.2 }), "R07");
  assert.equal(rowKey({ name: "rack 12", x: 0, y: 3, w: 0.6, h: 1.2 }), "y30");
});

test("tile columns are lettered like spreadsheet columns", () => {
  assert.deepEqual([0, 1, 25, 26, 27, 51, 52, 701, 702].map(tileColumn), [
    "A",
    "B",
    "Z",
    "AA",
    "AB",
    "AZ",
    "BA",
    "ZZ",
    "AAA",
  ]);
  const h = { x: 10, y: 20, w: 30, h: 12 };
  assert.equal(tileAt(h, 10.1, 20.1), "A1");
  // 1.5 m from the left wall is the third 600 mm tile (1.2-1.8 m); 6.1 m down is the 11th (6.0-6.6 m)
  assert.equal(tileAt(h, 11.5, 26.1), "C11");
});

test("a hall 30 x 12 m holds 50 x 20 tiles: 51 and 21 grid lines, labels every fifth", () => {
  const h = { x: 0, y: 0, w: 30, h: 12 };
  const lines = tileLines(h, { x0: -5, y0: -5, x1: 100, y1: 100 }, 5);
  assert.equal(lines.xs.length, 51);
  assert.equal(lines.ys.length, 21);
  assert.deepEqual(
    lines.columns.map((c) => c.text),
    ["A", "F", "K", "P", "U", "Z", "AE", "AJ", "AO", "AT"],
  );
  assert.deepEqual(
    lines.rows.map((r) => r.text),
    ["1", "6", "11", "16"],
  );
  assert.ok(Math.abs(lines.columns[1].x - 5.5 * TILE_M) < 1e-9);
  // only the lines in the view
  assert.equal(tileLines(h, { x0: 0, y0: 0, x1: 3, y1: 3 }, 1).xs.length, 6);
});

test("the scale bar is a round length, at most the room it has, never less than 40 % of it", () => {
  assert.deepEqual(scaleBar(10, 160), { metres: 10, px: 100, text: "10 m" });
  assert.equal(scaleBar(0.1, 160).text, "1 km");
  assert.equal(scaleBar(400, 160).text, "200 mm");
  fc.assert(
    fc.property(fc.double({ min: 0.01, max: 1000, noNaN: true }), fc.integer({ min: 40, max: 400 }), (ppm, room) => {
      const bar = scaleBar(ppm, room);
      assert.ok(bar.px <= room + 1e-9);
      assert.ok(bar.px >= 0.4 * room - 1e-9);
      const lead = bar.metres / 10 ** Math.floor(Math.log10(bar.metres) + 1e-12);
      assert.ok(
        [1, 2, 5].some((k) => Math.abs(lead - k) < 1e-9),
        String(bar.metres),
      );
    }),
    { numRuns: 500 },
  );
});

test("aisles never cover a rack, and each lies between two rows of its hall", () => {
  const layout = fc.array(fc.record({ rows: fc.integer({ min: 1, max: 6 }), n: fc.integer({ min: 1, max: 12 }) }), {
    minLength: 1,
    maxLength: 3,
  });
  fc.assert(
    fc.property(layout, (halls) => {
      const racks = halls.flatMap((h, k) => hall(h.rows, h.n, k + 1));
      const rows = rowsOf(racks);
      const aisles = aislesOf(rows);
      assert.equal(
        aisles.length,
        halls.reduce((s, h) => s + h.rows - 1, 0),
      );
      for (const a of aisles) {
        for (const r of racks) {
          const overlap = a.x < r.x + r.w && r.x < a.x + a.w && a.y + 1e-9 < r.y + r.h && r.y < a.y + a.h - 1e-9;
          assert.ok(!overlap);
        }
        assert.equal(a.contained, a.kind === "hot");
      }
    }),
    { numRuns: 200 },
  );
});
