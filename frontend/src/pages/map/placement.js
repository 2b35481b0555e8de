// @ts-check
// Place racks: ask POST /api/campuses/{id}/placement/ where new racks of a server model could go, draw the proposal
// as dashed racks on the map, and apply it as a new design branch ("apply_as_branch") to open that branch's map.
// The form is offered only where the API serves the endpoint (the page's boot block says so); an answer of 404
// or 405 hides it too.
import { api, ApiError } from "../../lib/api.js";
import { $, clear, el, errorBox, fill } from "../../lib/dom.js";
import * as f from "../../lib/format.js";
import { newSpace, proposalBlock } from "./proposal.js";

// Proposed racks without a size in the answer are drawn at the usual 600 × 1200 mm footprint.
const RACK_W_M = 0.6;
const RACK_D_M = 1.2;

export async function wirePlacement(page) {
  const section = $("placement");
  if (!page.placement) return;
  section.hidden = false;
  const form = $("placement-form");
  const models = await api.all("/api/node-models/").catch(() => []);
  const halls = (page.navigation ?? []).flatMap((b) => b.halls.map((h) => ({ ...h, building: b.name })));
  const field = (id, label, control, help = null) =>
    el(
      "div",
      { class: "edit-field", "data-field": id },
      el("label", { for: `placement-${id}`, class: "small" }, label),
      control,
      help ? el("div", { class: "field-help" }, help) : null,
      el("div", {
        class: "field-error",
        id: `placement-${id}-error`,
        "data-testid": `placement-${id}-error`,
        hidden: true,
      }),
    );
  fill(
    form,
    field(
      "node_model",
      "Server model",
      el(
        "select",
        { id: "placement-node_model", "data-testid": "placement-node_model" },
        models.map((m) => el("option", { value: m.slug }, m.name)),
      ),
    ),
    field(
      "racks",
      "Number of racks",
      el("input", {
        id: "placement-racks",
        type: "number",
        min: 1,
        step: 1,
        value: 4,
        "data-testid": "placement-racks",
      }),
    ),
    field(
      "nodes_per_rack",
      "Servers per rack",
      el("input", {
        id: "placement-nodes_per_rack",
        type: "number",
        min: 1,
        step: 1,
        "data-testid": "placement-nodes_per_rack",
      }),
      "Empty: the count this model has in the campus's racks, else as many as fit 36 rack units.",
    ),
    field(
      "hall",
      "Hall",
      el(
        "select",
        { id: "placement-hall", "data-testid": "placement-hall" },
        el("option", { value: "" }, "Any hall"),
        halls.map((h) => el("option", { value: h.id }, `${h.building} · ${h.name}`)),
      ),
    ),
    field(
      "propose",
      "Propose what to build",
      el("input", { id: "placement-propose", type: "checkbox", "data-testid": "placement-propose" }),
      "Also when the racks fit; a proposal always comes when nothing fits.",
    ),
    el(
      "div",
      { class: "button-row" },
      el(
        "button",
        {
          type: "submit",
          "data-testid": "placement-submit",
          disabled: page.canWrite ? null : true,
          title: page.canWrite ? null : "Placing racks needs the planner role",
        },
        "Find room",
      ),
    ),
    page.canWrite ? null : el("p", { class: "muted small" }, "Placing racks needs the planner role."),
  );
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    propose(page, request());
  });
}

/** The request body from the form; optional fields left empty are left out. */
function request() {
  const body = {
    node_model: $("placement-node_model", HTMLSelectElement).value,
    racks: Number($("placement-racks", HTMLInputElement).value),
  };
  const perRack = $("placement-nodes_per_rack", HTMLInputElement).value.trim();
  if (perRack) body.nodes_per_rack = Number(perRack);
  const hall = $("placement-hall", HTMLSelectElement).value;
  if (hall) body.hall = Number(hall);
  if ($("placement-propose", HTMLInputElement).checked) body.propose = true;
  return body;
}

function showErrors(errors) {
  for (const node of document.querySelectorAll("#placement-form .field-error")) {
    if (!(node instanceof HTMLElement)) continue;
    node.hidden = true;
    clear(node);
  }
  for (const input of document.querySelectorAll("#placement-form [aria-invalid]"))
    input.removeAttribute("aria-invalid");
  const rest = [];
  for (const [key, message] of Object.entries(errors)) {
    const node = $(`placement-${key}-error`);
    if (node) {
      node.textContent = message;
      node.hidden = false;
      $(`placement-${key}`).setAttribute("aria-invalid", "true");
    } else rest.push(key && key !== "detail" ? `${key}: ${message}` : message);
  }
  return rest;
}

