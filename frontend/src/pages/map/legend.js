// @ts-check
// Colours and legend: racks coloured by the chosen metric (or by what a failure does to them in impact mode), with
// a legend counting the racks of each colour.
import { api } from "../../lib/api.js";
import { $, clear, el } from "../../lib/dom.js";
import * as f from "../../lib/format.js";
import { IMPACT, METRICS, NO_DATA } from "../../lib/colors.js";
import { beyondBand, deviationText, isPowerDevice, objectHref } from "../../lib/deviation.js";

export function recolor(page) {
  if (!page.scene) return;
  if (page.impact) {
    page.map.setPlantColors(new Map());
    const kinds = page.impact.kindOf;
    page.map.setColors((r) => IMPACT[kinds.get(r.id) ?? "unaffected"].color);
    page.map.setHighlight(page.scene.racks.flatMap((r, i) => (kinds.has(r.id) ? [i] : [])));
    renderLegend(
      "Impact",
      Object.entries(IMPACT).map(([k, v]) => ({ ...v, count: k === "unaffected" ? null : countIn(page, kinds, k) })),
    );
    return;
  }
  const metric = METRICS[page.metric];
  const live = MEASURED.has(page.metric);
  if (live) annotate(page);
  if (page.metric === "temperature") {
    const values = page.replayValues;
    for (const r of page.scene.racks) r.temperature_c = values ? (values.get(r.id) ?? null) : null;
  }
  page.map.setColors((r) => metric.scale.color(metric.value(r)));
  // on a measured colouring the racks with an alarm are outlined
  page.map.setHighlight(live ? page.scene.racks.flatMap((r, i) => (r.alarm ? [i] : [])) : []);
  const counts = new Map();
  for (const c of page.map.colors) counts.set(c, (counts.get(c) ?? 0) + 1);
  const bins = metric.scale.bins.map((b) => ({ ...b, count: counts.get(b.color) ?? 0 }));
  if (counts.get(NO_DATA)) {
    const label = page.metric === "temperature" && page.replayValues ? "No series (nominal)" : "No data";
    bins.push({ color: NO_DATA, label, count: counts.get(NO_DATA) });
  }
  const devices = page.metric === "deviation" ? colourDevices(page, metric.scale) : null;
  if (!devices) page.map.setPlantColors(new Map());
  renderLegend(metric.title + (metric.unit ? ` (${metric.unit})` : ""), bins);
  if (devices) devicesNote(devices);
  if (live) measuredNote(page);
  if (page.metric === "temperature" && !page.replayValues) {
    $("legend").append(
      el("p", { class: "muted small" }, "Temperatures come from a run: pick one under “Replay a run”."),
    );
  }
}

export function countIn(page, kinds, key) {
  let n = 0;
  for (const [id, k] of kinds) if (k === key && page.byId.has(id)) n += 1;
  return n;
}

function renderLegend(title, bins) {
  const legend = $("legend");
  clear(legend);
  legend.append(
    el("div", { class: "legend-title" }, title),
    el(
      "ul",
      {},
      bins.map((b) =>
        el(
          "li",
          { "data-color": b.color },
          el("i", { class: "swatch", style: { background: b.color } }),
          el("span", {}, b.label),
          b.count != null ? el("span", { class: "legend-count" }, f.num(b.count)) : null,
        ),
      ),
    ),
  );
}

const MEASURED = new Set(["measured_kw", "deviation"]);
const DEVICES_SHOWN = 8; // objects beyond the racks with an alarm listed under the legend, furthest first (in bands)

/** Read GET /measured/ once (racks by id, the rest by kind and name) and recolour when a measured metric is shown. */
export async function loadMeasured(page) {
  let answer;
  try {
    answer = await api.get(`/api/campuses/${page.campusId}/measured/`);
  } catch (error) {
    answer = { objects: [], count: 0, band: 0.1, error: String(error?.message ?? error) };
  }
  page.measured = answer;
  page.measuredByRack = new Map(
    answer.objects.filter((o) => o.object_kind === "rack" && o.object_id != null).map((o) => [o.object_id, o]),
  );
  if (MEASURED.has(page.metric)) recolor(page);
}

