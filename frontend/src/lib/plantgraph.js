// @ts-check
// The plant's links on the floor map: which device feeds which (power), which unit cools which rack and which plant
// serves which unit (cooling). Builds the graph once per scene and answers "the paths of this rack" and "what this
// device serves" as line segments and the elements on them.

export const PATH_COLORS = { A: "#c2410c", B: "#6d28d9", N: "#334155", cooling: "#0e7490" };

export class PlantGraph {
  constructor(scene) {
    this.scene = scene;
    this.itemIndex = new Map(scene.plant.map((p, i) => [p.key, i]));
    this.rackIndex = new Map(scene.racks.map((r, i) => [r.id, i]));
    this.up = new Map(); // node -> [{node, side, path}]
    this.down = new Map();
    const add = (from, to, side, path) => {
      push(this.down, from, { node: to, side, path });
      push(this.up, to, { node: from, side, path });
    };
    for (const [u, d, side] of scene.links ?? []) add(`power:${u}`, `power:${d}`, side, "power");
    for (const r of scene.racks) {
      for (const [dev, side] of r.feed_devices ?? []) add(`power:${dev}`, `rack:${r.id}`, side, "power");
      if (r.cooling_unit_id != null) add(`cooling:${r.cooling_unit_id}`, `rack:${r.id}`, null, "cooling");
    }
    for (const p of scene.plant) {
      for (const s of p.supply_ids ?? []) add(`power:${s}`, p.key, null, "power");
      if (p.type === "cooling" && p.plant_id != null) add(`plant:${p.plant_id}`, p.key, null, "cooling");
    }
  }

  /** Centre of a node in world metres, or null when it is not on this map. */
  at(node) {
    const [type, id] = splitKey(node);
    if (type === "rack") {
      const i = this.rackIndex.get(id);
      if (i === undefined) return null;
      const r = this.scene.racks[i];
      return { x: r.x + r.w / 2, y: r.y + r.h / 2 };
    }
    const i = this.itemIndex.get(node);
    if (i === undefined) return null;
    const p = this.scene.plant[i];
    return { x: p.x + p.w / 2, y: p.y + p.h / 2 };
  }

  /**
   * The paths of a rack or device: every link upstream (power: each side to its sources; cooling: unit and plant)
   * and, for a device, its links to what it serves directly. Returns {segments, items, racks, served}.
   */
  paths(node) {
    const segments = [];
    const items = new Set();
    const racks = new Set();
    const mark = (n) => {
      const [type, id] = splitKey(n);
      if (type === "rack") {
        if (this.rackIndex.has(id)) racks.add(this.rackIndex.get(id));
      } else if (this.itemIndex.has(n)) items.add(this.itemIndex.get(n));
    };
    const segment = (a, b, color) => {
      const p = this.at(a);
      const q = this.at(b);
      if (p && q) segments.push({ x1: p.x, y1: p.y, x2: q.x, y2: q.y, color });
    };
    mark(node);
    // Upstream: power climbs power links keeping the side it started on; cooling climbs cooling links only.
    const seen = new Set([node]);
    let frontier = (this.up.get(node) ?? []).map((e) => ({ from: node, ...e, color: colorOf(e) }));
    while (frontier.length) {
      const next = [];
      for (const e of frontier) {
        segment(e.from, e.node, e.color);
        if (seen.has(e.node)) continue;
        seen.add(e.node);
        mark(e.node);
        for (const u of this.up.get(e.node) ?? []) {
          if (u.path !== e.path) continue;
          const color = e.path === "power" && (u.side === "A" || u.side === "B") ? PATH_COLORS[u.side] : e.color;
          next.push({ from: e.node, ...u, color });
        }
      }
      frontier = next;
    }
    // Downstream: what a device serves directly, and the racks below it (counted, outlined). A power device's
    // racks are those its power reaches (the racks a cooling unit it supplies cools are not its own: the unit's
    // N+1 partners carry them, as impact mode finds); a unit's or plant's, those its cooling reaches.
    let served = 0;
    if (!node.startsWith("rack:")) {
      for (const d of this.down.get(node) ?? []) {
        segment(node, d.node, colorOf(d));
        mark(d.node);
      }
      const path = node.startsWith("power:") ? "power" : "cooling";
      const below = new Set();
      const stack = [node];
      const visited = new Set(stack);
      while (stack.length) {
        const n = stack.pop();
        for (const d of this.down.get(n) ?? []) {
          if (visited.has(d.node) || d.path !== path) continue;
          visited.add(d.node);
          if (d.node.startsWith("rack:")) below.add(d.node);
          else stack.push(d.node);
        }
      }
      for (const r of below) mark(r);
      served = below.size;
    }
    return { segments, items, racks, served };
  }
}

function colorOf(edge) {
  if (edge.path === "cooling") return PATH_COLORS.cooling;
  return PATH_COLORS[edge.side] ?? PATH_COLORS.N;
}

function splitKey(node) {
  const i = node.indexOf(":");
  return [node.slice(0, i), Number(node.slice(i + 1))];
}

function push(map, key, value) {
  let list = map.get(key);
  if (!list) map.set(key, (list = []));
  list.push(value);
}
