from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from simple_history.models import HistoricalRecords

from campus.analysis.capex import validate_overrides
from campus.choices import Climate, CoolingType, Redundancy, Status

from .base import SET_NULL_STAMPED, InventoryModel, TimestampedModel


def validate_price_overrides(value) -> None:
    """Every key a price-catalog row, every price a number from 0 to 1e10 USD (campus.analysis.capex)."""
    try:
        validate_overrides(value)
    except ValueError as exc:
        raise ValidationError(str(exc)) from None


# The densest rack design: the Kyber rack of Rubin Ultra NVL576 draws ~600 kW (NVIDIA GTC 2025 roadmap).
MAX_RACK_DESIGN_KW = 1000


class Campus(TimestampedModel):
    name = models.CharField(max_length=128, unique=True)
    location = models.CharField(max_length=256, blank=True)
    latitude = models.FloatField(
        null=True, blank=True, validators=[MinValueValidator(-90), MaxValueValidator(90)]
    )
    longitude = models.FloatField(
        null=True, blank=True, validators=[MinValueValidator(-180), MaxValueValidator(180)]
    )
    grid_capacity_mw = models.FloatField(
        validators=[MinValueValidator(0), MaxValueValidator(100_000)],
        help_text="Grid interconnect capacity, MW.",
    )
    price_usd_per_kwh = models.FloatField(
        default=0.078,
        validators=[MinValueValidator(0), MaxValueValidator(10)],
        help_text="Energy price, USD/kWh.",
    )
    design_pue = models.FloatField(
        null=True,
        blank=True,
        default=None,
        validators=[MinValueValidator(1.0), MaxValueValidator(3.0)],
        help_text="A typed PUE, an override of the plant model; null: the PUE is computed from the cooling "
        "plant, the power chain and the campus's weather, hour by hour (docs/model.md).",
    )
    ambient_temp_c = models.FloatField(default=25, validators=[MinValueValidator(-60), MaxValueValidator(60)])
    gpu_power_fraction = models.FloatField(
        default=1.0,
        validators=[MinValueValidator(0.05), MaxValueValidator(1.2)],
        help_text="The GPUs' modelled draw as a fraction of their TDP (1: at TDP, the design load). A "
        "calibration from measured rack power sets it (docs/live.md, Applying a calibration).",
    )
    server_overhead_scale = models.FloatField(
        default=1.0,
        validators=[MinValueValidator(0.1), MaxValueValidator(3.0)],
        help_text="Scale of the servers' power beyond their GPUs (the node models' overhead_w and NIC "
        "extras; 1: the catalog's figures). A calibration from measured rack power sets it.",
    )
    other_it_fraction = models.FloatField(
        default=0.10,
        validators=[MinValueValidator(0), MaxValueValidator(0.9)],
        help_text="Storage, CPU nodes and other IT beyond the GPU servers and fabric, as a fraction of IT power.",
    )
    climate = models.CharField(
        max_length=32,
        choices=Climate.choices,
        default=Climate.ASHBURN_US,
        help_text="Reference weather year of the site (docs/model.md, Weather); an uploaded EPW year overrides it.",
    )
    power_redundancy = models.CharField(
        max_length=4,
        choices=Redundancy.choices,
        blank=True,
        default="",
        help_text="Declared redundancy of the critical power chain (N, N+1, 2N); blank: not declared. The "
        "design check compares it with the single points the topology actually has.",
    )
    cooling_redundancy = models.CharField(
        max_length=4,
        choices=Redundancy.choices,
        blank=True,
        default="",
        help_text="Declared redundancy of the cooling units and plants (N, N+1, 2N); blank: not declared.",
    )
    description = models.TextField(blank=True)
    price_overrides = models.JSONField(
        default=dict,
        blank=True,
        validators=[validate_price_overrides],
        help_text='The campus\'s own unit prices, USD, by price-catalog key: {"switch/quantum-2-qm9700": 30000}. '
        "Every other item is priced at the catalog's row (GET /api/price-catalog/, docs/capex.md).",
    )
    parent = models.ForeignKey(
        "self",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="branches",
        help_text="The design this campus was branched from (POST /api/campuses/{id}/branch/); null for a "
        "campus that is not a branch.",
    )
    branched_at = models.DateTimeField(
        null=True, blank=True, help_text="When the branch was taken or last merged into its parent."
    )
    revision = models.PositiveBigIntegerField(
        default=0,
        editable=False,
        help_text="Grows in the transaction of every write to the campus's inventory or to the catalog (database "
        "triggers, docs/architecture.md); every cache of the campus's figures is keyed on it.",
    )
    history = HistoricalRecords(excluded_fields=["revision"])

    class Meta:
        ordering = ("name",)
        verbose_name_plural = "campuses"
        constraints = [
            models.CheckConstraint(condition=Q(grid_capacity_mw__gte=0), name="campus_grid_nonnegative"),
            models.CheckConstraint(
                condition=Q(design_pue__isnull=True) | Q(design_pue__gte=1.0), name="campus_pue_at_least_one"
            ),
            models.CheckConstraint(condition=Q(price_usd_per_kwh__gte=0), name="campus_price_nonnegative"),
        ]

    def __str__(self) -> str:
        return self.name