function unavailable(page) {
  page.map.setGhosts([]);
  fill($("placement-form"));
  fill(
    $("placement-result"),
    el(
      "p",
      { class: "muted small", "data-testid": "placement-unavailable" },
      "Placement is not available on this server.",
    ),
  );
}

async function propose(page, body) {
  const result = $("placement-result");
  showErrors({});
  fill(result, el("p", { class: "muted small" }, "Searching…"));
  let answer;
  try {
    answer = await api.post(`/api/campuses/${page.campusId}/placement/`, body);
  } catch (error) {
    if (error instanceof ApiError && (error.status === 404 || error.status === 405)) return unavailable(page);
    if (error instanceof ApiError && error.status === 400) {
      const rest = showErrors(error.fieldErrors());
      fill(result, rest.length ? el("div", { class: "notice notice-error", role: "alert" }, rest.join(" ")) : null);
      return;
    }
    fill(result, errorBox(error, "placement-error"));
    return;
  }
  page.placementAnswer = { body, answer };
  const options = answer.options ?? [];
  fill(
    result,
    el(
      "p",
      { "data-testid": "placement-verdict", "data-feasible": String(Boolean(answer.feasible)) },
      answer.feasible
        ? el("strong", {}, `Room found: ${f.num(options.length)} option${options.length === 1 ? "" : "s"}.`)
        : el("strong", { class: "bad" }, "No room for these racks."),
      answer.binding_constraint ? ` Binding constraint: ${f.label(answer.binding_constraint)}` : null,
      answer.binding_constraint && answer.binding?.hall
        ? [" in ", el("span", { "data-testid": "placement-binding-hall" }, placeName(page, answer.binding))]
        : null,
      answer.binding_constraint ? "." : null,
      answer.binding?.detail ? el("span", { class: "muted small" }, ` ${answer.binding.detail}`) : null,
    ),
    shortAtDesign(answer.short_at_design ?? []),
    options.length
      ? el(
          "ol",
          { class: "placement-options", "data-testid": "placement-options" },
          options.map((option, k) =>
            el(
              "li",
              { "data-testid": "placement-option", "data-hall": hallIdOf(option) },
              el(
                "button",
                { type: "button", class: "button-quiet", onclick: () => showOption(page, option) },
                `Show option ${k + 1}: ${hallName(page, option)}, ${f.num(option.racks.length)} ` +
                  `rack${option.racks.length === 1 ? "" : "s"}`,
              ),
              headroom(option.headroom_after),
            ),
          ),
        )
      : null,
    proposalBlock(answer.proposal, () => showOption(page, answer.proposal.option, answer.proposal)),
    (options.length && answer.feasible) || answer.proposal?.feasible ? applyForm(page, body) : null,
  );
  if (options.length) await showOption(page, options[0]);
  else if (answer.proposal?.feasible) await showOption(page, answer.proposal.option, answer.proposal);
}

/** An option's hall id: `hall_id`, or `hall` when that is the id. */
/** What the design already lacks with nothing placed: a placement cannot be judged without it. */
function shortAtDesign(shorts) {
  if (!shorts.length) return null;
  return el(
    "div",
    { class: "notice notice-error", role: "alert", "data-testid": "placement-short-at-design" },
    el("strong", {}, "Already short at design, before any rack is placed:"),
    el(
      "ul",
      {},
      shorts.map((short) =>
        el(
          "li",
          { "data-testid": "placement-short", "data-element": short.element },
          `${short.element} (${short.level}): ${f.kw(short.shortfall_kw, 1)} short`,
          short.detail ? el("span", { class: "muted small" }, ` ${short.detail}`) : null,
        ),
      ),
    ),
  );
}

function hallIdOf(option) {
  return Number(option.hall_id ?? option.hall);
}

function hallName(page, option) {
  return placeName(page, { ...option, hall_id: hallIdOf(option) });
}

/** "B7 · H1" for an option or a binding: hall names repeat from building to building. */
function placeName(page, where) {
  if (where.hall_id != null && (page.navigation ?? []).length) {
    for (const b of page.navigation) {
      const h = b.halls.find((x) => x.id === where.hall_id);
      if (h) return `${b.name} · ${h.name}`;
    }
  }
  const hall = typeof where.hall === "string" ? where.hall : `hall ${where.hall_id ?? where.hall}`;
  return where.building ? `${where.building} · ${hall}` : hall;
}

