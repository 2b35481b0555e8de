// @ts-check
// The inventory's tables: one list endpoint each, with the columns a planner sorts and filters by. Every figure
// carries its unit in its header; names lead to the object's page.
import * as f from "../../lib/format.js";

const name = (o) => o?.name ?? null;

/** The label of a choice from its list (the API's own labels), else the value as a person reads it. */
const choice = (list, v) => (v === null || v === undefined ? null : (list.find((o) => o[0] === v)?.[1] ?? f.label(v)));

/** @type {[string, string][]} */
const POWER_KINDS = [
  ["substation", "Substation"],
  ["transformer", "Transformer"],
  ["switchgear", "Switchgear"],
  ["generator", "Generator"],
  ["ups", "UPS"],
  ["pdu", "PDU"],
  ["busway", "Busway"],
  ["rpp", "Remote power panel"],
  ["sst", "Solid-state transformer"],
  ["rectifier", "Rectifier"],
  ["dc-busway", "DC busway"],
];
/** @type {[string, string][]} */
const COOLING_KINDS = [
  ["crah", "CRAH"],
  ["cdu", "Coolant distribution unit"],
  ["rear-door", "Rear-door heat exchanger"],
  ["immersion", "Immersion tank"],
];
/** @type {[string, string][]} */
const COOLING_TYPES = [
  ["air", "Air"],
  ["rear-door", "Rear-door heat exchanger"],
  ["direct-to-chip", "Direct-to-chip liquid"],
  ["immersion", "Immersion"],
];
/** @type {[string, string][]} */
const NODE_STATUS = [
  ["active", "Active"],
  ["spare", "Hot spare"],
  ["failed", "Failed"],
  ["maintenance", "Maintenance"],
  ["planned", "Planned"],
];
/** @type {[string, string][]} */
const TIERS = [
  ["leaf", "Leaf"],
  ["spine", "Spine"],
  ["core", "Core"],
];
/** @type {[string, string][]} */
const NETWORKS = [
  ["backend", "Back end"],
  ["frontend", "Front end"],
];

/** @type {[string, string][]} */
const STATUS = [
  ["active", "Active"],
  ["planned", "Planned"],
  ["offline", "Offline"],
  ["failed", "Failed"],
];

