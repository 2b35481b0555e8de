// @ts-check
// Forms generated from a scenario kind's JSON schema (pydantic's model_json_schema), validated in the browser
// with the same rules the API applies, so most mistakes are caught before the request; the API's 400 field
// errors ({"params": {"caps[0].cap_w": [...]}}) land on the same fields. Every JSON type has a widget: numbers
// with min/max/step, enums as selects, booleans as checkboxes, objects as fieldsets, lists and mappings as rows
// one adds and removes; a field marked "x-picker" (or a mapping marked "x-key-picker") offers the campus's
// things of that kind (GPU models, pods, cooling units …) from the options the page passes in. Nothing asks
// for JSON.
import { clear, el } from "./dom.js";
import { label as niceLabel } from "./format.js";
import {
  isClassName,
  isSimple,
  join,
  optionLabel,
  parseNumberList,
  plain,
  resolve,
  shape,
  validate,
} from "./schema.js";
import {
  appendOptions,
  checkList,
  listEditor,
  mapEditor,
  optionalObject,
  tupleEditor,
  unionEditor,
} from "./schemaform-editors.js";

/** @typedef {import("./schema.js").Schema} Schema */
/** @typedef {import("./schemaform-editors.js").Editor} Editor */
/** @typedef {import("./schemaform-editors.js").Field} Field */
/** A choice a picker offers. @typedef {{value: string | number, label: string, group?: string}} PickerOption */

let uid = 0;

export class SchemaForm {
  /**
   * @param {HTMLElement} container
   * @param {Schema} schema the kind's JSON schema
   * @param {Record<string, any>} defaults the kind's defaults
   * @param {{pickers?: Record<string, PickerOption[]>}} [options]
   *   the campus's things per picker kind ("gpu_model", "pod", "cooling_target", …)
   */
  constructor(container, schema, defaults, options = {}) {
    this.container = container;
    this.schema = schema;
    this.defaults = defaults ?? {};
    this.pickers = options.pickers ?? {};
    /** Ids handed out, so that a path met again gets a fresh one. @type {Set<string>} */
    this.usedIds = new Set();
    clear(container);
    container.classList.add("schema-form");
    this.root = this.objectEditor(schema, this.defaults, "", null);
    container.append(this.root.node);
  }

  /** {path, read, input, errorEl, wrap} of every field and row, with their current paths. */
  get fields() {
    return this.root.collect();
  }

  /** "param-<path>" ("param-job-mfu", "param-caps-0-cap-w"); a path met again (rows removed and added) gets a
   * suffix so ids stay unique in the page. */
  idFor(path) {
    const id = `param-${path.replace(/[^a-z0-9]+/gi, "-").replace(/-$/, "")}`;
    if (!document.getElementById(id) && !this.usedIds.has(id)) {
      this.usedIds.add(id);
      return id;
    }
    uid += 1;
    return `${id}-${uid}`;
  }

  /** An editor for any schema: {node, read(), collect()}; `path` may change when rows move (setPath). */
  /**
   * @param {Schema} schema
   * @param {any} value
   * @param {string} path
   * @param {string | null} name the property's key (null for a list's row)
   * @returns {Editor}
   */
  editorFor(schema, value, path, name) {
    const { base, nullable, constants } = shape(schema, this.schema);
    const picker = base["x-picker"] ?? resolve(schema, this.schema)["x-picker"];
    if (base.oneOf) return unionEditor(this, base, value, path, name);
    if (base.type === "object" && base.properties && !nullable) return this.objectEditor(base, value, path, name);
    if (base.type === "object" && base.properties) return optionalObject(this, base, value, path, name);
    if (base.type === "array" && Array.isArray(base.prefixItems)) return tupleEditor(this, base, value, path, name);
    if (base.type === "array" && base["x-number-list"])
      return this.simpleField(path, name, { ...base, "x-number-list": true }, nullable, constants, value);
    if (base.type === "array") {
      const items = shape(base.items ?? {}, this.schema).base;
      if (isSimple(items) && (picker || items["x-picker"]) && this.pickers[picker ?? items["x-picker"]])
        return checkList(this, base, value, path, name, nullable, picker ?? items["x-picker"]);
      return listEditor(this, base, value, path, name, nullable);
    }
    if (base.type === "object" && !base.properties) return mapEditor(this, base, value, path, name, nullable);
    return this.simpleField(path, name, { ...base, "x-picker": picker }, nullable, constants, value);
  }

