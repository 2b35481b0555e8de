"""API serializers, one module per domain (NetBox ``api/serializers_``)."""

from .catalog import (
    FailureRateSerializer,
    GPUModelSerializer,
    LinkMediumSerializer,
    NodeModelSerializer,
    SwitchModelSerializer,
)
from .compute import NodeSerializer
from .cooling import CoolingPlantSerializer, CoolingUnitSerializer
from .network import LinkSerializer, PodSerializer, SwitchSerializer
from .power import EnergyStorageSerializer, PowerDeviceSerializer, PowerFeedSerializer
from .sites import (
    BuildingSerializer,
    CampusSerializer,
    DataHallSerializer,
    RackSerializer,
    RowSerializer,
    UtilityFeedSerializer,
)
from .users import UserSerializer

__all__ = [
    "BuildingSerializer",
    "CampusSerializer",
    "CoolingPlantSerializer",
    "CoolingUnitSerializer",
    "DataHallSerializer",
    "EnergyStorageSerializer",
    "FailureRateSerializer",
    "GPUModelSerializer",
    "LinkMediumSerializer",
    "LinkSerializer",
    "NodeModelSerializer",
    "NodeSerializer",
    "PodSerializer",
    "PowerDeviceSerializer",
    "PowerFeedSerializer",
    "RackSerializer",
    "RowSerializer",
    "SwitchModelSerializer",
    "SwitchSerializer",
    "UserSerializer",
    "UtilityFeedSerializer",
]
