from .branching import BranchBase
from .catalog import FailureRate, GPUModel, LinkMedium, NodeModel, SwitchModel
from .compute import Node
from .cooling import CoolingPlant, CoolingUnit
from .jobs import Job
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
    "LinkMedium",
    "Node",
    "NodeModel",
    "Pod",
    "PowerDevice",
    "PowerFeed",
    "Rack",
    "Row",
    "StorageSystem",
    "Switch",
    "SwitchModel",
    "UtilityFeed",
]
