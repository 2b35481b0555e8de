// @ts-check
// Design branches on the overview: the campus's parent and branches, a form to branch it, links to compare.
import { api } from "../../lib/api.js";
import { el, errorBox, fill } from "../../lib/dom.js";
import { followJob } from "../../lib/jobs.js";

function compareHref(ours, theirs) {
  return `/campuses/${ours}/compare/?against=${theirs}`;
}

function designRow(page, campus, label) {
  const here = campus.id === page.campusId;
  return el(
    "li",
    { "data-testid": `branch-${campus.id}`, "data-campus": campus.id },
    here ? el("strong", {}, campus.name) : el("a", { href: `/campuses/${campus.id}/` }, campus.name),
    label ? el("span", { class: "muted" }, ` ${label}`) : null,
    here ? null : " · ",
    here
      ? null
      : el("a", { href: compareHref(page.campusId, campus.id), "data-testid": `compare-${campus.id}` }, "compare"),
  );
}

function branchForm(page, status) {
  const input = el("input", {
    id: "branch-name",
    name: "name",
    required: true,
    maxlength: 128,
    "data-testid": "branch-name",
    "aria-describedby": "branch-status",
  });
  const form = el(
    "form",
    { class: "branch-form", "data-testid": "branch-form" },
    el("label", { for: "branch-name" }, "New branch name"),
    input,
    el("button", { type: "submit", class: "button", "data-testid": "branch-create" }, "Create branch"),
  );
  form.noValidate = true; // the page says what is wrong, in words, beside the field
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const name = input.value.trim();
    if (!name) {
      input.setAttribute("aria-invalid", "true");
      fill(
        status,
        errorBox({ message: "Give the branch a name (the name of the design it becomes)." }, "branch-error"),
      );
      input.focus();
      return;
    }
    input.removeAttribute("aria-invalid");
    fill(status, "Copying the design…");
    try {
      const made = await api.post(`/api/campuses/${page.campusId}/branch/`, { name });
      if (made.job) {
        // A large campus is copied by a background job (202 {job, url}): follow it, then open the branch.
        const progress = el("progress", { max: 1, value: 0, "data-testid": "branch-progress" });
        const stage = el("span", { "data-testid": "branch-stage" }, "queued");
        fill(status, el("span", {}, "Copying the design: ", stage, " ", progress));
        const job = await followJob(made.url, (j) => {
          progress.value = j.progress;
          fill(stage, j.message || j.status);
        });
        window.location.assign(`/campuses/${job.campus}/`);
        return;
      }
      window.location.assign(`/campuses/${made.id}/`);
    } catch (error) {
      const fields = error.fieldErrors ? error.fieldErrors() : {};
      fill(status, errorBox(fields.name ? { message: fields.name } : error, "branch-error"));
    }
  });
  return form;
}

/** The card; filled once the parent and branches are read. */
export function branchesCard(page) {
  const list = el("ul", { class: "branch-list", "data-testid": "branch-list" });
  const status = el("div", { id: "branch-status", role: "status" });
  const card = el(
    "section",
    { class: "card card-wide branches-card", "aria-labelledby": "branches-title", "data-testid": "branches" },
    el("h2", { id: "branches-title" }, "Design branches"),
    list,
    page.canWrite ? branchForm(page, status) : null,
    status,
  );
  load(page, list).catch((error) => fill(status, errorBox(error, "branches-error")));
  return card;
}

async function load(page, list) {
  const here = await api.get(`/api/campuses/${page.campusId}/`);
  const rows = [];
  if (here.parent) {
    const parent = await api.get(`/api/campuses/${here.parent.id ?? here.parent}/`);
    rows.push(designRow(page, parent, "(parent)"));
    rows.push(designRow(page, here, "(this branch)"));
  } else {
    rows.push(designRow(page, here, "(this design)"));
  }
  const branches = await api.all(`/api/campuses/?parent=${page.campusId}`);
  for (const branch of branches) rows.push(designRow(page, branch, "(branch)"));
  fill(list, rows);
  list.dataset.ready = "true";
}
