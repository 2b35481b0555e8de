// @ts-check
// New scenario: pick a kind, fill its schema-driven form (checked here first, then by the API, whose errors are
// shown on the fields they name), save it and launch a run.
import { ApiError, api, qs } from "../../lib/api.js";
import { asOfFromUrl } from "../../lib/asof.js";
import { loadCatalogue } from "../../lib/catalogue.js";
import { $, clear, el, errorBox } from "../../lib/dom.js";
import { SchemaForm } from "../../lib/schemaform.js";
import { loadRuns } from "./run-list.js";
import { SweepSection } from "./sweep.js";

const KIND_HELP = {
  power_capping: "Cap GPU power; see energy, cost and throughput.",
  grid_limit: "Cut the grid connection for a while; cap, pause, ride through or start generators.",
  liquid_cooling: "Lose CDUs beyond their N+1, a pump or a chiller; watch temperatures and throttling.",
  failure_cascade: "Failures over weeks; job interruptions, recovery and ETTR.",
  power_dynamics: "Training power swings at 100 ms; ramps, oscillations, smoothing and storage against grid rules.",
  heat_wave: "Warm the campus's hottest days; see the plants' margin, PUE, water and throttling.",
  training_step: "A published model's step time on the campus's GPUs and fabric; MFU and where scaling stops.",
};

export async function loadKinds(page) {
  const list = $("kind-list");
  try {
    page.kinds = await loadCatalogue();
  } catch (error) {
    clear(list).append(errorBox(error, "kinds-error"));
    return;
  }
  clear(list);
  for (const k of page.kinds) {
    list.append(
      el(
        "button",
        {
          type: "button",
          class: "kind-card",
          "aria-pressed": "false",
          "data-kind": k.kind,
          "data-testid": `kind-${k.kind}`,
          onclick: () => chooseKind(page, k.kind),
        },
        el("strong", {}, k.label ?? k.kind),
        el("span", {}, KIND_HELP[k.kind] ?? ""),
      ),
    );
  }
}

// Where the options of each picker come from: the campus's things, by the schema's "x-picker" name.
const PICKER_SOURCES = {
  pod: "/api/pods/",
  cooling_unit: "/api/cooling-units/",
  cooling_plant: "/api/cooling-plants/",
  power_device: "/api/power-devices/",
  building: "/api/buildings/",
  hall: "/api/halls/",
  rack: "/api/racks/",
  utility_feed: "/api/utility-feeds/",
};

/** The picker names a schema uses (fields and mapping keys, nested models included). */
function pickersIn(schema) {
  const names = new Set();
  const walk = (node) => {
    if (!node || typeof node !== "object") return;
    if (node["x-picker"]) names.add(node["x-picker"]);
    if (node["x-key-picker"]) names.add(node["x-key-picker"]);
    for (const v of Object.values(node)) walk(v);
  };
  walk(schema);
  return names;
}

async function pickerOptions(page, kind, names) {
  page.pickerCache ??= {};
  const rows = (url) => api.all(`${url}${qs({ campus: page.campusId, brief: 1 })}`);
  const out = {};
  const load = async (name) => {
    if (name in page.pickerCache) return page.pickerCache[name];
    let options = null;
    if (name === "gpu_model") {
      const [summary, models] = await Promise.all([
        api.get(`/api/campuses/${page.campusId}/summary/`),
        api.all("/api/gpu-models/"),
      ]);
      const counts = summary?.inventory?.gpus_by_model ?? {};
      const names = Object.fromEntries(models.map((m) => [m.slug, m.name]));
      options = Object.entries(counts).map(([slug, n]) => ({
        value: slug,
        label: `${names[slug] ?? slug} (${n.toLocaleString("en-US")} GPUs)`,
      }));
    } else if (name === "cooling_target") {
      const [units, plants] = await Promise.all([rows("/api/cooling-units/"), rows("/api/cooling-plants/")]);
      options = [
        ...units.map((u) => ({ value: u.id, label: u.name, group: "Cooling units (CDU, CRAH …)" })),
        ...plants.map((p) => ({ value: p.id, label: p.name, group: "Plants (chiller loss)" })),
      ];
    } else if (name === "failure_component") {
      options = Object.entries(kind.causes ?? {}).map(([value, label]) => ({ value, label }));
    } else if (PICKER_SOURCES[name]) {
      options = (await rows(PICKER_SOURCES[name])).map((r) => ({ value: r.id, label: r.name ?? `#${r.id}` }));
    }
    page.pickerCache[name] = options;
    return options;
  };
  await Promise.all(
    [...names].map(async (name) => {
      try {
        const options = await load(name);
        if (options) out[name] = options;
      } catch {
        // without the list the field stays a plain input; the API still checks the value
      }
    }),
  );
  return out;
}

