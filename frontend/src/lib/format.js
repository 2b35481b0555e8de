// @ts-check
// Number formatting shared by every page; tests format API values with the same rules.

/** @param {number} digits */
const nf = (digits) => new Intl.NumberFormat("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });
/** @type {Map<number, Intl.NumberFormat>} */
const cache = new Map();
/** @param {number} value @param {number} digits */
function fmtDigits(value, digits) {
  let format = cache.get(digits);
  if (!format) cache.set(digits, (format = nf(digits)));
  return format.format(value);
}

/**
 * A number with `digits` decimals, grouped by thousands; "–" when missing.
 * @param {number | null | undefined | string} value
 * @param {number} [digits]
 */
export function num(value, digits = 0) {
  if (value === null || value === undefined || Number.isNaN(Number(value))) return "–";
  return fmtDigits(Number(value), digits);
}

/** @param {number | null | undefined} value @param {number} [digits] */
export function mw(value, digits = 1) {
  return value === null || value === undefined ? "–" : `${num(value, digits)} MW`;
}

/** @param {number | null | undefined} value @param {number} [digits] */
export function kw(value, digits = 1) {
  return value === null || value === undefined ? "–" : `${num(value, digits)} kW`;
}

/**
 * An energy given in TWh: TWh from 1 TWh up, else GWh (a campus's year is mostly tens to hundreds of GWh),
 * with a decimal below 10 GWh so that a small campus keeps two significant figures.
 * @param {number | null | undefined} twh
 */
export function energy(twh) {
  if (twh === null || twh === undefined) return "–";
  const abs = Math.abs(twh);
  if (abs >= 1) return `${num(twh, 2)} TWh`;
  return `${num(twh * 1000, abs >= 0.01 ? 0 : 1)} GWh`;
}

/** A fraction as a percentage: 0.934 -> "93 %". @param {number | null | undefined} fraction @param {number} [digits] */
export function pct(fraction, digits = 0) {
  return fraction === null || fraction === undefined ? "–" : `${num(fraction * 100, digits)} %`;
}

/** Money: "$7.4 M", "$2.50 B", "$950". @param {number | null | undefined} value */
export function usd(value) {
  if (value === null || value === undefined) return "–";
  const abs = Math.abs(value);
  if (abs >= 1e9) return `$${num(value / 1e9, 2)} B`;
  if (abs >= 1e6) return `$${num(value / 1e6, 1)} M`;
  if (abs >= 1e3) return `$${num(value / 1e3, 1)} k`;
  return `$${num(value, 0)}`;
}

/** A duration given in hours: minutes below 1 h, days from 48 h. @param {number | null | undefined} value */
export function hours(value) {
  if (value === null || value === undefined) return "–";
  if (value >= 48) return `${num(value / 24, 1)} d`;
  if (value >= 1) return `${num(value, 1)} h`;
  return `${num(value * 60, 0)} min`;
}

/** A count or a figure in k or M. @param {number | null | undefined} value */
export function compact(value) {
  if (value === null || value === undefined) return "–";
  const abs = Math.abs(value);
  if (abs >= 1e6) return `${num(value / 1e6, 2)} M`;
  if (abs >= 1e4) return `${num(value / 1e3, 1)} k`;
  return num(value, abs < 10 && !Number.isInteger(value) ? 2 : 0);
}

// Words kept as written in labels made from names: acronyms and units.
const WORDS = new Map(
  [
    "GPU",
    "GPUs",
    "CPU",
    "SDC",
    "NCCL",
    "PDU",
    "UPS",
    "CDU",
    "HBM",
    "MW",
    "MWh",
    "kW",
    "kWh",
    "W",
    "NIC",
    "PUE",
    "ETTR",
    "MTTF",
    "MTBF",
    "MFU",
    "IT",
    "USD",
    "TWh",
    "PSU",
    "GSP",
    "SRAM",
    "SSD",
    "EFLOP",
    "PFLOPS",
    "TFLOPS",
    "TDP",
    "ID",
    "IO",
    "FP8",
    "BF16",
    "FP16",
    "TF32",
    "FP32",
    "RPP",
    "CRAH",
    "N+1",
    "SXM",
    "PCIe",
    "HGX",
    "DGX",
    "NVL",
    "AMD",
    "DC",
    "AC",
    "VDC",
    "WUE",
    "BESS",
    "SOC",
  ].map((w) => [w.toLowerCase(), w]),
);
/** @type {Record<string, string>} */
const UNIT_SUFFIX = {
  c: "°C",
  k: "K",
  s: "s",
  minutes: "min",
  hours: "h",
  days: "d",
  gbps: "Gbit/s",
  w: "W",
  kw: "kW",
  mw: "MW",
  kwh: "kWh",
  mwh: "MWh",
  usd: "USD",
  hz: "Hz",
};

/** A model code or a part of a name with digits in it ("h100", "nvl72", "910b", "2n") is written in capitals;
 * ordinals ("2nd") are not codes. */
const CODE = /^(?!\d+(?:st|nd|rd|th)$)(?=[a-z0-9]*\d)(?=[a-z0-9]*[a-z])[a-z0-9]+$/i;

/**
 * A name as a person reads it when no catalogue has it: "max_gpu_temp_c" -> "Max GPU temp (°C)",
 * "nccl_watchdog" -> "NCCL watchdog", "fabric_ports" -> "Fabric ports", "gpu temp c" -> "GPU temp (°C)",
 * "h100-sxm" -> "H100 SXM". Labels the API gives (the metric catalogue) come first.
 * @param {unknown} key
 */
export function label(key) {
  // A slug ("h100-sxm", "fabric_ports") has its hyphens read as spaces and its model codes in capitals; a title
  // with spaces keeps both ("Liquid-cooled", "30s").
  const slug = /^[a-z0-9_-]+$/i.test(String(key));
  const words = String(key)
    .split(slug ? /[_-]+/ : /[_\s]+/)
    .filter(Boolean);
  let unit = null;
  const last = words.at(-1)?.toLowerCase() ?? "";
  if (words.length > 1 && UNIT_SUFFIX[last]) {
    unit = UNIT_SUFFIX[last];
    words.pop();
  }
  const text = words.map((w) => WORDS.get(w.toLowerCase()) ?? (slug && CODE.test(w) ? w.toUpperCase() : w)).join(" ");
  const head = text.charAt(0).toUpperCase() + text.slice(1);
  return unit ? `${head} (${unit})` : head;
}

/** A figure to about `digits` significant figures: whole numbers without decimals ("6,272"), others
 * trimmed ("0.913", "12.4", "1,234"). @param {number | null | undefined | string} value @param {number} [digits] */
export function sig(value, digits = 3) {
  if (value === null || value === undefined || !Number.isFinite(Number(value))) return "–";
  const v = Number(value);
  if (Number.isInteger(v)) return fmtRange(v, 0);
  const magnitude = Math.floor(Math.log10(Math.abs(v)));
  const decimals = Math.min(6, Math.max(0, digits - 1 - magnitude));
  return fmtRange(v, decimals);
}

/** @type {Map<number, Intl.NumberFormat>} */
const rangeCache = new Map();
/** @param {number} value @param {number} decimals */
function fmtRange(value, decimals) {
  let format = rangeCache.get(decimals);
  if (!format) rangeCache.set(decimals, (format = new Intl.NumberFormat("en-US", { maximumFractionDigits: decimals })));
  const text = format.format(value);
  return text === "-0" ? "0" : text;
}

/**
 * A metric's value in its unit (the catalogue's): fractions as %, USD as money, counts whole.
 * @param {number | null | undefined} value
 * @param {string} [unit]
 */
export function metricValue(value, unit = "") {
  if (value === null || value === undefined || !Number.isFinite(Number(value))) return "–";
  if (String(unit).startsWith("fraction")) return `${sig(value * 100)} %`;
  if (unit === "USD") return usd(value);
  return unit ? `${sig(value)} ${unit}` : sig(value);
}

/**
 * Axis tick labels with just enough decimals to tell neighbouring ticks apart (never "0.91, 0.91").
 * @param {number[]} values
 * @returns {string[]}
 */
export function ticks(values) {
  const finite = values.filter((v) => Number.isFinite(v));
  if (finite.length < 2) return values.map((v) => sig(v));
  const step = Math.min(
    ...finite
      .slice(1)
      .map((v, i) => Math.abs(v - finite[i]))
      .filter((d) => d > 0),
  );
  const big = Math.max(...finite.map(Math.abs));
  const [scale, suffix] = big >= 1e6 ? [1e6, " M"] : big >= 1e4 ? [1e3, " k"] : [1, ""];
  const decimals = Number.isFinite(step) ? Math.min(6, Math.max(0, Math.ceil(-Math.log10(step / scale) - 1e-9))) : 0;
  return values.map((v) => (v === 0 ? "0" : Number.isFinite(v) ? `${fmtRange(v / scale, decimals)}${suffix}` : ""));
}

/** An ISO time as "2026-11-28 23:16 UTC". @param {string | null | undefined} iso */
export function dateTime(iso) {
  if (!iso) return "–";
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toISOString().replace("T", " ").slice(0, 16) + " UTC";
}

const NAMES = new Intl.Collator("en", { numeric: true });

/** Order by name as people count: B2 before B10 (the API lists names in text order: B1, B10, B11, …, B2). */
/** @param {{name: unknown}} a @param {{name: unknown}} b */
export function byName(a, b) {
  return NAMES.compare(String(a.name), String(b.name));
}
