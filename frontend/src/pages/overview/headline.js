// @ts-check
// The headline section: GPUs by model, power against the grid connection, efficiency and cost, headroom, peak
// compute, reliability, then the risk and fabric cards.
import { el } from "../../lib/dom.js";
import * as f from "../../lib/format.js";
import { figureInfo, figureText } from "../../lib/figures.js";
import { fabricCard } from "./fabric.js";
import { designCard } from "./design.js";
import { riskCard } from "./risks.js";
import { bindingText, figure, gpuMix, meter } from "./widgets.js";

/**
 * @param {Record<string, any>} summary
 * @param {{kind: string, capacity_kw?: number}[]} [plants] the campus's cooling plants
 * @param {string} [description] the campus description
 * @param {Record<string, any>[] | null} [levels] ``GET /redundancy/``'s levels, for the risk card
 */
export function headline(summary, plants = [], description = "", levels = null) {
  const inv = summary.inventory ?? {};
  const power = summary.power ?? {};
  const cooling = summary.cooling ?? {};
  const compute = summary.compute ?? {};
  const rel = summary.reliability ?? {};
  const peak = compute.peak_pflops ?? {};
  // The whole cooling chain's spare: units and plant loops, the smaller of the two where a loop feeds units (0
  // while a pool or loop is short). The units' capacity alone would miss a plant loop that is full.
  const coolingHeadroom = cooling.spare_mw ?? null;
  // The grid connection is sized for the peak hour, not the year's mean.
  const peakFacility = power.peak_facility_mw ?? power.facility_mw;
  const gridUse = power.grid_capacity_mw && peakFacility != null ? peakFacility / power.grid_capacity_mw : null;
  const unassigned = Object.entries(cooling.unassigned_by_reason_mw ?? {})
    .map(([reason, mw]) => `${f.mw(mw)} ${reason}`)
    .join("; ");

  return el(
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
          figure(
            "fig-it-mw",
            "IT load",
            power.it_mw,
            figureText("power.it_mw", power.it_mw),
            null,
            "IT load of the campus: servers, network fabric and other IT (the floor map's campus IT load)",
          ),
          figure(
            "fig-facility-mw",
            "Facility",
            power.facility_mw,
            figureText("power.facility_mw", power.facility_mw),
            gridUse != null
              ? `peak ${figureText("power.peak_facility_mw", peakFacility)}, ${f.pct(gridUse)} of the grid connection`
              : null,
          ),
          figure(
            "fig-grid-mw",
            figureInfo("power.grid_capacity_mw").label,
            power.grid_capacity_mw,
            figureText("power.grid_capacity_mw", power.grid_capacity_mw),
          ),
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
        figure(
          "fig-pue",
          "PUE",
          power.pue,
          figureText("power.pue", power.pue),
          power.pue_source === "override" ? "typed design PUE" : null,
          "Annual energy-weighted PUE: facility energy over IT energy, hour by hour in the campus's weather " +
            "(a typed design PUE replaces it)",
        ),
        figure(
          "fig-cost",
          "Energy cost / year",
          power.annual_cost_usd,
          f.usd(power.annual_cost_usd),
          `${f.energy(power.annual_energy_twh)} / year`,
        ),
      ),
      power.pue_below_plant_model
        ? el(
            "p",
            { class: "small note-bad", "data-testid": "fig-pue-plant", "data-value": power.plant_model_pue },
            `The typed PUE is below the plant model's ${f.num(power.plant_model_pue, 2)} in this campus's ` +
              `weather (facility ${f.mw(power.plant_model_facility_mw)}, not ${f.mw(power.facility_mw)}): ` +
              "facility power, energy and cost are understated.",
          )
        : null,
    ),
    el(
      "div",
      { class: "card" },
      el("h2", {}, "Headroom"),
      el(
        "div",
        { class: "figure-row" },
        figure(
          "fig-power-headroom",
          figureInfo("power.grid_headroom_mw").label,
          power.grid_headroom_mw,
          figureText("power.grid_headroom_mw", power.grid_headroom_mw),
          null,
          "The grid connection less the facility's peak hour (not its annual mean): what the connection has left " +
            "in the worst hour of the year",
        ),
        figure(
          "fig-failover-headroom",
          figureInfo("power.headroom_after_failover_mw").label,
          power.headroom_after_failover_mw,
          figureText("power.headroom_after_failover_mw", power.headroom_after_failover_mw),
          bindingText(power.headroom_binding),
          "IT load that can be added with the design redundancy intact: IT addable after the worst single failure " +
            "(2N: either side alone carries everything; N+1: any one unit lost), spread over the racks as today's " +
            "load is. New racks in one place may fit less: the placement query checks a place",
        ),
        figure(
          "fig-cooling-headroom",
          "Cooling spare",
          coolingHeadroom,
          figureText("cooling.spare_mw", coolingHeadroom),
          `${f.mw(cooling.unit_spare_mw)} at the units, ${f.mw(cooling.plant_spare_mw)} at the plants` +
            (cooling.capacity_redundancy ? ` (${cooling.capacity_redundancy})` : ""),
          "Heat that can be added with the declared cooling redundancy intact (N+1: the largest unit or chiller " +
            "of each group lost; 2N: half of it): the units' and the plant loops' spare, the smaller where a " +
            "loop feeds the units; 0 while any pool or loop is short",
        ),
        figure(
          "fig-heat-mw",
          figureInfo("cooling.heat_load_mw").label,
          cooling.heat_load_mw,
          figureText("cooling.heat_load_mw", cooling.heat_load_mw),
          power.it_mw ? `${f.pct(cooling.heat_load_mw / power.it_mw, 1)} of the IT load` : null,
        ),
      ),
      cooling.racks_over_air_limit
        ? el(
            "p",
            { class: "notice notice-warn small", "data-testid": "air-limit-warning" },
            `${f.num(cooling.racks_over_air_limit)} racks are over the air-cooling limit.`,
          )
        : null,
      cooling.unassigned_heat_mw > 0
        ? el(
            "p",
            { class: "notice notice-warn small", "data-testid": "unassigned-heat-warning" },
            `${f.mw(cooling.unassigned_heat_mw)} of heat reaches no cooling unit: ${unassigned}.`,
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
      syncNote(compute),
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
          compute.ettr,
          f.pct(compute.ettr, 1),
          `effective training time ratio of ${rel.headline?.basis ?? "the campus's jobs"}`,
        ),
        figure(
          "fig-ettr-campus",
          "Campus-wide job ETTR",
          rel.expected_ettr,
          f.pct(rel.expected_ettr, 1),
          "one synchronous job over every GPU of the campus",
        ),
        figure("fig-mttf", "Campus-wide job MTTF", rel.job_mttf_hours, f.hours(rel.job_mttf_hours)),
      ),
      jobsNote(rel.headline),
      rateSetsNote(rel),
    ),
    designCard(summary, plants, description),
    riskCard(power, cooling, summary.risks ?? [], levels),
    fabricCard(summary.network ?? {}),
  );
}

