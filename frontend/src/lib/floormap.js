// The floor map renderer: one Canvas 2D, racks in world metres, one path + fill per colour, a uniform grid for
// hover look-ups. Draws thousands of racks per frame; pan with drag or arrows, zoom with the wheel or +/−.

const CELL_M = 4; // hover grid cell, m
const MIN_SCALE = 0.05; // px per m
const MAX_SCALE = 400;

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
    this._resize();
    this._wire();
    this.draw(); // an opaque canvas starts black: paint the background before the racks arrive
  }

  // ------------------------------------------------------------------ scene

  /** racks: [{x, y, w, h, ...}] in world metres (top-left corner); outlines: halls and buildings. */
  setScene(racks, outlines, bounds) {
    this.racks = racks;
    this.outlines = outlines;
    this.bounds = bounds ?? this._boundsOf(racks, outlines);
    this.selected = -1;
    this.hovered = -1;
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
    this.requestDraw();
  }

  setHighlight(indices) {
    this.highlight = new Set(indices);
    this.requestDraw();
  }

  select(index) {
    this.selected = index;
    this.requestDraw();
  }

  // ------------------------------------------------------------------ view

  fit() {
    const b = this.bounds;
    const pad = 24;
    const sx = (this.width - 2 * pad) / Math.max(b.w, 1);
    const sy = (this.height - 2 * pad) / Math.max(b.h, 1);
    this.scale = clamp(Math.min(sx, sy), MIN_SCALE, MAX_SCALE);
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
    this.scale = clamp(Math.min(this.width / w, this.height / h, 20), MIN_SCALE, MAX_SCALE);
    this.ox = x0 - pad - (this.width / this.scale - w) / 2;
    this.oy = y0 - pad - (this.height / this.scale - h) / 2;
    this._viewChanged();
  }

  zoomAt(factor, sx = this.width / 2, sy = this.height / 2) {
    const wx = this.ox + sx / this.scale;
    const wy = this.oy + sy / this.scale;
    this.scale = clamp(this.scale * factor, MIN_SCALE, MAX_SCALE);
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

    // Racks: one path per colour. Tiny racks get a minimum on-screen size so they never vanish.
    const minW = 1.2 / scale;
    const racks = this.racks;
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
    for (const o of this.outlines) {
      if (!o.label || !intersects(o, view)) continue;
      const sx = (o.x - this.ox) * scale;
      const sy = (o.y - this.oy) * scale;
      const wpx = o.w * scale;
      if (wpx < 40) continue;
      ctx.font = o.level === "building" ? "600 13px system-ui, sans-serif" : "12px system-ui, sans-serif";
      ctx.fillStyle = o.level === "building" ? "#253041" : "#4a5568";
      // Labels sit just above their outline (buildings leave room around their halls).
      const y = o.level === "building" ? sy - 18 : sy - 15;
      ctx.fillText(o.label, Math.max(sx + 4, 4), Math.max(y, 2), Math.max(wpx - 8, 20));
    }
    if (scale >= 28) {
      ctx.font = "10px system-ui, sans-serif";
      ctx.fillStyle = "#111827";
      ctx.textBaseline = "middle";
      ctx.textAlign = "center";
      let drawn = 0;
      for (const r of racks) {
        if (r.x > view.x1 || r.y > view.y1 || r.x + r.w < view.x0 || r.y + r.h < view.y0) continue;
        const sx = (r.x + r.w / 2 - this.ox) * scale;
        const sy = (r.y + r.h / 2 - this.oy) * scale;
        ctx.save();
        ctx.translate(sx, sy);
        if (r.h > r.w) ctx.rotate(-Math.PI / 2);
        ctx.fillStyle = "rgba(255,255,255,0.85)";
        const label = shortName(r.name);
        const tw = ctx.measureText(label).width;
        ctx.fillRect(-tw / 2 - 2, -6, tw + 4, 12);
        ctx.fillStyle = "#111827";
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
    this.canvas.width = Math.round(w * this.dpr);
    this.canvas.height = Math.round(h * this.dpr);
    this.canvas.style.width = `${w}px`;
    this.canvas.style.height = `${h}px`;
    return changed;
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
      drag = { x: e.clientX, y: e.clientY, moved: 0 };
    });
    canvas.addEventListener("pointermove", (e) => {
      const p = this._local(e);
      if (drag) {
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
      this._hover(this.rackAt(p.x, p.y), e);
    });
    canvas.addEventListener("pointerup", (e) => {
      const wasClick = drag && drag.moved <= 3;
      drag = null;
      canvas.classList.remove("dragging");
      if (wasClick) {
        const p = this._local(e);
        const i = this.rackAt(p.x, p.y);
        this.handlers.onClick?.(i, e);
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

  _fitScale() {
    const b = this.bounds;
    return clamp(
      Math.min((this.width - 48) / Math.max(b.w, 1), (this.height - 48) / Math.max(b.h, 1)),
      MIN_SCALE,
      MAX_SCALE,
    );
  }

  _local(e) {
    const box = this.canvas.getBoundingClientRect();
    return { x: e.clientX - box.left, y: e.clientY - box.top };
  }

  _hover(index, e) {
    if (index !== this.hovered) {
      this.hovered = index;
      this.requestDraw();
    }
    this.handlers.onHover?.(index, e);
  }
}

function key(gx, gy) {
  return gx * 100003 + gy;
}

function clamp(v, lo, hi) {
  return Math.min(hi, Math.max(lo, v));
}

function intersects(o, view) {
  return !(o.x > view.x1 || o.y > view.y1 || o.x + o.w < view.x0 || o.y + o.h < view.y0);
}

function shortName(name) {
  const parts = String(name).split(/[-_ ]/);
  return parts.length > 2 ? parts.slice(-2).join("-") : String(name);
}
