// @ts-check
// The campus's climate and weather year (/api/campuses/{id}/weather/), the climate picker, and the facility
// across the year (/api/campuses/{id}/facility-year/): PUE, facility power and water as month × hour heat
// maps, and the hottest day; then the year in the measured weather beside the typical one (weather-replay.js).
import { api, qs } from "../../lib/api.js";
import { timeChart } from "../../lib/charts.js";
import { el, fill } from "../../lib/dom.js";
import * as f from "../../lib/format.js";
import { designConditionsWords } from "../../lib/design.js";
import { weatherReplay } from "./weather-replay.js";

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
// A sequential palette (light yellow → dark blue), read as "more" going darker.
const STOPS = [
  [255, 255, 204],
  [161, 218, 180],
  [65, 182, 196],
  [44, 127, 184],
  [37, 52, 148],
];

function colour(t) {
  const x = Math.min(1, Math.max(0, t)) * (STOPS.length - 1);
  const i = Math.min(STOPS.length - 2, Math.floor(x));
  const w = x - i;
  const c = STOPS[i].map((v, k) => Math.round(v + (STOPS[i + 1][k] - v) * w));
  return `rgb(${c[0]}, ${c[1]}, ${c[2]})`;
}

/** The mean of each (month, hour of day) of an 8,760-hour series: 12 rows of 24. */
export function monthHourMeans(values) {
  const grid = MONTHS.map(() => new Array(24).fill(0));
  const counts = MONTHS.map(() => new Array(24).fill(0));
  let day = 0;
  MONTH_DAYS.forEach((n, m) => {
    for (let d = 0; d < n; d += 1, day += 1) {
      for (let h = 0; h < 24; h += 1) {
        const v = values[day * 24 + h];
        if (v != null) {
          grid[m][h] += v;
          counts[m][h] += 1;
        }
      }
    }
  });
  return grid.map((row, m) => row.map((s, h) => (counts[m][h] ? s / counts[m][h] : null)));
}

function heatMap({ title, unit, values, digits, testid }) {
  const grid = monthHourMeans(values);
  const flat = grid.flat().filter((v) => v != null);
  const lo = Math.min(...flat);
  const hi = Math.max(...flat);
  let peak = { m: 0, h: 0, v: -Infinity };
  grid.forEach((row, m) => row.forEach((v, h) => v != null && v > peak.v && (peak = { m, h, v })));
  const cell = 16;
  const left = 34;
  const top = 4;
  const canvas = el("canvas", {
    width: left + 24 * cell,
    height: top + 12 * cell + 18,
    role: "img",
    "data-testid": testid,
    "data-min": lo,
    "data-max": hi,
    "aria-label":
      `${title} by month and hour of day: from ${f.num(lo, digits)} to ${f.num(hi, digits)} ${unit}, ` +
      `highest in ${MONTHS[peak.m]} at ${peak.h + 1}:00`,
  });
  const ctx = canvas.getContext("2d");
  if (ctx) {
    ctx.font = "11px system-ui, sans-serif";
    ctx.fillStyle = "#4a5568";
    grid.forEach((row, m) => {
      ctx.fillStyle = "#4a5568";
      ctx.fillText(MONTHS[m], 2, top + m * cell + 12);
      row.forEach((v, h) => {
        ctx.fillStyle = v == null ? "#c3cad5" : colour(hi > lo ? (v - lo) / (hi - lo) : 0.5);
        ctx.fillRect(left + h * cell, top + m * cell, cell - 1, cell - 1);
      });
    });
    ctx.fillStyle = "#4a5568";
    [0, 6, 12, 18, 23].forEach((h) => ctx.fillText(String(h + 1), left + h * cell + 2, top + 12 * cell + 13));
  }
  const legend = el(
    "div",
    { class: "heatmap-legend" },
    el("span", {}, `${f.num(lo, digits)} ${unit}`),
    el("span", { class: "heatmap-ramp", "aria-hidden": "true" }),
    el("span", {}, `${f.num(hi, digits)} ${unit}`),
  );
  return el(
    "figure",
    { class: "heatmap" },
    el("figcaption", {}, `${title} (${unit}), mean of each month and hour`),
    canvas,
    legend,
  );
}

function hottestDay(container, year) {
  const db = year.dry_bulb_c;
  let best = 0;
  for (let i = 1; i < db.length; i += 1) if (db[i] > db[best]) best = i;
  const day = Math.floor(best / 24);
  let month = 0;
  let first = 0;
  while (month < 11 && first + MONTH_DAYS[month] <= day) first += MONTH_DAYS[month++];
  const hours = Array.from({ length: 24 }, (_, h) => h + 1);
  const slice = (name) => year[name].slice(day * 24, day * 24 + 24);
  const facility = slice("facility_mw");
  const peak = Math.max(...facility);
  const pue = slice("pue");
  container.append(
    el(
      "p",
      { "data-testid": "hottest-day", "data-day": day + 1, "data-dry-bulb": db[best] },
      el("strong", {}, `Hottest day: ${day - first + 1} ${MONTHS[month]}`),
      ` — ${f.num(db[best], 1)} °C dry bulb at ${(best % 24) + 1}:00; facility up to ${f.mw(peak, 2)}, ` +
        `PUE up to ${f.num(Math.max(...pue.filter((v) => v != null)), 3)}.`,
    ),
  );
  timeChart(container, {
    title: "Hottest day",
    series: [
      { label: "dry bulb (°C)", t: hours, values: slice("dry_bulb_c") },
      { label: "wet bulb (°C)", t: hours, values: slice("wet_bulb_c") },
      { label: "facility (MW)", t: hours, values: facility },
    ],
    testid: "hottest-day-chart",
  });
}

