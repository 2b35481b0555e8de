// @ts-check
// Small DOM helpers: build elements without innerHTML (no escaping mistakes), read the page's boot block.

/**
 * The page's element with this id (null when the page has none); with a class, checked to be one of it, so that
 * `$("impact-mode", HTMLSelectElement).value` is typed and a template that changed the element fails loudly.
 * @template {HTMLElement} [T=HTMLElement]
 * @param {string} id
 * @param {{new (): T, prototype: T}} [type]
 * @returns {T}
 */
export function $(id, type) {
  const node = document.getElementById(id);
  if (node && type && !(node instanceof type)) throw new TypeError(`#${id} is a ${node.tagName}, not a ${type.name}`);
  return /** @type {T} */ (node);
}

/** @typedef {Node | string | number | null | undefined | false | Child[]} Child */

/**
 * An element with attributes ("class", "text", "dataset", "style" objects, "on<event>" listeners, true for a bare
 * attribute; null, undefined and false leave one out) and children.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, any>} [attrs]
 * @param {...Child} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key === "dataset") Object.assign(node.dataset, value);
    else if (key === "style" && typeof value === "object") Object.assign(node.style, value);
    else if (key.startsWith("on") && typeof value === "function") node.addEventListener(key.slice(2), value);
    else if (value === true) node.setAttribute(key, "");
    else node.setAttribute(key, String(value));
  }
  append(node, children);
  return node;
}

/**
 * Append children to a node, leaving out null, undefined and false (the DOM's own append writes them as the text
 * "null") and flattening arrays.
 * @template {Node & ParentNode} N
 * @param {N} node
 * @param {...Child} children
 * @returns {N}
 */
export function add(node, ...children) {
  append(node, children);
  return node;
}

/** @param {Node & ParentNode} node @param {Child[]} children */
function append(node, children) {
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    if (Array.isArray(child)) append(node, child);
    else node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/**
 * Replace a node's children; null, undefined and false children are left out, arrays are flattened.
 * @template {Node & ParentNode} N
 * @param {N} node
 * @param {...Child} children
 * @returns {N}
 */
export function fill(node, ...children) {
  clear(node);
  append(node, children);
  return node;
}

/** @template {Node} N @param {N} node @returns {N} */
export function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
  return node;
}

/**
 * What a page's template writes into its boot block (frontend/views.py `_context` and the page's own keys).
 * @typedef {object} Boot
 * @property {number | null} campusId
 * @property {string} campusName
 * @property {string | null} role
 * @property {boolean} canWrite
 * @property {string} page
 * @property {number | null} [hallId] the map's hall (null: the campus or a building)
 * @property {number | null} [buildingId]
 * @property {number | null} [rackId]
 * @property {number | null} [runId] a run to open (scenarios) or replay (map)
 * @property {any[]} [navigation] the map's buildings and their halls
 * @property {boolean} [placement] whether the placement endpoint exists
 * @property {number | null} [againstId] the design compared with (compare)
 * @property {{id: number, name: string}[]} [campuses]
 * @property {string} [view] the inventory's view: "tables", "device", "rack" or "capacity"
 * @property {number | null} [objectId] the device or rack of the inventory's page
 * @property {string} [table] the inventory table shown
 * @property {string} [q] the top bar's search
 * @property {string} [search] the inventory table's own search, as a link from the top bar's gives it
 */

/** The page's boot block (JSON the template writes into <script id="boot">). @returns {Boot} */
export function boot() {
  const script = document.getElementById("boot");
  if (!script) throw new Error("The page has no boot block.");
  return JSON.parse(script.textContent);
}

/**
 * An alert with an error's message (an Error, or {message} made up by a page).
 * @param {{message: string} | string | null | undefined} error
 * @param {string} [testid]
 */
export function errorBox(error, testid = "error") {
  return el(
    "div",
    { class: "notice notice-error", role: "alert", "data-testid": testid },
    typeof error === "object" && error ? error.message : String(error ?? ""),
  );
}

/** The campus picker in the top bar goes to the same page of the chosen campus. */
export function wireCampusPicker() {
  const picker = $("campus-picker", HTMLSelectElement);
  if (!picker) return;
  picker.addEventListener("change", () => {
    const page = picker.dataset.page;
    const suffix =
      { map: "map/", scenarios: "scenarios/", inventory: "inventory/", capacity: "capacity/" }[page ?? ""] ?? "";
    window.location.assign(`/campuses/${picker.value}/${suffix}`);
  });
}
