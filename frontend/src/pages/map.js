// Floor map page: campus → building → hall navigation, racks coloured by a metric, hover tooltip, rack panel,
// impact mode (what if this device fails?) and the replay of a run's per-rack series.
import { api, qs } from "../lib/api.js";
import { boot, clear, el, errorBox, fill, wireCampusPicker } from "../lib/dom.js";
import * as f from "../lib/format.js";
import { FloorMap } from "../lib/floormap.js";
import { IMPACT, METRICS, NO_DATA } from "../lib/colors.js";
import { campusScene, hallScene } from "../lib/scene.js";
import { loadRackPanel } from "../lib/rackpanel.js";
import { Replay } from "../lib/replay.js";

const state = boot();
wireCampusPicker();

const $ = (id) => document.getElementById(id);
const canvas = $("floor-canvas");
const tooltip = $("map-tooltip");
const statusLine = $("map-status");
const params = new URLSearchParams(window.location.search);

const view = {
  hallId: state.hallId ?? null,
  buildingId: state.hallId ? null : (state.buildingId ?? null),
  metric: METRICS[params.get("metric")] ? params.get("metric") : "load_kw",
  scene: null,
  byId: new Map(),
  impact: null, // {kindOf: Map(rackId -> impact key), result}
  replayValues: null, // Map(rackId -> °C) at the slider's time
  ready: false,
};
let campusCache = null;

const map = new FloorMap(canvas, {
  onHover: showTooltip,
  onClick: (index, event) => {
    if (index >= 0) openRack(index);
    else if (!view.hallId) enterHallAt(event);
  },
});

// ------------------------------------------------------------------ state for tests and tools
window.floorMap = {
  get racks() {
    const racks = view.scene?.racks ?? [];
    return racks.map((r, i) => {
      const p = map.clientPoint(i);
      return {
        id: r.id,
        name: r.name,
        color: map.colors[i],
        x: p.x,
        y: p.y,
        w: r.w * map.scale,
        h: r.h * map.scale,
        highlighted: map.highlight.has(i),
      };
    });
  },
  get metric() {
    return view.metric;
  },
  get hallId() {
    return view.hallId;
  },
  get buildingId() {
    return view.buildingId;
  },
  get ready() {
    return view.ready;
  },
  get impact() {
    return view.impact?.counts ?? null;
  },
  get scale() {
    return map.scale;
  },
  noDataColor: NO_DATA,
  get impactColors() {
    return Object.fromEntries(Object.entries(IMPACT).map(([k, v]) => [k, v.color]));
  },
  get firstPaintMs() {
    return map.firstPaint;
  },
  get lastFrameMs() {
    return map.lastFrameMs;
  },
  panBy: (dx, dy) => map.panBy(dx, dy),
  zoomAt: (factor) => map.zoomAt(factor),
  draw: () => map.draw(),
  fit: () => map.fit(),
  /** Fit, below the zoom where rack names are drawn, and paint now (for pixel checks). */
  fitForCheck: () => {
    map.fit();
    if (map.scale >= 24) map.zoomAt(20 / map.scale);
    map.draw();
  },
  fitToIds: (ids) => map.fitTo(ids.filter((id) => view.byId.has(id)).map((id) => view.byId.get(id))),
  rackIndex: (id) => view.scene?.racks.findIndex((r) => r.id === id) ?? -1,
  openRack: (id) => {
    const i = view.scene?.racks.findIndex((r) => r.id === id) ?? -1;
    if (i >= 0) openRack(i);
  },
};

// ------------------------------------------------------------------ navigation

function buildPicker() {
  const picker = $("hall-picker");
  clear(picker);
  picker.append(el("option", { value: "" }, "Whole campus"));
  for (const b of state.navigation ?? []) {
    const group = el("optgroup", { label: b.name });
    group.append(el("option", { value: `b:${b.id}` }, `${b.name} — all halls`));
    for (const h of b.halls) group.append(el("option", { value: `h:${h.id}` }, `${h.name} (${f.num(h.racks)} racks)`));
    picker.append(group);
  }
  picker.value = view.hallId ? `h:${view.hallId}` : view.buildingId ? `b:${view.buildingId}` : "";
  picker.addEventListener("change", () => {
    const [level, id] = picker.value.split(":");
    go(level === "h" ? { hallId: Number(id) } : level === "b" ? { buildingId: Number(id) } : {});
  });
}

