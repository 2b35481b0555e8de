// @ts-check
// Thin wrapper over fetch for the REST API: session cookie, CSRF header on writes, JSON in and out; a write's
// redundancy warnings are shown where it was made.
import { warningText, writeResult, writeWarnings } from "./warnings.js";

export class ApiError extends Error {
  constructor(status, body, url) {
    super(ApiError.describe(status, body));
    this.status = status;
    this.body = body;
    this.url = url;
  }

  static describe(status, body) {
    if (body && typeof body === "object") {
      if (typeof body.detail === "string") return body.detail;
      const parts = [];
      for (const [key, value] of Object.entries(body)) {
        parts.push(`${key}: ${Array.isArray(value) ? value.join(" ") : JSON.stringify(value)}`);
      }
      if (parts.length) return parts.join("; ");
    }
    return `Request failed (HTTP ${status})`;
  }

  /** Field errors of a 400 as {field: "message"}, flattened one level for nested params. */
  fieldErrors() {
    const out = {};
    const walk = (value, prefix) => {
      if (Array.isArray(value) && value.every((v) => typeof v === "string")) {
        out[prefix] = value.join(" ");
      } else if (value && typeof value === "object" && !Array.isArray(value)) {
        for (const [k, v] of Object.entries(value)) walk(v, prefix ? `${prefix}.${k}` : k);
      } else if (typeof value === "string") {
        out[prefix] = value;
      } else if (Array.isArray(value)) {
        out[prefix] = value.map((v) => (typeof v === "string" ? v : JSON.stringify(v))).join(" ");
      }
    };
    if (this.body && typeof this.body === "object") walk(this.body, "");
    return out;
  }
}

function csrfToken() {
  const match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
  if (match) return decodeURIComponent(match[1]);
  const input = document.querySelector("input[name=csrfmiddlewaretoken]");
  if (!(input instanceof HTMLInputElement)) return "";
  return input.value;
}

/** @typedef {{signal?: AbortSignal}} RequestOptions */

/**
 * @param {"GET" | "HEAD" | "POST" | "PATCH" | "DELETE"} method
 * @param {string} url
 * @param {unknown} [body]
 * @param {RequestOptions} [options]
 * @returns {Promise<any>} the response's JSON (null for a 204)
 */
async function request(method, url, body, { signal } = {}) {
  /** @type {Record<string, string>} */
  const headers = { Accept: "application/json" };
  /** @type {RequestInit} */
  const init = { method, headers, credentials: "same-origin", signal };
  if (method !== "GET" && method !== "HEAD") {
    headers["X-CSRFToken"] = csrfToken();
    if (body !== undefined) {
      headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
  }
  const response = await fetch(url, init);
  if (response.status === 204) return null;
  const text = await response.text();
  let data = null;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = { detail: text.slice(0, 300) };
    }
  }
  if (!response.ok) {
    if (response.status === 403 && String(data?.detail ?? "").includes("credentials were not provided")) {
      window.location.assign(`/login/?next=${encodeURIComponent(window.location.pathname + window.location.search)}`);
    }
    throw new ApiError(response.status, data, url);
  }
  if (method !== "GET" && method !== "HEAD") {
    const warnings = writeWarnings(data);
    if (warnings.length) showWriteWarnings(warnings);
    return writeResult(data);
  }
  return data;
}

/**
 * A write's redundancy warnings shown where the change was made: just before the page region (the nearest
 * element with an id around the control used, e.g. the map's object panel) that holds it, so that the region
 * re-rendering after the write keeps them; at the top of the page's main area when no control is focused (a rack
 * dragged on the map). The warnings of an earlier write are removed.
 * @param {import("./warnings.js").WriteWarning[]} warnings
 */
export function showWriteWarnings(warnings) {
  for (const old of document.querySelectorAll(".write-warnings")) old.remove();
  const box = document.createElement("div");
  box.className = "notice notice-warn write-warnings";
  box.setAttribute("role", "alert");
  for (const w of warnings) {
    const line = document.createElement("div");
    line.textContent = warningText(w);
    box.append(line);
  }
  const active = document.activeElement;
  const region =
    active instanceof HTMLElement ? active.closest("section[id], aside[id], div[id], form[id], dialog[id]") : null;
  const main = document.querySelector("main") ?? document.body;
  if (region && region !== main && main.contains(region)) region.before(box);
  else main.prepend(box);
}

export const api = {
  /** @param {string} url @param {RequestOptions} [opts] */
  get: (url, opts) => request("GET", url, undefined, opts),
  /** @param {string} url @param {unknown} [body] @param {RequestOptions} [opts] */
  post: (url, body, opts) => request("POST", url, body ?? {}, opts),
  /** @param {string} url @param {unknown} body @param {RequestOptions} [opts] */
  patch: (url, body, opts) => request("PATCH", url, body, opts),
  /** @param {string} url @param {RequestOptions} [opts] */
  del: (url, opts) => request("DELETE", url, undefined, opts),

  /**
   * Every row of a paginated list (limit/offset, or a plain array).
   * @param {string} url
   * @param {{limit?: number} & RequestOptions} [opts]
   * @returns {Promise<any[]>}
   */
  async all(url, { limit = 1000, signal } = {}) {
    const sep = url.includes("?") ? "&" : "?";
    let next = `${url}${sep}limit=${limit}`;
    const rows = [];
    while (next) {
      const page = await request("GET", next, undefined, { signal });
      if (Array.isArray(page)) return page;
      rows.push(...(page.results ?? []));
      next = page.next ? sameOrigin(page.next) : null;
    }
    return rows;
  },
};

// The API builds absolute `next` links from the request host; keep them on this origin.
function sameOrigin(link) {
  try {
    const u = new URL(link, window.location.href);
    return u.pathname + u.search;
  } catch {
    return link;
  }
}

export function qs(params) {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== "") search.set(key, value);
  }
  const text = search.toString();
  return text ? `?${text}` : "";
}
