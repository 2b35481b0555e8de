// @ts-check
// Impact mode: pick a device (or feed, cooling unit, plant) to fail, or several at once; the racks the failure
// darkens, leaves on one feed or without cooling are coloured, counted and listed with the cascade that follows.
import { api, qs } from "../../lib/api.js";
import { $, clear, el, errorBox, fill } from "../../lib/dom.js";
import * as f from "../../lib/format.js";
import { IMPACT } from "../../lib/colors.js";
import { countIn, recolor } from "./legend.js";
import { showPaths, zoomToRacks } from "./racks.js";

// Kinds in the picker's order: what planners ask about first (UPS, PDU, CDU, plants), then the rest.
const KINDS = [
  ["power", "ups", "UPS"],
  ["power", "pdu", "PDU"],
  ["power", "sst", "Solid-state transformers (800 VDC)"],
  ["power", "rectifier", "Sidecar power racks (±400 VDC)"],
  ["power", "dc-busway", "DC busways"],
  ["cooling", "cdu", "CDU"],
  ["plant", null, "Cooling plants"],
  ["power", "rpp", "Remote power panels"],
  ["power", "busway", "Busways"],
  ["cooling", "crah", "CRAH"],
  ["cooling", "rear-door", "Rear-door coolers"],
  ["cooling", "immersion", "Immersion tanks"],
  ["power", "switchgear", "Switchgear"],
  ["power", "transformer", "Transformers"],
  ["power", "substation", "Substations"],
  ["power", "generator", "Generators (standby)"],
];
const TOP_FAILURES = 10;

export async function loadDevices(page) {
  const campus = page.campusId;
  const [devices, units, plants, feeds] = await Promise.allSettled([
    api.all(`/api/power-devices/${qs({ campus })}`),
    api.all(`/api/cooling-units/${qs({ campus })}`),
    api.all(`/api/cooling-plants/${qs({ campus })}`),
    api.all(`/api/utility-feeds/${qs({ campus })}`),
  ]);
  const ok = (result) => (result.status === "fulfilled" ? result.value : []);
  page.deviceLists = {
    devices: ok(devices),
    units: ok(units),
    plants: ok(plants),
    feeds: ok(feeds),
    findings: undefined, // the redundancy check's, once loaded (null: unavailable)
  };
  renderDeviceSelect(page);
  $("impact-device", HTMLSelectElement).dataset.ready = "true";
  // The worst failures may have come first: the picker holds them only now.
  if (page.worstFindings !== undefined) $("impact-device", HTMLSelectElement).dataset.worstReady = "true";
  const failed = [devices, units, plants, feeds].find((r) => r.status === "rejected");
  if (failed) throw failed.reason;
}

/** The worst single failures (the redundancy check fails every element alone): asked after the map is drawn. */
export async function loadWorstFailures(page) {
  try {
    const body = await api.get(`/api/campuses/${page.campusId}/redundancy/${qs({ as_of: page.asOf })}`);
    page.worstFindings = body.findings ?? [];
  } catch {
    page.worstFindings = null;
  }
  // Before the device lists are in there is no picker to fill yet: loadDevices draws it with these findings.
  if (!page.deviceLists) return;
  page.deviceLists.findings = page.worstFindings;
  renderDeviceSelect(page);
  $("impact-device", HTMLSelectElement).dataset.worstReady = "true";
}

const idOf = (ref) => (typeof ref === "object" && ref ? ref.id : ref);

/** Building id and name of a listed element (cooling units through their hall). */
function buildingOf(page, row, hallBuilding) {
  const b = row.building ?? hallBuilding.get(idOf(row.hall)) ?? null;
  if (!b) return { id: null, name: "Campus-wide" };
  return typeof b === "object" ? { id: b.id, name: b.name } : { id: b, name: `Building ${b}` };
}

/**
 * The device picker: the worst single failures first (the redundancy check's findings, by GPUs lost), this hall's
 * devices when a hall is shown, the utility feeds, then every element grouped by kind and building. The search box
 * narrows every group.
 */
