// window.floorMap: what the browser tests and tools read from the map (rack positions and colours, the view,
// the impact counts, frame times) and the few moves they make.
import { IMPACT, NO_DATA } from "../../lib/colors.js";
import { openRack } from "./racks.js";

export function exposeForTests(page) {
  window.floorMap = {
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
      return (page.scene?.outlines ?? []).map((o) => ({
        level: o.level,
        id: o.id,
        label: o.label,
        headroomMw: o.headroomMw,
      }));
    },
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
