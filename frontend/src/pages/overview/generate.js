// @ts-check
// Generate a campus: the reference-design generator's parameters (POST /api/campuses/generate/) as a form built
// from the API schema, so every option the API takes (power architecture, heat rejection, facility water,
// island size, planning margin …) is a control with its choices, bounds and help, never JSON. Planners only.
import { api, ApiError } from "../../lib/api.js";
import { el, errorBox } from "../../lib/dom.js";
import { requestSchema, withoutEmpty } from "../../lib/openapi.js";
import { SchemaForm } from "../../lib/schemaform.js";

const PATH = "/api/campuses/generate/";
// replace overwrites a campus of the same name; background is the API's own choice by size
const OMIT = ["replace", "background"];

/** @param {{canWrite?: boolean}} page */
export function generateCard(page) {
  if (!page.canWrite) return null;
  const body = el("div", { class: "generate-body" });
  const details = el(
    "details",
    { class: "card card-wide", "data-testid": "generate-card" },
    el("summary", {}, el("h2", { class: "inline" }, "Generate a campus")),
    el(
      "p",
      { class: "muted small" },
      "A reference design from a few choices (docs/generator.md): GPUs and their model, fabric, power " +
        "architecture, heat rejection and facility water, islands and a planning margin. It opens when built.",
    ),
    body,
  );
  let loaded = false;
  details.addEventListener("toggle", () => {
    if (details.open && !loaded) {
      loaded = true;
      load(body);
    }
  });
  return details;
}

/** @param {HTMLElement} body */
async function load(body) {
  let schema;
  try {
    schema = requestSchema(await api.get("/api/schema/?format=json"), PATH, "post", OMIT);
  } catch (error) {
    body.append(errorBox(error, "generate-error"));
    return;
  }
  const fields = el("div", { "data-testid": "generate-form" });
  const status = el("div", { "aria-live": "polite" });
  const button = el("button", { type: "submit", class: "primary", "data-testid": "generate-submit" }, "Generate");
  const form = el("form", { novalidate: "" }, fields, button, status);
  body.append(form);
  const schemaForm = new SchemaForm(fields, schema, {});
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    status.replaceChildren();
    if (schemaForm.validateAll().length) {
      schemaForm.focusFirstError();
      return;
    }
    const submit = /** @type {HTMLButtonElement} */ (button);
    submit.disabled = true;
    submit.textContent = "Generating…";
    try {
      const made = await api.post(PATH, withoutEmpty(schemaForm.value()));
      if (made.job != null) {
        status.append(
          el(
            "p",
            { class: "notice small", "data-testid": "generate-job" },
            `Large campus: generating in the background (job ${made.job}).`,
          ),
        );
      } else {
        window.location.assign(`/campuses/${made.id}/`);
      }
    } catch (error) {
      if (error instanceof ApiError && error.status === 400) {
        const left = schemaForm.showErrors(error.fieldErrors());
        status.append(
          el(
            "div",
            { class: "notice notice-error", role: "alert", "data-testid": "generate-api-errors" },
            "The API refused these values. ",
            left.length ? left.join(" ") : "The fields concerned are marked above.",
          ),
        );
        schemaForm.focusFirstError();
      } else status.append(errorBox(error, "generate-error"));
    } finally {
      submit.disabled = false;
      submit.textContent = "Generate";
    }
  });
}
