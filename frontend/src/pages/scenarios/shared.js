// @ts-check
// What several features of the scenarios page show the same way.
import { api } from "../../lib/api.js";
import { el } from "../../lib/dom.js";
import { rackSeriesMetrics } from "../../lib/replay.js";

export function statusBadge(r) {
  return el("span", { class: `status status-${r.status}`, "data-testid": "run-status" }, r.status);
}

// Charts people look at first: power, temperature, throughput, then the rest.
export function prioritise(names) {
  const rank = (n) => {
    const order = [/power|_kw|_mw/, /temp/, /throughput|goodput|tflops|ettr/, /cost|energy/];
    const i = order.findIndex((re) => re.test(n));
    return i < 0 ? order.length : i;
  };
  return [...names].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

/** A run's series: all of them, and the plain ones (not per rack) that the page charts. */
export async function seriesFor(runId) {
  const index = await api.get(`/api/runs/${runId}/timeseries/`);
  const metrics = index.metrics ?? [];
  const plain = metrics.filter((m) => !rackSeriesMetrics([m]).length);
  return { all: metrics, plain };
}
