// @ts-check
// Turns the floor-map API's answer (one hall, or the whole campus: buildings → halls → racks) into what the
// renderer draws: racks with world positions in metres and outlines of halls and buildings.

const GAP_M = 12;

export function hallScene(data) {
  const hall = data.hall ?? data;
  const racks = (data.racks ?? hall.racks ?? []).map((r) => placeRack(r, 0, 0, hall));
  const plant = (data.plant ?? []).map((p) => placeItem(p, 0, 0));
  const outlines = [
    {
      x: 0,
      y: 0,
      w: num(hall.width_m, 10),
      h: num(hall.length_m ?? hall.depth_m, 10),
      level: "hall",
      label: withHeadroom(hall.name, hall.headroom_mw),
      name: hall.name,
      id: hall.id,
      headroomMw: hall.headroom_mw ?? null,
    },
  ];
  return {
    racks,
    outlines,
    plant,
    links: data.power_links ?? [],
    title: hall.name,
    headroomMw: hall.headroom_mw ?? null,
    itMw: hall.it_mw ?? null,
    besideMw: hall.beside_racks_mw ?? null, // of itMw: the network and allowance carried beside the racks
    scope: "hall",
  };
}

/** A plant item (power device, cooling unit, cooling plant) at its frame's origin plus its position. */
function placeItem(p, ox, oy) {
  return {
    ...p,
    key: `${p.type}:${p.id}`,
    x: ox + num(p.x_m, 0),
    y: oy + num(p.y_m, 0),
    w: num(p.width_m, 1),
    h: num(p.depth_m, 1),
  };
}

/** "H1 · +0.10 MW IT after failover": IT that can be added with the design redundancy intact. */
function withHeadroom(name, mw) {
  return mw == null ? name : `${name} · ${mw >= 0 ? "+" : ""}${mw.toFixed(2)} MW IT after failover`;
}

/** Whole campus (or one building of it when buildingId is given). */
export function campusScene(data, buildingId = null) {
  let buildings = withRacks(data);
  if (buildingId) buildings = buildings.filter((b) => b.id === buildingId);
  const plantOf = new Map(); // building id -> its plant items
  const campusPlant = [];
  for (const p of data.plant ?? []) {
    if (p.frame === "campus" || p.building_id == null) campusPlant.push(p);
    else {
      let list = plantOf.get(p.building_id);
      if (!list) plantOf.set(p.building_id, (list = []));
      list.push(p);
    }
  }
  const boxes = buildings.map((b) => {
    const halls = b.halls ?? [];
    const hallBoxes = layoutHalls(halls);
    const hallAt = new Map(hallBoxes.map((hb) => [hb.hall.id, hb]));
    // The building's plant in the building's frame (hall-frame items move with their hall).
    const plant = (plantOf.get(b.id) ?? []).map((p) => {
      const hb = p.frame === "hall" ? hallAt.get(p.hall_id) : null;
      return placeItem(p, hb ? hb.x : 0, hb ? hb.y : 0);
    });
    const w = Math.max(num(b.width_m, 0), ...hallBoxes.map((h) => h.x + h.w));
    const h = Math.max(num(b.length_m ?? b.depth_m, 0), ...hallBoxes.map((hb) => hb.y + hb.h));
    // The yard below the building (and anything laid out past its walls) is part of its footprint on the plan.
    const reachW = Math.max(w, ...plant.map((p) => p.x + p.w));
    const reachH = Math.max(h, ...plant.map((p) => p.y + p.h));
    return {
      b,
      hallBoxes,
      plant,
      x: num(b.x_m, 0),
      y: num(b.y_m, 0),
      w: Math.max(w, 1),
      h: Math.max(h, 1),
      reachW: Math.max(reachW, 1),
      reachH: Math.max(reachH, 1),
    };
  });
  // Buildings without a campus position (or overlapping ones, their yards included) are set side by side.
  const reach = boxes.map((bx) => ({ x: bx.x, y: bx.y, w: bx.reachW, h: bx.reachH }));
  if (overlaps(reach)) {
    let x = 0;
    for (const box of boxes) {
      box.x = x;
      box.y = 0;
      x += box.reachW + GAP_M * 3;
    }
  }
  const racks = [];
  const outlines = [];
  const plant = [];
  for (const box of boxes) for (const p of box.plant) plant.push({ ...p, x: p.x + box.x, y: p.y + box.y });
  if (!buildingId && campusPlant.length) {
    const y0 = Math.max(0, ...boxes.map((bx) => bx.y + bx.reachH)) + GAP_M * 2;
    for (const p of campusPlant) plant.push(placeItem(p, 0, y0));
  }
  for (const box of boxes) {
    const label = withHeadroom(box.b.name, box.b.headroom_mw);
    const building = {
      x: box.x,
      y: box.y,
      w: box.w,
      h: box.h,
      level: "building",
      label,
      name: box.b.name,
      id: box.b.id,
    };
    outlines.push({ ...building, headroomMw: box.b.headroom_mw ?? null });
    for (const hb of box.hallBoxes) {
      const hx = box.x + hb.x;
      const hy = box.y + hb.y;
      const hallLabel = withHeadroom(hb.hall.name, hb.hall.headroom_mw);
      const hall = {
        x: hx,
        y: hy,
        w: hb.w,
        h: hb.h,
        level: "hall",
        label: hallLabel,
        name: hb.hall.name,
        id: hb.hall.id,
      };
      outlines.push({ ...hall, headroomMw: hb.hall.headroom_mw ?? null });
      // Compact rows become placed racks in one step (one object per rack: at 1M GPUs a second copy of 31k racks
      // cost more than the rest of the scene); racks nested under their hall are copied and placed.
      const rows = hb.hall.rackRows;
      if (rows) for (const row of rows) racks.push(rackFromRow(data.rack_columns, row, hx, hy, hb.hall, box.b));
      else for (const r of hb.hall.racks ?? []) racks.push(placeRack(r, hx, hy, hb.hall, box.b));
    }
  }
  const title = buildingId && buildings[0] ? buildings[0].name : (data.name ?? data.campus?.name ?? "Whole campus");
  // The headroom of what is shown: one building's, or the campus' (added load spread over every hall).
  const headroomMw = buildingId ? (buildings[0]?.headroom_mw ?? null) : (data.campus?.headroom_mw ?? null);
  // The IT load of what is shown: the campus's (the overview's figure) or the building's racks (its card's).
  const itMw = buildingId ? (buildings[0]?.it_mw ?? null) : (data.campus?.it_mw ?? null);
  return {
    racks,
    outlines,
    plant,
    links: data.power_links ?? [],
    title,
    headroomMw,
    itMw,
    scope: buildingId ? "building" : "campus",
  };
}

