// One card per building: racks, GPUs, IT load, facility power, headroom and GPU mix, linked to its floor map.
import { el } from "../../lib/dom.js";
import * as f from "../../lib/format.js";
import { bindingText, gpuMix } from "./widgets.js";

export function buildingCards(page, buildings) {
  return [
    el("h2", { class: "section-title" }, `Buildings (${buildings.length})`),
    el(
      "section",
      { class: "building-grid", "aria-label": "Buildings" },
      buildings.map((b) =>
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
            // The racks' IT only: the campus IT load adds the fabric and other IT the cards do not split.
            el(
              "dt",
              { title: "IT load of the building's racks (network and other IT are counted campus-wide)" },
              "Rack IT",
            ),
            el("dd", { "data-field": "it_mw" }, f.mw(b.it_mw)),
            el("dt", { title: "Rack IT × the design PUE" }, "Facility"),
            el("dd", { "data-field": "facility_mw" }, f.mw(b.facility_mw)),
            el("dt", { title: "IT load that can be added with the design redundancy intact" }, "Headroom"),
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
          ),
          gpuMix(b.gpus_by_model, "building-gpus"),
        ),
      ),
    ),
  ];
}
