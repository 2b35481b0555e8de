// @ts-check
// Edit mode on the floor map: drag a rack to move it, change a power device's or cooling unit's rating, and read
// any selected object's history. Every change is a PATCH; the API validates it (a rack inside its hall and on
// free tiles, ratings within their bounds) and a refusal is shown on the field and next to the rack, which
// snaps back. After a change the floor map is read again (the server's caches follow the campus's version).
import { api, ApiError, qs } from "../../lib/api.js";
import { $, clear, el, errorBox, fill } from "../../lib/dom.js";
import * as f from "../../lib/format.js";
import { load } from "./navigation.js";

// What can be edited per selected type: the API collection, the change log's model name and the editable fields.
const KINDS = {
  rack: {
    title: "Rack",
    url: "/api/racks/",
    model: "rack",
    fields: [
      ["x_m", "Position x (m from the hall's corner)", 0.1],
      ["y_m", "Position y (m from the hall's corner)", 0.1],
    ],
  },
  power: {
    title: "Power device",
    url: "/api/power-devices/",
    model: "powerdevice",
    fields: [["rated_kw", "Rating (kW)", 1]],
  },
  cooling: {
    title: "Cooling unit",
    url: "/api/cooling-units/",
    model: "coolingunit",
    fields: [["capacity_kw", "Capacity (kW)", 1]],
  },
  plant: { title: "Cooling plant", url: "/api/cooling-plants/", model: "coolingplant", fields: [] },
};

export function wireEdit(page) {
  page.editing = false;
  page.selected = null; // {type, id, name}
  const toggle = $("edit-toggle");
  toggle.addEventListener("click", () => setEditing(page, !page.editing));
  page.onSelect = (sel) => showObject(page, sel);
  page.map.handlers.onRackDrop = (index, move) => dropRack(page, index, move);
}

export function setEditing(page, on) {
  page.editing = Boolean(on) && Boolean(page.canWrite);
  page.map.editable = page.editing;
  const toggle = $("edit-toggle");
  toggle.setAttribute("aria-pressed", String(page.editing));
  toggle.textContent = page.editing ? "Done editing" : "Edit";
  document.body.classList.toggle("map-editing", page.editing);
  hideFlag();
  if (page.selected) showObject(page, page.selected);
}

/** The object panel: what is selected, its editable fields in edit mode, and its history. */
export async function showObject(page, sel, { errors = null, values = null } = {}) {
  const panel = $("object-panel");
  page.selected = sel;
  if (!sel) {
    panel.hidden = true;
    clear(panel);
    return;
  }
  const kind = KINDS[sel.type];
  if (!kind) return;
  panel.hidden = false;
  panel.dataset.object = `${sel.type}:${sel.id}`;
  panel.dataset.ready = "false";
  fill(panel, el("h3", {}, `${kind.title} ${sel.name}`), el("p", { class: "muted small" }, "Loading…"));
  try {
    const [current, changes] = await Promise.all([
      api.get(`${kind.url}${sel.id}/`),
      api.get(`/api/changes/${qs({ model: kind.model, object_id: sel.id, limit: 10 })}`),
    ]);
    if (page.selected !== sel) return; // another object was picked meanwhile
    fill(
      panel,
      el("h3", {}, `${kind.title} ${sel.name}`),
      page.editing && kind.fields.length ? editForm(page, sel, kind, { ...current, ...(values ?? {}) }, errors) : null,
      historyList(changes),
    );
    panel.dataset.ready = "true";
  } catch (error) {
    fill(panel, el("h3", {}, `${kind.title} ${sel.name}`), errorBox(error, "object-error"));
    panel.dataset.ready = "error";
  }
}

function editForm(page, sel, kind, current, errors) {
  const inputs = {};
  const form = el("form", { class: "edit-form", "data-testid": "edit-form", novalidate: true });
  for (const [name, label, step] of kind.fields) {
    const id = `edit-${name}`;
    const message = errors?.[name];
    const input = el("input", {
      id,
      name,
      type: "number",
      step,
      value: current[name] ?? "",
      "data-testid": id,
      "aria-invalid": message ? "true" : null,
      "aria-describedby": message ? `${id}-error` : null,
      required: true,
    });
    inputs[name] = input;
    form.append(
      el(
        "div",
        { class: "edit-field" },
        el("label", { for: id, class: "small" }, label),
        input,
        message
          ? el("div", { class: "field-error", id: `${id}-error`, role: "alert", "data-testid": `${id}-error` }, message)
          : null,
      ),
    );
  }
  const other = errors ? Object.entries(errors).filter(([k]) => !inputs[k]) : [];
  if (other.length) {
    form.append(
      el(
        "div",
        { class: "notice notice-error", role: "alert", "data-testid": "edit-error" },
        other.map(([k, v]) => (k && k !== "detail" && k !== "non_field_errors" ? `${k}: ${v}` : v)).join(" "),
      ),
    );
  }
  form.append(el("div", { class: "button-row" }, el("button", { type: "submit", "data-testid": "edit-save" }, "Save")));
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const body = {};
    for (const [name, input] of Object.entries(inputs)) {
      // An empty or unreadable number goes to the API as sent: the API names the field.
      body[name] = input.value.trim() === "" ? null : Number(input.value);
    }
    save(page, sel, body);
  });
  return form;
}

