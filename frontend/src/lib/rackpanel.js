// @ts-check
// The rack panel: servers and GPUs, the A and B power paths up to the utility, cooling unit, pod and links.
import { api, qs } from "./api.js";
import { clear, el } from "./dom.js";
import * as f from "./format.js";
import { gpuColor } from "./colors.js";

let generation = 0;

export async function loadRackPanel(panel, rack, state, { onClose }) {
  const mine = ++generation;
  clear(panel);
  const close = el(
    "button",
    {
      type: "button",
      class: "icon-button",
      "aria-label": "Close rack panel",
      "data-testid": "rack-panel-close",
      onclick: onClose,
    },
    "×",
  );
  panel.append(
    el(
      "header",
      { class: "panel-head" },
      el(
        "div",
        {},
        el("h2", { "data-testid": "rack-panel-name" }, rack.name),
        el("p", { class: "muted small" }, [rack.building_name, rack.hall_name].filter(Boolean).join(" · ")),
      ),
      close,
    ),
    el(
      "dl",
      { class: "kv" },
      el("dt", {}, "Load"),
      el("dd", {}, `${f.kw(rack.load_kw)} of ${f.kw(rack.design_kw)} design`),
      el("dt", {}, "Feeds"),
      el("dd", {}, `A ${f.num(rack.feed_a_pct, 0)} % · B ${f.num(rack.feed_b_pct, 0)} % of rating`),
      el("dt", {}, "Density"),
      el("dd", {}, `${f.num(rack.density_kw_per_m2, 1)} kW/m²`),
      el("dt", {}, "Cooling"),
      el("dd", {}, rack.cooling_type ?? "–"),
      el("dt", {}, "Status"),
      el("dd", {}, rack.status ?? "–"),
      el("dt", {}, "GPUs"),
      el("dd", { "data-testid": "rack-panel-gpus" }, f.num(rack.gpus ?? 0)),
    ),
  );
  const sections = {
    nodes: section(panel, "Servers and GPUs", "rack-panel-nodes"),
    power: section(panel, "Power paths", "rack-panel-power"),
    cooling: section(panel, "Cooling", "rack-panel-cooling"),
    network: section(panel, "Pod and links", "rack-panel-network"),
  };
  panel.focus({ preventScroll: true });

  const [nodes, chain, unit, pod, links] = await Promise.allSettled([
    api.all(`/api/nodes/${qs({ rack: rack.id })}`),
    api.get(`/api/campuses/${state.campusId}/power-chain/${qs({ rack: rack.id, as_of: state.asOf })}`),
    rack.cooling_unit_id ? api.get(`/api/cooling-units/${rack.cooling_unit_id}/`) : Promise.resolve(null),
    rack.pod_id ? api.get(`/api/pods/${rack.pod_id}/`) : Promise.resolve(null),
    api.get(`/api/links/${qs({ a_rack: rack.id, limit: 100 })}`).then((page) => page.results ?? page),
  ]);
  if (mine !== generation) return;

  fill(sections.nodes, nodes, (rows) => nodesView(rows, rack));
  fill(sections.power, chain, powerView);
  fill(sections.cooling, unit, (u) => (u ? coolingView(u) : el("p", { class: "muted" }, "No cooling unit assigned.")));
  fill(sections.network, pod, (p) => networkView(p, links.status === "fulfilled" ? links.value : []));
  panel.dataset.ready = "true";
}

function section(panel, title, testid) {
  const body = el("div", { class: "panel-body" }, el("p", { class: "loading" }, "Loading…"));
  panel.append(el("section", { class: "panel-section", "data-testid": testid }, el("h3", {}, title), body));
  return body;
}

function fill(body, settled, render) {
  clear(body);
  if (settled.status === "rejected")
    body.append(el("p", { class: "notice notice-error small" }, settled.reason?.message ?? "Unavailable"));
  else body.append(render(settled.value));
}

