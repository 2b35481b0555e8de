// @ts-check
// One /measured/ row's words (src/lib/deviation.js) against figures written out by hand: a temperature's
// deviation is in kelvin, not a fraction shown ×100 as %, and a cooling unit links to no power device's page.
import assert from "node:assert/strict";
import { test } from "node:test";
import { beyondBand, deviationText, objectHref, peakText } from "../src/lib/deviation.js";

const answer = { band: 0.1, band_k: 2.0 };
const cduReturn = {
  object_kind: "cdu",
  object_id: 7,
  metric: "return_temp_c",
  unit: "°C",
  measured_peak: 27.5,
  modelled: 45.0,
  deviation: -17.5,
  deviation_unit: "K",
};
const pdu = {
  object_kind: "pdu",
  object_id: 7,
  metric: "power_kw",
  unit: "kW",
  measured_peak: 150.0,
  modelled: 100.0,
  deviation: 0.5,
  deviation_unit: "fraction",
};

test("a fraction reads as %, a temperature's deviation as K", () => {
  assert.equal(deviationText(0.5, "fraction"), "+50.0 %");
  assert.equal(deviationText(-0.191), "−19.1 %");
  assert.equal(deviationText(-17.5, "K"), "−17.5 K");
  assert.equal(deviationText(null, "K"), "–");
});

test("rows of different units sort by how many bands they lie beyond", () => {
  assert.equal(beyondBand(pdu, answer), 5); // 0.5 / 0.1
  assert.equal(beyondBand(cduReturn, answer), 8.75); // 17.5 K / 2 K
});

test("a row's peak and model are in its own unit", () => {
  assert.equal(peakText(cduReturn), "return_temp_c: measured peak 27.5 °C, modelled 45.0 °C");
  assert.equal(peakText(pdu), "power_kw: measured peak 150.0 kW, modelled 100.0 kW");
});

test("racks, power devices and cooling units link to their pages; plants and the campus to none", () => {
  assert.equal(objectHref(3, pdu), "/campuses/3/inventory/power-devices/7/");
  assert.equal(objectHref(3, { object_kind: "rack", object_id: 9 }), "/campuses/3/inventory/racks/9/");
  assert.equal(objectHref(3, cduReturn), "/campuses/3/inventory/cooling-units/7/"); // not power device 7
  assert.equal(objectHref(3, { object_kind: "chiller", object_id: 2 }), null);
  assert.equal(objectHref(3, { object_kind: "campus", object_id: 3 }), null);
});