function crumbs() {
  const list = $("map-crumbs");
  clear(list);
  const building = (state.navigation ?? []).find(
    (b) => b.id === view.buildingId || b.halls.some((h) => h.id === view.hallId),
  );
  const hall = building?.halls.find((h) => h.id === view.hallId);
  const item = (text, target, current) =>
    el(
      "li",
      {},
      current
        ? el("span", { "aria-current": "location" }, text)
        : el("a", { href: "#", onclick: (e) => (e.preventDefault(), go(target)) }, text),
    );
  list.append(item(state.campusName, {}, !building));
  if (building) list.append(item(building.name, { buildingId: building.id }, !hall));
  if (hall) list.append(item(hall.name, { hallId: hall.id }, true));
}

function go({ hallId = null, buildingId = null }) {
  view.hallId = hallId;
  view.buildingId = hallId ? null : buildingId;
  const search = qs({
    hall: hallId,
    building: view.buildingId,
    metric: view.metric !== "load_kw" ? view.metric : null,
  });
  history.pushState({ hallId, buildingId: view.buildingId }, "", `${window.location.pathname}${search}`);
  $("hall-picker").value = hallId ? `h:${hallId}` : view.buildingId ? `b:${view.buildingId}` : "";
  load();
}

window.addEventListener("popstate", (e) => {
  view.hallId = e.state?.hallId ?? null;
  view.buildingId = e.state?.buildingId ?? null;
  $("hall-picker").value = view.hallId ? `h:${view.hallId}` : view.buildingId ? `b:${view.buildingId}` : "";
  load();
});

// ------------------------------------------------------------------ loading

async function load() {
  view.ready = false;
  statusLine.hidden = false;
  statusLine.textContent = "Loading the floor map…";
  crumbs();
  closePanel();
  try {
    let scene;
    if (view.hallId) {
      scene = hallScene(await api.get(`/api/campuses/${state.campusId}/floor-map/${qs({ hall: view.hallId })}`));
    } else {
      campusCache ??= await api.get(`/api/campuses/${state.campusId}/floor-map/`);
      scene = campusScene(campusCache, view.buildingId);
      if (!view.buildingId) scene.title = state.campusName;
    }
    view.scene = scene;
    view.byId = new Map(scene.racks.map((r, i) => [r.id, i]));
    map.setScene(scene.racks, scene.outlines);
    $("map-title").textContent = scene.title;
    const gpus = scene.racks.reduce((s, r) => s + (r.gpus ?? 0), 0);
    const loadKw = scene.racks.reduce((s, r) => s + (r.load_kw ?? 0), 0);
    $("map-stats").textContent = `${f.num(scene.racks.length)} racks · ${f.num(gpus)} GPUs · ${f.mw(loadKw / 1000, 2)}`;
    fillRackSearch();
    renderDeviceSelect();
    recolor();
    statusLine.hidden = scene.racks.length > 0;
    if (!scene.racks.length) statusLine.textContent = "No racks here yet.";
    if (view.impact) await runImpact($("impact-device").value);
    await nextFrame();
    map.draw();
    view.ready = true;
    if (state.rackId && view.byId.has(state.rackId)) {
      openRack(view.byId.get(state.rackId));
      state.rackId = null;
    }
  } catch (error) {
    statusLine.hidden = false;
    statusLine.textContent = "";
    statusLine.append(errorBox(error, "map-error"));
    view.ready = true;
  }
}

function nextFrame() {
  return new Promise((resolve) => requestAnimationFrame(() => resolve()));
}

// ------------------------------------------------------------------ colours and legend

