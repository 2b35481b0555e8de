// @ts-check
// The as-of control: the day the dashboard's figures are for (?as_of= on every analytics call). A slider steps
// through the campus's timeline (each day something enters or leaves service, and today) and a date picker
// takes any day. The choice lives in the page's URL (?as_of=), so a reload or a shared link keeps it.
import { api, qs } from "./api.js";
import { el } from "./dom.js";
import * as f from "./format.js";

/** The day named in the URL (?as_of=YYYY-MM-DD), or null for today. */
export function asOfFromUrl() {
  const value = new URLSearchParams(window.location.search).get("as_of");
  return value && /^\d{4}-\d{2}-\d{2}$/.test(value) ? value : null;
}

/** `?as_of=…` (or the other params alone) for an analytics URL. */
export function withAsOf(params, asOf) {
  return qs({ ...params, as_of: asOf ?? undefined });
}

function keepInUrl(asOf) {
  const url = new URL(window.location.href);
  if (asOf) url.searchParams.set("as_of", asOf);
  else url.searchParams.delete("as_of");
  history.replaceState(history.state, "", url.pathname + url.search);
}

/** Steps of the GPU count over the timeline's dates, as a small SVG (x: date, y: GPUs). */
function sparkline(points, chosen) {
  const w = 260;
  const h = 48;
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
  svg.setAttribute("class", "asof-chart");
  svg.setAttribute("data-testid", "timeline-chart");
  svg.setAttribute("role", "img");
  // a name even when there is nothing to draw (a campus with one date: no steps)
  svg.setAttribute(
    "aria-label",
    points.length < 2
      ? "GPUs in service over time: one date, no change to draw"
      : `GPUs in service over time, ${points.length} dates`,
  );
  if (points.length < 2) return svg;
  const t = points.map((p) => Date.parse(p.date));
  const t0 = t[0];
  const span = Math.max(1, t[t.length - 1] - t0);
  const top = Math.max(1, ...points.map((p) => p.gpus));
  const x = (v) => 4 + ((v - t0) / span) * (w - 8);
  const y = (g) => h - 4 - (g / top) * (h - 8);
  let d = `M${x(t[0])},${y(points[0].gpus)}`;
  for (let i = 1; i < points.length; i += 1) d += ` H${x(t[i])} V${y(points[i].gpus)}`;
  const path = document.createElementNS("http://www.w3.org/2000/svg", "path");
  path.setAttribute("d", d);
  path.setAttribute("class", "asof-line");
  svg.append(path);
  const at = chosen ? Date.parse(chosen) : Date.now();
  const marker = document.createElementNS("http://www.w3.org/2000/svg", "line");
  const mx = x(Math.min(Math.max(at, t0), t0 + span));
  for (const [k, v] of Object.entries({ x1: mx, x2: mx, y1: 2, y2: h - 2, class: "asof-marker" })) {
    marker.setAttribute(k, String(v));
  }
  svg.append(marker);
  const title = document.createElementNS("http://www.w3.org/2000/svg", "title");
  title.textContent = points.map((p) => `${p.date}: ${f.num(p.gpus)} GPUs, ${f.mw(p.it_mw)} IT`).join("\n");
  svg.append(title);
  return svg;
}

/**
 * The control. `onChange(asOf)` runs when the day changes (null: today); `chart` adds the GPU timeline.
 * Returns {element, value()}.
 */
export function asOfControl({ campusId, onChange, chart = false }) {
  let asOf = asOfFromUrl();
  let points = [];
  const slider = el("input", {
    type: "range",
    min: "0",
    max: "0",
    step: "1",
    value: "0",
    "data-testid": "asof-slider",
    "aria-label": "As-of day on the campus timeline",
    disabled: "",
  });
  const picker = el("input", { type: "date", "data-testid": "asof-date", "aria-label": "As-of day" });
  const today = el("button", { type: "button", class: "button small", "data-testid": "asof-today" }, "Today");
  const note = el("span", { class: "muted small", "data-testid": "asof-note" });
  const chartBox = el("div", { class: "asof-chart-box" });
  const element = el(
    "section",
    { class: "asof card", "data-testid": "asof", "aria-label": "As of" },
    el("label", { class: "asof-label" }, "As of"),
    slider,
    picker,
    today,
    note,
    chartBox,
  );

  function show() {
    picker.value = asOf ?? points.find((p) => p.today)?.date ?? "";
    const index = points.length ? nearest(asOf ?? picker.value) : 0;
    slider.value = String(index);
    const day = asOf ?? picker.value;
    const point = points[index];
    note.textContent = point && point.date <= day ? `${f.num(point.gpus)} GPUs in service on ${day}` : "";
    if (chart) chartBox.replaceChildren(sparkline(points, asOf));
  }

  // the last timeline point on or before the day
  function nearest(day) {
    let best = 0;
    points.forEach((p, i) => {
      if (p.date <= day) best = i;
    });
    return best;
  }

  function choose(day) {
    asOf = day || null;
    keepInUrl(asOf);
    show();
    onChange(asOf);
  }

  slider.addEventListener("input", () => {
    const point = points[Number(slider.value)];
    if (point) picker.value = point.date;
  });
  slider.addEventListener("change", () => choose(points[Number(slider.value)]?.date));
  picker.addEventListener("change", () => choose(picker.value));
  today.addEventListener("click", () => choose(null));

  api
    .get(`/api/campuses/${campusId}/timeline/`)
    .then((body) => {
      points = body.points ?? [];
      // the point of today (the timeline always holds one when asked without as_of)
      const now = new Date();
      const local = [now.getFullYear(), now.getMonth() + 1, now.getDate()]
        .map((v, i) => String(v).padStart(i ? 2 : 4, "0"))
        .join("-");
      for (const p of points) p.today = p.date === local;
      slider.max = String(Math.max(0, points.length - 1));
      if (points.length > 1) slider.removeAttribute("disabled");
      element.dataset.ready = "true";
      show();
    })
    .catch((error) => {
      note.textContent = `Timeline unavailable: ${error.message}`;
      element.dataset.ready = "error";
    });

  show();
  return { element, value: () => asOf };
}
