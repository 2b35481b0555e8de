// @ts-check
// The risk card: counts of what can go wrong (single points of failure, overloads, dark racks, cooling pools short
// of their declared redundancy) and the stranded power.
import { el } from "../../lib/dom.js";
import * as f from "../../lib/format.js";
import { riskWords } from "../../lib/design.js";

/**
 * What a planner should look at: the summary's risks (grid, utility feeds, heat rejection), single points of
 * failure, overloads, stranded power.
 * @param {Record<string, any>} power
 * @param {Record<string, any>} cooling
 * @param {Record<string, any>[]} [risks] the summary's ``risks``
 * @param {Record<string, any>[] | null} [levels] ``GET /redundancy/``'s ``levels`` (null: not loaded)
 */
export function riskCard(power, cooling, risks = [], levels = null) {
  const count = (v) => (Array.isArray(v) ? v.length : Number(v ?? 0));
  /** @type {[string, string, number][]} testid, what is counted, how many */
  const items = [
    [
      "risk-redundancy",
      "Single failures (power or cooling) that cost GPUs or cascade",
      count(power.redundancy_findings_count ?? power.redundancy_findings),
    ],
    ["risk-tripped", "Devices that trip at design load", count(power.tripped_at_design_load)],
    [
      "risk-grid-shortfall",
      "Grid connection below the peak facility power (the generators serve the rest at their fuel)",
      (power.grid_supply?.shortfall_kw ?? 0) > 0 ? 1 : 0,
    ],
    ["risk-over-limit", "Power devices over their planning limit", count(power.devices_over_planning_limit)],
    ["risk-dark", "Racks without power", count(power.racks_without_power)],
    [
      "risk-cooling-n1",
      "Cooling groups or halls' air units short of their declared redundancy",
      count(cooling.groups_failing_redundancy ?? cooling.groups_failing_n_plus_1),
    ],
    [
      "risk-cooling-over",
      "Cooling units or plants overloaded",
      count(cooling.units_overloaded) + count(cooling.plants_overloaded),
    ],
  ];
  const tight = power.tightest_device;
  const byEffect = power.redundancy_findings_by_effect ?? {};
  const worst = (power.redundancy_findings ?? []).slice(0, 5);
  return el(
    "div",
    { class: "card card-wide", "data-testid": "risk-card" },
    el("h2", {}, "Risks"),
    levels ? levelTable(levels) : null,
    summaryRisks(risks),
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
    worst.length ? findingList(byEffect, worst) : null,
    (power.grid_supply?.shortfall_kw ?? 0) > 0
      ? el(
          "p",
          { class: "small note-bad", "data-testid": "risk-grid-shortfall-text" },
          `The grid connection is ${f.mw(power.grid_supply.shortfall_kw / 1000)} below the peak facility power: ` +
            `${f.num(power.grid_supply.generator_energy_mwh)} MWh a year from the generators at ` +
            `${f.usd(power.grid_supply.generator_fuel_usd_per_mwh)}/MWh of fuel ` +
            `(${f.usd(power.grid_supply.generator_cost_usd)} a year).`,
        )
      : null,
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

/** The worst single failures (power or cooling), each with what it takes away. */
function findingList(byEffect, worst) {
  return el(
    "div",
    { "data-testid": "risk-findings" },
    el(
      "p",
      { class: "muted small" },
      `Single failures by effect: ${byEffect.power ?? 0} take power, ${byEffect.cooling ?? 0} take cooling, ` +
        `${byEffect.cascade ?? 0} cascade. The worst:`,
    ),
    el(
      "ul",
      { class: "risk-findings small" },
      worst.map((x) =>
        el(
          "li",
          { "data-kind": x.device_kind, "data-id": x.device_id, "data-effect": x.effect, "data-value": x.gpus_lost },
          `${x.device_name} (${x.device_kind}): ${x.effect}, ${f.num(x.gpus_lost)} GPUs`,
        ),
      ),
    ),
  );
}

/** The summary's risks, each with its heading, the elements it names, its figures and the API's sentence. */
function summaryRisks(risks) {
  if (!risks.length) {
    return el(
      "p",
      { class: "small risk-ok", "data-testid": "summary-risks", "data-value": 0 },
      "No design risk found.",
    );
  }
  return el(
    "ul",
    { class: "risk-list summary-risks", "data-testid": "summary-risks", "data-value": risks.length },
    risks.map((risk) => {
      const w = riskWords(risk);
      return el(
        "li",
        {
          class: w.severity === "error" ? "risk-bad" : "risk-warn",
          "data-testid": `summary-risk-${risk.kind}`,
          "data-kind": risk.kind,
          "data-severity": w.severity,
        },
        el("strong", {}, w.title),
        w.elements.length ? ` — ${w.elements.join(", ")}` : null,
        w.figures.length ? el("div", { class: "small" }, w.figures.join(" · ")) : null,
        w.message ? el("div", { class: "muted small" }, `${w.message}.`) : null,
      );
    }),
  );
}

const PAIRS_SHOWN = 3;

/** An element of a failure: its name. */
const named = (e) => e?.name ?? `#${e?.id ?? "?"}`;

/**
 * Declared vs achieved redundancy per domain (N, N+1 or 2N, verified by failing every element and every pair of one
 * out for maintenance and one failed), with the first few failures or pairs that cost GPUs, named.
 * @param {Record<string, any>[]} levels
 */
function levelTable(levels) {
  const rows = levels.map((lv) => {
    const costly = lv.pairs?.length
      ? lv.pairs
          .slice(0, PAIRS_SHOWN)
          .map((p) => `${named(p.maintenance)} out + ${named(p.failure)} failed: ${f.num(p.gpus_lost)} GPUs`)
      : (lv.single_failures ?? [])
          .slice(0, PAIRS_SHOWN)
          .map((x) => `${named(x.element)} failed: ${f.num(x.gpus_lost)} GPUs`);
    const more = Math.max(0, (lv.pairs?.length ? lv.pairs_count : (lv.single_failures ?? []).length) - costly.length);
    const ok = !lv.declared || lv.meets_declared;
    return el(
      "tr",
      {
        "data-testid": `level-${lv.domain}`,
        "data-declared": lv.declared ?? "",
        "data-achieved": lv.achieved,
        class: ok ? "risk-ok" : "risk-bad",
      },
      el("th", { scope: "row" }, lv.domain),
      el("td", { "data-testid": `level-${lv.domain}-declared` }, lv.declared || "not declared"),
      el("td", { "data-testid": `level-${lv.domain}-achieved` }, lv.achieved),
      el(
        "td",
        { class: "small", "data-testid": `level-${lv.domain}-costly` },
        costly.length ? costly.join("; ") + (more ? `; and ${f.num(more)} more` : "") : "none",
        !ok ? ` (${f.num(lv.gpus_at_risk)} GPUs below the declared level)` : null,
      ),
    );
  });
  return el(
    "table",
    { class: "table small", "data-testid": "redundancy-levels" },
    el(
      "caption",
      { class: "muted small" },
      "Redundancy declared and achieved (every failure and maintenance pair tried)",
    ),
    el(
      "thead",
      {},
      el(
        "tr",
        {},
        el("th", { scope: "col" }, "Domain"),
        el("th", { scope: "col" }, "Declared"),
        el("th", { scope: "col" }, "Achieved"),
        el("th", { scope: "col" }, "What costs GPUs"),
      ),
    ),
    el("tbody", {}, rows),
  );
}
