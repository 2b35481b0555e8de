// What the pages put on `window` and on elements for the browser tests (tests/e2e read them) and for themselves.
interface Window {
  /** The floor map page's racks, view, impact counts and frame times (pages/map/probe.js). */
  floorMap?: Record<string, unknown>;
  /** The design-compare page's two maps (pages/compare/index.js). */
  compareMaps?: Record<string, unknown>;
}

interface Element {
  /** The uPlot chart drawn in a chart's box (lib/charts.js): its resize observer and the browser tests read it. */
  __plot?: import("uplot").default;
}