function climatePicker(page, weather, onChange) {
  const status = el("span", { class: "muted small", role: "status", "data-testid": "climate-status" });
  const select = el(
    "select",
    {
      id: "climate-picker",
      "data-testid": "climate-picker",
      disabled: page.canWrite ? null : "disabled",
      title: page.canWrite ? null : "Changing the climate needs the planner role",
    },
    weather.climates.map((c) =>
      el("option", { value: c.id, selected: c.id === weather.climate ? "selected" : null }, c.label),
    ),
  );
  // Picking a climate changes the shared design for everyone: the page asks first, and Cancel puts the
  // picker back without a request.
  const saved = { value: select.value };
  const confirmBox = el("div", { class: "confirm", role: "group", "aria-label": "Confirm the climate", hidden: true });
  const save = async () => {
    confirmBox.hidden = true;
    select.disabled = true;
    status.textContent = "Saving…";
    try {
      await api.patch(`/api/campuses/${page.campusId}/`, { climate: select.value });
      saved.value = select.value;
      status.textContent = "Saved.";
      await onChange();
    } catch (error) {
      status.textContent = error?.message ?? String(error);
      select.disabled = false;
    }
  };
  const cancel = () => {
    select.value = saved.value;
    confirmBox.hidden = true;
    status.textContent = "Not changed.";
    select.focus();
  };
  select.addEventListener("change", () => {
    const label = select.selectedOptions[0]?.textContent ?? select.value;
    fill(
      confirmBox,
      el(
        "p",
        {},
        `Change the climate of ${page.campusName} to ${label}? It changes the design for everyone who opens it.`,
      ),
      el(
        "button",
        { type: "button", class: "button-primary", "data-testid": "climate-confirm", onclick: save },
        "Change the design",
      ),
      " ",
      el("button", { type: "button", class: "button", "data-testid": "climate-cancel", onclick: cancel }, "Cancel"),
    );
    confirmBox.hidden = false;
    status.textContent = "";
  });
  return el(
    "div",
    { class: "climate-picker" },
    el("label", { for: "climate-picker" }, "Climate"),
    select,
    status,
    confirmBox,
  );
}

/** The weather card: filled once its data has loaded; ``onChange`` runs after the climate changes. */
export function weatherCard(page, onChange) {
  const card = el("section", {
    class: "card weather-card",
    "data-testid": "weather-card",
    "aria-label": "Climate and weather",
  });
  card.append(el("h2", { class: "section-title" }, "Climate & weather"), el("p", { class: "loading" }, "Loading…"));
  load(page, card, onChange);
  return card;
}

async function load(page, card, onChange) {
  const body = [];
  try {
    const weather = await api.get(`/api/campuses/${page.campusId}/weather/`);
    const a = weather.annual;
    body.push(
      climatePicker(page, weather, onChange),
      el(
        "p",
        { class: "muted small", "data-testid": "weather-source" },
        weather.uploaded ? "Uploaded EPW year — " : "",
        weather.source,
      ),
      el(
        "dl",
        { class: "kv" },
        el("dt", {}, "Dry bulb"),
        el(
          "dd",
          { "data-testid": "weather-dry-bulb", "data-value": a.max_dry_bulb_c },
          `${f.num(a.min_dry_bulb_c, 1)} to ${f.num(a.max_dry_bulb_c, 1)} °C, mean ${f.num(a.mean_dry_bulb_c, 1)} °C`,
        ),
        el("dt", {}, "Wet bulb"),
        el("dd", {}, `up to ${f.num(a.max_wet_bulb_c, 1)} °C, mean ${f.num(a.mean_wet_bulb_c, 1)} °C`),
        weather.design_conditions ? el("dt", {}, "Design conditions") : null,
        weather.design_conditions
          ? el(
              "dd",
              {
                "data-testid": "weather-design-conditions",
                "data-value": weather.design_conditions.cooling_db_04_c ?? "",
                title: weather.design_conditions.source ?? null,
              },
              designConditionsWords(weather.design_conditions),
            )
          : null,
      ),
    );
  } catch (error) {
    body.push(el("p", { class: "notice notice-error", role: "alert" }, error?.message ?? String(error)));
  }
  // the facility engine's hourly view: asked for where the summary says the plant model is there
  const plantModel = page.summary?.power?.pue_source != null;
  const yearUrl = `/api/campuses/${page.campusId}/facility-year/${qs({ as_of: page.asOf })}`;
  const year = plantModel ? await api.get(yearUrl).catch(() => null) : null;
  const extra = el("div", { class: "facility-year" });
  if (year && Array.isArray(year.pue) && year.pue.length >= 8760) {
    extra.append(
      el(
        "div",
        { class: "heatmaps" },
        heatMap({ title: "PUE", unit: "", values: year.pue, digits: 3, testid: "heatmap-pue" }),
        heatMap({
          title: "Facility power",
          unit: "MW",
          values: year.facility_mw,
          digits: 1,
          testid: "heatmap-facility",
        }),
        heatMap({ title: "Water", unit: "L/h", values: year.water_l, digits: 0, testid: "heatmap-water" }),
      ),
    );
  }
  card.querySelector(".loading")?.remove();
  card.append(...body, extra);
  if (year && Array.isArray(year.dry_bulb_c) && year.dry_bulb_c.length) hottestDay(extra, year);
  if (plantModel && !page.asOf) card.append(weatherReplay(page));
  card.dataset.ready = "true";
}
