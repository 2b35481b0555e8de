// @ts-check
// Navigation and loading: campus → building → hall (picker, breadcrumbs, browser history), the metric shown, and
// loading a level's racks into the map.
import { api, qs } from "../../lib/api.js";
import { $, clear, el, errorBox } from "../../lib/dom.js";
import * as f from "../../lib/format.js";
import { campusScene, hallScene } from "../../lib/scene.js";
import { PlantGraph } from "../../lib/plantgraph.js";
import { kindWords } from "../../lib/design.js";
import { kindCode } from "../../lib/floormap.js";
import { clearImpact, renderDeviceSelect, runImpact } from "./impact.js";
import { recolor } from "./legend.js";
import { closePanel, fillRackSearch, openRack } from "./racks.js";

export function buildPicker(page) {
  const picker = $("hall-picker", HTMLSelectElement);
  clear(picker);
  picker.append(el("option", { value: "" }, "Whole campus"));
  for (const b of [...(page.navigation ?? [])].sort(f.byName)) {
    const group = el("optgroup", { label: b.name });
    group.append(el("option", { value: `b:${b.id}` }, `${b.name} — all halls`));
    for (const h of [...b.halls].sort(f.byName))
      group.append(el("option", { value: `h:${h.id}` }, `${h.name} (${f.num(h.racks)} racks)`));
    picker.append(group);
  }
  picker.value = page.hallId ? `h:${page.hallId}` : page.buildingId ? `b:${page.buildingId}` : "";
  picker.addEventListener("change", () => {
    const [level, id] = picker.value.split(":");
    go(page, level === "h" ? { hallId: Number(id) } : level === "b" ? { buildingId: Number(id) } : {});
  });
}

function crumbs(page) {
  const list = $("map-crumbs");
  clear(list);
  const building = (page.navigation ?? []).find(
    (b) => b.id === page.buildingId || b.halls.some((h) => h.id === page.hallId),
  );
  const hall = building?.halls.find((h) => h.id === page.hallId);
  const item = (text, target, current) =>
    el(
      "li",
      {},
      current
        ? el("span", { "aria-current": "location" }, text)
        : el("a", { href: "#", onclick: (e) => (e.preventDefault(), go(page, target)) }, text),
    );
  list.append(item(page.campusName, {}, !building));
  if (building) list.append(item(building.name, { buildingId: building.id }, !hall));
  if (hall) list.append(item(hall.name, { hallId: hall.id }, true));
}

export function go(page, { hallId = null, buildingId = null }) {
  page.hallId = hallId;
  page.buildingId = hallId ? null : buildingId;
  const search = qs({
    hall: hallId,
    building: page.buildingId,
    metric: page.metric !== "load_kw" ? page.metric : null,
    as_of: page.asOf,
  });
  history.pushState({ hallId, buildingId: page.buildingId }, "", `${window.location.pathname}${search}`);
  $("hall-picker", HTMLSelectElement).value = hallId ? `h:${hallId}` : page.buildingId ? `b:${page.buildingId}` : "";
  return load(page);
}

export async function load(page) {
  const statusLine = $("map-status");
  page.ready = false;
  statusLine.hidden = false;
  statusLine.textContent = "Loading the floor map…";
  crumbs(page);
  closePanel(page);
  try {
    let scene;
    if (page.hallId) {
      const hallQuery = qs({ hall: page.hallId, as_of: page.asOf });
      scene = hallScene(await api.get(`/api/campuses/${page.campusId}/floor-map/${hallQuery}`));
    } else {
      page.campusCache ??= await api.get(`/api/campuses/${page.campusId}/floor-map/${qs({ as_of: page.asOf })}`);
      scene = campusScene(page.campusCache, page.buildingId);
      if (!page.buildingId) scene.title = page.campusName;
    }
    page.scene = scene;
    page.byId = new Map(scene.racks.map((r, i) => [r.id, i]));
    page.graph = new PlantGraph(scene);
    page.selection = null;
    page.map.setScene(scene.racks, scene.outlines, undefined, page.showPlant ? scene.plant : []);
    $("map-title").textContent = scene.title;
    const gpus = scene.racks.reduce((s, r) => s + (r.gpus ?? 0), 0);
    mapStats(scene, gpus);
    plantKinds(scene.plant ?? []);
    fillRackSearch(page);
    renderDeviceSelect(page);
    recolor(page);
    statusLine.hidden = scene.racks.length > 0;
    if (!scene.racks.length) statusLine.textContent = "No racks here yet.";
    if (page.impact) await runImpact(page);
    await nextFrame();
    page.map.draw();
    page.ready = true;
    if (page.rackId && page.byId.has(page.rackId)) {
      openRack(page, page.byId.get(page.rackId));
      page.rackId = null;
    }
  } catch (error) {
    statusLine.hidden = false;
    statusLine.textContent = "";
    statusLine.append(errorBox(error, "map-error"));
    page.ready = true;
  }
}

