// @ts-check
// A table over one of the API's list endpoints: sorted by the API (`ordering`, click a column's header), filtered
// by it (`search` and the endpoint's own filters), a page at a time (`limit`/`offset`), and downloaded whole
// (every page of the list, with the same filters and order) as CSV or XLSX.
import { api, qs } from "./api.js";
import { el, errorBox, fill } from "./dom.js";
import { exportButtons } from "./export.js";
import * as f from "./format.js";

/**
 * @typedef {object} Column
 * @property {string} label what the header says (with its unit)
 * @property {(row: any) => any} value the raw value (a number stays a number in the download)
 * @property {(row: any) => any} [show] what the cell shows (default: the value, numbers formatted)
 * @property {string} [order] the API field the column sorts by (none: not sortable)
 * @property {boolean} [num] right-aligned figure
 * @property {number} [digits] decimals shown (default: none for whole numbers, one otherwise); kW figures show
 *   one everywhere, as format.kw does on every other page
 */

/**
 * @typedef {object} TableSpec
 * @property {string} key
 * @property {string} title
 * @property {string} url the list endpoint
 * @property {Record<string, string>} params fixed filters (the campus)
 * @property {Column[]} columns
 * @property {{name: string, label: string, options: [string, string][]}[]} [filters] choice filters
 * @property {string} [ordering] the default order
 * @property {(row: any) => string | null} [link] where a row's name leads
 */

const PAGE = 50;

/** @param {Column} c @param {any} row */
function shown(c, row) {
  if (c.show) return c.show(row);
  const v = c.value(row);
  if (v === null || v === undefined || v === "") return "–";
  return typeof v === "number" ? f.num(v, c.digits ?? (Number.isInteger(v) ? 0 : 1)) : String(v);
}

/**
 * Mount the table in `root`; `state` (search, filters, ordering, offset) is read from and written to the URL's
 * query so a table can be linked to and reloaded as it was.
 * @param {HTMLElement} root @param {TableSpec} spec @param {{search?: string}} [initial]
 */
export function dataTable(root, spec, initial = {}) {
  const state = { search: initial.search ?? "", ordering: spec.ordering ?? "", offset: 0, filters: {} };
  const body = el("div", { class: "datatable-body", "aria-live": "polite" });
  const count = el("p", { class: "muted", "data-testid": "table-count" });
  const query = (extra = {}) =>
    qs({ ...spec.params, ...state.filters, search: state.search, ordering: state.ordering, ...extra });

  const search = el("input", {
    type: "search",
    value: state.search,
    placeholder: "Name contains…",
    "data-testid": "table-search",
    "aria-label": `Search ${spec.title}`,
  });
  let timer = 0;
  search.addEventListener("input", () => {
    clearTimeout(timer);
    timer = window.setTimeout(() => {
      state.search = search.value.trim();
      state.offset = 0;
      load();
    }, 250);
  });
  const selects = (spec.filters ?? []).map((flt) => {
    const select = el(
      "select",
      { "data-testid": `filter-${flt.name}`, "aria-label": flt.label },
      el("option", { value: "" }, `${flt.label}: all`),
      flt.options.map(([value, label]) => el("option", { value }, label)),
    );
    select.addEventListener("change", () => {
      if (select.value) state.filters[flt.name] = select.value;
      else delete state.filters[flt.name];
      state.offset = 0;
      load();
    });
    return select;
  });
  const everyRow = async () => {
    const rows = await api.all(`${spec.url}${query()}`);
    return {
      header: spec.columns.map((c) => c.label),
      rows: rows.map((r) => spec.columns.map((c) => c.value(r) ?? null)),
    };
  };

  fill(
    root,
    el("div", { class: "datatable-tools no-print" }, search, ...selects),
    exportButtons(spec.title, everyRow),
    count,
    body,
  );

  function header() {
    return el(
      "tr",
      {},
      spec.columns.map((c) => {
        if (!c.order) return el("th", { scope: "col", class: c.num ? "num" : null }, c.label);
        const current =
          state.ordering === c.order ? "ascending" : state.ordering === `-${c.order}` ? "descending" : "none";
        const button = el(
          "button",
          {
            type: "button",
            class: "sort",
            "data-testid": `sort-${c.order}`,
            onclick: () => {
              state.ordering = current === "ascending" ? `-${c.order}` : c.order;
              state.offset = 0;
              load();
            },
          },
          c.label,
          el("span", { "aria-hidden": "true" }, current === "ascending" ? " ▲" : current === "descending" ? " ▼" : ""),
        );
        return el("th", { scope: "col", class: c.num ? "num" : null, "aria-sort": current }, button);
      }),
    );
  }

  function row(r) {
    return el(
      "tr",
      { "data-id": r.id },
      spec.columns.map((c, i) => {
        const v = c.value(r);
        const text = shown(c, r);
        const href = i === 0 && spec.link ? spec.link(r) : null;
        return el(
          i === 0 ? "th" : "td",
          {
            scope: i === 0 ? "row" : null,
            class: c.num ? "num" : null,
            "data-value": typeof v === "number" ? v : null,
          },
          href ? el("a", { href }, text) : text,
        );
      }),
    );
  }

  async function load() {
    root.setAttribute("aria-busy", "true");
    try {
      const page = await api.get(`${spec.url}${query({ limit: PAGE, offset: state.offset })}`);
      const first = page.count ? state.offset + 1 : 0;
      const last = state.offset + page.results.length;
      fill(count, `${f.num(first)}–${f.num(last)} of ${f.num(page.count)} ${spec.title.toLowerCase()}`);
      const pager = el(
        "div",
        { class: "pager no-print" },
        el(
          "button",
          {
            type: "button",
            class: "button-quiet",
            disabled: state.offset === 0,
            "data-testid": "page-previous",
            onclick: () => {
              state.offset = Math.max(0, state.offset - PAGE);
              load();
            },
          },
          "Previous",
        ),
        el(
          "button",
          {
            type: "button",
            class: "button-quiet",
            disabled: !page.next,
            "data-testid": "page-next",
            onclick: () => {
              state.offset += PAGE;
              load();
            },
          },
          "Next",
        ),
      );
      fill(
        body,
        el(
          "table",
          { class: "table table-inventory", "data-testid": `table-${spec.key}`, "data-export": "off" },
          el("caption", { class: "visually-hidden" }, spec.title),
          el("thead", {}, header()),
          el("tbody", {}, page.results.map(row)),
        ),
        pager,
      );
    } catch (error) {
      fill(body, errorBox(error));
    } finally {
      root.setAttribute("aria-busy", "false");
    }
  }
  load();
  return { reload: load };
}