export function renderDeviceSelect(page) {
  if (!page.deviceLists) return;
  const select = $("impact-device", HTMLSelectElement);
  const current = select.value;
  const { devices, units, plants, feeds } = page.deviceLists;
  const findings = page.deviceLists.findings ?? page.worstFindings;
  const hallBuilding = new Map();
  for (const b of page.navigation ?? []) for (const h of b.halls) hallBuilding.set(h.id, { id: b.id, name: b.name });
  clear(select);
  select.append(el("option", { value: "" }, "Choose a device to fail…"));
  const option = (value, text) => el("option", { value, "data-search": text.toLowerCase() }, text);

  const worst = el("optgroup", { label: "Worst single failures (GPUs lost)", "data-group": "worst" });
  if (findings === undefined)
    worst.append(el("option", { value: "", disabled: true }, "Running the redundancy check…"));
  else if (findings === null) worst.append(el("option", { value: "", disabled: true }, "Redundancy check unavailable"));
  else if (!findings.length)
    worst.append(el("option", { value: "", disabled: true }, "No single failure costs GPUs (redundancy check)"));
  for (const fd of (findings ?? []).slice(0, TOP_FAILURES)) {
    const text = `${fd.device_name} — ${f.num(fd.gpus_lost)} GPUs lost${fd.effect === "cascade" ? ", cascades" : ""}`;
    worst.append(option(`${fd.device_kind}:${fd.device_id}`, text));
  }
  select.append(worst);

  // "What if this hall's UPS-2 fails?" is the usual question.
  if (page.hallId) {
    const here = el("optgroup", { label: "In this hall", "data-group": "hall" });
    for (const [rows, kind] of [
      [devices, "power"],
      [units, "cooling"],
    ]) {
      for (const row of rows) {
        if (idOf(row.hall) === page.hallId && row.kind !== "generator") {
          here.append(option(`${kind}:${row.id}`, `${row.name} (${row.kind})`));
        }
      }
    }
    if (here.children.length) select.append(here);
  }
  if (feeds.length) {
    const g = el("optgroup", { label: "Utility feeds", "data-group": "utility" });
    for (const row of feeds) g.append(option(`utility:${row.id}`, row.name));
    select.append(g);
  }
  const lists = { power: devices, cooling: units, plant: plants };
  for (const [type, kind, title] of KINDS) {
    const rows = lists[type].filter((r) => kind === null || r.kind === kind);
    const byBuilding = new Map();
    for (const row of rows) {
      const b = buildingOf(page, row, hallBuilding);
      let entry = byBuilding.get(b.id);
      if (!entry) byBuilding.set(b.id, (entry = { name: b.name, rows: [] }));
      entry.rows.push(row);
    }
    const entries = [...byBuilding.values()].sort((a, b) => a.name.localeCompare(b.name, "en", { numeric: true }));
    for (const entry of entries) {
      const g = el("optgroup", {
        label: `${title} · ${entry.name} (${entry.rows.length})`,
        "data-group": `${type}:${kind ?? "plant"}`,
      });
      for (const row of entry.rows) g.append(option(`${type}:${row.id}`, row.name));
      select.append(g);
    }
  }
  filterDevices($("impact-search", HTMLInputElement).value);
  select.value = current;
  if (select.value !== current) select.value = "";
}

/** Hide the options (and groups) whose name does not contain the search text; say how many match. */
function filterDevices(text) {
  const q = text.trim().toLowerCase();
  const select = $("impact-device", HTMLSelectElement);
  let shown = 0;
  for (const g of select.querySelectorAll("optgroup")) {
    let any = false;
    for (const o of g.querySelectorAll("option[data-search]")) {
      if (!(o instanceof HTMLOptionElement)) continue;
      const hit = !q || o.dataset.search.includes(q);
      o.hidden = !hit;
      if (hit) {
        any = true;
        shown += 1;
      }
    }
    g.hidden = q !== "" && !any;
  }
  const note = $("impact-search-count");
  note.textContent = q ? `${f.num(shown)} match${shown === 1 ? "" : "es"}` : "";
  return shown;
}

/** The name of a picked element ("kind:id") from the picker's lists. */
function pickedName(page, value) {
  const [kind, id] = value.split(":");
  const lists = page.deviceLists ?? {};
  const rows = { power: lists.devices, cooling: lists.units, plant: lists.plants, utility: lists.feeds }[kind] ?? [];
  const row = rows.find((r) => String(r.id) === id);
  return row ? row.name : `${kind} ${id}`;
}

/** The elements failed together, each with a button taking it out of the failure. */
function renderPicked(page) {
  const list = $("impact-picked");
  const picked = page.impactPicked ?? [];
  list.hidden = picked.length < 2 && !$("impact-several", HTMLInputElement).checked;
  fill(
    list,
    ...picked.map((value) =>
      el(
        "li",
        { "data-value": value },
        pickedName(page, value),
        " ",
        el(
          "button",
          {
            type: "button",
            class: "button-quiet",
            "aria-label": `Take ${pickedName(page, value)} out of the failure`,
            onclick: () => {
              page.impactPicked = picked.filter((v) => v !== value);
              runImpact(page);
            },
          },
          "×",
        ),
      ),
    ),
  );
}

/** Pick an element: it replaces the failure, or joins it when "several at once" is ticked. */
export function pickElement(page, value) {
  const several = $("impact-several", HTMLInputElement).checked;
  const picked = page.impactPicked ?? [];
  if (!value) page.impactPicked = several ? picked : [];
  else if (several) page.impactPicked = picked.includes(value) ? picked : [...picked, value];
  else page.impactPicked = [value];
  return runImpact(page);
}