function historyList(changes) {
  const rows = changes.results ?? [];
  return el(
    "section",
    { class: "object-history", "data-testid": "object-history", "data-count": changes.count ?? rows.length },
    el("h4", {}, "History"),
    rows.length
      ? el(
          "ol",
          { class: "history-list" },
          rows.map((entry) =>
            el(
              "li",
              { "data-testid": "history-entry", "data-type": entry.type },
              el(
                "div",
                { class: "small" },
                el("time", { datetime: entry.date }, f.dateTime(entry.date)),
                " · ",
                el("strong", {}, entry.user?.username ?? "system"),
                " · ",
                baseline(entry)
                  ? "state recorded"
                  : ({ "+": "created", "~": "changed", "-": "deleted" }[entry.type] ?? entry.type),
              ),
              entry.reason ? el("div", { class: "muted small" }, entry.reason) : null,
              entry.type === "~" && entry.changes.length && !baseline(entry)
                ? el(
                    "ul",
                    { class: "history-changes small" },
                    entry.changes.map((c) =>
                      el(
                        "li",
                        { "data-field": c.field },
                        el("code", {}, c.field),
                        `: ${shown(c.old)} → ${shown(c.new)}`,
                      ),
                    ),
                  )
                : null,
            ),
          ),
        )
      : el("p", { class: "muted small" }, "No recorded change."),
  );
}

/** The record kept of an object's state before its first change (no field has a before value). */
function baseline(entry) {
  return entry.type === "~" && entry.changes.every((c) => c.old === null || c.old === undefined);
}

function shown(v) {
  if (v === null || v === undefined || v === "") return "–";
  return typeof v === "number" ? f.num(v, Number.isInteger(v) ? 0 : 2) : String(v);
}

/** PATCH the selected object; a 400 keeps the typed values and shows the API's messages on their fields. */
async function save(page, sel, body) {
  const kind = KINDS[sel.type];
  hideFlag();
  try {
    await api.patch(`${kind.url}${sel.id}/`, body);
  } catch (error) {
    if (error instanceof ApiError && error.status === 400) {
      const errors = error.fieldErrors();
      if (sel.type === "rack") flagRack(page, sel.id, Object.values(errors).join(" "));
      await showObject(page, sel, { errors, values: body });
      return false;
    }
    await showObject(page, sel, { errors: { detail: error.message }, values: body });
    return false;
  }
  await refresh(page, sel);
  return true;
}

/** A rack dropped in edit mode: its new corner (0.1 m grid) is PATCHed; refused, it snaps back. */
async function dropRack(page, index, { dx, dy, fromX, fromY }) {
  const rack = page.scene.racks[index];
  const round = (v) => Math.round(v * 10) / 10;
  const body = { x_m: round(Number(rack.x_m) + dx), y_m: round(Number(rack.y_m) + dy) };
  const sel = { type: "rack", id: rack.id, name: rack.name };
  page.map.select(index);
  page.selected = sel;
  // Sit on the grid the position is sent on while the API answers.
  page.map.moveRack(index, fromX + (body.x_m - rack.x_m), fromY + (body.y_m - rack.y_m));
  const ok = await save(page, sel, body);
  if (!ok) page.map.moveRack(index, fromX, fromY);
}

/** The API's message next to a rack on the map (its centre in the canvas' box). */
function flagRack(page, rackId, message) {
  const flag = $("edit-flag");
  const i = page.byId.get(rackId);
  if (i === undefined) return;
  const p = page.map.clientPoint(i);
  const box = $("canvas-wrap").getBoundingClientRect();
  fill(flag, message);
  flag.hidden = false;
  $("map-tooltip").hidden = true;
  flag.dataset.rackId = rackId;
  flag.style.left = `${Math.max(4, Math.min(p.x - box.left + 12, box.width - flag.offsetWidth - 8))}px`;
  flag.style.top = `${Math.max(4, Math.min(p.y - box.top + 12, box.height - flag.offsetHeight - 8))}px`;
}

function hideFlag() {
  const flag = $("edit-flag");
  flag.hidden = true;
  clear(flag);
}

/** Read the floor map again after a change (colours, header figures, plant) and keep the object selected. */
export async function refresh(page, sel = page.selected) {
  page.campusCache = null;
  const view = { ox: page.map.ox, oy: page.map.oy, scale: page.map.scale };
  await load(page);
  // Keep the view where the planner was working (loading fits the map to the scene).
  Object.assign(page.map, view);
  page.map.requestDraw();
  if (sel?.type === "rack" && page.byId.has(sel.id)) page.map.select(page.byId.get(sel.id));
  await showObject(page, sel);
}
