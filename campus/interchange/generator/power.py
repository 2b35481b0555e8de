"""The 2N power chain: utility A/B → substations → per hall transformer, switchgear (+ N+1 generators),
UPS modules → per row PDU A/B → rack feeds; and the mechanical boards that feed the cooling."""

from __future__ import annotations

import math

from campus import catalog_data as cat
from campus.interchange.generator import cooling
from campus.interchange.generator.builder import Builder, HallRow
from campus.interchange.generator.common import (
    GENERATOR_KW,
    GRID_MARGIN,
    PLANT_KW,
    UPS_MODULE_KW,
    Row,
    ceil_to,
)


def power_and_cooling(b: Builder) -> None:
    eff_pdu, eff_ups = cat.device_efficiency("pdu"), cat.device_efficiency("ups")
    utility_kw = b.it_kw * b.pue * GRID_MARGIN
    b.utility_feeds = [
        {
            "name": f"UTIL-{s}",
            "utility": "grid",
            "capacity_mw": ceil_to(utility_kw / 1000.0, 1.0),
            "voltage_kv": 138.0,
        }
        for s in "AB"
    ]
    for bi, building in enumerate(b.buildings):
        bname = building["name"]
        building_kw = building["design_it_mw"] * 1000.0
        facility_kw = building_kw * b.pue
        subs = {
            s: b.device(
                f"{bname}-SUB-{s}",
                "substation",
                bname,
                ceil_to(facility_kw / b.max_util, 1000.0),
                utility_feed=f"UTIL-{s}",
            )
            for s in "AB"
        }
        # Mechanical board on both sides: the heat-rejection plant keeps running when one side is lost.
        n_plants = cooling.plant_count(building_kw)
        msb_kw = ceil_to(n_plants * PLANT_KW / cooling.plant_cop(b) / b.max_util, 100.0)
        msb = b.device(f"{bname}-MSB", "switchgear", bname, msb_kw)
        for s in "AB":
            b.feed(subs[s], msb, msb_kw, s)
        plant_names = cooling.building_plants(b, bname, n_plants, msb)
        for hi, rows in enumerate(b.layout[bi]):
            _hall_power(b, bname, building["halls"][hi], rows, subs, plant_names, eff_pdu, eff_ups)


def _hall_power(
    b: Builder,
    bname: str,
    hall: Row,
    rows: list[HallRow],
    subs: dict[str, str],
    plant_names: list[str],
    eff_pdu: float,
    eff_ups: float,
) -> None:
    """Transformers, switchgear, generators, UPS modules and row PDUs of one hall (both sides), its
    cooling units, and the racks' feeds and cooling-unit assignments."""
    hname = hall["name"]
    prefix = f"{bname}-{hname}"
    hall_it_kw = sum(rack.kw for _, members in rows for _, rack in members)
    # Cooling units first: their pumps/fans load the UPS through the mechanical PDU.
    n_units = cooling.unit_count(b, hall_it_kw)
    mech_kw = ceil_to(n_units * cooling.unit_kw(b) * cooling.unit_power_fraction(b) / b.max_util, 10.0)
    mech_input_kw = mech_kw * b.max_util / eff_pdu

    # UPS modules per side: rows assigned greedily within the module's planning limit.
    row_kw = [sum(rack.kw for _, rack in members) for _, members in rows]
    ups_groups: list[list[int]] = [[]]
    ups_load = [mech_input_kw]
    for r, kw in enumerate(row_kw):
        load = kw / eff_pdu
        if ups_groups[-1] and ups_load[-1] + load > UPS_MODULE_KW * b.max_util:
            ups_groups.append([])
            ups_load.append(0.0)
        ups_groups[-1].append(r)
        ups_load[-1] += load
    ups_rated = [max(UPS_MODULE_KW, ceil_to(load / b.max_util, 100.0)) for load in ups_load]
    # One side carries the whole hall when the other is lost (2N).
    side_full_kw = sum(ups_load) / eff_ups
    swgr_kw = ceil_to(side_full_kw / b.max_util, 500.0)
    n_gens = math.ceil(side_full_kw / GENERATOR_KW) + 1  # N+1
    ups_names: dict[str, list[str]] = {}
    for s in "AB":
        tx = b.device(f"{prefix}-TX-{s}", "transformer", bname, swgr_kw, hname)
        b.feed(subs[s], tx, swgr_kw, s)
        swgr = b.device(f"{prefix}-SWGR-{s}", "switchgear", bname, swgr_kw, hname)
        b.feed(tx, swgr, swgr_kw, s)
        for g in range(n_gens):
            gen = b.device(
                f"{prefix}-GEN-{s}{g + 1:02d}",
                "generator",
                bname,
                GENERATOR_KW,
                hname,
                start_delay_s=cat.default_value("generator_start_delay_s"),
                ramp_s=cat.default_value("generator_ramp_s"),
            )
            b.feed(gen, swgr, GENERATOR_KW, s)
        ups_names[s] = []
        for u, rated in enumerate(ups_rated):
            ups = b.device(
                f"{prefix}-UPS-{s}{u + 1:02d}",
                "ups",
                bname,
                rated,
                hname,
                battery_minutes=cat.default_value("ups_battery_minutes"),
            )
            b.feed(swgr, ups, rated, s)
            ups_names[s].append(ups)

    mpdu = b.device(f"{prefix}-MPDU", "pdu", bname, mech_kw, hname)
    for s in "AB":
        b.feed(ups_names[s][0], mpdu, mech_kw, s)
    cooling.hall_units(b, prefix, bname, hall, rows, n_units, plant_names, mpdu)

    # Row PDUs and rack feeds: each side rated for the whole rack (2N).
    for u, members_idx in enumerate(ups_groups):
        for r in members_idx:
            row_spec, members = rows[r]
            pdu_kw = ceil_to(row_kw[r] / b.max_util, 50.0)
            for s in "AB":
                pdu = b.device(f"{prefix}-{row_spec['name']}-PDU-{s}", "pdu", bname, pdu_kw, hname)
                b.feed(ups_names[s][u], pdu, pdu_kw, s)
            for spec, rack in members:
                spec["feed_a"] = f"{prefix}-{row_spec['name']}-PDU-A"
                spec["feed_b"] = f"{prefix}-{row_spec['name']}-PDU-B"
                spec["feed_rating_kw"] = ceil_to(rack.kw / b.max_util, 5.0)
