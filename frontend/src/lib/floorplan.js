// @ts-check
// The floor plan's conventions without a canvas: racks grouped into rows (with their labels and the side their
// fronts face), the hot and cold aisles between facing rows, the 600 mm raised-floor tile grid with its
// coordinates, and a scale bar of a round length. No DOM here: node's tests import it as it is.
// Conventions (docs/dashboard.md): rows alternate front to front across a cold aisle and back to back across a
// hot aisle (ASHRAE TC 9.9 hot/cold aisle arrangement); the hot aisle is drawn contained (the catalogue's new
// row includes hot-aisle containment); tiles are 600 x 600 mm (the raised-floor module of ANSI/TIA-942-B's grid),
// columns lettered A, B, … Z, AA … from the hall's left wall and rows numbered 1, 2, … from its top wall.

/** @typedef {import("./floorgeometry.js").Rect} Rect */
/** @typedef {import("./floorgeometry.js").View} View */
/**
 * A row of racks: its box, label, hall and the side its fronts face ("down": +y, "up": −y, "right": +x, "left": −x).
 * @typedef {Rect & {label: string, hall: any, racks: number, front: "up" | "down" | "left" | "right"}} Row
 */
/** An aisle between two rows. @typedef {Rect & {kind: "cold" | "hot", contained: boolean, hall: any}} Aisle */

export const TILE_M = 0.6; // raised-floor tile, m
export const MAX_AISLE_M = 4; // a gap wider than this between two rows is open floor, not an aisle

/**
 * The row a rack belongs to: the second-to-last part of its name ("B1-H1-R01-07" -> "R01"), else its line.
 * @param {{name?: string, x: number, y: number, w: number, h: number}} r
 */
export function rowKey(r) {
  const parts = String(r.name ?? "").split(/[-_ ]/);
  if (parts.length >= 2 && /^[a-z]+\d+$/i.test(parts[parts.length - 2])) return parts[parts.length - 2];
  return r.w <= r.h ? `y${Math.round(r.y * 10)}` : `x${Math.round(r.x * 10)}`;
}

/**
 * Racks grouped into rows per hall, each with the side its fronts face (a rack deeper than wide faces up or down,
 * its row runs left to right). Rows of a hall are taken in order across
 * the aisles (top to bottom for rows running left to right); the first faces into the hall, the next faces back at
 * it across the cold aisle, and so on.
 * @param {(Rect & {name?: string, hall_id?: any})[]} racks
 * @returns {Row[]}
 */
export function rowsOf(racks) {
  /** @typedef {{hall: any, key: string, x0: number, y0: number, x1: number, y1: number, n: number}} Box */
  /** @typedef {Box & {across: boolean}} Acc */
  /** @type {Map<string, Acc>} */
  const byRow = new Map();
  for (const r of racks) {
    const key = rowKey(r);
    const k = `${r.hall_id ?? ""}|${key}`;
    let row = byRow.get(k);
    if (!row)
      byRow.set(
        k,
        (row = {
          hall: r.hall_id ?? null,
          key,
          x0: Infinity,
          y0: Infinity,
          x1: -1e300,
          y1: -1e300,
          n: 0,
          across: r.w <= r.h,
        }),
      );
    row.x0 = Math.min(row.x0, r.x);
    row.y0 = Math.min(row.y0, r.y);
    row.x1 = Math.max(row.x1, r.x + r.w);
    row.y1 = Math.max(row.y1, r.y + r.h);
    row.n += 1;
  }
  /** @type {Map<any, Row[]>} */
  const byHall = new Map();
  for (const row of byRow.values()) {
    const w = row.x1 - row.x0;
    const h = row.y1 - row.y0;
    /** @type {Row} */
    const out = {
      x: row.x0,
      y: row.y0,
      w,
      h,
      label: row.key,
      hall: row.hall,
      racks: row.n,
      front: row.across ? "down" : "right",
    };
    let list = byHall.get(row.hall);
    if (!list) byHall.set(row.hall, (list = []));
    list.push(out);
  }
  const rows = [];
  for (const list of byHall.values()) {
    const across = list.filter((r) => r.front === "down").sort((a, b) => a.y - b.y || a.x - b.x);
    const along = list.filter((r) => r.front === "right").sort((a, b) => a.x - b.x || a.y - b.y);
    across.forEach((r, i) => (r.front = i % 2 ? "up" : "down"));
    along.forEach((r, i) => (r.front = i % 2 ? "left" : "right"));
    rows.push(...across, ...along);
  }
  return rows;
}

/**
 * The aisles between neighbouring rows of a hall that overlap along their length and stand at most MAX_AISLE_M
 * apart: cold where the two rows' fronts face each other, hot where their backs do (drawn contained).
 * @param {Row[]} rows from rowsOf
 * @returns {Aisle[]}
 */
