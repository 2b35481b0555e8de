// @ts-check
// The floor map's geometry without a canvas: rectangles in world metres, the hover grid and hit tests, racks
// merged into cells when they are too small to draw, plant styles and short names. No DOM here: node's tests
// import it as it is.

/** A rectangle in world metres, top-left corner. @typedef {{x: number, y: number, w: number, h: number}} Rect */
/** The part of the world on screen. @typedef {{x0: number, y0: number, x1: number, y1: number}} View */
/** A rack as the map draws it. @typedef {Rect & {id?: number, name: string} & Record<string, any>} Rack */
/**
 * A power device, cooling unit or plant drawn on the map.
 * @typedef {Rect & {type: string, kind: string, name: string, key?: string, id?: number}} PlantItem
 */

export const CELL_M = 4; // hover grid cell, m
export const AGGREGATE_BELOW_PX = 2.5; // racks narrower than this on screen are merged into cells
export const CELL_PX = 6; // side of a merged cell on screen

// Plant fills by type; the kind's short code is written inside when it fits.
/** @type {Record<string, {fill: string, text: string}>} */
const PLANT_STYLE = {
  power: { fill: "#475467", text: "#ffffff" },
  generator: { fill: "#7a5a1e", text: "#ffffff" },
  cooling: { fill: "#0e7490", text: "#ffffff" },
  plant: { fill: "#164e63", text: "#ffffff" },
};
/** @type {Record<string, string>} */
const KIND_CODE = {
  pdu: "PDU",
  rpp: "RPP",
  busway: "BUS",
  ups: "UPS",
  switchgear: "SWGR",
  transformer: "TX",
  generator: "GEN",
  substation: "SUB",
  sst: "SST",
  rectifier: "PR",
  "dc-busway": "DCBUS",
  cdu: "CDU",
  crah: "CRAH",
  "rear-door": "RDHX",
  immersion: "TANK",
  chiller: "CHLR",
  "dry-cooler": "DRY",
  "air-chiller": "ACHLR",
  "adiabatic-cooler": "ADRY",
  "cooling-tower": "TWR",
};

/** Fill and text colours of a plant item. @param {{kind: string, type: string}} p */
export function plantStyle(p) {
  return p.kind === "generator" ? PLANT_STYLE.generator : (PLANT_STYLE[p.type] ?? PLANT_STYLE.power);
}

/** The short code written inside a plant item ("UPS", "CDU"). @param {string} kind */
export function kindCode(kind) {
  return KIND_CODE[kind] ?? String(kind).toUpperCase();
}

/**
 * The box around racks and outlines (room above for the names written over the walls).
 * @param {Rect[]} racks
 * @param {Rect[]} outlines
 * @returns {Rect}
 */
export function boundsOf(racks, outlines) {
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  for (const r of [...outlines, ...racks]) {
    x0 = Math.min(x0, r.x);
    y0 = Math.min(y0, r.y);
    x1 = Math.max(x1, r.x + r.w);
    y1 = Math.max(y1, r.y + r.h);
  }
  if (!Number.isFinite(x0)) return { x: 0, y: 0, w: 10, h: 10 };
  return { x: x0, y: y0 - 3, w: x1 - x0, h: y1 - y0 + 3 };
}

/**
 * The hover grid: rack indices by the CELL_M cells they touch.
 * @param {Rect[]} racks
 * @returns {Map<number, number[]>}
 */
export function buildGrid(racks) {
  const grid = new Map();
  racks.forEach((r, i) => {
    const gx0 = Math.floor(r.x / CELL_M);
    const gx1 = Math.floor((r.x + r.w) / CELL_M);
    const gy0 = Math.floor(r.y / CELL_M);
    const gy1 = Math.floor((r.y + r.h) / CELL_M);
    for (let gx = gx0; gx <= gx1; gx += 1) {
      for (let gy = gy0; gy <= gy1; gy += 1) {
        const k = key(gx, gy);
        let list = grid.get(k);
        if (!list) grid.set(k, (list = []));
        list.push(i);
      }
    }
  });
  return grid;
}

/**
 * The rack nearest a world point among those within `slop` metres of it, or -1.
 * @param {Map<number, number[]>} grid from buildGrid
 * @param {Rect[]} racks
 * @param {number} wx
 * @param {number} wy
 * @param {number} slop
 */
export function rackNear(grid, racks, wx, wy, slop) {
  const cx = Math.floor(wx / CELL_M);
  const cy = Math.floor(wy / CELL_M);
  let best = -1;
  let bestD = Infinity;
  const reach = Math.max(1, Math.ceil(slop / CELL_M));
  for (let gx = cx - reach; gx <= cx + reach; gx += 1) {
    for (let gy = cy - reach; gy <= cy + reach; gy += 1) {
      const list = grid.get(key(gx, gy));
      if (!list) continue;
      for (const i of list) {
        const r = racks[i];
        if (wx >= r.x - slop && wx <= r.x + r.w + slop && wy >= r.y - slop && wy <= r.y + r.h + slop) {
          const d = Math.hypot(wx - (r.x + r.w / 2), wy - (r.y + r.h / 2));
          if (d < bestD) {
            bestD = d;
            best = i;
          }
        }
      }
    }
  }
  return best;
}

