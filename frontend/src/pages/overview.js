// Campus overview: headline figures from /api/campuses/{id}/summary/ and one card per building.
import { api } from "../lib/api.js";
import { boot, clear, el, errorBox, wireCampusPicker } from "../lib/dom.js";
import * as f from "../lib/format.js";
import { gpuColor } from "../lib/colors.js";

const state = boot();
wireCampusPicker();

function figure(testid, title, value, text, sub) {
  return el(
    "div",
    { class: "figure", "data-testid": testid, "data-value": value ?? "" },
    el("div", { class: "figure-title" }, title),
    el("div", { class: "figure-value", "data-testid": `${testid}-text` }, text),
    sub ? el("div", { class: "figure-sub" }, sub) : null,
  );
}

/** A horizontal bar of parts against a limit (e.g. IT and facility MW against the grid connection). */
function meter(parts, limit, { unit = "MW", testid } = {}) {
  const max = Math.max(limit || 0, ...parts.map((p) => p.value || 0)) || 1;
  return el(
    "div",
    {
      class: "meter",
      "data-testid": testid,
      role: "img",
      "aria-label":
        parts.map((p) => `${p.label} ${f.num(p.value, 1)} ${unit}`).join(", ") +
        (limit ? `, limit ${f.num(limit, 1)} ${unit}` : ""),
    },
    el(
      "div",
      { class: "meter-track" },
      parts.map((p) =>
        el("div", {
          class: `meter-bar ${p.cls ?? ""}`,
          style: { width: `${Math.min(100, (100 * (p.value || 0)) / max)}%` },
          title: `${p.label}: ${f.num(p.value, 1)} ${unit}`,
        }),
      ),
      limit
        ? el("div", {
            class: "meter-limit",
            style: { left: `${Math.min(100, (100 * limit) / max)}%` },
            title: `Limit ${f.num(limit, 1)} ${unit}`,
          })
        : null,
    ),
    el(
      "div",
      { class: "meter-legend" },
      parts.map((p) =>
        el("span", {}, el("i", { class: `swatch ${p.cls ?? ""}` }), `${p.label} ${f.num(p.value, 1)} ${unit}`),
      ),
      limit ? el("span", {}, el("i", { class: "swatch swatch-limit" }), `limit ${f.num(limit, 1)} ${unit}`) : null,
    ),
  );
}

function gpuMix(byModel, testid) {
  const entries = Object.entries(byModel ?? {}).sort((a, b) => b[1] - a[1]);
  const total = entries.reduce((s, [, n]) => s + n, 0) || 1;
  return el(
    "div",
    { class: "gpu-mix", "data-testid": testid },
    el(
      "div",
      { class: "stack", role: "img", "aria-label": entries.map(([m, n]) => `${m}: ${f.num(n)} GPUs`).join(", ") },
      entries.map(([model, n]) =>
        el("span", {
          style: { width: `${(100 * n) / total}%`, background: gpuColor(model) },
          title: `${model}: ${f.num(n)}`,
        }),
      ),
    ),
    el(
      "ul",
      { class: "gpu-list" },
      entries.map(([model, n]) =>
        el(
          "li",
          { "data-model": model, "data-value": n },
          el("i", { class: "swatch", style: { background: gpuColor(model) } }),
          el("span", { class: "gpu-model" }, model),
          el("span", { class: "gpu-count" }, f.num(n)),
        ),
      ),
    ),
  );
}

/** What a planner should look at: single points of failure, overloads, stranded power. */
function riskCard(power, cooling) {
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
      tight?.name ? ` Tightest device: ${tight.name}, ${f.kw(tight.headroom_kw, 0)} of headroom.` : null,
    ),
  );
}

