// @ts-check
// Campus overview: headline figures from /api/campuses/{id}/summary/ and one card per building.
import { api } from "../../lib/api.js";
import { asOfControl, asOfFromUrl, withAsOf } from "../../lib/asof.js";
import { $, boot, clear, errorBox, wireCampusPicker } from "../../lib/dom.js";
import { enableExports } from "../../lib/export.js";
import { branchesCard } from "./branches.js";
import { buildingCards } from "./buildings.js";
import { capexCard } from "./capex.js";
import { generateCard } from "./generate.js";
import { headline } from "./headline.js";
import { basisFromUrl, liveCard } from "./live.js";
import { weatherCard } from "./weather.js";

const page = {
  ...boot(), // campusId … from the server
  summary: null, // the campus summary, once loaded
  storage: [], // the campus's battery energy storage systems
  plants: [], // the campus's cooling plants (the design card's heat rejection)
  description: "", // the campus description
  levels: null, // GET /redundancy/'s levels: declared vs achieved per domain (null: not loaded)
  asOf: asOfFromUrl(), // the day the figures are for (null: today)
  basis: basisFromUrl(), // the load basis of the figures: "design" or "measured" (docs/live.md)
  measured: null, // GET /measured/ (null: not loaded)
  sides: null, // the summary on each basis, by basis, when the campus holds measurements
};

const summaryUrl = (basis = page.basis) =>
  `/api/campuses/${page.campusId}/summary/${withAsOf(basis === "measured" ? { basis } : {}, page.asOf)}`;

/** The summary on the other basis beside the page's, for the live card (only with measurements held). */
async function loadSides() {
  if (!page.measured?.count) {
    page.sides = null;
    return;
  }
  const other = page.basis === "measured" ? "design" : "measured";
  page.sides = { [page.basis]: page.summary, [other]: await api.get(summaryUrl(other)).catch(() => null) };
}

function render() {
  const root = $("overview");
  const summary = page.summary;
  clear(root).append(
    liveCard(page, (basis) => {
      page.basis = basis;
      reload();
    }),
    headline(summary, page.plants, page.description, page.levels),
    capexCard(page, summary.capex),
    branchesCard(page),
    generateCard(page),
    weatherCard(page, reload),
    ...buildingCards(page, summary.buildings ?? [], page.storage),
  );
  root.setAttribute("aria-busy", "false");
  root.dataset.ready = "true";
}

/** After the climate or the as-of day changes: the summary follows. */
async function reload() {
  const root = $("overview");
  root.setAttribute("aria-busy", "true");
  root.dataset.ready = "loading";
  try {
    page.summary = await api.get(summaryUrl());
    await loadSides();
    render();
  } catch (error) {
    clear(root).append(errorBox(error, "overview-error"));
    root.setAttribute("aria-busy", "false");
    root.dataset.ready = "error";
  }
}

async function main() {
  const root = $("overview");
  try {
    const [summary, storage, plants, campus, redundancy, measured] = await Promise.all([
      api.get(summaryUrl()),
      api.get(`/api/energy-storage/?campus=${page.campusId}&limit=1000`),
      api.get(`/api/cooling-plants/?campus=${page.campusId}&limit=1000`),
      api.get(`/api/campuses/${page.campusId}/`),
      // the levels are a card's detail: the overview stands without them
      api.get(`/api/campuses/${page.campusId}/redundancy/`).catch(() => null),
      // measured against modelled is a card of its own: the overview stands without it
      api.get(`/api/campuses/${page.campusId}/measured/`).catch(() => null),
    ]);
    page.measured = measured;
    page.levels = redundancy?.levels ?? null;
    page.summary = summary;
    page.storage = Array.isArray(storage) ? storage : (storage.results ?? []);
    page.plants = Array.isArray(plants) ? plants : (plants.results ?? []);
    page.description = campus.description ?? "";
    await loadSides();
    render();
  } catch (error) {
    clear(root).append(errorBox(error, "overview-error"));
    root.setAttribute("aria-busy", "false");
    root.dataset.ready = "error";
  }
}

wireCampusPicker();
enableExports();
$("asof-slot").append(
  asOfControl({
    campusId: page.campusId,
    chart: true,
    onChange: (asOf) => {
      page.asOf = asOf;
      reload();
    },
  }).element,
);
main();
