// @ts-check
// What the floor map draws: floors, racks (merged into cells when small), the plant, highlights, the paths of a
// selection, proposed racks, and the names of buildings, halls, plant and racks. Functions of the map (its view
// and scene) and a 2D context; floormap.js calls them in order each frame.
import {
  CELL_PX,
  boxesOverlap,
  intersects,
  kindCode,
  lastPart,
  mergeCells,
  plantStyle,
  shortName,
  textOn,
} from "./floorgeometry.js";

/** @typedef {import("./floormap.js").FloorMap} FloorMap */
const ROW_END = new Set(["pdu", "rpp", "busway"]);
/** @typedef {import("./floorgeometry.js").View} View */

/**
 * Buildings then halls: white floors with a thin border.
 * @param {FloorMap} map
 * @param {CanvasRenderingContext2D} ctx
 * @param {View} view
 * @param {number} scale px per m
 */
export function drawFloors(map, ctx, view, scale) {
  for (const o of map.outlines) {
    if (!intersects(o, view)) continue;
    ctx.fillStyle = o.level === "building" ? "#e2e7ee" : "#ffffff";
    ctx.fillRect(o.x, o.y, o.w, o.h);
    ctx.lineWidth = (o.level === "building" ? 2 : 1) / scale;
    ctx.strokeStyle = o.level === "building" ? "#7d8798" : "#aab4c3";
    ctx.strokeRect(o.x, o.y, o.w, o.h);
  }
}

/**
 * Racks: one path per colour; merged into cells when too small to draw one by one; borders when big enough.
 * @param {FloorMap} map
 * @param {CanvasRenderingContext2D} ctx
 * @param {View} view
 * @param {number} scale px per m
 */
export function drawRacks(map, ctx, view, scale) {
  const minW = 1.2 / scale;
  const racks = map.racks;
  if (map.aggregated) {
    // Level of detail: racks a pixel or two wide would be hair-lines; merge them into square cells of a few
    // pixels, each in the colour most of its racks have (a hit rack in impact mode wins its cell).
    const size = CELL_PX / scale;
    if (map.cells?.size !== size) map.cells = mergeCells(map.racks, map.colors, map.highlight, size);
    const cells = map.cells;
    for (const [color, list] of cells.groups) {
      ctx.beginPath();
      for (const c of list) {
        if (c.x > view.x1 || c.y > view.y1 || c.x + c.w < view.x0 || c.y + c.h < view.y0) continue;
        ctx.rect(c.x, c.y, c.w, c.h);
      }
      ctx.fillStyle = color;
      ctx.fill();
    }
  } else {
    // Racks: one path per colour.
    for (const [color, list] of map.groups) {
      ctx.beginPath();
      for (let k = 0; k < list.length; k += 1) {
        const r = racks[list[k]];
        if (r.x > view.x1 || r.y > view.y1 || r.x + r.w < view.x0 || r.y + r.h < view.y0) continue;
        ctx.rect(r.x, r.y, Math.max(r.w, minW), Math.max(r.h, minW));
      }
      ctx.fillStyle = color;
      ctx.fill();
    }
  }

  // Rack borders once they are big enough to show them.
  if (scale >= 10) {
    ctx.beginPath();
    for (const r of racks) {
      if (r.x > view.x1 || r.y > view.y1 || r.x + r.w < view.x0 || r.y + r.h < view.y0) continue;
      ctx.rect(r.x, r.y, r.w, r.h);
    }
    ctx.lineWidth = 1 / scale;
    ctx.strokeStyle = "rgba(20, 28, 40, 0.35)";
    ctx.stroke();
  }
}

/**
 * Highlighted racks (impact mode's hits, racks that differ) outlined.
 * @param {FloorMap} map
 * @param {CanvasRenderingContext2D} ctx
 * @param {number} scale px per m
 */
export function drawHighlight(map, ctx, scale) {
  const minW = 1.2 / scale;
  if (map.highlight.size) {
    ctx.beginPath();
    for (const i of map.highlight) {
      const r = map.racks[i];
      ctx.rect(r.x, r.y, Math.max(r.w, minW), Math.max(r.h, minW));
    }
    ctx.lineWidth = 1.5 / scale;
    ctx.strokeStyle = "#111827";
    ctx.stroke();
  }
}

/**
 * The hovered and the selected rack outlined.
 * @param {FloorMap} map
 * @param {CanvasRenderingContext2D} ctx
 * @param {number} scale px per m
 */
export function drawSelection(map, ctx, scale) {
  const minW = 1.2 / scale;
  const racks = map.racks;
  /** @type {[number, string, number][]} rack, outline colour, line width px */
  const marks = [
    [map.hovered, "#111827", 2],
    [map.selected, "#0b57d0", 3],
  ];
  for (const [i, color, width] of marks) {
    if (i < 0 || !racks[i]) continue;
    const r = racks[i];
    const pad = 2 / scale;
    ctx.lineWidth = width / scale;
    ctx.strokeStyle = color;
    ctx.strokeRect(r.x - pad, r.y - pad, Math.max(r.w, minW) + 2 * pad, Math.max(r.h, minW) + 2 * pad);
  }
}

