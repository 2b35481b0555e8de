// @ts-check
// window.floorMap: what the browser tests and tools read from the map (rack positions and colours, the view,
// the impact counts, frame times) and the few moves they make.
import { IMPACT, NO_DATA } from "../../lib/colors.js";
import { plantFill } from "../../lib/floordraw.js";
import { openRack, showPaths } from "./racks.js";

export function exposeForTests(page) {
  window.floorMap = {
    /** How many objects GET /measured/ answered (null until it has). */
    get measured() {
      return page.measured ? page.measured.count : null;
    },
    get racks() {
      const racks = page.scene?.racks ?? [];
      return racks.map((r, i) => {
        const p = page.map.clientPoint(i);
        return {
          id: r.id,
          name: r.name,
          color: page.map.colors[i],
          x: p.x,
          y: p.y,
          w: r.w * page.map.scale,
          h: r.h * page.map.scale,
          highlighted: page.map.highlight.has(i),
        };
      });
    },
    get outlines() {
      const box = page.map.canvas.getBoundingClientRect();
      return (page.scene?.outlines ?? []).map((o) => ({
        level: o.level,
        id: o.id,
        label: o.label,
        headroomMw: o.headroomMw,
        // on screen, viewport CSS pixels
        left: box.left + (o.x - page.map.ox) * page.map.scale,
        top: box.top + (o.y - page.map.oy) * page.map.scale,
        width: o.w * page.map.scale,
        height: o.h * page.map.scale,
      }));
    },
    /**
     * The floor plan of the scene and of the last frame: rows, aisles, row labels and tile coordinates written,
     * the scale bar (metres and px) and the canvas size.
     */
    get plan() {
      const m = page.map;
      return {
        rows: m.rows.map((r) => ({ label: r.label, hall: r.hall, front: r.front, racks: r.racks })),
        aisles: m.aisles.map((a) => ({ kind: a.kind, contained: a.contained, hall: a.hall, w: a.w, h: a.h })),
        labels: m.planLabels.map((l) => ({ text: l.text, kind: l.kind })),
        scaleBar: m.scaleBarInfo,
        scale: m.scale,
        canvas: { width: m.width, height: m.height },
      };
    },
    /** The building and hall names the last frame wrote, boxes in viewport CSS pixels. */
    get labels() {
      const box = page.map.canvas.getBoundingClientRect();
      return page.map.labels.map((l) => ({ ...l, x: box.left + l.x, y: box.top + l.y }));
    },
    /** The plant drawn (power devices, cooling units, plants) with their centres in viewport pixels. */
    get plant() {
      const box = page.map.canvas.getBoundingClientRect();
      return page.map.plant.map((p) => ({
        key: p.key,
        type: p.type,
        id: p.id,
        kind: p.kind,
        name: p.name,
        position: p.position,
        x: box.left + (p.x + p.w / 2 - page.map.ox) * page.map.scale,
        y: box.top + (p.y + p.h / 2 - page.map.oy) * page.map.scale,
        w: p.w * page.map.scale,
        h: p.h * page.map.scale,
        color: plantFill(page.map, p), // its fill: its kind's, or its metric's (the deviation colouring)
        highlighted: page.map.plantHighlight.has(p.key),
      }));
    },
    /** The paths drawn for the selection: node, number of link segments, racks and plant items on them. */
    get paths() {
      const paths = page.map.paths;
      if (!paths) return null;
      return {
        node: page.selection,
        segments: paths.segments.length,
        racks: [...paths.racks].map((i) => page.scene.racks[i].id),
        items: [...paths.items].map((i) => page.scene.plant[i].key),
        served: paths.served,
      };
    },
    /** The on-screen size of one rack (px) and whether racks are merged into cells at this zoom. */
    get detail() {
      return { rackPx: 0.6 * page.map.scale, aggregated: page.map.aggregated, cells: page.map.cells?.groups.size ?? 0 };
    },
    get canvasBox() {
      const b = page.map.canvas.getBoundingClientRect();
      return { left: b.left, top: b.top, right: b.right, bottom: b.bottom };
    },
    showPaths: (node) => showPaths(page, node, node),
    get metric() {
      return page.metric;
    },
    get hallId() {
      return page.hallId;
    },
    get buildingId() {
      return page.buildingId;
    },
    get ready() {
      return page.ready;
    },
    get impact() {
      return page.impact?.counts ?? null;
    },
    get scale() {
      return page.map.scale;
    },
    noDataColor: NO_DATA,
    get impactColors() {
      return Object.fromEntries(Object.entries(IMPACT).map(([k, v]) => [k, v.color]));
    },
    get firstPaintMs() {
      return page.map.firstPaint;
    },
    get lastFrameMs() {
      return page.map.lastFrameMs;
    },
    panBy: (dx, dy) => page.map.panBy(dx, dy),
    zoomAt: (factor) => page.map.zoomAt(factor),
    draw: () => page.map.draw(),
    fit: () => page.map.fit(),
    /** Fit, below the zoom where rack names are drawn, and paint now (for pixel checks). */
    fitForCheck: () => {
      page.map.fit();
      if (page.map.scale >= 24) page.map.zoomAt(20 / page.map.scale);
      page.map.draw();
    },
    fitToIds: (ids) => page.map.fitTo(ids.filter((id) => page.byId.has(id)).map((id) => page.byId.get(id))),
    rackIndex: (id) => page.scene?.racks.findIndex((r) => r.id === id) ?? -1,
    openRack: (id) => {
      const i = page.scene?.racks.findIndex((r) => r.id === id) ?? -1;
      if (i >= 0) openRack(page, i);
    },
  };
}
