// @ts-check
// The capex card: capital cost by category, per MW of IT and the total cost of ownership (the summary's `capex`),
// and on demand the bill of materials by category (GET /api/campuses/{id}/bom/, docs/capex.md).
import { api } from "../../lib/api.js";
import { el, errorBox, fill } from "../../lib/dom.js";
import * as f from "../../lib/format.js";
import { figure } from "./widgets.js";

export const CATEGORIES = ["power", "cooling", "network", "compute", "building"];

/** "12,500 servers", "168,000 m2", "375.7 MW": a line's quantity in its unit. @param {Record<string, any>} line */
export function quantityText(line) {
  if (line.unit === "kW") return f.mw(line.quantity / 1000, 1);
  if (line.unit === "kWh") return `${f.num(line.quantity / 1000, 1)} MWh`;
  if (line.unit === "m2") return `${f.num(line.quantity)} m²`;
  const plural = line.quantity === 1 ? "" : "s";
  return `${f.num(line.quantity, Number.isInteger(line.quantity) ? 0 : 1)} ${line.unit}${plural}`;
}

/** The unit price as the line gives it: "$36.0 k per switch", "$300 per kW". @param {Record<string, any>} line */
export function unitPriceText(line) {
  const unit = line.unit === "m2" ? "m²" : line.unit;
  return `${f.usd(line.unit_price_usd)} per ${unit}`;
}

function bomTable(body) {
  const rows = [];
  for (const category of CATEGORIES) {
    const lines = body.lines.filter((x) => x.category === category);
    if (!lines.length) continue;
    rows.push(
      el(
        "tr",
        { class: "group-row" },
        el("th", { scope: "rowgroup", colspan: 4 }, category),
        el("td", { class: "num", "data-testid": `bom-total-${category}` }, f.usd(body.capex_usd[category])),
      ),
    );
    for (const line of lines) {
      const what = [line.item, line.detail, line.group?.name].filter(Boolean).join(" · ");
      rows.push(
        el(
          "tr",
          { "data-testid": "bom-line", "data-key": line.price_key, "data-count": line.count },
          el("th", { scope: "row" }, what),
          el("td", { class: "num" }, f.num(line.count, Number.isInteger(line.count) ? 0 : 1)),
          el("td", { class: "num" }, quantityText(line)),
          el(
            "td",
            { class: "num", title: `${line.source} (${line.year})${line.estimate ? ", an estimate" : ""}` },
            unitPriceText(line),
            line.estimate ? el("span", { class: "muted" }, " est.") : null,
            line.overridden ? el("span", { class: "muted" }, " (campus price)") : null,
          ),
          el("td", { class: "num" }, f.usd(line.total_usd)),
        ),
      );
    }
  }
  return el(
    "table",
    { class: "table", "data-testid": "bom-table" },
    el("caption", {}, "Bill of materials (hover a unit price for its source)"),
    el(
      "thead",
      {},
      el(
        "tr",
        {},
        el("th", { scope: "col" }, "Item"),
        el("th", { scope: "col" }, "Count"),
        el("th", { scope: "col" }, "Quantity"),
        el("th", { scope: "col" }, "Unit price"),
        el("th", { scope: "col" }, "Total"),
      ),
    ),
    el("tbody", {}, rows),
  );
}

/**
 * @param {{campusId: number}} page
 * @param {Record<string, any> | undefined} capex the summary's `capex` block
 */
export function capexCard(page, capex = {}) {
  const by = capex.capex_usd ?? {};
  const tco = capex.tco ?? {};
  const slot = el("div", { "data-testid": "bom-slot" });
  const button = el(
    "button",
    { type: "button", class: "button", "data-testid": "bom-load" },
    "Show the bill of materials",
  );
  button.addEventListener("click", async () => {
    button.setAttribute("disabled", "true");
    try {
      const body = await api.get(`/api/campuses/${page.campusId}/bom/`);
      fill(slot, bomTable(body));
      button.remove();
    } catch (error) {
      fill(slot, errorBox(error, "bom-error"));
      button.removeAttribute("disabled");
    }
  });
  return el(
    "div",
    { class: "card card-wide", "data-testid": "capex-card" },
    el("h2", {}, "Capex and bill of materials"),
    el(
      "div",
      { class: "figure-row" },
      figure(
        "fig-capex-total",
        "Capex",
        by.total,
        f.usd(by.total),
        capex.usd_per_mw_it != null ? `${f.usd(capex.usd_per_mw_it)} per MW of IT` : null,
        "Equipment, network, servers and buildings at the price catalog's prices (docs/capex.md)",
      ),
      ...CATEGORIES.map((c) => figure(`fig-capex-${c}`, c[0].toUpperCase() + c.slice(1), by[c], f.usd(by[c]))),
      figure(
        "fig-tco",
        `TCO over ${f.num(tco.horizon_years)} years`,
        tco.total_usd,
        f.usd(tco.total_usd),
        `energy ${f.usd(tco.energy_usd)}` +
          (tco.fuel_usd ? ` · fuel ${f.usd(tco.fuel_usd)}` : "") +
          ` · discounted at ${f.pct(tco.discount_rate, 0)}`,
        "Capex plus the year's grid energy and generator fuel over the horizon, discounted to today",
      ),
    ),
    button,
    slot,
  );
}
