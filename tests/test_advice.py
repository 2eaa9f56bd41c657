"""What the page tells a learner before they trust a translation: loops, low confidence, per-token probability."""

import math

import pytest

from explorer import handlers as h
from explorer.advice import LOW_CONFIDENCE, advice, confidence_chips, mean_logprob, token_probs
from explorer.request import Request
from model.translator import available

pytestmark = pytest.mark.skipif("en-de" not in available(), reason="needs the shipped en-de checkpoint")


def shown(text: str):
    return h.analysis(Request.parse(text, "en-de"))


def test_a_caption_gets_no_warning_and_its_pieces_carry_their_probabilities():
    a = shown("A dog is running in the snow.")
    assert advice(a) == []
    probs = [s.chosen_prob for s in a.trace.steps]
    assert token_probs(a) == probs and len(probs) == len(a.out_tokens)
    html = h.tokens_html(a)
    for p in probs:
        assert f"p = {p:.2f} when chosen" in html
    assert mean_logprob(a) == pytest.approx(sum(math.log(p) for p in probs) / len(probs))


def test_a_loop_is_named_with_what_to_try():
    a = shown("People are all standing together in front of a statue of an animal, and they are all wearing "
              "cool-weather clothing.")  # "tragen alle alle alle Kleidung"
    words = advice(a)
    assert any("repeats “alle” 3 times" in w and "beam search" in w for w in words), words
    assert "repetition loop" in h.tokens_html(a)


def test_a_sentence_from_outside_the_captions_is_flagged_as_unsure():
    for text in ("My grandmother bought a new computer yesterday.", "The stock market fell sharply after the announcement."):
        a = shown(text)
        assert mean_logprob(a) < LOW_CONFIDENCE, text
        assert any("unsure" in w and "image captions" in w for w in advice(a)), text


def test_chips_escape_the_pieces():
    class Fake:
        out_tokens = ["▁<img", "</s>"]

        class trace:
            steps = [type("S", (), {"chosen_prob": 0.5})(), type("S", (), {"chosen_prob": 0.9})()]

    html = confidence_chips(Fake())
    assert "<img" not in html and "&lt;img" in html
