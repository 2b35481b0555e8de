// @ts-check
// The shape of the dashboard's sources: every file type-checked, no module grown past ~400 lines, and the pure
// helpers free of the DOM (so node's tests keep importing them).
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { test } from "node:test";

const SRC = new URL("../src/", import.meta.url).pathname;
const MAX_LINES = 450;
const PURE = [
  "format.js",
  "units.js",
  "figures.js",
  "inputs.js",
  "colors.js",
  "schema.js",
  "floorgeometry.js",
  "schedule.js",
  "rackunits.js",
  "sheet.js",
  "scaling.js",
  "warnings.js",
];

/** @param {string} dir @returns {string[]} */
function sources(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith(".js") ? [join(dir, e.name)] : [],
  );
}

test("every source file is checked by TypeScript (// @ts-check on its first line)", () => {
  const unchecked = sources(SRC).filter((f) => !readFileSync(f, "utf8").startsWith("// @ts-check\n"));
  assert.deepEqual(
    unchecked.map((f) => relative(SRC, f)),
    [],
  );
});

test(`no source module is over ${MAX_LINES} lines`, () => {
  const long = sources(SRC)
    .map((f) => [relative(SRC, f), readFileSync(f, "utf8").split("\n").length])
    .filter(([, n]) => Number(n) > MAX_LINES);
  assert.deepEqual(long, []);
});

test("the pure helpers are the modules TypeScript checks strictly", () => {
  const strict = JSON.parse(
    readFileSync(new URL("../tsconfig.strict.json", import.meta.url), "utf8").replace(/^\s*\/\/.*$/gm, ""),
  );
  assert.deepEqual(strict.include.map((/** @type {string} */ f) => f.replace("src/lib/", "")).sort(), [...PURE].sort());
});

test("the pure helpers neither touch the DOM nor import a module that does", () => {
  for (const name of PURE) {
    const text = readFileSync(join(SRC, "lib", name), "utf8").replace(/\/\/.*|\/\*[\s\S]*?\*\//g, "");
    assert.doesNotMatch(text, /\b(document|window|HTML\w*Element|requestAnimationFrame|fetch)\b/, name);
    for (const [, imported] of text.matchAll(/from "\.\/([\w-]+\.js)"/g))
      assert.ok(PURE.includes(imported), `${name} imports ${imported}`);
  }
});
