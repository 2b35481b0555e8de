// @ts-check
// A rack's page: its elevation front and rear, U by U (U1 at the bottom), from the inventory — the servers and
// switches housed in it, its two power feeds (rear, the PDU strips of sides A and B) and its network ports (rear,
// the cable bundles leaving it) — with its power figures and history.
import { api } from "../../lib/api.js";
import { el, errorBox, fill } from "../../lib/dom.js";
import * as f from "../../lib/format.js";
import { measuredCard } from "../../lib/measured.js";
import { layoutRack } from "../../lib/rackunits.js";
import { history } from "./device.js";

const SVG = "http://www.w3.org/2000/svg";
const U_PX = 13;
const WIDTH = 220;
const LEFT = 30; // the U numbers

/** @param {string} tag @param {Record<string, any>} attrs @param {...(Node | string)} children */
function svg(tag, attrs, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  node.append(...children);
  return node;
}

/**
 * One face of the rack as an SVG: the U scale, each item as a box with its name; on the rear, the two PDU strips.
 * @param {"front" | "rear"} face @param {number} units @param {any[]} placed @param {any} rack
 */
function face(face, units, placed, rack) {
  const height = units * U_PX;
  const y = (/** @type {number} */ u) => height - u * U_PX; // top of unit u
  const g = svg("g", { transform: "translate(0, 8)" });
  g.append(svg("rect", { x: LEFT, y: 0, width: WIDTH, height, fill: "#f8fafc", stroke: "#334155", "stroke-width": 2 }));
  for (let u = 1; u <= units; u++) {
    g.append(svg("line", { x1: LEFT, x2: LEFT + WIDTH, y1: y(u), y2: y(u), stroke: "#e2e8f0" }));
    if (u === 1 || u % 5 === 0)
      g.append(svg("text", { x: LEFT - 4, y: y(u) + U_PX - 3, "text-anchor": "end", class: "u-number" }, String(u)));
  }
  const inset = face === "rear" ? 26 : 4;
  for (const p of placed) {
    const top = y(p.bottom_u + p.height_u - 1);
    const kind = p.item.kind;
    const fill = kind === "switch" ? "#ccfbf1" : p.item.status === "planned" ? "#fef9c3" : "#dbeafe";
    const label =
      face === "front"
        ? p.name
        : kind === "switch"
          ? `${p.name} · ${p.item.ports} ports`
          : `${p.name} · ${p.item.nics} NIC ports`;
    g.append(
      svg(
        "g",
        { "data-item": p.name },
        svg(
          "title",
          {},
          `${p.name}: U${p.bottom_u}–U${p.bottom_u + p.height_u - 1}` +
            (p.recorded ? "" : " (stacked: position not recorded)"),
        ),
        svg("rect", {
          x: LEFT + inset,
          y: top + 1,
          width: WIDTH - 2 * inset,
          height: p.height_u * U_PX - 2,
          rx: 2,
          fill,
          stroke: "#1e3a8a",
          "stroke-width": 0.8,
        }),
        svg(
          "text",
          { x: LEFT + inset + 4, y: top + Math.min(p.height_u * U_PX, 26) / 2 + 4, class: "elevation-label" },
          label,
        ),
      ),
    );
  }
  if (face === "rear") {
    for (const [i, side] of ["A", "B"].entries()) {
      const feed = (rack.power?.feeds ?? []).find((x) => x.side === side);
      const x = i === 0 ? LEFT + 4 : LEFT + WIDTH - 22;
      g.append(
        svg(
          "g",
          { "data-pdu": side },
          svg(
            "title",
            {},
            feed ? `Side ${side}: ${feed.upstream_name}, ${f.num(feed.rating_kw, 1)} kW` : `Side ${side}: no feed`,
          ),
          svg("rect", {
            x,
            y: 2,
            width: 18,
            height: height - 4,
            rx: 3,
            fill: feed ? (side === "A" ? "#fed7aa" : "#ddd6fe") : "#f1f5f9",
            stroke: "#475569",
          }),
          svg("text", { x: x + 9, y: 14, "text-anchor": "middle", class: "elevation-label" }, side),
        ),
      );
    }
  }
  return svg(
    "svg",
    {
      viewBox: `0 0 ${LEFT + WIDTH + 4} ${height + 16}`,
      width: LEFT + WIDTH + 4,
      height: height + 16,
      role: "img",
      "aria-label": `${face === "front" ? "Front" : "Rear"} elevation of ${rack.name}, ${units} U`,
      "data-testid": `elevation-${face}`,
    },
    g,
  );
}