function nodesView(rows, rack) {
  const byModel = new Map();
  for (const n of rows) {
    const model = n.node_model?.name ?? n.node_model_name ?? String(n.node_model ?? "server");
    const entry = byModel.get(model) ?? { count: 0, statuses: {} };
    entry.count += 1;
    entry.statuses[n.status] = (entry.statuses[n.status] ?? 0) + 1;
    byModel.set(model, entry);
  }
  const gpus = Object.entries(rack.gpus_by_model ?? {});
  return el(
    "div",
    {},
    gpus.length
      ? el(
          "ul",
          { class: "gpu-list" },
          gpus.map(([m, n]) =>
            el(
              "li",
              {},
              el("i", { class: "swatch", style: { background: gpuColor(m) } }),
              el("span", { class: "gpu-model" }, m),
              el("span", { class: "gpu-count" }, `${f.num(n)} GPUs`),
            ),
          ),
        )
      : null,
    rows.length
      ? el(
          "table",
          { class: "table compact" },
          el(
            "thead",
            {},
            el("tr", {}, el("th", {}, "Server model"), el("th", { class: "num" }, "Count"), el("th", {}, "Status")),
          ),
          el(
            "tbody",
            {},
            [...byModel].map(([model, e]) =>
              el(
                "tr",
                {},
                el("td", {}, String(model)),
                el("td", { class: "num" }, f.num(e.count)),
                el(
                  "td",
                  {},
                  Object.entries(e.statuses)
                    .map(([s, n]) => `${n} ${s}`)
                    .join(", "),
                ),
              ),
            ),
          ),
        )
      : el("p", { class: "muted" }, "No servers in this rack."),
  );
}

function stepTitle(s) {
  return (
    [
      s.headroom_kw != null ? `headroom ${f.kw(s.headroom_kw, 0)}` : null,
      s.headroom_after_failover_kw != null
        ? `after worst single failure ${f.kw(s.headroom_after_failover_kw, 0)}` +
          (s.worst_failure?.name ? ` (${s.worst_failure.name})` : "")
        : null,
    ]
      .filter(Boolean)
      .join("; ") || null
  );
}

function stepLoad(s) {
  if (s.load_pct != null || s.utilization != null)
    return el("span", { class: "chain-load" }, s.load_pct != null ? `${f.num(s.load_pct, 0)} %` : f.pct(s.utilization));
  return s.rated_kw != null ? el("span", { class: "chain-load" }, f.kw(s.rated_kw, 0)) : null;
}

/** One step of the chain: one element, or several in parallel (N+1 modules feeding the step below). */
function stepItem(group) {
  const first = group[0];
  return el(
    "li",
    {
      class: `${first.feed ? "chain-feed" : ""} ${group.every((s) => s.live === false) ? "chain-dead" : ""}`,
      title: group.length === 1 ? stepTitle(first) : "In parallel: each carries a share of the step below",
    },
    el("span", { class: "chain-kind" }, group.length > 1 ? `${first.kind ?? ""} ×${group.length}` : (first.kind ?? "")),
    el(
      "span",
      { class: "chain-names" },
      group.map((s, i) => [
        i ? el("span", { class: "chain-or" }, " ∥ ") : null,
        el(
          "span",
          {
            class: `${s.feed ? "chain-feed-name" : "chain-name"} ${s.live === false ? "chain-dead" : ""}`,
            title: group.length > 1 ? stepTitle(s) : null,
          },
          s.name ?? String(s.id ?? ""),
        ),
      ]),
    ),
    group.length === 1 ? stepLoad(first) : null,
  );
}

/** Standby sources (generators) of a step: an alternate source beside it, not a step in series. */
function standbyItem(standby, backed) {
  const names = standby.map((s) => s.name);
  return el(
    "li",
    {
      class: "chain-standby",
      "data-testid": "chain-standby",
      title: `Alternate source of ${backed}: carries it only when its normal sources are dead`,
    },
    el(
      "span",
      { class: "chain-kind" },
      `standby ${standby[0].kind}${standby.length > 1 ? ` ×${standby.length}` : ""} · alternate source`,
    ),
    el(
      "span",
      { class: "chain-names chain-wide" },
      names.map((n, i) => [i ? ", " : null, el("span", { class: "chain-standby-name" }, n)]),
    ),
  );
}