function recolor() {
  if (!view.scene) return;
  if (view.impact) {
    const kinds = view.impact.kindOf;
    map.setColors((r) => IMPACT[kinds.get(r.id) ?? "unaffected"].color);
    map.setHighlight(view.scene.racks.flatMap((r, i) => (kinds.has(r.id) ? [i] : [])));
    renderLegend(
      "Impact",
      Object.entries(IMPACT).map(([k, v]) => ({ ...v, count: k === "unaffected" ? null : countIn(kinds, k) })),
    );
    return;
  }
  const metric = METRICS[view.metric];
  if (view.metric === "temperature") {
    const values = view.replayValues;
    for (const r of view.scene.racks) r.temperature_c = values ? (values.get(r.id) ?? null) : null;
  }
  map.setColors((r) => metric.scale.color(metric.value(r)));
  map.setHighlight([]);
  const counts = new Map();
  for (const c of map.colors) counts.set(c, (counts.get(c) ?? 0) + 1);
  const bins = metric.scale.bins.map((b) => ({ ...b, count: counts.get(b.color) ?? 0 }));
  if (counts.get(NO_DATA)) {
    const label = view.metric === "temperature" && view.replayValues ? "No series (nominal)" : "No data";
    bins.push({ color: NO_DATA, label, count: counts.get(NO_DATA) });
  }
  renderLegend(metric.title + (metric.unit ? ` (${metric.unit})` : ""), bins);
  if (view.metric === "temperature" && !view.replayValues) {
    $("legend").append(
      el("p", { class: "muted small" }, "Temperatures come from a run: pick one under “Replay a run”."),
    );
  }
}

function countIn(kinds, key) {
  let n = 0;
  for (const [id, k] of kinds) if (k === key && view.byId.has(id)) n += 1;
  return n;
}

function renderLegend(title, bins) {
  const legend = $("legend");
  clear(legend);
  legend.append(
    el("div", { class: "legend-title" }, title),
    el(
      "ul",
      {},
      bins.map((b) =>
        el(
          "li",
          { "data-color": b.color },
          el("i", { class: "swatch", style: { background: b.color } }),
          el("span", {}, b.label),
          b.count != null ? el("span", { class: "legend-count" }, f.num(b.count)) : null,
        ),
      ),
    ),
  );
}

$("metric-picker").value = view.metric;
$("metric-picker").addEventListener("change", (e) => {
  view.metric = e.target.value;
  const url = new URL(window.location.href);
  if (view.metric === "load_kw") url.searchParams.delete("metric");
  else url.searchParams.set("metric", view.metric);
  history.replaceState(history.state, "", url);
  if (view.impact) clearImpact();
  recolor();
});

// ------------------------------------------------------------------ hover and rack panel

function showTooltip(index, event) {
  if (index < 0 || !view.scene) {
    tooltip.hidden = true;
    return;
  }
  const r = view.scene.racks[index];
  const metric = METRICS[view.metric];
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
    view.impact?.kindOf.has(r.id)
      ? el("div", { class: "tooltip-impact" }, IMPACT[view.impact.kindOf.get(r.id)].label)
      : null,
  );
  tooltip.hidden = false;
  const wrap = $("canvas-wrap").getBoundingClientRect();
  const x = event.clientX - wrap.left + 14;
  const y = event.clientY - wrap.top + 14;
  tooltip.style.left = `${Math.min(x, wrap.width - tooltip.offsetWidth - 8)}px`;
  tooltip.style.top = `${Math.min(y, wrap.height - tooltip.offsetHeight - 8)}px`;
}

function zoomToRacks(ids) {
  map.fitTo(ids.filter((id) => view.byId.has(id)).map((id) => view.byId.get(id)));
  canvas.focus({ preventScroll: true });
}

/** In the campus or building view, a click on a hall's floor (not on a rack) opens that hall. */
function enterHallAt(event) {
  const box = canvas.getBoundingClientRect();
  const wx = map.ox + (event.clientX - box.left) / map.scale;
  const wy = map.oy + (event.clientY - box.top) / map.scale;
  const hall = view.scene?.outlines.find(
    (o) => o.level === "hall" && wx >= o.x && wx <= o.x + o.w && wy >= o.y && wy <= o.y + o.h,
  );
  if (hall) go({ hallId: hall.id });
}

