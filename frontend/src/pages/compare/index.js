// Two designs side by side: the summary figures with their deltas and the objects added, removed and changed,
// from GET /api/campuses/{ours}/diff/?against={theirs}.
import { api } from "../../lib/api.js";
import { $, boot, el, errorBox, fill, wireCampusPicker } from "../../lib/dom.js";
import * as f from "../../lib/format.js";

const page = { ...boot() };

const LABELS = {
  "inventory.gpus": ["GPUs", 0, ""],
  "inventory.racks": ["Racks", 0, ""],
  "power.it_mw": ["IT load", 2, "MW"],
  "power.facility_mw": ["Facility power", 2, "MW"],
  "power.pue": ["PUE", 3, ""],
  "power.grid_capacity_mw": ["Grid capacity", 1, "MW"],
  "power.grid_headroom_mw": ["Grid headroom", 2, "MW"],
  "power.headroom_after_failover_mw": ["Headroom after failover", 2, "MW"],
  "power.stranded_mw": ["Stranded power", 2, "MW"],
  "power.redundancy_findings_count": ["Redundancy findings", 0, ""],
  "power.annual_cost_usd": ["Energy cost per year", 0, "USD"],
  "cooling.heat_load_mw": ["Heat load", 2, "MW"],
  "cooling.capacity_mw": ["Cooling capacity", 2, "MW"],
};

function value(path, v) {
  const [, digits, unit] = LABELS[path] ?? [path, 2, ""];
  if (v === null || v === undefined) return "–";
  if (unit === "USD") return f.usd(v);
  return unit ? `${f.num(v, digits)} ${unit}` : f.num(v, digits);
}

function delta(path, d) {
  if (d === null || d === undefined) return "–";
  if (d === 0) return "0";
  return `${d > 0 ? "+" : "−"}${value(path, Math.abs(d))}`;
}

function figuresTable(diff) {
  return el(
    "table",
    { class: "table", "data-testid": "compare-figures" },
    el("caption", {}, "Summary figures"),
    el(
      "thead",
      {},
      el(
        "tr",
        {},
        el("th", { scope: "col" }, "Figure"),
        el("th", { scope: "col" }, page.theirsName),
        el("th", { scope: "col" }, page.campusName),
        el("th", { scope: "col" }, "Δ"),
      ),
    ),
    el(
      "tbody",
      {},
      Object.entries(diff.figures).map(([path, [theirs, ours, d]]) =>
        el(
          "tr",
          { "data-figure": path, class: d ? "changed" : null },
          el("th", { scope: "row" }, LABELS[path]?.[0] ?? path),
          el("td", { class: "num" }, value(path, theirs)),
          el("td", { class: "num" }, value(path, ours)),
          el("td", { class: "num", "data-testid": `delta-${path}` }, delta(path, d)),
        ),
      ),
    ),
  );
}

function shown(v) {
  return v === null || v === undefined ? "–" : typeof v === "object" ? JSON.stringify(v) : String(v);
}

function objectsSection(diff) {
  const { added, removed, changed } = diff.objects;
  const item = (o) => el("li", {}, el("code", {}, o.model), " ", o.name);
  return el(
    "section",
    { class: "card card-wide", "data-testid": "compare-objects", "aria-labelledby": "objects-title" },
    el(
      "h2",
      { id: "objects-title" },
      `Objects: ${changed.length} changed, ${added.length} added, ${removed.length} removed`,
    ),
    changed.length
      ? el(
          "table",
          { class: "table", "data-testid": "compare-changed" },
          el("caption", {}, "Changed"),
          el(
            "thead",
            {},
            el(
              "tr",
              {},
              el("th", { scope: "col" }, "Object"),
              el("th", { scope: "col" }, "Field"),
              el("th", { scope: "col" }, page.theirsName),
              el("th", { scope: "col" }, page.campusName),
            ),
          ),
          el(
            "tbody",
            {},
            changed.flatMap((c) =>
              Object.entries(c.fields).map(([field, [theirs, ours]]) =>
                el(
                  "tr",
                  { "data-object": `${c.model}:${c.name}`, "data-field": field },
                  el("td", {}, el("code", {}, c.model), " ", c.name),
                  el("td", {}, field),
                  el("td", {}, shown(theirs)),
                  el("td", {}, shown(ours)),
                ),
              ),
            ),
          ),
        )
      : el("p", { class: "muted" }, "No object changed."),
    added.length
      ? [el("h3", {}, `Only in ${page.campusName}`), el("ul", { "data-testid": "compare-added" }, added.map(item))]
      : null,
    removed.length
      ? [el("h3", {}, `Only in ${page.theirsName}`), el("ul", { "data-testid": "compare-removed" }, removed.map(item))]
      : null,
  );
}

function againstPicker() {
  const select = el(
    "select",
    { id: "against", "data-testid": "compare-against" },
    page.campuses
      .filter((c) => c.id !== page.campusId)
      .map((c) => el("option", { value: c.id, selected: c.id === page.againstId }, c.name)),
  );
  select.addEventListener("change", () =>
    window.location.assign(`/campuses/${page.campusId}/compare/?against=${select.value}`),
  );
  return el("p", {}, el("label", { for: "against" }, "Compare with "), select);
}

async function main() {
  const root = $("compare");
  const picker = againstPicker();
  if (!page.againstId) {
    fill(root, picker, el("p", { class: "muted" }, "Pick a design to compare with."));
    root.setAttribute("aria-busy", "false");
    root.dataset.ready = "true";
    return;
  }
  page.theirsName = page.campuses.find((c) => c.id === page.againstId)?.name ?? `campus ${page.againstId}`;
  try {
    const diff = await api.get(`/api/campuses/${page.campusId}/diff/?against=${page.againstId}`);
    fill(
      root,
      picker,
      el("section", { class: "card card-wide", "aria-label": "Figures" }, figuresTable(diff)),
      objectsSection(diff),
    );
    root.dataset.ready = "true";
  } catch (error) {
    fill(root, picker, errorBox(error, "compare-error"));
    root.dataset.ready = "error";
  }
  root.setAttribute("aria-busy", "false");
}

wireCampusPicker();
main();
