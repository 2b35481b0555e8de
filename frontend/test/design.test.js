// @ts-check
// The design choices and risks in words (src/lib/design.js), against sentences written out by hand.
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import {
  architectureWords,
  copperWords,
  designConditionsWords,
  heatRejection,
  kindWords,
  riskWords,
  waterClass,
} from "../src/lib/design.js";

test("power architectures read as the distribution they are, an unknown code as it is", () => {
  assert.equal(architectureWords("dc-800"), "800 VDC (solid-state transformers, DC busways)");
  assert.equal(architectureWords("dc-400"), "±400 VDC (sidecar power racks, DC busways)");
  assert.equal(architectureWords("ac"), "415 VAC (transformers, UPS, PDUs)");
  assert.equal(architectureWords("hvdc-1500"), "hvdc-1500");
  assert.equal(architectureWords(null), "–");
});

test("plant kinds are named in words, the closed-loop ones saying so", () => {
  assert.equal(kindWords("air-chiller"), "Air-cooled chillers (closed loop)");
  assert.equal(kindWords("adiabatic-cooler"), "Dry coolers with adiabatic assist");
  assert.equal(kindWords("sst"), "Solid-state transformer");
  assert.equal(kindWords("cdu"), "Coolant distribution unit");
});

test("heat rejection groups the plants by kind, largest capacity first", () => {
  const rows = heatRejection([
    { kind: "air-chiller", capacity_kw: 2000 },
    { kind: "chiller", capacity_kw: 500 },
    { kind: "air-chiller", capacity_kw: 2000 },
  ]);
  assert.deepEqual(
    rows.map((r) => [r.kind, r.count, r.capacity_mw]),
    [
      ["air-chiller", 2, 4],
      ["chiller", 1, 0.5],
    ],
  );
});

test("heat rejection keeps every plant and all of its capacity", () => {
  const kinds = ["chiller", "air-chiller", "dry-cooler", "adiabatic-cooler", "cooling-tower"];
  fc.assert(
    fc.property(
      fc.array(fc.record({ kind: fc.constantFrom(...kinds), capacity_kw: fc.integer({ min: 1, max: 50_000 }) }), {
        maxLength: 30,
      }),
      (plants) => {
        const rows = heatRejection(plants);
        assert.equal(
          rows.reduce((s, r) => s + r.count, 0),
          plants.length,
        );
        const kw = plants.reduce((s, p) => s + p.capacity_kw, 0);
        assert.ok(Math.abs(rows.reduce((s, r) => s + r.capacity_mw, 0) * 1000 - kw) < 1e-6 * Math.max(1, kw));
        assert.equal(new Set(rows.map((r) => r.kind)).size, rows.length);
      },
    ),
    { numRuns: 200 },
  );
});

test("the facility water class is read from the generator's description", () => {
  assert.equal(waterClass("… closed loop); facility water W40 (40 °C supply)."), "W40");
  assert.equal(waterClass("Reference design: liquid cooling"), null);
  assert.equal(waterClass(undefined), null);
});

test("copper is said against a 415 VAC chain", () => {
  assert.equal(copperWords(0.599), "40 % less copper than 415 VAC");
  assert.equal(copperWords(1), "as much copper as 415 VAC");
  assert.equal(copperWords(1.2), "20 % more copper than 415 VAC");
  assert.equal(copperWords(null), "–");
});

test("a grid shortfall names its shortfall, hours and the generators' energy and cost", () => {
  const w = riskWords({
    kind: "grid_shortfall",
    severity: "warning",
    shortfall_mw: 1.1435,
    hours: 8760,
    generator_energy_mwh: 9346.1,
    generator_fuel_usd_per_mwh: 263,
    generator_cost_usd: 2_458_036,
    message: "the grid connection of 0.500 MW is 1.144 MW below the peak facility power",
  });
  assert.equal(w.title, "Grid connection below the peak facility power");
  assert.deepEqual(w.figures, [
    "1.14 MW short",
    "8,760 h a year",
    "9,346 MWh a year from generators at $263/MWh ($2.5 M a year)",
  ]);
  assert.equal(w.severity, "warning");
});

test("a plant short of heat rejection names the plant in words and where it falls short", () => {
  const w = riskWords({
    kind: "heat_rejection_short",
    severity: "error",
    plant: "B1-DC-1",
    plant_kind: "dry-cooler",
    hours_short: 1094,
    design_hours_short: 2,
    worst_margin_mw: -0.25,
  });
  assert.equal(w.title, "A cooling plant cannot reject its heat");
  assert.deepEqual(w.elements, ["Dry coolers (closed loop) “B1-DC-1”"]);
  assert.deepEqual(w.figures, ["1,094 h of the typical year", "2 design conditions", "up to 0.25 MW short"]);
  assert.equal(riskWords({ kind: "utility_trips_at_design_load", utility_feed_id: 7 }).elements[0], "utility feed 7");
  assert.equal(
    riskWords({ kind: "grid_short_at_design" }).title,
    "Grid connection below the peak at design conditions",
  );
  assert.equal(riskWords({ kind: "new_kind" }).title, "new kind");
});

test("design conditions read as the ASHRAE table's columns, an estimate flagged", () => {
  const dc = {
    cooling_db_04_c: 34.8,
    cooling_mcwb_04_c: 23.7,
    cooling_db_1_c: 33.3,
    cooling_mcwb_1_c: 23.1,
    evaporation_wb_04_c: 25.4,
    extreme_db_20y_c: 39.2,
    estimate: true,
  };
  assert.equal(
    designConditionsWords(dc),
    "0.4 % 34.8 °C dry bulb / 23.7 °C wet bulb · 1 % 33.3 / 23.1 °C · 0.4 % wet bulb 25.4 °C · " +
      "20-year extreme 39.2 °C (estimate)",
  );
  assert.equal(designConditionsWords({ extreme_db_20y_c: 45 }), "20-year extreme 45.0 °C");
  assert.equal(designConditionsWords(null), "–");
});
