// @ts-check
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { layoutRack } from "../src/lib/rackunits.js";

test("eight 4U servers without positions fill U1 to U32 from the bottom, as stacked by hand", () => {
  const items = Array.from({ length: 8 }, (_, i) => ({ name: `n${i + 1}`, height_u: 4, position_u: null }));
  const { placed, unplaced, usedU } = layoutRack(48, items);
  assert.deepEqual(
    placed.map((p) => [p.name, p.bottom_u]),
    [1, 5, 9, 13, 17, 21, 25, 29].map((u, i) => [`n${i + 1}`, u]),
  );
  assert.equal(usedU, 32);
  assert.deepEqual(unplaced, []);
});

test("a recorded position is kept and the others stack around it", () => {
  const { placed } = layoutRack(10, [
    { name: "free", height_u: 2 },
    { name: "fixed", height_u: 2, position_u: 1 },
  ]);
  assert.deepEqual(
    placed.map((p) => [p.name, p.bottom_u, p.recorded]),
    [
      ["fixed", 1, true],
      ["free", 3, false],
    ],
  );
});

test("what does not fit is reported, never drawn over another item", () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 52 }),
      fc.array(fc.record({ h: fc.integer({ min: 1, max: 10 }), pos: fc.option(fc.integer({ min: 1, max: 52 })) }), {
        maxLength: 30,
      }),
      (units, specs) => {
        const items = specs.map((s, i) => ({ name: `i${i}`, height_u: s.h, position_u: s.pos }));
        const { placed, unplaced, usedU } = layoutRack(units, items);
        const seen = new Set();
        for (const p of placed) {
          assert.ok(p.bottom_u >= 1 && p.bottom_u + p.height_u - 1 <= units);
          for (let u = p.bottom_u; u < p.bottom_u + p.height_u; u++) {
            assert.ok(!seen.has(u), `U${u} twice`);
            seen.add(u);
          }
        }
        assert.equal(usedU, seen.size);
        assert.equal(placed.length + unplaced.length, items.length);
      },
    ),
  );
});
