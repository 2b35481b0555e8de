// @ts-check
// A request body of the OpenAPI document (drf-spectacular, OpenAPI 3.0) as the JSON schema the schema forms read
// (pydantic's shape): `nullable` and a `oneOf` with NullEnum become an `anyOf` with null, a lone `allOf` reference
// becomes the reference itself, and the enum lists drf-spectacular appends to descriptions are left out (the
// select shows the choices).

/** @typedef {import("./schema.js").Schema} Schema */

/**
 * @param {any} node
 * @returns {any}
 */
export function toJsonSchema(node) {
  if (Array.isArray(node)) return node.map(toJsonSchema);
  if (!node || typeof node !== "object") return node;
  if (Array.isArray(node.enum) && node.enum.length === 1 && node.enum[0] === null) return { type: "null" };
  /** @type {Record<string, any>} */
  const out = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === "nullable" || k === "readOnly" || k === "writeOnly") continue;
    out[k] = toJsonSchema(v);
  }
  if (Array.isArray(out.enum) && typeof out.description === "string") {
    // the labels of the choices ("* `dc-800` - 800 VDC (solid-state transformer, DC busway)") for the select
    const labels = Object.fromEntries(
      [...out.description.matchAll(/^\* `([^`]*)` - (.+)$/gm)].map((m) => [m[1], m[2]]),
    );
    if (Object.keys(labels).length) out["x-enum-labels"] = labels;
  }
  if (typeof out.description === "string") {
    // drf-spectacular lists an enum's choices as "* `value` - label" lines: the select shows them
    const text = out.description.startsWith("* `") ? "" : out.description.split("\n\n* ")[0].trim();
    if (text) out.description = text;
    else delete out.description;
  }
  if (Array.isArray(out.allOf) && out.allOf.length === 1) {
    const [inner] = out.allOf;
    delete out.allOf;
    const own = { ...out }; // the property's own default and help win over the referred schema's
    Object.assign(out, inner, own);
  }
  if (Array.isArray(out.oneOf) && out.oneOf.some(isNullRef)) {
    out.anyOf = out.oneOf.map((s) => (isNullRef(s) ? { type: "null" } : s));
    delete out.oneOf;
  } else if (node.nullable) {
    const { default: d, description, title, ...rest } = out;
    return { anyOf: [rest, { type: "null" }], default: d ?? null, description, title };
  }
  return out;
}

/** @param {any} s */
function isNullRef(s) {
  return s && typeof s.$ref === "string" && /\/NullEnum$/.test(s.$ref);
}

/**
 * The JSON schema of an operation's JSON request body, its references resolvable inside it
 * (`#/components/schemas/…`), without the properties named in `omit`.
 * @param {Record<string, any>} openapi the whole document (`/api/schema/?format=json`)
 * @param {string} path e.g. "/api/campuses/generate/"
 * @param {string} [method]
 * @param {string[]} [omit]
 * @returns {Schema}
 */
export function requestSchema(openapi, path, method = "post", omit = []) {
  const body = openapi.paths?.[path]?.[method]?.requestBody?.content?.["application/json"]?.schema;
  if (!body) throw new Error(`The API schema has no JSON body for ${method.toUpperCase()} ${path}.`);
  const components = toJsonSchema(openapi.components ?? {});
  const root = { components };
  let schema = body;
  while (schema?.$ref) {
    const keys = schema.$ref.replace(/^#\//, "").split("/");
    schema = keys.reduce((/** @type {any} */ n, /** @type {string} */ k) => n?.[k], root);
  }
  const required = schema?.required ?? [];
  // the required fields first (a campus's name and size), then the options in the API's order
  const properties = Object.fromEntries(
    Object.entries(schema?.properties ?? {})
      .filter(([k]) => !omit.includes(k))
      .sort(([a], [b]) => Number(required.includes(b)) - Number(required.includes(a))),
  );
  return {
    ...schema,
    properties,
    required: required.filter((/** @type {string} */ k) => !omit.includes(k)),
    components,
  };
}

/**
 * A request body without its empty lists and nulls: left out, the API applies its own default (an empty `phases`
 * list is not "no phases" to every endpoint).
 * @param {Record<string, any>} body
 * @returns {Record<string, any>}
 */
export function withoutEmpty(body) {
  return Object.fromEntries(
    Object.entries(body).filter(([, v]) => v !== null && v !== undefined && !(Array.isArray(v) && !v.length)),
  );
}
