// @ts-check
// A schedule's timing in words: the five fields of a crontab (minute, hour, day of month, month, day of week, in
// the server's time zone, UTC) as a planner reads them, for the patterns schedules use; anything else is left as
// written. No DOM here: node's tests import it as it is.
import { label, num } from "./format.js";

const DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];

/** @param {string} h @param {string} m */
const clock = (h, m) => `${h.padStart(2, "0")}:${m.padStart(2, "0")}`;
const WHOLE = /^\d+$/;

/** "1" -> "1st", "22" -> "22nd". @param {number} n */
function ordinal(n) {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? "th" : (["th", "st", "nd", "rd"][n % 10] ?? "th");
  return `${n}${suffix}`;
}

/**
 * A crontab in words: "0 2 * * *" -> "every day at 02:00 UTC", "30 6 * * 1" -> "every Monday at 06:30 UTC",
 * "0 0 1 * *" -> "on the 1st of every month at 00:00 UTC", a minute step of 15 -> "every 15 minutes", an hour
 * step of 6 -> "every 6 hours at minute 0"; null for a pattern not described here.
 * @param {string | null | undefined} expr
 * @returns {string | null}
 */
export function cronWords(expr) {
  const parts = String(expr ?? "")
    .trim()
    .split(/\s+/);
  if (parts.length !== 5) return null;
  const [m, h, dom, mon, dow] = parts;
  const everyDay = dom === "*" && mon === "*" && dow === "*";
  const stepM = /^\*\/(\d+)$/.exec(m);
  if (stepM && h === "*" && everyDay) return `every ${stepM[1]} minutes`;
  if (!WHOLE.test(m)) return null;
  const stepH = /^\*\/(\d+)$/.exec(h);
  if (stepH && everyDay) return `every ${stepH[1]} hours at minute ${Number(m)}`;
  if (h === "*" && everyDay) return `every hour at minute ${Number(m)}`;
  if (!WHOLE.test(h) || Number(h) > 23 || Number(m) > 59) return null;
  const at = `at ${clock(h, m)} UTC`;
  if (everyDay) return `every day ${at}`;
  if (dom === "*" && mon === "*" && WHOLE.test(dow) && Number(dow) <= 7) return `every ${DAYS[Number(dow) % 7]} ${at}`;
  if (dom === "*" && mon === "*" && dow === "1-5") return `every weekday ${at}`;
  if (WHOLE.test(dom) && mon === "*" && dow === "*") return `on the ${ordinal(Number(dom))} of every month ${at}`;
  if (WHOLE.test(dom) && WHOLE.test(mon) && dow === "*" && Number(mon) >= 1 && Number(mon) <= 12)
    return `every year on ${Number(dom)} ${MONTHS[Number(mon) - 1]} ${at}`;
  return null;
}

/**
 * A schedule's timing: its crontab in words with the expression beside it ("every day at 02:00 UTC (0 2 * * *)"),
 * or its interval ("every 6 h"), or "–".
 * @param {{crontab?: string | null, interval_seconds?: number | null}} schedule
 */
export function scheduleWhen(schedule) {
  const cron = String(schedule.crontab ?? "").trim();
  if (cron) {
    const words = cronWords(cron);
    return words ? `${words} (${cron})` : cron;
  }
  const s = schedule.interval_seconds;
  if (!s) return "–";
  if (s % 86400 === 0) return `every ${num(s / 86400)} d`;
  if (s % 3600 === 0) return `every ${num(s / 3600)} h`;
  if (s % 60 === 0) return `every ${num(s / 60)} min`;
  return `every ${num(s)} s`;
}

/**
 * A schedule's threshold as words: {metric: "ettr", stat: "mean", op: "<", value: 0.9} -> "ETTR (mean) < 0.9".
 * @param {{metric: string, stat?: string | null, op: string, value: number}} t
 */
export function thresholdText(t) {
  return `${label(t.metric)}${t.stat ? ` (${t.stat})` : ""} ${t.op} ${t.value}`;
}

/**
 * The ways the schedule form offers to say when (each becomes a crontab, in UTC), and "custom" for an
 * expression typed as it is.
 */
export const CRON_PRESETS = [
  ["minutes", "Every few minutes"],
  ["hourly", "Every hour"],
  ["daily", "Every day"],
  ["weekdays", "Every weekday (Monday to Friday)"],
  ["weekly", "Every week"],
  ["monthly", "Every month"],
  ["custom", "Custom crontab"],
];

/**
 * A crontab from the form's choices: {preset: "daily", time: "02:30"} -> "30 2 * * *", {preset: "weekly", time:
 * "06:00", day: 1} -> "0 6 * * 1", {preset: "minutes", every: 15} -> "*\/15 * * * *", {preset: "custom", custom:
 * "…"} -> the expression as typed (whitespace tidied). Fields as crontab(5) reads them: minute, hour, day of
 * month, month, day of week (0 or 7 Sunday).
 * @param {{preset: string, time?: string, day?: number, dayOfMonth?: number, every?: number, minute?: number,
 *   custom?: string}} choice
 * @returns {string}
 */
export function cronFrom(choice) {
  const [h, m] = String(choice.time || "00:00")
    .split(":")
    .map((x) => Math.max(0, Number.parseInt(x, 10) || 0));
  const hour = Math.min(23, h ?? 0);
  const minute = Math.min(59, m ?? 0);
  switch (choice.preset) {
    case "minutes":
      return `*/${Math.min(59, Math.max(1, Math.round(choice.every ?? 15)))} * * * *`;
    case "hourly":
      return `${Math.min(59, Math.max(0, Math.round(choice.minute ?? 0)))} * * * *`;
    case "daily":
      return `${minute} ${hour} * * *`;
    case "weekdays":
      return `${minute} ${hour} * * 1-5`;
    case "weekly":
      return `${minute} ${hour} * * ${Math.min(6, Math.max(0, Math.round(choice.day ?? 1)))}`;
    case "monthly":
      return `${minute} ${hour} ${Math.min(28, Math.max(1, Math.round(choice.dayOfMonth ?? 1)))} * *`;
    default:
      return String(choice.custom ?? "")
        .trim()
        .split(/\s+/)
        .join(" ");
  }
}
