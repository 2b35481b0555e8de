"""A synchronous training job: throughput, checkpoints, recovery and the bookkeeping of lost work.

Work is split over the members in proportion to each one's nominal throughput (a heterogeneity-aware
partition), so at full speed every member finishes a step together. A member slowed to a fraction ``f`` of
its nominal speed (power cap, thermal throttle, degraded part) then stretches the step by ``1/f`` for
everyone: the job runs at the pace of its slowest member.

Checkpoint/restart follows the classic model of Young (1974) and Daly (FGCS 2006): the job alternates
``tau`` hours of compute with ``delta`` hours of checkpoint write; a failure loses everything since the
last completed checkpoint and costs ``R`` hours of restart. :class:`JobTimeline` does the bookkeeping
analytically, so a simulation only has to tell it when failures and repairs happen.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from campus.analysis.snapshot import GpuSpec

# Precisions to fall back to when a part lacks the requested one (A100 has no FP8).
_PRECISION_FALLBACK = {
    "fp8": ("fp8", "bf16", "fp16"),
    "bf16": ("bf16", "fp16"),
    "fp16": ("fp16", "bf16"),
    "tf32": ("tf32", "fp32"),
    "fp32": ("fp32", "tf32"),
}


def peak_tflops(gpu: GpuSpec, precision: str) -> float:
    """Dense peak of ``gpu`` at ``precision``, falling back to the nearest precision it supports."""
    for p in _PRECISION_FALLBACK.get(precision, (precision,)):
        value = gpu.peak_tflops.get(p)
        if value:
            return float(value)
    return float(max(gpu.peak_tflops.values(), default=0.0))


def cap_throughput_fraction(gpu: GpuSpec, cap_fraction: float) -> float:
    """Throughput at a power cap (fraction of TDP) as a fraction of throughput at TDP.

    Linear interpolation of the GPU model's cap curve, clamped at its ends; a cap below the part's
    minimum settable limit is raised to that minimum (the driver refuses lower limits).
    """
    curve = gpu.cap_curve
    c = max(cap_fraction, gpu.min_cap_fraction)
    if c <= curve[0][0]:
        return curve[0][1]
    for (x0, y0), (x1, y1) in zip(curve, curve[1:], strict=False):
        if c <= x1:
            return y0 + (y1 - y0) * (c - x0) / (x1 - x0) if x1 > x0 else y1
    return curve[-1][1]


def job_tflops(gpus: Mapping[str, GpuSpec], counts: Mapping[str, int], precision: str, mfu: float) -> float:
    """Sustained TFLOPS of a job at full speed: sum over members of peak x MFU."""
    return sum(peak_tflops(gpus[slug], precision) * mfu * n for slug, n in counts.items())


def synchronous_pace(speed_fractions: Mapping[str, float], counts: Mapping[str, int]) -> float:
    """Pace of a synchronous job: the smallest speed fraction among the members present (0 if none)."""
    present = [speed_fractions[s] for s, n in counts.items() if n > 0]
    return min(present) if present else 0.0


# ---------------------------------------------------------------- checkpoint maths


def young_daly_interval_hours(write_hours: float, mtbf_hours: float) -> float:
    """Optimal compute time between checkpoints (Daly 2006, higher-order form of Young's sqrt(2 delta M))."""
    if mtbf_hours <= 0 or not math.isfinite(mtbf_hours):
        return math.inf
    if write_hours <= 0:
        # Free checkpoints: checkpoint as often as a step allows; the caller bounds it by the step time.
        return 0.0
    if write_hours >= 2.0 * mtbf_hours:
        return mtbf_hours
    x = write_hours / (2.0 * mtbf_hours)
    return math.sqrt(2.0 * write_hours * mtbf_hours) * (1.0 + math.sqrt(x) / 3.0 + x / 9.0) - write_hours


def expected_ettr(
    rate_per_hour: float,
    interval_hours: float,
    write_hours: float,
    restart_hours: float,
    during_recovery: bool = True,
) -> float:
    """Expected share of wall time spent on retained compute, memoryless failures (renewal argument).

    A segment of ``tau + delta`` hours must run without a failure to commit ``tau`` hours of work. With
    ``during_recovery`` every failure, also one during a restart, costs a fresh restart: the expected wall
    time per committed segment is ``exp(lambda R) (exp(lambda (tau + delta)) - 1) / lambda`` (Daly 2006,
    eq. 12). Without, a restart always completes: ``exp(lambda (tau + delta)) - 1`` failures per segment
    each add R, so the wall time is ``(exp(lambda (tau + delta)) - 1) (1 / lambda + R)``.
    """
    if rate_per_hour <= 0:
        return interval_hours / (interval_hours + write_hours) if interval_hours + write_hours > 0 else 1.0
    seg = interval_hours + write_hours
    try:
        if not during_recovery:
            wall = math.expm1(rate_per_hour * seg) * (1.0 / rate_per_hour + restart_hours)
            return interval_hours / wall if wall > 0 else 1.0
        wall = math.exp(rate_per_hour * restart_hours) * math.expm1(rate_per_hour * seg) / rate_per_hour
    except OverflowError:
        # exp(x) past x ~ 709: the wall time per segment is beyond any float, the ratio 0 to double precision.
        return 0.0
    return interval_hours / wall


def expected_lost_hours_per_interruption(
    rate_per_hour: float, interval_hours: float, write_hours: float
) -> float:
    """Mean wall time since the last completed checkpoint when a failure strikes a running job.

    For small ``lambda (tau + delta)`` this tends to half the checkpoint period.
    """
    seg = interval_hours + write_hours
    if rate_per_hour <= 0:
        return seg / 2.0
    return 1.0 / rate_per_hour - seg / math.expm1(rate_per_hour * seg)


def in_memory_copy_hours(state_gb: float, fabric_gbps: float) -> float:
    """Time to copy a replacement GPU's state from its peers' HBM over the back-end fabric, h."""
    if fabric_gbps <= 0:
        return 0.0
    return state_gb * 8.0 / fabric_gbps / 3600.0


# ---------------------------------------------------------------- the timeline


def _running_sum(start: float, values: np.ndarray) -> np.ndarray:
    """``start`` then ``start + values[0]``, ``... + values[1]``...: the totals a loop of ``+=`` would reach,
    added in the same order (``np.cumsum`` is sequential, unlike ``np.sum``), so the last one is that loop's."""
    out = np.empty(values.size + 1)
    out[0] = start
    out[1:] = values
    return np.cumsum(out, out=out)


class JobTimeline:
    """Analytic bookkeeping of one job between the events a simulation feeds it.

    ``mode`` is "checkpoint" (a failure rolls back to the last completed checkpoint) or "in_memory"
    (a failure loses only the step in progress; checkpoints are still written for durability).
    Times are hours from the start. Causes are small ints chosen by the caller.
    """

    __slots__ = (
        "interval_h",
        "write_h",
        "seg_h",
        "restart_h",
        "step_h",
        "in_memory",
        "ready_at",
        "waiting",
        "useful_h",
        "lost_work_h",
        "overhead_h",
        "down_h",
        "interruptions",
        "during_recovery",
        "by_cause_count",
        "by_cause_lost_h",
        "last_cause",
        "last_fail_t",
        "trace_t",
        "trace_useful",
        "_trace_blocks",
    )

    def __init__(
        self,
        interval_h: float,
        write_h: float,
        restart_h: float,
        n_causes: int,
        step_h: float = 0.0,
        in_memory: bool = False,
    ) -> None:
        self.interval_h = interval_h
        self.write_h = write_h
        self.seg_h = interval_h + write_h
        self.restart_h = restart_h
        self.step_h = step_h
        self.in_memory = in_memory
        self.ready_at = 0.0  # when the job is (or was) computing again
        self.waiting = False  # down and waiting for capacity (a repair), ready_at undefined
        self.useful_h = 0.0  # committed compute, h
        self.lost_work_h = 0.0  # compute and checkpoint writes thrown away, h
        self.overhead_h = 0.0  # checkpoint writes that were not thrown away, h
        self.down_h = 0.0  # restart and waiting, h
        self.interruptions = 0  # every failure that struck the job, running or not
        self.during_recovery = 0  # those of them that struck while it restarted or waited
        self.by_cause_count = [0] * n_causes
        self.by_cause_lost_h = [0.0] * n_causes  # lost work + downtime per cause, wall h
        self.last_cause = -1
        self.last_fail_t = 0.0
        # (time, committed useful hours) at the start, after every interruption and at the end: the
        # latest points in the two lists, earlier runs of points as array blocks (see ``trace``)
        self.trace_t: list[float] = [0.0]
        self.trace_useful: list[float] = [0.0]
        self._trace_blocks: list[tuple[np.ndarray, np.ndarray]] = []

    def _close_downtime(self, t: float) -> None:
        """Charge the downtime since the previous interruption (up to ``t`` or to the restart) to its cause."""
        if self.last_cause < 0:
            return
        end = t if self.waiting or t < self.ready_at else self.ready_at
        d = end - self.last_fail_t
        if d > 0:
            self.down_h += d
            self.by_cause_lost_h[self.last_cause] += d

    def _bank(self, t: float, interrupted: bool) -> float:
        """Commit the work done since the job came up; return the work lost if ``interrupted``."""
        elapsed = t - self.ready_at
        seg = self.seg_h
        if seg > 0 and math.isfinite(seg):
            k = math.floor(elapsed / seg)
            rem = elapsed - k * seg
        else:
            k, rem = 0, elapsed
        compute_rem = rem if rem < self.interval_h else self.interval_h
        writing = rem - compute_rem  # time spent on a checkpoint write still in progress
        self.overhead_h += k * self.write_h
        if not interrupted:
            self.useful_h += k * self.interval_h + compute_rem
            self.overhead_h += writing
            return 0.0
        if self.in_memory:
            # only the step in progress is lost (none while a checkpoint is being written, which is wasted)
            lost = compute_rem % self.step_h if self.step_h > 0 and writing == 0 else 0.0
            self.useful_h += k * self.interval_h + compute_rem - lost
            self.overhead_h += writing
            return lost
        self.useful_h += k * self.interval_h
        return rem

    def fail(self, t: float, cause: int, capacity_ok: bool, extra_h: float = 0.0) -> None:
        """A failure that interrupts the job at ``t``; ``capacity_ok`` says whether it can restart now."""
        self._close_downtime(t)
        lost = 0.0
        if not self.waiting and t >= self.ready_at:
            lost = self._bank(t, True)
            self.lost_work_h += lost
        else:
            self.during_recovery += 1
        self.interruptions += 1
        self.by_cause_count[cause] += 1
        self.by_cause_lost_h[cause] += lost
        self.last_cause = cause
        self.last_fail_t = t
        if capacity_ok:
            self.waiting = False
            self.ready_at = t + self.restart_h + extra_h
        else:
            self.waiting = True
        self.trace_t.append(t)
        self.trace_useful.append(self.useful_h)

    def fail_run(self, t: np.ndarray, causes: np.ndarray, extra_h: float = 0.0) -> None:
        """``fail(t[k], causes[k], True, extra_h)`` for every k in order, in a few array operations.

        For a run of failures that each find the capacity to restart at once, with no other event between
        them (so the job is never waiting inside the run). Every total is accumulated in the same order as
        the calls would (running sums with ``np.cumsum``), so the books come out the same to the last bit."""
        n = t.size
        if n == 0:
            return
        if self.waiting:
            raise ValueError("fail_run needs a job that is not waiting for capacity")
        # the state each failure finds: the previous failure's restart, its time and its cause
        prev_ready = np.empty(n)
        prev_ready[0] = self.ready_at
        prev_ready[1:] = t[:-1] + self.restart_h + extra_h
        prev_fail = np.empty(n)
        prev_fail[0] = self.last_fail_t
        prev_fail[1:] = t[:-1]
        # downtime of the interruption before each failure, up to the failure or to the restart
        d = np.where(t < prev_ready, t, prev_ready) - prev_fail
        np.maximum(d, 0.0, out=d)
        if self.last_cause < 0:
            d[0] = 0.0
        # work since the job came up, for the failures that strike a running job
        running = t >= prev_ready
        elapsed = np.where(running, t - prev_ready, 0.0)
        seg = self.seg_h
        if seg > 0 and math.isfinite(seg):
            k = np.floor(elapsed / seg)
            rem = elapsed - k * seg
        else:
            k, rem = np.zeros(n), elapsed
        ckpt_writes = k * self.write_h
        if self.in_memory:
            compute_rem = np.minimum(rem, self.interval_h)
            writing = rem - compute_rem
            if self.step_h > 0:
                lost = np.where(writing == 0, np.remainder(compute_rem, self.step_h), 0.0)
            else:
                lost = np.zeros(n)
            useful = k * self.interval_h + compute_rem - lost
            overhead = np.stack((ckpt_writes, writing), axis=1).ravel()
        else:
            lost = rem
            useful = k * self.interval_h
            overhead = ckpt_writes
        lost = np.where(running, lost, 0.0)
        useful = np.where(running, useful, 0.0)
        if self.in_memory:
            overhead = np.where(np.repeat(running, 2), overhead, 0.0)
        else:
            overhead = np.where(running, overhead, 0.0)
        useful_cum = _running_sum(self.useful_h, useful)
        self.useful_h = float(useful_cum[-1])
        self.down_h = float(_running_sum(self.down_h, d)[-1])
        self.lost_work_h = float(_running_sum(self.lost_work_h, lost)[-1])
        self.overhead_h = float(_running_sum(self.overhead_h, overhead)[-1])
        self.interruptions += n
        self.during_recovery += n - int(np.count_nonzero(running))
        m = len(self.by_cause_count)
        prev_cause = np.empty(n, dtype=np.int64)
        prev_cause[0] = max(self.last_cause, 0)
        prev_cause[1:] = causes[:-1]
        counts = np.bincount(causes, minlength=m)
        lost_by = np.bincount(causes, weights=lost, minlength=m) + np.bincount(
            prev_cause, weights=d, minlength=m
        )
        for c in np.flatnonzero(counts | (lost_by > 0)).tolist():
            self.by_cause_count[c] += int(counts[c])
            self.by_cause_lost_h[c] += float(lost_by[c])
        last = float(t[-1])
        self.last_cause = int(causes[-1])
        self.last_fail_t = last
        self.ready_at = last + self.restart_h + extra_h
        self._trace_block(t, useful_cum[1:])

    def fail_waiting_run(self, t: np.ndarray, causes: np.ndarray) -> None:
        """``fail(t[k], causes[k], False)`` for every k in order, for a job already waiting for capacity
        (no repair between the failures, so it keeps waiting): each one counts as an interruption and
        charges the wait since the previous one to that one's cause."""
        n = t.size
        if n == 0:
            return
        if not self.waiting:
            raise ValueError("fail_waiting_run needs a job that is waiting for capacity")
        prev_fail = np.empty(n)
        prev_fail[0] = self.last_fail_t
        prev_fail[1:] = t[:-1]
        d = t - prev_fail
        np.maximum(d, 0.0, out=d)
        if self.last_cause < 0:
            d[0] = 0.0
        self.down_h = float(_running_sum(self.down_h, d)[-1])
        self.interruptions += n
        self.during_recovery += n
        m = len(self.by_cause_count)
        prev_cause = np.empty(n, dtype=np.int64)
        prev_cause[0] = max(self.last_cause, 0)
        prev_cause[1:] = causes[:-1]
        counts = np.bincount(causes, minlength=m)
        lost_by = np.bincount(prev_cause, weights=d, minlength=m)
        for c in np.flatnonzero(counts | (lost_by > 0)).tolist():
            self.by_cause_count[c] += int(counts[c])
            self.by_cause_lost_h[c] += float(lost_by[c])
        self.last_cause = int(causes[-1])
        self.last_fail_t = float(t[-1])
        self._trace_block(t, np.full(n, self.useful_h))

    def capacity_lost(self, t: float) -> None:
        """Healthy nodes ran short during a restart (a failure elsewhere took them): wait for a repair.
        The downtime so far stays charged to the interruption being recovered."""
        if not self.waiting and t < self.ready_at:
            self._close_downtime(t)
            self.last_fail_t = t
            self.waiting = True

    def capacity_back(self, t: float, extra_h: float = 0.0) -> None:
        """Enough healthy nodes again at ``t``: the restart starts."""
        if self.waiting:
            self.waiting = False
            # the downtime so far stays charged to the interruption that caused the wait
            self.ready_at = t + self.restart_h + extra_h

    def finish(self, t_end: float) -> None:
        """Close the books at the end of the run: work since the last checkpoint counts (it was not lost)."""
        self._close_downtime(t_end)
        if not self.waiting and t_end > self.ready_at:
            self._bank(t_end, False)
        self.last_cause = -1
        self.trace_t.append(t_end)
        self.trace_useful.append(self.useful_h)

    def _trace_block(self, t: np.ndarray, useful: np.ndarray) -> None:
        if self.trace_t:
            self._trace_blocks.append((np.array(self.trace_t), np.array(self.trace_useful)))
            self.trace_t, self.trace_useful = [], []
        self._trace_blocks.append((t, useful))

    def trace(self) -> tuple[np.ndarray, np.ndarray]:
        """Times (h) of the start, every interruption and the end, and the useful hours committed by then."""
        blocks = [*self._trace_blocks, (np.array(self.trace_t), np.array(self.trace_useful))]
        return np.concatenate([b[0] for b in blocks]), np.concatenate([b[1] for b in blocks])

    @property
    def running(self) -> bool:
        return not self.waiting
