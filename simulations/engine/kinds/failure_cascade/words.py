"""What failure_cascade's metrics mean (``METRICS``) and what a finished run showed, in sentences
(``explain``), read off the run's summary (the means over the replicas) and its parameters."""

from __future__ import annotations

from simulations.engine.kinds.failure_cascade.expected import DRY_FLAG
from simulations.engine.kinds.failure_cascade.params import FailureCascadeParams
from simulations.engine.words import (
    NON_NEGATIVE,
    SHARE,
    Metric,
    Summary,
    cause_label,
    duration_h,
    num,
    pct,
    times,
)

M = Metric


METRICS: dict[str, Metric] = {
    "ettr": M(
        "Goodput (ETTR)",
        "fraction",
        "Effective training time ratio: useful time over the run.",
        True,
        bounds=SHARE,
    ),
    "ettr_expected_job_classes": M(
        "Expected ETTR",
        "fraction",
        "The closed-form ETTR for the job's failure rate (Young/Daly).",
        True,
        bounds=SHARE,
    ),
    "ettr_expected": M(
        "Expected ETTR with spares",
        "fraction",
        "Closed form beside the server-pool walk: Daly's renewal formula at the job's rate, averaged over "
        "the run as repairs find the bad servers (two-class renewal), with the waits for repairs once the "
        "nodes in repair exceed every spare (Poisson, M/G/inf) and the spare pool's preemptions.",
        True,
        bounds=SHARE,
    ),
    "spares_run_dry_probability": M(
        "Spares run dry",
        "fraction",
        "Chance that more nodes are in repair than there are standbys and spares (the closed form: Poisson "
        "nodes in repair); above 1 % the closed form is a rough guide and the simulated ETTR the figure to "
        "read.",
        False,
        bounds=SHARE,
    ),
    "working_pool_short_probability": M(
        "Working pool short",
        "fraction",
        "Chance that more nodes are in repair than the standbys and the working pool's idle nodes: the job "
        "then takes nodes from the spare pool (server-pool walk's closed form).",
        False,
        bounds=SHARE,
    ),
    "nodes_in_repair_expected": M(
        "Nodes in repair",
        "",
        "Expected nodes in the repair pipeline at a time (failures per hour x mean repair time).",
        False,
        bounds=NON_NEGATIVE,
    ),
    "preemptions_expected": M(
        "Preemptions expected",
        "",
        "Closed form: nodes the spare pool gives the working pool over the run, once each, as the nodes in "
        "repair first pass each level beyond the standbys and idle nodes (expected up-crossings).",
        False,
        bounds=NON_NEGATIVE,
    ),
    "bad_server_failures_expected": M(
        "Bad-server failures expected",
        "",
        "Closed form: failures of bad nodes over the run, each bad node failing until a repair finds it "
        "(1 / q failures on average, q the chance a repair finds the fault).",
        False,
        bounds=NON_NEGATIVE,
    ),
    "interruptions": M(
        "Interruptions", "", "Failures that stopped the job while it trained.", False, bounds=NON_NEGATIVE
    ),
    "failures_during_recovery": M(
        "Failures during recovery",
        "",
        "Failures of the job's parts while it restarted or waited (each starts the recovery again); none "
        "when failures do not strike during recovery.",
        False,
        bounds=NON_NEGATIVE,
    ),
    "bad_server_failures": M(
        "Bad-server failures",
        "",
        "Failures of nodes that were bad (server-pool walk).",
        False,
        bounds=NON_NEGATIVE,
    ),
    "bad_servers_left": M(
        "Bad servers left",
        "",
        "Bad nodes no repair had fixed by the end (server-pool walk).",
        False,
        bounds=NON_NEGATIVE,
    ),
    "recovery_hours": M(
        "Recovery",
        "h",
        "Time spent recovering after failures (server-pool walk).",
        False,
        bounds=NON_NEGATIVE,
    ),
    "host_selection_hours": M(
        "Host selection",
        "h",
        "Time spent choosing the job's nodes again (server-pool walk).",
        False,
        bounds=NON_NEGATIVE,
    ),
    "preemption_hours": M(
        "Preemption",
        "h",
        "Time spent taking nodes from the spare pool (server-pool walk).",
        False,
        bounds=NON_NEGATIVE,
    ),
    "host_selections": M(
        "Host selections", "", "Times the job's nodes were chosen.", False, bounds=NON_NEGATIVE
    ),
    "preemptions": M("Preemptions", "", "Nodes taken from the spare pool.", False, bounds=NON_NEGATIVE),
    "spare_pool_left": M(
        "Spare pool left", "", "Nodes left in the spare pool at the end.", True, bounds=NON_NEGATIVE
    ),
    "auto_repairs": M(
        "Automatic repairs", "", "Nodes through the automatic repair.", None, bounds=NON_NEGATIVE
    ),
    "manual_repairs": M(
        "Manual repairs", "", "Nodes escalated to a technician's repair.", False, bounds=NON_NEGATIVE
    ),
    "missed_repairs": M(
        "Missed repairs", "", "Repairs that reported success and left the fault.", False, bounds=NON_NEGATIVE
    ),
    "run_days": M("Run length", "d", "Wall time the run lasted.", None, bounds=NON_NEGATIVE),
    "time_to_train_days": M(
        "Time to train",
        "d",
        "Wall time until the work was done (runs with work to do).",
        False,
        bounds=NON_NEGATIVE,
    ),
    "work_done_fraction": M(
        "Work done", "fraction", "Share of the work to do that was done by the end.", True, bounds=SHARE
    ),
    "interruptions_per_day": M(
        "Interruptions per day", "", "Interruptions over the run's days.", False, bounds=NON_NEGATIVE
    ),
    "lost_gpu_hours": M(
        "Lost GPU-hours",
        "GPU-h",
        "Job GPUs times the hours of lost work and downtime.",
        False,
        bounds=NON_NEGATIVE,
    ),
    "mean_lost_hours_per_interruption": M(
        "Lost time per interruption",
        "h",
        "Lost work and downtime per interruption.",
        False,
        bounds=NON_NEGATIVE,
    ),
    "lost_work_hours": M(
        "Lost work",
        "h",
        "Training since the last checkpoint, lost at interruptions.",
        False,
        bounds=NON_NEGATIVE,
    ),
    "downtime_hours": M(
        "Downtime",
        "h",
        "Time the job was down: restarts and recovery, and the waiting for capacity within it.",
        False,
        bounds=NON_NEGATIVE,
    ),
    "waiting_for_capacity_hours": M(
        "Waiting for capacity",
        "h",
        "Time the job waited for enough healthy GPUs (part of the downtime, not on top of it).",
        False,
        bounds=NON_NEGATIVE,
    ),
    "checkpoint_overhead_hours": M(
        "Checkpoint writing", "h", "Time spent writing checkpoints.", False, bounds=NON_NEGATIVE
    ),
    "useful_gpu_hours": M(
        "Useful GPU-hours", "GPU-h", "Job GPUs times the useful hours.", True, bounds=NON_NEGATIVE
    ),
    "useful_eflop": M(
        "Useful work", "EFLOP", "Floating-point operations done for the job.", True, bounds=NON_NEGATIVE
    ),
    "job_gpus": M("Job GPUs", "", "GPUs in the training job.", None, bounds=NON_NEGATIVE),
    "job_nodes": M("Job nodes", "", "Nodes in the training job.", None, bounds=NON_NEGATIVE),
    "spare_nodes": M("Spare nodes", "", "Hot spare nodes held outside the job.", None, bounds=NON_NEGATIVE),
    "job_mtbf_hours_expected": M(
        "Job MTBF", "h", "Expected hours between interruptions of the job.", True, bounds=NON_NEGATIVE
    ),
    "checkpoint_interval_minutes": M(
        "Checkpoint interval", "min", "Time between checkpoints.", None, bounds=NON_NEGATIVE
    ),
    "facility_outages": M(
        "Facility outages", "", "Facility failures that took job racks down.", False, bounds=NON_NEGATIVE
    ),
    # series
    "useful_hours": M("Useful hours", "h", "Useful training time so far.", True),
}


