// @ts-check
// A scaling curve in words (src/lib/scaling.js): where linearity breaks and why.
import assert from "node:assert/strict";
import { test } from "node:test";
import { breakSentence, linearityBreak } from "../src/lib/scaling.js";

const curve = [
  { gpus: 1024, linearity: 1.0, mfu: 0.45, step_s: 10 },
  { gpus: 4096, linearity: 0.97, mfu: 0.44, step_s: 10.3, grew_most: "bubble" },
  { gpus: 16384, linearity: 0.86, mfu: 0.39, step_s: 11.6, grew_most: "dp", grew_most_tier: "campus" },
  { gpus: 32768, linearity: 0.75, mfu: 0.34, step_s: 13.3, grew_most: "bubble" },
];

test("the break is the first point below the threshold, in GPU order", () => {
  assert.equal(linearityBreak([...curve].reverse())?.gpus, 16384);
  assert.equal(linearityBreak(curve, 0.5), null);
});

test("the sentence names the GPUs, the cost that grew and its tier", () => {
  assert.equal(
    breakSentence(curve),
    "Linearity falls below 90 % at 16,384 GPUs (86 %): the data-parallel gradient reduction grew most, " +
      "across islands, over the oversubscribed campus layer.",
  );
  assert.equal(breakSentence(curve, 0.7), "Scaling stays above 70 % linear up to 32,768 GPUs (75 %).");
  assert.equal(breakSentence([]), "No scaling curve.");
});
