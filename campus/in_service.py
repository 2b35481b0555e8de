"""Which inventory rows are in service on a day, as ORM queries: the rules of ``campus.analysis.phases``
(a row's own service dates, and those of everything it is in or hangs from) for the database to apply.
The snapshot adapter counts a rack's servers of a day with them, and the ``?in_service_on=`` filters select
the rows of a day."""

from __future__ import annotations

from datetime import date

from django.db.models import Q


def in_service_q(day: date, prefix: str = "") -> Q:
    """Rows in service on ``day`` (``campus.analysis.phases.in_service`` as a query)."""
    return (Q(**{f"{prefix}in_service_date__isnull": True}) | Q(**{f"{prefix}in_service_date__lte": day})) & (
        Q(**{f"{prefix}retire_date__isnull": True}) | Q(**{f"{prefix}retire_date__gt": day})
    )


# What each inventory table's rows are in service only with (campus.analysis.phases' containment rules), as
# relation paths: a rack only while its row, hall and building are; a feed only while its rack and the devices
# at its ends are. A path through an empty foreign key (a rack without a row) holds.
_RACK = ("row__", "hall__", "hall__building__")
_SWITCH = ("pod__", "pod__building__", "hall__", "hall__building__", "rack__", *(f"rack__{p}" for p in _RACK))
PARENT_PATHS: dict[str, tuple[str, ...]] = {
    "UtilityFeed": (),
    "Building": (),
    "DataHall": ("building__",),
    "Row": ("hall__", "hall__building__"),
    "Rack": _RACK,
    "Node": ("rack__", *(f"rack__{p}" for p in _RACK)),
    "PowerDevice": ("building__",),
    "PowerFeed": (
        "rack__",
        *(f"rack__{p}" for p in _RACK),
        "upstream__",
        "upstream__building__",
        "downstream_device__",
        "downstream_device__building__",
    ),
    "EnergyStorage": ("building__",),
    "StorageSystem": ("building__",),
    "CoolingPlant": ("building__",),
    "CoolingUnit": ("hall__", "hall__building__", "plant__", "plant__building__"),
    "Pod": ("building__",),
    "Switch": _SWITCH,
    "Link": (
        "pod__",
        "pod__building__",
        "a_rack__",
        *(f"a_rack__{p}" for p in _RACK),
        "a_switch__",
        *(f"a_switch__{p}" for p in _SWITCH),
        "b_switch__",
        *(f"b_switch__{p}" for p in _SWITCH),
    ),
}


def in_service_with_parents_q(model_name: str, day: date) -> Q:
    """Rows of ``model_name`` in service on ``day`` together with everything they are in or hang from
    (``PARENT_PATHS``), as the snapshot of that day counts them (``campus.analysis.phases``)."""
    q = in_service_q(day)
    for prefix in PARENT_PATHS[model_name]:
        q &= in_service_q(day, prefix)
    return q
