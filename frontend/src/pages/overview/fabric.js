// @ts-check
// The network fabric card: tiers, switches, links, transceivers and the fabric's power.
import { el } from "../../lib/dom.js";
import * as f from "../../lib/format.js";
import { figure } from "./widgets.js";

export function fabricCard(net) {
  return el(
    "div",
    { class: "card card-wide", "data-testid": "fabric-card" },
    el("h2", {}, "Network fabric"),
    el(
      "div",
      { class: "figure-row" },
      figure("fig-fabric-tiers", "Tiers", net.tiers, f.num(net.tiers)),
      figure("fig-fabric-switches", "Switches", net.switches, f.num(net.switches)),
      figure("fig-fabric-links", "Links", net.links, f.num(net.links)),
      figure("fig-fabric-optics", "Transceivers", net.transceivers, f.num(net.transceivers)),
      figure(
        "fig-fabric-kw",
        "Fabric power",
        net.fabric_power_kw,
        f.mw(net.fabric_power_kw / 1000),
        net.copper_share != null ? `${f.pct(net.copper_share, 1)} of links on copper` : null,
      ),
    ),
  );
}
