// @ts-check
// A table as a file: CSV (RFC 4180, with a byte-order mark so spreadsheet programs read UTF-8) and the parts of an
// XLSX workbook (Office Open XML, ECMA-376 Part 1: one sheet of inline strings and numbers), zipped by the caller.
// Pure: no DOM, so node's tests read what a planner downloads.

/** @typedef {string | number | null | undefined} Cell */

/** One CSV field: quoted when it holds a comma, quote or line break (RFC 4180 §2.6–2.7). @param {Cell} value */
function csvField(value) {
  if (value === null || value === undefined) return "";
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** @param {string[]} header @param {Cell[][]} rows @returns {string} */
export function toCsv(header, rows) {
  return "\uFEFF" + [header, ...rows].map((row) => row.map(csvField).join(",")).join("\r\n") + "\r\n";
}

/** @param {string} text */
function xml(text) {
  return text
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .split("")
    .filter((ch) => ch.charCodeAt(0) >= 32 || ch === "\t" || ch === "\n" || ch === "\r")
    .join("");
}

/** The column letters of a 0-based index: 0 → A, 25 → Z, 26 → AA. @param {number} index */
export function columnName(index) {
  let name = "";
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) name = String.fromCharCode(65 + ((n - 1) % 26)) + name;
  return name;
}

/** @param {Cell} value @param {string} ref */
function cell(value, ref) {
  if (value === null || value === undefined || value === "") return "";
  if (typeof value === "number" && Number.isFinite(value)) return `<c r="${ref}"><v>${value}</v></c>`;
  return `<c r="${ref}" t="inlineStr"><is><t xml:space="preserve">${xml(String(value))}</t></is></c>`;
}

/** A sheet name Excel accepts: at most 31 characters, none of []:*?/\ . @param {string} name */
export function sheetName(name) {
  return (name.replace(/[[\]:*?/\\]/g, " ").trim() || "Sheet1").slice(0, 31);
}

/**
 * The files of a one-sheet workbook, path → XML text. Numbers stay numbers (a planner sums them), text is inline.
 * The header row is bold (style 1) and frozen.
 * @param {string} name @param {string[]} header @param {Cell[][]} rows @returns {Record<string, string>}
 */
export function xlsxParts(name, header, rows) {
  const head = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';
  const main = "http://schemas.openxmlformats.org/spreadsheetml/2006/main";
  const rel = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
  const pkg = "http://schemas.openxmlformats.org/package/2006";
  const office = "application/vnd.openxmlformats-officedocument.spreadsheetml";
  const font = (/** @type {string} */ bold) => `<font>${bold}<sz val="11"/><name val="Calibri"/></font>`;
  const fill = (/** @type {string} */ pattern) => `<fill><patternFill patternType="${pattern}"/></fill>`;
  const xf = '<xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>';
  const xfBold = '<xf numFmtId="0" fontId="1" fillId="0" borderId="0" xfId="0" applyFont="1"/>';
  const pane = '<pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" state="frozen"/>';
  const lines = [header, ...rows].map((row, r) => {
    const cells = row.map((v, c) => cell(v, `${columnName(c)}${r + 1}`)).join("");
    const bold = r === 0 ? cells.replaceAll('<c r="', '<c s="1" r="') : cells;
    return `<row r="${r + 1}">${bold}</row>`;
  });
  return {
    "[Content_Types].xml":
      `${head}<Types xmlns="${pkg}/content-types">` +
      '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
      '<Default Extension="xml" ContentType="application/xml"/>' +
      `<Override PartName="/xl/workbook.xml" ContentType="${office}.sheet.main+xml"/>` +
      `<Override PartName="/xl/worksheets/sheet1.xml" ContentType="${office}.worksheet+xml"/>` +
      `<Override PartName="/xl/styles.xml" ContentType="${office}.styles+xml"/>` +
      "</Types>",
    "_rels/.rels":
      `${head}<Relationships xmlns="${pkg}/relationships">` +
      `<Relationship Id="rId1" Type="${rel}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    "xl/workbook.xml":
      `${head}<workbook xmlns="${main}" xmlns:r="${rel}"><sheets>` +
      `<sheet name="${xml(sheetName(name))}" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    "xl/_rels/workbook.xml.rels":
      `${head}<Relationships xmlns="${pkg}/relationships">` +
      `<Relationship Id="rId1" Type="${rel}/worksheet" Target="worksheets/sheet1.xml"/>` +
      `<Relationship Id="rId2" Type="${rel}/styles" Target="styles.xml"/></Relationships>`,
    "xl/styles.xml":
      `${head}<styleSheet xmlns="${main}">` +
      `<fonts count="2">${font("")}${font("<b/>")}</fonts>` +
      `<fills count="2">${fill("none")}${fill("gray125")}</fills>` +
      '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>' +
      '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>' +
      `<cellXfs count="2">${xf}${xfBold}</cellXfs>` +
      "</styleSheet>",
    "xl/worksheets/sheet1.xml":
      `${head}<worksheet xmlns="${main}">` +
      `<sheetViews><sheetView workbookViewId="0">${pane}</sheetView></sheetViews>` +
      `<sheetData>${lines.join("")}</sheetData></worksheet>`,
  };
}

/** A file name from a title: lower case, words joined by hyphens. @param {string} title @param {string} ext */
export function fileName(title, ext) {
  const stem = title
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  return `${stem || "table"}.${ext}`;
}
