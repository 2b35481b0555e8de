from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from simple_history.models import HistoricalRecords

from campus.choices import CoolingPlantKind, CoolingUnitKind, Status
from campus.interchange.rules import PLANT_FIT_FIELDS, plant_fit_problem

from .base import SET_NULL_STAMPED, InventoryModel


class CoolingPlant(InventoryModel):
    """Heat rejection: chillers, dry coolers, cooling towers."""

    campus = models.ForeignKey("campus.Campus", on_delete=models.CASCADE, related_name="cooling_plants")
    building = models.ForeignKey(
        "campus.Building", on_delete=models.CASCADE, null=True, blank=True, related_name="cooling_plants"
    )
    name = models.CharField(max_length=128)
    kind = models.CharField(max_length=16, choices=CoolingPlantKind.choices)
    capacity_kw = models.FloatField(validators=[MinValueValidator(1), MaxValueValidator(2_000_000)])
    cop = models.FloatField(default=5.0, validators=[MinValueValidator(0.5), MaxValueValidator(100)])
    restart_minutes = models.FloatField(default=6, validators=[MinValueValidator(0), MaxValueValidator(240)])
    # A fitted plant (campus.analysis.calibration_facility): P = fixed_kw + Q · (eir_ref + eir_per_k · (T − 20 °C)).
    # All three or none; none: the kind's own equations at the rated COP (docs/model.md).
    fixed_kw = models.FloatField(
        null=True,
        blank=True,
        default=None,
        validators=[MinValueValidator(0), MaxValueValidator(2_000_000)],
        help_text="Fitted power drawn whatever the heat load (fans, pumps), kW; with eir_ref and eir_per_k it "
        "replaces the kind's plant equations. Null: the equations at the rated COP.",
    )
    eir_ref = models.FloatField(
        null=True,
        blank=True,
        default=None,
        validators=[MinValueValidator(0), MaxValueValidator(2)],
        help_text="Fitted electric input ratio (kW of electricity per kW of heat) at 20 °C outdoor dry bulb.",
    )
    eir_per_k = models.FloatField(
        null=True,
        blank=True,
        default=None,
        validators=[MinValueValidator(-0.1), MaxValueValidator(0.1)],
        help_text="Fitted change of the electric input ratio per K of outdoor dry bulb, 1/K.",
    )
    power_device = models.ForeignKey(
        "campus.PowerDevice", on_delete=SET_NULL_STAMPED, null=True, blank=True, related_name="cooling_plants"
    )
    # A second supply (the other side of a 2N chain, or the alternate source of a transfer switch): the
    # plant runs while either supply is live.
    power_device_b = models.ForeignKey(
        "campus.PowerDevice",
        on_delete=SET_NULL_STAMPED,
        null=True,
        blank=True,
        related_name="cooling_plants_b",
        help_text="Second supply (dual-fed or transfer switch); the plant runs while any supply is live.",
    )
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.ACTIVE)
    history = HistoricalRecords()
    # Units this plant supplies: deleting it would unlink them without a word (docs/api.md, "Deleting").
    DEPENDENTS = ("units",)

    class Meta:
        ordering = ("campus", "name")
        constraints = [
            models.UniqueConstraint(fields=("campus", "name"), name="coolingplant_unique_name"),
            models.CheckConstraint(condition=Q(capacity_kw__gt=0), name="coolingplant_capacity_positive"),
        ]

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        """The fitted coefficients come together (``rules.plant_fit_problem``), said on the first one missing."""
        if problem := plant_fit_problem({f: getattr(self, f) for f in PLANT_FIT_FIELDS}):
            raise ValidationError({problem[0]: problem[1]})
        super().clean()


class CoolingUnit(InventoryModel):
    """A CRAH, CDU, rear-door heat exchanger or immersion tank, and the racks it serves (Rack.cooling_unit)."""

    campus = models.ForeignKey("campus.Campus", on_delete=models.CASCADE, related_name="cooling_units")
    hall = models.ForeignKey(
        "campus.DataHall", on_delete=models.CASCADE, null=True, blank=True, related_name="cooling_units"
    )
    plant = models.ForeignKey(
        CoolingPlant, on_delete=SET_NULL_STAMPED, null=True, blank=True, related_name="units"
    )
    power_device = models.ForeignKey(
        "campus.PowerDevice", on_delete=SET_NULL_STAMPED, null=True, blank=True, related_name="cooling_units"
    )
    power_device_b = models.ForeignKey(
        "campus.PowerDevice",
        on_delete=SET_NULL_STAMPED,
        null=True,
        blank=True,
        related_name="cooling_units_b",
        help_text="Second supply (dual power supplies or transfer switch); the unit runs while any supply is live.",
    )
    name = models.CharField(max_length=128)
    kind = models.CharField(max_length=16, choices=CoolingUnitKind.choices)
    capacity_kw = models.FloatField(validators=[MinValueValidator(1), MaxValueValidator(100_000)])
    supply_temp_c = models.FloatField(default=25, validators=[MinValueValidator(0), MaxValueValidator(70)])
    return_temp_c = models.FloatField(default=45, validators=[MinValueValidator(0), MaxValueValidator(90)])
    flow_lpm = models.FloatField(
        default=0, validators=[MinValueValidator(0)], help_text="Coolant or air-equivalent flow, L/min."
    )
    group = models.CharField(
        max_length=64, blank=True, help_text="Units that back each other up (N+1 is checked per group)."
    )
    x_m = models.FloatField(null=True, blank=True)
    y_m = models.FloatField(null=True, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.ACTIVE)
    history = HistoricalRecords()
    # Racks this unit cools: deleting it would leave them uncooled without a word (docs/api.md, "Deleting").
    DEPENDENTS = ("racks",)

    class Meta:
        ordering = ("campus", "name")
        constraints = [
            models.UniqueConstraint(fields=("campus", "name"), name="coolingunit_unique_name"),
            models.CheckConstraint(condition=Q(capacity_kw__gt=0), name="coolingunit_capacity_positive"),
            models.CheckConstraint(
                condition=Q(return_temp_c__gte=models.F("supply_temp_c")),
                name="coolingunit_return_not_below_supply",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        """The return water is not colder than the supply (the constraint above), said on the field that was
        changed: ``supply_temp_c`` when an existing unit keeps its return temperature, else ``return_temp_c``."""
        supply, ret = self.supply_temp_c, self.return_temp_c
        if supply is not None and ret is not None and ret < supply:
            stored = None
            if self.pk:
                stored = type(self).objects.filter(pk=self.pk).values_list("return_temp_c", flat=True).first()
            if stored is not None and stored == ret:
                message = f"supply_temp_c must be at most return_temp_c ({supply:g} °C > {ret:g} °C)."
                raise ValidationError({"supply_temp_c": message})
            message = f"return_temp_c must be at least supply_temp_c ({ret:g} °C < {supply:g} °C)."
            raise ValidationError({"return_temp_c": message})
        super().clean()
