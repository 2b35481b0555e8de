// @ts-check
// A proposal's new building and hall on the campus map (src/pages/map/proposal.js, `newSpace`): laid out by hand
// from the outlines of what they are built like (docs/placement.md, "New halls and buildings").
import assert from "node:assert/strict";
import { test } from "node:test";
import { newSpace } from "../src/pages/map/proposal.js";

const outlines = [
  { level: "building", name: "B1", x: 0, y: 0, w: 50, h: 70 },
  { level: "hall", name: "H1", x: 5, y: 5, w: 30, h: 20 },
  { level: "building", name: "B7", x: 110, y: 0, w: 40, h: 40 },
  { level: "hall", name: "H1", x: 115, y: 5, w: 10, h: 10 },
];

test("a new building stands 60 m beside the rightmost one, its hall where the template's stands", () => {
  const proposal = {
    additions: [
      { new: true, kind: "building", target: "B1", building: "B8" },
      { new: true, kind: "hall", target: "H1", building: "B8" },
      { new: false, kind: "leaf", target: "LEAF" },
    ],
  };
  const space = newSpace(proposal, outlines);
  assert.deepEqual(space.rects, [
    { x: 210, y: 0, w: 50, h: 70 },
    { x: 215, y: 5, w: 30, h: 20 },
  ]);
  assert.deepEqual(space.hall, { x: 215, y: 5, w: 30, h: 20 });
});

test("a new hall stands 6 m beside its building's rightmost hall; nothing new, nothing drawn", () => {
  const proposal = { additions: [{ new: true, kind: "hall", target: "H1", building: "B1" }] };
  assert.deepEqual(newSpace(proposal, outlines).rects, [{ x: 41, y: 5, w: 30, h: 20 }]);
  assert.deepEqual(newSpace({ additions: [{ kind: "leaf" }] }, outlines), { rects: [], hall: null });
});