/**
 * Names of buildings and halls, just above their outlines (buildings leave room around their halls). A label never
 * squeezes: the full one when it fits its outline, else the name alone, else nothing. A building's name is kept
 * however small the building is drawn (a campus of many buildings in a row, fitted): it may run past the walls
 * into the gap before the next building, and is left out only where it would cover a name already written.
 * What was written is kept in `labels` (canvas CSS pixels) for the tests.
 * @param {FloorMap} map
 * @param {CanvasRenderingContext2D} ctx
 * @param {View} view
 * @param {number} scale px per m
 */
export function drawOutlineLabels(map, ctx, view, scale) {
  const drawn = [];
  // Buildings first, in reading order (top to bottom, left to right), so that the names kept where space is short
  // are evenly spread; then halls.
  const buildings = map.outlines.filter((o) => o.level === "building").sort((a, b) => a.y - b.y || a.x - b.x);
  const halls = map.outlines.filter((o) => o.level !== "building");
  for (const o of [...buildings, ...halls]) {
    if (!o.label || !intersects(o, view)) continue;
    const building = o.level === "building";
    const sx = (o.x - map.ox) * scale;
    const sy = (o.y - map.oy) * scale;
    const wpx = o.w * scale;
    if (!building && wpx < 40) continue;
    ctx.font = building ? "600 13px system-ui, sans-serif" : "12px system-ui, sans-serif";
    const room = wpx - 4;
    const text = [o.label, o.name].find((t, k) => t && ctx.measureText(t).width <= (k && building ? Infinity : room));
    if (!text) continue;
    const tw = ctx.measureText(text).width;
    const th = building ? 16 : 14;
    // Inside the canvas: a name at the right edge moves left rather than run off it.
    const x = Math.max(4, Math.min(sx + 2, map.width - tw - 4));
    const y = Math.max(2, building ? sy - 18 : sy - 15);
    const box = { x, y, w: tw, h: th };
    if (drawn.some((d) => boxesOverlap(d, box, 3))) continue;
    ctx.fillStyle = building ? "#253041" : "#4a5568";
    ctx.fillText(text, x, y);
    drawn.push({ ...box, level: o.level, id: o.id, text });
  }
  map.labels = drawn;
}

/**
 * The plant: one fill per kind of item.
 * @param {FloorMap} map
 * @param {CanvasRenderingContext2D} ctx
 * @param {View} view
 * @param {number} scale px per m
 */
export function drawPlant(map, ctx, view, scale) {
  if (!map.plant.length) return;
  const minW = 2 / scale;
  const byFill = new Map();
  for (const p of map.plant) {
    // Level of detail: an element under 2 px is left out (zoom in to see every PDU).
    if (!intersects(p, view) || Math.max(p.w, p.h) < minW) continue;
    const fill = plantFill(map, p);
    let list = byFill.get(fill);
    if (!list) byFill.set(fill, (list = []));
    list.push(p);
  }
  for (const [fill, list] of byFill) {
    ctx.beginPath();
    for (const p of list) ctx.rect(p.x, p.y, Math.max(p.w, minW), Math.max(p.h, minW));
    ctx.fillStyle = fill;
    ctx.fill();
    if (scale >= 3) {
      ctx.lineWidth = 1 / scale;
      ctx.strokeStyle = "#ffffff";
      ctx.stroke();
    }
  }
  // items with an alarm outlined, as racks are
  if (map.plantHighlight.size) {
    ctx.beginPath();
    for (const p of map.plant) {
      if (!map.plantHighlight.has(p.key ?? "") || !intersects(p, view)) continue;
      ctx.rect(p.x - 1 / scale, p.y - 1 / scale, Math.max(p.w, minW) + 2 / scale, Math.max(p.h, minW) + 2 / scale);
    }
    ctx.lineWidth = 2 / scale;
    ctx.strokeStyle = "#111827";
    ctx.stroke();
  }
}

/**
 * A plant item's fill: its metric colour when the map colours it, else its kind's.
 * @param {FloorMap} map
 * @param {import("./floorgeometry.js").PlantItem} p
 */
export function plantFill(map, p) {
  return map.plantColors.get(p.key ?? "") ?? plantStyle(p).fill;
}

/**
 * Names (or codes) inside plant items big enough to hold them.
 * @param {FloorMap} map
 * @param {CanvasRenderingContext2D} ctx
 * @param {View} view
 * @param {number} scale px per m
 */
