// @ts-check
// OpenAPI 3.0 request bodies as the schema forms' JSON schema (src/lib/openapi.js), on a document written here in
// drf-spectacular's shape.
import assert from "node:assert/strict";
import { test } from "node:test";
import { requestSchema, toJsonSchema, withoutEmpty } from "../src/lib/openapi.js";
import { initial, shape, validate } from "../src/lib/schema.js";

const DOC = {
  paths: {
    "/api/campuses/generate/": {
      post: { requestBody: { content: { "application/json": { schema: { $ref: "#/components/schemas/Gen" } } } } },
    },
  },
  components: {
    schemas: {
      Gen: {
        type: "object",
        required: ["name"],
        properties: {
          replace_note: { type: "string" },
          name: { type: "string", minLength: 1 },
          power_architecture: {
            allOf: [{ $ref: "#/components/schemas/PowerArchitectureEnum" }],
            default: "ac",
            description: "Power distribution.\n\n* `ac` - AC\n* `dc-800` - 800 VDC",
          },
          facility_water: {
            nullable: true,
            oneOf: [{ $ref: "#/components/schemas/WaterEnum" }, { $ref: "#/components/schemas/NullEnum" }],
          },
          island_gpus: { type: "integer", minimum: 8, maximum: 524288, nullable: true },
          replace: { type: "boolean", default: false },
        },
      },
      PowerArchitectureEnum: {
        enum: ["ac", "dc-800", "dc-400"],
        type: "string",
        description: "* `ac` - AC\n* `dc-800` - 800 VDC\n* `dc-400` - ±400 VDC",
      },
      WaterEnum: { enum: ["W32", "W40", "W45"], type: "string" },
      NullEnum: { enum: [null] },
    },
  },
};

test("an allOf reference keeps the property's own default and help, without the enum list", () => {
  const s = requestSchema(DOC, "/api/campuses/generate/", "post", ["replace"]);
  // the required name first, then the rest in the API's order
  assert.deepEqual(Object.keys(s.properties), [
    "name",
    "replace_note",
    "power_architecture",
    "facility_water",
    "island_gpus",
  ]);
  assert.equal(s.components.schemas.PowerArchitectureEnum.description, undefined); // the choices' list only
  // … which labels the choices instead
  assert.deepEqual(s.components.schemas.PowerArchitectureEnum["x-enum-labels"], {
    ac: "AC",
    "dc-800": "800 VDC",
    "dc-400": "±400 VDC",
  });
  assert.deepEqual(s.properties.power_architecture, {
    $ref: "#/components/schemas/PowerArchitectureEnum",
    default: "ac",
    description: "Power distribution.",
  });
  assert.deepEqual(shape(s.properties.power_architecture, s).base.enum, ["ac", "dc-800", "dc-400"]);
});

test("nullable fields and NullEnum choices become an anyOf with null, as pydantic writes Optional", () => {
  const s = requestSchema(DOC, "/api/campuses/generate/");
  const water = shape(s.properties.facility_water, s);
  assert.equal(water.nullable, true);
  assert.deepEqual(water.base.enum, ["W32", "W40", "W45"]);
  const island = shape(s.properties.island_gpus, s);
  assert.equal(island.nullable, true);
  assert.equal(island.base.type, "integer");
  assert.deepEqual(toJsonSchema({ enum: [null] }), { type: "null" });
});

test("the converted schema validates as the API does: bounds, choices, a null where allowed", () => {
  const s = requestSchema(DOC, "/api/campuses/generate/", "post", ["replace"]);
  const start = initial(s, s);
  assert.equal(start.power_architecture, "ac");
  assert.deepEqual(validate(s, { name: "A", power_architecture: "dc-800", facility_water: null }), []);
  const bad = validate(s, { name: "A", power_architecture: "dc-600", island_gpus: 4 }).map((e) => e.path);
  assert.deepEqual(bad.sort(), ["island_gpus", "power_architecture"]);
});

test("an operation without a JSON body is said, not guessed", () => {
  assert.throws(() => requestSchema(DOC, "/api/nowhere/"), /no JSON body for POST \/api\/nowhere\//);
});

test("empty lists and nulls are left out of a body, every other value kept", () => {
  assert.deepEqual(
    withoutEmpty({ name: "A", gpus: 0, phases: [], mix: [{ gpus: 8 }], nic: null, spans: false, x: "" }),
    {
      name: "A",
      gpus: 0,
      mix: [{ gpus: 8 }],
      spans: false,
      x: "",
    },
  );
});
