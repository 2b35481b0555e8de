// @ts-check
// The floor plan's conventions drawn: the 600 mm tile grid with its coordinates, hot and cold aisles with the hot
// aisle's containment, rack fronts, row labels, a scale bar and a north mark. Geometry from floorplan.js; floormap.js
// calls these each frame (world metres for the floor, screen pixels for the text and the marks).
import { boxesOverlap, intersects } from "./floorgeometry.js";
import { TILE_M, frontEdge, scaleBar, tileLines } from "./floorplan.js";

/** @typedef {import("./floormap.js").FloorMap} FloorMap */
/** @typedef {import("./floorgeometry.js").View} View */

export const AISLE_FILL = { cold: "#dbeafe", hot: "#fde2d6" };
export const CONTAINMENT = "#b42318";
export const FRONT = "#111827";
const TILE_GRID_FROM = 12; // px per m: a tile 7 px wide
const TILE_TEXT_FROM = 40; // px per m: a tile 24 px wide, every tile's coordinate fits

/**
 * Tile grid under the racks, then the aisles (the hot aisle outlined as contained, its doors at the row ends).
 * @param {FloorMap} map
 * @param {CanvasRenderingContext2D} ctx
 * @param {View} view
 * @param {number} scale px per m
 */
export function drawFloorPlan(map, ctx, view, scale) {
  if (scale >= TILE_GRID_FROM) {
    ctx.beginPath();
    for (const o of map.outlines) {
      if (o.level === "building" || !intersects(o, view)) continue;
      const { xs, ys } = tileLines(o, view, 1);
      const y0 = Math.max(o.y, view.y0);
      const y1 = Math.min(o.y + o.h, view.y1);
      const x0 = Math.max(o.x, view.x0);
      const x1 = Math.min(o.x + o.w, view.x1);
      for (const x of xs) {
        ctx.moveTo(x, y0);
        ctx.lineTo(x, y1);
      }
      for (const y of ys) {
        ctx.moveTo(x0, y);
        ctx.lineTo(x1, y);
      }
    }
    ctx.lineWidth = 1 / scale;
    ctx.strokeStyle = "#e3e8ef";
    ctx.stroke();
  }
  if (scale < 2) return; // an aisle under 4 px: the rows carry the picture
  for (const kind of /** @type {const} */ (["cold", "hot"])) {
    ctx.beginPath();
    for (const a of map.aisles) if (a.kind === kind && intersects(a, view)) ctx.rect(a.x, a.y, a.w, a.h);
    ctx.fillStyle = AISLE_FILL[kind];
    ctx.fill();
  }
  if (scale < 4) return;
  // Containment: panels along the contained aisle's long sides' ends (doors) and its roof edge, dashed.
  ctx.beginPath();
  for (const a of map.aisles) {
    if (!a.contained || !intersects(a, view)) continue;
    ctx.rect(a.x, a.y, a.w, a.h);
  }
  ctx.setLineDash([3 / scale, 2 / scale]);
  ctx.lineWidth = 1.5 / scale;
  ctx.strokeStyle = CONTAINMENT;
  ctx.stroke();
  ctx.setLineDash([]);
}

/**
 * Each rack's front as a dark edge, once racks are a few pixels deep.
 * @param {FloorMap} map
 * @param {CanvasRenderingContext2D} ctx
 * @param {View} view
 * @param {number} scale px per m
 */
export function drawFronts(map, ctx, view, scale) {
  if (scale < 6 || map.aggregated) return;
  ctx.beginPath();
  for (let i = 0; i < map.racks.length; i += 1) {
    const r = map.racks[i];
    if (r.x > view.x1 || r.y > view.y1 || r.x + r.w < view.x0 || r.y + r.h < view.y0) continue;
    const [x1, y1, x2, y2] = frontEdge(r, map.fronts[i] ?? "down");
    ctx.moveTo(x1, y1);
    ctx.lineTo(x2, y2);
  }
  ctx.lineWidth = Math.max(2, 0.08 * scale) / scale;
  ctx.strokeStyle = FRONT;
  ctx.stroke();
}

/**
 * Row labels at each row's left (or top) end, and the tile coordinates along the halls' walls; screen pixels.
 * Written into `map.planLabels` for the tests.
 * @param {FloorMap} map
 * @param {CanvasRenderingContext2D} ctx
 * @param {View} view
 * @param {number} scale px per m
 */
