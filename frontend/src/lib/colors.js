// @ts-check
// Colour scales of the floor map and the charts. Binned scales keep the number of distinct colours small, so
// the map fills every rack of one colour in one batch, and the legend reads like the map.

export const NO_DATA = "#c3cad5";

const SEQUENTIAL = ["#2f6fde", "#1aa5c7", "#17a77a", "#7cbd2f", "#e3b50f", "#f08a1c", "#e0452b", "#9b1c1c"];
const TRAFFIC = ["#1f9d55", "#6fbf3a", "#e3b50f", "#f08a1c", "#e0452b", "#8b1111"];

/**
 * A scale's colours and its legend: one entry per bin or category.
 * @typedef {{kind: "binned" | "categorical", bins: {color: string, label: string}[],
 *   color: (value: any) => string}} Scale
 */

/**
 * A rack's figures as the floor-map API gives them (the fields the scales read).
 * @typedef {Record<string, any>} RackFigures
 */

/**
 * @param {number[]} edges upper bounds of every bin but the last
 * @param {string[]} colors one more than edges
 * @param {string} unit
 * @param {number} [digits]
 * @returns {Scale}
 */
function binned(edges, colors, unit, digits = 0) {
  // edges: upper bounds of every bin but the last; colors.length === edges.length + 1
  const bins = colors.map((color, i) => {
    const lo = i === 0 ? null : edges[i - 1];
    const hi = i < edges.length ? edges[i] : null;
    const fmt = (/** @type {number} */ v) => v.toLocaleString("en-US", { maximumFractionDigits: digits });
    let text = "every value";
    if (lo === null && hi !== null) text = `< ${fmt(hi)} ${unit}`;
    else if (lo !== null && hi === null) text = `≥ ${fmt(lo)} ${unit}`;
    else if (lo !== null && hi !== null) text = `${fmt(lo)}–${fmt(hi)} ${unit}`;
    return { color, label: text };
  });
  return {
    kind: "binned",
    bins,
    color(/** @type {number | null | undefined} */ value) {
      if (value === null || value === undefined || Number.isNaN(value)) return NO_DATA;
      let i = 0;
      while (i < edges.length && value >= edges[i]) i += 1;
      return colors[i];
    },
  };
}

/**
 * @param {[string, string, string][]} entries value, colour, legend text
 * @returns {Scale}
 */
function categorical(entries) {
  const map = new Map(entries.map(([value, color, text]) => [value, { color, label: text }]));
  return {
    kind: "categorical",
    bins: [...map.values()],
    color(/** @type {string} */ value) {
      return map.get(value)?.color ?? NO_DATA;
    },
  };
}

// Measured against modelled (docs/live.md): blue under the model, green within the band, orange and red over it.
const DEVIATION = binned([-25, -10, 10, 25], ["#1d4ed8", "#7aa7f0", "#1f9d55", "#f08a1c", "#b42318"], "%");
DEVIATION.bins = DEVIATION.bins.map((b, i) => ({
  ...b,
  label: [
    "under the model by more than 25 %",
    "under by 10–25 %",
    "within ±10 % (no alarm)",
    "over by 10–25 %",
    "over the model by more than 25 %",
  ][i],
}));

/**
 * What the floor map can colour racks by: title, unit, the value read from a rack, its scale and its tooltip line.
 * @type {Record<string, {title: string, unit: string, value: (r: RackFigures) => any, scale: Scale,
 *   describe: (r: RackFigures) => string}>}
 */
