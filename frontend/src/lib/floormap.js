// @ts-check
// The floor map renderer: one Canvas 2D, racks in world metres, one path + fill per colour, a uniform grid for
// hover look-ups. Draws thousands of racks per frame; pan with drag or arrows, zoom with the wheel or +/−.

const CELL_M = 4; // hover grid cell, m
const MIN_SCALE = 0.05; // px per m (zooming out stops here, or at the fitted view when that is further out)
const FIT_PAD_PX = 24; // room around the scene in the fitted view (building names sit 18 px above their walls)
const MAX_SCALE = 400;
const AGGREGATE_BELOW_PX = 2.5; // racks narrower than this on screen are merged into cells
const CELL_PX = 6; // side of a merged cell on screen
// Plant fills by type; the kind's short code is written inside when it fits.
const PLANT_STYLE = {
  power: { fill: "#475467", text: "#ffffff" },
  generator: { fill: "#7a5a1e", text: "#ffffff" },
  cooling: { fill: "#0e7490", text: "#ffffff" },
  plant: { fill: "#164e63", text: "#ffffff" },
};
const KIND_CODE = {
  pdu: "PDU",
  rpp: "RPP",
  busway: "BUS",
  ups: "UPS",
  switchgear: "SWGR",
  transformer: "TX",
  generator: "GEN",
  substation: "SUB",
  cdu: "CDU",
  crah: "CRAH",
  "rear-door": "RDHX",
  immersion: "TANK",
  chiller: "CHLR",
  "dry-cooler": "DRY",
  "cooling-tower": "TWR",
};

export function plantStyle(p) {
  return p.kind === "generator" ? PLANT_STYLE.generator : (PLANT_STYLE[p.type] ?? PLANT_STYLE.power);
}

export function kindCode(kind) {
  return KIND_CODE[kind] ?? String(kind).toUpperCase();
}

export class FloorMap {
  /**
   * @param {HTMLCanvasElement} canvas
   * @param {{onHover?: Function, onClick?: Function, onView?: Function}} handlers
   */
  constructor(canvas, handlers = {}) {
    this.canvas = canvas;
    this.ctx = canvas.getContext("2d", { alpha: false });
    this.handlers = handlers;
    this.racks = [];
    this.outlines = []; // {x, y, w, h, label, level: "building"|"hall"}
    this.colors = [];
    this.groups = new Map();
    this.highlight = new Set();
    this.selected = -1;
    this.hovered = -1;
    this.plant = []; // power devices, cooling units and plants: {x, y, w, h, type, kind, name, key}
    this.hoveredPlant = -1;
    this.paths = null; // {segments, items, racks}: the power and cooling paths of the selection
    this.cells = null; // racks merged into cells when too small to draw one by one
    this.scale = 1;
    this.ox = 0; // world coordinate at the canvas' left edge
    this.oy = 0;
    this.dpr = window.devicePixelRatio || 1;
    this.width = 0;
    this.height = 0;
    this.frame = 0;
    this.firstPaint = null;
    this.lastFrameMs = 0;
    this.bounds = { x: 0, y: 0, w: 1, h: 1 };
    this.editable = false; // when true (and handlers.onRackDrop is set) dragging a rack moves it instead of the view
    this.ghosts = []; // proposed racks drawn dashed over the map: {x, y, w, h} in world metres
    this.labels = []; // outline labels written by the last frame: {x, y, w, h, level, id, text} in canvas CSS px
    this._resize();
    this._wire();
    this.draw(); // an opaque canvas starts black: paint the background before the racks arrive
  }

  // ------------------------------------------------------------------ scene

  /** racks: [{x, y, w, h, ...}] in world metres (top-left corner); outlines: halls and buildings. */
  setScene(racks, outlines, bounds, plant = []) {
    this.racks = racks;
    this.outlines = outlines;
    this.plant = plant;
    this.bounds = bounds ?? this._boundsOf(racks, [...outlines, ...plant]);
    this.selected = -1;
    this.hovered = -1;
    this.hoveredPlant = -1;
    this.paths = null;
    this.cells = null;
    this.ghosts = [];
    this.highlight = new Set();
    this._buildGrid();
    this.fit();
  }

