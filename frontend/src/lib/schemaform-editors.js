// @ts-check
// The editors of a schema form for values made of parts: lists of rows, tagged unions, optional models, tuples,
// ticked lists and mappings. Each is a function of the form (its schema, pickers and field editors) returning an
// Editor; schemaform.js picks one per schema node.
import { el } from "./dom.js";
import { label as niceLabel } from "./format.js";
import {
  classWords,
  initial,
  isClassName,
  join,
  optionLabel,
  plain,
  resolve,
  shape,
  singular,
  unionTag,
} from "./schema.js";

/**
 * One input (or a box of rows) the form validates: its path in the value, where its error is written.
 * @typedef {object} Field
 * @property {string} path
 * @property {() => any} read
 * @property {HTMLElement} input what gets focus and aria-invalid
 * @property {HTMLElement} errorEl
 * @property {HTMLElement} wrap
 */

/**
 * An editor of any schema node: its node, its value, its fields; `path` may change when rows move.
 * @typedef {object} Editor
 * @property {HTMLElement} node
 * @property {() => any} read
 * @property {() => Field[]} collect
 * @property {(path: string) => void} setPath
 * @property {() => void} focus
 * @property {string} [key] the property it edits, in an object editor
 */

/** The form the editors belong to. @typedef {import("./schemaform.js").SchemaForm} Form */
/** @typedef {import("./schema.js").Schema} Schema */

/**
 * A list of rows one adds and removes, each row an editor of the item schema.
 * @param {Form} form
 * @param {Schema} base the node's schema, references resolved (schema.js shape)
 * @param {any} value
 * @param {string} path
 * @param {string | null} name
 * @param {boolean} nullable
 * @returns {Editor}
 */
