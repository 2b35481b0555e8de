// @ts-check
// Scheduled runs: each schedule's timetable, thresholds and last run (flagged when it crossed one).
import { api, qs } from "../../lib/api.js";
import { $, clear, el, errorBox } from "../../lib/dom.js";
import * as f from "../../lib/format.js";
import { scheduleWhen, thresholdText } from "../../lib/schedule.js";
import { statusBadge } from "./shared.js";

export async function loadSchedules(page) {
  const box = $("schedule-list");
  let schedules;
  try {
    schedules = await api.all(`/api/schedules/${qs({ campus: page.campusId })}`);
  } catch (error) {
    clear(box).append(errorBox(error, "schedules-error"));
    return;
  }
  clear(box);
  if (!schedules.length) {
    box.append(
      el("p", { class: "muted" }, "No scheduled runs. Administrators add them through the API (/api/schedules/)."),
    );
    return;
  }
  box.append(
    el(
      "table",
      { class: "table compact", "data-testid": "schedule-table" },
      el(
        "thead",
        {},
        el(
          "tr",
          {},
          el("th", {}, "Name"),
          el("th", {}, "When (UTC)"),
          el("th", { class: "num" }, "Replicas"),
          el("th", {}, "Thresholds"),
          el("th", {}, "Last run"),
          el("th", {}, "Enabled"),
        ),
      ),
      el(
        "tbody",
        {},
        schedules.map((s) =>
          el(
            "tr",
            { "data-schedule-id": s.id },
            el("td", {}, s.name),
            el("td", {}, scheduleWhen(s)),
            el("td", { class: "num" }, f.num(s.replicas)),
            el("td", { class: "small" }, (s.thresholds ?? []).map(thresholdText).join("; ") || "–"),
            el(
              "td",
              {},
              s.last_run
                ? [
                    el(
                      "a",
                      {
                        href: `?run=${s.last_run.id}`,
                        onclick: (e) => (e.preventDefault(), page.openRun(s.last_run.id)),
                      },
                      `#${s.last_run.id}`,
                    ),
                    " ",
                    statusBadge(s.last_run),
                    s.last_run.flagged
                      ? el("span", { class: "flag" }, "flagged")
                      : s.last_run.status === "succeeded"
                        ? el("span", { class: "flag flag-ok" }, "ok")
                        : null,
                    el("div", { class: "muted small" }, f.dateTime(s.last_run.created)),
                  ]
                : el("span", { class: "muted" }, "not run yet"),
            ),
            el("td", {}, s.enabled ? "yes" : "no"),
          ),
        ),
      ),
    ),
  );
}
