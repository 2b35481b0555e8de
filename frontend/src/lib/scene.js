// Turns the floor-map API's answer (one hall, or the whole campus: buildings → halls → racks) into what the
// renderer draws: racks with world positions in metres and outlines of halls and buildings.

const GAP_M = 12;

export function hallScene(data) {
  const hall = data.hall ?? data;
  const racks = (data.racks ?? hall.racks ?? []).map((r) => placeRack(r, 0, 0, hall));
  const outlines = [
    {
      x: 0,
      y: 0,
      w: num(hall.width_m, 10),
      h: num(hall.length_m ?? hall.depth_m, 10),
      level: "hall",
      label: withHeadroom(hall.name, hall.headroom_mw),
      id: hall.id,
      headroomMw: hall.headroom_mw ?? null,
    },
  ];
  return { racks, outlines, title: hall.name, headroomMw: hall.headroom_mw ?? null };
}

/** "H1 · +0.10 MW IT after failover": IT that can be added with the design redundancy intact. */
function withHeadroom(name, mw) {
  return mw == null ? name : `${name} · ${mw >= 0 ? "+" : ""}${mw.toFixed(2)} MW IT after failover`;
}

/** Whole campus (or one building of it when buildingId is given). */
export function campusScene(data, buildingId = null) {
  let buildings = withRacks(data);
  if (buildingId) buildings = buildings.filter((b) => b.id === buildingId);
  const boxes = buildings.map((b) => {
    const halls = b.halls ?? [];
    const hallBoxes = layoutHalls(halls);
    const w = Math.max(num(b.width_m, 0), ...hallBoxes.map((h) => h.x + h.w));
    const h = Math.max(num(b.length_m ?? b.depth_m, 0), ...hallBoxes.map((hb) => hb.y + hb.h));
    return { b, hallBoxes, x: num(b.x_m, 0), y: num(b.y_m, 0), w: Math.max(w, 1), h: Math.max(h, 1) };
  });
  // Buildings without a campus position (or overlapping ones) are set side by side.
  if (overlaps(boxes)) {
    let x = 0;
    for (const box of boxes) {
      box.x = x;
      box.y = 0;
      x += box.w + GAP_M * 3;
    }
  }
  const racks = [];
  const outlines = [];
  for (const box of boxes) {
    const label = withHeadroom(box.b.name, box.b.headroom_mw);
    const building = { x: box.x, y: box.y, w: box.w, h: box.h, level: "building", label, id: box.b.id };
    outlines.push({ ...building, headroomMw: box.b.headroom_mw ?? null });
    for (const hb of box.hallBoxes) {
      const hx = box.x + hb.x;
      const hy = box.y + hb.y;
      const hallLabel = withHeadroom(hb.hall.name, hb.hall.headroom_mw);
      const hall = { x: hx, y: hy, w: hb.w, h: hb.h, level: "hall", label: hallLabel, id: hb.hall.id };
      outlines.push({ ...hall, headroomMw: hb.hall.headroom_mw ?? null });
      for (const r of hb.hall.racks ?? []) racks.push(placeRack(r, hx, hy, hb.hall, box.b));
    }
  }
  const title = buildingId && buildings[0] ? buildings[0].name : (data.name ?? data.campus?.name ?? "Whole campus");
  // The headroom of what is shown: one building's, or the campus' (added load spread over every hall).
  const headroomMw = buildingId ? (buildings[0]?.headroom_mw ?? null) : (data.campus?.headroom_mw ?? null);
  return { racks, outlines, title, headroomMw };
}

/** The campus answer carries racks as compact rows (`rack_columns`); put them back under their halls. */
function withRacks(data) {
  const buildings = data.buildings ?? [];
  if (!Array.isArray(data.rack_columns)) return buildings;
  if (!data.__decoded) {
    const cols = data.rack_columns;
    const byHall = new Map();
    for (const row of data.racks ?? []) {
      const rack = {};
      for (let i = 0; i < cols.length; i += 1) rack[cols[i]] = row[i];
      let list = byHall.get(rack.hall_id);
      if (!list) byHall.set(rack.hall_id, (list = []));
      list.push(rack);
    }
    data.__decoded = buildings.map((b) => ({
      ...b,
      halls: (b.halls ?? []).map((h) => ({ ...h, racks: byHall.get(h.id) ?? h.racks ?? [] })),
    }));
  }
  return data.__decoded;
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
