"""One choice set per kind or status, as the spec, the API and the database all spell them."""

from django.db import models


class Status(models.TextChoices):
    ACTIVE = "active", "Active"
    PLANNED = "planned", "Planned"
    OFFLINE = "offline", "Offline"
    FAILED = "failed", "Failed"


class NodeStatus(models.TextChoices):
    ACTIVE = "active", "Active"
    SPARE = "spare", "Hot spare"
    FAILED = "failed", "Failed"
    MAINTENANCE = "maintenance", "Maintenance"
    PLANNED = "planned", "Planned"


class CoolingType(models.TextChoices):
    AIR = "air", "Air"
    REAR_DOOR = "rear-door", "Rear-door heat exchanger"
    DIRECT_TO_CHIP = "direct-to-chip", "Direct-to-chip liquid"
    IMMERSION = "immersion", "Immersion"


LIQUID_COOLING_TYPES = (CoolingType.DIRECT_TO_CHIP, CoolingType.IMMERSION)


class PowerDeviceKind(models.TextChoices):
    SUBSTATION = "substation", "Substation"
    TRANSFORMER = "transformer", "Transformer"
    SWITCHGEAR = "switchgear", "Switchgear"
    GENERATOR = "generator", "Generator"
    UPS = "ups", "UPS"
    PDU = "pdu", "PDU"
    BUSWAY = "busway", "Busway"
    RPP = "rpp", "Remote power panel"
    # DC distribution (docs/model.md, "DC power architectures"): MV AC straight to 800 VDC, AC to DC in a
    # power rack (the OCP Mt Diablo sidecar, ±400 VDC), and the DC busway that carries it to the racks.
    SST = "sst", "Solid-state transformer (MV AC to DC)"
    RECTIFIER = "rectifier", "Rectifier / sidecar power rack (AC to DC)"
    DC_BUSWAY = "dc-busway", "DC busway"


class FeedSide(models.TextChoices):
    A = "A", "Side A"
    B = "B", "Side B"
    N = "N", "Single (no redundancy)"


class PowerArchitecture(models.TextChoices):
    """Distribution from medium voltage to the racks (the generator's ``power_architecture``; docs/generator.md)."""

    AC = "ac", "AC (transformer, UPS, PDU)"
    DC_800 = "dc-800", "800 VDC (solid-state transformer, DC busway)"
    DC_400 = "dc-400", "±400 VDC (sidecar power racks, DC busway)"


class CoolingPlantKind(models.TextChoices):
    CHILLER = "chiller", "Chiller"
    DRY_COOLER = "dry-cooler", "Dry cooler"
    COOLING_TOWER = "cooling-tower", "Cooling tower"
    AIR_CHILLER = "air-chiller", "Air-cooled chiller"
    ADIABATIC_COOLER = "adiabatic-cooler", "Dry cooler with adiabatic assist"


class CoolingUnitKind(models.TextChoices):
    CRAH = "crah", "CRAH"
    CDU = "cdu", "Coolant distribution unit"
    REAR_DOOR = "rear-door", "Rear-door heat exchanger"
    IMMERSION = "immersion", "Immersion tank"


class NicKind(models.TextChoices):
    CONNECTX7 = "connectx7", "ConnectX-7"
    BLUEFIELD3 = "bluefield3", "BlueField-3 DPU"
    DUAL_PORT = "dual-port", "Dual-port 2x400G"
    ROCE_200GE = "roce-200ge", "Integrated 200GE RoCE"
    CONNECTX8 = "connectx8", "ConnectX-8 SuperNIC (800G)"


class Fabric(models.TextChoices):
    INFINIBAND_NDR = "infiniband-ndr", "InfiniBand NDR"
    SPECTRUM_X = "spectrum-x", "Spectrum-X Ethernet"
    TOMAHAWK5 = "tomahawk5", "Tomahawk 5 Ethernet"
    ROCE_200GE = "roce-200ge", "RoCE 200GE Ethernet"
    INFINIBAND_XDR = "infiniband-xdr", "InfiniBand XDR (Quantum-X800)"
    SPECTRUM_X800 = "spectrum-x800", "Spectrum-X800 Ethernet (800G)"
    TOMAHAWK6 = "tomahawk6", "Tomahawk 6 Ethernet (800G)"


class Topology(models.TextChoices):
    RAIL_OPTIMIZED = "rail-optimized", "Rail-optimized"
    MIDDLE_OF_RACK = "middle-of-rack", "Middle-of-rack"


class SwitchTier(models.TextChoices):
    LEAF = "leaf", "Leaf (tier 1)"
    SPINE = "spine", "Spine (tier 2)"
    CORE = "core", "Core (tier 3)"
    SUPER_SPINE = "super-spine", "Super-spine (tier 4, inter-island)"
    # a campus layer joining more islands than one switch has ports for takes a second tier
    SUPER_SPINE_2 = "super-spine-2", "Super-spine, second campus tier"


class Network(models.TextChoices):
    BACKEND = "backend", "Back-end GPU fabric"
    FRONTEND = "frontend", "Front-end Ethernet"
    SCALEUP = "scaleup", "Scale-up (NVLink)"


class MediumKind(models.TextChoices):
    COPPER = "copper", "Copper"
    OPTICAL = "optical", "Optical"
    NVLINK = "nvlink", "NVLink"


class FailureUnit(models.TextChoices):
    GPU = "gpu", "per GPU"
    NODE = "node", "per node"
    LINK = "link", "per link"
    SWITCH = "switch", "per switch"
    DEVICE = "device", "per device"


class Redundancy(models.TextChoices):
    """A declared redundancy of the power chain or the cooling (docs/model.md, "Redundancy topologies"):
    N (no spare), N+1 (one spare unit or block per group), 2N (two complete systems)."""

    N = "N", "N"
    N_PLUS_1 = "N+1", "N+1"
    TWO_N = "2N", "2N"


class Climate(models.TextChoices):
    """The shipped reference weather years (campus.analysis.weather.CLIMATES; docs/model.md, "Weather")."""

    MEMPHIS_US = "memphis-us", "Memphis, US"
    PHOENIX_US = "phoenix-us", "Phoenix, US"
    ASHBURN_US = "ashburn-us", "Ashburn (Northern Virginia), US"
    DUBLIN_IE = "dublin-ie", "Dublin, Ireland"
    SINGAPORE_SG = "singapore-sg", "Singapore"
    ULANQAB_CN = "ulanqab-cn", "Ulanqab, China"
    ABILENE_US = "abilene-us", "Abilene (Texas), US"
    COLUMBUS_US = "columbus-us", "Columbus (Ohio), US"


class StorageKind(models.TextChoices):
    PARALLEL_FS = "parallel-fs", "Parallel file system"
    OBJECT_STORE = "object-store", "Object store"
