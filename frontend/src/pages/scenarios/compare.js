// Compare runs: their summaries side by side against the first (the baseline), and the charts of up to two runs in
// columns with one y range per metric.
import { api, qs } from "../../lib/api.js";
import { $, clear, el, errorBox } from "../../lib/dom.js";
import { destroyCharts, timeChart } from "../../lib/charts.js";
import * as f from "../../lib/format.js";
import { prioritise, seriesFor } from "./shared.js";

export async function compareRuns(page, ids) {
  const box = $("compare-view");
  box.hidden = false;
  delete box.dataset.ready;
  destroyCharts(box);
  clear(box).append(el("p", { class: "loading" }, "Comparing…"));
  box.scrollIntoView({ behavior: "smooth", block: "start" });
  try {
    const data = await api.get(`/api/runs/compare/${qs({ ids: ids.join(",") })}`);
    clear(box);
    box.append(
      el(
        "div",
        { class: "card-head" },
        el("h2", {}, `Compare runs ${data.runs.map((r) => `#${r.id}`).join(" vs ")}`),
        el(
          "button",
          {
            type: "button",
            class: "icon-button",
            "aria-label": "Close comparison",
            onclick: () => ((box.hidden = true), destroyCharts(box)),
          },
          "×",
        ),
      ),
      el(
        "p",
        { class: "muted small" },
        `Baseline #${data.baseline}; Δ is the difference of the means; ✔ where the 95 % intervals do not overlap.`,
      ),
    );
    const table = el(
      "table",
      { class: "table compact", "data-testid": "compare-table" },
      el(
        "thead",
        {},
        el(
          "tr",
          {},
          el("th", {}, "Metric"),
          data.runs.map((r) => el("th", { class: "num" }, `#${r.id} ${r.scenario_name}`)),
        ),
      ),
      el(
        "tbody",
        {},
        Object.entries(data.metrics).map(([name, entries]) =>
          el(
            "tr",
            { "data-metric": name },
            el("td", {}, f.label(name)),
            entries.map((e) => {
              const s = e.stats ?? {};
              const d = e.vs_baseline;
              return el(
                "td",
                { class: "num" },
                f.num(s.mean, Math.abs(s.mean ?? 0) < 10 ? 3 : 1),
                d ? el("div", { class: `small ${d.significant ? "bad" : "muted"}` }, deltaText(d)) : null,
              );
            }),
          ),
        ),
      ),
    );
    box.append(table);
    // Side by side: each run's charts in its own column, one y range per metric so the eye can compare.
    const grid = el("div", { class: "compare-grid" });
    box.append(grid);
    const pair = data.runs.slice(0, 2);
    const lists = await Promise.all(pair.map((r) => seriesFor(r.id).then((s) => s.plain)));
    const shared = prioritise(lists[0].filter((m) => lists.slice(1).every((l) => l.includes(m)))).slice(0, 4);
    const series = await Promise.all(
      pair.map((r) => Promise.all(shared.map((m) => api.get(`/api/runs/${r.id}/timeseries/${qs({ metric: m })}`)))),
    );
    const columns = pair.map((r) => {
      const col = el(
        "div",
        { "data-testid": "compare-column", "data-run-id": r.id },
        el("h3", {}, `#${r.id} ${r.scenario_name}`),
      );
      grid.append(col);
      return col;
    });
    shared.forEach((metric, k) => {
      const all = series
        .flatMap((s) => [...(s[k].p5 ?? []), ...(s[k].p95 ?? []), ...s[k].values])
        .filter((v) => v != null);
      const lo = Math.min(...all);
      const hi = Math.max(...all);
      const pad = (hi - lo) * 0.05 || Math.abs(hi) * 0.05 || 1;
      pair.forEach((r, i) => {
        const d = series[i][k];
        timeChart(columns[i], {
          title: f.label(metric),
          series: [{ label: `#${r.id}`, t: d.t_hours, values: d.values, p5: d.p5, p95: d.p95 }],
          yRange: [lo - pad, hi + pad],
          testid: "compare-chart",
        });
      });
    });
    box.dataset.ready = "true";
  } catch (error) {
    clear(box).append(errorBox(error, "compare-error"));
  }
}

// The difference from the baseline: in % of it when the baseline is not zero, else absolute; ✔ when the 95%
// intervals are apart.
function deltaText(d) {
  const sign = d.mean_delta_pct > 0 ? "+" : "";
  const delta = d.mean_delta_pct != null ? `${sign}${f.num(d.mean_delta_pct, 1)} %` : f.num(d.mean_delta, 3);
  return `Δ ${delta}${d.significant ? " ✔" : ""}`;
}
