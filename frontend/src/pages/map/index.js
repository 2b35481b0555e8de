// @ts-check
// Floor map page: campus → building → hall navigation, racks coloured by a metric, hover tooltip, rack panel,
// impact mode (what if this device fails?) and the replay of a run's per-rack series. One feature per module; they
// share the page's state object below and reach each other through it.
import { asOfControl, asOfFromUrl } from "../../lib/asof.js";
import { $, boot, clear, el, errorBox, wireCampusPicker } from "../../lib/dom.js";
import { enableExports } from "../../lib/export.js";
import { FloorMap } from "../../lib/floormap.js";
import { METRICS } from "../../lib/colors.js";
import { loadDevices, loadWorstFailures, wireImpact } from "./impact.js";
import { loadMeasured } from "./legend.js";
import { buildPicker, go, load, wireNavigation } from "./navigation.js";
import { exposeForTests } from "./probe.js";
import { enterHallAt, openRack, showPaths, showTooltip, wireRackControls } from "./racks.js";
import { createReplay } from "./run-replay.js";
import { wireEdit } from "./edit.js";
import { wirePlacement } from "./placement.js";

const session = boot(); // campusId, campusName, navigation, hallId, buildingId, rackId, runId … from the server
const metricParam = new URLSearchParams(window.location.search).get("metric");
const page = {
  ...session,
  hallId: session.hallId ?? null,
  buildingId: session.hallId ? null : (session.buildingId ?? null),
  metric: METRICS[metricParam] ? metricParam : "load_kw",
  asOf: asOfFromUrl(), // the day the map is for (null: today)
  scene: null, // the racks and outlines shown
  byId: new Map(), // rack id -> index in scene.racks
  impact: null, // {kindOf: Map(rack id -> impact key), data, counts}
  replayValues: null, // Map(rack id -> °C) at the replay slider's time
  measured: null, // GET /measured/: each measured object's peak against its model (docs/live.md)
  measuredByRack: null, // Map(rack id -> its /measured/ row)
  ready: false,
  campusCache: null, // the whole campus's floor map, fetched once
  deviceLists: null, // {devices, units, plants, feeds} for the impact picker
  graph: null, // the plant's links (PlantGraph) of the scene shown
  selection: null, // the rack or device whose paths are drawn ("rack:12", "power:7"…)
  showPlant: true,
  /** What the edit panel shows when a rack or a device is picked (set by edit.js). */
  /** @type {((thing: {type: string, id: number, name: string}) => void) | null} */
  onSelect: null,
  map: null,
  go: (target) => go(page, target),
};

page.map = new FloorMap($("floor-canvas"), {
  onHover: (index, event, plantIndex) => showTooltip(page, index, event, plantIndex),
  onClick: (index, event, plantIndex) => {
    if (index >= 0) openRack(page, index);
    else if (plantIndex >= 0) {
      const p = page.map.plant[plantIndex];
      showPaths(page, p.key, p.name);
      page.onSelect?.({ type: p.type, id: p.id, name: p.name });
    } else if (!page.hallId) enterHallAt(page, event);
  },
});

wireCampusPicker();
enableExports();
exposeForTests(page);
wireNavigation(page);
wireRackControls(page);
wireImpact(page);
wireEdit(page);
const replay = createReplay(page);

$("asof-slot").append(
  asOfControl({
    campusId: page.campusId,
    onChange: (asOf) => {
      page.asOf = asOf;
      page.campusCache = null; // the campus map of another day
      page.impact = null;
      load(page).then(() => loadWorstFailures(page));
    },
  }).element,
);
buildPicker(page);
const loaded = load(page);
loadDevices(page).catch((error) => {
  // Whatever lists did load stay usable; say what failed.
  if (!page.deviceLists)
    clear($("impact-device", HTMLSelectElement)).append(el("option", { value: "" }, "Devices unavailable"));
  $("impact-result").append(errorBox(error, "impact-error"));
});
// After the map: a replay named in the URL zooms to its racks, which needs them placed.
loaded.then(() => loadWorstFailures(page));
loaded.then(() => loadMeasured(page));
loaded.then(() => wirePlacement(page));
loaded
  .then(() => replay.init(page.runId))
  .catch((error) => {
    $("replay-note").textContent = `Runs unavailable: ${error.message}`;
  });
