"""Keep the server's resident memory close to what it holds: fewer malloc arenas, freed pages returned.

CPython frees large response strings and tensors back to glibc malloc, which keeps the pages in
per-thread arenas; with Gradio's worker threads, RSS then grows long after the data is gone. Two
glibc calls bound that: at most two arenas, and malloc_trim after large work. No-ops elsewhere.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import threading
import time

_M_ARENA_MAX = -8
_libc = None
_last = 0.0
_due: threading.Timer | None = None  # the trim a call inside the last second left for its end
_lock = threading.Lock()


def _load():
    global _libc
    if _libc is None:
        try:
            _libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
            _libc.malloc_trim  # noqa: B018 - glibc only
        except (OSError, AttributeError):
            _libc = False
    return _libc


def limit_arenas(n: int = 2) -> None:
    libc = _load()
    if libc:
        libc.mallopt(_M_ARENA_MAX, n)


def trim(every_s: float = 1.0) -> None:
    """Return freed memory to the system, at most once a second (it walks the heap). A call inside that second is
    not lost: one trim is due at its end, so the last of a burst of requests (an attribution finishing just after
    another request) is trimmed too (the siege kept +98 MB when its last attributions ended inside the second)."""
    global _last, _due
    libc = _load()
    if not libc:
        return
    with _lock:
        now = time.monotonic()
        wait = _last + every_s - now
        if wait > 0:
            if _due is None:
                _due = threading.Timer(wait, _trim_due, (every_s,))
                _due.daemon = True
                _due.start()
            return
        _last = now
    libc.malloc_trim(0)


def _trim_due(every_s: float) -> None:
    global _due
    with _lock:
        _due = None
    trim(every_s)
