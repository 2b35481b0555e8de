// @ts-check
// Two designs side by side: the summary figures with their deltas, both floor maps with the racks added, removed
// and changed, the objects added, removed and changed (GET /api/campuses/{ours}/diff/?against={theirs}), and the
// merge of a branch into its parent (POST /api/campuses/{branch}/merge/; a 409 lists the conflicting objects).
import { api, ApiError } from "../../lib/api.js";
import { $, boot, el, errorBox, fill, wireCampusPicker } from "../../lib/dom.js";
import { enableExports } from "../../lib/export.js";
import * as f from "../../lib/format.js";
import { figureDelta, figureInfo, figureText, figureUnchanged } from "../../lib/figures.js";
import { FloorMap } from "../../lib/floormap.js";
import { campusScene } from "../../lib/scene.js";

/** The name of the design compared with, once known. */
const page = { ...boot(), theirsName: "" };

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
          { "data-figure": path, class: d !== null && d !== undefined && !figureUnchanged(path, d) ? "changed" : null },
          el("th", { scope: "row" }, figureInfo(path).label),
          el("td", { class: "num" }, figureText(path, theirs)),
          el("td", { class: "num" }, figureText(path, ours)),
          el("td", { class: "num", "data-testid": `delta-${path}` }, figureDelta(path, d)),
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
                  el("td", { title: field }, f.label(field)),
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
    // With no design picked yet, a placeholder comes first: the only other design must be a change to pick,
    // or picking it would fire nothing.
    page.againstId ? null : el("option", { value: "", selected: true, disabled: true }, "Choose a design…"),
    page.campuses
      .filter((c) => c.id !== page.campusId)
      .map((c) => el("option", { value: c.id, selected: c.id === page.againstId }, c.name)),
  );
  select.addEventListener("change", () => {
    if (select.value) window.location.assign(`/campuses/${page.campusId}/compare/?against=${select.value}`);
  });
  return el("p", {}, el("label", { for: "against" }, "Compare with "), select);
}

// Rack colours on the two maps; colour is never the only cue (the legend names and counts them).
const STATES = {
  added: { color: "#12a150", label: "Only in this design (added)" },
  removed: { color: "#d92d20", label: "Only in the other design (removed)" },
  changed: { color: "#f08a1c", label: "Changed (the rack, or its servers)" },
  same: { color: "#c3cad5", label: "Unchanged" },
};

/** rack name -> "added" | "removed" | "changed" from the diff (a server's key starts with its rack's name). */
function rackStates(diff) {
  const states = new Map();
  const { added, removed, changed } = diff.objects;
  const rackOf = (o) => (o.model === "rack" ? o.name : o.model === "node" ? o.name.split(" / ")[0] : null);
  for (const [list, state] of [
    [added, "added"],
    [removed, "removed"],
  ]) {
    for (const o of list) if (o.model === "rack") states.set(o.name, state);
  }
  for (const o of [...changed, ...added, ...removed]) {
    const rack = rackOf(o);
    if (rack && !states.has(rack)) states.set(rack, "changed");
  }
  return states;
}

function mapPanel(side, title) {
  const canvas = el("canvas", {
    tabindex: 0,
    "data-testid": `compare-canvas-${side}`,
    "aria-label": `Floor map of ${title}. Arrow keys pan, plus and minus zoom, 0 fits.`,
  });
  return {
    canvas,
    legend: el("ul", { class: "legend-list small", "data-testid": `compare-legend-${side}` }),
    node: null,
  };
}

async function drawMaps(section, diff) {
  const grid = el("div", { class: "compare-maps" });
  section.append(grid);
  const states = rackStates(diff);
  /** @type {[string, number, string, string[]][]} side, campus id, title, the rack states it shows */
  const sides = [
    ["theirs", page.againstId, page.theirsName, ["removed", "changed", "same"]],
    ["ours", page.campusId, page.campusName, ["added", "changed", "same"]],
  ];
  const panels = {};
  for (const [side, , title] of sides) {
    const panel = mapPanel(side, title);
    grid.append(
      el(
        "div",
        { class: "compare-map", "data-testid": `compare-map-${side}` },
        el("h3", {}, title),
        el("div", { class: "canvas-wrap" }, panel.canvas),
        panel.legend,
      ),
    );
    panels[side] = panel;
  }
  const maps = {};
  await Promise.all(
    sides.map(async ([side, id, , shownStates]) => {
      const scene = campusScene(await api.get(`/api/campuses/${id}/floor-map/`));
      const map = new FloorMap(panels[side].canvas);
      map.setScene(scene.racks, scene.outlines, undefined, []);
      const stateOf = (r) => {
        const s = states.get(r.name);
        return s && shownStates.includes(s) ? s : "same";
      };
      map.setColors((r) => STATES[stateOf(r)].color);
      const differing = scene.racks.flatMap((r, i) => (stateOf(r) !== "same" ? [i] : []));
      map.setHighlight(differing);
      // Open on the racks that differ (the whole campus when none does).
      if (differing.length) map.fitTo(differing);
      const counts = {};
      for (const r of scene.racks) counts[stateOf(r)] = (counts[stateOf(r)] ?? 0) + 1;
      fill(
        panels[side].legend,
        shownStates.map((s) =>
          el(
            "li",
            { "data-state": s, "data-count": counts[s] ?? 0 },
            el("i", { class: "swatch", style: { background: STATES[s].color } }),
            `${STATES[s].label}: ${f.num(counts[s] ?? 0)}`,
          ),
        ),
      );
      maps[side] = { map, scene, stateOf };
    }),
  );
  // For the browser tests: each map's racks with their state and colour.
  window.compareMaps = Object.fromEntries(
    Object.entries(maps).map(([side, { map, scene, stateOf }]) => [
      side,
      scene.racks.map((r, i) => ({ id: r.id, name: r.name, state: stateOf(r), color: map.colors[i] })),
    ]),
  );
  section.dataset.ready = "true";
}

