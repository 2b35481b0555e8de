// @ts-check
// The floor map renderer: one Canvas 2D, racks in world metres, one path + fill per colour, a uniform grid for
// hover look-ups. Draws thousands of racks per frame; pan with drag or arrows, zoom with the wheel or +/−.
// The geometry lives in floorgeometry.js, what is drawn over the racks in floordraw.js, the input in floorinput.js.
import {
  drawFloors,
  drawGhosts,
  drawHighlight,
  drawOutlineLabels,
  drawPaths,
  drawPlant,
  drawPlantLabels,
  drawRackLabels,
  drawRacks,
  drawSelection,
} from "./floordraw.js";
import { AGGREGATE_BELOW_PX, boundsOf, buildGrid, clamp, plantNear, rackNear } from "./floorgeometry.js";
import { wireInput } from "./floorinput.js";
import { aislesOf, rackFronts, rowsOf } from "./floorplan.js";
import { drawFloorPlan, drawFronts, drawPlanLabels, drawScaleAndNorth } from "./floorplandraw.js";

export { kindCode, plantStyle, textOn } from "./floorgeometry.js";

const MIN_SCALE = 0.05; // px per m (zooming out stops here, or at the fitted view when that is further out)
const FIT_PAD_PX = 24; // room around the scene in the fitted view (building names sit 18 px above their walls)
const MAX_SCALE = 400;

/** @typedef {import("./floorgeometry.js").Rect} Rect */
/** @typedef {import("./floorgeometry.js").Rack} Rack */
/** @typedef {import("./floorgeometry.js").PlantItem} PlantItem */
/** @typedef {import("./floorplan.js").Row} Row */
/**
 * A building or hall drawn under the racks.
 * @typedef {Rect & {level: "building" | "hall", label?: string, name?: string, id?: number}} Outline
 */
/**
 * What the page hears from the map: indices into racks and plant (-1: none).
 * @typedef {object} Handlers
 * @property {(rack: number, event: PointerEvent, plant: number) => void} [onHover]
 * @property {(rack: number, event: PointerEvent, plant: number) => void} [onClick]
 * @property {(map: FloorMap) => void} [onView]
 * @property {(rack: number, move: {dx: number, dy: number, fromX: number, fromY: number}) => void} [onRackDrop]
 *   edit mode: a rack dragged and dropped (world metres)
 */

export class FloorMap {
  /**
   * @param {HTMLCanvasElement} canvas
   * @param {Handlers} [handlers]
   */
  constructor(canvas, handlers = {}) {
    this.canvas = canvas;
    this.ctx = canvas.getContext("2d", { alpha: false });
    this.handlers = handlers;
    /** @type {Rack[]} */
    this.racks = [];
    /** @type {Outline[]} */
    this.outlines = [];
    /** Each rack's fill. @type {string[]} */
    this.colors = [];
    /** Rack indices by fill. @type {Map<string, number[]>} */
    this.groups = new Map();
    /** @type {Set<number>} */
    this.highlight = new Set();
    /** The hover grid (floorgeometry.buildGrid). @type {Map<number, number[]>} */
    this.grid = new Map();
    this.selected = -1;
    this.hovered = -1;
    /** Power devices, cooling units and plants. @type {PlantItem[]} */
    this.plant = [];
    this.hoveredPlant = -1;
    this.plantColors = new Map(); // plant items coloured by a metric: fill by key (the rest: their kind's)
    this.plantHighlight = new Set(); // keys of plant items outlined (an alarm)
    /**
     * The power and cooling paths of the selection (PlantGraph.paths).
     * @type {{segments: {x1: number, y1: number, x2: number, y2: number, color: string}[], items: number[],
     *   racks: number[]} | null}
     */
    this.paths = null;
    /**
     * Racks merged into cells when too small to draw one by one.
     * @type {{size: number, groups: Map<string, Rect[]>} | null}
     */
    this.cells = null;
    this.scale = 1;
    this.ox = 0; // world coordinate at the canvas' left edge
    this.oy = 0;
    this.dpr = window.devicePixelRatio || 1;
    this.width = 0;
    this.height = 0;
    this.frame = 0;
    /** @type {number | null} */
    this.firstPaint = null;
    this.lastFrameMs = 0;
    this.bounds = { x: 0, y: 0, w: 1, h: 1 };
    this.editable = false; // when true (and handlers.onRackDrop is set) dragging a rack moves it instead of the view
    /** Proposed racks drawn dashed over the map, world metres. @type {Rect[]} */
    this.ghosts = [];
    /**
     * Outline labels written by the last frame, canvas CSS px (for the tests).
     * @type {(Rect & {level: string, id?: number, text: string})[]}
     */
    this.labels = [];
    /** Rows of racks (floorplan.js), the aisles between them, each rack's front. @type {Row[]} */
    this.rows = [];
    /** @type {import("./floorplan.js").Aisle[]} */
    this.aisles = [];
    /** @type {import("./floorplan.js").Row["front"][]} */
    this.fronts = [];
    /** Row labels and tile coordinates written by the last frame, canvas CSS px (for the tests). @type {any[]} */
    this.planLabels = [];
    /** The scale bar of the last frame. @type {{metres: number, px: number, text: string} | null} */
    this.scaleBarInfo = null;
    this.resize();
    wireInput(this);
    this.draw(); // an opaque canvas starts black: paint the background before the racks arrive
  }

