"""factory_boy factories for every inventory, catalog, scenario and schedule model. Each builds a valid object with valid
parents (a rack's hall belongs to the rack's campus, a feed has exactly one downstream, ...)."""

from __future__ import annotations

import factory
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from campus import models
from campus.choices import (
    CoolingPlantKind,
    CoolingType,
    CoolingUnitKind,
    Fabric,
    FailureUnit,
    FeedSide,
    MediumKind,
    Network,
    PowerDeviceKind,
    SwitchTier,
)
from simulations.models import Scenario, Schedule


class UserFactory(factory.django.DjangoModelFactory):
    username = factory.Sequence(lambda n: f"user{n}")
    email = factory.LazyAttribute(lambda o: f"{o.username}@example.org")

    class Meta:
        model = get_user_model()
        skip_postgeneration_save = True

    @factory.post_generation
    def role(self, create, extracted, **kwargs):
        if create and extracted:
            group, _ = Group.objects.get_or_create(name=extracted)
            self.groups.add(group)


# ---------------------------------------------------------------- catalog


class GPUModelFactory(factory.django.DjangoModelFactory):
    slug = factory.Sequence(lambda n: f"test-gpu-{n}")
    name = factory.Sequence(lambda n: f"Test GPU {n}")
    source = "test fixture"
    vendor = "NVIDIA"
    tdp_w = 700.0
    memory_gb = 80.0
    memory_bandwidth_tbps = 3.35
    peak_fp8_tflops = 1979.0
    peak_bf16_tflops = 989.0
    peak_fp16_tflops = 989.0
    fp8_support = True
    scaleup_gbps = 900.0
    slowdown_temp_c = 87.0
    shutdown_temp_c = 92.0
    cap_curve = factory.LazyFunction(lambda: [[0.5, 0.7], [1.0, 1.0]])

    class Meta:
        model = models.GPUModel


class NodeModelFactory(factory.django.DjangoModelFactory):
    slug = factory.Sequence(lambda n: f"test-node-{n}")
    name = factory.Sequence(lambda n: f"Test node {n}")
    source = "test fixture"
    gpu_model = factory.SubFactory(GPUModelFactory)
    gpus_per_node = 8
    overhead_w = 4600.0
    nics = 8

    class Meta:
        model = models.NodeModel


class SwitchModelFactory(factory.django.DjangoModelFactory):
    slug = factory.Sequence(lambda n: f"test-switch-{n}")
    name = factory.Sequence(lambda n: f"Test switch {n}")
    source = "test fixture"
    vendor = "NVIDIA"
    fabric = Fabric.INFINIBAND_NDR
    radix = 64
    port_speed_gbps = 400.0
    power_w_copper = 747.0
    power_w_optics = 1500.0

    class Meta:
        model = models.SwitchModel


class LinkMediumFactory(factory.django.DjangoModelFactory):
    slug = factory.Sequence(lambda n: f"test-medium-{n}")
    name = factory.Sequence(lambda n: f"Test medium {n}")
    source = "test fixture"
    kind = MediumKind.OPTICAL
    max_reach_m = 50.0
    power_w_per_end = 12.0
    relative_cost = 1.0
    mtbf_hours = 43_800.0
    is_optical = True

    class Meta:
        model = models.LinkMedium


class FailureRateFactory(factory.django.DjangoModelFactory):
    dataset = "test-dataset"
    component = factory.Sequence(lambda n: f"component-{n}")
    per = FailureUnit.GPU
    mtbf_hours = 100_000.0
    source = "test fixture"

    class Meta:
        model = models.FailureRate


# ---------------------------------------------------------------- sites


class CampusFactory(factory.django.DjangoModelFactory):
    name = factory.Sequence(lambda n: f"Campus {n}")
    grid_capacity_mw = 150.0

    class Meta:
        model = models.Campus


class UtilityFeedFactory(factory.django.DjangoModelFactory):
    campus = factory.SubFactory(CampusFactory)
    name = factory.Sequence(lambda n: f"Utility {n}")
    capacity_mw = 100.0

    class Meta:
        model = models.UtilityFeed


class BuildingFactory(factory.django.DjangoModelFactory):
    campus = factory.SubFactory(CampusFactory)
    name = factory.Sequence(lambda n: f"Building {n}")

    class Meta:
        model = models.Building


class DataHallFactory(factory.django.DjangoModelFactory):
    building = factory.SubFactory(BuildingFactory)
    name = factory.Sequence(lambda n: f"Hall {n}")
    width_m = 40.0
    length_m = 60.0

    class Meta:
        model = models.DataHall


class RowFactory(factory.django.DjangoModelFactory):
    hall = factory.SubFactory(DataHallFactory)
    name = factory.Sequence(lambda n: f"Row {n}")

    class Meta:
        model = models.Row