export const METRICS = {
  load_kw: {
    title: "Load",
    unit: "kW",
    value: (r) => r.load_kw,
    scale: binned([10, 20, 40, 60, 80, 100, 130], SEQUENTIAL, "kW"),
    describe: (r) => `${fmt1(r.load_kw)} kW of ${fmt1(r.design_kw)} kW design`,
  },
  measured_kw: {
    title: "Measured peak",
    unit: "kW",
    // the highest 5-minute mean of the window (GET /measured/), on the load scale so the two maps compare
    value: (r) => r.measured_peak_kw,
    scale: binned([10, 20, 40, 60, 80, 100, 130], SEQUENTIAL, "kW"),
    describe: (r) =>
      r.measured_peak_kw == null
        ? "not measured"
        : `${fmt1(r.measured_peak_kw)} kW measured peak · ${fmt1(r.modelled_kw)} kW modelled`,
  },
  deviation: {
    title: "Measured against modelled",
    unit: "%",
    value: (r) => (r.deviation == null ? null : r.deviation * 100),
    scale: DEVIATION,
    describe: (r) =>
      r.deviation == null
        ? "not measured"
        : `${r.deviation > 0 ? "+" : ""}${fmt1(r.deviation * 100)} % (peak ${fmt1(r.measured_peak_kw)} kW, ` +
          `modelled ${fmt1(r.modelled_kw)} kW)${r.alarm ? `: alarm, ${r.alarm} the model` : ""}`,
  },
  feed_pct: {
    title: "% of feed rating",
    unit: "%",
    // The busier of the two feeds: what matters is how close either side is to its rating.
    value: (r) => maxOrNull(r.feed_a_pct, r.feed_b_pct),
    scale: binned([50, 70, 80, 90, 100], TRAFFIC, "%"),
    describe: (r) => `A ${fmt1(r.feed_a_pct)} % · B ${fmt1(r.feed_b_pct)} % of rating`,
  },
  density: {
    title: "Density",
    unit: "kW/m²",
    value: (r) => r.density_kw_per_m2,
    // White-space density (the API divides by each rack's share of the hall floor): a few kW/m² is typical.
    scale: binned([1, 2, 4, 6, 8, 12, 20], SEQUENTIAL, "kW/m²"),
    describe: (r) => `${fmt1(r.density_kw_per_m2)} kW/m²`,
  },
  cooling_type: {
    title: "Cooling type",
    unit: "",
    value: (r) => r.cooling_type,
    scale: categorical([
      ["air", "#5aa9e6", "Air"],
      ["rear-door", "#19a29b", "Rear-door HX"],
      ["direct-to-chip", "#6a4fd8", "Direct-to-chip"],
      ["immersion", "#c2409a", "Immersion"],
    ]),
    describe: (r) => r.cooling_type ?? "–",
  },
  temperature: {
    title: "Temperature",
    unit: "°C",
    value: (r) => r.temperature_c,
    scale: binned([30, 40, 50, 60, 70, 80, 85], SEQUENTIAL, "°C"),
    describe: (r) => (r.temperature_c == null ? "no replayed value" : `${fmt1(r.temperature_c)} °C`),
  },
  status: {
    title: "Status",
    unit: "",
    value: (r) => r.status,
    scale: categorical([
      ["active", "#1f9d55", "Active"],
      ["planned", "#8fa3bf", "Planned"],
      ["offline", "#5b6475", "Offline"],
      ["failed", "#d92d20", "Failed"],
    ]),
    describe: (r) => r.status ?? "–",
  },
};

// Impact mode: one colour per way a rack is hit; everything else fades.
export const IMPACT = {
  both: { color: "#d92d20", label: "Loses both feeds (down)" },
  cascade: { color: "#7a1f5c", label: "Down by a cascade trip" },
  a: { color: "#f08a1c", label: "Loses feed A (on B)" },
  b: { color: "#7c5cff", label: "Loses feed B (on A)" },
  cooling: { color: "#0b8bd9", label: "Loses cooling" },
  unaffected: { color: "#cfd6df", label: "Unaffected" },
};

const GPU_PALETTE = ["#2f6fde", "#17a77a", "#e0452b", "#e3b50f", "#7c5cff", "#c2409a", "#19a29b", "#f08a1c"];
/** @type {Map<string, string>} */
const gpuAssigned = new Map();
/** One colour per GPU model, the same on every page (a family shares its colour). @param {string} model */
export function gpuColor(model) {
  let assigned = gpuAssigned.get(model);
  if (!assigned) {
    const key = String(model).toLowerCase();
    let color;
    if (key.includes("gb200") || key.includes("b200")) color = "#17a77a";
    else if (key.includes("h100") || key.includes("h200")) color = "#2f6fde";
    else if (key.includes("mi3")) color = "#e0452b";
    else {
      let h = 0;
      for (const c of key) h = (h * 31 + c.charCodeAt(0)) >>> 0;
      color = GPU_PALETTE[h % GPU_PALETTE.length];
    }
    gpuAssigned.set(model, (assigned = color));
  }
  return assigned;
}

export const SERIES_COLORS = ["#2f6fde", "#e0452b", "#17a77a", "#e3b50f", "#7c5cff", "#c2409a", "#19a29b", "#f08a1c"];

/** @param {number | null | undefined} a @param {number | null | undefined} b */
function maxOrNull(a, b) {
  if (a == null && b == null) return null;
  return Math.max(a ?? -Infinity, b ?? -Infinity);
}

/** @param {number | null | undefined} v */
function fmt1(v) {
  return v === null || v === undefined ? "–" : Number(v).toLocaleString("en-US", { maximumFractionDigits: 1 });
}
