// @ts-check
// The capacity report: per hall and per row, space (U), power (kW), cooling (kW of heat) and ports, each as
// capacity, used, reserved and available (GET /api/campuses/{id}/capacity/, docs/capacity-report.md).
import { api } from "../../lib/api.js";
import { el, errorBox, fill } from "../../lib/dom.js";
import * as f from "../../lib/format.js";

const MEASURES = [
  ["space_u", "Space (U)"],
  ["power_kw", "Power (kW)"],
  ["cooling_kw", "Cooling (kW)"],
  ["ports", "Ports"],
];
const PARTS = ["capacity", "used", "reserved", "available"];

/** @param {number | null} v */
function cell(v, over = 0) {
  if (v === null || v === undefined) return el("td", { class: "num muted" }, "–");
  return el(
    "td",
    {
      class: over > 0 ? "num bad" : "num",
      "data-value": Math.round(v * 10) / 10,
      title: over > 0 ? `over by ${f.num(over)}` : null,
    },
    over > 0 ? `−${f.num(over)}` : f.num(v),
  );
}

/** @param {any} scope @param {string} name @param {boolean} isRow */
function line(scope, name, isRow) {
  return el(
    "tr",
    { class: isRow ? "row-sub" : "row-hall", "data-scope": name },
    el("th", { scope: "row" }, isRow ? `  ${name}` : name),
    el("td", { class: "num", "data-value": scope.racks }, f.num(scope.racks)),
    MEASURES.flatMap(([key]) =>
      PARTS.map((part) => cell(scope[key][part], part === "available" ? scope[key].over : 0)),
    ),
  );
}

/** @param {HTMLElement} root @param {number} campusId */
export async function capacityPage(root, campusId) {
  try {
    const report = await api.get(`/api/campuses/${campusId}/capacity/`);
    fill(
      root,
      el("h1", {}, `${report.campus.name}: capacity per hall and row`),
      el(
        "p",
        { class: "muted" },
        "Reserved is what planned racks and servers hold; available is what is left (in red, how far a hall is " +
          "over). Power is the racks' design budget; cooling the units placed in the hall, before any N+1 spare; " +
          "a row's cooling and ports have no capacity of their own (units and switches serve the hall).",
      ),
      el(
        "div",
        { class: "table-scroll" },
        el(
          "table",
          { class: "table table-capacity", "data-testid": "capacity-table" },
          el("caption", {}, "Capacity per hall and row"),
          el(
            "thead",
            {},
            el(
              "tr",
              {},
              el("td", {}),
              el("td", {}),
              MEASURES.map(([, title]) => el("th", { scope: "colgroup", colspan: 4 }, title)),
            ),
            el(
              "tr",
              {},
              el("th", { scope: "col" }, "Hall / row"),
              el("th", { scope: "col", class: "num" }, "Racks"),
              MEASURES.flatMap(([, title]) =>
                PARTS.map((part) => el("th", { scope: "col", class: "num" }, `${title.split(" (")[0]} ${part}`)),
              ),
            ),
          ),
          el(
            "tbody",
            {},
            report.halls.flatMap((h) => [line(h, h.name, false), ...h.rows.map((r) => line(r, r.name, true))]),
          ),
        ),
      ),
    );
  } catch (error) {
    fill(root, errorBox(error));
  } finally {
    root.setAttribute("aria-busy", "false");
  }
}
