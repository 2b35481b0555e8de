// @ts-check
// Scenario parameter schemas read without a page (src/lib/schema.js): the rules the browser checks before the
// request, as the API's pydantic models state them, on a schema shaped as pydantic's model_json_schema writes one.
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { classWords, initial, resolve, shape, singular, unionTag, validate } from "../src/lib/schema.js";

const SCHEMA = {
  title: "PowerCappingParams",
  type: "object",
  additionalProperties: false,
  $defs: {
    CapRule: {
      title: "CapRule",
      type: "object",
      properties: {
        gpu_model: { title: "GPU model", type: "string", "x-picker": "gpu_model" },
        cap_w: { title: "Cap (W)", type: "number", minimum: 100, maximum: 1200 },
      },
      required: ["cap_w"],
    },
    CduLoss: {
      title: "CduLoss",
      type: "object",
      properties: {
        kind: { const: "cdu_loss", title: "Kind" },
        at_hours: { type: "number", minimum: 0 },
      },
    },
    HeatWave: {
      title: "HeatWave",
      type: "object",
      properties: {
        kind: { const: "heat_wave", title: "Kind" },
        delta_k: { type: "number", exclusiveMinimum: 0 },
      },
    },
  },
  properties: {
    job_mfu: { title: "Job MFU", type: "number", exclusiveMinimum: 0, maximum: 1, default: 0.4 },
    duration_hours: { title: "Duration (h)", type: "integer", minimum: 1, default: 24 },
    caps: { title: "Caps", type: "array", items: { $ref: "#/$defs/CapRule" }, default: [] },
    replicas_per_pod: { anyOf: [{ type: "integer", minimum: 1 }, { const: "auto" }, { type: "null" }], default: null },
    mode: { title: "Mode", enum: ["cap", "shift"], type: "string", default: "cap" },
    events: {
      type: "array",
      items: { oneOf: [{ $ref: "#/$defs/CduLoss" }, { $ref: "#/$defs/HeatWave" }] },
      default: [],
    },
    band_hz: { type: "array", prefixItems: [{ type: "number" }, { type: "number" }], default: [0.2, 3] },
  },
};

const paths = (/** @type {unknown} */ value) => validate(SCHEMA, value).map((e) => `${e.path}: ${e.message}`);

test("the defaults of a schema form a valid value", () => {
  const value = initial(SCHEMA, SCHEMA);
  assert.deepEqual(value, {
    job_mfu: 0.4,
    duration_hours: 24,
    caps: [],
    replicas_per_pod: null,
    mode: "cap",
    events: [],
    band_hz: [0.2, 3],
  });
  assert.deepEqual(paths(value), []);
});

test("each broken rule is named on the field that breaks it, rows by their index", () => {
  assert.deepEqual(paths({ job_mfu: 0 }), ["job_mfu: must be > 0"]);
  assert.deepEqual(paths({ job_mfu: 1.2 }), ["job_mfu: must be ≤ 1"]);
  assert.deepEqual(paths({ duration_hours: 2.5 }), ["duration_hours: must be a whole number"]);
  assert.deepEqual(paths({ caps: [{ cap_w: 700 }, { cap_w: 50 }] }), ["caps[1].cap_w: must be ≥ 100"]);
  assert.deepEqual(paths({ caps: [{ gpu_model: "h100-sxm" }] }), ["caps[0].cap_w: is required"]);
  assert.deepEqual(paths({ mode: "pause" }), ["mode: must be one of cap, shift"]);
  assert.deepEqual(paths({ colour: "red" }), ["colour: is not a parameter of this kind"]);
  assert.deepEqual(paths({ band_hz: [0.2, "x"] }), ["band_hz[1]: must be a number"]);
});

