// Small DOM helpers: build elements without innerHTML (no escaping mistakes), read the page's boot block.

/** The page's element with this id. */
export const $ = (id) => document.getElementById(id);

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

function append(node, children) {
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    if (Array.isArray(child)) append(node, child);
    else node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replace a node's children; null, undefined and false children are left out, arrays are flattened. */
export function fill(node, ...children) {
  clear(node);
  append(node, children);
  return node;
}

export function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
  return node;
}

export function boot() {
  const script = document.getElementById("boot");
  return script ? JSON.parse(script.textContent) : {};
}

export function errorBox(error, testid = "error") {
  return el(
    "div",
    { class: "notice notice-error", role: "alert", "data-testid": testid },
    error?.message ?? String(error),
  );
}

/** The campus picker in the top bar goes to the same page of the chosen campus. */
export function wireCampusPicker() {
  const picker = document.getElementById("campus-picker");
  if (!picker) return;
  picker.addEventListener("change", () => {
    const page = picker.dataset.page;
    const suffix = page === "map" ? "map/" : page === "scenarios" ? "scenarios/" : "";
    window.location.assign(`/campuses/${picker.value}/${suffix}`);
  });
}