/** The merge of a branch into its parent, offered when one of the two designs is the other's branch. */
function mergeSection(ours, theirs) {
  // `parent` reads as a brief object ({id, name…}) or an id.
  const parentOf = (c) => (c.parent && typeof c.parent === "object" ? c.parent.id : c.parent);
  const branch = parentOf(ours) === theirs.id ? ours : parentOf(theirs) === ours.id ? theirs : null;
  if (!branch) return null;
  const parent = branch === ours ? theirs : ours;
  const result = el("div", { "data-testid": "merge-result", "aria-live": "polite" });
  const button = el(
    "button",
    {
      type: "button",
      "data-testid": "merge-button",
      disabled: page.canWrite ? null : true,
      title: page.canWrite ? null : "Merging needs the planner role",
    },
    `Merge "${branch.name}" into "${parent.name}"`,
  );
  button.addEventListener("click", async () => {
    button.disabled = true;
    fill(result, el("p", { class: "muted" }, "Merging…"));
    try {
      const done = await api.post(`/api/campuses/${branch.id}/merge/`, {});
      fill(
        result,
        el(
          "p",
          { class: "notice", "data-testid": "merge-done" },
          `Merged into "${parent.name}": ${f.num(done.added)} added, ${f.num(done.changed)} changed, ` +
            `${f.num(done.removed)} removed. `,
          el("a", { href: window.location.href }, "Compare again"),
        ),
      );
    } catch (error) {
      const objects = error instanceof ApiError ? (error.body?.objects ?? []) : [];
      fill(
        result,
        el(
          "div",
          { class: "notice notice-error", role: "alert", "data-testid": "merge-error", "data-status": error.status },
          el("p", {}, error.message),
          objects.length
            ? el(
                "ul",
                { class: "merge-conflicts", "data-testid": "merge-conflicts" },
                objects.map((o) =>
                  el(
                    "li",
                    { "data-object": `${o.model}:${o.name}` },
                    el("code", {}, o.model),
                    " ",
                    el("strong", {}, o.name),
                    `: ${o.reason}`,
                    o.fields
                      ? ` (${Object.entries(o.fields)
                          .map(([k, v]) => `${f.label(k)}: ${[].concat(v).join(" ")}`)
                          .join("; ")})`
                      : "",
                  ),
                ),
              )
            : null,
        ),
      );
    } finally {
      button.disabled = !page.canWrite;
    }
  });
  return el(
    "section",
    { class: "card card-wide", "aria-labelledby": "merge-title", "data-testid": "merge" },
    el("h2", { id: "merge-title" }, "Merge"),
    el(
      "p",
      { class: "muted" },
      `Applies what "${branch.name}" added, removed and changed since it was branched to "${parent.name}". ` +
        "Nothing is written when the parent changed the same objects (they are listed) or the result breaks a rule.",
    ),
    button,
    result,
  );
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
    const [diff, ours, theirs] = await Promise.all([
      api.get(`/api/campuses/${page.campusId}/diff/?against=${page.againstId}`),
      api.get(`/api/campuses/${page.campusId}/`),
      api.get(`/api/campuses/${page.againstId}/`),
    ]);
    const maps = el(
      "section",
      { class: "card card-wide", "aria-labelledby": "maps-title", "data-testid": "compare-maps" },
      el("h2", { id: "maps-title" }, "Floor maps"),
      el(
        "p",
        { class: "muted small" },
        "Racks coloured by what differs; the other racks grey. Drag to pan, wheel to zoom.",
      ),
    );
    fill(
      root,
      picker,
      mergeSection(ours, theirs),
      el("section", { class: "card card-wide", "aria-label": "Figures" }, figuresTable(diff)),
      maps,
      objectsSection(diff),
    );
    await drawMaps(maps, diff);
    root.dataset.ready = "true";
  } catch (error) {
    fill(root, picker, errorBox(error, "compare-error"));
    root.dataset.ready = "error";
  }
  root.setAttribute("aria-busy", "false");
}

wireCampusPicker();
enableExports();
main();
