"""What the page tells a learner before they trust a translation: loops, low confidence, per-token probability."""

import dataclasses
import gzip
import json
import math
import shutil

import numpy as np
import pytest
import torch

from explorer import handlers as h
from explorer.advice import advice, confidence_chips, mean_logprob, token_probs
from explorer.request import Request
from model import calibration
from model.checkpoint import METRICS, CheckpointError
from model.translator import CHECKPOINTS, DecodeOptions, available, load_pretrained

needs_en_de = pytest.mark.skipif("en-de" not in available(), reason="needs the shipped en-de checkpoint")


def shown(text: str):
    return h.analysis(Request.parse(text, "en-de"))


@needs_en_de
def test_a_caption_gets_no_warning_and_its_pieces_carry_their_probabilities():
    a = shown("A dog is running in the snow.")
    assert advice(a) == []
    probs = [s.chosen_prob for s in a.trace.steps]
    assert token_probs(a) == probs and len(probs) == len(a.out_tokens)
    html = h.tokens_html(a)
    for p in probs:
        assert f"p = {p:.2f} when chosen" in html
    assert mean_logprob(a) == pytest.approx(sum(math.log(p) for p in probs) / len(probs))


@needs_en_de
def test_a_loop_is_named_with_what_to_try():
    a = shown("People are all standing together in front of a statue of an animal, and they are all wearing "
              "cool-weather clothing.")  # "tragen alle alle alle Kleidung"
    words = advice(a)
    assert any("repeats “alle” 3 times" in w and "beam search" in w for w in words), words
    assert "repetition loop" in h.tokens_html(a)


@needs_en_de
def test_a_sentence_from_outside_the_captions_is_flagged_as_unsure():
    cal = load_pretrained("en-de").calibration
    assert cal is not None and cal.split == "val" and cal.quantile == 0.05
    for text in ("My grandmother bought a new computer yesterday.", "The stock market fell sharply after the announcement."):
        a = shown(text)
        assert mean_logprob(a) < cal.floor, text
        words = [w for w in advice(a) if "unsure" in w]
        assert len(words) == 1, advice(a)
        assert f"about {math.exp(mean_logprob(a)):.2f}" in words[0] and f"above {math.exp(cal.floor):.2f}" in words[0]
        assert "picture descriptions (Multi30k)" in words[0]  # the model's own task hint, not a fixed sentence


@needs_en_de
def test_the_warning_follows_the_models_own_floor_and_is_absent_without_one():
    a = shown("A dog is running in the snow.")
    m = mean_logprob(a)
    just_above = dataclasses.replace(a.calibration, floor=m + 1e-6)
    assert any("unsure" in w for w in advice(dataclasses.replace(a, calibration=just_above)))
    just_below = dataclasses.replace(a.calibration, floor=m - 1e-6)
    assert not any("unsure" in w for w in advice(dataclasses.replace(a, calibration=just_below)))
    assert not any("unsure" in w for w in advice(dataclasses.replace(a, calibration=None)))


def test_an_uncalibrated_model_never_says_unsure():
    """toy-reverse has no calibration: even text it cannot read (its mean log-probability far below en-de's floor)
    gets no "unsure" warning, rather than a floor measured on another model."""
    tr = load_pretrained("toy-reverse")
    assert tr.calibration is None and calibration.KEY not in tr.metrics
    a = h.analysis(Request.parse("Zebras quietly debate quantum chromodynamics", "toy-reverse"))
    assert mean_logprob(a) < -1.0
    assert a.calibration is None and not any("unsure" in w for w in advice(a))


