// Impact mode: pick a device (or feed, cooling unit, plant) to fail, or several at once; the racks the failure
// darkens, leaves on one feed or without cooling are coloured, counted and listed with the cascade that follows.
import { api, qs } from "../../lib/api.js";
import { $, clear, el, errorBox, fill } from "../../lib/dom.js";
import * as f from "../../lib/format.js";
import { IMPACT } from "../../lib/colors.js";
import { countIn, recolor } from "./legend.js";
import { zoomToRacks } from "./racks.js";

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

export async function loadDevices(page) {
  const campus = page.campusId;
  const [devices, units, plants, feeds] = await Promise.allSettled([
    api.all(`/api/power-devices/${qs({ campus })}`),
    api.all(`/api/cooling-units/${qs({ campus })}`),
    api.all(`/api/cooling-plants/${qs({ campus })}`),
    api.all(`/api/utility-feeds/${qs({ campus })}`),
  ]);
  const ok = (result) => (result.status === "fulfilled" ? result.value : []);
  page.deviceLists = { devices: ok(devices), units: ok(units), plants: ok(plants), feeds: ok(feeds) };
  renderDeviceSelect(page);
  $("impact-device").dataset.ready = "true";
  const failed = [devices, units, plants, feeds].find((r) => r.status === "rejected");
  if (failed) throw failed.reason;
}

/** The device picker: this hall's devices first (when a hall is shown), then every device by kind. */
export function renderDeviceSelect(page) {
  if (!page.deviceLists) return;
  const select = $("impact-device");
  const current = select.value;
  const { devices, units, plants, feeds } = page.deviceLists;
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
  if (page.hallId) {
    const here = el("optgroup", { label: "In this hall" });
    for (const [rows, kind] of [
      [devices, "power"],
      [units, "cooling"],
    ]) {
      for (const row of rows) {
        if (hallOf(row) === page.hallId && row.kind !== "generator") {
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
  list.hidden = picked.length < 2 && !$("impact-several").checked;
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
  const several = $("impact-several").checked;
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
  const query = picked.length === 1 ? qs({ device: id, kind }) : qs({ failed: picked.join(",") });
  clear(result).append(el("p", { class: "loading" }, "Working out the impact…"));
  try {
    const data = await api.get(`/api/campuses/${page.campusId}/impact/${query}`);
    const kindOf = classifyImpact(page, data);
    page.impact = { kindOf, data, counts: impactCounts(data, kindOf) };
    $("impact-clear").disabled = false;
    renderImpact(page, data, kindOf);
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
  page.impact = null;
  page.impactPicked = [];
  renderPicked(page);
  $("impact-device").value = "";
  $("impact-clear").disabled = true;
  clear($("impact-result"));
  recolor(page);
}

export function wireImpact(page) {
  $("impact-device").addEventListener("change", (e) => pickElement(page, e.target.value));
  $("impact-several").addEventListener("change", () => renderPicked(page));
  $("impact-clear").addEventListener("click", () => clearImpact(page));
}