function headroom(after) {
  if (!after || typeof after !== "object") return null;
  return el(
    "dl",
    { class: "kv small" },
    Object.entries(after)
      .filter(([, v]) => v !== null && v !== undefined)
      .flatMap(([k, v]) => [
        el("dt", {}, f.label(k)),
        el(
          "dd",
          {},
          typeof v === "number"
            ? f.num(v, Number.isInteger(v) ? 0 : 1)
            : typeof v === "object"
              ? (v.name ?? JSON.stringify(v))
              : String(v),
        ),
      ]),
  );
}

/**
 * Draw an option's racks dashed on the map, opening its hall first when the map shows another; a proposal's new
 * hall (no id yet) on the campus map, dashed with its new building and the racks in it.
 */
async function showOption(page, option, proposal = null) {
  if (option.hall_id == null && proposal) {
    if (page.hallId || page.buildingId) await page.go({});
    const space = newSpace(proposal, page.scene.outlines);
    if (!space.hall) return;
    const racks = option.racks.map((r) => ({
      x: space.hall.x + Number(r.x_m),
      y: space.hall.y + Number(r.y_m),
      w: Number(r.width_m ?? RACK_W_M),
      h: Number(r.depth_m ?? RACK_D_M),
    }));
    // widen the fitted view to the new building beside the campus
    const b = page.map.bounds;
    const x0 = Math.min(b.x, ...space.rects.map((r) => r.x));
    const y0 = Math.min(b.y, ...space.rects.map((r) => r.y));
    const x1 = Math.max(b.x + b.w, ...space.rects.map((r) => r.x + r.w));
    const y1 = Math.max(b.y + b.h, ...space.rects.map((r) => r.y + r.h));
    page.map.bounds = { x: x0, y: y0, w: x1 - x0, h: y1 - y0 };
    page.map.fit();
    page.map.setGhosts([...space.rects, ...racks]);
    $("placement-result").dataset.newSpace = String(space.rects.length);
    $("placement-result").dataset.ghosts = String(racks.length);
    return;
  }
  const hallId = hallIdOf(option);
  // Open the option's hall: proposed racks are too small to see on a whole campus.
  if (page.hallId !== hallId) await page.go({ hallId });
  const hall = page.scene.outlines.find((o) => o.level === "hall" && o.id === hallId);
  if (!hall) return;
  const ghosts = option.racks.map((r) => ({
    x: hall.x + Number(r.x_m),
    y: hall.y + Number(r.y_m),
    w: Number(r.width_m ?? RACK_W_M),
    h: Number(r.depth_m ?? RACK_D_M),
  }));
  page.map.setGhosts(ghosts);
  $("placement-result").dataset.ghosts = ghosts.length;
}

function applyForm(page, body) {
  const input = el("input", {
    id: "placement-branch-name",
    type: "text",
    required: true,
    value: `${page.campusName} – ${body.racks} × ${body.node_model}`,
    "data-testid": "placement-branch-name",
  });
  const error = el("div", {
    class: "field-error",
    id: "placement-branch-error",
    "data-testid": "placement-branch-error",
    hidden: true,
  });
  const button = el(
    "button",
    {
      type: "submit",
      "data-testid": "placement-apply",
      disabled: page.canWrite ? null : true,
      title: page.canWrite ? null : "Applying a placement needs the planner role",
    },
    "Apply as branch",
  );
  const form = el(
    "form",
    { class: "edit-form", novalidate: true },
    el("label", { for: "placement-branch-name", class: "small" }, "Branch name"),
    input,
    error,
    el("div", { class: "button-row" }, button),
  );
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    error.hidden = true;
    input.removeAttribute("aria-invalid");
    try {
      const made = await api.post(`/api/campuses/${page.campusId}/placement/`, {
        ...body,
        apply_as_branch: input.value,
      });
      if (made.warnings?.length) {
        // The branch is below the declared redundancy: its warnings stay here, where it was made (api.js shows
        // them); the branch opens on demand.
        button.disabled = true;
        form.append(
          el(
            "a",
            { class: "button", href: `/campuses/${made.branch}/map/`, "data-testid": "placement-open-branch" },
            "Open the branch",
          ),
        );
        return;
      }
      // The branch's halls have ids of their own: open its whole map.
      window.location.assign(`/campuses/${made.branch}/map/`);
    } catch (err) {
      const errors = err instanceof ApiError && err.status === 400 ? err.fieldErrors() : { detail: err.message };
      error.textContent = errors.apply_as_branch ?? Object.values(errors).join(" ");
      error.hidden = false;
      input.setAttribute("aria-invalid", "true");
    }
  });
  return form;
}