function openRack(index) {
  const rack = view.scene.racks[index];
  map.select(index);
  const panel = $("rack-panel");
  panel.hidden = false;
  panel.dataset.rackId = rack.id;
  loadRackPanel(panel, rack, state, { onClose: closePanel });
  document.body.classList.add("panel-open");
}

function closePanel() {
  const panel = $("rack-panel");
  if (panel.hidden) return;
  panel.hidden = true;
  delete panel.dataset.rackId;
  map.select(-1);
  document.body.classList.remove("panel-open");
  canvas.focus({ preventScroll: true });
}

document.addEventListener("keydown", (e) => {
  if (e.key === "Escape") closePanel();
});

function fillRackSearch() {
  const list = $("rack-names");
  clear(list);
  const racks = view.scene.racks;
  // A datalist of thousands of options is slow to open; offer the first 2,000, the search accepts any name.
  for (const r of racks.slice(0, 2000)) list.append(el("option", { value: r.name }));
}

$("rack-search").addEventListener("keydown", (e) => {
  if (e.key !== "Enter") return;
  e.preventDefault();
  const q = e.target.value.trim().toLowerCase();
  if (!q || !view.scene) return;
  const racks = view.scene.racks;
  let i = racks.findIndex((r) => r.name.toLowerCase() === q);
  if (i < 0) i = racks.findIndex((r) => r.name.toLowerCase().includes(q));
  if (i < 0) {
    e.target.setCustomValidity("No rack by that name here");
    e.target.reportValidity();
    return;
  }
  e.target.setCustomValidity("");
  map.centerOn(i);
  openRack(i);
});

$("zoom-in").addEventListener("click", () => map.zoomAt(1.4));
$("zoom-out").addEventListener("click", () => map.zoomAt(1 / 1.4));
$("zoom-fit").addEventListener("click", () => map.fit());

// ------------------------------------------------------------------ impact mode

const DEVICE_KINDS = [
  ["ups", "UPS"],
  ["pdu", "PDU"],
  ["rpp", "Remote power panels"],
  ["busway", "Busways"],
  ["switchgear", "Switchgear"],
  ["transformer", "Transformers"],
  ["substation", "Substations"],
  ["generator", "Generators"],
];

let deviceLists = null;

async function loadDevices() {
  const campus = state.campusId;
  const [devices, units, plants, feeds] = await Promise.allSettled([
    api.all(`/api/power-devices/${qs({ campus })}`),
    api.all(`/api/cooling-units/${qs({ campus })}`),
    api.all(`/api/cooling-plants/${qs({ campus })}`),
    api.all(`/api/utility-feeds/${qs({ campus })}`),
  ]);
  const ok = (result) => (result.status === "fulfilled" ? result.value : []);
  deviceLists = { devices: ok(devices), units: ok(units), plants: ok(plants), feeds: ok(feeds) };
  renderDeviceSelect();
  $("impact-device").dataset.ready = "true";
  const failed = [devices, units, plants, feeds].find((r) => r.status === "rejected");
  if (failed) throw failed.reason;
}

/** The device picker: this hall's devices first (when a hall is shown), then every device by kind. */
function renderDeviceSelect() {
  if (!deviceLists) return;
  const select = $("impact-device");
  const current = select.value;
  const { devices, units, plants, feeds } = deviceLists;
  clear(select);
  select.append(el("option", { value: "" }, "Choose a device to fail…"));
  const group = (label, rows, kind) => {
    if (!rows.length) return;
    const g = el("optgroup", { label });
    for (const row of rows) g.append(el("option", { value: `${kind}:${row.id}` }, row.name));
    select.append(g);
  };
  // "What if this hall's UPS-2 fails?" is the usual question.
  const hallOf = (row) => (typeof row.hall === "object" && row.hall ? row.hall.id : row.hall);
  if (view.hallId) {
    const here = el("optgroup", { label: "In this hall" });
    for (const [rows, kind] of [
      [devices, "power"],
      [units, "cooling"],
    ]) {
      for (const row of rows) {
        if (hallOf(row) === view.hallId && row.kind !== "generator") {
          here.append(el("option", { value: `${kind}:${row.id}` }, `${row.name} (${row.kind})`));
        }
      }
    }
    if (here.children.length) select.append(here);
  }
  group("Utility feeds", feeds, "utility");
  for (const [k, title] of DEVICE_KINDS)
    group(
      title,
      devices.filter((d) => d.kind === k),
      "power",
    );
  group(
    "Cooling units (CDU, CRAH…)",
    [...units].sort((a, b) => (a.kind === "cdu" ? 0 : 1) - (b.kind === "cdu" ? 0 : 1)),
    "cooling",
  );
  group("Cooling plants", plants, "plant");
  select.value = current;
  if (select.value !== current) select.value = "";
}

