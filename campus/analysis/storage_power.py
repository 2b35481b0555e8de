"""The storage systems' power as IT load, by place (docs/training.md, "Storage systems in the IT load").

A storage system (``StorageSnap``) draws its ``power_kw`` (its servers and their switches) whatever the GPUs
do: a file system serves reads and checkpoints all the time. The inventory gives a storage system a building
(or none) but no power feed, so its power is placed as a switch placed only by its building is
(``heat`` rule 4): the building's IT beside the racks, on the devices feeding the building's racks in
proportion to their IT, its heat to the building's air units (storage servers are air-cooled); one with no
building is the campus's, over every building by its racks' IT. An assumption: a storage system on its own
feed would load that feed instead. A system ``failed`` or ``offline`` draws nothing.
"""

from __future__ import annotations

from campus.analysis.phases import OUT_OF_OPERATION
from campus.analysis.snapshot import CampusSnapshot


def storage_kw_by_place(snap: CampusSnapshot) -> dict[tuple[str, int], float]:
    """Storage power by place, ``("building", id)`` or ``("campus", 0)``, kW."""
    out: dict[tuple[str, int], float] = {}
    for s in snap.storage_systems:
        if s.status in OUT_OF_OPERATION or s.power_kw <= 0:
            continue
        place = ("building", s.building_id) if s.building_id is not None else ("campus", 0)
        out[place] = out.get(place, 0.0) + s.power_kw
    return out


def storage_kw(snap: CampusSnapshot) -> float:
    """The storage systems' power, kW (the IT breakdown's ``storage_kw``)."""
    return sum(storage_kw_by_place(snap).values())