  /** colorOf(rack, index) -> CSS colour; racks of one colour are filled together. */
  setColors(colorOf) {
    const groups = new Map();
    const colors = new Array(this.racks.length);
    for (let i = 0; i < this.racks.length; i += 1) {
      const c = colorOf(this.racks[i], i);
      colors[i] = c;
      let list = groups.get(c);
      if (!list) groups.set(c, (list = []));
      list.push(i);
    }
    this.colors = colors;
    this.groups = groups;
    this.cells = null;
    this.requestDraw();
  }

  setHighlight(indices) {
    this.highlight = new Set(indices);
    this.cells = null;
    this.requestDraw();
  }

  /** Show (items) or hide ([]) the plant without moving the view. */
  setPlant(plant) {
    this.plant = plant;
    this.hoveredPlant = -1;
    this.requestDraw();
  }

  /** The paths to draw over the map ({segments, items, racks} from PlantGraph.paths), or null. */
  setPaths(paths) {
    this.paths = paths;
    this.requestDraw();
  }

  /** Proposed racks (world metres) drawn as dashed outlines over the map; [] clears them. */
  setGhosts(ghosts) {
    this.ghosts = ghosts ?? [];
    this.requestDraw();
  }

  /** Put a rack's corner at (x, y) world metres (a drag's drop or its snap back) and keep hover look-ups right. */
  moveRack(index, x, y) {
    const r = this.racks[index];
    if (!r) return;
    r.x = x;
    r.y = y;
    this._buildGrid();
    this.cells = null;
    this.requestDraw();
  }