// A job over several GPU models: the split-by-speed figure beside one synchronous job at the slowest model's pace.
// Both are effective training throughput, peak × MFU × the declared jobs' ETTR (compute.ettr).
function syncNote(compute) {
  const sync = compute.effective_pflops_synchronous?.bf16;
  const bySpeed = compute.effective_pflops?.bf16;
  const pace = compute.pace_gpu_model?.bf16;
  if (sync == null || bySpeed == null || !pace) return null;
  return el(
    "p",
    { class: "small", "data-testid": "sync-pace" },
    `Effective BF16 (peak × MFU × ETTR): ${f.num(bySpeed)} PFLOPS with work split by chip speed, ` +
      `${f.num(sync)} PFLOPS for one synchronous job at the pace of ${pace}.`,
  );
}

// Which jobs the headline's ETTR is for (one per island by default), each job's ETTR and recovery, and in
// words why the ETTR is low when it is.
function jobsNote(head) {
  const jobs = head?.jobs ?? [];
  if (!jobs.length) return null;
  const shown = jobs.slice(0, 6).map((j) => `${j.name}: ${f.num(j.gpus)} GPUs, ETTR ${f.pct(j.expected_ettr, 1)}`);
  if (jobs.length > shown.length) shown.push(`${jobs.length - shown.length} more`);
  const first = jobs[0];
  const recovery =
    `checkpoint ${f.num(first.checkpoint_minutes)} min (${first.checkpoint_minutes_source}), ` +
    `restart ${f.num(first.restart_minutes)} min (${first.restart_minutes_source})`;
  return el(
    "div",
    { "data-testid": "ettr-jobs" },
    el("p", { class: "small" }, `ETTR and effective compute for ${head.basis}: ${shown.join(" · ")}; ${recovery}.`),
    workloadNote(first),
    head.note ? el("p", { class: "small warn", "data-testid": "ettr-note" }, head.note) : null,
  );
}

// What the first job trains (its preset workload, docs/training.md) and the MFU the step-time model gives it.
function workloadNote(job) {
  const w = job?.training?.workload;
  if (!w) return null;
  const mfu = job.training.mfu?.bf16;
  const ck = job.training.checkpoint;
  const shared = ck?.storage_jobs > 1 ? `, shared by ${ck.storage_jobs} jobs checkpointing together` : "";
  const bound = ck ? `; checkpoint bound by the ${ck.write_bound} (${ck.storage}${shared})` : "";
  return el(
    "p",
    { class: "small", "data-testid": "job-workload" },
    `${job.name} trains ${w.model} on ${f.num(w.gpus)} GPUs` +
      (mfu == null ? "" : ` at ${f.pct(mfu, 1)} BF16 MFU (step-time model)`) +
      `${bound}.`,
  );
}

// Which failure-rate data set each GPU model is charged, and whether it borrows another generation's.
function rateSetsNote(rel) {
  const models = Object.entries(rel.datasets_by_model ?? {});
  if (!models.length) return null;
  const parts = models.map(([slug, m]) => `${slug}: ${m.dataset ?? "none"}${m.fallback ? " (borrowed)" : ""}`);
  return el("p", { class: "small", "data-testid": "rate-sets" }, `Failure rates: ${parts.join(" · ")}`);
}
