"""Fitted values applied as a design branch (docs/live.md, "Applying a calibration"): a copy of the campus
(``branching.create_branch``) whose power devices carry their fitted efficiencies and whose cooling plants
carry their fitted rated COPs, so the calibrated design can be compared (``diff``), judged and merged like
any other branch."""

from __future__ import annotations

from django.db import transaction

from campus import branching, measured
from campus import state as states
from campus.models import Campus, CoolingPlant, PowerDevice

# the inventory's bounds (campus.models.power / cooling): a fit outside them is clipped, and said so
EFFICIENCY_BOUNDS = (0.5, 1.0)
COP_BOUNDS = (0.5, 100.0)

NOT_APPLIED = [
    {
        "parameter": "gpu_power_fraction",
        "reason": "no inventory field holds it: the racks' modelled IT stays at full TDP; "
        "GET /calibration/ gives the fit, basis=measured applies measured load to headroom",
    },
    {"parameter": "overhead_scale", "reason": "no inventory field holds it (as gpu_power_fraction)"},
    {
        "parameter": "plant regression (fixed_kw, eir_ref, eir_per_k)",
        "reason": "the plant model has one free parameter, its rated COP; the branch takes the COP fitted "
        "through the model",
    },
]


def _clip(value: float, bounds: tuple[float, float]) -> float:
    return min(max(value, bounds[0]), bounds[1])


def fitted_changes(fits: dict) -> list[tuple[type, str, str, float, float]]:
    """(model, object kind, name, field, value) for every fitted parameter the inventory holds."""
    out = []
    for c in fits["conversion"]:
        out.append(
            (PowerDevice, c["kind"], c["name"], "efficiency", _clip(c["efficiency"], EFFICIENCY_BOUNDS))
        )
    for p in fits["plants"]:
        out.append((CoolingPlant, p["kind"], p["name"], "cop", _clip(p["cop"], COP_BOUNDS)))
    return out


def apply_calibration(parent: Campus, name: str, days: int, guard=None) -> dict:
    """Branch ``parent`` as ``name`` with the parameters fitted over the last ``days`` days. A
    ``ValueError`` (nothing written) when the measurements give nothing to apply."""
    fits = measured.facility_calibration(states.campus_state(parent), days)
    changes = fitted_changes(fits)
    if not changes:
        raise ValueError(
            "measurements: nothing to apply: no power device with input and output measured, no plant "
            "with heat load, power and the outdoor temperature measured in the window"
        )
    reason = f"Calibration applied from measurements of the last {days} days"
    applied = []
    with transaction.atomic():
        branch = branching.create_branch(parent, name)
        if guard is not None:
            guard.inherit(branch.pk, parent.pk)
        for model, kind, obj_name, field, value in changes:
            obj = model.objects.get(campus=branch, name=obj_name)
            before = getattr(obj, field)
            setattr(obj, field, value)
            obj._change_reason = reason
            obj.full_clean(validate_unique=False)
            obj.save()
            applied.append(
                {"object": f"{kind} {obj_name}", "field": field, "from": before, "to": round(value, 6)}
            )
    return {
        "id": branch.pk,
        "parent": parent.pk,
        "name": branch.name,
        "branched_at": branch.branched_at,
        "applied": applied,
        "not_applied": NOT_APPLIED,
        "calibration": fits,
    }