async function chooseKind(page, kind) {
  const selectedKind = page.kinds.find((k) => k.kind === kind);
  const pickers = await pickerOptions(page, selectedKind, pickersIn(selectedKind.schema));
  renderForm(page, kind, pickers);
}

function renderForm(page, kind, pickers) {
  const selectedKind = page.kinds.find((k) => k.kind === kind);
  page.selectedKind = selectedKind;
  for (const b of /** @type {NodeListOf<HTMLElement>} */ ($("kind-list").querySelectorAll(".kind-card")))
    b.setAttribute("aria-pressed", String(b.dataset.kind === kind));
  const formEl = $("scenario-form");
  clear(formEl);
  formEl.hidden = false;
  const stamp = new Date().toISOString().slice(0, 16).replace("T", " ");
  const nameId = "scenario-name";
  formEl.append(
    el(
      "div",
      { class: "form-grid" },
      el(
        "div",
        { class: "field", "data-path": "name" },
        el("label", { for: nameId }, "Name"),
        el("input", {
          id: nameId,
          name: "name",
          required: true,
          maxlength: 128,
          value: `${selectedKind.label ?? kind} ${stamp}`,
          "data-testid": "scenario-name",
        }),
        el("div", { class: "field-error", hidden: true, id: "name-error" }),
      ),
      el(
        "div",
        { class: "field" },
        el("label", { for: "run-replicas" }, "Replicas"),
        el("input", {
          id: "run-replicas",
          type: "number",
          min: 1,
          max: 1000,
          step: 1,
          value: selectedKind.default_replicas ?? 10,
          "data-testid": "run-replicas",
        }),
        el(
          "div",
          { class: "field-help", id: "run-replicas-help" },
          (selectedKind.default_replicas ?? 10) === 1
            ? "This kind is deterministic: every replica gives the same figures, one is enough."
            : "Independent Monte Carlo replicas, 1–1000.",
        ),
        el("div", { class: "field-error", hidden: true, id: "replicas-error" }),
      ),
      el(
        "div",
        { class: "field" },
        el("label", { for: "run-seed" }, "Seed"),
        el("input", {
          id: "run-seed",
          type: "number",
          min: 0,
          step: 1,
          placeholder: "random",
          "data-testid": "run-seed",
        }),
        el("div", { class: "field-help" }, "same seed, same results"),
        el("div", { class: "field-error", hidden: true, id: "seed-error" }),
      ),
      el(
        "div",
        { class: "field" },
        el("label", { for: "run-as-of" }, "Campus as of"),
        el("input", {
          id: "run-as-of",
          type: "date",
          "data-testid": "run-as-of",
          "aria-describedby": "run-as-of-help",
          value: asOfFromUrl() ?? "",
        }),
        el(
          "div",
          { class: "field-help", id: "run-as-of-help" },
          "The run sees only what is in service that day (built and not yet retired); empty: the launch day.",
        ),
        el("div", { class: "field-error", hidden: true, id: "as-of-error" }),
      ),
      selectedKind.stochastic ? confidenceField(selectedKind) : null,
    ),
  );
  const paramsBox = el("div", { "data-testid": "param-fields" });
  formEl.append(el("h3", { class: "params-title" }, "Parameters"), paramsBox);
  page.form = new SchemaForm(paramsBox, selectedKind.schema, selectedKind.defaults, { pickers });
  const sweepBox = el("div", { "data-testid": "sweep-box" });
  formEl.append(sweepBox);
  page.sweep = new SweepSection(sweepBox, selectedKind, selectedKind.defaults);
  const launch = el(
    "button",
    {
      type: "submit",
      class: "button-primary",
      "data-testid": "launch",
      disabled: !page.canWrite,
      title: page.canWrite ? null : "Launching runs needs the planner role",
    },
    "Save & launch",
  );
  formEl.append(
    el("div", { id: "form-errors", "data-testid": "form-errors", "aria-live": "assertive" }),
    el(
      "div",
      { class: "button-row" },
      launch,
      el(
        "button",
        { type: "button", class: "button-quiet", onclick: () => renderForm(page, kind, pickers) },
        "Reset to defaults",
      ),
    ),
  );
  formEl.onsubmit = (e) => {
    e.preventDefault();
    launchScenario(page);
  };
}

