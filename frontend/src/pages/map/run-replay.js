// @ts-check
// Replay a run on the map: its per-rack temperatures at the slider's time colour the racks.
import { $ } from "../../lib/dom.js";
import { Replay } from "../../lib/replay.js";
import { recolor } from "./legend.js";
import { zoomToRacks } from "./racks.js";

export function createReplay(page) {
  return new Replay(page, {
    select: $("replay-run"),
    slider: $("replay-slider"),
    time: $("replay-time"),
    play: $("replay-play"),
    controls: $("replay-controls"),
    note: $("replay-note"),
    onValues(values, first) {
      page.replayValues = values;
      // The racks a run follows are often a few among thousands: show them when the replay starts.
      if (values && first) zoomToRacks(page, [...values.keys()]);
      if (values && page.metric !== "temperature" && !page.impact) {
        page.metric = "temperature";
        $("metric-picker", HTMLSelectElement).value = "temperature";
      }
      if (!page.impact) recolor(page);
    },
  });
}
