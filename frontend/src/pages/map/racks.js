// @ts-check
// Racks: the hover tooltip, the rack panel, finding a rack by name, zooming to racks, and a click on a hall's
// floor that opens the hall.
import { api, qs } from "../../lib/api.js";
import { $, clear, el, fill } from "../../lib/dom.js";
import * as f from "../../lib/format.js";
import { IMPACT, METRICS } from "../../lib/colors.js";
import { loadRackPanel } from "../../lib/rackpanel.js";
import { kindWords } from "../../lib/design.js";

const TYPE_TITLE = { power: "Power device", cooling: "Cooling unit", plant: "Cooling plant" };

/** What a plant item is: its kind, where it stands, what it serves. */
function plantTooltip(page, p) {
  const served = page.graph ? page.graph.paths(p.key).served : 0;
  return [
    el("strong", {}, p.name),
    el("div", { "data-testid": "plant-kind-words" }, `${TYPE_TITLE[p.type] ?? p.type} · ${kindWords(p.kind)}`),
    served
      ? el(
          "div",
          {},
          `${p.type === "power" ? "Feeds" : "Cools"} ${f.num(served)} rack${served === 1 ? "" : "s"} on this map`,
        )
      : null,
    el("div", { class: "muted" }, p.position === "recorded" ? "Recorded position" : "Position laid out by the map"),
    el("div", { class: "muted" }, "Click to show its links and paths"),
  ];
}

export function showTooltip(page, index, event, plantIndex = -1) {
  const tooltip = $("map-tooltip");
  if ((index < 0 && plantIndex < 0) || !page.scene) {
    tooltip.hidden = true;
    return;
  }
  if (index < 0) {
    fill(tooltip, ...plantTooltip(page, page.map.plant[plantIndex]));
    place(tooltip, event);
    return;
  }
  const r = page.scene.racks[index];
  const metric = METRICS[page.metric];
  fill(
    tooltip,
    el("strong", {}, r.name),
    el("div", {}, [r.building_name, r.hall_name].filter(Boolean).join(" · ")),
    el("div", {}, `${metric.title}: ${metric.describe(r)}`),
    el(
      "div",
      {},
      `${f.num(r.gpus ?? 0)} GPUs${r.gpus_by_model ? ` (${Object.keys(r.gpus_by_model).join(", ")})` : ""}` +
        ` · ${r.cooling_type ?? ""}`,
    ),
    page.impact?.kindOf.has(r.id)
      ? el("div", { class: "tooltip-impact" }, IMPACT[page.impact.kindOf.get(r.id)].label)
      : null,
  );
  place(tooltip, event);
}

function place(tooltip, event) {
  tooltip.hidden = false;
  const wrap = $("canvas-wrap").getBoundingClientRect();
  const x = event.clientX - wrap.left + 14;
  const y = event.clientY - wrap.top + 14;
  tooltip.style.left = `${Math.min(x, wrap.width - tooltip.offsetWidth - 8)}px`;
  tooltip.style.top = `${Math.min(y, wrap.height - tooltip.offsetHeight - 8)}px`;
}

export function zoomToRacks(page, ids) {
  page.map.fitTo(ids.filter((id) => page.byId.has(id)).map((id) => page.byId.get(id)));
  $("floor-canvas").focus({ preventScroll: true });
}

/** In the campus or building view, a click on a hall's floor (not on a rack) opens that hall. */
export function enterHallAt(page, event) {
  const box = $("floor-canvas").getBoundingClientRect();
  const wx = page.map.ox + (event.clientX - box.left) / page.map.scale;
  const wy = page.map.oy + (event.clientY - box.top) / page.map.scale;
  const hall = page.scene?.outlines.find(
    (o) => o.level === "hall" && wx >= o.x && wx <= o.x + o.w && wy >= o.y && wy <= o.y + o.h,
  );
  if (hall) page.go({ hallId: hall.id });
}

/**
 * Show the power and cooling paths of a rack or device ("rack:12", "power:7", "cooling:3", "plant:2") on the map
 * and say what they are in the selection note; null clears them.
 */