  /** Index of the plant item under a canvas point, or -1 (a few pixels of slop for small ones). */
  plantAt(sx, sy) {
    const wx = this.ox + sx / this.scale;
    const wy = this.oy + sy / this.scale;
    const slop = 3 / this.scale;
    let best = -1;
    let bestArea = Infinity;
    for (let i = 0; i < this.plant.length; i += 1) {
      const p = this.plant[i];
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

  /** True when racks are too small on screen to draw one by one: they are merged into cells. */
  get aggregated() {
    return this.scale * 0.6 < AGGREGATE_BELOW_PX;
  }

  select(index) {
    this.selected = index;
    this.requestDraw();
  }

  // ------------------------------------------------------------------ view

  fit() {
    const b = this.bounds;
    this.scale = this._fitScale();
    this.ox = b.x - (this.width / this.scale - b.w) / 2;
    this.oy = b.y - (this.height / this.scale - b.h) / 2;
    this._viewChanged();
  }

  /** Fit the view to some racks (by index), never closer than a rack a few pixels wide needs. */
  fitTo(indices) {
    if (!indices.length) return;
    let x0 = Infinity;
    let y0 = Infinity;
    let x1 = -Infinity;
    let y1 = -Infinity;
    for (const i of indices) {
      const r = this.racks[i];
      x0 = Math.min(x0, r.x);
      y0 = Math.min(y0, r.y);
      x1 = Math.max(x1, r.x + r.w);
      y1 = Math.max(y1, r.y + r.h);
    }
    const pad = 6; // m around the racks
    const w = x1 - x0 + 2 * pad;
    const h = y1 - y0 + 2 * pad;
    this.scale = clamp(Math.min(this.width / w, this.height / h, 20), this._minScale(), MAX_SCALE);
    this.ox = x0 - pad - (this.width / this.scale - w) / 2;
    this.oy = y0 - pad - (this.height / this.scale - h) / 2;
    this._viewChanged();
  }

  zoomAt(factor, sx = this.width / 2, sy = this.height / 2) {
    const wx = this.ox + sx / this.scale;
    const wy = this.oy + sy / this.scale;
    this.scale = clamp(this.scale * factor, this._minScale(), MAX_SCALE);
    this.ox = wx - sx / this.scale;
    this.oy = wy - sy / this.scale;
    this._viewChanged();
  }

  panBy(dxPx, dyPx) {
    this.ox -= dxPx / this.scale;
    this.oy -= dyPx / this.scale;
    this._viewChanged();
  }

  centerOn(index) {
    const r = this.racks[index];
    if (!r) return;
    if (this.scale < 8) this.scale = 8;
    this.ox = r.x + r.w / 2 - this.width / 2 / this.scale;
    this.oy = r.y + r.h / 2 - this.height / 2 / this.scale;
    this._viewChanged();
  }

  /** Centre of a rack in viewport (client) CSS pixels. */
  clientPoint(index) {
    const r = this.racks[index];
    const box = this.canvas.getBoundingClientRect();
    return {
      x: box.left + (r.x + r.w / 2 - this.ox) * this.scale,
      y: box.top + (r.y + r.h / 2 - this.oy) * this.scale,
    };
  }

  rackAt(sx, sy) {
    const wx = this.ox + sx / this.scale;
    const wy = this.oy + sy / this.scale;
    // A rack smaller than a few pixels is still easy to point at: accept a small margin in screen space.
    const slop = Math.max(0, 3 / this.scale);
    const cx = Math.floor(wx / CELL_M);
    const cy = Math.floor(wy / CELL_M);
    let best = -1;
    let bestD = Infinity;
    const reach = Math.max(1, Math.ceil(slop / CELL_M));
    for (let gx = cx - reach; gx <= cx + reach; gx += 1) {
      for (let gy = cy - reach; gy <= cy + reach; gy += 1) {
        const list = this.grid.get(key(gx, gy));
        if (!list) continue;
        for (const i of list) {
          const r = this.racks[i];
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

  // ------------------------------------------------------------------ drawing

  requestDraw() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.draw();
    });
  }

  draw() {
    const t0 = performance.now();
    const { ctx, dpr, scale } = this;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.fillStyle = "#eef1f5";
    ctx.fillRect(0, 0, this.canvas.width, this.canvas.height);
    // World transform: every rect below is in metres.
    ctx.setTransform(dpr * scale, 0, 0, dpr * scale, -this.ox * scale * dpr, -this.oy * scale * dpr);
    const view = {
      x0: this.ox,
      y0: this.oy,
      x1: this.ox + this.width / scale,
      y1: this.oy + this.height / scale,
    };

    // Buildings then halls: white floors with a thin border.
    for (const o of this.outlines) {
      if (!intersects(o, view)) continue;
      ctx.fillStyle = o.level === "building" ? "#e2e7ee" : "#ffffff";
      ctx.fillRect(o.x, o.y, o.w, o.h);
      ctx.lineWidth = (o.level === "building" ? 2 : 1) / scale;
      ctx.strokeStyle = o.level === "building" ? "#7d8798" : "#aab4c3";
      ctx.strokeRect(o.x, o.y, o.w, o.h);
    }

    const minW = 1.2 / scale;
    const racks = this.racks;
    if (this.aggregated) {
      // Level of detail: racks a pixel or two wide would be hair-lines; merge them into square cells of a few
      // pixels, each in the colour most of its racks have (a hit rack in impact mode wins its cell).
      const cells = this._cellsFor(scale);
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
      for (const [color, list] of this.groups) {
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

    this._drawPlant(ctx, view, scale);

    if (this.highlight.size) {
      ctx.beginPath();
      for (const i of this.highlight) {
        const r = racks[i];
        ctx.rect(r.x, r.y, Math.max(r.w, minW), Math.max(r.h, minW));
      }
      ctx.lineWidth = 1.5 / scale;
      ctx.strokeStyle = "#111827";
      ctx.stroke();
    }

    this._drawPaths(ctx, scale);
    this._drawGhosts(ctx, scale);

    for (const [i, color, width] of [
      [this.hovered, "#111827", 2],
      [this.selected, "#0b57d0", 3],
    ]) {
      if (i < 0 || !racks[i]) continue;
      const r = racks[i];
      const pad = 2 / scale;
      ctx.lineWidth = width / scale;
      ctx.strokeStyle = color;
      ctx.strokeRect(r.x - pad, r.y - pad, Math.max(r.w, minW) + 2 * pad, Math.max(r.h, minW) + 2 * pad);
    }

    // Labels in screen space so text stays crisp at every zoom.
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.textBaseline = "top";
    this._drawOutlineLabels(ctx, view, scale);
    this._drawPlantLabels(ctx, view, scale);
    if (scale >= 28) {
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
        const sx = (r.x + r.w / 2 - this.ox) * scale;
        const sy = (r.y + r.h / 2 - this.oy) * scale;
        ctx.save();
        ctx.translate(sx, sy);
        if (r.h > r.w) ctx.rotate(-Math.PI / 2);
        ctx.fillStyle = textOn(this.colors[i] ?? "#ffffff");
        ctx.fillText(label, 0, 0);
        ctx.restore();
        if (++drawn > 600) break;
      }
      ctx.textAlign = "start";
    }

    this.lastFrameMs = performance.now() - t0;
    if (this.firstPaint === null && racks.length) {
      this.firstPaint = performance.now();
      performance.mark("floormap-first-paint");
    }
  }

  /**
   * Names of buildings and halls, just above their outlines (buildings leave room around their halls). A label never
   * squeezes: the full one when it fits its outline, else the name alone, else nothing. A building's name is kept
   * however small the building is drawn (a campus of many buildings in a row, fitted): it may run past the walls
   * into the gap before the next building, and is left out only where it would cover a name already written.
   * What was written is kept in `labels` (canvas CSS pixels) for the tests.
   */
  _drawOutlineLabels(ctx, view, scale) {
    const drawn = [];
    // Buildings first, in reading order (top to bottom, left to right), so that the names kept where space is short
    // are evenly spread; then halls.
    const buildings = this.outlines.filter((o) => o.level === "building").sort((a, b) => a.y - b.y || a.x - b.x);
    const halls = this.outlines.filter((o) => o.level !== "building");
    for (const o of [...buildings, ...halls]) {
      if (!o.label || !intersects(o, view)) continue;
      const building = o.level === "building";
      const sx = (o.x - this.ox) * scale;
      const sy = (o.y - this.oy) * scale;
      const wpx = o.w * scale;
      if (!building && wpx < 40) continue;
      ctx.font = building ? "600 13px system-ui, sans-serif" : "12px system-ui, sans-serif";
      const room = wpx - 4;
      const text = [o.label, o.name].find((t, k) => t && ctx.measureText(t).width <= (k && building ? Infinity : room));
      if (!text) continue;
      const tw = ctx.measureText(text).width;
      const th = building ? 16 : 14;
      // Inside the canvas: a name at the right edge moves left rather than run off it.
      const x = Math.max(4, Math.min(sx + 2, this.width - tw - 4));
      const y = Math.max(2, building ? sy - 18 : sy - 15);
      const box = { x, y, w: tw, h: th };
      if (drawn.some((d) => boxesOverlap(d, box, 3))) continue;
      ctx.fillStyle = building ? "#253041" : "#4a5568";
      ctx.fillText(text, x, y);
      drawn.push({ ...box, level: o.level, id: o.id, text });
    }
    this.labels = drawn;
  }

  // ------------------------------------------------------------------ level of detail and the plant

  /** Racks merged into square cells of CELL_PX on screen, by colour; recomputed when the zoom or colours change. */
  _cellsFor(scale) {
    const size = CELL_PX / scale;
    if (this.cells && this.cells.size === size) return this.cells;
    const byCell = new Map();
    for (let i = 0; i < this.racks.length; i += 1) {
      const r = this.racks[i];
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
      const c = this.colors[i];
      const counts = this.highlight.has(i) ? cell.hit : cell.counts;
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
    this.cells = { size, groups };
    return this.cells;
  }

  _drawPlant(ctx, view, scale) {
    if (!this.plant.length) return;
    const minW = 2 / scale;
    const byFill = new Map();
    for (const p of this.plant) {
      // Level of detail: an element under 2 px is left out (zoom in to see every PDU).
      if (!intersects(p, view) || Math.max(p.w, p.h) < minW) continue;
      const fill = plantStyle(p).fill;
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
  }

  _drawPlantLabels(ctx, view, scale) {
    if (!this.plant.length || scale < 6) return;
    ctx.font = "600 10px system-ui, sans-serif";
    ctx.textBaseline = "middle";
    ctx.textAlign = "center";
    for (const p of this.plant) {
      if (!intersects(p, view)) continue;
      const wpx = p.w * scale;
      const hpx = p.h * scale;
      const code = kindCode(p.kind);
      const sx = (p.x + p.w / 2 - this.ox) * scale;
      const sy = (p.y + p.h / 2 - this.oy) * scale;
      const name = shortName(p.name);
      ctx.fillStyle = plantStyle(p).text;
      // The name when it fits, else the kind's code, else nothing.
      const text = [wpx > 90 ? p.name : null, name, code].find((t) => t && ctx.measureText(t).width <= wpx - 4);
      if (text && hpx >= 12) ctx.fillText(text, sx, sy);
    }
    ctx.textAlign = "start";
    ctx.textBaseline = "top";
  }

  _drawPaths(ctx, scale) {
    const paths = this.paths;
    if (!paths) return;
    // Racks and plant on the paths outlined, then the links as lines between centres.
    ctx.beginPath();
    for (const i of paths.racks) {
      const r = this.racks[i];
      if (r) ctx.rect(r.x, r.y, Math.max(r.w, 1.2 / scale), Math.max(r.h, 1.2 / scale));
    }
    for (const i of paths.items) {
      const p = this.plant[i];
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

  _drawGhosts(ctx, scale) {
    if (!this.ghosts.length) return;
    ctx.beginPath();
    for (const g of this.ghosts) ctx.rect(g.x, g.y, Math.max(g.w, 1.2 / scale), Math.max(g.h, 1.2 / scale));
    ctx.fillStyle = "rgba(11, 87, 208, 0.18)";
    ctx.fill();
    ctx.setLineDash([4 / scale, 3 / scale]);
    ctx.lineWidth = 1.5 / scale;
    ctx.strokeStyle = "#0b57d0";
    ctx.stroke();
    ctx.setLineDash([]);
  }

  // ------------------------------------------------------------------ internals

  _boundsOf(racks, outlines) {
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

  _buildGrid() {
    const grid = new Map();
    this.racks.forEach((r, i) => {
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
    this.grid = grid;
  }

  _resize() {
    const box = this.canvas.parentElement.getBoundingClientRect();
    this.dpr = window.devicePixelRatio || 1;
    const w = Math.max(200, Math.floor(box.width));
    const h = Math.max(200, Math.floor(box.height));
    const changed = w !== this.width || h !== this.height;
    this.width = w;
    this.height = h;
    // Setting a canvas' size clears it, even to the same size: only when it changes (the resize observer's first
    // call may come after the first frame was painted).
    const pw = Math.round(w * this.dpr);
    const ph = Math.round(h * this.dpr);
    const cleared = this.canvas.width !== pw || this.canvas.height !== ph;
    if (this.canvas.width !== pw) this.canvas.width = pw;
    if (this.canvas.height !== ph) this.canvas.height = ph;
    this.canvas.style.width = `${w}px`;
    this.canvas.style.height = `${h}px`;
    return changed || cleared;
  }

  _viewChanged() {
    this.requestDraw();
    this.handlers.onView?.(this);
  }

  _wire() {
    const canvas = this.canvas;
    new ResizeObserver(() => {
      const fitted = this._isFitted();
      if (this._resize()) {
        if (fitted) this.fit();
        else this.requestDraw();
      }
    }).observe(canvas.parentElement);

    canvas.addEventListener(
      "wheel",
      (e) => {
        e.preventDefault();
        const p = this._local(e);
        this.zoomAt(Math.exp(-e.deltaY * (e.deltaMode === 1 ? 0.05 : 0.0015)), p.x, p.y);
      },
      { passive: false },
    );

    let drag = null;
    canvas.addEventListener("pointerdown", (e) => {
      if (e.button !== 0) return;
      canvas.setPointerCapture(e.pointerId);
      drag = { x: e.clientX, y: e.clientY, moved: 0, rack: -1 };
      if (this.editable && this.handlers.onRackDrop) {
        const p = this._local(e);
        const i = this.rackAt(p.x, p.y);
        if (i >= 0)
          Object.assign(drag, { rack: i, x0: e.clientX, y0: e.clientY, rx: this.racks[i].x, ry: this.racks[i].y });
      }
    });
    canvas.addEventListener("pointermove", (e) => {
      const p = this._local(e);
      if (drag && drag.rack >= 0) {
        // Edit mode: the rack follows the pointer (world metres); the page decides on drop.
        drag.moved += Math.abs(e.clientX - drag.x) + Math.abs(e.clientY - drag.y);
        drag.x = e.clientX;
        drag.y = e.clientY;
        if (drag.moved > 3) {
          canvas.classList.add("dragging");
          const r = this.racks[drag.rack];
          r.x = drag.rx + (e.clientX - drag.x0) / this.scale;
          r.y = drag.ry + (e.clientY - drag.y0) / this.scale;
          this.requestDraw();
          return;
        }
      } else if (drag) {
        const dx = e.clientX - drag.x;
        const dy = e.clientY - drag.y;
        drag.moved += Math.abs(dx) + Math.abs(dy);
        drag.x = e.clientX;
        drag.y = e.clientY;
        if (drag.moved > 3) {
          canvas.classList.add("dragging");
          this.panBy(dx, dy);
          this._hover(-1, e);
          return;
        }
      }
      const rack = this.rackAt(p.x, p.y);
      this._hover(rack, e, rack < 0 ? this.plantAt(p.x, p.y) : -1);
    });
    canvas.addEventListener("pointerup", (e) => {
      const wasClick = drag && drag.moved <= 3;
      if (drag && drag.rack >= 0 && !wasClick) {
        const { rack, rx, ry } = drag;
        const r = this.racks[rack];
        drag = null;
        canvas.classList.remove("dragging");
        this._buildGrid();
        this.cells = null;
        this.handlers.onRackDrop(rack, { dx: r.x - rx, dy: r.y - ry, fromX: rx, fromY: ry });
        return;
      }
      drag = null;
      canvas.classList.remove("dragging");
      if (wasClick) {
        const p = this._local(e);
        const i = this.rackAt(p.x, p.y);
        this.handlers.onClick?.(i, e, i < 0 ? this.plantAt(p.x, p.y) : -1);
      }
    });
    canvas.addEventListener("pointerleave", (e) => {
      if (!drag) this._hover(-1, e);
    });
    canvas.addEventListener("keydown", (e) => {
      const step = e.shiftKey ? 200 : 60;
      const actions = {
        ArrowLeft: () => this.panBy(step, 0),
        ArrowRight: () => this.panBy(-step, 0),
        ArrowUp: () => this.panBy(0, step),
        ArrowDown: () => this.panBy(0, -step),
        "+": () => this.zoomAt(1.25),
        "=": () => this.zoomAt(1.25),
        "-": () => this.zoomAt(0.8),
        _: () => this.zoomAt(0.8),
        0: () => this.fit(),
      };
      const action = actions[e.key];
      if (action) {
        e.preventDefault();
        action();
      }
    });
  }

  _isFitted() {
    return this.width === 0 || Math.abs(this.scale - this._fitScale()) < 1e-6;
  }

  /** The zoom at which the whole scene fits the canvas with FIT_PAD_PX around it. */
  _fitScale() {
    const b = this.bounds;
    const fit = Math.min(
      (this.width - 2 * FIT_PAD_PX) / Math.max(b.w, 1),
      (this.height - 2 * FIT_PAD_PX) / Math.max(b.h, 1),
    );
    // Never closer than MAX_SCALE, and never clamped to MIN_SCALE: a campus kilometres long on a narrow canvas
    // needs less to fit, and the fitted view shows every building.
    return clamp(fit, 1e-4, MAX_SCALE);
  }

  /** How far out the view may zoom: MIN_SCALE, or the fitted view when the scene needs less to fit. */
  _minScale() {
    return Math.min(MIN_SCALE, this._fitScale());
  }

  _local(e) {
    const box = this.canvas.getBoundingClientRect();
    return { x: e.clientX - box.left, y: e.clientY - box.top };
  }

  _hover(index, e, plantIndex = -1) {
    if (index !== this.hovered || plantIndex !== this.hoveredPlant) {
      this.hovered = index;
      this.hoveredPlant = plantIndex;
      this.requestDraw();
    }
    this.handlers.onHover?.(index, e, plantIndex);
  }
}

function key(gx, gy) {
  return gx * 100003 + gy;
}

function clamp(v, lo, hi) {
  return Math.min(hi, Math.max(lo, v));
}

/** True when two screen boxes {x, y, w, h} come closer than `gap` pixels. */
function boxesOverlap(a, b, gap = 0) {
  return a.x < b.x + b.w + gap && b.x < a.x + a.w + gap && a.y < b.y + b.h && b.y < a.y + a.h;
}

function intersects(o, view) {
  return !(o.x > view.x1 || o.y > view.y1 || o.x + o.w < view.x0 || o.y + o.h < view.y0);
}

/** Dark or white text, whichever reads better on a fill (WCAG relative luminance). */
export function textOn(color) {
  const m = /^#([0-9a-f]{6})$/i.exec(color);
  if (!m) return "#111827";
  const v = parseInt(m[1], 16);
  const lin = (c) => {
    const x = c / 255;
    return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4;
  };
  const lum = 0.2126 * lin((v >> 16) & 255) + 0.7152 * lin((v >> 8) & 255) + 0.0722 * lin(v & 255);
  return (lum + 0.05) / 0.05 >= 1.05 / (lum + 0.05) ? "#111827" : "#ffffff";
}

function lastPart(name) {
  const parts = String(name).split(/[-_ ]/);
  return parts[parts.length - 1];
}

function shortName(name) {
  const parts = String(name).split(/[-_ ]/);
  return parts.length > 2 ? parts.slice(-2).join("-") : String(name);
}
