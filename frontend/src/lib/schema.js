// @ts-check
// JSON schemas of scenario parameters (pydantic's model_json_schema) read without a page: references resolved,
// a property's editable shape, the value a new row starts from, and validation with the rules the API applies
// (so most mistakes are caught before the request). No DOM here: node's tests import it as it is.
import { label as niceLabel } from "./format.js";

/**
 * A JSON schema node (the subset pydantic writes, plus the markers "x-picker", "x-key-picker", "x-advanced").
 * @typedef {Record<string, any>} Schema
 */

/**
 * One failed rule: where (a dotted path with [i] for rows, "caps[0].cap_w") and what.
 * @typedef {{path: string, message: string}} SchemaError
 */

/** Docstrings carry reStructuredText literals (``name``); show them as plain names. @param {string} [text] */
export function plain(text) {
  return text ? String(text).replace(/``/g, "") : text;
}

/**
 * The schema a $ref points to (followed until it is not a reference).
 * @param {Schema} schema
 * @param {Schema} root the document the references are relative to
 * @returns {Schema}
 */
export function resolve(schema, root) {
  let s = schema;
  while (s && s.$ref) {
    const path = s.$ref.replace(/^#\//, "").split("/");
    s = path.reduce((/** @type {Schema} */ node, /** @type {string} */ key) => node?.[key], root);
  }
  return s ?? {};
}

/**
 * Splits anyOf into {base, nullable, constants}: the shape a single input can edit.
 * @param {Schema} schema
 * @param {Schema} root
 * @returns {{base: Schema, nullable: boolean, constants: any[]}}
 */
export function shape(schema, root) {
  const s = resolve(schema, root);
  // A property's own title, help and markers win over those of the model it refers to.
  /** @type {Schema} */
  const own = {};
  for (const key of ["title", "description", "default", "x-picker", "x-key-picker", "x-number-list", "readOnly"])
    if (schema?.[key] !== undefined) own[key] = schema[key];
  if (!s.anyOf) return { base: { ...s, ...own }, nullable: false, constants: [] };
  let base = null;
  let nullable = false;
  const constants = [];
  for (const option of s.anyOf.map((/** @type {Schema} */ o) => resolve(o, root))) {
    if (option.type === "null") nullable = true;
    else if (option.const !== undefined) constants.push(option.const);
    else base ??= option;
  }
  return {
    base: {
      ...(base ?? {}),
      title: s.title,
      description: s.description,
      default: s.default,
      "x-picker": s["x-picker"],
      "x-key-picker": s["x-key-picker"],
      "x-number-list": s["x-number-list"],
      readOnly: s.readOnly,
      ...own,
    },
    nullable,
    constants,
  };
}

/**
 * The property every member of a union fixes to its own constant (pydantic's Literal tag), or null.
 * @param {Schema[]} members
 * @returns {string | null}
 */
export function unionTag(members) {
  if (!members.length || !members.every((m) => m.properties)) return null;
  const names = Object.keys(members[0].properties);
  return names.find((n) => members.every((m) => m.properties[n]?.const !== undefined)) ?? null;
}

/** True when one input edits the value (a number, text, a switch or a choice). @param {Schema} base */
export function isSimple(base) {
  return ["number", "integer", "string", "boolean"].includes(base.type) || Array.isArray(base.enum);
}

// ------------------------------------------------------------------ validation (mirrors the API)

/**
 * Every rule `value` breaks, with the path of the field that breaks it.
 * @param {Schema} schema
 * @param {unknown} value
 * @param {Schema} [root]
 * @param {string} [path]
 * @returns {SchemaError[]}
 */
export function validate(schema, value, root = schema, path = "") {
  /** @type {SchemaError[]} */
  const errors = [];
  const add = (/** @type {string} */ p, /** @type {string} */ message) => errors.push({ path: p, message });
  const s = resolve(schema, root);
  if (s.oneOf) {
    // A tagged union (cooling events): the member its tag names, as the API picks it.
    /** @type {Schema[]} */
    const members = s.oneOf.map((/** @type {Schema} */ o) => resolve(o, root));
    const tag = unionTag(members);
    const tagged = /** @type {Record<string, unknown> | null | undefined} */ (value)?.[tag ?? ""];
    const member = tag && members.find((m) => m.properties[tag].const === tagged);
    if (member) return validate(member, value, root, path);
    if (tag) add(join(path, tag), `must be one of ${members.map((m) => m.properties[tag].const).join(", ")}`);
    return errors;
  }
  if (s.anyOf) {
    /** @type {Schema[]} */
    const options = s.anyOf.map((/** @type {Schema} */ o) => resolve(o, root));
    if (value === null && options.some((o) => o.type === "null")) return errors;
    if (options.some((o) => o.const !== undefined && o.const === value)) return errors;
    let best = null;
    for (const o of options) {
      if (o.type === "null" || o.const !== undefined) continue;
      const e = validate(o, value, root, path);
      if (!e.length) return [];
      if (!best || e.length < best.length) best = e;
    }
    const consts = options.filter((o) => o.const !== undefined).map((o) => JSON.stringify(o.const));
    if (best && !(consts.length && typeof value === "string")) return best;
    add(path, consts.length ? `must be a number or ${consts.join(", ")}` : "has the wrong type");
    return errors;
  }
  if (value === null || value === undefined) {
    if (s.type && s.type !== "null") add(path, "is required");
    return errors;
  }
  if (s.enum && !s.enum.includes(value)) add(path, `must be one of ${s.enum.join(", ")}`);
  if (s.const !== undefined && s.const !== value) add(path, `must be ${JSON.stringify(s.const)}`);
  switch (s.type) {
    case "integer":
    case "number":
      if (typeof value !== "number" || !Number.isFinite(value)) {
        add(path, "must be a number");
        break;
      }
      if (s.type === "integer" && !Number.isInteger(value)) add(path, "must be a whole number");
      if (s.minimum !== undefined && value < s.minimum) add(path, `must be ≥ ${s.minimum}`);
      if (s.maximum !== undefined && value > s.maximum) add(path, `must be ≤ ${s.maximum}`);
      if (s.exclusiveMinimum !== undefined && value <= s.exclusiveMinimum) add(path, `must be > ${s.exclusiveMinimum}`);
      if (s.exclusiveMaximum !== undefined && value >= s.exclusiveMaximum) add(path, `must be < ${s.exclusiveMaximum}`);
      break;
    case "string":
      if (typeof value !== "string") add(path, "must be text");
      else {
        if (s.minLength !== undefined && value.length < s.minLength)
          add(path, `needs at least ${s.minLength} characters`);
        if (s.maxLength !== undefined && value.length > s.maxLength)
          add(path, `allows at most ${s.maxLength} characters`);
      }
      break;
    case "boolean":
      if (typeof value !== "boolean") add(path, "must be true or false");
      break;
    case "array":
      if (!Array.isArray(value)) {
        add(path, "must be a list");
        break;
      }
      if (s.minItems !== undefined && value.length < s.minItems) add(path, `needs at least ${s.minItems} items`);
      if (s.maxItems !== undefined && value.length > s.maxItems) add(path, `allows at most ${s.maxItems} items`);
      if (s.prefixItems)
        s.prefixItems.forEach((/** @type {Schema} */ item, /** @type {number} */ i) =>
          errors.push(...validate(item, value[i], root, `${path}[${i}]`)),
        );
      else if (s.items) value.forEach((item, i) => errors.push(...validate(s.items, item, root, `${path}[${i}]`)));
      break;
    case "object": {
      if (typeof value !== "object" || Array.isArray(value)) {
        add(path, "must be an object");
        break;
      }
      const props = s.properties ?? {};
      for (const req of s.required ?? []) if (!(req in value)) add(join(path, req), "is required");
      for (const [k, v] of Object.entries(value)) {
        if (props[k]) errors.push(...validate(props[k], v, root, join(path, k)));
        else if (s.additionalProperties === false) add(join(path, k), "is not a parameter of this kind");
        else if (typeof s.additionalProperties === "object")
          errors.push(...validate(s.additionalProperties, v, root, join(path, k)));
      }
      break;
    }
    default:
      break;
  }
  return errors;
}

/** "caps[0]" + "cap_w" -> "caps[0].cap_w". @param {string} path @param {string} key */
export function join(path, key) {
  return path ? `${path}.${key}` : key;
}

/**
 * The value a new row starts from: each property's default, or empty.
 * @param {Schema} schema
 * @param {Schema} root
 * @returns {any}
 */
export function initial(schema, root) {
  const { base, nullable } = shape(schema, root);
  if (base.oneOf) return initial(base.oneOf[0], root);
  if (base.default !== undefined && base.default !== null) return structuredClone(base.default);
  if (base.type === "object" && base.properties) {
    return Object.fromEntries(
      Object.entries(base.properties)
        .map(([k, p]) => [k, initial(p, root)])
        .filter(([, v]) => v !== undefined),
    );
  }
  if (base.type === "array") return nullable ? null : [];
  if (base.type === "object") return {};
  if (Array.isArray(base.enum)) return base.enum[0];
  if (base.type === "boolean") return false;
  return null;
}

/** The label of an enum option: "cdu_loss" -> "CDU loss". @param {unknown} value */
export function optionLabel(value) {
  return niceLabel(String(value));
}

/** pydantic titles a model by its class name ("CapRule"). @param {string} text */
export function isClassName(text) {
  return /^[A-Z][a-z0-9]+[A-Z]\w*$/.test(text);
}

/** "CapRule" -> "Cap rule". @param {string} text */
export function classWords(text) {
  const words = text.replace(/Params$/, "").split(/(?=[A-Z])/);
  return [words[0], ...words.slice(1).map((w) => w.toLowerCase())].join(" ");
}

/** "Cooling events" -> "Cooling event", "Caps" -> "Cap". @param {string} text */
export function singular(text) {
  return text.replace(/ies$/, "y").replace(/([^s])s$/, "$1");
}

/**
 * A list of numbers typed or pasted as text (a meter export's column): separated by commas, semicolons, spaces
 * or new lines. The numbers, or the text itself when a part is not a number (the schema's check then names it).
 * @param {string} text
 * @returns {number[] | string}
 */
export function parseNumberList(text) {
  const numbers = text
    .split(/[\s,;]+/)
    .filter(Boolean)
    .map(Number);
  return numbers.some((n) => !Number.isFinite(n)) ? text : numbers;
}
