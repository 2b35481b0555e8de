// The risk card: counts of what can go wrong (single points of failure, overloads, dark racks, cooling short of
// N+1) and the stranded power.
import { el } from "../../lib/dom.js";
import * as f from "../../lib/format.js";

/** What a planner should look at: single points of failure, overloads, stranded power. */
export function riskCard(power, cooling) {
  const count = (v) => (Array.isArray(v) ? v.length : Number(v ?? 0));
  const items = [
    [
      "risk-redundancy",
      "Single failures that cascade or darken racks",
      count(power.redundancy_findings_count ?? power.redundancy_findings),
    ],
    ["risk-tripped", "Devices that trip at design load", count(power.tripped_at_design_load)],
    ["risk-over-limit", "Power devices over their planning limit", count(power.devices_over_planning_limit)],
    ["risk-dark", "Racks without power", count(power.racks_without_power)],
    ["risk-cooling-n1", "Cooling groups failing N+1", count(cooling.groups_failing_n_plus_1)],
    [
      "risk-cooling-over",
      "Cooling units or plants overloaded",
      count(cooling.units_overloaded) + count(cooling.plants_overloaded),
    ],
  ];
  const tight = power.tightest_device;
  return el(
    "div",
    { class: "card card-wide", "data-testid": "risk-card" },
    el("h2", {}, "Risks"),
    el(
      "ul",
      { class: "risk-list" },
      items.map(([testid, text, n]) =>
        el(
          "li",
          { class: n > 0 ? "risk-bad" : "risk-ok", "data-testid": testid, "data-value": n },
          el("span", { class: "risk-count" }, f.num(n)),
          text,
        ),
      ),
    ),
    el(
      "p",
      { class: "muted small" },
      power.stranded_mw != null
        ? `Stranded power: ${f.mw(power.stranded_mw)} provisioned to racks but not usable`
        : null,
      power.stranded_by_constraint_mw && Object.keys(power.stranded_by_constraint_mw).length
        ? ` (${Object.entries(power.stranded_by_constraint_mw)
            .map(([k, v]) => `${k} ${f.mw(v)}`)
            .join(", ")}).`
        : ".",
      power.design_margin_mw != null ? ` Planning margin kept apart: ${f.mw(power.design_margin_mw)}.` : null,
      tight?.name ? ` Tightest device: ${tight.name}, ${f.kw(tight.headroom_kw, 0)} of headroom.` : null,
    ),
  );
}
