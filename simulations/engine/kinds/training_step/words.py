"""What training_step's metrics mean (``METRICS``) and what a finished run showed (``explain``)."""

from __future__ import annotations

from simulations.engine.kinds.training_step.params import TrainingStepParams
from simulations.engine.words import Metric, Summary, num, pct

M = Metric

METRICS: dict[str, Metric] = {
    "step_s": M("Step time", "s", "One optimizer step of the job on the campus's GPUs.", False),
    "mfu": M("MFU", "fraction", "Model FLOPs per second over the GPUs' dense peak.", True),
    "tokens_per_s": M("Tokens per second", "tokens/s", "Tokens the job trains on per second.", True),
    "days": M("Days for the budget", "d", "Days to train on the token budget, without failures.", False),
    "gpus": M(
        "GPUs", "", "GPUs the job runs on (a multiple of TP x PP x CP the batch can split over).", None
    ),
    "compute_fraction": M("Compute share", "fraction", "Share of the step the GPUs compute.", True),
    "bubble_fraction": M(
        "Pipeline bubble", "fraction", "Share of the step lost to the pipeline bubble.", False
    ),
    "exposed_comm_fraction": M(
        "Exposed communication", "fraction", "Share of the step spent waiting on collectives.", False
    ),
    "linearity": M(
        "Scaling efficiency",
        "fraction",
        "Tokens/s per GPU at the job's size over that at the smallest size.",
        True,
    ),
    "checkpoint_write_s": M("Checkpoint write", "s", "A blocking checkpoint to the storage.", False),
    "restart_s": M("Restart", "s", "Relaunch plus reading the last checkpoint back.", False),
}


def explain(s: Summary, p: TrainingStepParams) -> list[str]:
    out = [
        f"{p.model} with TP {p.tp}, PP {p.pp}, CP {p.cp}, EP {p.ep}, global batch {num(p.global_batch)} on "
        f"{num(s.mean('gpus') or 0)} GPUs: one step takes {num(s.mean('step_s') or 0)} s at "
        f"{pct(s.mean('mfu') or 0)} MFU."
    ]
    bubble, comm = s.mean("bubble_fraction") or 0.0, s.mean("exposed_comm_fraction") or 0.0
    out.append(f"The pipeline bubble takes {pct(bubble)} of the step and exposed communication {pct(comm)}.")
    days = s.mean("days")
    if days:
        out.append(f"The token budget takes {num(days)} days without failures.")
    lin = s.mean("linearity")
    if lin is not None:
        out.append(
            f"Scaling efficiency at the job's size: {pct(lin)} of the smallest size's tokens/s per GPU."
        )
    return out