/** Each rack of the scene with its measured peak, modelled figure, deviation and alarm (null: not measured). */
function annotate(page) {
  const byRack = page.measuredByRack ?? new Map();
  for (const r of page.scene.racks) {
    const o = byRack.get(r.id);
    r.measured_peak_kw = o?.measured_peak_kw ?? null;
    r.modelled_kw = o?.modelled_kw ?? null;
    r.deviation = o?.deviation ?? null;
    r.alarm = o?.alarm ?? null;
  }
}

/**
 * On the deviation colouring, the power devices drawn take the colour of their own input's deviation (the
 * `power_kw` row of /measured/), grey when not measured, outlined with an alarm.
 * @returns {{measured: number, unmeasured: number, alarms: number} | null}
 */
function colourDevices(page, scale) {
  if (!page.measured) return null;
  const rows = new Map(
    page.measured.objects
      .filter((o) => o.metric === "power_kw" && o.object_id != null && isPowerDevice(o))
      .map((o) => [`${o.object_kind}:${o.object_id}`, o]),
  );
  const colors = new Map();
  const outlined = [];
  const counts = { measured: 0, unmeasured: 0, alarms: 0 };
  for (const p of page.scene.plant ?? []) {
    if (p.type !== "power") continue;
    const o = rows.get(`${p.kind}:${p.id}`);
    colors.set(p.key, scale.color(o?.deviation == null ? null : o.deviation * 100));
    if (o) counts.measured += 1;
    else counts.unmeasured += 1;
    if (o?.alarm) {
      outlined.push(p.key);
      counts.alarms += 1;
    }
  }
  page.map.setPlantColors(colors, outlined);
  return counts;
}

/** @param {{measured: number, unmeasured: number, alarms: number}} d */
function devicesNote(d) {
  $("legend").append(
    el(
      "p",
      {
        class: "small",
        "data-testid": "measured-device-colours",
        "data-measured": d.measured,
        "data-unmeasured": d.unmeasured,
        "data-alarms": d.alarms,
      },
      `Racks and power devices alike: each PDU, UPS and other power device drawn takes the colour of its own ` +
        `input's deviation (${f.num(d.measured)} measured, ${f.num(d.alarms)} with an alarm, outlined; ` +
        `${f.num(d.unmeasured)} not measured, grey).`,
    ),
  );
}

/** Under the measured legend: the racks with an alarm (outlined) and the power devices with one, by name. */
function measuredNote(page) {
  const legend = $("legend");
  if (!page.measured) {
    legend.append(el("p", { class: "muted small" }, "Loading the measurements…"));
    return;
  }
  const racks = page.scene.racks.filter((r) => r.alarm);
  const over = racks.filter((r) => r.alarm === "over").length;
  const devices = page.measured.objects
    .filter((o) => o.alarm && !["rack", "campus", "building", "hall"].includes(o.object_kind))
    .sort((a, b) => beyondBand(b, page.measured) - beyondBand(a, page.measured));
  const shown = devices.slice(0, DEVICES_SHOWN);
  legend.append(
    el(
      "p",
      { class: "small", "data-testid": "measured-alarms", "data-racks": racks.length, "data-devices": devices.length },
      page.measured.count
        ? `Alarms (peak beyond ±${f.pct(page.measured.band)} of the model), outlined: ${f.num(racks.length)} ` +
            `racks here (${f.num(over)} over, ${f.num(racks.length - over)} under). Peak: the highest 5-minute ` +
            "mean of the last 30 days held."
        : "No measurements yet: every rack shows as no data.",
    ),
    devices.length
      ? el(
          "ul",
          { class: "legend-list small", "data-testid": "measured-device-alarms" },
          shown.map((o) =>
            el(
              "li",
              {},
              objectHref(page.campusId, o)
                ? el("a", { href: objectHref(page.campusId, o) }, o.object_name)
                : o.object_name,
              ` (${o.object_kind}${o.metric && o.metric !== "power_kw" ? `, ${f.label(o.metric)}` : ""}): ` +
                `${o.alarm} the model, ${deviationText(o.deviation, o.deviation_unit)}`,
            ),
          ),
          devices.length > shown.length
            ? el("li", { class: "muted" }, `and ${f.num(devices.length - shown.length)} more`)
            : null,
        )
      : null,
  );
}
