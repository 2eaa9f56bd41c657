"""Points where long work may give the machine to others: between chunks of integrated gradients, occlusion,
patching and beam search.

The model knows nothing about who else is waiting. Long computations call ``between_chunks()`` between their
chunks; whoever runs them (the app's model gate, explorer/store.py) may set, for the current thread or task,
a function that is called there, which can hand the model slot to shorter work and take it back. Without one,
``between_chunks()`` does nothing, so scripts and training are unaffected.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Iterator
from contextlib import contextmanager

_PAUSE: contextvars.ContextVar[Callable[[], None] | None] = contextvars.ContextVar("between_chunks", default=None)


@contextmanager
def pausing(fn: Callable[[], None]) -> Iterator[None]:
    """Within this block, ``between_chunks()`` calls ``fn``."""
    token = _PAUSE.set(fn)
    try:
        yield
    finally:
        _PAUSE.reset(token)


def between_chunks() -> None:
    fn = _PAUSE.get()
    if fn is not None:
        fn()