test("a number or a word: 'auto' and null are accepted, other words are not", () => {
  assert.deepEqual(paths({ replicas_per_pod: "auto" }), []);
  assert.deepEqual(paths({ replicas_per_pod: null }), []);
  assert.deepEqual(paths({ replicas_per_pod: 4 }), []);
  assert.deepEqual(paths({ replicas_per_pod: 0 }), ["replicas_per_pod: must be ≥ 1"]);
  assert.deepEqual(paths({ replicas_per_pod: "many" }), ['replicas_per_pod: must be a number or "auto"']);
});

test("a tagged union is checked against the member its tag names", () => {
  assert.deepEqual(paths({ events: [{ kind: "heat_wave", delta_k: 5 }] }), []);
  assert.deepEqual(paths({ events: [{ kind: "heat_wave", delta_k: 0 }] }), ["events[0].delta_k: must be > 0"]);
  assert.deepEqual(paths({ events: [{ kind: "flood" }] }), ["events[0].kind: must be one of cdu_loss, heat_wave"]);
});

test("a cap is valid exactly inside its bounds", () => {
  fc.assert(
    fc.property(fc.double({ min: -5000, max: 5000, noNaN: true }), (cap) => {
      const errors = paths({ caps: [{ cap_w: cap }] });
      const inside = cap >= 100 && cap <= 1200;
      assert.deepEqual(errors.length === 0, inside, `${cap}: ${errors}`);
      if (!inside) assert.equal(errors.length, 1);
    }),
    { numRuns: 500 },
  );
});

test("references resolve, a property's own title wins over its model's, and null makes a field optional", () => {
  assert.equal(resolve({ $ref: "#/$defs/CapRule" }, SCHEMA).title, "CapRule");
  const caps = shape({ $ref: "#/$defs/CapRule", title: "Cap rule for one model" }, SCHEMA);
  assert.equal(caps.base.title, "Cap rule for one model");
  const replicas = shape(SCHEMA.properties.replicas_per_pod, SCHEMA);
  assert.equal(replicas.nullable, true);
  assert.deepEqual(replicas.constants, ["auto"]);
  assert.equal(replicas.base.type, "integer");
  const members = SCHEMA.properties.events.items.oneOf.map((m) => resolve(m, SCHEMA));
  assert.equal(unionTag(members), "kind");
});

test("pydantic's class names and plural legends read as words", () => {
  assert.equal(classWords("CapRule"), "Cap rule");
  assert.equal(classWords("HeatWaveParams"), "Heat wave");
  assert.equal(singular("Cooling events"), "Cooling event");
  assert.equal(singular("Caps"), "Cap");
  assert.equal(singular("Batteries"), "Battery");
  assert.equal(singular("Class"), "Class");
});

test("a pasted list of numbers is read whatever separates them, and a bad part keeps the text", async () => {
  const { parseNumberList } = await import("../src/lib/schema.js");
  assert.deepEqual(parseNumberList("5200, 5210;5350\n5900 6400\t6420"), [5200, 5210, 5350, 5900, 6400, 6420]);
  assert.deepEqual(parseNumberList("1e3\n-2.5\n"), [1000, -2.5]);
  assert.equal(parseNumberList("12, kW, 13"), "12, kW, 13");
  fc.assert(
    fc.property(fc.array(fc.double({ noNaN: true, noDefaultInfinity: true })), (values) => {
      assert.deepEqual(
        parseNumberList(values.map(String).join(", ")),
        values.map((v) => Number(String(v))),
      );
    }),
  );
});

test("a read-only or number-list marker on a property survives the shape of its optional", () => {
  const root = {
    properties: {
      values_kw: {
        anyOf: [{ type: "array", items: { type: "number" } }, { type: "null" }],
        "x-number-list": true,
        title: "Power values (kW)",
      },
      filled_steps: { type: "integer", readOnly: true },
    },
  };
  const list = shape(root.properties.values_kw, root);
  assert.equal(list.base.type, "array");
  assert.equal(list.base["x-number-list"], true);
  assert.equal(list.nullable, true);
  assert.equal(shape(root.properties.filled_steps, root).base.readOnly, true);
});
