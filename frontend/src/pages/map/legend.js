// @ts-check
// Colours and legend: racks coloured by the chosen metric (or by what a failure does to them in impact mode), with
// a legend counting the racks of each colour.
import { $, clear, el } from "../../lib/dom.js";
import * as f from "../../lib/format.js";
import { IMPACT, METRICS, NO_DATA } from "../../lib/colors.js";

export function recolor(page) {
  if (!page.scene) return;
  if (page.impact) {
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
  if (page.metric === "temperature") {
    const values = page.replayValues;
    for (const r of page.scene.racks) r.temperature_c = values ? (values.get(r.id) ?? null) : null;
  }
  page.map.setColors((r) => metric.scale.color(metric.value(r)));
  page.map.setHighlight([]);
  const counts = new Map();
  for (const c of page.map.colors) counts.set(c, (counts.get(c) ?? 0) + 1);
  const bins = metric.scale.bins.map((b) => ({ ...b, count: counts.get(b.color) ?? 0 }));
  if (counts.get(NO_DATA)) {
    const label = page.metric === "temperature" && page.replayValues ? "No series (nominal)" : "No data";
    bins.push({ color: NO_DATA, label, count: counts.get(NO_DATA) });
  }
  renderLegend(metric.title + (metric.unit ? ` (${metric.unit})` : ""), bins);
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
