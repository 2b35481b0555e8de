"""Request rates kept in the process, without a cache round trip per request.

DRF's ``UserRateThrottle`` and ``AnonRateThrottle`` keep each client's request times (a list of up to
``num_requests`` floats) in Django's cache and read and write the whole list on every request: with the
default 6000/min that is pickling up to 6,000 numbers twice per request (on Redis, two round trips as well).
These classes keep the same sliding log — at most ``num_requests`` in any ``duration`` seconds, the same
rates, scopes and ``Retry-After`` — in a deque per client in the process, so a request costs a lock, an
append and the pops of the times that left the window. Like the default cache (local memory) the log is per
process: with several workers a client may make up to that many times the rate.
"""

from __future__ import annotations

import threading
from collections import OrderedDict, deque

from rest_framework.throttling import AnonRateThrottle, UserRateThrottle

MAX_CLIENTS = 10_000

_logs: OrderedDict[str, deque] = OrderedDict()
_lock = threading.Lock()


def forget() -> None:
    with _lock:
        _logs.clear()


class LocalSlidingLogMixin:
    def allow_request(self, request, view) -> bool:
        if self.rate is None:
            return True
        self.key = self.get_cache_key(request, view)
        if self.key is None:
            return True
        self.now = now = self.timer()
        edge = now - self.duration
        with _lock:
            log = _logs.get(self.key)
            if log is None:
                log = _logs[self.key] = deque()
                while len(_logs) > MAX_CLIENTS:
                    _logs.popitem(last=False)
            else:
                _logs.move_to_end(self.key)
            while log and log[0] <= edge:
                log.popleft()
            self._count = len(log)
            self._oldest = log[0] if log else None
            if self._count >= self.num_requests:
                return self.throttle_failure()
            log.append(now)
            return self.throttle_success()

    def throttle_success(self) -> bool:
        return True

    def wait(self) -> float | None:
        remaining = self.duration - (self.now - self._oldest) if self._oldest is not None else self.duration
        available = self.num_requests - self._count + 1
        if available <= 0:
            return None
        return remaining / float(available)


class TwinUserRateThrottle(LocalSlidingLogMixin, UserRateThrottle):
    """``user`` rate per authenticated user (per IP for anonymous requests), kept in the process."""


class TwinAnonRateThrottle(LocalSlidingLogMixin, AnonRateThrottle):
    """``anon`` rate per IP for anonymous requests, kept in the process."""


__all__ = ["TwinAnonRateThrottle", "TwinUserRateThrottle", "forget"]