async function runImpact(value) {
  const result = $("impact-result");
  if (!value) {
    clearImpact();
    return;
  }
  const [kind, id] = value.split(":");
  clear(result).append(el("p", { class: "loading" }, "Working out the impact…"));
  try {
    const data = await api.get(`/api/campuses/${state.campusId}/impact/${qs({ device: id, kind })}`);
    const kindOf = classifyImpact(data);
    view.impact = { kindOf, data, counts: impactCounts(data, kindOf) };
    $("impact-clear").disabled = false;
    renderImpact(data, kindOf);
    recolor();
  } catch (error) {
    clear(result).append(errorBox(error, "impact-error"));
  }
}

/** rack id -> "cascade" | "both" | "a" | "b" | "cooling"; the worst outcome wins. */
function classifyImpact(data) {
  const racks = data.racks ?? {};
  const kindOf = new Map();
  const put = (ids, k) => {
    for (const item of ids ?? []) {
      const id = typeof item === "object" ? (item.id ?? item.rack_id) : item;
      if (!kindOf.has(id)) kindOf.set(id, k);
    }
  };
  // Racks downstream of a device or feed that tripped on overload after the failure (the cascade).
  const cascade = new Set(racks.lost_by_cascade ?? racks.cascade ?? []);
  const tripped = new Set((data.tripped ?? []).filter((t) => t.kind === "device").map((t) => t.id));
  const trippedFeeds = new Set((data.tripped ?? []).filter((t) => t.kind === "feed").map((t) => t.id));
  if (tripped.size || trippedFeeds.size) {
    for (const r of view.scene?.racks ?? []) {
      for (const feed of r.feeds ?? []) {
        if (tripped.has(feed.upstream_id) || trippedFeeds.has(feed.id)) cascade.add(r.id);
      }
    }
  }
  const lostPower = new Set([...(racks.lost_both ?? []), ...(racks.lost_a ?? []), ...(racks.lost_b ?? [])]);
  put(
    [...cascade].filter((id) => lostPower.has(id)),
    "cascade",
  );
  put(racks.lost_both, "both");
  put(racks.lost_a, "a");
  put(racks.lost_b, "b");
  put(racks.lost_cooling, "cooling");
  return kindOf;
}

function impactCounts(data, kindOf) {
  const counts = { both: 0, cascade: 0, a: 0, b: 0, cooling: 0 };
  for (const k of kindOf.values()) counts[k] += 1;
  const gpus = data.gpus ?? {};
  return { ...counts, gpus_lost_power: gpus.lost_power ?? null, gpus_lost_cooling: gpus.lost_cooling ?? null };
}

