// @ts-check
// Scenarios and runs: new scenario from a kind's template (schema-driven form), launch, live progress, results
// (time series, distributions over replicas, replay link), compare runs, scheduled runs. One feature per module;
// they share the page's state object below and reach each other through it.
import { $, boot, wireCampusPicker } from "../../lib/dom.js";
import { enableExports } from "../../lib/export.js";
import { compareRuns } from "./compare.js";
import { loadDrEvents } from "./dr-events.js";
import { loadKinds } from "./new-scenario.js";
import { openRun } from "./run-detail.js";
import { loadRuns } from "./run-list.js";
import { loadSchedules } from "./schedules.js";

const page = {
  ...boot(), // campusId, canWrite, runId … from the server
  kinds: [], // the scenario kinds with their parameter schema and defaults
  selectedKind: null,
  form: null, // the SchemaForm of the chosen kind's parameters
  runs: [], // the campus's latest runs, newest first
  compare: new Set(), // ids of the runs ticked for comparison
  openRunId: null, // the run shown in detail
  pollTimer: null,
  openRun: (id) => openRun(page, id),
};

wireCampusPicker();
enableExports();
$("compare-button", HTMLButtonElement).addEventListener("click", () => compareRuns(page, [...page.compare]));
loadKinds(page);
loadRuns(page).then(() => {
  if (page.runId) page.openRun(page.runId);
});
loadSchedules(page);
loadDrEvents(page);
