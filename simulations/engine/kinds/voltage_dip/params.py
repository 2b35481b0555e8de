"""The parameters of voltage_dip: the dip at the point of connection, the ride-through curves of the load
classes, and how each class comes back."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from campus.analysis.grid_rules import RIDE_THROUGH
from campus.catalog_data import default_value
from simulations.engine.fields import ADVANCED, MAX_PUE, SECONDS_A_DAY, ParamsBase

Curve = Literal[tuple(RIDE_THROUGH)]  # type: ignore[valid-type]


class VoltageDipParams(ParamsBase):
    # A transmission fault cleared in ~9 cycles (150 ms) leaving 60 % of nominal at the campus: the order of
    # the 230 kV fault of 10 July 2024 in Northern Virginia (NERC Incident Review, January 2025).
    residual_pu: float = Field(0.6, ge=0, le=1, title="Residual voltage (pu)")
    """Voltage at the point of connection during the dip, per unit of nominal (0: an outage)."""
    duration_s: float = Field(0.15, gt=0, le=60, title="Dip duration (s)")
    """How long the dip lasts, seconds (a fault's clearing time)."""
    # Double-conversion UPSs go to battery when their input leaves its window; -15 % is a common rectifier
    # input tolerance at full load (vendor datasheets, estimate).
    ups_input_min_pu: float = Field(0.85, ge=0, le=1, title="UPS input limit (pu)")
    """The UPSs carry the IT load from their batteries (it leaves the grid) below this voltage."""
    ups_return_minutes: float = Field(5.0, ge=0, le=SECONDS_A_DAY / 60, title="UPS return to grid (min)")
    """Time before the UPS-backed load draws from the grid again (an estimate: settings run from seconds to
    a manual return; NERC found loads stayed off for hours after the July 2024 event)."""
    ups_return_ramp_s: float = Field(
        60.0, ge=0, le=SECONDS_A_DAY, title="UPS return ramp (s)", json_schema_extra=ADVANCED
    )
    """The UPS-backed load comes back over this ramp (walk-in), seconds."""
    drive_curve: Curve = Field("semi-f47", title="Drives' ride-through curve")
    """Ride-through curve of the variable-speed drives of pumps and fans (SEMI F47: 50 % for 0.2 s, 70 % for
    0.5 s, 80 % for 1 s)."""
    drive_restart_s: float = Field(15.0, ge=0, le=SECONDS_A_DAY, title="Drive restart (s)")
    """A dropped drive restarts (flying restart) after this long, seconds (an estimate)."""
    chiller_curve: Curve = Field("semi-f47", title="Chillers' ride-through curve")
    """Ride-through curve of the chillers' compressors and controls."""
    chiller_restart_minutes: float | None = Field(None, ge=0, le=240, title="Chiller restart (min)")
    """A dropped chiller is back after this long, minutes; empty: each plant's own (catalog
    chiller_restart_minutes, 4-8 min typical, up to ~30)."""
    # Shares of the facility overhead (facility - IT) by class: estimates for a liquid-cooled campus with
    # chillers (the chillers' compressors about half, pumps and fans on drives about a third, the rest
    # lighting, controls and losses that ride through).
    chiller_share: float = Field(
        0.5, ge=0, le=1, title="Chillers' share of the overhead", json_schema_extra=ADVANCED
    )
    """Share of the facility overhead (facility - IT power) drawn by chillers (an estimate)."""
    drive_share: float = Field(
        0.3, ge=0, le=1, title="Drives' share of the overhead", json_schema_extra=ADVANCED
    )
    """Share of the facility overhead drawn by pumps and fans on drives (an estimate)."""
    utilization: float = Field(1.0, ge=0, le=1, title="Utilisation (0–1)")
    """Share of the GPUs' time spent computing."""
    pue: float | None = Field(None, ge=1, le=MAX_PUE, title="PUE")
    """Facility power / IT power; empty: the PUE of the campus's hour of peak facility power."""
    horizon_minutes: float = Field(30.0, gt=0, le=24 * 60, title="Horizon (min)", json_schema_extra=ADVANCED)
    """How long after the dip the series runs, minutes."""


DEFAULT_CHILLER_RESTART_MINUTES = default_value("chiller_restart_minutes")