// The run's confidence target (docs/runs.md, "Replicas to a confidence target"): stop adding replicas once the
// 95 % interval of a metric's mean is within ± this share of it; the replicas above are then the cap.
function confidenceField(kind) {
  const names = Object.keys(kind.metrics ?? {}).filter((n) => !n.includes("."));
  const first = names.includes("ettr") ? "ettr" : names[0];
  return el(
    "div",
    { class: "field" },
    el("label", { for: "run-confidence" }, "Stop at ± (%)"),
    el("input", {
      id: "run-confidence",
      type: "number",
      min: 0.0001,
      max: 100,
      step: "any",
      placeholder: "off",
      "data-testid": "run-confidence-target",
      "aria-describedby": "run-confidence-help",
    }),
    el("label", { for: "run-confidence-metric", class: "visually-hidden" }, "Metric of the confidence target"),
    el(
      "select",
      { id: "run-confidence-metric", "data-testid": "run-confidence-metric" },
      names.map((n) => el("option", { value: n, selected: n === first }, kind.metrics[n].label ?? n)),
    ),
    el(
      "div",
      { class: "field-help", id: "run-confidence-help" },
      "Stop adding replicas once the 95 % interval of this metric's mean is within ± this share of it " +
        "(the replicas are then the cap); empty: run them all.",
    ),
    el("div", { class: "field-error", hidden: true, id: "confidence-error" }),
  );
}

/** The confidence target the form asks for, or null. */
function confidenceTarget() {
  const input = /** @type {HTMLInputElement | null} */ (document.getElementById("run-confidence"));
  const text = input?.value.trim() ?? "";
  if (!text) return null;
  const metric = /** @type {HTMLSelectElement} */ ($("run-confidence-metric")).value;
  return { relative_half_width: Number(text) / 100, metric };
}

function setError(id, message) {
  const node = $(id);
  if (!node) return;
  node.hidden = !message;
  node.textContent = message ?? "";
  const input = node.parentElement?.querySelector("input, select");
  if (input) {
    if (message) input.setAttribute("aria-invalid", "true");
    else input.removeAttribute("aria-invalid");
    input.setAttribute(
      "aria-describedby",
      [input.id === "run-replicas" ? "run-replicas-help" : null, id].filter(Boolean).join(" "),
    );
  }
}

function clientChecks(page) {
  let ok = true;
  const name = $("scenario-name", HTMLInputElement).value.trim();
  setError("name-error", name ? null : "A name is required.");
  ok &&= Boolean(name);
  const replicas = Number($("run-replicas", HTMLInputElement).value);
  const replicasOk = Number.isInteger(replicas) && replicas >= 1 && replicas <= 1000;
  setError("replicas-error", replicasOk ? null : "Replicas must be a whole number from 1 to 1000.");
  ok &&= replicasOk;
  const seedText = $("run-seed", HTMLInputElement).value.trim();
  const seedOk = seedText === "" || (Number.isInteger(Number(seedText)) && Number(seedText) >= 0);
  setError("seed-error", seedOk ? null : "The seed is a whole number ≥ 0, or empty.");
  ok &&= seedOk;
  const target = confidenceTarget();
  const targetOk = target === null || (target.relative_half_width >= 1e-6 && target.relative_half_width <= 1);
  setError("confidence-error", targetOk ? null : "The target is a share from 0.0001 % to 100 %, or empty.");
  ok &&= targetOk;
  const paramErrors = page.form.validateAll();
  const sweepOk = page.sweep.validate();
  return ok && sweepOk && paramErrors.length === 0;
}