  objectEditor(schema, value, path, name) {
    const s = resolve(schema, this.schema);
    const grid = el("div", { class: "form-grid" });
    const nested = el("div", { class: "form-nested" });
    const advancedGrid = el("div", { class: "form-grid" });
    const children = [];
    for (const [key, prop] of Object.entries(s.properties ?? {})) {
      const { base } = shape(prop, this.schema);
      if (base.readOnly) continue; // set by the server (a resolved series' gaps), never typed
      const childValue = value?.[key] !== undefined ? value[key] : (base.default ?? null);
      const inGrid = base.type !== "array" && base.type !== "object";
      const child = this.editorFor(prop, childValue, join(path, key), key);
      child.key = key;
      children.push(child);
      (base["x-advanced"] && inGrid ? advancedGrid : inGrid ? grid : nested).append(child.node);
    }
    // Model constants and resolution settings, folded away below the parameters a planner changes.
    const advanced = advancedGrid.childElementCount
      ? el(
          "details",
          { class: "advanced", "data-path": path ? `${path}.advanced` : "advanced" },
          el("summary", {}, "Model constants and resolution"),
          advancedGrid,
        )
      : null;
    let node;
    if (name === null) {
      node = el("div", {}, grid, nested, advanced);
    } else {
      const title = schema.title && !isClassName(schema.title) ? schema.title : name;
      node = el(
        "fieldset",
        { class: "param-group", "data-path": path },
        title ? el("legend", {}, niceLabel(title)) : null,
        s.description ? el("p", { class: "field-help" }, plain(s.description)) : null,
        grid,
        nested,
        advanced,
      );
    }
    const editor = {
      node,
      read: () => {
        const out = {};
        for (const c of children) {
          const v = c.read();
          if (v !== undefined) out[c.key] = v;
        }
        return out;
      },
      collect: () => children.flatMap((c) => c.collect()),
      setPath: (p) => {
        path = p;
        for (const c of children) c.setPath(join(p, c.key));
      },
      focus: () => children[0]?.focus?.(),
    };
    return editor;
  }

  /** A titled box with help and an error line, around rows or checkboxes. */
  box(path, name, base, nullable, extraHelp) {
    const id = this.idFor(path);
    const errorEl = el("div", { class: "field-error", id: `${id}-error`, hidden: true, role: "status" });
    const help = [plain(base.description), extraHelp].filter(Boolean).join(" ");
    const body = el("div", { class: "rows" });
    const node = el(
      "fieldset",
      { class: "param-list", "data-path": path, "aria-describedby": `${id}-help` },
      el("legend", {}, niceLabel(base.title ?? name)),
      help ? el("p", { class: "field-help", id: `${id}-help` }, help) : null,
      body,
      errorEl,
    );
    return { id, node, body, errorEl };
  }