def test_calibrate_takes_the_quantile_of_the_scores():
    rng = np.random.default_rng(0)
    scores = list(-rng.gamma(2.0, 0.2, size=1000))
    cal = calibration.calibrate(scores, "val", 0.05)
    below = sum(s < cal.floor for s in scores) / len(scores)
    assert abs(below - 0.05) <= 0.002  # independent of np.quantile: count what falls below
    assert sorted(scores)[499] <= cal.median + 1e-4 and cal.median - 1e-4 <= sorted(scores)[500]
    assert (cal.split, cal.sentences, cal.quantile) == ("val", 1000, 0.05)
    assert calibration.read_calibration({"confidence": cal.to_dict()}, "m") == cal
    with pytest.raises(ValueError, match="too few"):
        calibration.calibrate(scores[:50], "val")
    with pytest.raises(ValueError, match="quantile"):
        calibration.calibrate(scores, "val", 0.7)


@pytest.mark.parametrize("broken", [{"low_mean_logprob": "low"}, {"low_mean_logprob": 0.5}, "yes",
                                    {"low_mean_logprob": -0.2, "median_mean_logprob": -0.5}])
def test_a_malformed_calibration_is_refused_naming_metrics_json(tmp_path, broken):
    folder = tmp_path / "toy"
    shutil.copytree(CHECKPOINTS / "toy-reverse", folder, ignore=shutil.ignore_patterns("work", "snapshots"))
    metrics = json.loads((folder / METRICS).read_text())
    good = {"low_mean_logprob": -1.0, "median_mean_logprob": -0.3, "quantile": 0.05, "split": "val", "sentences": 500}
    metrics["confidence"] = {**good, **broken} if isinstance(broken, dict) else broken
    (folder / METRICS).write_text(json.dumps(metrics))
    with pytest.raises(CheckpointError, match=r"metrics\.json.*confidence"):
        load_pretrained(folder)


@needs_en_de
def test_the_shipped_floor_is_the_5_percent_quantile_of_val_by_an_independent_pass():
    """Recomputed without the greedy traces: each val sentence's greedy output scored in one teacher-forced pass
    (log_softmax of the full forward, pad and BOS excluded), then the quantile counted by hand."""
    from model.data import DEFAULT_DATA_DIR

    path = DEFAULT_DATA_DIR / "val.en.gz"
    if not path.is_file():
        pytest.skip("Multi30k is not beside the repo")
    tr = load_pretrained("en-de")
    src = [line.strip() for line in gzip.open(path, "rt", encoding="utf-8")]
    decoded = [d for i in range(0, len(src), 64) for d in tr.greedy_batch(src[i:i + 64], [DecodeOptions()] * len(src[i:i + 64]))]
    scores = []
    with torch.no_grad():
        for text, (out, trace) in zip(src, decoded):
            s_ids, t_ids = tr._src_ids(text), [tr.cfg.bos_id] + out
            logits = tr.model(torch.tensor([s_ids]), torch.tensor([t_ids]))[0]  # (T, V)
            logits[:, [tr.cfg.pad_id, tr.cfg.bos_id]] = float("-inf")
            logp = torch.log_softmax(logits, -1)
            n = min(len(out) + 1, len(trace.steps))  # EOS scored unless the decode hit its length limit
            chosen = logp[torch.arange(n), torch.tensor(out + [tr.cfg.eos_id])[:n]]
            scores.append(float(chosen.mean()))
    floor = tr.calibration.floor
    assert tr.calibration.sentences == len(src)
    assert abs(sum(s < floor for s in scores) / len(scores) - 0.05) <= 0.002
    k = 0.05 * (len(scores) - 1)  # the quantile lies between the k-th and the next smallest score
    low, high = np.sort(scores)[int(k)], np.sort(scores)[int(k) + 1]
    assert low - 1e-3 <= floor <= high + 1e-3, (low, floor, high)


def test_chips_escape_the_pieces():
    class Fake:
        out_tokens = ["▁<img", "</s>"]

        class trace:
            steps = [type("S", (), {"chosen_prob": 0.5})(), type("S", (), {"chosen_prob": 0.9})()]

    html = confidence_chips(Fake())
    assert "<img" not in html and "&lt;img" in html