export function aislesOf(rows) {
  /** @type {Aisle[]} */
  const aisles = [];
  /** @type {Map<any, Row[]>} */
  const byHall = new Map();
  for (const r of rows) {
    let list = byHall.get(r.hall);
    if (!list) byHall.set(r.hall, (list = []));
    list.push(r);
  }
  for (const list of byHall.values()) {
    const across = list.filter((r) => r.front === "up" || r.front === "down").sort((a, b) => a.y - b.y);
    for (let i = 0; i + 1 < across.length; i += 1) {
      const a = across[i];
      const b = across[i + 1];
      const gap = b.y - (a.y + a.h);
      const x0 = Math.max(a.x, b.x);
      const x1 = Math.min(a.x + a.w, b.x + b.w);
      if (gap <= 0 || gap > MAX_AISLE_M || x1 <= x0) continue;
      const cold = a.front === "down" && b.front === "up";
      aisles.push({
        x: x0,
        y: a.y + a.h,
        w: x1 - x0,
        h: gap,
        kind: cold ? "cold" : "hot",
        contained: !cold,
        hall: a.hall,
      });
    }
    const along = list.filter((r) => r.front === "left" || r.front === "right").sort((a, b) => a.x - b.x);
    for (let i = 0; i + 1 < along.length; i += 1) {
      const a = along[i];
      const b = along[i + 1];
      const gap = b.x - (a.x + a.w);
      const y0 = Math.max(a.y, b.y);
      const y1 = Math.min(a.y + a.h, b.y + b.h);
      if (gap <= 0 || gap > MAX_AISLE_M || y1 <= y0) continue;
      const cold = a.front === "right" && b.front === "left";
      aisles.push({
        x: a.x + a.w,
        y: y0,
        w: gap,
        h: y1 - y0,
        kind: cold ? "cold" : "hot",
        contained: !cold,
        hall: a.hall,
      });
    }
  }
  return aisles;
}

/**
 * The front edge of a rack as a line in world metres (the side its row's fronts face).
 * @param {Rect} r
 * @param {Row["front"]} front
 * @returns {[number, number, number, number]} x1, y1, x2, y2
 */
export function frontEdge(r, front) {
  if (front === "down") return [r.x, r.y + r.h, r.x + r.w, r.y + r.h];
  if (front === "up") return [r.x, r.y, r.x + r.w, r.y];
  if (front === "right") return [r.x + r.w, r.y, r.x + r.w, r.y + r.h];
  return [r.x, r.y, r.x, r.y + r.h];
}

/**
 * A tile column's letters: 0 -> "A", 25 -> "Z", 26 -> "AA" (spreadsheet style).
 * @param {number} i
 */
export function tileColumn(i) {
  let s = "";
  let n = Math.floor(i) + 1;
  while (n > 0) {
    const m = (n - 1) % 26;
    s = String.fromCharCode(65 + m) + s;
    n = Math.floor((n - 1) / 26);
  }
  return s;
}

/**
 * The tile under a point of a hall: "C7" is the third column from the hall's left wall, seventh row from its top.
 * @param {Rect} hall
 * @param {number} wx world m
 * @param {number} wy world m
 */
export function tileAt(hall, wx, wy) {
  return `${tileColumn(Math.floor((wx - hall.x) / TILE_M))}${Math.floor((wy - hall.y) / TILE_M) + 1}`;
}

/**
 * The lines of a hall's tile grid inside the view, and every `every`-th line's coordinate label.
 * @param {Rect} hall
 * @param {View} view
 * @param {number} every label one line in this many
 * @returns {{xs: number[], ys: number[], columns: {x: number, text: string}[], rows: {y: number, text: string}[]}}
 */
export function tileLines(hall, view, every) {
  const xs = [];
  const ys = [];
  const columns = [];
  const rows = [];
  const nx = Math.floor(hall.w / TILE_M + 1e-9);
  const ny = Math.floor(hall.h / TILE_M + 1e-9);
  const i0 = Math.max(0, Math.floor((view.x0 - hall.x) / TILE_M));
  const i1 = Math.min(nx, Math.ceil((view.x1 - hall.x) / TILE_M));
  const j0 = Math.max(0, Math.floor((view.y0 - hall.y) / TILE_M));
  const j1 = Math.min(ny, Math.ceil((view.y1 - hall.y) / TILE_M));
  for (let i = i0; i <= i1; i += 1) {
    xs.push(hall.x + i * TILE_M);
    if (i < nx && i % every === 0) columns.push({ x: hall.x + (i + 0.5) * TILE_M, text: tileColumn(i) });
  }
  for (let j = j0; j <= j1; j += 1) {
    ys.push(hall.y + j * TILE_M);
    if (j < ny && j % every === 0) rows.push({ y: hall.y + (j + 0.5) * TILE_M, text: String(j + 1) });
  }
  return { xs, ys, columns, rows };
}

/**
 * A scale bar of a round length (1, 2 or 5 × 10ⁿ m) at most `maxPx` pixels long.
 * @param {number} pxPerM
 * @param {number} maxPx
 * @returns {{metres: number, px: number, text: string}}
 */
export function scaleBar(pxPerM, maxPx) {
  const most = maxPx / pxPerM;
  const power = 10 ** Math.floor(Math.log10(most));
  const metres = [5, 2, 1].map((k) => k * power).find((m) => m <= most) ?? power;
  const text = metres >= 1000 ? `${metres / 1000} km` : metres >= 1 ? `${metres} m` : `${Math.round(metres * 1000)} mm`;
  return { metres, px: metres * pxPerM, text };
}

/**
 * The side each rack's front faces, from its row (index-aligned with `racks`).
 * @param {(Rect & {name?: string, hall_id?: any})[]} racks
 * @param {Row[]} rows from rowsOf(racks)
 * @returns {Row["front"][]}
 */
export function rackFronts(racks, rows) {
  const front = new Map(rows.map((r) => [`${r.hall ?? ""}|${r.label}`, r.front]));
  return racks.map((r) => front.get(`${r.hall_id ?? ""}|${rowKey(r)}`) ?? "down");
}