/**
 * The smallest plant item within `slop` metres of a world point, or -1.
 * @param {Rect[]} plant
 * @param {number} wx
 * @param {number} wy
 * @param {number} slop
 */
export function plantNear(plant, wx, wy, slop) {
  let best = -1;
  let bestArea = Infinity;
  for (let i = 0; i < plant.length; i += 1) {
    const p = plant[i];
    if (wx >= p.x - slop && wx <= p.x + p.w + slop && wy >= p.y - slop && wy <= p.y + p.h + slop) {
      const area = p.w * p.h;
      if (area < bestArea) {
        bestArea = area;
        best = i;
      }
    }
  }
  return best;
}

/**
 * Racks merged into square cells `size` metres wide, by colour: each cell in the colour most of its racks have
 * (a highlighted rack's colour wins its cell).
 * @param {Rect[]} racks
 * @param {string[]} colors each rack's colour
 * @param {Set<number>} highlight indices of highlighted racks
 * @param {number} size m
 * @returns {{size: number, groups: Map<string, Rect[]>}}
 */
export function mergeCells(racks, colors, highlight, size) {
  const byCell = new Map();
  for (let i = 0; i < racks.length; i += 1) {
    const r = racks[i];
    const gx = Math.floor((r.x + r.w / 2) / size);
    const gy = Math.floor((r.y + r.h / 2) / size);
    const k = key(gx, gy);
    let cell = byCell.get(k);
    if (!cell) {
      cell = { x0: Infinity, y0: Infinity, x1: -Infinity, y1: -Infinity, counts: new Map(), hit: new Map() };
      byCell.set(k, cell);
    }
    cell.x0 = Math.min(cell.x0, r.x);
    cell.y0 = Math.min(cell.y0, r.y);
    cell.x1 = Math.max(cell.x1, r.x + r.w);
    cell.y1 = Math.max(cell.y1, r.y + r.h);
    const c = colors[i];
    const counts = highlight.has(i) ? cell.hit : cell.counts;
    counts.set(c, (counts.get(c) ?? 0) + 1);
  }
  const groups = new Map();
  for (const cell of byCell.values()) {
    const counts = cell.hit.size ? cell.hit : cell.counts;
    let color = null;
    let most = -1;
    for (const [c, n] of counts) {
      if (n > most) {
        most = n;
        color = c;
      }
    }
    // The block covers the cell's racks, at least 90 % of a cell in each direction, centred on them: it sits
    // where the racks are and abuts the next block along a row.
    const w = Math.max(cell.x1 - cell.x0, size * 0.9);
    const h = Math.max(cell.y1 - cell.y0, size * 0.9);
    const block = { x: (cell.x0 + cell.x1 - w) / 2, y: (cell.y0 + cell.y1 - h) / 2, w, h };
    let list = groups.get(color);
    if (!list) groups.set(color, (list = []));
    list.push(block);
  }
  return { size, groups };
}

/** The hover grid's key of a cell. @param {number} gx @param {number} gy */
export function key(gx, gy) {
  return gx * 100003 + gy;
}

/** @param {number} v @param {number} lo @param {number} hi */
export function clamp(v, lo, hi) {
  return Math.min(hi, Math.max(lo, v));
}

/** True when two screen boxes come closer than `gap` pixels. @param {Rect} a @param {Rect} b @param {number} [gap] */
export function boxesOverlap(a, b, gap = 0) {
  return a.x < b.x + b.w + gap && b.x < a.x + a.w + gap && a.y < b.y + b.h && b.y < a.y + a.h;
}

/** True when a rectangle shows in the view. @param {Rect} o @param {View} view */
export function intersects(o, view) {
  return !(o.x > view.x1 || o.y > view.y1 || o.x + o.w < view.x0 || o.y + o.h < view.y0);
}

/** Dark or white text, whichever reads better on a fill (WCAG relative luminance). @param {string} color */
export function textOn(color) {
  const m = /^#([0-9a-f]{6})$/i.exec(color);
  if (!m) return "#111827";
  const v = parseInt(m[1], 16);
  const lin = (/** @type {number} */ c) => {
    const x = c / 255;
    return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4;
  };
  const lum = 0.2126 * lin((v >> 16) & 255) + 0.7152 * lin((v >> 8) & 255) + 0.0722 * lin(v & 255);
  return (lum + 0.05) / 0.05 >= 1.05 / (lum + 0.05) ? "#111827" : "#ffffff";
}

/** The last part of a name: "B1-H1-R01-07" -> "07". @param {string} name */
export function lastPart(name) {
  const parts = String(name).split(/[-_ ]/);
  return parts[parts.length - 1];
}

/** The last two parts of a longer name: "B1-H1-R01-07" -> "R01-07". @param {string} name */
export function shortName(name) {
  const parts = String(name).split(/[-_ ]/);
  return parts.length > 2 ? parts.slice(-2).join("-") : String(name);
}
