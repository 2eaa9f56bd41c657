"""Greedy decodes that arrive together run together, as one batch.

Decoding one token reads every decoder weight and the 8k x 256 output matrix from memory (~15 MB a step);
the arithmetic for one sentence is tiny. A batch of 8 sentences therefore costs about twice one sentence
(bench/decoding.py), and a class clicking Translate within seconds is exactly when many decodes wait.

No timer and no extra thread: the first caller finds the batcher free and decodes what is waiting
(itself); callers that arrive meanwhile wait, and when that batch ends one of them takes everything
waiting for the same model, up to ``max_batch``. A lone user waits for nothing. Each sentence keeps its
own options and length limit, so a batch gives what each decode alone gives
(Translator.greedy_batch; tests/test_batcher.py).
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass

from model.decoding import DecodeTrace
from model.translator import DecodeOptions, Translator

Decoded = tuple[list[int], DecodeTrace]


@dataclass(eq=False)
class _Job:
    tr: Translator
    text: str
    opts: DecodeOptions
    result: Decoded | None = None
    error: BaseException | None = None
    done: bool = False


class GreedyBatcher:
    def __init__(self, max_batch: int, slot: Callable[[], AbstractContextManager] = nullcontext) -> None:
        self.max_batch = max_batch
        self._slot = slot  # held around each batch: the model gate (explorer.serving.store.model_slot)
        self._cond = threading.Condition()
        self._waiting: list[_Job] = []
        self._busy = False
        self.sizes: Counter[int] = Counter()  # batches run, by size (tests, benchmarks)

    def decode(self, tr: Translator, text: str, opts: DecodeOptions) -> Decoded:
        """Greedy-decode ``text`` (in a batch with whatever else is waiting) -> (output ids, trace)."""
        if opts.method != "greedy":
            raise ValueError("the batcher decodes greedy requests only")
        job = _Job(tr, text, opts)
        with self._cond:
            self._waiting.append(job)
            while True:
                while self._busy and not job.done:
                    self._cond.wait()
                if job.done:
                    break
                self._busy = True  # our turn: decode what waits (our job, unless max_batch others came first)
                batch = self._take()
                self._cond.release()
                try:
                    self._run(batch)
                finally:
                    self._cond.acquire()
                    self._busy = False
                    self._cond.notify_all()
        if job.error is not None:
            raise job.error
        assert job.result is not None
        return job.result

    def _take(self) -> list[_Job]:
        first = self._waiting[0]
        same = lambda j: j.tr is first.tr and j.opts.constraints == first.opts.constraints  # noqa: E731
        batch = [j for j in self._waiting if same(j)][: self.max_batch]
        taken = set(map(id, batch))
        self._waiting = [j for j in self._waiting if id(j) not in taken]
        return batch

    def _run(self, batch: list[_Job]) -> None:
        tr = batch[0].tr
        try:
            with self._slot():
                results = tr.greedy_batch([j.text for j in batch], [j.opts for j in batch])
        except Exception as e:  # handed to the callers, who raise it in their own requests
            if len(batch) == 1:
                batch[0].error = e
            else:  # one sentence's failure stays its own: decode each alone
                for j in batch:
                    _alone(j, self._slot)
        else:
            for j, r in zip(batch, results, strict=True):
                j.result = r
        finally:
            for j in batch:
                j.done = True
            with self._cond:
                self.sizes[len(batch)] += 1


def _alone(job: _Job, slot: Callable[[], AbstractContextManager]) -> None:
    try:
        with slot():
            job.result = job.tr.greedy_batch([job.text], [job.opts])[0]
    except Exception as e:
        job.error = e
