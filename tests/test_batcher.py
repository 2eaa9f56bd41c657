"""explorer/serving/batcher.py and Translator.greedy_batch: decodes that wait together run as one batch, and each sentence
gets exactly what its decode alone gives (the real en-de model)."""

import threading
import time
from contextlib import contextmanager

import pytest

from explorer.serving.batcher import GreedyBatcher
from model.translator import DecodeOptions, load_pretrained

SENTENCES = [
    "A dog is running in the snow.",
    "Two young men are playing soccer on a green field while a crowd watches from the stands.",
    "A woman in a red coat reads a newspaper.",
    "Children play.",
    "An old man with a long white beard is sitting on a bench in the park feeding pigeons.",
    "A group of people stand outside a building.",
]


@pytest.fixture(scope="module")
def tr():
    return load_pretrained("en-de")


def alone(tr, text, opts):
    return tr._decode(tr._src_ids(text), opts)


def same(a, b) -> None:
    (out_a, tr_a), (out_b, tr_b) = a, b
    assert out_a == out_b
    chosen = [s.chosen for s in tr_a.steps]
    assert chosen == [s.chosen for s in tr_b.steps] and chosen[: len(out_a)] == out_a  # (+ EOS when it came)
    assert [s.top_ids for s in tr_a.steps] == [s.top_ids for s in tr_b.steps]
    for x, y in zip(tr_a.steps, tr_b.steps):
        assert x.prefix == y.prefix
        assert max(abs(p - q) for p, q in zip(x.top_probs, y.top_probs)) < 1e-4


def test_a_batch_gives_each_sentence_its_own_decode(tr):
    opts = [DecodeOptions(max_len=n) for n in (None, 4, 60, None, 9, 1)]  # each its own length limit
    batch = tr.greedy_batch(SENTENCES, opts)
    assert len(batch) == len(SENTENCES)
    for text, o, got in zip(SENTENCES, opts, batch):
        want = alone(tr, text, o)
        same(got, want)
        if o.max_len:
            assert len(got[0]) <= o.max_len and len(got[1].steps) <= o.max_len
    assert len(batch[1][0]) == 4 and len(batch[5][0]) == 1  # cut at their limits, as alone
    with pytest.raises(ValueError):
        tr.greedy_batch(SENTENCES[:1], [DecodeOptions(method="beam")])


def test_decodes_arriving_together_run_together(tr):
    slots = []

    @contextmanager
    def slow_slot():  # the first batch holds the gate a while, so the others arrive while it runs
        slots.append(time.monotonic())
        time.sleep(0.3 if len(slots) == 1 else 0)
        yield

    batcher = GreedyBatcher(max_batch=4, slot=slow_slot)
    texts = SENTENCES * 2
    results: dict[int, tuple] = {}

    def run(i):
        results[i] = batcher.decode(tr, texts[i], DecodeOptions())

    first = threading.Thread(target=run, args=(0,))
    first.start()
    time.sleep(0.1)  # the first decode is running: the rest wait for it
    rest = [threading.Thread(target=run, args=(i,)) for i in range(1, len(texts))]
    for t in rest:
        t.start()
    for t in [first, *rest]:
        t.join(30)
    assert sorted(results) == list(range(len(texts)))
    for i, text in enumerate(texts):
        same(results[i], alone(tr, text, DecodeOptions()))
    assert batcher.sizes[1] >= 1 and max(batcher.sizes) == 4  # alone first, then batches of at most max_batch
    assert sum(n * k for n, k in batcher.sizes.items()) == len(texts)
    assert len(slots) < len(texts)  # fewer decodes than sentences


def test_one_failing_sentence_fails_only_its_own_request(tr):
    class Flaky:
        """A translator whose batch fails when it holds the bad sentence; alone, only the bad one fails."""

        def greedy_batch(self, texts, opts):
            if "bad" in texts:
                raise RuntimeError("boom")
            return [([len(t)], None) for t in texts]

    flaky = Flaky()
    gate = threading.Event()

    @contextmanager
    def slot():
        gate.wait(5)
        yield

    batcher = GreedyBatcher(max_batch=8, slot=slot)
    results, errors = {}, {}

    def run(text):
        try:
            results[text] = batcher.decode(flaky, text, DecodeOptions())
        except RuntimeError as e:
            errors[text] = str(e)

    threads = [threading.Thread(target=run, args=(t,)) for t in ("first", "ok", "bad", "fine")]
    for t in threads:
        t.start()
        time.sleep(0.05)
    gate.set()
    for t in threads:
        t.join(10)
    assert errors == {"bad": "boom"}
    assert results == {"first": ([5], None), "ok": ([2], None), "fine": ([4], None)}
    with pytest.raises(ValueError):
        batcher.decode(tr, "A dog.", DecodeOptions(method="sample"))


def test_the_store_batches_greedy_requests_and_analyses_match(tr):
    from explorer.serving import store
    from explorer.serving.request import Request

    reqs = [Request.parse(t + " Again.") for t in SENTENCES]  # not in the store yet
    decoded = lambda: sum(n * k for n, k in store.BATCHER.sizes.items())  # noqa: E731
    before = decoded()
    got = {}
    threads = [threading.Thread(target=lambda r=r: got.__setitem__(r, store.analysis(r))) for r in reqs]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert decoded() - before == len(reqs)  # every greedy request went through the batcher, once
    for r in reqs:
        a, b = got[r], tr.analyze(r.text, r.options())
        assert a.translation == b.translation and a.out_ids == b.out_ids
        same((a.out_ids[:-1], a.trace), (b.out_ids[:-1], b.trace))
