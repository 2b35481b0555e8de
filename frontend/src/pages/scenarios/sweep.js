// @ts-check
// Sweeps: the form section that picks one or two parameters and their values, and a finished sweep's results —
// a chosen metric against the swept parameter with its 95 % confidence band (one line per value of a second
// parameter), and the table of every point.
import { clear, el } from "../../lib/dom.js";
import { destroyCharts, sweepChart } from "../../lib/charts.js";
import { resolve } from "../../lib/schema.js";
import { loadCatalogue, metricLabel, metricNumber, metricShown } from "../../lib/catalogue.js";
import { label as niceLabel } from "../../lib/format.js";
import { prioritise } from "./shared.js";

const MAX_PARAMETERS = 2;

/** The scalar parameters of a kind one can sweep: [{path, label, type, choices}], nested ones included
 * (a list's first entry when the defaults have one). */
export function sweepableParameters(schema, defaults) {
  const out = [];
  const walk = (node, path, labels, value) => {
    const s = resolve(node, schema);
    const options = (s.anyOf ?? [s]).map((o) => resolve(o, schema)).filter((o) => o.type !== "null");
    const title = node.title ?? s.title ?? niceLabel(path.split(/[.[]/).pop());
    const obj = options.find((o) => o.properties);
    if (obj) {
      for (const [key, sub] of Object.entries(obj.properties))
        walk(sub, path ? `${path}.${key}` : key, [...labels, sub.title ?? niceLabel(key)], value?.[key]);
      return;
    }
    const arr = options.find((o) => o.type === "array" && o.items && resolve(o.items, schema).properties);
    if (arr) {
      if (Array.isArray(value) && value.length)
        walk(arr.items, `${path}[0]`, [...labels.slice(0, -1), `${labels.at(-1)} #1`], value[0]);
      return;
    }
    const enums = options.flatMap((o) => o.enum ?? (o.const !== undefined ? [o.const] : []));
    const types = new Set(options.map((o) => o.type));
    let type = null;
    if (types.has("number")) type = "number";
    else if (types.has("integer")) type = "integer";
    else if (types.has("boolean")) type = "boolean";
    else if (enums.length || types.has("string")) type = "string";
    if (!type || types.has("array") || types.has("object")) return;
    out.push({ path, label: labels.join(" › ") || title, type, choices: enums });
  };
  for (const [key, sub] of Object.entries(schema.properties ?? {}))
    walk(sub, key, [sub.title ?? niceLabel(key)], defaults?.[key]);
  return out;
}

function parseValue(text, p) {
  const t = text.trim();
  const type = p?.type;
  if (p?.choices?.includes(t)) return t;
  if (type === "number" || type === "integer") return t === "" ? NaN : Number(t);
  if (type === "boolean") return t === "true" ? true : t === "false" ? false : t;
  return t;
}

/** The sweep section of the scenario form; ``value()`` is the request's sweep (null when off). */
export class SweepSection {
  constructor(container, kind, defaults) {
    this.parameters = sweepableParameters(kind.schema, defaults);
    this.byPath = Object.fromEntries(this.parameters.map((p) => [p.path, p]));
    this.rows = [];
    this.enabled = el("input", { type: "checkbox", id: "sweep-on", "data-testid": "sweep-on" });
    this.rowsBox = el("div", { class: "sweep-rows", hidden: true, "data-testid": "sweep-rows" });
    this.add = el(
      "button",
      { type: "button", class: "button-quiet", "data-testid": "sweep-add", onclick: () => this.addRow() },
      "Add a second parameter",
    );
    this.error = el("div", { class: "field-error", hidden: true, id: "sweep-error", "data-testid": "sweep-error" });
    this.enabled.onchange = () => {
      this.rowsBox.hidden = !this.enabled.checked;
      if (this.enabled.checked && !this.rows.length) this.addRow();
    };
    container.append(
      el(
        "fieldset",
        { class: "sweep", "data-testid": "sweep-section" },
        el("legend", {}, "Sweep"),
        el(
          "div",
          { class: "field inline" },
          this.enabled,
          el("label", { for: "sweep-on" }, "Run this scenario at every value of one or two parameters"),
        ),
        el(
          "div",
          { class: "field-help" },
          "Each point runs the replicas above, on the same seeds; the result charts a metric against the " +
            "parameter with its 95 % confidence band.",
        ),
        this.rowsBox,
        this.error,
      ),
    );
    this.rowsBox.append(this.add);
  }

  addRow() {
    if (this.rows.length >= MAX_PARAMETERS) return;
    const i = this.rows.length;
    const id = (s) => `sweep-${i}-${s}`;
    const select = el(
      "select",
      { id: id("name"), "data-testid": `sweep-name-${i}` },
      this.parameters.map((p) => el("option", { value: p.path }, p.label)),
    );
    const mode = el(
      "select",
      { id: id("mode"), "data-testid": `sweep-mode-${i}` },
      el("option", { value: "values" }, "List of values"),
      el("option", { value: "range" }, "Evenly spaced range"),
    );
    const values = el("input", { id: id("values"), "data-testid": `sweep-values-${i}`, placeholder: "30, 60, 120" });
    const start = el("input", { id: id("start"), type: "number", step: "any", "data-testid": `sweep-start-${i}` });
    const stop = el("input", { id: id("stop"), type: "number", step: "any", "data-testid": `sweep-stop-${i}` });
    const num = el("input", {
      id: id("num"),
      type: "number",
      min: 2,
      step: 1,
      value: 5,
      "data-testid": `sweep-num-${i}`,
    });
    const help = el("div", { class: "field-help", id: id("help") });
    const error = el("div", { class: "field-error", hidden: true, id: id("error"), "data-testid": `sweep-error-${i}` });
    const listBox = el(
      "div",
      { class: "field" },
      el("label", { for: id("values") }, "Values (comma separated)"),
      values,
    );
    const rangeBox = el(
      "div",
      { class: "form-grid" },
      el("div", { class: "field" }, el("label", { for: id("start") }, "From"), start),
      el("div", { class: "field" }, el("label", { for: id("stop") }, "To"), stop),
      el("div", { class: "field" }, el("label", { for: id("num") }, "Values (both ends included)"), num),
    );
    const row = { select, mode, values, start, stop, num, error };
    const refresh = () => {
      const p = this.byPath[select.value];
      const numeric = p && (p.type === "number" || p.type === "integer");
      mode.disabled = !numeric;
      if (!numeric) mode.value = "values";
      // style, not the hidden attribute: the grid's own display rule would win over it
      listBox.style.display = mode.value === "values" ? "" : "none";
      rangeBox.style.display = mode.value === "range" ? "" : "none";
      const words = (p?.choices ?? []).join(", ");
      if (numeric) help.textContent = `Numbers, e.g. 30, 60, 120${words ? ` (or: ${words})` : ""}`;
      else if (p?.type === "boolean") help.textContent = "true, false";
      else help.textContent = words ? `One or more of: ${words}` : "";
    };
    select.onchange = refresh;
    mode.onchange = refresh;
    const defaultPath = this.parameters.find((p) => p.type === "number")?.path;
    if (i === 0 && defaultPath) select.value = defaultPath;
    refresh();
    this.rowsBox.insertBefore(
      el(
        "div",
        { class: "sweep-row", "data-testid": `sweep-row-${i}` },
        el(
          "div",
          { class: "form-grid" },
          el("div", { class: "field" }, el("label", { for: id("name") }, `Parameter ${i + 1}`), select),
          el("div", { class: "field" }, el("label", { for: id("mode") }, "Values as"), mode),
        ),
        listBox,
        rangeBox,
        help,
        error,
      ),
      this.add,
    );
    this.rows.push(row);
    this.add.hidden = this.rows.length >= MAX_PARAMETERS;
  }

  value() {
    if (!this.enabled.checked) return null;
    return {
      parameters: this.rows.map((row) => {
        const p = this.byPath[row.select.value];
        if (row.mode.value === "range")
          return {
            name: row.select.value,
            start: Number(row.start.value),
            stop: Number(row.stop.value),
            num: Number(row.num.value),
          };
        const values = row.values.value
          .split(",")
          .filter((t) => t.trim() !== "")
          .map((t) => parseValue(t, p));
        return { name: row.select.value, values };
      }),
    };
  }

  /** Checks before the request; false (and the rows marked) when something needs fixing. */
  validate() {
    this.showErrors({});
    if (!this.enabled.checked) return true;
    const errors = {};
    this.value().parameters.forEach((p, i) => {
      if (p.values) {
        if (!p.values.length) errors[`sweep.parameters[${i}].values`] = "Give at least one value.";
        else if (p.values.some((v) => typeof v === "number" && !Number.isFinite(v)))
          errors[`sweep.parameters[${i}].values`] = "Every value must be a number.";
      } else if (![p.start, p.stop].every(Number.isFinite) || !(Number.isInteger(p.num) && p.num >= 2)) {
        errors[`sweep.parameters[${i}]`] = "Give a start, a stop and a whole number of at least 2 values.";
      }
    });
    return this.showErrors(errors).length === 0 && Object.keys(errors).length === 0;
  }

  /** The API's sweep errors ({"sweep.parameters[0].values[1]": message}) on their rows; returns the rest. */
  showErrors(fields) {
    for (const row of this.rows) {
      row.error.hidden = true;
      row.error.textContent = "";
    }
    this.error.hidden = true;
    this.error.textContent = "";
    const rest = [];
    for (const [path, message] of Object.entries(fields)) {
      const m = path.match(/^sweep\.parameters\[(\d+)\](.*)$/);
      const row = m ? this.rows[Number(m[1])] : null;
      if (row) {
        row.error.hidden = false;
        const where = m[2] ? `${m[2].replace(/^\./, "")}: ` : "";
        row.error.textContent = `${row.error.textContent} ${where}${message}`.trim();
      } else if (path === "sweep" || path.startsWith("sweep")) {
        this.error.hidden = false;
        this.error.textContent = `${this.error.textContent} ${message}`.trim();
      } else rest.push(`${path}: ${message}`);
    }
    return rest;
  }
}

function shown(value) {
  if (typeof value === "number") return String(Number(value.toPrecision(6)));
  return String(value);
}

/** A finished sweep: the metric picker, the chart against the first parameter, and the table of points. */
export async function renderSweep(box, run) {
  const kind = run.kind;
  let labels = {};
  try {
    const kinds = await loadCatalogue();
    const k = kinds.find((x) => x.kind === kind);
    if (k) labels = Object.fromEntries(sweepableParameters(k.schema, run.params).map((p) => [p.path, p.label]));
  } catch {
    // the paths stand in for the labels
  }
  const nameOf = (path) => labels[path] ?? path;
  const points = run.summary?.points ?? [];
  const parameters = run.summary?.parameters ?? run.sweep?.parameters ?? [];
  if (!points.length || !parameters.length) {
    box.append(el("p", { class: "muted" }, "This sweep has no points."));
    return;
  }
  const [first, second] = parameters;
  const metrics = prioritise(Object.keys(points[0].summary ?? {}));
  const preferred = ["ettr", "mean_lost_hours_per_interruption", "mean_it_mw", "energy_saving_fraction"];
  const initial = preferred.find((m) => metrics.includes(m)) ?? metrics[0];
  const picker = el(
    "select",
    { id: `sweep-metric-${run.id}`, "data-testid": "sweep-metric" },
    metrics.map((m) => el("option", { value: m, selected: m === initial }, metricLabel(kind, m))),
  );
  const chartBox = el("div", { class: "charts sweep-charts", "data-testid": "sweep-charts" });
  const tableBox = el("div", { "data-testid": "sweep-table-box" });
  box.append(
    el(
      "section",
      { class: "sweep-results", "data-testid": "sweep-results" },
      el(
        "h3",
        { class: "results-title" },
        "Sweep",
        el(
          "span",
          { class: "muted small" },
          " — mean over each point's replicas; the band is its 95 % confidence interval",
        ),
      ),
      el("div", { class: "field inline" }, el("label", { for: `sweep-metric-${run.id}` }, "Metric"), picker),
      chartBox,
      tableBox,
    ),
  );
  const numericX = first.values.every((v) => typeof v === "number");
  const draw = () => {
    const metric = picker.value;
    const { factor } = metricShown(kind, metric);
    const scale = (v) => (v == null ? null : v * factor);
    destroyCharts(chartBox);
    clear(chartBox);
    const groups = second ? second.values : [null];
    const lines = groups.map((g) => {
      const row = first.values.map((v) =>
        points.find((p) => p.params[first.name] === v && (second ? p.params[second.name] === g : true)),
      );
      const stat = (p, k) => scale(p?.summary?.[metric]?.[k] ?? null);
      return {
        label: second ? `${nameOf(second.name)} = ${shown(g)}` : metricLabel(kind, metric),
        mean: row.map((p) => stat(p, "mean")),
        lo: row.map((p) => stat(p, "ci95_low")),
        hi: row.map((p) => stat(p, "ci95_high")),
      };
    });
    sweepChart(chartBox, {
      title: `${metricLabel(kind, metric)} against ${nameOf(first.name)}`,
      xLabel: nameOf(first.name),
      x: numericX ? first.values : null,
      categories: numericX ? null : first.values.map(shown),
      lines,
    });
    clear(tableBox).append(pointsTable(kind, parameters, points, metric, nameOf));
    box.dataset.sweepMetric = metric;
  };
  picker.onchange = draw;
  draw();
}

function pointsTable(kind, parameters, points, metric, nameOf) {
  const v = (x) => metricNumber(kind, metric, x);
  return el(
    "table",
    { class: "table compact", "data-testid": "sweep-table" },
    el(
      "thead",
      {},
      el(
        "tr",
        {},
        parameters.map((p) => el("th", { title: p.name }, nameOf(p.name))),
        el("th", { class: "num" }, "Mean"),
        el("th", { class: "num" }, "95 % CI of the mean"),
        el("th", { class: "num" }, "Replicas"),
      ),
    ),
    el(
      "tbody",
      {},
      points.map((p) => {
        const s = p.summary?.[metric] ?? {};
        return el(
          "tr",
          { "data-testid": "sweep-point" },
          parameters.map((q) => el("td", {}, shown(p.params[q.name]))),
          el("td", { class: "num" }, v(s.mean)),
          el("td", { class: "num" }, s.ci95_low != null ? `${v(s.ci95_low)} – ${v(s.ci95_high)}` : "–"),
          el("td", { class: "num" }, String(p.replicas ?? "")),
        );
      }),
    ),
  );
}

/** The sweep's parameters in the run head ("checkpoint_interval_minutes × recovery, 6 points"). */
export function sweepCaption(run) {
  const s = run.sweep;
  if (!s) return null;
  const names = s.parameters.map((p) => p.name).join(" × ");
  return `sweep of ${names}: ${s.points.length} points × ${s.replicas_per_point} replicas`;
}
