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
  // A property's own title, help and markers win over those of the model it refers to.
  const own = {};
  for (const key of ["title", "description", "default", "x-picker", "x-key-picker"])
    if (schema?.[key] !== undefined) own[key] = schema[key];
  if (!s.anyOf) return { base: { ...s, ...own }, nullable: false, constants: [] };
  let base = null;
  let nullable = false;
  const constants = [];
  for (const option of s.anyOf.map((o) => resolve(o, root))) {
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
      ...own,
    },
    nullable,
    constants,
  };
}

/** The property every member of a union fixes to its own constant (pydantic's Literal tag), or null. */
function unionTag(members) {
  if (!members.length || !members.every((m) => m.properties)) return null;
  const names = Object.keys(members[0].properties);
  return names.find((n) => members.every((m) => m.properties[n]?.const !== undefined)) ?? null;
}

function isSimple(base) {
  return ["number", "integer", "string", "boolean"].includes(base.type) || Array.isArray(base.enum);
}

// ------------------------------------------------------------------ validation (mirrors the API)

export function validate(schema, value, root = schema, path = "") {
  const errors = [];
  const add = (p, message) => errors.push({ path: p, message });
  const s = resolve(schema, root);
  if (s.oneOf) {
    // A tagged union (cooling events): the member its tag names, as the API picks it.
    const members = s.oneOf.map((o) => resolve(o, root));
    const tag = unionTag(members);
    const member = tag && members.find((m) => m.properties[tag].const === value?.[tag]);
    if (member) return validate(member, value, root, path);
    if (tag) add(join(path, tag), `must be one of ${members.map((m) => m.properties[tag].const).join(", ")}`);
    return errors;
  }
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
      if (s.prefixItems)
        s.prefixItems.forEach((item, i) => errors.push(...validate(item, value[i], root, `${path}[${i}]`)));
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

function join(path, key) {
  return path ? `${path}.${key}` : key;
}

// ------------------------------------------------------------------ the form

/** The value a new row starts from: each property's default, or empty. */
function initial(schema, root) {
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

/** The label of an enum option: "cdu_loss" -> "CDU loss". */
function optionLabel(value) {
  return niceLabel(String(value));
}

let uid = 0;

export class SchemaForm {
  /**
   * @param {HTMLElement} container
   * @param {object} schema the kind's JSON schema
   * @param {object} defaults the kind's defaults
   * @param {{pickers?: Object<string, {value: (string|number), label: string, group?: string}[]>}} options
   *   the campus's things per picker kind ("gpu_model", "pod", "cooling_target", …)
   */
  constructor(container, schema, defaults, options = {}) {
    this.container = container;
    this.schema = schema;
    this.defaults = defaults ?? {};
    this.pickers = options.pickers ?? {};
    clear(container);
    container.classList.add("schema-form");
    this.root = this._objectEditor(schema, this.defaults, "", null);
    container.append(this.root.node);
  }

  /** {path, read, input, errorEl, wrap} of every field and row, with their current paths. */
  get fields() {
    return this.root.collect();
  }

  /** "param-<path>" ("param-job-mfu", "param-caps-0-cap-w"); a path met again (rows removed and added) gets a
   * suffix so ids stay unique in the page. */
  _id(path) {
    const id = `param-${path.replace(/[^a-z0-9]+/gi, "-").replace(/-$/, "")}`;
    if (!document.getElementById(id) && !this.usedIds?.has(id)) {
      (this.usedIds ??= new Set()).add(id);
      return id;
    }
    uid += 1;
    return `${id}-${uid}`;
  }

  /** An editor for any schema: {node, read(), collect()}; `path` may change when rows move (setPath). */
  _editor(schema, value, path, name, inGrid) {
    const { base, nullable, constants } = shape(schema, this.schema);
    const picker = base["x-picker"] ?? resolve(schema, this.schema)["x-picker"];
    if (base.oneOf) return this._unionEditor(base, value, path, name);
    if (base.type === "object" && base.properties && !nullable) return this._objectEditor(base, value, path, name);
    if (base.type === "object" && base.properties) return this._optionalObject(base, value, path, name);
    if (base.type === "array" && Array.isArray(base.prefixItems)) return this._tupleEditor(base, value, path, name);
    if (base.type === "array") {
      const items = shape(base.items ?? {}, this.schema).base;
      if (isSimple(items) && (picker || items["x-picker"]) && this.pickers[picker ?? items["x-picker"]])
        return this._checkList(base, value, path, name, nullable, picker ?? items["x-picker"]);
      return this._listEditor(base, value, path, name, nullable);
    }
    if (base.type === "object" && !base.properties) return this._mapEditor(base, value, path, name, nullable);
    return this._simple(path, name, { ...base, "x-picker": picker }, nullable, constants, value, inGrid);
  }

  _objectEditor(schema, value, path, name) {
    const s = resolve(schema, this.schema);
    const grid = el("div", { class: "form-grid" });
    const nested = el("div", { class: "form-nested" });
    const advancedGrid = el("div", { class: "form-grid" });
    const children = [];
    for (const [key, prop] of Object.entries(s.properties ?? {})) {
      const { base } = shape(prop, this.schema);
      const childValue = value?.[key] !== undefined ? value[key] : (base.default ?? null);
      const inGrid = base.type !== "array" && base.type !== "object";
      const child = this._editor(prop, childValue, join(path, key), key, inGrid);
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
  _box(path, name, base, nullable, extraHelp) {
    const id = this._id(path);
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

  _listEditor(base, value, path, name, nullable) {
    const box = this._box(path, name, base, nullable, nullable ? "No rows: the default." : "");
    const itemSchema = base.items ?? {};
    const rows = [];
    const addButton = el("button", { type: "button", class: "button-quiet small", "data-testid": "add-row" }, "");
    const renumber = () => {
      rows.forEach((r, i) => {
        r.editor.setPath(`${path}[${i}]`);
        r.path = `${path}[${i}]`;
        r.caption.textContent = `${rowNoun} ${i + 1}`;
        r.remove.setAttribute("aria-label", `Remove ${rowNoun.toLowerCase()} ${i + 1} of ${box.legendText}`);
      });
      box.empty.hidden = rows.length > 0;
    };
    const itemTitle = resolve(itemSchema, this.schema).title;
    const rowNoun =
      itemTitle && isClassName(itemTitle) ? classWords(itemTitle) : singular(niceLabel(base.title ?? name));
    box.legendText = niceLabel(base.title ?? name);
    addButton.textContent = `Add ${rowNoun.toLowerCase()}`;
    box.empty = el("p", { class: "muted small" }, nullable ? "None: the default applies." : "None.");
    const addRow = (v, focus) => {
      const i = rows.length;
      const editor = this._editor(itemSchema, v, `${path}[${i}]`, null, true);
      const caption = el("strong", { class: "row-caption" }, `${rowNoun} ${i + 1}`);
      const rowId = this._id(`${path}-row`);
      const errorEl = el("div", { class: "field-error", id: `${rowId}-error`, hidden: true });
      const remove = el(
        "button",
        { type: "button", class: "button-quiet small", "data-testid": "remove-row" },
        "Remove",
      );
      const node = el(
        "div",
        { class: "param-row", "data-testid": "param-row" },
        el("div", { class: "row-head" }, caption, remove),
        editor.node,
        errorEl,
      );
      const row = { editor, node, caption, remove, errorEl, path: `${path}[${i}]` };
      remove.addEventListener("click", () => {
        const k = rows.indexOf(row);
        rows.splice(k, 1);
        node.remove();
        renumber();
        (rows[Math.min(k, rows.length - 1)]?.remove ?? addButton).focus();
      });
      rows.push(row);
      box.body.append(node);
      renumber();
      if (focus) (node.querySelector("input, select") ?? remove).focus();
    };
    box.body.append(box.empty);
    for (const v of Array.isArray(value) ? value : []) addRow(v, false);
    addButton.addEventListener("click", () => addRow(initial(itemSchema, this.schema), true));
    box.node.insertBefore(el("div", { class: "button-row" }, addButton), box.errorEl);
    renumber();
    return {
      node: box.node,
      read: () => {
        const out = rows.map((r) => r.editor.read());
        return nullable && !out.length ? null : out;
      },
      collect: () => [
        { path, read: () => null, input: addButton, errorEl: box.errorEl, wrap: box.node },
        ...rows.flatMap((r) => [
          {
            path: r.path,
            read: () => null,
            input: r.node.querySelector("input, select") ?? r.remove,
            errorEl: r.errorEl,
            wrap: r.node,
          },
          ...r.editor.collect(),
        ]),
      ],
      setPath: (p) => {
        path = p;
        renumber();
      },
      focus: () => addButton.focus(),
    };
  }

  /** A tagged union (one model per kind of event): a select of the kinds, then the chosen kind's own fields;
   * switching keeps the values the kinds share. */
  _unionEditor(base, value, path, name) {
    const members = base.oneOf.map((o) => resolve(o, this.schema));
    const tag = unionTag(members);
    if (!tag) return this._simple(path, name, { ...base, type: "string" }, false, [], value);
    const byTag = new Map(members.map((m) => [m.properties[tag].const, m]));
    const first = members[0].properties[tag];
    const tagBase = {
      title: first.title ?? tag,
      description: members
        .map((m) => `${optionLabel(m.properties[tag].const)}: ${plain(m.description ?? "")}`)
        .join(" "),
      enum: [...byTag.keys()],
    };
    let current = byTag.has(value?.[tag]) ? value[tag] : first.const;
    const tagEditor = this._simple(join(path, tag), tag, tagBase, false, [], current);
    const body = el("div", {});
    const node = el("div", { class: "union" }, el("div", { class: "form-grid" }, tagEditor.node), body);
    let inner = null;
    const render = (values) => {
      const member = byTag.get(current);
      const props = Object.fromEntries(Object.entries(member.properties).filter(([k]) => k !== tag));
      inner = this._objectEditor({ ...member, properties: props }, values, path, null);
      body.replaceChildren(inner.node);
    };
    render(value ?? {});
    const select = tagEditor.collect()[0].input;
    select.addEventListener("change", () => {
      if (!byTag.has(select.value)) return;
      const kept = inner.read();
      current = select.value;
      const member = byTag.get(current);
      const values = Object.fromEntries(Object.entries(kept).filter(([k]) => member.properties[k]));
      render(values);
    });
    return {
      node,
      read: () => ({ [tag]: current, ...inner.read() }),
      collect: () => [...tagEditor.collect(), ...inner.collect()],
      setPath: (p) => {
        path = p;
        tagEditor.setPath(join(p, tag));
        inner.setPath(p);
      },
      focus: () => tagEditor.focus(),
    };
  }

  /** A model that may be left out (null: the campus's own or a derived value): a switch "Set here", and the
   * model's fields while it is on. */
  _optionalObject(base, value, path, name) {
    const id = this._id(`${path}-set`);
    const title = niceLabel(base.title && !isClassName(base.title) ? base.title : name);
    const toggle = el("input", { type: "checkbox", id, checked: value != null, "aria-describedby": `${id}-help` });
    const inner = this._objectEditor(base, value ?? initial({ ...base, default: undefined }, this.schema), path, name);
    inner.node.hidden = value == null;
    toggle.addEventListener("change", () => {
      inner.node.hidden = !toggle.checked;
    });
    const node = el(
      "div",
      { class: "optional-object", "data-path": path },
      el("label", { class: "check", for: id }, toggle, `${title}: set in this scenario`),
      base.description ? el("div", { class: "field-help", id: `${id}-help` }, plain(base.description)) : null,
      inner.node,
    );
    return {
      node,
      read: () => (toggle.checked ? inner.read() : null),
      collect: () => (toggle.checked ? inner.collect() : []),
      setPath: (p) => {
        path = p;
        inner.setPath(p);
      },
      focus: () => toggle.focus(),
    };
  }

  /** A fixed-length list (a tuple such as a frequency band [low, high]): one input per place, no rows. */
  _tupleEditor(base, value, path, name) {
    const box = this._box(path, name, base, false, "");
    box.body.classList.add("form-grid");
    const words = base.prefixItems.length === 2 ? ["From", "To"] : base.prefixItems.map((_, i) => `Value ${i + 1}`);
    const parts = base.prefixItems.map((item, i) => {
      const itemBase = { ...shape(item, this.schema).base, title: words[i], description: undefined };
      const editor = this._simple(`${path}[${i}]`, words[i], itemBase, false, [], value?.[i] ?? null);
      box.body.append(editor.node);
      return editor;
    });
    return {
      node: box.node,
      read: () => parts.map((p) => p.read() ?? null),
      collect: () => [
        {
          path,
          read: () => null,
          input: box.node.querySelector("input") ?? box.node,
          errorEl: box.errorEl,
          wrap: box.node,
        },
        ...parts.flatMap((p) => p.collect()),
      ],
      setPath: (p) => {
        path = p;
        parts.forEach((part, i) => part.setPath(`${p}[${i}]`));
      },
      focus: () => parts[0]?.focus(),
    };
  }

  /** A list of simple values with a picker: one checkbox per option. */
  _checkList(base, value, path, name, nullable, picker) {
    const box = this._box(path, name, base, nullable, nullable ? "None ticked: every one." : "");
    const options = this.pickers[picker];
    const chosen = new Set((value ?? []).map(String));
    const boxes = options.map((o) => {
      const id = this._id(`${path}-${o.value}`);
      const input = el("input", { type: "checkbox", id, value: String(o.value), checked: chosen.has(String(o.value)) });
      box.body.append(el("label", { class: "check", for: id }, input, o.label));
      return { input, option: o };
    });
    box.body.classList.add("check-grid");
    return {
      node: box.node,
      read: () => {
        const out = boxes.filter((b) => b.input.checked).map((b) => b.option.value);
        return nullable && !out.length ? null : out;
      },
      collect: () => [
        { path, read: () => null, input: boxes[0]?.input ?? box.node, errorEl: box.errorEl, wrap: box.node },
      ],
      setPath: (p) => (path = p),
      focus: () => boxes[0]?.input.focus(),
    };
  }

  /** A mapping: rows of key and value; keys from a picker when the schema names one. */
  _mapEditor(base, value, path, name, nullable) {
    const box = this._box(path, name, base, nullable, "");
    const keyPicker = base["x-key-picker"];
    const keyOptions = keyPicker ? this.pickers[keyPicker] : null;
    const valueSchema = typeof base.additionalProperties === "object" ? base.additionalProperties : { type: "string" };
    const valueShape = shape(valueSchema, this.schema).base;
    const rows = [];
    const legend = niceLabel(base.title ?? name);
    const addButton = el(
      "button",
      { type: "button", class: "button-quiet small", "data-testid": "add-row" },
      "Add entry",
    );
    const empty = el("p", { class: "muted small" }, "None.");
    box.body.append(empty);
    const addRow = (k, v, focus) => {
      const keyId = this._id(`${path}-key`);
      const valId = this._id(`${path}-value`);
      const errorEl = el("div", { class: "field-error", id: `${valId}-error`, hidden: true });
      let keyInput;
      if (keyOptions) {
        keyInput = el("select", { id: keyId }, el("option", { value: "" }, "— choose —"));
        appendOptions(keyInput, keyOptions, k);
      } else {
        keyInput = el("input", { id: keyId, type: "text", value: k ?? "" });
      }
      const valInput = el("input", {
        id: valId,
        type: "number",
        step: valueShape.type === "integer" ? 1 : "any",
        value: v ?? "",
        "aria-describedby": `${valId}-error`,
      });
      if (valueShape.minimum !== undefined) valInput.min = valueShape.minimum;
      if (valueShape.maximum !== undefined) valInput.max = valueShape.maximum;
      if (!["number", "integer"].includes(valueShape.type)) valInput.type = "text";
      const remove = el(
        "button",
        { type: "button", class: "button-quiet small", "data-testid": "remove-row" },
        "Remove",
      );
      const keyLabel = niceLabel(keyPicker ?? "key");
      const node = el(
        "div",
        { class: "param-row map-row", "data-testid": "param-row" },
        el("div", { class: "field" }, el("label", { for: keyId }, keyLabel), keyInput),
        el("div", { class: "field" }, el("label", { for: valId }, valueShape.title ?? legend), valInput),
        remove,
        errorEl,
      );
      const row = { keyInput, valInput, node, errorEl, remove };
      remove.setAttribute("aria-label", `Remove this entry of ${legend}`);
      remove.addEventListener("click", () => {
        rows.splice(rows.indexOf(row), 1);
        node.remove();
        empty.hidden = rows.length > 0;
        addButton.focus();
      });
      rows.push(row);
      box.body.append(node);
      empty.hidden = true;
      if (focus) keyInput.focus();
    };
    for (const [k, v] of Object.entries(value ?? {})) addRow(k, v, false);
    addButton.addEventListener("click", () => addRow("", "", true));
    box.node.insertBefore(el("div", { class: "button-row" }, addButton), box.errorEl);
    const read = () => {
      const out = {};
      for (const r of rows) {
        const k = r.keyInput.value.trim();
        if (!k) continue;
        const text = r.valInput.value.trim();
        const n = Number(text);
        out[k] = text === "" ? null : ["number", "integer"].includes(valueShape.type) && !Number.isNaN(n) ? n : text;
      }
      return nullable && !Object.keys(out).length ? null : out;
    };
    return {
      node: box.node,
      read,
      collect: () => [
        { path, read: () => null, input: addButton, errorEl: box.errorEl, wrap: box.node },
        ...rows.map((r) => ({
          path: join(path, r.keyInput.value.trim() || "?"),
          read: () => null,
          input: r.valInput,
          errorEl: r.errorEl,
          wrap: r.node,
        })),
      ],
      setPath: (p) => (path = p),
      focus: () => addButton.focus(),
    };
  }

  _simple(path, name, base, nullable, constants, value) {
    const id = this._id(path);
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
        input.append(el("option", { value: option, selected: option === value }, optionLabel(option)));
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
    } else {
      input = el("input", { id, name: path, type: "text", value: value ?? "", placeholder: nullable ? "default" : "" });
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

/** Options into a select, grouped when they carry a group; `value` selected. */
function appendOptions(select, options, value) {
  const groups = new Map();
  for (const o of options) {
    const option = el(
      "option",
      { value: String(o.value), selected: value != null && String(o.value) === String(value) },
      o.label,
    );
    if (o.group) {
      if (!groups.has(o.group)) {
        groups.set(o.group, el("optgroup", { label: o.group }));
        select.append(groups.get(o.group));
      }
      groups.get(o.group).append(option);
    } else select.append(option);
  }
  if (value != null && !options.some((o) => String(o.value) === String(value))) {
    // a value the campus no longer has stays visible, so the API can name it
    select.append(el("option", { value: String(value), selected: true }, `${value} (not in this campus)`));
  }
}

/** pydantic titles a model by its class name ("CapRule"). */
function isClassName(text) {
  return /^[A-Z][a-z0-9]+[A-Z]\w*$/.test(text);
}

/** "CapRule" -> "Cap rule". */
function classWords(text) {
  const words = text.replace(/Params$/, "").split(/(?=[A-Z])/);
  return [words[0], ...words.slice(1).map((w) => w.toLowerCase())].join(" ");
}

/** "Cooling events" -> "Cooling event", "Caps" -> "Cap". */
function singular(text) {
  return text.replace(/ies$/, "y").replace(/([^s])s$/, "$1");
}