/** @param {number} campusId @returns {import("../../lib/datatable.js").TableSpec[]} */
export function tableSpecs(campusId) {
  const base = `/campuses/${campusId}/inventory`;
  const params = { campus: String(campusId) };
  return [
    {
      key: "racks",
      title: "Racks",
      url: "/api/racks/",
      params,
      ordering: "name",
      link: (r) => `${base}/racks/${r.id}/`,
      columns: [
        { label: "Rack", value: (r) => r.name, order: "name" },
        { label: "Hall", value: (r) => name(r.hall), order: "hall__name" },
        { label: "Row", value: (r) => name(r.row), order: "row__name" },
        { label: "Status", value: (r) => choice(STATUS, r.status), order: "status" },
        { label: "Cooling", value: (r) => choice(COOLING_TYPES, r.cooling_type), order: "cooling_type" },
        { label: "GPUs", value: (r) => r.power?.gpus ?? null, num: true },
        { label: "IT load (kW)", value: (r) => r.power?.it_load_kw ?? null, num: true, digits: 1 },
        { label: "Design (kW)", value: (r) => r.design_kw, order: "design_kw", num: true, digits: 1 },
        { label: "Height (U)", value: (r) => r.rack_units, order: "rack_units", num: true },
        { label: "Cooling unit", value: (r) => name(r.cooling_unit) },
      ],
      filters: [
        { name: "status", label: "Status", options: STATUS },
        {
          name: "cooling_type",
          label: "Cooling",
          options: COOLING_TYPES,
        },
      ],
    },
    {
      key: "power",
      title: "Power devices",
      url: "/api/power-devices/",
      params,
      ordering: "name",
      link: (d) => `${base}/power-devices/${d.id}/`,
      columns: [
        { label: "Device", value: (d) => d.name, order: "name" },
        { label: "Kind", value: (d) => choice(POWER_KINDS, d.kind), order: "kind" },
        { label: "Rating (kW)", value: (d) => d.rated_kw, order: "rated_kw", num: true, digits: 1 },
        { label: "Usable (%)", value: (d) => Math.round(d.max_utilization * 100), order: "max_utilization", num: true },
        { label: "Building", value: (d) => name(d.building), order: "building__name" },
        { label: "Hall", value: (d) => name(d.hall), order: "hall__name" },
        { label: "Status", value: (d) => choice(STATUS, d.status), order: "status" },
      ],
      filters: [
        {
          name: "kind",
          label: "Kind",
          options: POWER_KINDS,
        },
        { name: "status", label: "Status", options: STATUS },
      ],
    },
    {
      key: "cooling",
      title: "Cooling units",
      url: "/api/cooling-units/",
      params,
      ordering: "name",
      link: (u) => `${base}/cooling-units/${u.id}/`,
      columns: [
        { label: "Unit", value: (u) => u.name, order: "name" },
        { label: "Kind", value: (u) => choice(COOLING_KINDS, u.kind), order: "kind" },
        { label: "Capacity (kW)", value: (u) => u.capacity_kw, order: "capacity_kw", num: true, digits: 1 },
        { label: "Group", value: (u) => u.group, order: "group" },
        { label: "Hall", value: (u) => name(u.hall), order: "hall__name" },
        { label: "Plant", value: (u) => name(u.plant) },
        { label: "Supply A", value: (u) => name(u.power_device) },
        { label: "Supply B", value: (u) => name(u.power_device_b) },
        { label: "Supply (°C)", value: (u) => u.supply_temp_c, order: "supply_temp_c", num: true },
        { label: "Status", value: (u) => choice(STATUS, u.status), order: "status" },
      ],
      filters: [
        {
          name: "kind",
          label: "Kind",
          options: COOLING_KINDS,
        },
      ],
    },
    {
      key: "switches",
      title: "Switches",
      url: "/api/switches/",
      params,
      ordering: "name",
      columns: [
        { label: "Switch", value: (s) => s.name, order: "name" },
        { label: "Tier", value: (s) => choice(TIERS, s.tier), order: "tier" },
        { label: "Network", value: (s) => choice(NETWORKS, s.network), order: "network" },
        { label: "Model", value: (s) => name(s.model), order: "model__name" },
        { label: "Switches", value: (s) => s.count, order: "count", num: true },
        { label: "Pod", value: (s) => name(s.pod) },
        { label: "Hall", value: (s) => name(s.hall) },
        { label: "Rack", value: (s) => name(s.rack) },
      ],
      filters: [
        {
          name: "tier",
          label: "Tier",
          options: TIERS,
        },
      ],
    },
    {
      key: "servers",
      title: "Servers",
      url: "/api/nodes/",
      params,
      ordering: "name",
      columns: [
        { label: "Server", value: (n) => n.name, order: "name" },
        { label: "Model", value: (n) => name(n.node_model), order: "node_model__name" },
        { label: "Rack", value: (n) => name(n.rack), order: "rack__name" },
        { label: "Position (U)", value: (n) => n.position_u, order: "position_u", num: true },
        { label: "Serial", value: (n) => n.serial || null },
        { label: "Status", value: (n) => choice(NODE_STATUS, n.status), order: "status" },
      ],
      link: (n) => `${base}/racks/${n.rack?.id}/`,
      filters: [
        {
          name: "status",
          label: "Status",
          options: NODE_STATUS,
        },
      ],
    },
    {
      key: "links",
      title: "Links",
      url: "/api/links/",
      params,
      ordering: "id",
      columns: [
        { label: "From", value: (l) => name(l.a_rack) ?? name(l.a_switch), order: "a_rack__name" },
        { label: "To", value: (l) => name(l.b_switch), order: "b_switch__name" },
        { label: "Network", value: (l) => choice(NETWORKS, l.network), order: "network" },
        { label: "Cables", value: (l) => l.count, order: "count", num: true },
        { label: "Length (m)", value: (l) => l.length_m, order: "length_m", num: true },
        { label: "Speed (Gbit/s)", value: (l) => l.speed_gbps, order: "speed_gbps", num: true },
        { label: "Medium", value: (l) => name(l.medium) },
        { label: "Pod", value: (l) => name(l.pod) },
      ],
      filters: [
        {
          name: "network",
          label: "Network",
          options: NETWORKS,
        },
      ],
    },
  ];
}