/** @param {HTMLElement} root @param {number} campusId @param {number} id */
export async function rackPage(root, campusId, id) {
  try {
    const [rack, nodes, nodeModels, switches, switchModels, links, changes] = await Promise.all([
      api.get(`/api/racks/${id}/`),
      api.all(`/api/nodes/?rack=${id}&ordering=name`),
      api.all("/api/node-models/"),
      api.all(`/api/switches/?rack=${id}`),
      api.all("/api/switch-models/"),
      api.all(`/api/links/?a_rack=${id}`),
      api.get(`/api/changes/?model=rack&object_id=${id}&limit=20`),
    ]);
    if (rack.campus.id !== campusId) {
      fill(
        root,
        el(
          "p",
          { class: "notice notice-warn", role: "alert" },
          `${rack.name} belongs to ${rack.campus.name}, not this design.`,
        ),
      );
      return;
    }
    const nm = new Map(nodeModels.map((m) => [m.id, m]));
    const sm = new Map(switchModels.map((m) => [m.id, m]));
    const items = [
      ...switches.map((s) => ({
        name: s.name,
        height_u: sm.get(s.model.id)?.rack_units ?? 1,
        position_u: null,
        kind: "switch",
        ports: (sm.get(s.model.id)?.radix ?? 0) * s.count,
      })),
      ...nodes.map((n) => ({
        name: n.name,
        height_u: nm.get(n.node_model.id)?.rack_units ?? 1,
        position_u: n.position_u,
        kind: "server",
        status: n.status,
        nics: nm.get(n.node_model.id)?.nics ?? 0,
      })),
    ];
    const layout = layoutRack(rack.rack_units, items);
    const p = rack.power ?? {};
    fill(
      root,
      el("h1", { "data-testid": "rack-name" }, rack.name),
      el(
        "p",
        { class: "muted" },
        `${rack.hall?.name ?? ""} · row ${rack.row?.name ?? "–"} · ${f.num(rack.rack_units)} U · `,
        `${f.num(layout.usedU)} U used · `,
        `${f.num(p.gpus ?? 0)} GPUs · IT load ${f.kw(p.it_load_kw ?? 0)} of ${f.kw(rack.design_kw)} design`,
      ),
      layout.unplaced.length
        ? el(
            "p",
            { class: "notice notice-warn", role: "status" },
            `${layout.unplaced.map((i) => i.name).join(", ")} do not fit in ${rack.rack_units} U.`,
          )
        : null,
      el(
        "div",
        { class: "elevations" },
        el("figure", {}, face("front", rack.rack_units, layout.placed, rack), el("figcaption", {}, "Front")),
        el(
          "figure",
          {},
          face("rear", rack.rack_units, layout.placed, rack),
          el("figcaption", {}, "Rear: PDU strips A and B, server and switch ports"),
        ),
        el(
          "div",
          { class: "elevation-tables" },
          el(
            "table",
            { class: "table", "data-testid": "rack-power-ports" },
            el("caption", {}, "Power feeds"),
            el(
              "thead",
              {},
              el(
                "tr",
                {},
                el("th", { scope: "col" }, "Side"),
                el("th", { scope: "col" }, "From"),
                el("th", { scope: "col", class: "num" }, "Rating (kW)"),
              ),
            ),
            el(
              "tbody",
              {},
              (p.feeds ?? []).map((x) =>
                el(
                  "tr",
                  {},
                  el("th", { scope: "row" }, x.side),
                  el(
                    "td",
                    {},
                    el(
                      "a",
                      { href: `/campuses/${campusId}/inventory/power-devices/${x.upstream_id}/` },
                      x.upstream_name,
                    ),
                  ),
                  el("td", { class: "num", "data-value": x.rating_kw }, f.num(x.rating_kw, 1)),
                ),
              ),
            ),
          ),
          el(
            "table",
            { class: "table", "data-testid": "rack-network-ports" },
            el("caption", {}, "Network ports"),
            el(
              "thead",
              {},
              el(
                "tr",
                {},
                el("th", { scope: "col" }, "To switch"),
                el("th", { scope: "col", class: "num" }, "Cables"),
                el("th", { scope: "col", class: "num" }, "Speed (Gbit/s)"),
                el("th", { scope: "col", class: "num" }, "Length (m)"),
              ),
            ),
            el(
              "tbody",
              {},
              links.map((l) =>
                el(
                  "tr",
                  {},
                  el("th", { scope: "row" }, l.b_switch?.name ?? "–"),
                  el("td", { class: "num", "data-value": l.count }, f.num(l.count)),
                  el("td", { class: "num", "data-value": l.speed_gbps }, f.num(l.speed_gbps)),
                  el("td", { class: "num", "data-value": l.length_m }, f.num(l.length_m, 1)),
                ),
              ),
            ),
          ),
        ),
      ),
      items.some((i) => i.kind === "server" && i.position_u == null)
        ? el("p", { class: "muted" }, "Servers without a recorded position are stacked from U1 upward in name order.")
        : null,
      measuredCard(campusId, "rack", rack.name),
      history(changes.results ?? []),
    );
  } catch (error) {
    fill(root, errorBox(error));
  } finally {
    root.setAttribute("aria-busy", "false");
  }
}