export async function runImpact(page) {
  const result = $("impact-result");
  const picked = page.impactPicked ?? [];
  renderPicked(page);
  if (!picked.length) {
    clearImpact(page);
    return;
  }
  const [kind, id] = picked[0].split(":");
  // one element: the single-failure form; several: every one of them failed at once
  const asOf = page.asOf;
  const query =
    picked.length === 1 ? qs({ device: id, kind, as_of: asOf }) : qs({ failed: picked.join(","), as_of: asOf });
  clear(result).append(el("p", { class: "loading" }, "Working out the impact…"));
  try {
    const data = await api.get(`/api/campuses/${page.campusId}/impact/${query}`);
    const kindOf = classifyImpact(page, data);
    page.impact = { kindOf, data, counts: impactCounts(data, kindOf) };
    $("impact-clear", HTMLButtonElement).disabled = false;
    renderImpact(page, data, kindOf);
    // The failed element's links: its sources and what it serves, drawn over the impact colours.
    if (picked.length === 1 && !picked[0].startsWith("utility:"))
      showPaths(page, picked[0], pickedName(page, picked[0]));
    recolor(page);
  } catch (error) {
    clear(result).append(errorBox(error, "impact-error"));
  }
}

/** rack id -> "cascade" | "both" | "a" | "b" | "cooling"; the worst outcome wins. */
function classifyImpact(page, data) {
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
    for (const r of page.scene?.racks ?? []) {
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

function renderImpact(page, data, kindOf) {
  const result = $("impact-result");
  const counts = impactCounts(data, kindOf);
  const gpus = data.gpus ?? {};
  const lost = (gpus.lost_power ?? 0) + (gpus.lost_cooling ?? 0);
  const tripped = data.tripped ?? [];
  // fill, not append: the DOM's append writes a left-out (null) part as the text "null".
  fill(
    result,
    el(
      "div",
      { class: "impact-headline", "data-testid": "impact-gpus-lost", "data-value": lost },
      el("span", { class: lost > 0 ? "big" : "big none-lost" }, f.num(lost)),
      " GPUs lost",
      el(
        "div",
        { class: "muted small" },
        [
          `${f.num(gpus.lost_power ?? 0)} without power`,
          `${f.num(gpus.lost_cooling ?? 0)} lose cooling`,
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
      gpus.without_cooling_at_design
        ? el(
            "div",
            {
              class: "small note-bad",
              "data-testid": "impact-uncooled-at-design",
              "data-value": gpus.without_cooling_at_design,
              "data-racks": data.racks?.without_cooling_at_design?.length ?? 0,
            },
            `${f.num(gpus.without_cooling_at_design)} GPUs in ` +
              `${f.num(data.racks?.without_cooling_at_design?.length ?? 0)} racks were already without cooling ` +
              "before this failure (a cooling group, a hall's air units or a plant loop short of capacity at " +
              "design load); not counted as lost.",
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
            el("td", { class: "num" }, f.num(countIn(page, kindOf, k))),
          ),
        ),
      ),
    ),
    kindOf.size && ![...kindOf.keys()].some((id) => page.byId.has(id))
      ? el(
          "p",
          { class: "notice small", "data-testid": "impact-elsewhere" },
          "The racks hit are outside this page. ",
          el("button", { type: "button", class: "button-quiet", onclick: () => page.go({}) }, "Show the whole campus"),
        )
      : null,
    kindOf.size
      ? el(
          "button",
          {
            type: "button",
            class: "button-quiet",
            "data-testid": "impact-zoom",
            onclick: () => zoomToRacks(page, [...kindOf.keys()]),
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

export function clearImpact(page) {
  if (page.selection && page.selection === page.impactPicked?.[0]) showPaths(page, null);
  page.impact = null;
  page.impactPicked = [];
  renderPicked(page);
  $("impact-device", HTMLSelectElement).value = "";
  $("impact-clear", HTMLButtonElement).disabled = true;
  clear($("impact-result"));
  recolor(page);
}

export function wireImpact(page) {
  $("impact-device", HTMLSelectElement).addEventListener("change", (e) =>
    pickElement(page, /** @type {HTMLSelectElement} */ (e.currentTarget).value),
  );
  const search = $("impact-search", HTMLInputElement);
  search.addEventListener("input", () => filterDevices(search.value));
  search.addEventListener("keydown", (e) => {
    if (e.key !== "Enter") return;
    e.preventDefault();
    // Enter fails the first element that matches.
    const select = $("impact-device", HTMLSelectElement);
    /** @type {HTMLOptionElement | null} */
    const first = select.querySelector("optgroup:not([hidden]) option[data-search]:not([hidden])");
    if (first) {
      select.value = first.value;
      pickElement(page, first.value);
    }
  });
  $("impact-several", HTMLInputElement).addEventListener("change", () => renderPicked(page));
  $("impact-clear", HTMLButtonElement).addEventListener("click", () => clearImpact(page));
}
