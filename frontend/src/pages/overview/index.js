// Campus overview: headline figures from /api/campuses/{id}/summary/ and one card per building.
import { api } from "../../lib/api.js";
import { $, boot, clear, errorBox, wireCampusPicker } from "../../lib/dom.js";
import { branchesCard } from "./branches.js";
import { buildingCards } from "./buildings.js";
import { headline } from "./headline.js";
import { weatherCard } from "./weather.js";

const page = {
  ...boot(), // campusId … from the server
  summary: null, // the campus summary, once loaded
  storage: [], // the campus's battery energy storage systems
};

function render() {
  const root = $("overview");
  const summary = page.summary;
  clear(root).append(
    headline(summary),
    branchesCard(page),
    weatherCard(page, reload),
    ...buildingCards(page, summary.buildings ?? [], page.storage),
  );
  root.setAttribute("aria-busy", "false");
  root.dataset.ready = "true";
}

/** After the climate changes: the summary (PUE, facility power) follows the plant in the new weather. */
async function reload() {
  page.summary = await api.get(`/api/campuses/${page.campusId}/summary/`);
  render();
}

async function main() {
  const root = $("overview");
  try {
    const [summary, storage] = await Promise.all([
      api.get(`/api/campuses/${page.campusId}/summary/`),
      api.get(`/api/energy-storage/?campus=${page.campusId}&limit=1000`),
    ]);
    page.summary = summary;
    page.storage = Array.isArray(storage) ? storage : (storage.results ?? []);
    render();
  } catch (error) {
    clear(root).append(errorBox(error, "overview-error"));
    root.setAttribute("aria-busy", "false");
    root.dataset.ready = "error";
  }
}

wireCampusPicker();
main();