  // ------------------------------------------------------------------ scene

  /**
   * The racks (world metres, top-left corner), the outlines of halls and buildings, and the plant.
   * @param {Rack[]} racks
   * @param {Outline[]} outlines
   * @param {Rect} [bounds] what the fitted view shows (default: everything)
   * @param {PlantItem[]} [plant]
   */
  setScene(racks, outlines, bounds, plant = []) {
    this.racks = racks;
    this.outlines = outlines;
    this.plant = plant;
    this.bounds = bounds ?? boundsOf(racks, [...outlines, ...plant]);
    this.selected = -1;
    this.hovered = -1;
    this.hoveredPlant = -1;
    this.paths = null;
    this.cells = null;
    this.ghosts = [];
    this.highlight = new Set();
    this.rebuildGrid();
    this.fit();
  }

  /**
   * Racks of one colour are filled together.
   * @param {(rack: Rack, index: number) => string} colorOf a CSS colour
   */
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

  /** Outline these racks (impact mode's hits, the racks that differ). @param {Iterable<number>} indices */
  setHighlight(indices) {
    this.highlight = new Set(indices);
    this.cells = null;
    this.requestDraw();
  }

  /** Plant fills by key (empty: the kinds'), some outlined.
   * @param {Map<string, string>} colors @param {string[]} [outlined] */
  setPlantColors(colors, outlined = []) {
    this.plantColors = colors;
    this.plantHighlight = new Set(outlined);
    this.requestDraw();
  }

  /** Show (items) or hide ([]) the plant without moving the view. @param {PlantItem[]} plant */
  setPlant(plant) {
    this.plant = plant;
    this.hoveredPlant = -1;
    this.requestDraw();
  }

  /**
   * The paths to draw over the map ({segments, items, racks} from PlantGraph.paths), or null.
   * @param {FloorMap["paths"]} paths
   */
  setPaths(paths) {
    this.paths = paths;
    this.requestDraw();
  }

  /**
   * Proposed racks (world metres) drawn as dashed outlines over the map; [] clears them.
   * @param {Rect[] | null} ghosts
   */
  setGhosts(ghosts) {
    this.ghosts = ghosts ?? [];
    this.requestDraw();
  }

  /**
   * Put a rack's corner at (x, y) world metres (a drag's drop or its snap back) and keep hover look-ups right.
   * @param {number} index @param {number} x @param {number} y
   */
  moveRack(index, x, y) {
    const r = this.racks[index];
    if (!r) return;
    r.x = x;
    r.y = y;
    this.rebuildGrid();
    this.cells = null;
    this.requestDraw();
  }

  /**
   * Index of the plant item under a canvas point, or -1 (a few pixels of slop for small ones).
   * @param {number} sx
   * @param {number} sy
   */
  plantAt(sx, sy) {
    return plantNear(this.plant, this.ox + sx / this.scale, this.oy + sy / this.scale, 3 / this.scale);
  }

  /** True when racks are too small on screen to draw one by one: they are merged into cells. */
  get aggregated() {
    return this.scale * 0.6 < AGGREGATE_BELOW_PX;
  }