function fabricCard(net) {
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

function render(summary) {
  const root = document.getElementById("overview");
  clear(root);
  const inv = summary.inventory ?? {};
  const power = summary.power ?? {};
  const cooling = summary.cooling ?? {};
  const compute = summary.compute ?? {};
  const rel = summary.reliability ?? {};
  const peak = compute.peak_pflops ?? {};
  const coolingHeadroom =
    cooling.capacity_mw != null && cooling.heat_load_mw != null ? cooling.capacity_mw - cooling.heat_load_mw : null;
  const gridUse = power.grid_capacity_mw ? power.facility_mw / power.grid_capacity_mw : null;

  root.append(
    el(
      "section",
      { class: "figures", "aria-label": "Headline figures" },
      el(
        "div",
        { class: "card card-wide" },
        el("h2", {}, "GPUs by model"),
        el(
          "div",
          { class: "split" },
          figure(
            "fig-gpus",
            "GPUs",
            inv.gpus,
            f.num(inv.gpus),
            [
              `${f.num(inv.nodes)} servers`,
              `${f.num(inv.racks)} racks`,
              `${f.num(inv.halls)} halls`,
              `${f.num(inv.buildings)} buildings`,
            ].join(" · "),
          ),
          gpuMix(inv.gpus_by_model, "fig-gpus-by-model"),
        ),
      ),
      el(
        "div",
        { class: "card card-wide" },
        el("h2", {}, "Power against the grid connection"),
        el(
          "div",
          { class: "split" },
          el(
            "div",
            { class: "figure-row" },
            figure("fig-it-mw", "IT load", power.it_mw, f.mw(power.it_mw)),
            figure(
              "fig-facility-mw",
              "Facility",
              power.facility_mw,
              f.mw(power.facility_mw),
              gridUse != null ? `${f.pct(gridUse)} of the grid connection` : null,
            ),
            figure("fig-grid-mw", "Grid connection", power.grid_capacity_mw, f.mw(power.grid_capacity_mw)),
          ),
          meter(
            [
              { label: "IT", value: power.it_mw, cls: "bar-it" },
              { label: "facility", value: power.facility_mw, cls: "bar-facility" },
            ],
            power.grid_capacity_mw,
            { testid: "grid-meter" },
          ),
        ),
        power.gpu_mw != null
          ? el(
              "p",
              { class: "muted small breakdown", "data-testid": "it-breakdown" },
              "IT load: " +
                [
                  `GPUs ${f.mw(power.gpu_mw)}`,
                  `rest of the servers ${f.mw(power.server_overhead_mw)}`,
                  `network ${f.mw(power.network_mw)}`,
                  `other IT ${f.mw((power.other_it_mw ?? 0) + (power.rack_extra_mw ?? 0))}`,
                ].join(" · "),
            )
          : null,
      ),
      el(
        "div",
        { class: "card" },
        el("h2", {}, "Efficiency & cost"),
        el(
          "div",
          { class: "figure-row" },
          figure("fig-pue", "PUE", power.pue, f.num(power.pue, 2)),
          figure(
            "fig-cost",
            "Energy cost / year",
            power.annual_cost_usd,
            f.usd(power.annual_cost_usd),
            `${f.num(power.annual_energy_twh, 2)} TWh / year`,
          ),
        ),
      ),
      el(
        "div",
        { class: "card" },
        el("h2", {}, "Headroom"),
        el(
          "div",
          { class: "figure-row" },
          figure("fig-power-headroom", "Power (grid)", power.grid_headroom_mw, f.mw(power.grid_headroom_mw)),
          figure(
            "fig-cooling-headroom",
            "Cooling",
            coolingHeadroom,
            f.mw(coolingHeadroom),
            `${f.mw(cooling.heat_load_mw)} heat of ${f.mw(cooling.capacity_mw)}`,
          ),
        ),
        cooling.racks_over_air_limit
          ? el(
              "p",
              { class: "notice notice-warn small", "data-testid": "air-limit-warning" },
              `${f.num(cooling.racks_over_air_limit)} racks are over the air-cooling limit.`,
            )
          : null,
      ),
      el(
        "div",
        { class: "card" },
        el("h2", {}, "Peak compute"),
        el(
          "div",
          { class: "figure-row" },
          figure("fig-pflops-fp8", "FP8 PFLOPS", peak.fp8, f.num(peak.fp8)),
          figure("fig-pflops-bf16", "BF16 PFLOPS", peak.bf16, f.num(peak.bf16)),
          figure("fig-pflops-fp16", "FP16 PFLOPS", peak.fp16, f.num(peak.fp16)),
        ),
      ),
      el(
        "div",
        { class: "card" },
        el("h2", {}, "Reliability"),
        el(
          "div",
          { class: "figure-row" },
          figure(
            "fig-ettr",
            "Expected ETTR",
            rel.expected_ettr,
            f.pct(rel.expected_ettr, 1),
            "effective training time ratio of a campus-wide job",
          ),
          figure("fig-mttf", "Job MTTF", rel.job_mttf_hours, f.hours(rel.job_mttf_hours)),
        ),
      ),
      riskCard(power, cooling),
      fabricCard(summary.network ?? {}),
    ),
  );

  const buildings = summary.buildings ?? [];
  root.append(
    el("h2", { class: "section-title" }, `Buildings (${buildings.length})`),
    el(
      "section",
      { class: "building-grid", "aria-label": "Buildings" },
      buildings.map((b) =>
        el(
          "article",
          { class: "card building-card", "data-testid": "building-card", "data-building-id": b.id },
          el("h3", {}, el("a", { href: `/campuses/${state.campusId}/map/?building=${b.id}` }, b.name)),
          el(
            "dl",
            { class: "kv" },
            el("dt", {}, "Racks"),
            el("dd", { "data-field": "racks" }, f.num(b.racks)),
            el("dt", {}, "GPUs"),
            el("dd", { "data-field": "gpus" }, f.num(b.gpus)),
            el("dt", {}, "IT load"),
            el("dd", { "data-field": "it_mw" }, f.mw(b.it_mw)),
            el("dt", {}, "Facility"),
            el("dd", { "data-field": "facility_mw" }, f.mw(b.facility_mw)),
            el("dt", {}, "Headroom"),
            el("dd", { "data-field": "headroom_mw", class: b.headroom_mw < 0 ? "bad" : "" }, f.mw(b.headroom_mw)),
          ),
          gpuMix(b.gpus_by_model, "building-gpus"),
        ),
      ),
    ),
  );
  root.setAttribute("aria-busy", "false");
  root.dataset.ready = "true";
}

async function main() {
  const root = document.getElementById("overview");
  try {
    const summary = await api.get(`/api/campuses/${state.campusId}/summary/`);
    render(summary);
  } catch (error) {
    clear(root).append(errorBox(error, "overview-error"));
    root.setAttribute("aria-busy", "false");
    root.dataset.ready = "error";
  }
}

main();