class RackFactory(factory.django.DjangoModelFactory):
    hall = factory.SubFactory(DataHallFactory)
    campus = factory.LazyAttribute(lambda o: o.hall.building.campus)
    name = factory.Sequence(lambda n: f"R{n:05d}")
    x_m = factory.Sequence(lambda n: float(n % 40))
    y_m = factory.Sequence(lambda n: float((n // 40) % 60))
    cooling_type = CoolingType.DIRECT_TO_CHIP
    design_kw = 60.0

    class Meta:
        model = models.Rack


# ---------------------------------------------------------------- power and cooling


class PowerDeviceFactory(factory.django.DjangoModelFactory):
    campus = factory.SubFactory(CampusFactory)
    name = factory.Sequence(lambda n: f"PDU-{n}")
    kind = PowerDeviceKind.PDU
    rated_kw = 300.0

    class Meta:
        model = models.PowerDevice


class EnergyStorageFactory(factory.django.DjangoModelFactory):
    campus = factory.SubFactory(CampusFactory)
    name = factory.Sequence(lambda n: f"BESS-{n}")
    power_mw = 5.0
    energy_mwh = 10.0

    class Meta:
        model = models.EnergyStorage


class StorageSystemFactory(factory.django.DjangoModelFactory):
    campus = factory.SubFactory(CampusFactory)
    name = factory.Sequence(lambda n: f"FS-{n}")
    capacity_pb = 10.0
    read_gb_s = 500.0
    write_gb_s = 400.0

    class Meta:
        model = models.StorageSystem


class PowerFeedFactory(factory.django.DjangoModelFactory):
    """A rack feed by default; pass ``downstream_device=…, rack=None`` for a device-to-device feed."""

    rack = factory.SubFactory(RackFactory)
    campus = factory.LazyAttribute(lambda o: (o.rack or o.downstream_device).campus)
    upstream = factory.SubFactory(PowerDeviceFactory, campus=factory.SelfAttribute("..campus"))
    downstream_device = None
    side = FeedSide.A
    rating_kw = 80.0

    class Meta:
        model = models.PowerFeed


class CoolingPlantFactory(factory.django.DjangoModelFactory):
    campus = factory.SubFactory(CampusFactory)
    name = factory.Sequence(lambda n: f"Chiller {n}")
    kind = CoolingPlantKind.CHILLER
    capacity_kw = 5000.0

    class Meta:
        model = models.CoolingPlant


class CoolingUnitFactory(factory.django.DjangoModelFactory):
    campus = factory.SubFactory(CampusFactory)
    name = factory.Sequence(lambda n: f"CDU-{n}")
    kind = CoolingUnitKind.CDU
    capacity_kw = 1500.0

    class Meta:
        model = models.CoolingUnit


# ---------------------------------------------------------------- compute and network


class NodeFactory(factory.django.DjangoModelFactory):
    rack = factory.SubFactory(RackFactory)
    node_model = factory.SubFactory(NodeModelFactory)
    name = factory.Sequence(lambda n: f"node-{n:06d}")

    class Meta:
        model = models.Node


class PodFactory(factory.django.DjangoModelFactory):
    campus = factory.SubFactory(CampusFactory)
    name = factory.Sequence(lambda n: f"Pod {n}")

    class Meta:
        model = models.Pod


class SwitchFactory(factory.django.DjangoModelFactory):
    campus = factory.SubFactory(CampusFactory)
    name = factory.Sequence(lambda n: f"leaf-{n}")
    tier = SwitchTier.LEAF
    network = Network.BACKEND
    model = factory.SubFactory(SwitchModelFactory)

    class Meta:
        model = models.Switch


class LinkFactory(factory.django.DjangoModelFactory):
    campus = factory.SubFactory(CampusFactory)
    a_rack = factory.LazyAttribute(lambda o: RackFactory(hall__building__campus=o.campus))
    a_switch = None
    b_switch = factory.SubFactory(SwitchFactory, campus=factory.SelfAttribute("..campus"))
    medium = factory.SubFactory(LinkMediumFactory)
    count = 8
    length_m = 20.0

    class Meta:
        model = models.Link


# ---------------------------------------------------------------- simulations


class ScenarioFactory(factory.django.DjangoModelFactory):
    campus = factory.SubFactory(CampusFactory)
    kind = "grid_limit"
    name = factory.Sequence(lambda n: f"Scenario {n}")
    params = factory.LazyFunction(dict)

    class Meta:
        model = Scenario


class ScheduleFactory(factory.django.DjangoModelFactory):
    scenario = factory.SubFactory(ScenarioFactory)
    name = factory.Sequence(lambda n: f"Schedule {n}")
    crontab = "0 2 * * *"
    replicas = 5

    class Meta:
        model = Schedule
