import io

import numpy as np
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from .base import TimestampedModel
from .sites import Campus


class CampusWeather(TimestampedModel):
    """A campus's own hourly weather year, uploaded as an EnergyPlus EPW file (8,760 hours; a leap-year
    file's 29 February is dropped). While it exists the campus uses it instead of its climate's
    reference year (docs/model.md, "Weather")."""

    campus = models.OneToOneField(Campus, on_delete=models.CASCADE, related_name="weather")
    source = models.CharField(max_length=512, help_text="The EPW file's site (its LOCATION line).")
    latitude = models.FloatField(null=True, blank=True)
    longitude = models.FloatField(null=True, blank=True)
    elevation_m = models.FloatField(null=True, blank=True)
    pressure_pa = models.FloatField(help_text="Mean station pressure over the year, Pa.")
    utc_offset_h = models.FloatField(
        default=0.0,
        validators=[MinValueValidator(-12), MaxValueValidator(14)],
        help_text="The hours' local standard time, hours east of UTC (the EPW file's LOCATION time zone).",
    )
    leap_day_dropped = models.BooleanField(default=False)
    # the site's design conditions (campus.analysis.design_weather.DesignConditions fields), when supplied
    design_conditions = models.JSONField(
        null=True,
        blank=True,
        help_text="ASHRAE-style design conditions supplied with the year (docs/model.md, Design weather).",
    )
    # the hours as a compressed numpy archive: dry_bulb_c, wet_bulb_c, relative_humidity (8,760 each)
    hours = models.BinaryField()

    class Meta:
        verbose_name = "campus weather year"

    def __str__(self) -> str:
        return f"{self.campus}: {self.source}"

    @staticmethod
    def pack(dry_bulb_c: np.ndarray, wet_bulb_c: np.ndarray, relative_humidity: np.ndarray) -> bytes:
        buf = io.BytesIO()
        np.savez_compressed(
            buf,
            dry_bulb_c=np.asarray(dry_bulb_c, dtype=np.float64),
            wet_bulb_c=np.asarray(wet_bulb_c, dtype=np.float64),
            relative_humidity=np.asarray(relative_humidity, dtype=np.float64),
        )
        return buf.getvalue()

    def year_fields(self) -> dict:
        """The ``WeatherYear`` fields the row keeps (the campus gives the climate); the design conditions as
        their dict (``design_weather.design_conditions_of`` reads it)."""
        return {
            "source": self.source,
            "pressure_pa": self.pressure_pa,
            "utc_offset_h": self.utc_offset_h,
            "design": self.design_conditions,
            **self.arrays(),
        }

    def arrays(self) -> dict[str, np.ndarray]:
        with np.load(io.BytesIO(bytes(self.hours)), allow_pickle=False) as data:
            return {k: data[k] for k in ("dry_bulb_c", "wet_bulb_c", "relative_humidity")}
