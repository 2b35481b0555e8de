// @ts-check
// Demand-response events: what the utility's VTN asked over OpenADR, and what the campus answered (opted in or
// out) with the impact the grid_limit scenario predicted (docs/grid.md, "OpenADR").
import { api, qs } from "../../lib/api.js";
import { $, clear, el, errorBox } from "../../lib/dom.js";
import * as f from "../../lib/format.js";

/** What an event asked, in words. @param {any} e */
export function askedWords(e) {
  const ev = (e.params?.events ?? [])[0];
  if (!ev) return `${e.signal_name || "?"} ${e.signal_type || ""}`.trim();
  if (ev.shed_mw != null) return `shed ${f.num(ev.shed_mw, 1)} MW`;
  if (ev.target_mw != null) return `stay under ${f.num(ev.target_mw, 1)} MW`;
  if (ev.share_of_load != null) return `shed ${f.pct(ev.share_of_load)} of the load`;
  return "–";
}

/** @param {string} opt */
const answerBadge = (opt) =>
  el("span", { class: opt === "optIn" ? "flag flag-ok" : "flag" }, opt === "optIn" ? "opted in" : "opted out");

/** @param {any} impact */
const lostWords = (impact) =>
  impact?.throughput_lost_fraction != null ? f.pct(impact.throughput_lost_fraction, 1) : "–";

export async function loadDrEvents(page) {
  const box = $("dr-event-list");
  let events;
  try {
    events = await api.all(`/api/demand-response-events/${qs({ campus: page.campusId })}`);
  } catch (error) {
    clear(box).append(errorBox(error, "dr-events-error"));
    return;
  }
  clear(box);
  if (!events.length) {
    box.append(
      el(
        "p",
        { class: "muted" },
        "No demand-response events yet. The campus answers a utility's OpenADR events once its VEN runs " +
          "(manage.py run_ven).",
      ),
    );
    return;
  }
  box.append(
    el(
      "table",
      { class: "table compact", "data-testid": "dr-event-table" },
      el(
        "thead",
        {},
        el(
          "tr",
          {},
          el("th", {}, "Event"),
          el("th", {}, "Starts"),
          el("th", { class: "num" }, "Hours"),
          el("th", {}, "Asked"),
          el("th", {}, "Answer"),
          el("th", { class: "num" }, "Throughput lost"),
          el("th", { class: "num" }, "Cost (USD)"),
          el("th", {}, "Why"),
        ),
      ),
      el(
        "tbody",
        {},
        events.map((e) =>
          el(
            "tr",
            { "data-dr-event": e.event_id },
            el("td", {}, e.event_id),
            el("td", {}, f.dateTime(e.starts_at)),
            el("td", { class: "num" }, f.num(e.duration_s / 3600, 1)),
            el("td", {}, askedWords(e)),
            el("td", {}, answerBadge(e.opt)),
            el("td", { class: "num" }, lostWords(e.impact)),
            el("td", { class: "num" }, e.impact?.flex_cost_usd != null ? f.num(e.impact.flex_cost_usd) : "–"),
            el("td", { class: "small" }, e.reason),
          ),
        ),
      ),
    ),
  );
}
