// @ts-check
// One card per building: racks, GPUs, IT load, facility power, headroom, battery storage and GPU mix, linked to
// its floor map.
import { el } from "../../lib/dom.js";
import * as f from "../../lib/format.js";
import { bindingText, gpuMix } from "./widgets.js";

const ACTIVE = new Set(["active", "planned"]);

/** The live battery systems summed per building id (null: placed in no building). */
export function storageByBuilding(systems) {
  const out = new Map();
  for (const s of systems ?? []) {
    if (!ACTIVE.has(s.status ?? "active")) continue;
    const key = typeof s.building === "object" && s.building ? s.building.id : (s.building ?? null);
    const sum = out.get(key) ?? { power_mw: 0, energy_mwh: 0, count: 0 };
    sum.power_mw += s.power_mw;
    sum.energy_mwh += s.energy_mwh;
    sum.count += 1;
    out.set(key, sum);
  }
  return out;
}

function storageText(sum) {
  return `${f.mw(sum.power_mw, 1)} / ${f.num(sum.energy_mwh, 1)} MWh`;
}

export function buildingCards(page, buildings, storage = []) {
  const stored = storageByBuilding(storage);
  const campusWide = stored.get(null);
  const parts = [
    el("h2", { class: "section-title" }, `Buildings (${buildings.length})`),
    stored.size
      ? el(
          "p",
          { class: "muted small", "data-testid": "campus-storage" },
          `Battery storage: ${storage.length} system${storage.length === 1 ? "" : "s"}, `,
          storageText(
            [...stored.values()].reduce(
              (a, b) => ({ power_mw: a.power_mw + b.power_mw, energy_mwh: a.energy_mwh + b.energy_mwh }),
              { power_mw: 0, energy_mwh: 0 },
            ),
          ),
          campusWide ? ` (${storageText(campusWide)} in no building)` : "",
          ".",
        )
      : null,
    el(
      "section",
      { class: "building-grid", "aria-label": "Buildings" },
      [...buildings].sort(f.byName).map((b) =>
        el(
          "article",
          { class: "card building-card", "data-testid": "building-card", "data-building-id": b.id },
          el("h3", {}, el("a", { href: `/campuses/${page.campusId}/map/?building=${b.id}` }, b.name)),
          el(
            "dl",
            { class: "kv" },
            el("dt", {}, "Racks"),
            el("dd", { "data-field": "racks" }, f.num(b.racks)),
            el("dt", {}, "GPUs"),
            el("dd", { "data-field": "gpus" }, f.num(b.gpus)),
            // What the building's rack feeds carry: the cards add up to the campus IT load.
            el(
              "dt",
              { title: "IT load of the building: its racks plus the network and other IT placed on them" },
              "IT",
            ),
            el(
              "dd",
              {
                "data-field": "it_mw",
                "data-value": b.it_mw,
                title: "IT load of the building (the floor map header's IT load for this building)",
              },
              f.mw(b.it_mw),
            ),
            el("dt", { title: "IT × the campus PUE" }, "Facility"),
            el("dd", { "data-field": "facility_mw" }, f.mw(b.facility_mw)),
            el(
              "dt",
              {
                title:
                  "IT addable after the worst single failure: IT load that can be added with the design redundancy " +
                  "intact (the floor map's building headroom)",
              },
              "Headroom",
            ),
            el(
              "dd",
              {
                "data-field": "headroom_mw",
                "data-value": b.headroom_mw ?? "",
                class: b.headroom_mw < 0 ? "bad" : "",
                title: bindingText(b.headroom_binding),
              },
              f.mw(b.headroom_mw, 2),
              el("span", { class: "muted small" }, " IT addable after the worst single failure"),
            ),
            ...(stored.has(b.id)
              ? [
                  el("dt", { title: "Battery energy storage: power / energy" }, "Storage"),
                  el(
                    "dd",
                    {
                      "data-field": "storage",
                      "data-power-mw": stored.get(b.id).power_mw,
                      "data-energy-mwh": stored.get(b.id).energy_mwh,
                    },
                    storageText(stored.get(b.id)),
                  ),
                ]
              : []),
          ),
          gpuMix(b.gpus_by_model, "building-gpus"),
        ),
      ),
    ),
  ];
  return parts.filter((part) => part != null);
}
