"""The parameters of heat_wave: when the wave starts, how long it lasts and how much warmer it is."""

from __future__ import annotations

from pydantic import Field, ValidationInfo, field_validator

from simulations.engine.fields import ParamsBase


class HeatWaveParams(ParamsBase):
    """A heat wave over the campus's weather year (docs/scenarios.md, heat_wave)."""

    # Day of the year the wave starts, 1 = 1 January; empty: the campus's hottest stretch of ``days`` days, so
    # a wave in the southern hemisphere falls in its summer too.
    start_day: int | None = Field(None, ge=1, le=365, title="First day (day of the year)")
    """Day of the year the wave starts (1 = 1 January, 196 = 15 July); empty: the first day of the hottest
    ``days`` days of the campus's weather year (highest mean dry bulb)."""
    days: int = Field(5, ge=1, le=365, title="Length (days)")
    """How many days the wave lasts; it must end by day 365."""
    # Added to the dry bulb of every hour of the wave; the air keeps its moisture (dew point).
    temperature_rise_k: float = Field(5.0, ge=0, le=25, title="Temperature rise (K)")
    """Added to the dry-bulb temperature of every hour of the wave, K; the air keeps its moisture (dew point)."""

    @field_validator("days")
    @classmethod
    def _ends_in_the_year(cls, days: int, info: ValidationInfo) -> int:
        start = info.data.get("start_day")
        if start is not None and start + days - 1 > 365:
            raise ValueError(f"the wave must end by day 365: at most {366 - start} days from day {start}")
        return days
