// @ts-check
// Scheduled runs: each schedule's timetable, thresholds and last run (flagged when it crossed one).
import { api, qs } from "../../lib/api.js";
import { $, clear, el, errorBox } from "../../lib/dom.js";
import * as f from "../../lib/format.js";
import { scheduleWhen, thresholdText } from "../../lib/schedule.js";
import { scheduleForm } from "./schedule-form.js";
import { statusBadge } from "./shared.js";

/** Open the form (a new schedule, or one to edit) above the table; a save reloads the list. */
async function openForm(page, schedule) {
  const slot = $("schedule-form-slot");
  if (!slot) return;
  clear(slot).append(el("p", { class: "loading" }, "Opening the form…"));
  const form = await scheduleForm(page, schedule, () => {
    clear(slot);
    loadSchedules(page);
  });
  clear(slot).append(form);
  /** @type {HTMLElement | null} */ (form.querySelector("input, select"))?.focus();
}

/** The "New schedule" button and the form's place (administrators: the API lets them write schedules). */
function adminTools(page, box) {
  if (page.role !== "admin") return;
  box.before(
    el(
      "div",
      { id: "schedule-tools" },
      el(
        "button",
        { type: "button", class: "button", "data-testid": "schedule-new", onclick: () => openForm(page, null) },
        "New schedule",
      ),
      el("div", { id: "schedule-form-slot" }),
    ),
  );
}

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
  if (!$("schedule-tools")) adminTools(page, box);
  if (!schedules.length) {
    box.append(
      el(
        "p",
        { class: "muted" },
        page.role === "admin" ? "No scheduled runs yet." : "No scheduled runs. Administrators add them here.",
      ),
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
          page.role === "admin" ? el("th", {}, el("span", { class: "visually-hidden" }, "Edit")) : null,
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
            page.role === "admin"
              ? el(
                  "td",
                  {},
                  el(
                    "button",
                    {
                      type: "button",
                      class: "button-quiet",
                      "data-testid": `schedule-edit-${s.id}`,
                      "aria-label": `Edit ${s.name}`,
                      onclick: () => openForm(page, s),
                    },
                    "Edit",
                  ),
                )
              : null,
          ),
        ),
      ),
    ),
  );
}
