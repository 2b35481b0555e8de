// Forms generated from a scenario kind's JSON schema (pydantic's model_json_schema), validated in the browser
// with the same rules the API applies, so most mistakes are caught before the request; the API's 400 field
// errors ({"params": {"caps[0].cap_w": [...]}}) land on the same fields.
import { clear, el } from "./dom.js";
import { label as niceLabel } from "./format.js";

/** Docstrings carry reStructuredText literals (``name``); show them as plain names. */
function plain(text) {
  return text ? String(text).replace(/``/g, "") : text;
}

export function resolve(schema, root) {
  let s = schema;
  while (s && s.$ref) {
    const path = s.$ref.replace(/^#\//, "").split("/");
    s = path.reduce((node, key) => node?.[key], root);
  }
  return s ?? {};
}

/** Splits anyOf into {base, nullable, constants}: the shape a single input can edit. */
function shape(schema, root) {
  const s = resolve(schema, root);
  if (!s.anyOf) return { base: s, nullable: false, constants: [] };
  let base = null;
  let nullable = false;
  const constants = [];
  for (const option of s.anyOf.map((o) => resolve(o, root))) {
    if (option.type === "null") nullable = true;
    else if (option.const !== undefined) constants.push(option.const);
    else base ??= option;
  }
  return {
    base: { ...(base ?? {}), title: s.title, description: s.description, default: s.default },
    nullable,
    constants,
  };
}

function isSimple(base) {
  return ["number", "integer", "string", "boolean"].includes(base.type) || Array.isArray(base.enum);
}

// ------------------------------------------------------------------ validation (mirrors the API)

export function validate(schema, value, root = schema, path = "") {
  const errors = [];
  const add = (p, message) => errors.push({ path: p, message });
  const s = resolve(schema, root);
  if (s.anyOf) {
    const options = s.anyOf.map((o) => resolve(o, root));
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
      if (s.items) value.forEach((item, i) => errors.push(...validate(s.items, item, root, `${path}[${i}]`)));
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

function join(path, key) {
  return path ? `${path}.${key}` : key;
}

// ------------------------------------------------------------------ the form

export class SchemaForm {
  /**
   * @param {HTMLElement} container
   * @param {object} schema the kind's JSON schema
   * @param {object} defaults the kind's defaults
   */
  constructor(container, schema, defaults) {
    this.container = container;
    this.schema = schema;
    this.defaults = defaults ?? {};
    this.fields = []; // {path, read(): value, input, errorEl}
    clear(container);
    container.classList.add("schema-form");
    this._object(container, schema, this.defaults, "");
  }

  _object(parent, schema, defaults, prefix) {
    const s = resolve(schema, this.schema);
    const grid = el("div", { class: "form-grid" });
    parent.append(grid);
    const nested = [];
    for (const [name, prop] of Object.entries(s.properties ?? {})) {
      const path = prefix ? `${prefix}.${name}` : name;
      const { base, nullable, constants } = shape(prop, this.schema);
      const value = defaults?.[name] ?? base.default ?? null;
      if (base.type === "object" && base.properties && !nullable) {
        nested.push([name, base, value, path]);
      } else if (isSimple(base)) {
        grid.append(this._simple(path, name, base, nullable, constants, value));
      } else {
        nested.push([name, { ...base, nullable }, value, path, "json"]);
      }
    }
    for (const [name, base, value, path, mode] of nested) {
      if (mode === "json") {
        parent.append(this._json(path, name, base, value));
      } else {
        // The property's name reads better than the nested model's class name ("Job", not "JobParams").
        const fs = el("fieldset", {}, el("legend", {}, niceLabel(name)));
        if (base.description) fs.append(el("p", { class: "field-help" }, plain(base.description)));
        parent.append(fs);
        this._object(fs, base, value, path);
      }
    }
  }

  _id(path) {
    return `param-${path.replace(/[^a-z0-9]+/gi, "-")}`;
  }

  _simple(path, name, base, nullable, constants, value) {
    const id = this._id(path);
    const errorEl = el("div", { class: "field-error", id: `${id}-error`, hidden: true });
    let input;
    let read;
    const help = [];
    if (base.description) help.push(plain(base.description));
    if (Array.isArray(base.enum)) {
      input = el("select", { id, name: path });
      if (nullable) input.append(el("option", { value: "" }, "— default —"));
      for (const option of base.enum)
        input.append(el("option", { value: option, selected: option === value }, String(option)));
      if (value === null) input.value = "";
      read = () => (input.value === "" ? null : input.value);
    } else if (base.type === "boolean") {
      input = el("input", { id, name: path, type: "checkbox", checked: Boolean(value) });
      read = () => input.checked;
    } else if (base.type === "number" || base.type === "integer") {
      const free = constants.length > 0;
      input = el("input", {
        id,
        name: path,
        type: free ? "text" : "number",
        inputmode: "decimal",
        step: base.type === "integer" ? 1 : "any",
        value: value ?? "",
        placeholder: nullable ? "default" : constants.length ? constants.join(" / ") : "",
      });
      if (!free) {
        if (base.minimum !== undefined) input.min = base.minimum;
        if (base.maximum !== undefined) input.max = base.maximum;
      }
      if (constants.length) help.push(`a number or ${constants.map((c) => `“${c}”`).join(", ")}`);
      if (nullable) help.push("empty: the campus or derived value");
      read = () => {
        const text = input.value.trim();
        if (text === "") return nullable ? null : undefined;
        if (constants.includes(text)) return text;
        const n = Number(text);
        return Number.isNaN(n) ? text : n;
      };
    } else {
      input = el("input", { id, name: path, type: "text", value: value ?? "", placeholder: nullable ? "default" : "" });
      read = () => (input.value === "" && nullable ? null : input.value);
    }
    input.setAttribute("aria-describedby", `${id}-error`);
    const labelText = niceLabel(base.title ?? name);
    const wrap =
      base.type === "boolean"
        ? el(
            "div",
            { class: "field", "data-path": path },
            el("label", { class: "check", for: id }, input, labelText),
            errorEl,
          )
        : el(
            "div",
            { class: "field", "data-path": path },
            el("label", { for: id }, labelText),
            input,
            help.length ? el("div", { class: "field-help" }, help.join("; ")) : null,
            errorEl,
          );
    this.fields.push({ path, read, input, errorEl, wrap });
    input.addEventListener("change", () => this.check(path));
    return wrap;
  }

  _json(path, name, base, value) {
    const id = this._id(path);
    const errorEl = el("div", { class: "field-error", id: `${id}-error`, hidden: true });
    // null (the engine's "all" or "derived") stays an empty box; everything else is compact JSON.
    const text = value === null || value === undefined ? "" : JSON.stringify(value);
    const input = el(
      "textarea",
      {
        id,
        name: path,
        rows: Math.min(6, Math.max(1, Math.ceil(text.length / 56))),
        spellcheck: "false",
        class: "json-input",
        "aria-describedby": `${id}-error`,
      },
      text,
    );
    const read = () => {
      const raw = input.value.trim();
      if (!raw) return base.nullable ? null : base.type === "array" ? [] : base.type === "object" ? {} : null;
      try {
        return JSON.parse(raw);
      } catch {
        return { __invalid_json__: raw };
      }
    };
    const wrap = el(
      "div",
      { class: "field field-json", "data-path": path },
      el("label", { for: id }, niceLabel(base.title ?? name)),
      input,
      el(
        "div",
        { class: "field-help" },
        [plain(base.description), base.nullable ? "JSON; empty: all / derived" : "JSON"].filter(Boolean).join(" — "),
      ),
      errorEl,
    );
    this.fields.push({ path, read, input, errorEl, wrap, json: true });
    input.addEventListener("change", () => this.check(path));
    return wrap;
  }

  /** The parameters as an object (empty inputs of required numbers are left out: the API's default applies). */
  value() {
    const out = {};
    for (const field of this.fields) {
      const v = field.read();
      if (v === undefined) continue;
      const keys = field.path.split(".");
      let node = out;
      for (const k of keys.slice(0, -1)) node = node[k] ??= {};
      node[keys.at(-1)] = v;
    }
    return out;
  }

  /** Validates everything; marks the fields; returns the list of errors. */
  validateAll() {
    const value = this.value();
    const errors = [];
    for (const field of this.fields) {
      const v = field.read();
      if (v && typeof v === "object" && "__invalid_json__" in v)
        errors.push({ path: field.path, message: "is not valid JSON" });
    }
    const jsonBad = new Set(errors.map((e) => e.path));
    for (const e of validate(this.schema, value)) {
      if (![...jsonBad].some((p) => e.path.startsWith(p))) errors.push(e);
    }
    this.showErrors(Object.fromEntries(errors.map((e) => [e.path, e.message])));
    return errors;
  }

  check(path) {
    const field = this.fields.find((f) => f.path === path);
    if (!field) return;
    const all = this.validateAll();
    return all.filter((e) => this._fieldFor(e.path) === field);
  }

  _fieldFor(path) {
    let best = null;
    for (const field of this.fields) {
      if (path === field.path || path.startsWith(`${field.path}.`) || path.startsWith(`${field.path}[`)) {
        if (!best || field.path.length > best.path.length) best = field;
      }
    }
    return best;
  }

  /** errors: {path: message}; returns the messages no field could take. */
  showErrors(errors) {
    for (const field of this.fields) {
      field.errorEl.hidden = true;
      field.errorEl.textContent = "";
      field.input.removeAttribute("aria-invalid");
    }
    const leftovers = [];
    for (const [path, message] of Object.entries(errors)) {
      const field = this._fieldFor(path);
      if (!field) {
        leftovers.push(`${path}: ${message}`);
        continue;
      }
      const where = path === field.path ? "" : `${path.slice(field.path.length).replace(/^\./, "")}: `;
      field.errorEl.textContent = field.errorEl.textContent
        ? `${field.errorEl.textContent} ${where}${message}`
        : `${where}${message}`;
      field.errorEl.hidden = false;
      field.input.setAttribute("aria-invalid", "true");
    }
    return leftovers;
  }

  focusFirstError() {
    const field = this.fields.find((f) => f.input.getAttribute("aria-invalid") === "true");
    field?.input.focus();
  }
}