export function drawPlantLabels(map, ctx, view, scale) {
  if (!map.plant.length || scale < 6) return;
  ctx.font = "600 10px system-ui, sans-serif";
  ctx.textBaseline = "middle";
  ctx.textAlign = "center";
  /** @type {{x0: number, x1: number, y: number}[]} */
  const below = [];
  for (const p of map.plant) {
    if (!intersects(p, view)) continue;
    const wpx = p.w * scale;
    const hpx = p.h * scale;
    const code = kindCode(p.kind);
    const sx = (p.x + p.w / 2 - map.ox) * scale;
    const sy = (p.y + p.h / 2 - map.oy) * scale;
    const name = shortName(p.name);
    ctx.fillStyle = map.plantColors.has(p.key ?? "") ? textOn(plantFill(map, p)) : plantStyle(p).text;
    // The name when it fits, else the kind's code, else nothing.
    const text = [wpx > 90 ? p.name : null, name, code].find((t) => t && ctx.measureText(t).width <= wpx - 4);
    if (text && hpx >= 12) ctx.fillText(text, sx, sy);
    else if (code && !ROW_END.has(p.kind)) {
      // Too small to hold even its code (a CDU or CRAH a metre across): the code just below it, in the
      // map's text colour, so no unit is an unlabelled square; never over another such code. Not for a row's
      // end PDU: below it is the next row (the key names the grey block at each row's end).
      const y = (p.y + p.h - map.oy) * scale + 7;
      const half = ctx.measureText(code).width / 2 + 2;
      if (below.some((b) => Math.abs(b.y - y) < 11 && sx + half > b.x0 && sx - half < b.x1)) continue;
      below.push({ x0: sx - half, x1: sx + half, y });
      ctx.fillStyle = "#1f2937";
      ctx.fillText(code, sx, y);
    }
  }
  ctx.textAlign = "start";
  ctx.textBaseline = "top";
}

/**
 * The power and cooling paths of the selection.
 * @param {FloorMap} map
 * @param {CanvasRenderingContext2D} ctx
 * @param {number} scale px per m
 */
export function drawPaths(map, ctx, scale) {
  const paths = map.paths;
  if (!paths) return;
  // Racks and plant on the paths outlined, then the links as lines between centres.
  ctx.beginPath();
  for (const i of paths.racks) {
    const r = map.racks[i];
    if (r) ctx.rect(r.x, r.y, Math.max(r.w, 1.2 / scale), Math.max(r.h, 1.2 / scale));
  }
  for (const i of paths.items) {
    const p = map.plant[i];
    if (p) ctx.rect(p.x - 1 / scale, p.y - 1 / scale, p.w + 2 / scale, p.h + 2 / scale);
  }
  ctx.lineWidth = 2 / scale;
  ctx.strokeStyle = "#111827";
  ctx.stroke();
  const byColor = new Map();
  for (const seg of paths.segments) {
    let list = byColor.get(seg.color);
    if (!list) byColor.set(seg.color, (list = []));
    list.push(seg);
  }
  for (const [color, list] of byColor) {
    ctx.beginPath();
    for (const seg of list) {
      ctx.moveTo(seg.x1, seg.y1);
      ctx.lineTo(seg.x2, seg.y2);
    }
    ctx.lineWidth = 2 / scale;
    ctx.strokeStyle = color;
    ctx.stroke();
  }
}

/**
 * Proposed racks, dashed.
 * @param {FloorMap} map
 * @param {CanvasRenderingContext2D} ctx
 * @param {number} scale px per m
 */
export function drawGhosts(map, ctx, scale) {
  if (!map.ghosts.length) return;
  ctx.beginPath();
  for (const g of map.ghosts) ctx.rect(g.x, g.y, Math.max(g.w, 1.2 / scale), Math.max(g.h, 1.2 / scale));
  ctx.fillStyle = "rgba(11, 87, 208, 0.18)";
  ctx.fill();
  ctx.setLineDash([4 / scale, 3 / scale]);
  ctx.lineWidth = 1.5 / scale;
  ctx.strokeStyle = "#0b57d0";
  ctx.stroke();
  ctx.setLineDash([]);
}

/**
 * Rack names inside racks wide enough on screen (at most 600 a frame).
 * @param {FloorMap} map
 * @param {CanvasRenderingContext2D} ctx
 * @param {View} view
 * @param {number} scale px per m
 */
export function drawRackLabels(map, ctx, view, scale) {
  const racks = map.racks;
  ctx.font = "10px system-ui, sans-serif";
  ctx.fillStyle = "#111827";
  ctx.textBaseline = "middle";
  ctx.textAlign = "center";
  let drawn = 0;
  for (let i = 0; i < racks.length; i += 1) {
    const r = racks[i];
    if (r.x > view.x1 || r.y > view.y1 || r.x + r.w < view.x0 || r.y + r.h < view.y0) continue;
    // A name is written inside its rack along the long side, only where it fits, so it never covers the
    // colour of a neighbour; the rack keeps a coloured margin around the text.
    const long = Math.max(r.w, r.h) * scale;
    const short = Math.min(r.w, r.h) * scale;
    // "R01-01", else the rack's own number ("01") when the longer one does not fit.
    const label = [shortName(r.name), lastPart(r.name)].find((t) => ctx.measureText(t).width <= long - 6);
    if (short < 13 || !label) continue;
    const sx = (r.x + r.w / 2 - map.ox) * scale;
    const sy = (r.y + r.h / 2 - map.oy) * scale;
    ctx.save();
    ctx.translate(sx, sy);
    if (r.h > r.w) ctx.rotate(-Math.PI / 2);
    ctx.fillStyle = textOn(map.colors[i] ?? "#ffffff");
    ctx.fillText(label, 0, 0);
    ctx.restore();
    if (++drawn > 600) break;
  }
  ctx.textAlign = "start";
}
