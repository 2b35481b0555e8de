// @ts-check
// Downloads of what a page shows: every table as CSV or XLSX, every chart as PNG. `enableExports()` watches the
// page and gives each table (class "table") and each chart (uPlot's ".uplot") its buttons as they appear, so a
// page adds nothing of its own. A table with `data-export="off"` has none (a table of controls).
import { zipSync, strToU8 } from "fflate";
import { el } from "./dom.js";
import { fileName, toCsv, xlsxParts } from "./sheet.js";

/** @param {Blob} blob @param {string} name */
export function download(blob, name) {
  const url = URL.createObjectURL(blob);
  const a = el("a", { href: url, download: name, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** A cell's value: its `data-value` (the number behind a formatted figure) when it has one, else its text. */
function cellValue(cell) {
  const raw = cell.dataset?.value;
  if (raw !== undefined && raw !== "") {
    const n = Number(raw);
    return Number.isFinite(n) ? n : raw;
  }
  return cell.textContent.trim().replace(/\s+/g, " ");
}

/** The header and rows of a table as shown (its <thead> and <tbody>). @param {HTMLTableElement} table */
export function tableData(table) {
  const headRow = table.tHead?.rows[table.tHead.rows.length - 1];
  const header = headRow ? [...headRow.cells].map((c) => c.textContent.trim().replace(/\s+/g, " ")) : [];
  const rows = [...table.tBodies].flatMap((body) => [...body.rows].map((r) => [...r.cells].map(cellValue)));
  return { header, rows };
}

/**
 * Write a table to a file.
 * @param {string} title @param {string[]} header @param {(string | number | null)[][]} rows
 * @param {"csv" | "xlsx"} format
 */
export function saveTable(title, header, rows, format) {
  if (format === "csv") {
    download(new Blob([toCsv(header, rows)], { type: "text/csv;charset=utf-8" }), fileName(title, "csv"));
    return;
  }
  const parts = xlsxParts(title, header, rows);
  const zip = zipSync(Object.fromEntries(Object.entries(parts).map(([path, text]) => [path, strToU8(text)])));
  const type = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";
  download(new Blob([zip], { type }), fileName(title, "xlsx"));
}

/**
 * The CSV and XLSX buttons of a table; `source` gives its rows (default: the table as shown; an inventory table
 * gives every row of its list, not only the page shown).
 * @param {string} title
 * @param {() => Promise<{header: string[], rows: any[][]}> | {header: string[], rows: any[][]}} source
 */
export function exportButtons(title, source) {
  const button = (format) =>
    el(
      "button",
      {
        type: "button",
        class: "button-quiet button-small",
        "data-testid": `export-${format}`,
        "aria-label": `Download ${title} as ${format.toUpperCase()}`,
        onclick: async () => {
          const { header, rows } = await source();
          saveTable(title, header, rows, format);
        },
      },
      format.toUpperCase(),
    );
  return el(
    "div",
    { class: "export-bar no-print", "data-testid": "export-bar" },
    "Download ",
    button("csv"),
    " ",
    button("xlsx"),
  );
}

/** The title of a table: its caption, else the nearest heading above it, else the page's title. */
function tableTitle(table) {
  const caption = table.caption?.textContent.trim();
  if (caption) return caption;
  const heading = table.closest("section, .card")?.querySelector("h2, h3");
  return heading?.textContent.trim() || document.title.split(" · ")[0];
}

/** @param {HTMLTableElement} table */
function addTableButtons(table) {
  if (table.dataset.export === "off" || table.dataset.exportReady) return;
  table.dataset.exportReady = "1";
  table.before(exportButtons(tableTitle(table), () => tableData(table)));
}

/**
 * A PNG of a uPlot chart: a white sheet with the chart's title, its canvas and its legend's names in their colours.
 * @param {HTMLElement} chart the ".uplot" element
 */
export function chartPng(chart) {
  const canvas = chart.querySelector("canvas");
  if (!canvas) return null;
  const title = chart.querySelector(".u-title")?.textContent.trim() ?? "";
  const labels = [...chart.querySelectorAll(".u-legend .u-series")]
    .map((s) => ({
      text: s.querySelector(".u-label")?.textContent.trim() ?? "",
      color: /** @type {HTMLElement | null} */ (s.querySelector(".u-marker"))?.style.borderColor || "#1f2937",
    }))
    .filter((l) => l.text);
  const ratio = canvas.width / Math.max(1, canvas.clientWidth || canvas.width);
  const pad = 12 * ratio;
  const line = 18 * ratio;
  const out = document.createElement("canvas");
  out.width = canvas.width + 2 * pad;
  out.height = canvas.height + 2 * pad + line * (1 + Math.ceil(labels.length / 3));
  const ctx = out.getContext("2d");
  if (!ctx) return null;
  ctx.fillStyle = "#ffffff";
  ctx.fillRect(0, 0, out.width, out.height);
  ctx.fillStyle = "#111827";
  ctx.font = `600 ${13 * ratio}px system-ui, sans-serif`;
  ctx.fillText(title, pad, pad + 12 * ratio);
  ctx.drawImage(canvas, pad, pad + line);
  ctx.font = `${12 * ratio}px system-ui, sans-serif`;
  labels.forEach((l, i) => {
    ctx.fillStyle = l.color;
    const x = pad + (i % 3) * (out.width / 3);
    const y = pad + line + canvas.height + line * (1 + Math.floor(i / 3));
    ctx.fillText(`■ ${l.text}`, x, y);
  });
  return { canvas: out, title };
}

/** @param {HTMLElement} chart */
function addChartButton(chart) {
  if (chart.dataset.exportReady) return;
  chart.dataset.exportReady = "1";
  const button = el(
    "button",
    {
      type: "button",
      class: "button-quiet button-small chart-png no-print",
      "data-testid": "export-png",
      onclick: () => {
        const png = chartPng(chart);
        if (!png) return;
        png.canvas.toBlob((blob) => blob && download(blob, fileName(png.title || "chart", "png")), "image/png");
      },
    },
    "PNG",
  );
  button.setAttribute("aria-label", `Download the chart ${chart.querySelector(".u-title")?.textContent ?? ""} as PNG`);
  // after the chart's figure when it is one (role="img"): a button inside an image is nested interaction
  (chart.closest('[role="img"]') ?? chart).after(button);
}

function scan(root) {
  for (const t of root.querySelectorAll("table.table")) addTableButtons(/** @type {HTMLTableElement} */ (t));
  for (const c of root.querySelectorAll(".uplot")) addChartButton(/** @type {HTMLElement} */ (c));
}

/** Give every table and chart of the page its download buttons, now and as the page adds them. */
export function enableExports() {
  scan(document.body);
  let queued = false;
  new MutationObserver(() => {
    if (queued) return;
    queued = true;
    requestAnimationFrame(() => {
      queued = false;
      scan(document.body);
    });
  }).observe(document.body, { childList: true, subtree: true });
}