export function listEditor(form, base, value, path, name, nullable) {
  const box = form.box(path, name, base, nullable, nullable ? "No rows: the default." : "");
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
  const itemTitle = resolve(itemSchema, form.schema).title;
  const rowNoun = itemTitle && isClassName(itemTitle) ? classWords(itemTitle) : singular(niceLabel(base.title ?? name));
  box.legendText = niceLabel(base.title ?? name);
  addButton.textContent = `Add ${rowNoun.toLowerCase()}`;
  box.empty = el("p", { class: "muted small" }, nullable ? "None: the default applies." : "None.");
  const addRow = (v, focus) => {
    const i = rows.length;
    const editor = form.editorFor(itemSchema, v, `${path}[${i}]`, null);
    const caption = el("strong", { class: "row-caption" }, `${rowNoun} ${i + 1}`);
    const rowId = form.idFor(`${path}-row`);
    const errorEl = el("div", { class: "field-error", id: `${rowId}-error`, hidden: true });
    const remove = el("button", { type: "button", class: "button-quiet small", "data-testid": "remove-row" }, "Remove");
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
    if (focus) /** @type {HTMLElement | null} */ (node.querySelector("input, select") ?? remove).focus();
  };
  box.body.append(box.empty);
  for (const v of Array.isArray(value) ? value : []) addRow(v, false);
  addButton.addEventListener("click", () => addRow(initial(itemSchema, form.schema), true));
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

/**
 * A tagged union (one model per kind of event): a select of the kinds, then the chosen kind's own fields;
 * switching keeps the values the kinds share.
 * @param {Form} form
 * @param {Schema} base the node's schema, references resolved (schema.js shape)
 * @param {any} value
 * @param {string} path
 * @param {string | null} name
 * @returns {Editor}
 */
export function unionEditor(form, base, value, path, name) {
  const members = base.oneOf.map((o) => resolve(o, form.schema));
  const tag = unionTag(members);
  if (!tag) return form.simpleField(path, name, { ...base, type: "string" }, false, [], value);
  const byTag = new Map(members.map((m) => [m.properties[tag].const, m]));
  const first = members[0].properties[tag];
  const tagBase = {
    title: first.title ?? tag,
    description: members.map((m) => `${optionLabel(m.properties[tag].const)}: ${plain(m.description ?? "")}`).join(" "),
    enum: [...byTag.keys()],
  };
  let current = byTag.has(value?.[tag]) ? value[tag] : first.const;
  const tagEditor = form.simpleField(join(path, tag), tag, tagBase, false, [], current);
  const body = el("div", {});
  const node = el("div", { class: "union" }, el("div", { class: "form-grid" }, tagEditor.node), body);
  let inner = null;
  const render = (values) => {
    const member = byTag.get(current);
    const props = Object.fromEntries(Object.entries(member.properties).filter(([k]) => k !== tag));
    inner = form.objectEditor({ ...member, properties: props }, values, path, null);
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

/**
 * A model that may be left out (null: the campus's own or a derived value): a switch "Set here", and the
 * model's fields while it is on.
 * @param {Form} form
 * @param {Schema} base the node's schema, references resolved (schema.js shape)
 * @param {any} value
 * @param {string} path
 * @param {string | null} name
 * @returns {Editor}
 */
export function optionalObject(form, base, value, path, name) {
  const id = form.idFor(`${path}-set`);
  const title = niceLabel(base.title && !isClassName(base.title) ? base.title : name);
  const toggle = el("input", { type: "checkbox", id, checked: value != null, "aria-describedby": `${id}-help` });
  const inner = form.objectEditor(base, value ?? initial({ ...base, default: undefined }, form.schema), path, name);
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

/**
 * A fixed-length list (a tuple such as a frequency band [low, high]): one input per place, no rows.
 * @param {Form} form
 * @param {Schema} base the node's schema, references resolved (schema.js shape)
 * @param {any} value
 * @param {string} path
 * @param {string | null} name
 * @returns {Editor}
 */
export function tupleEditor(form, base, value, path, name) {
  const box = form.box(path, name, base, false, "");
  box.body.classList.add("form-grid");
  const words = base.prefixItems.length === 2 ? ["From", "To"] : base.prefixItems.map((_, i) => `Value ${i + 1}`);
  const parts = base.prefixItems.map((item, i) => {
    const itemBase = { ...shape(item, form.schema).base, title: words[i], description: undefined };
    const editor = form.simpleField(`${path}[${i}]`, words[i], itemBase, false, [], value?.[i] ?? null);
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

/**
 * A list of simple values with a picker: one checkbox per option.
 * @param {Form} form
 * @param {Schema} base the node's schema, references resolved (schema.js shape)
 * @param {any} value
 * @param {string} path
 * @param {string | null} name
 * @param {boolean} nullable
 * @param {string} picker which of the form's pickers offers the values
 * @returns {Editor}
 */
export function checkList(form, base, value, path, name, nullable, picker) {
  const box = form.box(path, name, base, nullable, nullable ? "None ticked: every one." : "");
  const options = form.pickers[picker];
  const chosen = new Set((value ?? []).map(String));
  const boxes = options.map((o) => {
    const id = form.idFor(`${path}-${o.value}`);
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

/**
 * A mapping: rows of key and value; keys from a picker when the schema names one.
 * @param {Form} form
 * @param {Schema} base the node's schema, references resolved (schema.js shape)
 * @param {any} value
 * @param {string} path
 * @param {string | null} name
 * @param {boolean} nullable
 * @returns {Editor}
 */
export function mapEditor(form, base, value, path, name, nullable) {
  const box = form.box(path, name, base, nullable, "");
  const keyPicker = base["x-key-picker"];
  const keyOptions = keyPicker ? form.pickers[keyPicker] : null;
  const valueSchema = typeof base.additionalProperties === "object" ? base.additionalProperties : { type: "string" };
  const valueShape = shape(valueSchema, form.schema).base;
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
    const keyId = form.idFor(`${path}-key`);
    const valId = form.idFor(`${path}-value`);
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
    const remove = el("button", { type: "button", class: "button-quiet small", "data-testid": "remove-row" }, "Remove");
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

/**
 * Options into a select, grouped when they carry a group; `value` selected.
 * @param {HTMLSelectElement} select
 * @param {import("./schemaform.js").PickerOption[]} options
 * @param {unknown} value
 */
export function appendOptions(select, options, value) {
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
