// @ts-check
// A power device's page: its rating, load and headroom now and after the worst single failure of another device
// (GET /api/power-devices/{id}/figures/), what it serves — the racks impact mode finds hit when it fails, the same
// answer — its sources and loads (its power feeds), and its history of changes.
import { api } from "../../lib/api.js";
import { el, errorBox, fill } from "../../lib/dom.js";
import * as f from "../../lib/format.js";
import { measuredCard } from "../../lib/measured.js";

/** @param {string} term @param {any} value @param {string} [testid] */
const item = (term, value, testid) => [el("dt", {}, term), el("dd", { "data-testid": testid }, value)];

/** @param {any} d figures answer */
function figures(d) {
  const worst = d.worst_single_failure;
  return el(
    "section",
    { class: "card", "aria-labelledby": "device-figures" },
    el("h2", { id: "device-figures" }, "Rating, load and headroom"),
    el(
      "dl",
      { class: "facts", "data-testid": "device-facts" },
      item("Kind", d.kind_label),
      item("Rating", f.kw(d.rated_kw), "device-rating"),
      item("Usable", `${f.kw(d.usable_kw)} (${f.pct(d.max_utilization)} of the rating)`),
      item("Load now", `${f.kw(d.load_kw)} (${f.pct(d.utilization, 1)} of the rating)`, "device-load"),
      item("Headroom now", f.kw(d.headroom_kw), "device-headroom"),
      item(
        "After the worst single failure",
        worst
          ? [
              `${worst.device.name} fails: load ${f.kw(worst.load_kw)} (${f.pct(worst.utilization, 1)}), headroom `,
              el("strong", { class: worst.headroom_kw < 0 ? "bad" : null }, f.kw(worst.headroom_kw)),
            ]
          : "no other device's failure moves load onto it",
        "device-worst",
      ),
    ),
    el(
      "p",
      { class: "muted" },
      `${f.num(d.failures_tried)} other devices failed one at a time through the same roll-up as every figure` +
        (d.failures_capped ? " (the first 200 of them)." : "."),
    ),
  );
}

/** @param {any} d @param {number} campusId */
function serves(d, campusId) {
  const s = d.serves;
  const part = (n, words) => (n ? `${f.num(n)} ${words}` : null);
  const parts = [
    part(s.lost_a.length, "lose side A"),
    part(s.lost_b.length, "lose side B"),
    part(s.lost_both.length, "lose both sides"),
    part(s.lost_cooling.length, "lose their cooling"),
  ].filter(Boolean);
  return el(
    "section",
    { class: "card", "aria-labelledby": "device-serves" },
    el("h2", { id: "device-serves" }, "What it serves"),
    el(
      "p",
      { "data-testid": "device-serves", "data-racks": s.rack_count },
      s.rack_count
        ? [
            el("strong", {}, `${f.num(s.rack_count)} racks`),
            ` are hit when it fails: ${parts.join(", ")}; `,
            `${f.num(s.gpus_lost)} GPUs lost.`,
          ]
        : "No rack is hit when it fails (its load has another path, or it carries none).",
    ),
    el("p", { class: "muted" }, "The same racks impact mode colours when this device is failed on the floor map."),
    el("a", { href: `/campuses/${campusId}/map/` }, "Open the floor map"),
  );
}

/** @param {any[]} feeds @param {string} title @param {"up" | "down"} way @param {string} base */
function feedTable(feeds, title, way, base) {
  return el(
    "table",
    { class: "table", "data-testid": `feeds-${way}` },
    el("caption", {}, title),
    el(
      "thead",
      {},
      el(
        "tr",
        {},
        el("th", { scope: "col" }, way === "up" ? "Source" : "Load"),
        el("th", { scope: "col" }, "Side"),
        el("th", { scope: "col", class: "num" }, "Rating (kW)"),
      ),
    ),
    el(
      "tbody",
      {},
      feeds.map((p) => {
        const other = way === "up" ? p.upstream : (p.downstream_device ?? p.rack);
        const href =
          way === "up" || p.downstream_device ? `${base}/power-devices/${other?.id}/` : `${base}/racks/${other?.id}/`;
        return el(
          "tr",
          {},
          el("th", { scope: "row" }, other ? el("a", { href }, other.name) : "–"),
          el("td", {}, p.side),
          el("td", { class: "num", "data-value": p.rating_kw }, f.num(p.rating_kw, 1)),
        );
      }),
    ),
  );
}

const TYPES = { "+": "Created", "~": "Changed", "-": "Deleted" };

/** @param {any} c a change record */
function changeText(c) {
  const fields = (c.changes ?? []).map((x) => `${f.label(x.field)}: ${x.old ?? "–"} → ${x.new ?? "–"}`);
  return [TYPES[c.type] ?? c.type, ...fields].join("; ");
}

/** @param {any[]} changes */
export function history(changes) {
  return el(
    "section",
    { class: "card card-wide", "aria-labelledby": "history-title" },
    el("h2", { id: "history-title" }, "History"),
    changes.length
      ? el(
          "table",
          { class: "table", "data-testid": "history" },
          el(
            "thead",
            {},
            el(
              "tr",
              {},
              el("th", { scope: "col" }, "When"),
              el("th", { scope: "col" }, "Change"),
              el("th", { scope: "col" }, "By"),
            ),
          ),
          el(
            "tbody",
            {},
            changes.map((c) =>
              el(
                "tr",
                {},
                el("td", {}, f.dateTime(c.date)),
                el("td", {}, changeText(c)),
                el("td", {}, c.user?.username ?? "–"),
              ),
            ),
          ),
        )
      : el("p", { class: "muted", "data-testid": "history" }, "No change recorded since it was loaded."),
  );
}

/** @param {HTMLElement} root @param {number} campusId @param {number} id */
export async function devicePage(root, campusId, id) {
  const base = `/campuses/${campusId}/inventory`;
  try {
    const [d, up, down, changes] = await Promise.all([
      api.get(`/api/power-devices/${id}/figures/`),
      api.all(`/api/power-feeds/?downstream_device=${id}`),
      api.all(`/api/power-feeds/?upstream=${id}`),
      api.get(`/api/changes/?model=powerdevice&object_id=${id}&limit=20`),
    ]);
    if (d.campus.id !== campusId) {
      fill(
        root,
        el(
          "p",
          { class: "notice notice-warn", role: "alert" },
          `${d.name} belongs to ${d.campus.name}, not this design.`,
        ),
      );
      return;
    }
    fill(
      root,
      el("h1", { "data-testid": "device-name" }, d.name),
      el(
        "div",
        { class: "grid" },
        figures(d),
        measuredCard(campusId, d.kind, d.name),
        serves(d, campusId),
        el(
          "section",
          { class: "card card-wide", "aria-labelledby": "feeds-title" },
          el("h2", { id: "feeds-title" }, "Sources and loads"),
          feedTable(up, "Fed from", "up", base),
          feedTable(down, "Feeds", "down", base),
        ),
        history(changes.results ?? []),
      ),
    );
  } catch (error) {
    fill(root, errorBox(error));
  } finally {
    root.setAttribute("aria-busy", "false");
  }
}
