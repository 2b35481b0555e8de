// @ts-check
// Compare runs: their summaries side by side against the first (the baseline), and the charts of up to two runs in
// columns with one y range per metric.
import { api, qs } from "../../lib/api.js";
import { $, add, clear, el, errorBox } from "../../lib/dom.js";
import { destroyCharts, timeChart } from "../../lib/charts.js";
import { prioritise, seriesFor } from "./shared.js";
import { loadCatalogue, metricInfo, metricLabel, metricNumber, seriesTitle } from "../../lib/catalogue.js";
import { deltaText, runTitle } from "../../lib/units.js";
import { inputDifferences, inputLabel, inputText } from "../../lib/inputs.js";

export async function compareRuns(page, ids) {
  const box = $("compare-view");
  box.hidden = false;
  delete box.dataset.ready;
  destroyCharts(box);
  clear(box).append(el("p", { class: "loading" }, "Comparing…"));
  box.scrollIntoView({ behavior: "smooth", block: "start" });
  try {
    const [data] = await Promise.all([api.get(`/api/runs/compare/${qs({ ids: ids.join(",") })}`), loadCatalogue()]);
    const kind = data.runs[0]?.kind;
    clear(box);
    add(
      box,
      el(
        "div",
        { class: "card-head" },
        el("h2", {}, `Compare ${data.runs.map((r) => runTitle(r)).join(" with ")}`),
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
        `Baseline: run ${data.baseline}. Δ is the change of the mean: in % of the baseline's, in points for a ` +
          "percentage, and in the metric's unit where the baseline is zero or the mean crossed zero. " +
          "“better” or “worse” where the 95 % " +
          "intervals do not overlap and the metric has a direction; “apart” where they do not overlap but more is " +
          "neither better nor worse.",
      ),
      campusStateNote(data.campus_state),
      inputsTable(data.runs, data.inputs),
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
          data.runs.map((r) => el("th", { class: "num" }, runTitle(r))),
        ),
      ),
      el(
        "tbody",
        {},
        Object.entries(data.metrics).map(([name, entries]) =>
          el(
            "tr",
            { "data-metric": name },
            el("td", { title: metricInfo(kind, name).description || null }, metricLabel(kind, name)),
            entries.map((e) => {
              const s = e.stats ?? {};
              const d = e.vs_baseline;
              const verdict = d ? judge(d, metricInfo(kind, name).higher_is_better) : null;
              return el(
                "td",
                { class: "num" },
                metricNumber(kind, name, s.mean),
                d
                  ? el(
                      "div",
                      { class: `small ${verdict?.cls ?? "muted"}`, "data-testid": "delta" },
                      deltaText({ baseline: s.mean - d.mean_delta, mean: s.mean, unit: metricInfo(kind, name).unit }),
                      verdict ? ` ${verdict.text}` : "",
                    )
                  : null,
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
      const col = el("div", { "data-testid": "compare-column", "data-run-id": r.id }, el("h3", {}, runTitle(r)));
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
        const { title, scale } = seriesTitle(kind, d);
        const scaled = (xs) => (xs ? xs.map((x) => (x == null ? x : x * scale)) : xs);
        timeChart(columns[i], {
          title,
          series: [
            { label: runTitle(r), t: d.t_hours, values: scaled(d.values), p5: scaled(d.p5), p95: scaled(d.p95) },
          ],
          yRange: [(lo - pad) * scale, (hi + pad) * scale],
          testid: "compare-chart",
        });
      });
    });
    box.dataset.ready = "true";
  } catch (error) {
    clear(box).append(errorBox(error, "compare-error"));
  }
}

// Whether the runs computed on the same campus: a warning where the campus changed between them (their
// differences may then come from the campus, not only from the scenario), a plain note where it is not known.
function campusStateNote(state) {
  if (!state?.note) return null;
  return el(
    "p",
    { class: `notice small${state.same === false ? " notice-warn" : ""}`, "data-testid": "compare-campus-state" },
    state.note,
  );
}

// The inputs in which the runs differ (parameters, replicas, seed, campus date), so a difference in the
// results can be read against its cause: the API's list (which leaves out the seed of deterministic runs), or
// worked out here from the runs' inputs for an answer without one.
function inputsTable(runs, inputs) {
  const rows = Array.isArray(inputs)
    ? inputs.map((/** @type {{path: string, label?: string | null, values: unknown[]}} */ r) => ({
        ...r,
        label: r.label || inputLabel(r.path),
      }))
    : inputDifferences(runs);
  if (!rows.length)
    return el("p", { class: "muted small", "data-testid": "compare-inputs" }, "The runs have the same inputs.");
  return el(
    "table",
    { class: "table compact compare-inputs", "data-testid": "compare-inputs" },
    el("caption", {}, "Inputs that differ"),
    el(
      "thead",
      {},
      el(
        "tr",
        {},
        el("th", { scope: "col" }, "Input"),
        runs.map((r) => el("th", { scope: "col" }, runTitle(r))),
      ),
    ),
    el(
      "tbody",
      {},
      rows.map((row) =>
        el(
          "tr",
          { "data-input": row.path },
          el("th", { scope: "row" }, row.label),
          row.values.map((v) => el("td", {}, inputText(v))),
        ),
      ),
    ),
  );
}

// Better or worse only where the intervals are apart and the catalogue gives the metric a direction; no arrow
// and no tick where more is neither better nor worse.
function judge(d, higherIsBetter) {
  if (!d.significant || !d.mean_delta) return null;
  if (higherIsBetter === null || higherIsBetter === undefined) return { text: "(apart)", cls: "muted" };
  const better = d.mean_delta > 0 === higherIsBetter;
  return better ? { text: "▲ better", cls: "good" } : { text: "▼ worse", cls: "bad" };
}
