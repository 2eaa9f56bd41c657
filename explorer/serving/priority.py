"""Translations first: a view that only redraws (Inside a head, bertviz) waits while a translation runs.

A class clicks Translate within seconds; each student's first heatmap needs only their own Translate, while
their opened tabs can wait. Gradio's queue is first come, first served within a concurrency group, so app.py
puts those views in their own group ("views", one at a time) and each of them first waits here, up to
MAX_WAIT_S, until no translation is running. Nothing here runs the model; model work keeps its own gate
(store.model_slot).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

MAX_WAIT_S = 5.0  # a view never waits longer than this, however busy the class

_cond = threading.Condition()
_translating = 0


@contextmanager
def translating() -> Iterator[None]:
    """Around a Translate: views wait until it is done."""
    global _translating
    with _cond:
        _translating += 1
    try:
        yield
    finally:
        with _cond:
            _translating -= 1
            if _translating == 0:
                _cond.notify_all()


def after_translations(max_wait: float = MAX_WAIT_S) -> bool:
    """Wait until no translation runs (at most ``max_wait`` seconds); -> whether none was running at the end."""
    with _cond:
        return _cond.wait_for(lambda: _translating == 0, timeout=max_wait)


def running() -> int:
    with _cond:
        return _translating
