// @ts-check
// An expansion proposal (docs/placement.md): what would have to be built for the racks to fit, as a cost table
// (each addition: what, how many, where, the constraint it lifts, its capex and lead time) with the total and
// the time to power. Its racks are drawn dashed on the map like an option's; a new hall or building it builds is
// drawn dashed on the campus map with the racks in it.
import { el } from "../../lib/dom.js";
import * as f from "../../lib/format.js";

/** "B1 · H1 (B1-H1-UPS-A01)": where an addition goes and the element it grows (new: the one it is built like). */
function where(add) {
  const place = [add.building, add.hall, add.row].filter(Boolean).join(" · ") || "campus";
  const grows = add.target ? `${add.new ? "like " : ""}${add.target}${add.to ? ` → ${add.to}` : ""}` : "";
  return grows ? `${place} (${grows})` : place;
}

const BUILDING_GAP_M = 60; // a new building beside the campus's last (docs/placement.md)
const HALL_GAP_M = 6; // a new hall beside its building's others

/**
 * The outlines of a proposal's new building and hall (dashed on the campus map), laid out from the outlines of
 * the building and hall they are built like: a new building beside the rightmost one, its hall where the template
 * hall stands in its building; a new hall beside its building's rightmost hall. Also the new hall's outline, where
 * the proposal's racks go (null: no new hall).
 * @param {any} proposal the answer's `proposal`
 * @param {{level: string, name: string, x: number, y: number, w: number, h: number}[]} outlines campus scene's
 * @returns {{rects: {x: number, y: number, w: number, h: number}[], hall: {x: number, y: number} | null}}
 */
export function newSpace(proposal, outlines) {
  const adds = proposal?.additions ?? [];
  const hallLine = adds.find((a) => a.new && a.kind === "hall");
  if (!hallLine) return { rects: [], hall: null };
  const buildingLine = adds.find((a) => a.new && a.kind === "building");
  const buildings = outlines.filter((o) => o.level === "building");
  const template = buildings.find((b) => b.name === (buildingLine ? buildingLine.target : hallLine.building));
  if (!template) return { rects: [], hall: null };
  const inside = (o) =>
    o.level === "hall" &&
    o.x >= template.x - 1e-6 &&
    o.y >= template.y - 1e-6 &&
    o.x + o.w <= template.x + template.w + 1e-6 &&
    o.y + o.h <= template.y + template.h + 1e-6;
  const halls = outlines.filter(inside);
  const like = halls.find((h) => h.name === hallLine.target) ?? halls[0];
  if (!like) return { rects: [], hall: null };
  const rects = [];
  let hall;
  if (buildingLine) {
    const right = Math.max(...buildings.map((b) => b.x + b.w));
    const b = { x: right + BUILDING_GAP_M, y: template.y, w: template.w, h: template.h };
    rects.push(b);
    hall = { x: b.x + (like.x - template.x), y: b.y + (like.y - template.y), w: like.w, h: like.h };
  } else {
    const right = Math.max(...halls.map((h) => h.x + h.w));
    hall = { x: right + HALL_GAP_M, y: like.y, w: like.w, h: like.h };
  }
  rects.push(hall);
  return { rects, hall };
}

function days(value) {
  return value === null || value === undefined ? "–" : `${f.num(value)} d`;
}

/**
 * The proposal block, or null without a proposal.
 * @param {any} proposal the answer's `proposal`
 * @param {() => void} onShow draws its racks on the map
 */
export function proposalBlock(proposal, onShow) {
  if (!proposal) return null;
  if (!proposal.feasible)
    return el(
      "p",
      { class: "muted small", "data-testid": "proposal-infeasible" },
      `No addition makes these racks fit: ${proposal.detail}`,
    );
  const additions = proposal.additions ?? [];
  const head = ["What", "Where · lifts", "Capex", "Lead"];
  return el(
    "div",
    { class: "proposal", "data-testid": "proposal" },
    el(
      "p",
      {},
      el("strong", {}, "Proposal: "),
      additions.length
        ? `build these for the racks to fit in ${[proposal.building, proposal.hall].filter(Boolean).join(" · ")}.`
        : "nothing to build.",
    ),
    additions.length
      ? el(
          "table",
          { class: "table small proposal-table", "data-testid": "proposal-table" },
          el(
            "thead",
            {},
            el(
              "tr",
              {},
              head.map((h) => el("th", {}, h)),
            ),
          ),
          el(
            "tbody",
            {},
            additions.map((add) =>
              el(
                "tr",
                {
                  "data-testid": "proposal-addition",
                  "data-kind": add.kind,
                  "data-reason": add.reason,
                  "data-new": String(Boolean(add.new)),
                },
                el(
                  "td",
                  {},
                  `${f.num(add.count)} × ${add.new ? "new " : ""}${f.label(add.kind)}`,
                  el("div", { class: "muted" }, add.model),
                ),
                el("td", {}, where(add), el("div", { class: "muted" }, f.label(add.reason))),
                el("td", { class: "num" }, f.usd(add.capex_usd)),
                el("td", { class: "num" }, days(add.lead_time_days)),
              ),
            ),
          ),
          el(
            "tfoot",
            {},
            el(
              "tr",
              {},
              el("th", { colspan: 2 }, "Total · time to power"),
              el(
                "th",
                { class: "num", "data-testid": "proposal-capex", "data-usd": proposal.capex_usd },
                f.usd(proposal.capex_usd),
              ),
              el(
                "th",
                {
                  class: "num",
                  "data-testid": "proposal-time-to-power",
                  "data-days": proposal.time_to_power_days ?? "",
                },
                days(proposal.time_to_power_days),
              ),
            ),
          ),
        )
      : null,
    proposal.option
      ? el(
          "button",
          { type: "button", class: "button-quiet", "data-testid": "proposal-show", onclick: onShow },
          "Show the proposal's racks on the map",
        )
      : null,
  );
}
