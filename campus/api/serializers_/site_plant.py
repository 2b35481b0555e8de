"""The generator's site and plant parameters: the climate, the heat rejection and the facility water class
(docs/generator.md, "Heat rejection")."""

from __future__ import annotations

from rest_framework import serializers

from campus.choices import Climate
from campus.interchange.generator.common import FACILITY_WATER_C, HEAT_REJECTION


class SitePlantFields(serializers.Serializer):
    climate = serializers.ChoiceField(
        choices=Climate.choices,
        default=Climate.ASHBURN_US,
        help_text="Reference weather year and design conditions of the site.",
    )
    heat_rejection = serializers.ChoiceField(
        choices=list(HEAT_REJECTION),
        default="auto",
        help_text="The plants: auto (by the climate's design hours, said in the description), evaporative "
        "(water-cooled chillers on towers), air-cooled (air-cooled chillers, no water), dry (dry coolers "
        "and air-cooled chillers), adiabatic (dry coolers with adiabatic assist and air-cooled chillers), "
        "hybrid (adiabatic dry coolers and water-cooled chillers); docs/generator.md.",
    )
    facility_water = serializers.ChoiceField(
        choices=list(FACILITY_WATER_C),
        required=False,
        allow_null=True,
        default=None,
        help_text="ASHRAE liquid cooling class of the facility water (W32, W40, W45: supply at most 32, 40, "
        "45 °C); null: the catalog's loop.",
    )
