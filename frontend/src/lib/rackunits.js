// @ts-check
// Where each item of a rack sits, U by U (U1 at the bottom, as EIA-310 numbers a rack's units): an item with a
// recorded position keeps it; the others are stacked upward from the lowest free unit in the order given. Pure.

/**
 * @typedef {object} Item
 * @property {string} name
 * @property {number} height_u
 * @property {number | null} [position_u] its lowest unit when recorded
 */

/**
 * @typedef {object} Placed
 * @property {string} name
 * @property {number} bottom_u lowest unit (1-based)
 * @property {number} height_u
 * @property {boolean} recorded whether the inventory gave the position
 */

/**
 * @template {Item} T
 * @param {number} rackUnits
 * @param {T[]} items
 * @returns {{placed: (Placed & {item: T})[], unplaced: T[], usedU: number}}
 */
export function layoutRack(rackUnits, items) {
  /** @type {boolean[]} */
  const taken = new Array(rackUnits + 1).fill(false);
  /** @type {(Placed & {item: T})[]} */
  const placed = [];
  /** @type {T[]} */
  const unplaced = [];
  const free = (/** @type {number} */ bottom, /** @type {number} */ h) => {
    if (bottom < 1 || bottom + h - 1 > rackUnits) return false;
    for (let u = bottom; u < bottom + h; u++) if (taken[u]) return false;
    return true;
  };
  const take = (/** @type {T} */ item, /** @type {number} */ bottom, /** @type {boolean} */ recorded) => {
    const h = Math.max(1, item.height_u);
    for (let u = bottom; u < bottom + h; u++) taken[u] = true;
    placed.push({ item, name: item.name, bottom_u: bottom, height_u: h, recorded });
  };
  const later = [];
  for (const item of items) {
    const h = Math.max(1, item.height_u);
    if (item.position_u != null && free(item.position_u, h)) take(item, item.position_u, true);
    else later.push(item);
  }
  for (const item of later) {
    const h = Math.max(1, item.height_u);
    let bottom = 1;
    while (bottom + h - 1 <= rackUnits && !free(bottom, h)) bottom++;
    if (bottom + h - 1 <= rackUnits) take(item, bottom, false);
    else unplaced.push(item);
  }
  placed.sort((a, b) => a.bottom_u - b.bottom_u);
  return { placed, unplaced, usedU: taken.filter(Boolean).length };
}
