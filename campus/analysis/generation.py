"""Prime movers and emissions: heat rate against load, fuel and CO2 of on-site units, and the grid's carbon
intensity by site (docs/grid.md, "Prime generation and emissions").

A prime mover's fuel per unit of output rises at part load. The twin uses the linear input-output line of
a unit (fuel = no-load fuel + incremental rate x output, the form of EIA's and utilities' dispatch models):
the heat rate at a load fraction x is ``HR(x) = HR_full x (c + (1 - c) / x)``, ``c`` the incremental share of
full-load fuel, fitted so that HR(0.5) / HR(1) = 2 - c matches the mover's part-load penalty.

Pure Python: read by grid_limit (fuel and CO2 of its prime units) and the summary (the grid's emissions).
"""

from __future__ import annotations

from dataclasses import dataclass

# EPA, Emission Factors for Greenhouse Gas Inventories (2024), Table 1: natural gas 53.06 kg CO2/MMBtu,
# distillate fuel oil No. 2 (diesel) 73.96 kg CO2/MMBtu.
CO2_KG_PER_MMBTU = {"gas": 53.06, "diesel": 73.96}


@dataclass(frozen=True)
class PrimeMover:
    id: str
    label: str
    fuel: str  # a key of CO2_KG_PER_MMBTU
    start_s: float  # from the call to synchronised and loading
    ramp_fraction_per_min: float  # of rating per minute
    min_load_fraction: float  # lowest stable (and emissions-compliant) load
    heat_rate_btu_per_kwh: float  # at full load, HHV
    part_load_penalty: float  # HR(0.5) / HR(1) - 1
    source: str

    @property
    def incremental_share(self) -> float:
        return 1.0 - self.part_load_penalty

    def heat_rate(self, load_fraction: float) -> float:
        """Btu/kWh at ``load_fraction`` of rating (no lower than the minimum load)."""
        x = max(load_fraction, self.min_load_fraction, 1e-9)
        c = self.incremental_share
        return self.heat_rate_btu_per_kwh * (c + (1.0 - c) / x)

    def fuel_share(self, output_kw: float, rating_kw: float) -> float:
        """Fuel burned as a share of full-load fuel: ``c x + (1 - c)`` at load x (a unit running below its
        minimum load burns the minimum's fuel); 0 when it gives nothing."""
        if output_kw <= 0 or rating_kw <= 0:
            return 0.0
        x = max(min(output_kw / rating_kw, 1.0), self.min_load_fraction)
        c = self.incremental_share
        return c * x + (1.0 - c)

    def fuel_mmbtu(self, output_kw: float, rating_kw: float, hours: float) -> float:
        return (
            rating_kw
            / 1000.0
            * hours
            * self.heat_rate_btu_per_kwh
            / 1000.0
            * self.fuel_share(output_kw, rating_kw)
        )

    def co2_t(self, fuel_mmbtu: float) -> float:
        return fuel_mmbtu * CO2_KG_PER_MMBTU[self.fuel] / 1000.0


PRIME_MOVERS: dict[str, PrimeMover] = {
    m.id: m
    for m in (
        PrimeMover(
            "gas_turbine",
            "Aeroderivative gas turbine",
            "gas",
            600.0,
            0.5,
            0.25,
            9_500.0,
            0.25,
            "Estimates for aeroderivative units of the GE LM6000 class: ~10 min to full load from a fast "
            "start, ~50 %/min ramps, minimum emissions-compliant load ~25 %; full-load heat rate ~9,500 "
            "Btu/kWh HHV (EIA Electric Power Annual, Table 8.2, newer simple-cycle gas turbines ~9,500-11,000);"
            " part-load heat rate ~25 % higher at half load (GE part-load curves)",
        ),
        PrimeMover(
            "recip_engine",
            "Gas reciprocating engine",
            "gas",
            300.0,
            1.0,
            0.3,
            8_500.0,
            0.08,
            "Estimates for lean-burn gas engines of the Wärtsilä 50SG / Jenbacher J620 class: ~2-5 min to "
            "full load, ~100 %/min ramps once running, minimum load ~30 %; full-load heat rate ~8,500 "
            "Btu/kWh HHV (EIA Electric Power Annual, Table 8.2, internal combustion ~8,500-9,500); flat part "
            "load, ~8 % higher at half load (vendor part-load data)",
        ),
        PrimeMover(
            "diesel_standby",
            "Diesel standby set",
            "diesel",
            10.0,
            1.0,
            0.3,
            9_800.0,
            0.12,
            "Estimates: NFPA 110 Type 10 start (10 s); ~0.07 gal/kWh at full load (the catalog's diesel fuel "
            "figure) x 138,500 Btu/gal (EIA heat content of distillate) ~9,700-9,800 Btu/kWh",
        ),
    )
}
DEFAULT_PRIME_MOVER = "gas_turbine"

# Annual average CO2 intensity of the grid each shipped site sits on (campus.analysis.grid_rules regions),
# t CO2 per MWh consumed. Rounded estimates of the published figures; a site's own hourly profile replaces
# them.
GRID_CO2_T_PER_MWH: dict[str, tuple[float, str]] = {
    "ercot": (0.37, "estimate of the order of EPA eGRID2022's ERCT subregion output rate"),
    "pjm": (0.35, "estimate of the order of PJM's system average CO2 rate (PJM emissions reports, 2023)"),
    "tva": (0.33, "estimate of the order of EPA eGRID2022's SRTV subregion output rate"),
    "wecc": (0.36, "estimate of the order of EPA eGRID2022's AZNM subregion output rate"),
    "eirgrid": (0.28, "estimate near SEAI, Energy in Ireland 2024 (electricity ~0.25-0.3 kg/kWh)"),
    "singapore": (
        0.41,
        "Energy Market Authority, Singapore Energy Statistics 2024: grid emission factor ~0.41",
    ),
    "china": (
        0.57,
        "China Ministry of Ecology and Environment (2024): national grid average 0.5703 t/MWh (2022)",
    ),
}
UNKNOWN_GRID_CO2_T_PER_MWH = (0.37, "estimate: a US grid average (EIA, 2023, ~0.37 t/MWh)")


def grid_intensity(region: str | None, hourly: list[float] | None = None) -> tuple[list[float], str]:
    """24 hourly figures, t CO2/MWh, for the region (flat at its annual average unless ``hourly`` is given),
    and their source."""
    if hourly:
        if len(hourly) != 24:
            raise ValueError("hourly: give 24 figures, t CO2 per MWh, hour 0 to 23")
        return list(hourly), "the site's hourly profile"
    value, source = GRID_CO2_T_PER_MWH.get(region or "", UNKNOWN_GRID_CO2_T_PER_MWH)
    return [value] * 24, source
