from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q

from campus.choices import Fabric, FailureUnit, MediumKind, NicKind

from .base import CatalogModel, TimestampedModel

# Physical bounds of catalog figures (docs/catalog.md, "Physical bounds"): a catalog row beyond them is a
# typing error, not hardware. With them a server is at most 72 x 5 kW + 20 kW + 32 NICs ≈ 382 kW, inside the
# largest rack design (Rack.design_kw ≤ 1,000 kW), and one server is never taller than a 52U rack.
MAX_GPU_TDP_W = 5_000  # boards shipping in 2025 draw ≤ 1.4 kW (B300, MI355X); announced ones ~3.6 kW
MAX_SERVER_OVERHEAD_W = 20_000  # a large 8-GPU chassis's supplies: DGX H100, 6 x 3.3 kW = 19.8 kW
MAX_SERVER_RACK_UNITS = 52  # the tallest common EIA-310 rack (42U, 45U, 48U, 52U)
MAX_SERVER_NICS = 32  # 8-GPU servers carry 8-10 (DGX H100: 8 ConnectX-7 + 2 BlueField-3)
MAX_SWITCH_POWER_W = 25_000  # modular chassis with line cards and optics stay within ~20 kW
MAX_MEDIUM_POWER_W_PER_END = 100  # pluggable optics draw ≤ ~30 W (800G/1.6T OSFP)


def validate_cap_curve(value) -> None:
    """A power-cap curve is a list of [cap fraction of TDP, throughput fraction] points, increasing in cap."""
    if not isinstance(value, list) or len(value) < 2:
        raise ValidationError(
            "cap_curve must be a list of at least two [cap_fraction, throughput_fraction] points"
        )
    previous = None
    for index, point in enumerate(value):
        if (
            not isinstance(point, list | tuple)
            or len(point) != 2
            or not all(isinstance(v, int | float) and not isinstance(v, bool) for v in point)
        ):
            raise ValidationError(f"cap_curve[{index}] must be [cap_fraction, throughput_fraction]")
        cap, throughput = point
        if not (0 < cap <= 1.5 and 0 <= throughput <= 1.5):
            raise ValidationError(
                f"cap_curve[{index}] is out of range (cap in (0, 1.5], throughput in [0, 1.5])"
            )
        if previous is not None and cap <= previous:
            raise ValidationError(f"cap_curve[{index}]: cap fractions must increase")
        previous = cap


class GPUModel(CatalogModel):
    vendor = models.CharField(max_length=64)
    tdp_w = models.FloatField(
        validators=[MinValueValidator(1), MaxValueValidator(MAX_GPU_TDP_W)],
        help_text="Board power at full load, W.",
    )
    memory_gb = models.FloatField(validators=[MinValueValidator(0)])
    memory_bandwidth_tbps = models.FloatField(default=0, validators=[MinValueValidator(0)])
    peak_fp4_tflops = models.FloatField(
        null=True, blank=True, validators=[MinValueValidator(0)], help_text="Dense FP4 peak, TFLOPS."
    )
    peak_fp8_tflops = models.FloatField(null=True, blank=True, validators=[MinValueValidator(0)])
    peak_bf16_tflops = models.FloatField(validators=[MinValueValidator(0)])
    peak_fp16_tflops = models.FloatField(validators=[MinValueValidator(0)])
    peak_tf32_tflops = models.FloatField(null=True, blank=True, validators=[MinValueValidator(0)])
    fp8_support = models.BooleanField(default=False)
    scaleup_gbps = models.FloatField(default=0, help_text="Scale-up bandwidth per GPU, GB/s.")
    slowdown_temp_c = models.FloatField()
    shutdown_temp_c = models.FloatField()
    hbm_max_temp_c = models.FloatField(null=True, blank=True)
    cap_curve = models.JSONField(
        default=list,
        validators=[validate_cap_curve],
        help_text="[[cap fraction of TDP, throughput fraction], ...] ending at [1.0, 1.0].",
    )
    min_cap_fraction = models.FloatField(
        default=0.5, validators=[MinValueValidator(0.1), MaxValueValidator(1)]
    )

    class Meta(CatalogModel.Meta):
        verbose_name = "GPU model"
        constraints = [
            models.CheckConstraint(condition=Q(tdp_w__gt=0), name="gpumodel_tdp_positive"),
            models.CheckConstraint(
                condition=Q(shutdown_temp_c__gt=models.F("slowdown_temp_c")),
                name="gpumodel_shutdown_above_slowdown",
            ),
            models.CheckConstraint(
                condition=Q(fp8_support=False) | Q(peak_fp8_tflops__isnull=False),
                name="gpumodel_fp8_has_peak",
            ),
        ]