export function drawPlanLabels(map, ctx, view, scale) {
  /** @type {{x: number, y: number, w: number, h: number, text: string, kind: string}[]} */
  const drawn = [];
  ctx.textBaseline = "middle";
  ctx.font = "600 11px system-ui, sans-serif";
  const hallAt = new Map(map.outlines.filter((o) => o.level !== "building").map((o) => [o.id, o]));
  for (const row of map.rows) {
    if (!intersects(row, view)) continue;
    const across = row.front === "up" || row.front === "down";
    // Rows at least 7 px deep carry a label: outside the hall's wall at the row's start (left wall for rows
    // running left to right, top wall for the others), so the row-end PDUs keep their place.
    if (Math.min(row.w, row.h) * scale < 7) continue;
    const tw = ctx.measureText(row.label).width;
    const hall = hallAt.get(row.hall);
    const sx = across
      ? (Math.min(row.x, hall?.x ?? row.x) - map.ox) * scale - tw - 4
      : (row.x + row.w / 2 - map.ox) * scale - tw / 2;
    const sy = across ? (row.y + row.h / 2 - map.oy) * scale : (Math.min(row.y, hall?.y ?? row.y) - map.oy) * scale - 8;
    const box = { x: sx, y: sy - 7, w: tw, h: 14 };
    if (box.x < 0 || drawn.some((d) => boxesOverlap(d, box, 2))) continue;
    ctx.fillStyle = "#1f2937";
    ctx.fillText(row.label, sx, sy);
    drawn.push({ ...box, text: row.label, kind: "row" });
  }
  if (scale >= TILE_GRID_FROM) {
    ctx.font = "9px system-ui, sans-serif";
    ctx.fillStyle = "#4a5568";
    ctx.textAlign = "center";
    const every = scale >= TILE_TEXT_FROM ? 1 : Math.ceil(TILE_TEXT_FROM / scale);
    for (const o of map.outlines) {
      if (o.level === "building" || !intersects(o, view)) continue;
      const { columns, rows } = tileLines(o, view, every);
      // Along the top wall inside the hall, and down the left wall.
      const top = Math.max(6, (o.y - map.oy) * scale + 6);
      const left = Math.max(8, (o.x - map.ox) * scale + 8);
      for (const c of columns) ctx.fillText(c.text, (c.x - map.ox) * scale, top);
      // (row 1's number would sit on column A's letter in the corner: the corner reads "A" alone)
      for (const r of rows) if (r.text !== "1") ctx.fillText(r.text, left, (r.y - map.oy) * scale);
      drawn.push({
        x: left,
        y: top,
        w: 0,
        h: 0,
        text: `${columns[0]?.text ?? ""}${rows[0]?.text ?? ""}`,
        kind: "tile",
      });
    }
    ctx.textAlign = "start";
  }
  ctx.textBaseline = "top";
  map.planLabels = drawn;
}

/**
 * A scale bar (bottom left) and a north mark (top right), screen pixels. Plan north is up: the spec carries no
 * bearing, so the mark says "Plan N".
 * @param {FloorMap} map
 * @param {CanvasRenderingContext2D} ctx
 * @param {number} scale px per m
 */
export function drawScaleAndNorth(map, ctx, scale) {
  const bar = scaleBar(scale, Math.min(160, map.width / 4));
  const x = 14;
  const y = map.height - 22;
  ctx.fillStyle = "rgba(255, 255, 255, 0.85)";
  ctx.fillRect(x - 6, y - 18, bar.px + 60, 30);
  ctx.fillStyle = "#111827";
  ctx.fillRect(x, y, bar.px, 4);
  ctx.fillRect(x, y - 4, 1.5, 12);
  ctx.fillRect(x + bar.px - 1.5, y - 4, 1.5, 12);
  ctx.font = "600 11px system-ui, sans-serif";
  ctx.textBaseline = "bottom";
  ctx.fillText(bar.text, x, y - 4);
  ctx.font = "10px system-ui, sans-serif";
  ctx.fillText(`tile ${TILE_M * 1000} mm`, x + bar.px + 6, y + 8);
  map.scaleBarInfo = bar;

  // North: an arrow pointing up with "N".
  const nx = map.width - 26;
  const ny = 14;
  ctx.fillStyle = "rgba(255, 255, 255, 0.85)";
  ctx.fillRect(nx - 18, ny - 4, 36, 48);
  ctx.beginPath();
  ctx.moveTo(nx, ny);
  ctx.lineTo(nx + 7, ny + 20);
  ctx.lineTo(nx, ny + 15);
  ctx.lineTo(nx - 7, ny + 20);
  ctx.closePath();
  ctx.fillStyle = "#111827";
  ctx.fill();
  ctx.textAlign = "center";
  ctx.textBaseline = "top";
  ctx.font = "600 10px system-ui, sans-serif";
  ctx.fillText("Plan N", nx, ny + 25);
  ctx.textAlign = "start";
}