function powerView(chain) {
  const paths = normalizePaths(chain);
  if (!paths.length) return el("p", { class: "muted" }, "No power feeds.");
  return el(
    "div",
    { class: "paths" },
    paths.map(({ side, steps, standby }) =>
      el(
        "div",
        { class: `path path-${side.toLowerCase()}`, "data-side": side },
        el("div", { class: "path-side" }, `Side ${side}`),
        el(
          "ol",
          { class: "chain" },
          steps.map((group) => {
            const ids = new Set(group.map((s) => s.id));
            const backing = (standby ?? []).filter((g) => (g.feeds_device_ids ?? []).some((id) => ids.has(id)));
            return [
              stepItem(group),
              backing.length ? standbyItem(backing, group.map((s) => s.name).join(" ∥ ")) : null,
            ];
          }),
        ),
      ),
    ),
  );
}

/**
 * Steps of each side, rack → utility: the rack feed, the devices upstream grouped by depth (several at one depth
 * are in parallel), the grid. Standby devices (generators) are kept apart: each shows beside the step it backs.
 */
function normalizePaths(chain) {
  if (!chain) return [];
  if (Array.isArray(chain.sides)) {
    return chain.sides.map((side) => {
      const devices = side.devices ?? [];
      const byDepth = new Map();
      for (const d of devices.filter((x) => !x.standby)) {
        let list = byDepth.get(d.depth);
        if (!list) byDepth.set(d.depth, (list = []));
        list.push(d);
      }
      return {
        side: side.side,
        standby: devices.filter((x) => x.standby),
        steps: [
          // The rack's own feed; the feeds between devices further up are not listed.
          ...(side.feeds ?? [])
            .filter((fd) => fd.downstream_device_id == null)
            .map((fd) => [
              {
                kind: "rack feed",
                name: `${fd.side} feed, ${fd.rating_kw} kW`,
                load_pct: fd.load_pct,
                live: fd.live,
                feed: true,
              },
            ]),
          ...[...byDepth.keys()].sort((a, b) => a - b).map((k) => byDepth.get(k)),
          ...(side.utility_feeds ?? []).map((u) => [
            {
              ...u,
              kind: "utility feed",
              utilization: u.capacity_kw ? u.load_kw / u.capacity_kw : null,
            },
          ]),
        ],
      };
    });
  }
  return [];
}

function coolingView(u) {
  return el(
    "dl",
    { class: "kv" },
    el("dt", {}, "Unit"),
    el("dd", {}, `${u.name} (${u.kind})`),
    el("dt", {}, "Capacity"),
    el("dd", {}, f.kw(u.capacity_kw, 0)),
    el("dt", {}, "Supply / return"),
    el("dd", {}, `${f.num(u.supply_temp_c, 0)} / ${f.num(u.return_temp_c, 0)} °C`),
    u.group ? el("dt", {}, "Group") : null,
    u.group ? el("dd", {}, u.group) : null,
  );
}

function networkView(pod, links) {
  return el(
    "div",
    {},
    pod
      ? el(
          "dl",
          { class: "kv" },
          el("dt", {}, "Pod"),
          el("dd", { "data-testid": "rack-panel-pod" }, pod.name),
          el("dt", {}, "Fabric"),
          el("dd", {}, `${pod.fabric} · ${pod.topology}`),
          el("dt", {}, "Oversubscription"),
          el("dd", {}, `${f.num(pod.oversubscription, 1)} : 1`),
        )
      : el("p", { class: "muted" }, "Not in a pod."),
    links.length
      ? el(
          "ul",
          { class: "link-list", "data-testid": "rack-panel-links" },
          links
            .slice(0, 40)
            .map((l) =>
              el(
                "li",
                {},
                el("strong", {}, `${f.num(l.count)} × `),
                `${l.network ?? ""} → `,
                el("span", { class: "chain-name" }, l.b_switch?.name ?? String(l.b_switch ?? "")),
                el(
                  "div",
                  { class: "muted" },
                  [
                    l.medium?.name ?? String(l.medium ?? ""),
                    `${f.num(l.length_m, 0)} m`,
                    `${f.num(l.speed_gbps)} Gb/s`,
                  ].join(" · "),
                ),
              ),
            ),
        )
      : el("p", { class: "muted small" }, "No links recorded for this rack."),
  );
}
