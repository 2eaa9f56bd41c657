"""The bounded analysis store: one decode with capture per Request, shared read-only by every view.

- Bounded by count and by bytes of captured tensors (a 100-token analysis holds ~10 MB), least
  recently used first out; pinned requests (the default sentence, the examples) stay.
- Identical requests arriving together are computed once: the others wait for the first.
- Every model computation, whichever event or endpoint asked for it, passes one gate with one slot
  per core (``limits.MODEL_SLOTS``), so a class clicking at once queues instead of oversubscribing.
- Greedy decodes waiting together run as one batch (explorer/batcher.py): the capture pass then runs
  per request.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from contextlib import contextmanager
from typing import TypeVar

from explorer import limits
from explorer.batcher import GreedyBatcher
from explorer.request import Request, UserError, translator
from model.translator import Analysis

T = TypeVar("T")

_GATE = threading.BoundedSemaphore(limits.MODEL_SLOTS)
_running = 0  # model computations inside the gate right now (for tests and benchmarks)
_peak = 0
_count_lock = threading.Lock()


@contextmanager
def model_slot():
    """Hold one of the MODEL_SLOTS while running the model."""
    global _running, _peak
    with _GATE:
        with _count_lock:
            _running += 1
            _peak = max(_peak, _running)
        try:
            yield
        finally:
            with _count_lock:
                _running -= 1


def peak_concurrency(reset: bool = False) -> int:
    """Most model computations seen inside the gate at once (since the last reset)."""
    global _peak
    with _count_lock:
        value = _peak
        if reset:
            _peak = _running
    return value


def run_model(fn: Callable[[], T]) -> T:
    with model_slot():
        return fn()


BATCHER = GreedyBatcher(limits.DECODE_BATCH, slot=model_slot)


def nbytes(a: Analysis) -> int:
    tensors = list(a.cache.values()) + ([a.lens_layers] if a.lens_layers is not None else [])
    return sum(t.numel() * t.element_size() for t in tensors)


class AnalysisStore:
    def __init__(self, max_items: int = limits.ANALYSIS_CACHE, max_bytes: int = limits.ANALYSIS_CACHE_BYTES) -> None:
        self.max_items, self.max_bytes = max_items, max_bytes
        self._items: OrderedDict[Request, tuple[Analysis, int]] = OrderedDict()
        self._pinned: set[Request] = set()
        self._inflight: dict[Request, threading.Event] = {}
        self._lock = threading.Lock()
        self.computed = 0  # decodes run (for tests: identical requests decode once)

    def get(self, req: Request) -> Analysis:
        while True:
            with self._lock:
                if req in self._items:
                    self._items.move_to_end(req)
                    return self._items[req][0]
                waiter = self._inflight.get(req)
                if waiter is None:
                    self._inflight[req] = threading.Event()
                    break
            waiter.wait()  # someone else is computing this very request; then read it from the store
        try:
            a = self._compute(req)
            with self._lock:
                self._items[req] = (a, nbytes(a))
                self.computed += 1
                self._evict()
            return a
        finally:
            with self._lock:
                self._inflight.pop(req).set()

    def pin(self, req: Request) -> Analysis:
        a = self.get(req)
        with self._lock:
            self._pinned.add(req)
        return a

    def _compute(self, req: Request) -> Analysis:
        tr = translator(req.model)
        opts = req.options()
        decoded = BATCHER.decode(tr, req.text, opts) if opts.method == "greedy" and not req.ablated else None
        a = run_model(lambda: tr.analyze(req.text, opts, list(req.ablated), decoded=decoded))
        if not a.out_ids[:-1]:
            a.note = empty_output_reason(req)
        return a

    def _evict(self) -> None:
        total = sum(size for _, size in self._items.values())
        for key in list(self._items):
            if len(self._items) <= self.max_items and total <= self.max_bytes:
                break
            if key in self._pinned:
                continue
            total -= self._items.pop(key)[1]

    def clear(self) -> None:
        with self._lock:
            for key in [k for k in self._items if k not in self._pinned]:
                del self._items[key]

    def stats(self) -> dict[str, int]:
        with self._lock:
            return {"items": len(self._items), "bytes": sum(s for _, s in self._items.values()),
                    "computed": self.computed}


def empty_output_reason(req: Request) -> str:
    why = ("beam search kept the hypothesis that ends at once: its score (sum of log-probabilities, "
           "divided by the length penalty) beat every longer one" if req.method == "beam"
           else "the most likely first token was the end of the sentence")
    return (f"The model produced no words: {why}. This happens when the input is far from the sentences it "
            "was trained on (emoji, symbols, other languages). Try greedy decoding, a smaller beam, a length penalty "
            "closer to 2, or a plain English sentence.")


STORE = AnalysisStore()


def analysis(req: Request) -> Analysis:
    return STORE.get(req)


def require_words(a: Analysis) -> None:
    note = getattr(a, "note", "")
    if note:
        raise UserError(note)