async function launchScenario(page) {
  const box = $("form-errors");
  clear(box);
  if (!page.canWrite) return;
  if (!clientChecks(page)) {
    box.append(
      el("p", { class: "notice notice-error", role: "alert" }, "Some values need fixing before the run can start."),
    );
    page.form.focusFirstError();
    return;
  }
  const button = /** @type {HTMLButtonElement} */ ($("scenario-form").querySelector("[data-testid=launch]"));
  button.disabled = true;
  button.textContent = "Launching…";
  try {
    let scenario;
    try {
      scenario = await api.post("/api/scenarios/", {
        campus: page.campusId,
        kind: page.selectedKind.kind,
        name: $("scenario-name", HTMLInputElement).value.trim(),
        params: page.form.value(),
      });
    } catch (error) {
      if (error instanceof ApiError && error.status === 400) {
        showApiErrors(page, error);
        return;
      }
      throw error;
    }
    const seedText = $("run-seed", HTMLInputElement).value.trim();
    const sweep = page.sweep.value();
    const asOf = $("run-as-of", HTMLInputElement).value;
    const run = await api.post(`/api/scenarios/${scenario.id}/run/`, {
      replicas: Number($("run-replicas", HTMLInputElement).value),
      ...(seedText ? { seed: Number(seedText) } : {}),
      ...(asOf ? { as_of: asOf } : {}),
      ...(sweep ? { sweep } : {}),
      ...(confidenceTarget() ? { confidence_target: confidenceTarget() } : {}),
    });
    await loadRuns(page);
    page.openRun(run.id);
  } catch (error) {
    if (error instanceof ApiError && error.status === 400) showApiErrors(page, error);
    else box.append(errorBox(error, "launch-error"));
  } finally {
    button.disabled = !page.canWrite;
    button.textContent = "Save & launch";
  }
}

function showApiErrors(page, error) {
  const box = $("form-errors");
  const fields = error.fieldErrors();
  const params = {};
  const other = [];
  const sweepErrors = {};
  for (const [path, message] of Object.entries(fields)) {
    if (path.startsWith("sweep")) sweepErrors[path] = message;
    else if (path.startsWith("params.")) params[path.slice(7)] = message;
    else if (path === "params") other.push(message);
    else if (path === "name") setError("name-error", message);
    else if (path === "non_field_errors" && /\bname\b/.test(message))
      setError("name-error", "This campus already has a scenario of this name; choose another.");
    else if (path === "replicas") setError("replicas-error", message);
    else if (path === "seed") setError("seed-error", message);
    else if (path === "as_of") setError("as-of-error", message);
    else if (path.startsWith("confidence_target")) setError("confidence-error", message);
    else other.push(`${path}: ${message}`);
  }
  other.push(...page.form.showErrors(params));
  other.push(...page.sweep.showErrors(sweepErrors));
  if (Object.keys(sweepErrors).length) other.push("The sweep needs fixing (marked above).");
  const nameBad = $("scenario-name", HTMLInputElement).getAttribute("aria-invalid") === "true";
  const where = other.length ? other.join(" ") : "The fields concerned are marked above.";
  box.append(
    el(
      "div",
      { class: "notice notice-error", role: "alert", "data-testid": "api-errors" },
      "The API refused these values. ",
      where,
    ),
  );
  if (nameBad) $("scenario-name", HTMLInputElement).focus();
  else page.form.focusFirstError();
}
