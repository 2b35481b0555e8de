// @ts-check
// A schedule's timing in words (src/lib/schedule.js).
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { cronFrom, cronWords, scheduleWhen, thresholdText } from "../src/lib/schedule.js";

test("common crontabs read as words, in UTC", () => {
  assert.equal(cronWords("0 2 * * *"), "every day at 02:00 UTC");
  assert.equal(cronWords("30 6 * * 1"), "every Monday at 06:30 UTC");
  assert.equal(cronWords("0 6 * * 7"), "every Sunday at 06:00 UTC");
  assert.equal(cronWords("15 8 * * 1-5"), "every weekday at 08:15 UTC");
  assert.equal(cronWords("0 0 1 * *"), "on the 1st of every month at 00:00 UTC");
  assert.equal(cronWords("0 0 22 * *"), "on the 22nd of every month at 00:00 UTC");
  assert.equal(cronWords("0 0 11 * *"), "on the 11th of every month at 00:00 UTC");
  assert.equal(cronWords("0 12 1 7 *"), "every year on 1 July at 12:00 UTC");
  assert.equal(cronWords("*/15 * * * *"), "every 15 minutes");
  assert.equal(cronWords("5 */6 * * *"), "every 6 hours at minute 5");
  assert.equal(cronWords("5 * * * *"), "every hour at minute 5");
});

test("a pattern not described is left as written, never guessed", () => {
  assert.equal(cronWords("0 2,14 * * *"), null);
  assert.equal(cronWords("0 2 * *"), null);
  assert.equal(cronWords("0 25 * * *"), null);
  assert.equal(scheduleWhen({ crontab: "0 2,14 * * *" }), "0 2,14 * * *");
});

test("a schedule shows its timing in words beside the expression, or its interval in the largest whole unit", () => {
  assert.equal(scheduleWhen({ crontab: "0 2 * * *" }), "every day at 02:00 UTC (0 2 * * *)");
  assert.equal(scheduleWhen({ interval_seconds: 21600 }), "every 6 h");
  assert.equal(scheduleWhen({ interval_seconds: 172800 }), "every 2 d");
  assert.equal(scheduleWhen({ interval_seconds: 90 }), "every 90 s");
  assert.equal(scheduleWhen({}), "–");
});

test("every daily crontab names its own hour and minute", () => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 59 }), fc.integer({ min: 0, max: 23 }), (m, h) => {
      const hh = String(h).padStart(2, "0");
      const mm = String(m).padStart(2, "0");
      assert.equal(cronWords(`${m} ${h} * * *`), `every day at ${hh}:${mm} UTC`);
    }),
  );
});

test("a threshold names its metric in words, not by its key", () => {
  assert.equal(thresholdText({ metric: "ettr", stat: "mean", op: "<", value: 0.9 }), "ETTR (mean) < 0.9");
  assert.equal(thresholdText({ metric: "max_gpu_temp_c", op: ">", value: 85 }), "Max GPU temp (°C) > 85");
});

test("the form's presets write the crontab crontab(5) reads as the preset says", () => {
  assert.equal(cronFrom({ preset: "daily", time: "02:30" }), "30 2 * * *");
  assert.equal(cronWords(cronFrom({ preset: "daily", time: "02:30" })), "every day at 02:30 UTC");
  assert.equal(cronFrom({ preset: "weekdays", time: "06:00" }), "0 6 * * 1-5");
  assert.equal(cronWords(cronFrom({ preset: "weekly", time: "06:30", day: 1 })), "every Monday at 06:30 UTC");
  assert.equal(cronFrom({ preset: "minutes", every: 15 }), "*/15 * * * *");
  assert.equal(cronWords(cronFrom({ preset: "hourly", minute: 5 })), "every hour at minute 5");
  assert.equal(
    cronWords(cronFrom({ preset: "monthly", time: "00:00", dayOfMonth: 1 })),
    "on the 1st of every month at 00:00 UTC",
  );
  assert.equal(cronFrom({ preset: "custom", custom: "  0  3 * *   0 " }), "0 3 * * 0");
});
