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
    """Return freed memory to the system (at most once a second: it walks the heap)."""
    global _last
    libc = _load()
    if not libc:
        return
    with _lock:
        now = time.monotonic()
        if now - _last < every_s:
            return
        _last = now
    libc.malloc_trim(0)
