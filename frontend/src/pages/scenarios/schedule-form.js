// @ts-check
// Creating and editing a schedule (administrators, as the API allows): which scenario, when — a preset that
// writes the crontab, shown in words beside it, or a crontab typed as it is — how many replicas, the
// thresholds that flag a run (each metric by its catalogue label, with its statistic, comparison and value),
// and the webhook that is told when a run crosses one. The API checks everything; a refused field is named
// beside it.
import { api } from "../../lib/api.js";
import { loadCatalogue, metricLabel, metricShown } from "../../lib/catalogue.js";
import { el, errorBox, fill } from "../../lib/dom.js";
import { CRON_PRESETS, cronFrom, cronWords } from "../../lib/schedule.js";

const DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
/** @type {[string, string][]} */
const STATS = [
  ["mean", "mean"],
  ["p5", "5th percentile"],
  ["p50", "median"],
  ["p95", "95th percentile"],
];
/** @type {[string, string][]} */
const OPS = [
  ["<", "below"],
  ["<=", "at most"],
  [">", "above"],
  [">=", "at least"],
];

/** @param {string} id @param {string} text @param {HTMLElement} control */
const field = (id, text, control) => el("div", { class: "field" }, el("label", { for: id }, text), control);

/** @param {any[][]} options [value, text] pairs @param {string} value @param {Record<string, any>} attrs */
function select(options, value, attrs) {
  return el(
    "select",
    attrs,
    options.map(([v, t]) => el("option", { value: v, selected: v === value }, t)),
  );
}

/** What a crontab's preset and inputs were, read back from the expression (for editing). @param {string} cron */
function presetOf(cron) {
  const p = cron.split(" ");
  if (p.length !== 5) return { preset: "custom" };
  const [m, h, dom, mon, dow] = p;
  const time = `${h.padStart(2, "0")}:${m.padStart(2, "0")}`;
  const whole = (/** @type {string} */ x) => /^\d+$/.test(x);
  if (/^\*\/\d+$/.test(m) && h === "*" && dom === "*" && mon === "*" && dow === "*")
    return { preset: "minutes", every: Number(m.slice(2)) };
  if (whole(m) && h === "*" && dom === "*" && mon === "*" && dow === "*")
    return { preset: "hourly", minute: Number(m) };
  if (!whole(m) || !whole(h) || mon !== "*") return { preset: "custom" };
  if (dom === "*" && dow === "*") return { preset: "daily", time };
  if (dom === "*" && dow === "1-5") return { preset: "weekdays", time };
  if (dom === "*" && whole(dow)) return { preset: "weekly", time, day: Number(dow) % 7 };
  if (whole(dom) && dow === "*") return { preset: "monthly", time, dayOfMonth: Number(dom) };
  return { preset: "custom" };
}

/**
 * The form, for a new schedule (`schedule` null) or to edit one; `done` runs after a save.
 * @param {any} page @param {any | null} schedule @param {() => void} done
 */
