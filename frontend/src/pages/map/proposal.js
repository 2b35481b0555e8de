// @ts-check
// An expansion proposal (docs/placement.md): what would have to be built for the racks to fit, as a cost table
// (each addition: what, how many, where, the constraint it lifts, its capex and lead time) with the total and
// the time to power. Its racks are drawn dashed on the map like an option's.
import { el } from "../../lib/dom.js";
import * as f from "../../lib/format.js";

/** "B1 · H1 (B1-H1-UPS-A01)": where an addition goes and the element it grows. */
function where(add) {
  const place = [add.building, add.hall, add.row].filter(Boolean).join(" · ") || "campus";
  const grows = add.target ? `${add.target}${add.to ? ` → ${add.to}` : ""}` : "";
  return grows ? `${place} (${grows})` : place;
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
                { "data-testid": "proposal-addition", "data-kind": add.kind, "data-reason": add.reason },
                el("td", {}, `${f.num(add.count)} × ${f.label(add.kind)}`, el("div", { class: "muted" }, add.model)),
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
