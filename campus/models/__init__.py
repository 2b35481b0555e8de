from .branching import BranchBase
from .catalog import FailureRate, GPUModel, LinkMedium, NodeModel, SwitchModel
from .compute import Node
from .cooling import CoolingPlant, CoolingUnit
from .jobs import Job
from .measurements import MeasurementRollup, PrometheusSource
from .network import Link, Pod, Switch
from .power import EnergyStorage, PowerDevice, PowerFeed
from .sites import Building, Campus, DataHall, Rack, Row, UtilityFeed
from .storage import StorageSystem
from .weather import CampusWeather

__all__ = [
    "BranchBase",
    "Building",
    "Campus",
    "CampusWeather",
    "CoolingPlant",
    "CoolingUnit",
    "DataHall",
    "EnergyStorage",
    "FailureRate",
    "GPUModel",
    "Job",
    "Link",
    "MeasurementRollup",
    "LinkMedium",
    "Node",
    "NodeModel",
    "Pod",
    "PowerDevice",
    "PowerFeed",
    "PrometheusSource",
    "Rack",
    "Row",
    "StorageSystem",
    "Switch",
    "SwitchModel",
    "UtilityFeed",
]