export async function scheduleForm(page, schedule, done) {
  const [scenarios, kinds] = await Promise.all([api.all(`/api/scenarios/?campus=${page.campusId}`), loadCatalogue()]);
  const kindOf = new Map(scenarios.map((s) => [s.id, s.kind]));
  const status = el("div", { role: "status", "data-testid": "schedule-form-status" });
  if (!scenarios.length) return el("p", { class: "muted" }, "Save a scenario first: a schedule runs one.");

  const scenario = select(
    scenarios.map((s) => [String(s.id), s.name]),
    String(schedule?.scenario?.id ?? schedule?.scenario ?? scenarios[0].id),
    { id: "sf-scenario", "data-testid": "sf-scenario" },
  );
  const name = el("input", { id: "sf-name", value: schedule?.name ?? "", maxlength: 128, "data-testid": "sf-name" });
  const start = schedule?.crontab ? presetOf(schedule.crontab) : { preset: "daily", time: "02:00" };
  const preset = select(CRON_PRESETS, start.preset, { id: "sf-preset", "data-testid": "sf-preset" });
  const time = el("input", { id: "sf-time", type: "time", value: start.time ?? "02:00", "data-testid": "sf-time" });
  const day = select(
    DAYS.map((d, i) => [String(i), d]),
    String(start.day ?? 1),
    { id: "sf-day", "data-testid": "sf-day" },
  );
  const every = el("input", { id: "sf-every", type: "number", min: 1, max: 59, value: start.every ?? 15 });
  const minute = el("input", { id: "sf-minute", type: "number", min: 0, max: 59, value: start.minute ?? 0 });
  const dayOfMonth = el("input", { id: "sf-dom", type: "number", min: 1, max: 28, value: start.dayOfMonth ?? 1 });
  const custom = el("input", { id: "sf-custom", value: schedule?.crontab ?? "", "data-testid": "sf-custom" });
  const words = el("p", { class: "muted", "data-testid": "sf-cron-words", "aria-live": "polite" });
  const parts = {
    time: field("sf-time", "At (UTC)", time),
    day: field("sf-day", "On", day),
    every: field("sf-every", "Every (minutes)", every),
    minute: field("sf-minute", "At minute", minute),
    dayOfMonth: field("sf-dom", "On day of the month", dayOfMonth),
    custom: field("sf-custom", "Crontab (minute hour day month weekday, UTC)", custom),
  };
  const shown = {
    minutes: ["every"],
    hourly: ["minute"],
    daily: ["time"],
    weekdays: ["time"],
    weekly: ["day", "time"],
    monthly: ["dayOfMonth", "time"],
    custom: ["custom"],
  };
  const cron = () =>
    cronFrom({
      preset: preset.value,
      time: time.value,
      day: Number(day.value),
      every: Number(every.value),
      minute: Number(minute.value),
      dayOfMonth: Number(dayOfMonth.value),
      custom: custom.value,
    });
  const refresh = () => {
    for (const [key, node] of Object.entries(parts)) node.hidden = !shown[preset.value]?.includes(key);
    const expr = cron();
    words.dataset.cron = expr;
    fill(words, expr ? `${cronWords(expr) ?? "as typed"} — crontab ${expr}` : "Type a crontab.");
  };
  for (const input of [preset, time, day, every, minute, dayOfMonth, custom]) input.addEventListener("input", refresh);
  preset.addEventListener("change", refresh);

  const replicas = el("input", { id: "sf-replicas", type: "number", min: 1, value: schedule?.replicas ?? 20 });
  const webhook = el("input", {
    id: "sf-webhook",
    type: "url",
    value: schedule?.webhook_url ?? "",
    placeholder: "https://…",
    "data-testid": "sf-webhook",
  });
  const enabled = el("input", { id: "sf-enabled", type: "checkbox", checked: schedule ? schedule.enabled : true });
  // Each run's confidence target (docs/runs.md): stop at ± this share of the metric's mean; empty: none.
  const target = schedule?.confidence_target ?? null;
  const targetPct = el("input", {
    id: "sf-confidence",
    type: "number",
    min: 0.0001,
    max: 100,
    step: "any",
    placeholder: "off",
    value: target ? String(Math.round(target.relative_half_width * 100 * 1e9) / 1e9) : "",
    "data-testid": "sf-confidence",
  });
  const targetMetric = el("select", { id: "sf-confidence-metric", "data-testid": "sf-confidence-metric" });

  const rules = el("div", { class: "threshold-rows", "data-testid": "sf-thresholds" });
  const metricsOf = () => {
    const kind = kindOf.get(Number(scenario.value)) ?? "";
    const entry = kinds.find((k) => k.kind === kind);
    return Object.keys(entry?.metrics ?? {}).map((m) => /** @type {[string, string]} */ ([m, metricLabel(kind, m)]));
  };
  const addRule = (rule = { metric: "", stat: "mean", op: "<", value: 0 }) => {
    const n = rules.children.length + 1;
    const metrics = metricsOf();
    const valueField = el(
      "div",
      { class: "field" },
      el("label", { for: `sf-t${n}-value` }, "Value", el("span", { class: "value-unit" })),
      el("input", { id: `sf-t${n}-value`, type: "number", step: "any", "data-part": "value" }),
    );
    const row = el(
      "fieldset",
      { class: "threshold-row", "data-testid": "sf-threshold" },
      el("legend", {}, `Threshold ${n}`),
      field(
        `sf-t${n}-metric`,
        "Metric",
        select(metrics, rule.metric || metrics[0]?.[0] || "", { id: `sf-t${n}-metric`, "data-part": "metric" }),
      ),
      field(
        `sf-t${n}-stat`,
        "Statistic",
        select(STATS, rule.stat ?? "mean", { id: `sf-t${n}-stat`, "data-part": "stat" }),
      ),
      field(`sf-t${n}-op`, "Flags the run when it is", select(OPS, rule.op, { id: `sf-t${n}-op`, "data-part": "op" })),
      valueField,
      el("button", { type: "button", class: "button-quiet", onclick: () => row.remove() }, "Remove"),
    );
    // The value is typed in the unit the metric is shown in (its label says which: %, MW …) and stored in
    // the unit the run records, as the API compares it.
    const metricSelect = /** @type {HTMLSelectElement} */ (row.querySelector("[data-part=metric]"));
    const shownUnit = () => metricShown(kindOf.get(Number(scenario.value)) ?? "", metricSelect.value);
    const input = /** @type {HTMLInputElement} */ (row.querySelector("[data-part=value]"));
    const unitLabel = /** @type {HTMLElement} */ (row.querySelector(".value-unit"));
    const showUnit = () => fill(unitLabel, shownUnit().unit ? ` (${shownUnit().unit})` : "");
    metricSelect.addEventListener("change", showUnit);
    input.value = String(Math.round(Number(rule.value) * shownUnit().factor * 1e9) / 1e9);
    showUnit();
    rules.append(row);
  };
  for (const rule of schedule?.thresholds ?? []) addRule(rule);
  const fillTargetMetric = (/** @type {string | undefined} */ wanted = undefined) => {
    const metrics = metricsOf().filter(([m]) => !m.includes("."));
    const pick = wanted ?? (metrics.some(([m]) => m === "ettr") ? "ettr" : metrics[0]?.[0]);
    fill(targetMetric, ...metrics.map(([m, label]) => el("option", { value: m, selected: m === pick }, label)));
  };
  fillTargetMetric(target?.metric);
  scenario.addEventListener("change", () => {
    fill(rules);
    fillTargetMetric();
  });

  const form = el(
    "form",
    { class: "schedule-form card", "data-testid": "schedule-form", novalidate: true },
    el("h3", {}, schedule ? `Edit ${schedule.name}` : "New schedule"),
    field("sf-scenario", "Scenario", scenario),
    field("sf-name", "Name", name),
    field("sf-preset", "When", preset),
    ...Object.values(parts),
    words,
    field("sf-replicas", "Replicas per run", replicas),
    field("sf-confidence", "Stop each run at ± (%) of the mean of", targetPct),
    field("sf-confidence-metric", "Metric of the confidence target", targetMetric),
    el("h4", {}, "Thresholds"),
    rules,
    el(
      "button",
      { type: "button", class: "button", "data-testid": "sf-add-threshold", onclick: () => addRule() },
      "Add a threshold",
    ),
    field("sf-webhook", "Webhook told when a run crosses a threshold (optional)", webhook),
    el("div", { class: "field" }, enabled, el("label", { for: "sf-enabled" }, " Enabled")),
    el(
      "button",
      { type: "submit", class: "button-primary", "data-testid": "sf-save" },
      schedule ? "Save the schedule" : "Create the schedule",
    ),
    status,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const thresholds = [...rules.querySelectorAll("fieldset")].map((row) => {
      const get = (/** @type {string} */ part) =>
        /** @type {HTMLInputElement} */ (row.querySelector(`[data-part=${part}]`)).value;
      const factor = metricShown(kindOf.get(Number(scenario.value)) ?? "", get("metric")).factor || 1;
      const value = Math.round((Number(get("value")) / factor) * 1e9) / 1e9;
      return { metric: get("metric"), stat: get("stat"), op: get("op"), value };
    });
    const body = {
      scenario: Number(scenario.value),
      name: name.value.trim(),
      crontab: cron(),
      interval_seconds: null,
      replicas: Number(replicas.value),
      thresholds,
      confidence_target: targetPct.value.trim()
        ? { relative_half_width: Number(targetPct.value) / 100, metric: targetMetric.value }
        : null,
      webhook_url: webhook.value.trim(),
      enabled: enabled.checked,
    };
    fill(status, "Saving…");
    try {
      if (schedule) await api.patch(`/api/schedules/${schedule.id}/`, body);
      else await api.post("/api/schedules/", body);
      fill(status, "Saved.");
      done();
    } catch (error) {
      const fields = error.fieldErrors ? error.fieldErrors() : {};
      const named = Object.entries(fields).map(([k, v]) => `${k}: ${v}`);
      fill(status, errorBox(named.length ? { message: named.join("; ") } : error, "schedule-form-error"));
    }
  });
  refresh();
  return form;
}
