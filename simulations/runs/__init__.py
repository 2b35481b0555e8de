"""What the API and the Celery tasks do with runs. Views and tasks stay thin and call in here.

A run's life: ``launch.launch_run`` stores it *queued* and sends ``start_run`` once the transaction commits;
``dispatch.start`` builds the campus snapshot once, stores it on the run, cuts the replicas into chunks and
fans the chunks out (one ``run_chunk`` task each). ``execute.execute_chunk`` stores every replica it finishes
in its own transaction, with the Run row locked (``select_for_update``), so counting what is stored and
deciding "that was the last one" is never racy: the transaction that stores the last replica calls
``results.finalize``, which aggregates, writes the summary and series and marks the run succeeded. Every step
reads what is left to do from the database, so a redelivered or re-sent task repeats nothing that is already
stored. ``reaper.reap_stale_runs`` re-sends the chunks of a worker that died and fails a run that keeps
losing its workers, so no run stays *running* for ever.

Tasks are sent by name (``dispatch``), so nothing here imports ``simulations.tasks``.
"""

from .confidence import ConfidenceTargetError, schedule_target_errors
from .config import (
    DEFAULT_REPLICAS,
    RunFinishedError,
    RunStopped,
    campus_params_errors,
    default_replicas,
    in_service_errors,
    kinds,
)
from .dispatch import start
from .execute import execute_chunk
from .launch import cancel_run, fail_run, launch_run, run_schedule
from .reaper import reap_stale_runs
from .results import compare_runs, explanation, series_labels, series_metrics, timeseries
from .sweeps import SweepError, sweep_campus_errors

__all__ = [
    "ConfidenceTargetError",
    "DEFAULT_REPLICAS",
    "RunFinishedError",
    "RunStopped",
    "SweepError",
    "campus_params_errors",
    "cancel_run",
    "compare_runs",
    "default_replicas",
    "execute_chunk",
    "explanation",
    "fail_run",
    "in_service_errors",
    "kinds",
    "launch_run",
    "reap_stale_runs",
    "run_schedule",
    "schedule_target_errors",
    "series_labels",
    "series_metrics",
    "start",
    "sweep_campus_errors",
    "timeseries",
]