/**
 * "192 racks · 6,144 GPUs · IT load 9.7 MW · +0.05 MW IT addable after the worst single failure". The IT figure is
 * the API's, formatted as where it also shows: the campus's `campus.it_mw` is the overview's IT load
 * (`power.it_mw`); a building's or hall's `it_mw` is what its racks' feeds carry, network and other IT placed on them
 * included (the building card's "IT").
 */
function mapStats(scene, gpus) {
  const stats = clear($("map-stats"));
  const campusWide = scene.scope === "campus";
  stats.append(`${f.num(scene.racks.length)} racks · ${f.num(gpus)} GPUs · `);
  if (scene.itMw != null) {
    stats.append(
      el(
        "span",
        {
          "data-testid": "map-it-mw",
          "data-value": scene.itMw,
          title: campusWide
            ? "IT load of the campus: servers, network fabric and other IT (the overview's IT load)"
            : "IT load shown: its racks plus the network and other IT placed on them (the building card's IT)",
        },
        `IT load ${f.mw(scene.itMw)}`,
      ),
    );
    if (scene.besideMw) {
      stats.append(
        " (",
        el(
          "span",
          {
            "data-testid": "map-beside-mw",
            "data-value": scene.besideMw,
            title: "Of the hall's IT load: the network and the other-IT allowance carried on its PDUs beside its racks",
          },
          `${f.mw(scene.besideMw, 2)} of it beside the racks`,
        ),
        ")",
      );
    }
  }
  if (scene.headroomMw != null) {
    const mw = scene.headroomMw;
    stats.append(
      " · ",
      el(
        "span",
        {
          "data-testid": "map-headroom",
          "data-value": mw,
          class: mw < 0 ? "bad" : "",
          title:
            "IT load that can be added here with the design redundancy intact: IT addable after the worst single " +
            "failure (2N: either side alone carries everything; N+1: any one unit lost)",
        },
        `${mw >= 0 ? "+" : ""}${f.mw(mw, 2)} IT addable after the worst single failure`,
      ),
    );
  }
}

function nextFrame() {
  return /** @type {Promise<void>} */ (new Promise((resolve) => requestAnimationFrame(() => resolve())));
}

/** Back and forward restore the level shown; the metric picker recolours and keeps the metric in the URL. */
export function wireNavigation(page) {
  window.addEventListener("popstate", (e) => {
    page.hallId = e.state?.hallId ?? null;
    page.buildingId = e.state?.buildingId ?? null;
    $("hall-picker", HTMLSelectElement).value = page.hallId
      ? `h:${page.hallId}`
      : page.buildingId
        ? `b:${page.buildingId}`
        : "";
    load(page);
  });

  const metricPicker = $("metric-picker", HTMLSelectElement);
  metricPicker.value = page.metric;
  metricPicker.addEventListener("change", () => {
    page.metric = metricPicker.value;
    const url = new URL(window.location.href);
    if (page.metric === "load_kw") url.searchParams.delete("metric");
    else url.searchParams.set("metric", page.metric);
    history.replaceState(history.state, "", url);
    if (page.impact) clearImpact(page);
    recolor(page);
  });
}

/** The kinds of plant on this map, each as the code drawn on the map and in words, with how many there are. */
function plantKinds(plant) {
  /** @type {Map<string, number>} */
  const counts = new Map();
  for (const p of plant) counts.set(p.kind, (counts.get(p.kind) ?? 0) + 1);
  const list = $("plant-kinds");
  clear(list).append(
    ...[...counts]
      .sort((a, b) => a[0].localeCompare(b[0]))
      .map(([kind, n]) =>
        el(
          "li",
          { "data-kind": kind, "data-value": n },
          el("code", {}, kindCode(kind)),
          ` ${kindWords(kind)} × ${f.num(n)}`,
        ),
      ),
  );
}
