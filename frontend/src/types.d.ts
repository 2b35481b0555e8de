// What the pages put on `window` for the browser tests (tests/e2e read them; nothing in the dashboard does).
interface Window {
  /** The floor map page's racks, view, impact counts and frame times (pages/map/probe.js). */
  floorMap?: Record<string, unknown>;
  /** The design-compare page's two maps (pages/compare/index.js). */
  compareMaps?: Record<string, unknown>;
}
