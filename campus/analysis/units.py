"""Unit conversions between the units the database, the catalog and the results use.

The core computes power in kW. The database holds a campus's grid capacity and its utility feeds in MW
(API field names, a contract), the catalog holds a part's power in W, and results report campus-scale
power in MW; these are the conversions at those edges (docs/architecture.md, "Units").
"""

from __future__ import annotations

W_PER_KW = 1000.0
KW_PER_MW = 1000.0


def mw_to_kw(mw: float) -> float:
    return mw * KW_PER_MW


def kw_to_mw(kw: float) -> float:
    return kw / KW_PER_MW


def w_to_kw(w: float) -> float:
    return w / W_PER_KW


def mwh_to_kwh(mwh: float) -> float:
    return mwh * KW_PER_MW