export function showPaths(page, node, label = null) {
  const note = $("selection-note");
  page.selection = node;
  if (!node || !page.graph) {
    page.map.setPaths(null);
    note.hidden = true;
    clear(note);
    return;
  }
  const paths = page.graph.paths(node);
  page.map.setPaths(paths);
  note.hidden = false;
  note.dataset.node = node;
  note.dataset.segments = paths.segments.length;
  const served = el("span", { "data-testid": "selection-served" });
  fill(
    note,
    el("strong", {}, label ?? node),
    node.startsWith("rack:")
      ? " — its power paths (side A orange, side B violet) up to the sources, and its cooling unit and plant (teal)."
      : [" — its sources and what it serves", served, "."],
    " ",
    el(
      "button",
      { type: "button", class: "button-quiet", "data-testid": "selection-clear", onclick: () => showPaths(page, null) },
      "Hide paths",
    ),
  );
  if (!node.startsWith("rack:")) servedCount(page, node, served);
}

/**
 * What a device serves, counted as impact mode counts it: the racks its failure hits (power on either side, or
 * cooling), from the same impact answer, so the two views never disagree (the graph's racks below a device
 * counted those its cooling units merely share with their N+1 partners).
 */
async function servedCount(page, node, target) {
  const [kind, id] = node.split(":");
  try {
    const data = await api.get(`/api/campuses/${page.campusId}/impact/${qs({ device: id, kind, as_of: page.asOf })}`);
    const r = data.racks ?? {};
    const hit = new Set([...(r.lost_a ?? []), ...(r.lost_b ?? []), ...(r.lost_both ?? []), ...(r.lost_cooling ?? [])]);
    target.dataset.racks = String(hit.size);
    fill(target, hit.size ? ` (${f.num(hit.size)} racks hit when it fails)` : " (no rack is hit when it fails)");
  } catch {
    // the note stays without a count (a device out of service on the day)
  }
}

export function openRack(page, index) {
  const rack = page.scene.racks[index];
  page.map.select(index);
  showPaths(page, `rack:${rack.id}`, rack.name);
  page.onSelect?.({ type: "rack", id: rack.id, name: rack.name });
  const panel = $("rack-panel");
  panel.hidden = false;
  panel.dataset.rackId = rack.id;
  loadRackPanel(panel, rack, page, { onClose: () => closePanel(page) });
  document.body.classList.add("panel-open");
}

export function closePanel(page) {
  const panel = $("rack-panel");
  if (panel.hidden) return;
  panel.hidden = true;
  delete panel.dataset.rackId;
  page.map.select(-1);
  if (page.selection?.startsWith("rack:")) showPaths(page, null);
  document.body.classList.remove("panel-open");
  $("floor-canvas").focus({ preventScroll: true });
}

export function fillRackSearch(page) {
  const list = $("rack-names");
  clear(list);
  const racks = page.scene.racks;
  // A datalist of thousands of options is slow to open; offer the first 2,000, the search accepts any name.
  for (const r of racks.slice(0, 2000)) list.append(el("option", { value: r.name }));
}

/** Escape closes the rack panel; the search box finds a rack by name; the zoom buttons. */
export function wireRackControls(page) {
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape") closePanel(page);
  });
  const showPlant = $("show-plant", HTMLInputElement);
  showPlant.addEventListener("change", () => {
    page.showPlant = showPlant.checked;
    page.map.setPlant(page.showPlant && page.scene ? page.scene.plant : []);
  });

  const search = $("rack-search", HTMLInputElement);
  search.addEventListener("keydown", (e) => {
    if (e.key !== "Enter") return;
    e.preventDefault();
    const q = search.value.trim().toLowerCase();
    if (!q || !page.scene) return;
    const racks = page.scene.racks;
    let i = racks.findIndex((r) => r.name.toLowerCase() === q);
    if (i < 0) i = racks.findIndex((r) => r.name.toLowerCase().includes(q));
    if (i < 0) {
      search.setCustomValidity("No rack by that name here");
      search.reportValidity();
      return;
    }
    search.setCustomValidity("");
    page.map.centerOn(i);
    openRack(page, i);
  });

  $("zoom-in").addEventListener("click", () => page.map.zoomAt(1.4));
  $("zoom-out").addEventListener("click", () => page.map.zoomAt(1 / 1.4));
  $("zoom-fit").addEventListener("click", () => page.map.fit());
}
