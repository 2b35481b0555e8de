"""A worker heartbeat that works on every broker: each worker touches a file under var/workers every few
seconds. Used by /api/health/deep/ where the broker has no broadcast (kombu's filesystem transport)."""

import os
import socket
import threading
import time
from pathlib import Path

from celery.signals import worker_ready, worker_shutdown
from django.conf import settings

STALE_AFTER_S = 30
INTERVAL_S = 5
_stop = threading.Event()


def _dir() -> Path:
    path = Path(settings.VAR_DIR) / "workers"
    path.mkdir(parents=True, exist_ok=True)
    return path


def _name() -> str:
    return f"worker@{socket.gethostname()}.{os.getpid()}"


def _beat_forever(name: str) -> None:
    while not _stop.is_set():
        (_dir() / name).write_text(str(time.time()))
        _stop.wait(INTERVAL_S)


def start(**_kwargs) -> None:
    threading.Thread(target=_beat_forever, args=(_name(),), daemon=True, name="twin-heartbeat").start()


def gone(**_kwargs) -> None:
    _stop.set()
    (_dir() / _name()).unlink(missing_ok=True)


def live_workers() -> list[str]:
    now = time.time()
    names = []
    for path in _dir().glob("worker@*"):
        try:
            if now - path.stat().st_mtime < STALE_AFTER_S:
                names.append(path.name)
        except FileNotFoundError:
            continue
    return names


worker_ready.connect(start, weak=False)
worker_shutdown.connect(gone, weak=False)
