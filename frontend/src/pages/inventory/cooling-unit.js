// @ts-check
// A cooling unit's page (a CDU, a CRAH, a rear door, an immersion tank): its design figures from the inventory
// (GET /api/cooling-units/{id}/), its supply and return temperature, flow and heat measured against the model
// (GET /api/campuses/{id}/measured/object/, one answer per metric), and its history of changes.
import { api } from "../../lib/api.js";
import { el, errorBox, fill } from "../../lib/dom.js";
import * as f from "../../lib/format.js";
import { coolingMeasuredCard } from "../../lib/measured.js";
import { history } from "./device.js";

/** @param {string} term @param {any} value @param {string} [testid] */
const item = (term, value, testid) => [el("dt", {}, term), el("dd", { "data-testid": testid }, value)];

/** @param {any} u the cooling unit @param {string} base the inventory's URL */
function design(u, base) {
  const supply = (/** @type {any} */ d) => (d ? el("a", { href: `${base}/power-devices/${d.id}/` }, d.name) : "–");
  return el(
    "section",
    { class: "card", "aria-labelledby": "unit-design" },
    el("h2", { id: "unit-design" }, "Design"),
    el(
      "dl",
      { class: "facts", "data-testid": "unit-facts" },
      item("Kind", f.label(u.kind)),
      item("Capacity", f.kw(u.capacity_kw), "unit-capacity"),
      item("Supply / return", `${f.num(u.supply_temp_c, 1)} / ${f.num(u.return_temp_c, 1)} °C`, "unit-temps"),
      item("Flow", u.flow_lpm > 0 ? `${f.num(u.flow_lpm)} L/min` : "not recorded (1.5 L/min per kW of its heat)"),
      item("Group", u.group || "–"),
      item("Hall", u.hall?.name ?? "–"),
      item("Plant", u.plant?.name ?? "–"),
      item("Power", [supply(u.power_device), u.power_device_b ? [" and ", supply(u.power_device_b)] : null]),
      item("Status", f.label(u.status)),
    ),
  );
}

/** @param {HTMLElement} root @param {number} campusId @param {number} id */
export async function coolingUnitPage(root, campusId, id) {
  const base = `/campuses/${campusId}/inventory`;
  try {
    const [u, changes] = await Promise.all([
      api.get(`/api/cooling-units/${id}/`),
      api.get(`/api/changes/?model=coolingunit&object_id=${id}&limit=20`),
    ]);
    const campus = typeof u.campus === "object" ? u.campus?.id : u.campus;
    if (campus !== campusId) {
      fill(root, el("p", { class: "notice notice-warn", role: "alert" }, `${u.name} belongs to another design.`));
      return;
    }
    fill(
      root,
      el("h1", { "data-testid": "unit-name" }, u.name),
      el(
        "div",
        { class: "grid" },
        design(u, base),
        coolingMeasuredCard(campusId, u.kind, u.name),
        history(changes.results ?? []),
      ),
    );
  } catch (error) {
    fill(root, errorBox(error));
  } finally {
    root.setAttribute("aria-busy", "false");
  }
}
