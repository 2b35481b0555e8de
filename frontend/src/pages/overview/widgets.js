// @ts-check
// The overview's building blocks: a headline figure, a meter of parts against a limit, a GPU mix bar.
import { el } from "../../lib/dom.js";
import * as f from "../../lib/format.js";
import { gpuColor } from "../../lib/colors.js";

/** "limited by B1-R08-PDU-A with B1-SWGR-B lost": the device and the failure that bind a headroom. */
export function bindingText(binding) {
  if (!binding) return null;
  const failure = binding.failure;
  const lost = failure && failure.kind !== "none" ? ` with ${failure.name} lost` : "";
  return `limited by ${binding.name}${lost}`;
}

/** A headline figure; `hint` (a tooltip) says what it measures when the title alone does not. */
export function figure(testid, title, value, text, sub, hint = null) {
  return el(
    "div",
    { class: "figure", "data-testid": testid, "data-value": value ?? "", title: hint },
    el("div", { class: "figure-title" }, title),
    el("div", { class: "figure-value", "data-testid": `${testid}-text` }, text),
    sub ? el("div", { class: "figure-sub" }, sub) : null,
  );
}

/**
 * A horizontal bar of parts against a limit (e.g. IT and facility MW against the grid connection).
 * @param {{label: string, value: number | null, cls: string}[]} parts
 * @param {number | null} limit
 * @param {{unit?: string, testid?: string}} [options]
 */
export function meter(parts, limit, { unit = "MW", testid } = {}) {
  const max = Math.max(limit || 0, ...parts.map((p) => p.value || 0)) || 1;
  return el(
    "div",
    {
      class: "meter",
      "data-testid": testid,
      role: "img",
      "aria-label":
        parts.map((p) => `${p.label} ${f.num(p.value, 1)} ${unit}`).join(", ") +
        (limit ? `, limit ${f.num(limit, 1)} ${unit}` : ""),
    },
    el(
      "div",
      { class: "meter-track" },
      parts.map((p) =>
        el("div", {
          class: `meter-bar ${p.cls ?? ""}`,
          style: { width: `${Math.min(100, (100 * (p.value || 0)) / max)}%` },
          title: `${p.label}: ${f.num(p.value, 1)} ${unit}`,
        }),
      ),
      limit
        ? el("div", {
            class: "meter-limit",
            style: { left: `${Math.min(100, (100 * limit) / max)}%` },
            title: `Limit ${f.num(limit, 1)} ${unit}`,
          })
        : null,
    ),
    el(
      "div",
      { class: "meter-legend" },
      parts.map((p) =>
        el("span", {}, el("i", { class: `swatch ${p.cls ?? ""}` }), `${p.label} ${f.num(p.value, 1)} ${unit}`),
      ),
      limit ? el("span", {}, el("i", { class: "swatch swatch-limit" }), `limit ${f.num(limit, 1)} ${unit}`) : null,
    ),
  );
}

export function gpuMix(byModel, testid) {
  const entries = Object.entries(byModel ?? {}).sort((a, b) => b[1] - a[1]);
  const total = entries.reduce((s, [, n]) => s + n, 0) || 1;
  return el(
    "div",
    { class: "gpu-mix", "data-testid": testid },
    el(
      "div",
      {
        class: "stack",
        role: "img",
        "aria-label": entries.map(([m, n]) => `${f.label(m)}: ${f.num(n)} GPUs`).join(", "),
      },
      entries.map(([model, n]) =>
        el("span", {
          style: { width: `${(100 * n) / total}%`, background: gpuColor(model) },
          title: `${f.label(model)}: ${f.num(n)}`,
        }),
      ),
    ),
    el(
      "ul",
      { class: "gpu-list" },
      entries.map(([model, n]) =>
        el(
          "li",
          { "data-model": model, "data-value": n },
          el("i", { class: "swatch", style: { background: gpuColor(model) } }),
          el("span", { class: "gpu-model" }, f.label(model)),
          el("span", { class: "gpu-count" }, f.num(n)),
        ),
      ),
    ),
  );
}
