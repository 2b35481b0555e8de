"""Fitted values applied as a design branch (docs/live.md, "Applying a calibration"): a copy of the campus
(``branching.create_branch``) that carries every fitted parameter the model reads -- the campus's GPU power
fraction and server overhead scale (rack power), each power device's efficiency, each cooling plant's rated
COP and fitted coefficients -- so the calibrated design can be compared (``diff``), judged and merged like
any other branch."""

from __future__ import annotations

from dataclasses import dataclass

from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models, transaction

from campus import branching, measured
from campus import state as states
from campus.models import Campus, CoolingPlant, PowerDevice

# the rack fit's names -> the campus's fields (campus.analysis.calibration)
RACK_FIELDS = {"gpu_power_fraction": "gpu_power_fraction", "overhead_scale": "server_overhead_scale"}
PLANT_FIELDS = ("cop", "fixed_kw", "eir_ref", "eir_per_k")


@dataclass(frozen=True)
class Change:
    model: type[models.Model]
    kind: str  # the object's kind as the measurements name it ("campus" for the campus itself)
    name: str  # its name in the parent (the campus: None, the branch itself)
    field: str
    fitted: float

    @property
    def value(self) -> float:
        """The fitted value within the field's bounds (its validators)."""
        low, high = field_bounds(self.model, self.field)
        return min(max(self.fitted, low), high)


def field_bounds(model: type[models.Model], name: str) -> tuple[float, float]:
    """A field's (min, max) from its validators: the bounds every write path checks."""
    low, high = float("-inf"), float("inf")
    for v in model._meta.get_field(name).validators:
        if isinstance(v, MinValueValidator):
            low = float(v.limit_value)
        elif isinstance(v, MaxValueValidator):
            high = float(v.limit_value)
    return low, high


def fitted_changes(fits: dict, racks: dict | None) -> list[Change]:
    """Every fitted parameter: the rack fit's (``racks``, None when there is none) on the campus, the
    facility fits' on their devices and plants."""
    out = []
    if racks is not None:
        out += [Change(Campus, "campus", "", RACK_FIELDS[p], racks[p]) for p in racks["fitted"]]
    out += [
        Change(PowerDevice, c["kind"], c["name"], "efficiency", c["efficiency"]) for c in fits["conversion"]
    ]
    for p in fits["plants"]:
        out += [Change(CoolingPlant, p["kind"], p["name"], f, p[f]) for f in PLANT_FIELDS if p[f] is not None]
    return out


def _rack_fit(state, days: int) -> tuple[dict | None, list[dict]]:
    """The rack fit (``measured.calibration``) and what of it is not applied, with the reason."""
    try:
        fit = measured.calibration(state, days)
    except ValueError as exc:
        reason = str(exc)
        return None, [{"parameter": f, "reason": reason} for f in RACK_FIELDS.values()]
    if "overhead_scale" in fit["fitted"]:
        return fit, []
    reason = "not determined: every measured rack has the same make (GPU and overhead power in one ratio)"
    return fit, [{"parameter": "server_overhead_scale", "reason": reason}]


def apply_calibration(parent: Campus, name: str, days: int, guard=None) -> dict:
    """Branch ``parent`` as ``name`` with the parameters fitted over the last ``days`` days. A
    ``ValueError`` (nothing written) when the measurements give nothing to apply."""
    state = states.campus_state(parent)
    fits = measured.facility_calibration(state, days)
    racks, not_applied = _rack_fit(state, days)
    changes = fitted_changes(fits, racks)
    if not changes:
        raise ValueError(
            "measurements: nothing to apply: fewer than two measured racks with GPUs, no power device with "
            "input and output measured, no plant with heat load, power and the outdoor temperature "
            "measured in the window"
        )
    reason = f"Calibration applied from measurements of the last {days} days"
    applied = []
    with transaction.atomic():
        branch = branching.create_branch(parent, name)
        if guard is not None:
            guard.inherit(branch.pk, parent.pk)
        objects: dict[tuple, models.Model] = {}
        for c in changes:
            key = (c.model, c.name)
            if key not in objects:
                objects[key] = (
                    branch if c.model is Campus else c.model.objects.get(campus=branch, name=c.name)
                )
            obj = objects[key]
            value = c.value
            applied.append(
                {
                    "object": f"campus {branch.name}" if c.model is Campus else f"{c.kind} {c.name}",
                    "field": c.field,
                    "from": getattr(obj, c.field),
                    "to": round(value, 6),
                    "fitted": round(c.fitted, 6),
                    "clipped": value != c.fitted,
                }
            )
            setattr(obj, c.field, round(value, 6))
        for obj in objects.values():
            obj._change_reason = reason
            obj.full_clean(validate_unique=False)
            obj.save()
    return {
        "id": branch.pk,
        "parent": parent.pk,
        "name": branch.name,
        "branched_at": branch.branched_at,
        "applied": applied,
        "not_applied": not_applied,
        "rack_calibration": racks,
        "calibration": fits,
    }
