// Replays a finished run's per-rack temperature series on the floor map: a slider over the run's time axis.
import { api, qs } from "./api.js";
import { clear, el } from "./dom.js";
import * as f from "./format.js";

// Per-rack series the engine may record, best first.
export const RACK_METRICS = ["rack_temp_c", "rack_inlet_temp_c", "rack_gpu_temp_c", "rack_coolant_temp_c"];

/** {t: number[], racks: Map(rackId -> number[])} from a timeseries answer, or null when it has no per-rack data. */
export function perRackSeries(data) {
  if (!data) return null;
  const t = data.t_hours ?? data.t ?? data.time_hours ?? null;
  const src = data.racks ?? data.by_rack ?? data.per_rack ?? (data.series && !Array.isArray(data.series) ? data.series : null);
  if (!t || !src || typeof src !== "object") return null;
  const racks = new Map();
  for (const [id, values] of Object.entries(src)) {
    if (Array.isArray(values)) racks.set(Number(id), values);
  }
  return racks.size ? { t, racks } : null;
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
    const runs = await api.all(`/api/runs/${qs({ campus: this.state.campusId })}`);
    const finished = runs.filter((r) => r.status === "succeeded");
    clear(this.ui.select).append(el("option", { value: "" }, finished.length ? "No run" : "No finished runs yet"));
    for (const r of finished) {
      this.ui.select.append(el("option", { value: r.id }, `#${r.id} ${r.scenario_name ?? r.scenario?.name ?? ""} (${f.dateTime(r.finished ?? r.created)})`.trim()));
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
    this.ui.note.textContent = "Loading the run's per-rack series…";
    for (const metric of RACK_METRICS) {
      try {
        const data = await api.get(`/api/runs/${value}/timeseries/${qs({ metric })}`);
        const series = perRackSeries(data);
        if (series) {
          this.series = series;
          break;
        }
      } catch {
        // try the next metric name
      }
    }
    if (!this.series) {
      this.ui.note.textContent = "This run has no per-rack series to replay.";
      this.ui.onValues(null);
      return;
    }
    this.ui.note.textContent = `${f.num(this.series.racks.size)} racks over ${f.hours(this.series.t.at(-1) ?? 0)}.`;
    this.ui.slider.max = String(this.series.t.length - 1);
    this.ui.slider.value = "0";
    this.ui.controls.hidden = false;
    this.show(0);
  }

  show(step) {
    if (!this.series) return;
    const values = new Map();
    for (const [id, arr] of this.series.racks) values.set(id, arr[Math.min(step, arr.length - 1)]);
    this.ui.time.textContent = f.hours(this.series.t[step] ?? 0);
    this.ui.onValues(values);
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

/** Names of per-rack series among a run's metrics: "rack.<id>.<quantity>" (or rack:<id>:..., rack_<id>_...). */
export function rackSeriesMetrics(names) {
  return names.filter((n) => /^rack[._:]\d+[._:]/.test(n));
}
