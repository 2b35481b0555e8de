// @ts-check
// Replays a finished run's per-rack temperature series on the floor map: a slider over the run's time axis.
import { api, qs } from "./api.js";
import { clear, el } from "./dom.js";
import * as f from "./format.js";
import { kindLabel, loadCatalogue } from "./catalogue.js";
import { runTitle } from "./units.js";

const FETCH_CONCURRENCY = 6;

/** Names of per-rack series among a run's metrics: "rack.<id>.<quantity>" (also rack:<id>:… or rack_<id>_…). */
export function rackSeriesMetrics(names) {
  return names.filter((n) => /^rack[._:]\d+[._:]/.test(n));
}

function parseRackMetric(name) {
  const m = /^rack[._:](\d+)[._:](.+)$/.exec(name);
  return m ? { rackId: Number(m[1]), quantity: m[2] } : null;
}

/** Runs `work` over `items`, a few at a time. */
async function pool(items, work, size = FETCH_CONCURRENCY) {
  const out = new Array(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await work(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(size, items.length) }, lane));
  return out;
}

export class Replay {
  constructor(state, ui) {
    this.state = state;
    this.ui = ui;
    this.series = null;
    this.timer = null;
    ui.select.addEventListener("change", () => this.choose(ui.select.value));
    ui.slider.addEventListener("input", () => this.show(Number(ui.slider.value)));
    ui.play.addEventListener("click", () => this.toggle());
  }

  async init(runId) {
    const [page] = await Promise.all([
      api.get(
        `/api/runs/${qs({ campus: this.state.campusId, status: "succeeded", ordering: "-created", limit: 100 })}`,
      ),
      loadCatalogue(),
    ]);
    const finished = page.results ?? page;
    clear(this.ui.select).append(el("option", { value: "" }, finished.length ? "No run" : "No finished runs yet"));
    for (const r of finished) {
      // "Run 12 · CDU loss · Liquid cooling loss": named as everywhere else, the kind by its label, not its key
      this.ui.select.append(el("option", { value: r.id }, `${runTitle(r)}${r.kind ? ` · ${kindLabel(r.kind)}` : ""}`));
    }
    if (runId && finished.some((r) => r.id === runId)) {
      this.ui.select.value = String(runId);
      await this.choose(String(runId));
    }
  }

  async choose(value) {
    this.stop();
    this.series = null;
    this.ui.controls.hidden = true;
    this.ui.note.textContent = "";
    if (!value) {
      this.ui.onValues(null);
      return;
    }
    const mine = (this.token = Symbol("replay"));
    this.ui.note.textContent = "Loading the run's per-rack series…";
    try {
      const index = await api.get(`/api/runs/${value}/timeseries/`);
      const parsed = rackSeriesMetrics(index.metrics ?? []).map((name) => ({ name, ...parseRackMetric(name) }));
      // One quantity per rack; a temperature when the run has one.
      const quantities = [...new Set(parsed.map((p) => p.quantity))];
      const quantity = quantities.find((q) => q.includes("temp")) ?? quantities[0];
      const wanted = parsed.filter((p) => p.quantity === quantity);
      if (!wanted.length) {
        this.ui.note.textContent = "This run has no per-rack series to replay.";
        this.ui.onValues(null);
        return;
      }
      const answers = await pool(wanted, (p) => api.get(`/api/runs/${value}/timeseries/${qs({ metric: p.name })}`));
      if (mine !== this.token) return;
      const t = answers[0].t_hours ?? [];
      const racks = new Map();
      wanted.forEach((p, i) => racks.set(p.rackId, { t: answers[i].t_hours ?? t, values: answers[i].values ?? [] }));
      this.series = { t, racks, quantity };
    } catch (error) {
      this.ui.note.textContent = `Could not load the run: ${error.message}`;
      this.ui.onValues(null);
      return;
    }
    const quantity = f.label(this.series.quantity);
    const span = f.hours(this.series.t.at(-1) ?? 0);
    this.ui.note.textContent =
      `${f.num(this.series.racks.size)} racks (${quantity}) over ${span}; ` +
      "racks without a series kept their nominal state.";
    this.ui.slider.max = String(Math.max(0, this.series.t.length - 1));
    this.ui.slider.value = "0";
    this.ui.controls.hidden = false;
    this.show(0, true);
  }

  show(step, first = false) {
    if (!this.series) return;
    const at = this.series.t[step] ?? 0;
    const values = new Map();
    for (const [id, { t, values: v }] of this.series.racks) values.set(id, v[nearest(t, at)] ?? null);
    this.ui.time.textContent = f.hours(at);
    this.ui.slider.setAttribute("aria-valuetext", f.hours(at));
    this.ui.onValues(values, first);
  }

  toggle() {
    if (this.timer) this.stop();
    else {
      this.ui.play.textContent = "Pause";
      this.timer = setInterval(() => {
        const next = (Number(this.ui.slider.value) + 1) % (Number(this.ui.slider.max) + 1);
        this.ui.slider.value = String(next);
        this.show(next);
      }, 250);
    }
  }

  stop() {
    clearInterval(this.timer);
    this.timer = null;
    this.ui.play.textContent = "Play";
  }
}

function nearest(t, at) {
  let lo = 0;
  let hi = t.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (t[mid] < at) lo = mid + 1;
    else hi = mid;
  }
  return lo > 0 && Math.abs(t[lo - 1] - at) < Math.abs(t[lo] - at) ? lo - 1 : lo;
}