def explain(s: Summary, p: FailureCascadeParams) -> list[str]:
    out = []
    ettr = s.mean("ettr")
    days = s.mean("run_days") or p.duration_days
    ttt = s.mean("time_to_train_days")
    if ttt is not None and p.work_days is not None:
        out.append(
            f"Time to train: {num(ttt)} days for {num(p.work_days)} days of failure-free work "
            f"({num(ttt / p.work_days)}× longer)."
        )
    if ettr is not None:
        out.append(
            f"Goodput: the job did useful training for {pct(ettr)} of the {num(days)} days "
            "(effective training time ratio)."
        )
    expected = s.mean("ettr_expected")
    if expected is None:
        expected = s.mean("ettr_expected_job_classes")
    dry = s.mean("spares_run_dry_probability")
    if expected is not None and dry is not None:
        if dry > DRY_FLAG:
            out.append(
                f"The spares run dry: more nodes are in repair than there are standbys and spares "
                f"{pct(dry)} of the time, so the closed form ({pct(expected)}) is only a rough guide; "
                "read the simulated goodput."
            )
        else:
            out.append(f"Closed form with spares (Daly 2006, spares rarely short): {pct(expected)}.")
    n = s.mean("interruptions")
    causes = s.cause_means()
    if n is not None:
        if n <= 0:
            out.append("No failure interrupted the job.")
        else:
            sentence = f"It was interrupted {times(n)} per replica on average ({num(n / days)} per day)"
            if causes:
                top = ", ".join(f"{cause_label(c)} ({num(v)})" for c, v in causes[:3])
                sentence += f"; the most frequent causes: {top}"
            out.append(sentence + ".")
    # The time not spent training, in parts that do not overlap: the run's hours are useful training plus
    # lost work plus checkpoint writing plus downtime, and the downtime holds the waiting for capacity, so
    # restarts and recovery are the downtime less the waiting.
    down = s.mean("downtime_hours") or 0.0
    waiting = min(s.mean("waiting_for_capacity_hours") or 0.0, down)
    lost = {
        "lost work since the last checkpoint": s.mean("lost_work_hours") or 0.0,
        "restarts and recovery": max(down - waiting, 0.0),
        "waiting for healthy capacity": waiting,
        "writing checkpoints": s.mean("checkpoint_overhead_hours") or 0.0,
    }
    ranked = sorted(((v, k) for k, v in lost.items() if v > 0), reverse=True)
    if ranked:
        total = sum(v for v, _ in ranked)
        v, k = ranked[0]
        out.append(
            f"Most of the {duration_h(total)} not spent training went to {k} ({duration_h(v)}, {pct(v / total)})"
            + (
                f", then {ranked[1][1]} ({duration_h(ranked[1][0])}, {pct(ranked[1][0] / total)})."
                if len(ranked) > 1
                else "."
            )
        )
    return out
