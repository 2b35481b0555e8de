"""The facility units down at one time in a failure_cascade replica, and the racks they darken together.

Each unit's own loss is looked up once per unit (``CascadePlan.impact``: the roll-up with that unit
failed against an intact campus). When two or more units are down at once their loss is worked out
together (``campus.analysis.impact.racks_lost_many``: one roll-up with all of them failed), so both sides
of a 2N chain down together darken the racks that neither darkens alone; the answer is kept per set of
units on the snapshot's power graph, as the single-unit answers are.
"""

from __future__ import annotations

from campus.analysis.impact import racks_lost_many
from campus.analysis.power import power_graph

# what a failure class's target is called by the impact rules (the plan's targets, in its order)
_IMPACT_KIND = {1: "power", 2: "utility", 3: "cooling", 4: "plant"}


class FacilityDown:
    """The facility units in repair (a unit failing again while in repair counts twice) and the eligible
    racks they darken."""

    __slots__ = ("plan", "down", "dark")

    def __init__(self, plan) -> None:
        self.plan = plan
        self.down: dict[tuple[int, int], int] = {}  # (class index, unit index) -> failures in repair
        self.dark: frozenset[int] = frozenset()

    def _dark_now(self) -> frozenset[int]:
        keys = list(self.down)
        if not keys:
            return frozenset()
        if len(keys) == 1:
            return frozenset(self.plan.impact(*keys[0])[0])
        classes = self.plan.classes
        elements = frozenset((_IMPACT_KIND[classes[c].target], classes[c].units[u]) for c, u in keys)
        memo = power_graph(self.plan.snap).memo.setdefault("failure_cascade.racks_lost_many", {})
        racks = memo.get(elements)
        if racks is None:
            racks = memo[elements] = frozenset(racks_lost_many(self.plan.snap, elements))
        eligible = self.plan.eligible_by_rack
        return frozenset(r for r in racks if r in eligible)

    def fail(self, c: int, u: int) -> tuple[frozenset[int], bool]:
        """Unit ``u`` of class ``c`` fails: (eligible racks newly dark, whether any holds job nodes)."""
        key = (c, u)
        self.down[key] = self.down.get(key, 0) + 1
        before = self.dark
        if len(before) == len(self.plan.eligible_by_rack):
            return frozenset(), False  # every eligible rack is dark already: one more loss adds none
        self.dark = self._dark_now()
        new = self.dark - before
        job = self.plan.job_racks
        return new, any(r in job for r in new)

    def repair(self, c: int, u: int) -> frozenset[int]:
        """One repair of unit ``u`` of class ``c`` ends: the eligible racks that come back."""
        key = (c, u)
        k = self.down[key] - 1
        if k:
            self.down[key] = k
            return frozenset()
        del self.down[key]
        before = self.dark
        self.dark = self._dark_now()
        return before - self.dark
