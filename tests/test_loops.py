"""Repetition loops: the detector, and the two decoding options that prevent them (off by default)."""

import gzip

import pytest
import torch
from app_server import LOOPING_SENTENCE

from conftest import random_ids, tiny_model
from model.decoding import beam_search, constrain, greedy, sample
from model.loops import find_loop, find_loop_in
from model.translator import DecodeOptions, available, load_pretrained

# val sentences whose greedy translation loops ("-Rasen-Rasen-Rasen", "Automatautautautomaten",
# "Klavieritititititit"; scripts/val_loops.py)
LOOPING = [LOOPING_SENTENCE, "The vending machines are over there.",
           "There was a large audience at the piano recital last night."]
NORMAL_GERMAN = ["Ein Hund rennt im Schnee.", "Zwei Männer stehen am Strand und sehen sich das Meer an.",
                 "Eine Frau mit einem roten Regenschirm geht an einem kleinen Café vorbei.",
                 "Ein kleines Mädchen klettert in ein Spielhaus aus Holz.", "Kinder spielen Fußball am Strand."]


def bigrams(row):
    return [tuple(row[i:i + 2]) for i in range(len(row) - 1)]


def test_find_loop_on_ids():
    assert find_loop([5, 7, 7, 7, 7, 9]) .__dict__ == {"start": 1, "period": 1, "repeats": 4}
    lp = find_loop([1, 2, 3, 4, 3, 4, 3, 4, 5])
    assert (lp.start, lp.period, lp.repeats, lp.end) == (2, 2, 3, 8)
    assert find_loop([1, 2, 3, 1, 2, 4]) is None and find_loop([]) is None
    assert find_loop([7, 7, 8]) is None  # twice is not a loop
    assert find_loop([5, 9, 9, 9, 6], quiet={9}) is None  # "..." or "999": punctuation and digits are quiet
    assert find_loop([9, 4, 9, 4, 9, 4], quiet={9}).__dict__ == {"start": 0, "period": 2, "repeats": 3}  # not all quiet


@pytest.mark.skipif("en-de" not in available(), reason="needs en-de's tokenizer")
def test_the_detector_flags_the_reported_loops_and_no_normal_sentence():
    tok = load_pretrained("en-de").tokenizer
    for looped in ("… der auf dem er er er er er er er er er er er er er er erwick wurde.", "Ein Holzhaushaushaus.",
                   "er er er er"):
        assert find_loop_in(tok, tok.encode(looped)) is not None, looped
    for ok in NORMAL_GERMAN + ["Warte ... bitte!!! Es ist 1999."]:
        assert find_loop_in(tok, tok.encode(ok)) is None, ok


@pytest.mark.skipif("en-de" not in available(), reason="needs en-de's tokenizer")
def test_no_human_reference_of_multi30k_is_flagged():
    """False-positive rate on human translations: 0 of 1,014 val and 0 of 1,000 test_2016 references (when the
    data is beside the repo; the rule was chosen on val)."""
    from training.data import DEFAULT_DATA_DIR

    tok = load_pretrained("en-de").tokenizer
    found = 0
    for split in ("val", "test_2016_flickr"):
        path = DEFAULT_DATA_DIR / f"{split}.de.gz"
        if not path.is_file():
            continue
        refs = [line.strip() for line in gzip.open(path, "rt", encoding="utf-8")]
        flagged = [r for r in refs if find_loop_in(tok, tok.encode(r))]
        assert flagged == [], flagged[:3]
        found += 1
    if not found:
        pytest.skip("Multi30k is not beside the repo")


def test_constrain_matches_its_definition():
    logits = torch.tensor([[2.0, -1.0, 0.5, 3.0, -2.0, 1.0]])
    ys = torch.tensor([[2, 1, 3, 1]])  # BOS, then 1, 3, 1
    out = constrain(logits.clone(), ys, repetition_penalty=2.0)
    want = logits.clone()
    want[0, 1], want[0, 3] = -2.0, 1.5  # seen: negative x p, positive / p
    assert torch.equal(out, want)
    out = constrain(logits.clone(), torch.tensor([[2, 1, 3, 1]]), no_repeat_ngram_size=2)
    assert out[0, 3] == float("-inf") and torch.isfinite(out[0, [0, 1, 2, 4, 5]]).all()  # (1, 3) is taken
    assert torch.equal(constrain(logits.clone(), ys), logits)  # defaults: unchanged


def test_no_repeat_ngram_size_2_never_repeats_a_bigram_in_any_decoder():
    model = tiny_model()
    src = random_ids(4, 7, seed=3)
    plain, _ = greedy(model, src, 30, trace_top_k=0)
    assert any(len(bigrams(r)) != len(set(bigrams(r))) for r in plain)  # a random model loops: the test can fail
    outs, _ = greedy(model, src, 30, trace_top_k=0, no_repeat_ngram_size=2)
    for i in range(4):
        outs.append(beam_search(model, src[i:i + 1], 3, 30, no_repeat_ngram_size=2)[0])
        outs.append(sample(model, src[i:i + 1], 30, seed=i, no_repeat_ngram_size=2)[0])
    for row in outs:
        assert len(bigrams(row)) == len(set(bigrams(row))), row


@pytest.mark.skipif("en-de" not in available(), reason="needs en-de")
def test_the_options_stop_the_models_own_loops():
    tr = load_pretrained("en-de")
    for text in LOOPING:
        assert find_loop_in(tr.tokenizer, tr.tokenizer.encode(tr.translate(text))) is not None, text
        for opts in (DecodeOptions(no_repeat_ngram_size=2), DecodeOptions(repetition_penalty=1.5)):
            assert find_loop_in(tr.tokenizer, tr.tokenizer.encode(tr.translate(text, opts))) is None, (text, opts)
    with pytest.raises(ValueError, match="repetition penalty"):
        DecodeOptions(repetition_penalty=0.5).check()
    with pytest.raises(ValueError, match="n-gram"):
        DecodeOptions(no_repeat_ngram_size=-1).check()