  simpleField(path, name, base, nullable, constants, value) {
    const id = this.idFor(path);
    const errorEl = el("div", { class: "field-error", id: `${id}-error`, hidden: true });
    const helpId = `${id}-help`;
    let input;
    let read;
    const help = [];
    if (base.description) help.push(plain(base.description));
    const options = base["x-picker"] ? this.pickers[base["x-picker"]] : null;
    if (options) {
      input = el("select", { id, name: path });
      input.append(el("option", { value: "" }, nullable ? "— any / default —" : "— choose —"));
      appendOptions(input, options, value);
      const byText = new Map(options.map((o) => [String(o.value), o.value]));
      read = () => (input.value === "" ? null : (byText.get(input.value) ?? input.value));
    } else if (Array.isArray(base.enum)) {
      input = el("select", { id, name: path });
      if (nullable) input.append(el("option", { value: "" }, "— default —"));
      for (const option of base.enum)
        input.append(
          el(
            "option",
            { value: option, selected: option === value },
            base["x-enum-labels"]?.[option] ?? optionLabel(option),
          ),
        );
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
        if (base.exclusiveMinimum !== undefined && base.minimum === undefined) input.min = base.exclusiveMinimum;
      }
      const range = [];
      if (base.minimum !== undefined) range.push(`≥ ${base.minimum}`);
      if (base.exclusiveMinimum !== undefined) range.push(`> ${base.exclusiveMinimum}`);
      if (base.maximum !== undefined) range.push(`≤ ${base.maximum}`);
      if (range.length) help.push(`(${range.join(", ")})`);
      if (constants.length) help.push(`A number or ${constants.map((c) => `“${c}”`).join(", ")}.`);
      read = () => {
        const text = input.value.trim();
        if (text === "") return nullable ? null : undefined;
        if (constants.includes(text)) return text;
        const n = Number(text);
        return Number.isNaN(n) ? text : n;
      };
    } else if (base["x-number-list"]) {
      // a long series (a meter export) is pasted, not typed row by row
      input = el("textarea", {
        id,
        name: path,
        rows: 4,
        "data-number-list": "",
        placeholder: "numbers separated by commas, spaces or new lines",
      });
      input.value = Array.isArray(value) ? value.join("\n") : "";
      if (Array.isArray(value)) help.push(`(${value.length} values)`);
      read = () => (input.value.trim() === "" ? (nullable ? null : []) : parseNumberList(input.value));
    } else {
      const placeholder = base.format === "date-time" ? "2026-11-28T00:00:00Z" : nullable ? "default" : "";
      input = el("input", { id, name: path, type: "text", value: value ?? "", placeholder });
      read = () => (input.value === "" && nullable ? null : input.value);
    }
    input.setAttribute("aria-describedby", help.length ? `${helpId} ${id}-error` : `${id}-error`);
    const labelText = niceLabel(base.title ?? name);
    const wrap =
      base.type === "boolean"
        ? el(
            "div",
            { class: "field", "data-path": path },
            el("label", { class: "check", for: id }, input, labelText),
            help.length ? el("div", { class: "field-help", id: helpId }, help.join(" ")) : null,
            errorEl,
          )
        : el(
            "div",
            { class: "field", "data-path": path },
            el("label", { for: id }, labelText),
            input,
            help.length ? el("div", { class: "field-help", id: helpId }, help.join(" ")) : null,
            errorEl,
          );
    const field = { path, read, input, errorEl, wrap };
    // Checked while typing, so a message clears before the pointer leaves the field (no layout jump under a
    // click on the launch button), and again on change for selects and checkboxes.
    input.addEventListener("input", () => this.check(field.path));
    input.addEventListener("change", () => this.check(field.path));
    return {
      node: wrap,
      read,
      collect: () => [field],
      setPath: (p) => {
        field.path = p;
        wrap.dataset.path = p;
      },
      focus: () => input.focus(),
    };
  }

  /** The parameters as an object (empty inputs of required numbers are left out: the API's default applies). */
  value() {
    return this.root.read();
  }

  /** Validates everything; marks the fields; returns the list of errors. */
  validateAll() {
    const errors = validate(this.schema, this.value());
    this.showErrors(Object.fromEntries(errors.map((e) => [e.path, e.message])));
    return errors;
  }

  check(path) {
    const all = this.validateAll();
    return all.filter((e) => this._fieldFor(e.path)?.path === path);
  }

  _fieldFor(path, fields = this.fields) {
    let best = null;
    for (const field of fields) {
      if (path === field.path || path.startsWith(`${field.path}.`) || path.startsWith(`${field.path}[`)) {
        if (!best || field.path.length > best.path.length) best = field;
      }
    }
    return best;
  }

  /** errors: {path: message}; returns the messages no field could take. */
  showErrors(errors) {
    const fields = this.fields;
    for (const field of fields) {
      field.errorEl.hidden = true;
      field.errorEl.textContent = "";
      field.input.removeAttribute("aria-invalid");
      field.wrap.classList.remove("has-error");
    }
    const leftovers = [];
    for (const [path, message] of Object.entries(errors)) {
      const field = this._fieldFor(path, fields);
      if (!field) {
        leftovers.push(`${path}: ${message}`);
        continue;
      }
      const rest = path === field.path ? "" : path.slice(field.path.length).replace(/^\./, "");
      const where = rest ? `${niceLabel(rest.replace(/\[\d+\]/g, ""))}: ` : "";
      field.errorEl.textContent = field.errorEl.textContent
        ? `${field.errorEl.textContent} ${where}${message}`
        : `${where}${message}`;
      field.errorEl.hidden = false;
      field.input.setAttribute("aria-invalid", "true");
      field.wrap.classList.add("has-error");
      const folded = field.wrap.closest("details");
      if (folded) folded.open = true;
    }
    return leftovers;
  }

  focusFirstError() {
    const field = this.fields.find((f) => f.input.getAttribute("aria-invalid") === "true");
    field?.input.focus();
  }
}
