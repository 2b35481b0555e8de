// Number formatting shared by every page; tests format API values with the same rules.

const nf = (digits) => new Intl.NumberFormat("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });
const cache = new Map();
function fmtDigits(value, digits) {
  if (!cache.has(digits)) cache.set(digits, nf(digits));
  return cache.get(digits).format(value);
}

export function num(value, digits = 0) {
  if (value === null || value === undefined || Number.isNaN(Number(value))) return "–";
  return fmtDigits(Number(value), digits);
}

export function mw(value, digits = 1) {
  return value === null || value === undefined ? "–" : `${num(value, digits)} MW`;
}

export function kw(value, digits = 1) {
  return value === null || value === undefined ? "–" : `${num(value, digits)} kW`;
}

export function pct(fraction, digits = 0) {
  return fraction === null || fraction === undefined ? "–" : `${num(fraction * 100, digits)} %`;
}

export function usd(value) {
  if (value === null || value === undefined) return "–";
  const abs = Math.abs(value);
  if (abs >= 1e9) return `$${num(value / 1e9, 2)} B`;
  if (abs >= 1e6) return `$${num(value / 1e6, 1)} M`;
  if (abs >= 1e3) return `$${num(value / 1e3, 1)} k`;
  return `$${num(value, 0)}`;
}

export function hours(value) {
  if (value === null || value === undefined) return "–";
  if (value >= 48) return `${num(value / 24, 1)} d`;
  if (value >= 1) return `${num(value, 1)} h`;
  return `${num(value * 60, 0)} min`;
}

export function compact(value) {
  if (value === null || value === undefined) return "–";
  const abs = Math.abs(value);
  if (abs >= 1e6) return `${num(value / 1e6, 2)} M`;
  if (abs >= 1e4) return `${num(value / 1e3, 1)} k`;
  return num(value, abs < 10 && !Number.isInteger(value) ? 2 : 0);
}

export function label(key) {
  return String(key)
    .replace(/_/g, " ")
    .replace(/\bkw\b/gi, "kW")
    .replace(/\bkwh\b/gi, "kWh")
    .replace(/\bmwh\b/gi, "MWh")
    .replace(/\bw\b/g, "W")
    .replace(
      /\b(mw|gpu|nic|pue|ettr|mttf|mtbf|mfu|it|usd|twh|cdu|ups|pdu|hbm|psu|gsp|sram|eflop|pflops|tflops|id)\b/gi,
      (m) => m.toUpperCase(),
    )
    .replace(/\bgpus\b/gi, "GPUs")
    .replace(/\bgbps\b/gi, "Gb/s")
    .replace(/^./, (c) => c.toUpperCase());
}

export function dateTime(iso) {
  if (!iso) return "–";
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toISOString().replace("T", " ").slice(0, 16) + " UTC";
}