function renderImpact(data, kindOf) {
  const result = $("impact-result");
  const counts = impactCounts(data, kindOf);
  const gpus = data.gpus ?? {};
  const lost = (gpus.lost_power ?? 0) + (gpus.lost_cooling ?? 0);
  const tripped = data.tripped ?? [];
  clear(result).append(
    el(
      "div",
      { class: "impact-headline", "data-testid": "impact-gpus-lost", "data-value": lost },
      el("span", { class: "big" }, f.num(lost)),
      " GPUs lost",
      el(
        "div",
        { class: "muted small" },
        [
          `${f.num(gpus.lost_power ?? 0)} without power`,
          `${f.num(gpus.lost_cooling ?? 0)} without cooling`,
          `${f.num((gpus.lost_a ?? 0) + (gpus.lost_b ?? 0))} on one feed`,
        ].join(" · "),
      ),
      data.job?.interrupted
        ? el(
            "div",
            { class: "small bad" },
            `A campus-wide job is interrupted (${f.pct(data.job.fraction_of_gpus_lost, 1)} of its GPUs).`,
          )
        : null,
    ),
    el(
      "table",
      { class: "table compact", "data-testid": "impact-counts" },
      el(
        "thead",
        {},
        el("tr", {}, el("th", {}, ""), el("th", { class: "num" }, "Racks"), el("th", { class: "num" }, "In view")),
      ),
      el(
        "tbody",
        {},
        ["both", "cascade", "a", "b", "cooling"].map((k) =>
          el(
            "tr",
            { "data-kind": k, "data-count": counts[k] },
            el("td", {}, el("i", { class: "swatch", style: { background: IMPACT[k].color } }), IMPACT[k].label),
            el("td", { class: "num" }, f.num(counts[k])),
            el("td", { class: "num" }, f.num(countIn(kindOf, k))),
          ),
        ),
      ),
    ),
    kindOf.size && ![...kindOf.keys()].some((id) => view.byId.has(id))
      ? el(
          "p",
          { class: "notice small", "data-testid": "impact-elsewhere" },
          "The racks hit are outside this view. ",
          el("button", { type: "button", class: "button-quiet", onclick: () => go({}) }, "Show the whole campus"),
        )
      : null,
    kindOf.size
      ? el(
          "button",
          {
            type: "button",
            class: "button-quiet",
            "data-testid": "impact-zoom",
            onclick: () => zoomToRacks([...kindOf.keys()]),
          },
          "Zoom to the racks hit",
        )
      : el(
          "p",
          { class: "notice small", "data-testid": "impact-none" },
          "No rack is hit: the redundancy carries this failure.",
        ),
    tripped.length
      ? el(
          "div",
          { class: "tripped", "data-testid": "impact-tripped" },
          el(
            "div",
            { class: "legend-title" },
            `Cascade: ${tripped.length} trip${tripped.length === 1 ? "" : "s"}, in order`,
          ),
          el(
            "ol",
            {},
            tripped
              .slice(0, 50)
              .map((t) => el("li", {}, `${t.name || `${t.kind} ${t.id}`}${t.reason ? ` — ${t.reason}` : ""}`)),
          ),
        )
      : el("p", { class: "muted small" }, "No cascade: the other feeds carry the load."),
  );
}

function clearImpact() {
  view.impact = null;
  $("impact-device").value = "";
  $("impact-clear").disabled = true;
  clear($("impact-result"));
  recolor();
}

$("impact-device").addEventListener("change", (e) => runImpact(e.target.value));
$("impact-clear").addEventListener("click", clearImpact);

// ------------------------------------------------------------------ replay

const replay = new Replay(state, {
  select: $("replay-run"),
  slider: $("replay-slider"),
  time: $("replay-time"),
  play: $("replay-play"),
  controls: $("replay-controls"),
  note: $("replay-note"),
  onValues(values, first) {
    view.replayValues = values;
    // The racks a run follows are often a few among thousands: show them when the replay starts.
    if (values && first) zoomToRacks([...values.keys()]);
    if (values && view.metric !== "temperature" && !view.impact) {
      view.metric = "temperature";
      $("metric-picker").value = "temperature";
    }
    if (!view.impact) recolor();
  },
});

// ------------------------------------------------------------------ start

buildPicker();
const loaded = load();
loadDevices().catch((error) => {
  // Whatever lists did load stay usable; say what failed.
  if (!deviceLists) clear($("impact-device")).append(el("option", { value: "" }, "Devices unavailable"));
  $("impact-result").append(errorBox(error, "impact-error"));
});
// After the map: a replay named in the URL zooms to its racks, which needs them placed.
loaded
  .then(() => replay.init(state.runId))
  .catch((error) => {
    $("replay-note").textContent = `Runs unavailable: ${error.message}`;
  });
