// @ts-check
// The inventory: a table per kind of object (racks, power devices, cooling units, switches, servers, links), the
// search of the top bar across them, a power device's page, a cooling unit's page, a rack's page with its
// elevations, and the capacity report. Which one the page shows comes from its boot block (frontend/views.py).
import { api, qs } from "../../lib/api.js";
import { $, boot, el, errorBox, fill, wireCampusPicker } from "../../lib/dom.js";
import { dataTable } from "../../lib/datatable.js";
import { enableExports } from "../../lib/export.js";
import { capacityPage } from "./capacity.js";
import { coolingUnitPage } from "./cooling-unit.js";
import { devicePage } from "./device.js";
import { rackPage } from "./rack.js";
import { tableSpecs } from "./tables.js";

const page = boot();
const root = $("inventory");
const campusId = /** @type {number} */ (page.campusId);
const specs = tableSpecs(campusId);

function tabs(current) {
  return el(
    "nav",
    { class: "tabs no-print", "aria-label": "Inventory tables" },
    specs.map((s) =>
      el(
        "a",
        {
          href: `/campuses/${campusId}/inventory/?table=${s.key}`,
          "aria-current": s.key === current ? "page" : null,
          "data-testid": `tab-${s.key}`,
        },
        s.title,
      ),
    ),
  );
}

function tablesView() {
  const key = page.table && specs.some((s) => s.key === page.table) ? page.table : "racks";
  const spec = /** @type {import("../../lib/datatable.js").TableSpec} */ (specs.find((s) => s.key === key));
  const holder = el("div", { "data-testid": "inventory-table" });
  fill(root, el("h1", {}, `${page.campusName}: inventory`), tabs(key), holder);
  root.setAttribute("aria-busy", "false");
  dataTable(holder, spec, { search: page.search });
}

/** The top bar's search: the first matches of each kind, each leading to its table or page. */
async function searchView(q) {
  fill(root, el("h1", {}, `Search: ${q}`), el("p", { class: "loading" }, "Searching…"));
  try {
    const found = await Promise.all(
      specs.map((s) => api.get(`${s.url}${qs({ ...s.params, search: q, limit: 10, ordering: s.ordering })}`)),
    );
    const sections = specs.map((s, i) => {
      const res = found[i];
      if (!res.count) return null;
      return el(
        "section",
        { class: "card", "data-testid": `search-${s.key}` },
        el("h2", {}, `${s.title} (${res.count})`),
        el(
          "ul",
          { class: "plain-list" },
          res.results.map((r) => {
            const text = s.columns[0].value(r) ?? `#${r.id}`;
            const href = s.link ? s.link(r) : `/campuses/${campusId}/inventory/?table=${s.key}`;
            return el("li", {}, el("a", { href }, String(text)));
          }),
        ),
        res.count > res.results.length
          ? el(
              "a",
              { href: `/campuses/${campusId}/inventory/${qs({ table: s.key, search: q })}` },
              `All ${res.count} in the table`,
            )
          : null,
      );
    });
    const any = sections.some(Boolean);
    fill(
      root,
      el("h1", {}, `Search: ${q}`),
      any
        ? el("div", { class: "grid", "data-testid": "search-results" }, sections)
        : el("p", { "data-testid": "search-results" }, "Nothing on this campus matches."),
    );
  } catch (error) {
    fill(root, errorBox(error));
  } finally {
    root.setAttribute("aria-busy", "false");
  }
}

wireCampusPicker();
enableExports();
if (page.view === "device" && page.objectId) devicePage(root, campusId, page.objectId);
else if (page.view === "rack" && page.objectId) rackPage(root, campusId, page.objectId);
else if (page.view === "cooling" && page.objectId) coolingUnitPage(root, campusId, page.objectId);
else if (page.view === "capacity") capacityPage(root, campusId);
else if (page.q) searchView(page.q);
else tablesView();
