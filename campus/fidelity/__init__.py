"""The fidelity scorecard: published figures against the twin's own functions, no database.

``make fidelity`` (and ``make test``) runs ``python -m campus.fidelity``; docs/fidelity.md explains
every case, its source and its tolerance.
"""

from campus.fidelity.capex import CASES as CAPEX_CASES
from campus.fidelity.cluster import CASES as CLUSTER_CASES
from campus.fidelity.distribution import CASES as DISTRIBUTION_CASES
from campus.fidelity.dynamics import CASES as DYNAMICS_CASES
from campus.fidelity.facility import CASES as FACILITY_CASES
from campus.fidelity.grid import CASES as GRID_CASES
from campus.fidelity.network_bom import CASES as NETWORK_BOM_CASES
from campus.fidelity.plant import CASES as PLANT_CASES
from campus.fidelity.scorecard import Case, Outcome, evaluate, failed, summary_line, table
from campus.fidelity.step_time import CASES as STEP_TIME_CASES
from campus.fidelity.training import CASES as TRAINING_CASES

CASES: list[Case] = [
    *FACILITY_CASES,
    *DISTRIBUTION_CASES,
    *PLANT_CASES,
    *TRAINING_CASES,
    *STEP_TIME_CASES,
    *CLUSTER_CASES,
    *DYNAMICS_CASES,
    *CAPEX_CASES,
    *NETWORK_BOM_CASES,
    *GRID_CASES,
]

__all__ = ["CASES", "Case", "Outcome", "evaluate", "failed", "run", "summary_line", "table"]


def run() -> list[Outcome]:
    return [evaluate(c) for c in CASES]
