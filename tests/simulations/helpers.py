"""Drive a run through the real task functions in this process, chunk by chunk, as workers would."""

from __future__ import annotations

from simulations.models import Run, RunChunk
from simulations.tasks import run_chunk, start_run


def start(run: Run) -> list[RunChunk]:
    start_run(run.pk)
    return list(RunChunk.objects.filter(run=run).order_by("number"))


def run_all(run: Run, reverse: bool = False) -> Run:
    chunks = start(run)
    for chunk in reversed(chunks) if reverse else chunks:
        run_chunk(run.pk, chunk.indices, chunk.number)
    run.refresh_from_db()
    return run
