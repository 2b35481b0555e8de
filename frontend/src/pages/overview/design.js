// @ts-check
// The design card: the power architecture with its chain losses, copper and capex; the heat rejection and the
// facility water class; water use; the peak at the site's design conditions beside the typical year's, and the
// grid headroom at design.
import { el } from "../../lib/dom.js";
import * as f from "../../lib/format.js";
import { architectureWords, copperWords, heatRejection, waterClass } from "../../lib/design.js";
import { figure } from "./widgets.js";

/**
 * @param {Record<string, any>} summary the campus summary
 * @param {{kind: string, capacity_kw?: number}[]} plants the campus's cooling plants
 * @param {string} description the campus description (the generator says there what it built)
 */
export function designCard(summary, plants, description) {
  const power = summary.power ?? {};
  const cooling = summary.cooling ?? {};
  const dist = power.distribution ?? {};
  const rejection = heatRejection(plants);
  const water = waterClass(description);
  const design = cooling.design_conditions ?? {};
  const hottest = (design.hours ?? []).reduce(
    (a, h) => (a == null || h.facility_mw > a.facility_mw ? h : a),
    /** @type {any} */ (null),
  );
  return el(
    "div",
    { class: "card card-wide design-card", "data-testid": "design-card" },
    el("h2", {}, "Design"),
    el(
      "div",
      { class: "figure-row" },
      figure(
        "fig-power-architecture",
        "Power architecture",
        dist.architecture,
        architectureWords(dist.architecture),
        [
          dist.chain_loss_mw != null
            ? `chain losses ${f.mw(dist.chain_loss_mw, 2)}` +
              (power.it_mw ? ` (${f.pct(dist.chain_loss_mw / power.it_mw, 1)} of IT)` : "")
            : null,
          dist.copper_relative_to_ac != null ? copperWords(dist.copper_relative_to_ac) : null,
          dist.power_capex_usd != null ? `power chain capex ${f.usd(dist.power_capex_usd)}` : null,
        ]
          .filter(Boolean)
          .join(" · "),
        "The distribution from the medium-voltage feed to the racks; losses of its stages at design load, " +
          "its copper against a 415 VAC chain of the same load, and the capital cost of the power chain",
      ),
      figure(
        "fig-heat-rejection",
        "Heat rejection",
        rejection.map((r) => r.kind).join(","),
        rejection.length ? rejection.map((r) => r.words).join("; ") : "no cooling plant",
        [
          rejection
            .map((r) => `${f.num(r.count)} plant${r.count === 1 ? "" : "s"} × ${f.mw(r.capacity_mw / r.count, 1)}`)
            .join(", "),
          water ? `facility water ${water}` : null,
          `WUE ${f.num(cooling.wue_l_per_kwh, 2)} L/kWh`,
        ]
          .filter(Boolean)
          .join(" · "),
        "The plants that reject the campus's heat, by kind (count × capacity), the liquid loop's ASHRAE " +
          "facility water class and the water used per kWh of IT energy over the typical year",
      ),
      figure(
        "fig-design-peak",
        "Peak facility at design",
        power.design_peak_facility_mw,
        f.mw(power.design_peak_facility_mw, 1),
        `typical year's peak ${f.mw(power.peak_facility_mw, 1)}` +
          (hottest ? ` · worst design hour: ${hottest.label}, ${f.num(hottest.dry_bulb_c, 1)} °C` : ""),
        "The facility's peak at the site's climatic design conditions (ASHRAE 0.4 %/1 % dry bulb, 0.4 % wet " +
          "bulb, 20-year extreme) beside the typical year's peak hour",
      ),
      figure(
        "fig-design-grid-headroom",
        "Grid headroom at design",
        power.design_grid_headroom_mw,
        f.mw(power.design_grid_headroom_mw, 1),
        `typical year ${f.mw(power.grid_headroom_mw, 1)}` +
          (cooling.design_hours_short ? ` · ${f.num(cooling.design_hours_short)} design hours short of cooling` : ""),
        "The grid connection less the facility's peak at design conditions",
      ),
    ),
  );
}