class UtilityFeed(InventoryModel):
    """A grid connection: where the campus takes power from the utility."""

    campus = models.ForeignKey(Campus, on_delete=models.CASCADE, related_name="utility_feeds")
    name = models.CharField(max_length=128)
    utility = models.CharField(max_length=128, blank=True)
    capacity_mw = models.FloatField(validators=[MinValueValidator(0), MaxValueValidator(100_000)])
    voltage_kv = models.FloatField(default=138, validators=[MinValueValidator(0)])
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.ACTIVE)
    history = HistoricalRecords()
    # Devices this feed supplies: deleting it would unlink them without a word (docs/api.md, "Deleting").
    DEPENDENTS = ("devices",)

    class Meta:
        ordering = ("campus", "name")
        constraints = [
            models.UniqueConstraint(fields=("campus", "name"), name="utilityfeed_unique_name"),
            models.CheckConstraint(condition=Q(capacity_mw__gte=0), name="utilityfeed_capacity_nonnegative"),
        ]

    def __str__(self) -> str:
        return self.name


class Building(InventoryModel):
    campus = models.ForeignKey(Campus, on_delete=models.CASCADE, related_name="buildings")
    name = models.CharField(max_length=128)
    x_m = models.FloatField(default=0, help_text="Position of the building's corner on the campus plan, m.")
    y_m = models.FloatField(default=0)
    width_m = models.FloatField(default=100, validators=[MinValueValidator(1)])
    length_m = models.FloatField(default=100, validators=[MinValueValidator(1)])
    design_it_mw = models.FloatField(default=0, validators=[MinValueValidator(0)])
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.ACTIVE)
    history = HistoricalRecords()
    # Deleting it deletes what it holds, and is refused while that would rewire elements outside it
    # (twin.api.exceptions, docs/api.md "Deleting").
    CONTAINER = True

    class Meta:
        ordering = ("campus", "name")
        constraints = [models.UniqueConstraint(fields=("campus", "name"), name="building_unique_name")]

    def __str__(self) -> str:
        return self.name


class DataHall(InventoryModel):
    building = models.ForeignKey(Building, on_delete=models.CASCADE, related_name="halls")
    name = models.CharField(max_length=128)
    x_m = models.FloatField(default=0, help_text="Position of the hall inside its building, m.")
    y_m = models.FloatField(default=0)
    width_m = models.FloatField(validators=[MinValueValidator(1), MaxValueValidator(2000)])
    length_m = models.FloatField(validators=[MinValueValidator(1), MaxValueValidator(2000)])
    design_it_mw = models.FloatField(default=0, validators=[MinValueValidator(0)])
    history = HistoricalRecords()
    # Deleting it deletes what it holds, and is refused while that would rewire elements outside it
    # (twin.api.exceptions, docs/api.md "Deleting").
    CONTAINER = True

    class Meta:
        ordering = ("building", "name")
        verbose_name = "data hall"
        constraints = [
            models.UniqueConstraint(fields=("building", "name"), name="datahall_unique_name"),
            models.CheckConstraint(condition=Q(width_m__gt=0, length_m__gt=0), name="datahall_positive_size"),
        ]

    def __str__(self) -> str:
        return self.name


class Row(InventoryModel):
    hall = models.ForeignKey(DataHall, on_delete=models.CASCADE, related_name="rows")
    name = models.CharField(max_length=64)
    x_m = models.FloatField(default=0)
    y_m = models.FloatField(default=0)
    history = HistoricalRecords()

    class Meta:
        ordering = ("hall", "name")
        constraints = [models.UniqueConstraint(fields=("hall", "name"), name="row_unique_name")]

    def __str__(self) -> str:
        return self.name


class Rack(InventoryModel):
    campus = models.ForeignKey(Campus, on_delete=models.CASCADE, related_name="racks")
    hall = models.ForeignKey(DataHall, on_delete=models.CASCADE, related_name="racks")
    row = models.ForeignKey(Row, on_delete=SET_NULL_STAMPED, null=True, blank=True, related_name="racks")
    name = models.CharField(max_length=128)
    x_m = models.FloatField(help_text="Position of the rack's corner in its hall, m.")
    y_m = models.FloatField()
    width_m = models.FloatField(default=0.6, validators=[MinValueValidator(0.1), MaxValueValidator(5)])
    depth_m = models.FloatField(default=1.2, validators=[MinValueValidator(0.1), MaxValueValidator(5)])
    rack_units = models.PositiveSmallIntegerField(
        default=48,
        validators=[MinValueValidator(1), MaxValueValidator(60)],
        help_text="Mounting height, U (EIA-310, 44.45 mm): 42-52U common; at least its servers' units on "
        "every day (docs/planning.md, 'What a rack holds').",
    )
    cooling_type = models.CharField(max_length=16, choices=CoolingType.choices, default=CoolingType.AIR)
    design_kw = models.FloatField(
        validators=[MinValueValidator(0), MaxValueValidator(MAX_RACK_DESIGN_KW)],
        help_text="Design IT power, kW: at least its servers at full TDP plus extra_it_kw on every day.",
    )
    extra_it_kw = models.FloatField(
        default=0,
        validators=[MinValueValidator(0)],
        help_text="Storage, CPU nodes and switches housed here, kW.",
    )
    cooling_unit = models.ForeignKey(
        "campus.CoolingUnit", on_delete=SET_NULL_STAMPED, null=True, blank=True, related_name="racks"
    )
    pod = models.ForeignKey(
        "campus.Pod", on_delete=SET_NULL_STAMPED, null=True, blank=True, related_name="racks"
    )
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.ACTIVE)
    history = HistoricalRecords()

    class Meta:
        ordering = ("campus", "name")
        constraints = [
            models.UniqueConstraint(fields=("campus", "name"), name="rack_unique_name"),
            models.CheckConstraint(condition=Q(design_kw__gte=0), name="rack_design_kw_nonnegative"),
        ]
        indexes = [models.Index(fields=("hall", "name"))]

    def __str__(self) -> str:
        return self.name
