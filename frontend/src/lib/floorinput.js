// @ts-check
// The floor map's pointer, wheel and keyboard handling, and its resize observer.
/** @typedef {import("./floormap.js").FloorMap} FloorMap */

/**
 * Pan with drag or arrows, zoom with the wheel or +/−, hover and click racks and plant; in edit mode drag a rack.
 * @param {FloorMap} map
 */
export function wireInput(map) {
  const canvas = map.canvas;
  new ResizeObserver(() => {
    const fitted = map.isFitted();
    if (map.resize()) {
      if (fitted) map.fit();
      else map.requestDraw();
    }
  }).observe(canvas.parentElement);

  canvas.addEventListener(
    "wheel",
    (e) => {
      e.preventDefault();
      const p = map.localPoint(e);
      map.zoomAt(Math.exp(-e.deltaY * (e.deltaMode === 1 ? 0.05 : 0.0015)), p.x, p.y);
    },
    { passive: false },
  );

  let drag = null;
  canvas.addEventListener("pointerdown", (e) => {
    if (e.button !== 0) return;
    canvas.setPointerCapture(e.pointerId);
    drag = { x: e.clientX, y: e.clientY, moved: 0, rack: -1 };
    if (map.editable && map.handlers.onRackDrop) {
      const p = map.localPoint(e);
      const i = map.rackAt(p.x, p.y);
      if (i >= 0)
        Object.assign(drag, { rack: i, x0: e.clientX, y0: e.clientY, rx: map.racks[i].x, ry: map.racks[i].y });
    }
  });
  canvas.addEventListener("pointermove", (e) => {
    const p = map.localPoint(e);
    if (drag && drag.rack >= 0) {
      // Edit mode: the rack follows the pointer (world metres); the page decides on drop.
      drag.moved += Math.abs(e.clientX - drag.x) + Math.abs(e.clientY - drag.y);
      drag.x = e.clientX;
      drag.y = e.clientY;
      if (drag.moved > 3) {
        canvas.classList.add("dragging");
        const r = map.racks[drag.rack];
        r.x = drag.rx + (e.clientX - drag.x0) / map.scale;
        r.y = drag.ry + (e.clientY - drag.y0) / map.scale;
        map.requestDraw();
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
        map.panBy(dx, dy);
        map.hover(-1, e);
        return;
      }
    }
    const rack = map.rackAt(p.x, p.y);
    map.hover(rack, e, rack < 0 ? map.plantAt(p.x, p.y) : -1);
  });
  canvas.addEventListener("pointerup", (e) => {
    const wasClick = drag && drag.moved <= 3;
    if (drag && drag.rack >= 0 && !wasClick) {
      const { rack, rx, ry } = drag;
      const r = map.racks[rack];
      drag = null;
      canvas.classList.remove("dragging");
      map.rebuildGrid();
      map.cells = null;
      map.handlers.onRackDrop(rack, { dx: r.x - rx, dy: r.y - ry, fromX: rx, fromY: ry });
      return;
    }
    drag = null;
    canvas.classList.remove("dragging");
    if (wasClick) {
      const p = map.localPoint(e);
      const i = map.rackAt(p.x, p.y);
      map.handlers.onClick?.(i, e, i < 0 ? map.plantAt(p.x, p.y) : -1);
    }
  });
  canvas.addEventListener("pointerleave", (e) => {
    if (!drag) map.hover(-1, e);
  });
  canvas.addEventListener("keydown", (e) => {
    const step = e.shiftKey ? 200 : 60;
    const actions = {
      ArrowLeft: () => map.panBy(step, 0),
      ArrowRight: () => map.panBy(-step, 0),
      ArrowUp: () => map.panBy(0, step),
      ArrowDown: () => map.panBy(0, -step),
      "+": () => map.zoomAt(1.25),
      "=": () => map.zoomAt(1.25),
      "-": () => map.zoomAt(0.8),
      _: () => map.zoomAt(0.8),
      0: () => map.fit(),
    };
    const action = actions[e.key];
    if (action) {
      e.preventDefault();
      action();
    }
  });
}
