// @ts-check
// The run list: the campus's latest runs with their status, and the ticks that pick runs to compare.
import { api, qs } from "../../lib/api.js";
import { $, clear, el, errorBox } from "../../lib/dom.js";
import * as f from "../../lib/format.js";
import { statusBadge } from "./shared.js";

export async function loadRuns(page) {
  const box = $("run-list");
  try {
    const body = await api.get(`/api/runs/${qs({ campus: page.campusId, ordering: "-created", limit: 50 })}`);
    page.runs = Array.isArray(body) ? body : (body.results ?? []);
  } catch (error) {
    clear(box).append(errorBox(error, "runs-error"));
    return;
  }
  renderRuns(page);
}

export function renderRuns(page) {
  const box = $("run-list");
  clear(box);
  if (!page.runs.length) {
    box.append(el("p", { class: "muted" }, "No runs yet. Pick a kind on the left and launch one."));
    return;
  }
  box.append(
    el(
      "table",
      { class: "table compact run-list-table" },
      el(
        "thead",
        {},
        el(
          "tr",
          {},
          el("th", {}, el("span", { class: "visually-hidden" }, "Compare")),
          el("th", {}, "Run"),
          el("th", {}, "Scenario"),
          el("th", {}, "Status"),
          el("th", { class: "num" }, "Replicas"),
          el("th", {}, "Created"),
        ),
      ),
      el(
        "tbody",
        {},
        page.runs.map((r) =>
          el(
            "tr",
            {
              "data-run-id": r.id,
              "data-testid": "run-row",
              class: r.id === page.openRunId ? "selected" : "",
              onclick: (e) => (e.target.tagName !== "INPUT" ? page.openRun(r.id) : null),
            },
            el(
              "td",
              {},
              el("input", {
                type: "checkbox",
                "aria-label": `Compare run ${r.id}`,
                checked: page.compare.has(r.id),
                disabled: r.status !== "succeeded" || !sameKind(page, r),
                title: sameKind(page, r) ? null : "Only runs of the same kind can be compared",
                onchange: (e) => toggleCompare(page, r.id, e.target.checked),
              }),
            ),
            el(
              "td",
              {},
              el("a", { href: `?run=${r.id}`, onclick: (e) => (e.preventDefault(), page.openRun(r.id)) }, `#${r.id}`),
            ),
            el("td", {}, r.scenario_name ?? "", el("div", { class: "muted small" }, kindLabel(page, r.kind))),
            el(
              "td",
              {},
              statusBadge(r),
              r.flagged
                ? el("span", { class: "flag", title: "A threshold of its schedule was crossed" }, "flagged")
                : null,
            ),
            el("td", { class: "num" }, `${f.num(r.replicas_done ?? 0)}/${f.num(r.replicas)}`),
            el("td", { class: "small" }, f.dateTime(r.created)),
          ),
        ),
      ),
    ),
  );
}

/** The kind of the runs ticked for comparison (null when none is). */
function comparedKind(page) {
  const first = page.runs.find((r) => page.compare.has(r.id));
  return first?.kind ?? null;
}

/** Runs of another kind than those already ticked cannot be compared (the API refuses mixed kinds). */
function sameKind(page, r) {
  const kind = comparedKind(page);
  return kind === null || r.kind === kind;
}

function kindLabel(page, kind) {
  return page.kinds?.find((k) => k.kind === kind)?.label ?? (kind ? f.label(kind) : "");
}

function toggleCompare(page, id, on) {
  if (on) page.compare.add(id);
  else page.compare.delete(id);
  const boxes = /** @type {NodeListOf<HTMLInputElement>} */ (
    document.querySelectorAll("[data-testid=run-row] input[type=checkbox]")
  );
  for (const input of boxes) {
    const r = page.runs.find((x) => x.id === Number(input.closest("tr").dataset.runId));
    if (!r) continue;
    const ok = r.status === "succeeded" && sameKind(page, r);
    input.disabled = !ok;
    if (ok) input.removeAttribute("title");
    else if (r.status === "succeeded") input.title = "Only runs of the same kind can be compared";
  }
  const n = page.compare.size;
  $("compare-button", HTMLButtonElement).disabled = n < 2;
  $("compare-button", HTMLButtonElement).textContent = n >= 2 ? `Compare ${n} runs` : "Compare selected";
}
