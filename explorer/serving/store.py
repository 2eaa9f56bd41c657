"""The bounded analysis store: one decode with capture per Request, shared read-only by every view.

- Bounded by count and by bytes of captured tensors (a 100-token analysis holds ~10 MB), least
  recently used first out; pinned requests (the default sentence, the examples) stay.
- Identical requests arriving together are computed once: the others wait for the first.
- Every model computation, whichever event or endpoint asked for it, passes one gate with one slot
  per core (``limits.MODEL_SLOTS``), so a class clicking at once queues instead of oversubscribing.
  Short work goes first; long work runs in chunks and hands its slot to short work between them (FairGate).
- Greedy decodes waiting together run as one batch (explorer/serving/batcher.py): the capture pass then runs
  per request.
"""

from __future__ import annotations

import functools
import itertools
import threading
from collections import OrderedDict
from collections.abc import Callable
from contextlib import contextmanager
from typing import TypeVar

from explorer.serving import limits
from explorer.serving.addresses import address
from explorer.serving.batcher import GreedyBatcher
from explorer.serving.request import Request, UserError, translator
from i18n import DEFAULT, speaking, t
from model.pause import pausing
from model.translator import Analysis

T = TypeVar("T")

class FairGate:
    """MODEL_SLOTS slots for model work, short work first, in turns by address.

    Short work (a Translate, a view) takes the next free slot before any long work that waits. Long work
    (attribution, patching, attention through training: ``long_work()``) runs in chunks, and between chunks
    (``model.pause.between_chunks``) it hands its slot over whenever short work is waiting, then waits for a
    slot again. So a Translate waits for at most one chunk of someone's 40-second attribution, not for all of it.

    Among waiting short work, a free slot goes to the address holding the fewest slots now, then to the one that has
    waited longest: an address keeping every slot busy (60 loops of costly translations, sent again as each was
    answered) no longer keeps the next Translate from anyone else waiting behind its own (helper 63: an honest
    Translate took 10-27 s behind such a flood; the queue before the gate already takes turns, fair_queue.py).
    """

    def __init__(self, slots: int) -> None:
        self.slots = slots
        self.free = slots
        self.waiting: list[tuple[int, str | None]] = []  # short work waiting: (its ticket, its address)
        self.held: dict[str | None, int] = {}  # slots held now, by address
        self.tickets = itertools.count()
        self.cond = threading.Condition()

    @property
    def short_waiting(self) -> int:
        return len(self.waiting)

    def _first(self) -> tuple[int, str | None]:
        return min(self.waiting, key=lambda w: (self.held.get(w[1], 0), w[0]))

    def acquire(self, long: bool, who: str | None = None) -> None:
        with self.cond:
            if long:
                self.cond.wait_for(lambda: self.free > 0 and not self.waiting)
            else:
                me = (next(self.tickets), who)
                self.waiting.append(me)
                try:
                    self.cond.wait_for(lambda: self.free > 0 and self._first() is me)
                finally:
                    self.waiting.remove(me)
                    self.cond.notify_all()  # (another may be first now, with a slot still free)
            self.free -= 1
            self.held[who] = self.held.get(who, 0) + 1

    def release(self, who: str | None = None) -> None:
        with self.cond:
            self.free += 1
            if self.free > self.slots:
                raise RuntimeError("model slot released twice")
            self.held[who] = self.held.get(who, 0) - 1
            if self.held[who] <= 0:
                del self.held[who]
            self.cond.notify_all()

    def pause(self) -> None:
        """Between two chunks of long work that holds a slot: give it to waiting short work, then take one back."""
        if getattr(_long, "held", 0) != 1:  # holds no slot here (or two, which it must keep): nothing to hand over
            return
        with self.cond:
            if not self.waiting:
                return
        who = _who()
        self.release(who)
        self.acquire(long=True, who=who)
        with _count_lock:
            global _yields
            _yields += 1


def _who() -> str | None:
    """The address of the request this thread works for (Gradio's request context), for the gate's turns."""
    try:
        from gradio.context import LocalContext
        request = LocalContext.request.get(None)
    except (ImportError, LookupError):
        return None
    scope = getattr(getattr(request, "request", None), "scope", None) if request is not None else None
    return address(scope) if isinstance(scope, dict) else None


_GATE = FairGate(limits.MODEL_SLOTS)
_running = 0  # model computations inside the gate right now (for tests and benchmarks)
_peak = 0
_yields = 0  # times long work handed its slot to short work (for tests and benchmarks)
_count_lock = threading.Lock()
_long = threading.local()  # .depth > 0 while this thread runs long work


@contextmanager
def long_work():
    """Around long work: its model slots are taken after short work's, and it yields them between chunks."""
    _long.depth = getattr(_long, "depth", 0) + 1
    try:
        with pausing(_GATE.pause):
            yield
    finally:
        _long.depth -= 1


def long(fn: Callable[..., T]) -> Callable[..., T]:
    """A function whose whole model work is long work (``long_work``)."""
    @functools.wraps(fn)
    def wrapped(*args, **kwargs):
        with long_work():
            return fn(*args, **kwargs)
    return wrapped


@contextmanager
def model_slot():
    """Hold one of the MODEL_SLOTS while running the model (long work: after waiting short work)."""
    global _running, _peak
    who = _who()
    _GATE.acquire(long=getattr(_long, "depth", 0) > 0, who=who)
    _long.held = getattr(_long, "held", 0) + 1
    try:
        with _count_lock:
            _running += 1
            _peak = max(_peak, _running)
        try:
            yield
        finally:
            with _count_lock:
                _running -= 1
    finally:
        _long.held -= 1
        _GATE.release(who)


def yields() -> int:
    with _count_lock:
        return _yields


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
            with speaking(DEFAULT):  # shared by every reader: kept in English, each shown in its own (note_text)
                a.note = empty_output_reason(req.method)
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


def empty_output_reason(method: str) -> str:
    """Why a decode wrote no words, in the reader's language."""
    why = t("server.note.why_beam" if method == "beam" else "server.note.why_first")
    return t("server.note.empty", why=why)


def note_text(a: Analysis) -> str:
    """The analysis' note (the decode wrote nothing) in the reader's language; "" when it wrote words."""
    return empty_output_reason(a.options.method) if getattr(a, "note", "") else ""


STORE = AnalysisStore()


def analysis(req: Request) -> Analysis:
    return STORE.get(req)


def require_words(a: Analysis) -> None:
    note = note_text(a)
    if note:
        raise UserError(note)