  /** @param {number} index the rack shown selected (-1: none) */
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

  /**
   * Fit the view to some racks (by index), never closer than a rack a few pixels wide needs.
   * @param {number[]} indices
   */
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

  /**
   * Zoom by `factor` about a canvas point (default: the centre).
   * @param {number} factor
   * @param {number} [sx]
   * @param {number} [sy]
   */
  zoomAt(factor, sx = this.width / 2, sy = this.height / 2) {
    const wx = this.ox + sx / this.scale;
    const wy = this.oy + sy / this.scale;
    this.scale = clamp(this.scale * factor, this._minScale(), MAX_SCALE);
    this.ox = wx - sx / this.scale;
    this.oy = wy - sy / this.scale;
    this._viewChanged();
  }

  /** @param {number} dxPx @param {number} dyPx */
  panBy(dxPx, dyPx) {
    this.ox -= dxPx / this.scale;
    this.oy -= dyPx / this.scale;
    this._viewChanged();
  }

  /** @param {number} index */
  centerOn(index) {
    const r = this.racks[index];
    if (!r) return;
    if (this.scale < 8) this.scale = 8;
    this.ox = r.x + r.w / 2 - this.width / 2 / this.scale;
    this.oy = r.y + r.h / 2 - this.height / 2 / this.scale;
    this._viewChanged();
  }

  /** Centre of a rack in viewport (client) CSS pixels. @param {number} index */
  clientPoint(index) {
    const r = this.racks[index];
    const box = this.canvas.getBoundingClientRect();
    return {
      x: box.left + (r.x + r.w / 2 - this.ox) * this.scale,
      y: box.top + (r.y + r.h / 2 - this.oy) * this.scale,
    };
  }

  /** Index of the rack under a canvas point, or -1. @param {number} sx @param {number} sy */
  rackAt(sx, sy) {
    // A rack smaller than a few pixels is still easy to point at: accept a small margin in screen space.
    const slop = Math.max(0, 3 / this.scale);
    return rackNear(this.grid, this.racks, this.ox + sx / this.scale, this.oy + sy / this.scale, slop);
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

    drawFloors(this, ctx, view, scale);
    drawFloorPlan(this, ctx, view, scale);
    drawRacks(this, ctx, view, scale);
    drawFronts(this, ctx, view, scale);
    drawPlant(this, ctx, view, scale);
    drawHighlight(this, ctx, scale);
    drawPaths(this, ctx, scale);
    drawGhosts(this, ctx, scale);
    drawSelection(this, ctx, scale);

    // Labels in screen space so text stays crisp at every zoom.
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.textBaseline = "top";
    drawOutlineLabels(this, ctx, view, scale);
    drawPlantLabels(this, ctx, view, scale);
    if (scale >= 28) drawRackLabels(this, ctx, view, scale);
    drawPlanLabels(this, ctx, view, scale);
    drawScaleAndNorth(this, ctx, scale);

    this.lastFrameMs = performance.now() - t0;
    if (this.firstPaint === null && this.racks.length) {
      this.firstPaint = performance.now();
      performance.mark("floormap-first-paint");
    }
  }

  // ------------------------------------------------------------------ internals

  /** Rebuild the hover grid, the rows and their aisles after racks moved. */
  rebuildGrid() {
    this.grid = buildGrid(this.racks);
    this.rows = rowsOf(this.racks);
    this.aisles = aislesOf(this.rows);
    this.fronts = rackFronts(this.racks, this.rows);
  }

  /** Size the canvas to its box; true when that changed (or cleared) it. */
  resize() {
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

  /** True when the view is the fitted one (a resize keeps it fitted). */
  isFitted() {
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

  /** A pointer event's point in canvas CSS pixels. @param {MouseEvent} e */
  localPoint(e) {
    const box = this.canvas.getBoundingClientRect();
    return { x: e.clientX - box.left, y: e.clientY - box.top };
  }

  /** @param {number} index @param {PointerEvent} e @param {number} [plantIndex] */
  hover(index, e, plantIndex = -1) {
    if (index !== this.hovered || plantIndex !== this.hoveredPlant) {
      this.hovered = index;
      this.hoveredPlant = plantIndex;
      this.requestDraw();
    }
    this.handlers.onHover?.(index, e, plantIndex);
  }
}