class NodeModel(CatalogModel):
    gpu_model = models.ForeignKey(GPUModel, on_delete=models.PROTECT, related_name="node_models")
    gpus_per_node = models.PositiveSmallIntegerField(validators=[MinValueValidator(1), MaxValueValidator(72)])
    overhead_w = models.FloatField(
        validators=[MinValueValidator(0), MaxValueValidator(MAX_SERVER_OVERHEAD_W)],
        help_text="Server power beyond the GPUs (CPUs, NICs, fans, PSU losses), W.",
    )
    nics = models.PositiveSmallIntegerField(default=8, validators=[MaxValueValidator(MAX_SERVER_NICS)])
    nic_kind = models.CharField(max_length=16, choices=NicKind.choices, default=NicKind.CONNECTX7)
    nic_speed_gbps = models.FloatField(default=400, validators=[MinValueValidator(1)])
    rack_units = models.PositiveSmallIntegerField(
        default=8, validators=[MinValueValidator(1), MaxValueValidator(MAX_SERVER_RACK_UNITS)]
    )
    liquid_heat_fraction = models.FloatField(
        default=0.0,
        validators=[MinValueValidator(0), MaxValueValidator(1)],
        help_text="Share of the server's heat its cold plates carry to the liquid loop in a direct-to-chip "
        "rack (0: air-cooled server).",
    )

    class Meta(CatalogModel.Meta):
        verbose_name = "node model"
        constraints = [
            models.CheckConstraint(condition=Q(gpus_per_node__gte=1), name="nodemodel_has_gpus"),
            models.CheckConstraint(condition=Q(overhead_w__gte=0), name="nodemodel_overhead_nonnegative"),
        ]


class SwitchModel(CatalogModel):
    vendor = models.CharField(max_length=64)
    fabric = models.CharField(max_length=32, choices=Fabric.choices)
    radix = models.PositiveSmallIntegerField(validators=[MinValueValidator(4)])
    port_speed_gbps = models.FloatField(validators=[MinValueValidator(1)])
    power_w_copper = models.FloatField(
        validators=[MinValueValidator(0), MaxValueValidator(MAX_SWITCH_POWER_W)]
    )
    power_w_optics = models.FloatField(
        validators=[MinValueValidator(0), MaxValueValidator(MAX_SWITCH_POWER_W)]
    )
    rack_units = models.PositiveSmallIntegerField(
        default=1, validators=[MinValueValidator(1), MaxValueValidator(MAX_SERVER_RACK_UNITS)]
    )

    class Meta(CatalogModel.Meta):
        verbose_name = "switch model"
        constraints = [models.CheckConstraint(condition=Q(radix__gte=4), name="switchmodel_radix_min")]


class LinkMedium(CatalogModel):
    kind = models.CharField(max_length=16, choices=MediumKind.choices)
    max_reach_m = models.FloatField(validators=[MinValueValidator(0)])
    power_w_per_end = models.FloatField(
        validators=[MinValueValidator(0), MaxValueValidator(MAX_MEDIUM_POWER_W_PER_END)]
    )
    relative_cost = models.FloatField(
        validators=[MinValueValidator(0)], help_text="Relative to a multimode SR link = 1."
    )
    mtbf_hours = models.FloatField(validators=[MinValueValidator(1)])
    is_optical = models.BooleanField(default=False)

    class Meta(CatalogModel.Meta):
        verbose_name = "link medium"
        verbose_name_plural = "link media"
        constraints = [models.CheckConstraint(condition=Q(mtbf_hours__gt=0), name="linkmedium_mtbf_positive")]


class FailureRate(TimestampedModel):
    """The rate of one component class in one published data set. Use one job data set at a time."""

    dataset = models.CharField(max_length=64, db_index=True)
    component = models.CharField(max_length=64)
    per = models.CharField(max_length=16, choices=FailureUnit.choices)
    mtbf_hours = models.FloatField(
        validators=[MinValueValidator(0.001)], help_text="MTBF of one unit, hours."
    )
    interrupts_job = models.BooleanField(default=True)
    repair_hours = models.FloatField(default=0, validators=[MinValueValidator(0)])
    source = models.TextField()
    estimate = models.BooleanField(default=False)

    class Meta:
        ordering = ("dataset", "component")
        constraints = [
            models.UniqueConstraint(fields=("dataset", "component"), name="failurerate_unique_component"),
            models.CheckConstraint(condition=Q(mtbf_hours__gt=0), name="failurerate_mtbf_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.dataset}: {self.component}"