/**
 * The campus answer carries racks as compact rows (`rack_columns`); file each row under its hall (`rackRows`), to be
 * turned into a placed rack by the scene. Kept with the answer: a building's view reuses it.
 */
function withRacks(data) {
  const buildings = data.buildings ?? [];
  if (!Array.isArray(data.rack_columns)) return buildings;
  if (!data.__byHall) {
    const at = data.rack_columns.indexOf("hall_id");
    const byHall = new Map();
    for (const row of data.racks ?? []) {
      let list = byHall.get(row[at]);
      if (!list) byHall.set(row[at], (list = []));
      list.push(row);
    }
    data.__byHall = buildings.map((b) => ({
      ...b,
      halls: (b.halls ?? []).map((h) => (byHall.has(h.id) ? { ...h, rackRows: byHall.get(h.id) } : h)),
    }));
  }
  return data.__byHall;
}

/** A compact row as the rack placeRack makes of the same rack: its columns, then its hall, building and place. */
function rackFromRow(cols, row, ox, oy, hall, building) {
  const r = {};
  for (let i = 0; i < cols.length; i += 1) r[cols[i]] = row[i];
  r.hall_id ??= hall?.id;
  r.hall_name = hall?.name;
  r.building_name = building?.name;
  r.x = ox + num(r.x_m, 0);
  r.y = oy + num(r.y_m, 0);
  r.w = num(r.width_m, 0.6);
  r.h = num(r.depth_m, 1.2);
  return r;
}

function layoutHalls(halls) {
  const boxes = halls.map((hall) => ({
    hall,
    x: num(hall.x_m, 0),
    y: num(hall.y_m, 0),
    w: num(hall.width_m, 10),
    h: num(hall.length_m ?? hall.depth_m, 10),
  }));
  if (overlaps(boxes)) {
    let y = 0;
    for (const box of boxes) {
      box.x = 0;
      box.y = y;
      y += box.h + GAP_M;
    }
  }
  return boxes;
}

function overlaps(boxes) {
  for (let i = 0; i < boxes.length; i += 1) {
    for (let j = i + 1; j < boxes.length; j += 1) {
      const a = boxes[i];
      const b = boxes[j];
      if (a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h) return true;
    }
  }
  return false;
}

function placeRack(r, ox, oy, hall, building) {
  return {
    ...r,
    hall_id: r.hall_id ?? hall?.id,
    hall_name: hall?.name,
    building_name: building?.name,
    x: ox + num(r.x_m, 0),
    y: oy + num(r.y_m, 0),
    w: num(r.width_m, 0.6),
    h: num(r.depth_m, 1.2),
  };
}

function num(v, fallback) {
  const n = Number(v);
  return v === null || v === undefined || Number.isNaN(n) ? fallback : n;
}
