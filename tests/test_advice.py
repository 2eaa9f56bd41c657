"""What the page tells a learner before they trust a translation: loops, low confidence, per-token probability."""

import dataclasses
import gzip
import json
import math
import shutil

import numpy as np
import pytest
import torch
from app_server import LOOPING_SENTENCE, UNSURE_SENTENCES

from explorer.api import handlers as h
from explorer.api.advice import advice, confidence_chips, mean_logprob, token_probs
from explorer.serving.request import Request
from model import calibration
from model.checkpoint import METRICS, WEIGHTS, CheckpointError, sha256
from model.loops import find_loop_in
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
    # the teacher-forced pass agrees with what the incremental greedy decode recorded
    assert mean_logprob(a) == pytest.approx(sum(math.log(p) for p in probs) / len(probs), abs=1e-4)


def a_tokenizer():
    return load_pretrained("en-de").tokenizer


@needs_en_de
def test_a_loop_is_named_with_what_to_try():
    a = shown(LOOPING_SENTENCE)  # "... an einem Fahrradreifen-Rasen-Rasen-Rasen."
    loop = find_loop_in(a_tokenizer(), a.out_ids[:-1])
    assert loop is not None and loop.repeats >= 3
    unit = "".join(a.out_tokens[loop.start:loop.start + loop.period]).replace("▁", " ").strip()
    words = advice(a)
    assert any(f"repeats “{unit}” {loop.repeats} times" in w and "beam search" in w for w in words), words
    assert "repetition loop" in h.tokens_html(a)


@needs_en_de
def test_a_sentence_far_from_the_training_data_is_flagged_as_unsure():
    """Flagged by the fitted estimate (tests/test_quality.py has its details); a model without one falls back to the
    mean log-probability floor, which flags these too."""
    tr = load_pretrained("en-de")
    cal = tr.calibration
    assert cal is not None and cal.quantile == 0.05
    for text in UNSURE_SENTENCES:
        a = shown(text)
        assert [w for w in advice(a) if w.startswith("This translation may well be wrong")], advice(a)
        a = dataclasses.replace(a, quality=None)  # the fallback
        assert mean_logprob(a) < cal.floor, text
        words = [w for w in advice(a) if "unsure" in w]
        assert len(words) == 1, advice(a)
        assert f"about {math.exp(mean_logprob(a)):.2f} each" in words[0]
        assert f"95% get more than {math.exp(cal.floor):.2f}" in words[0] and f"{cal.sentences:,} sentences" in words[0]
        assert f"({cal.split})" in words[0]
        assert tr.task.hint.rstrip(".")[:60] in words[0]  # the model's own task hint, not a fixed sentence


@needs_en_de
def test_the_warning_follows_the_models_own_floor_and_is_absent_without_one():
    """Without a fitted estimate (the fallback), the floor decides."""
    a = dataclasses.replace(shown("A dog is running in the snow."), quality=None)
    m = mean_logprob(a)
    just_above = dataclasses.replace(a.calibration, floor=m + 1e-6)
    assert any("unsure" in w for w in advice(dataclasses.replace(a, calibration=just_above)))
    just_below = dataclasses.replace(a.calibration, floor=m - 1e-6)
    assert not any("unsure" in w for w in advice(dataclasses.replace(a, calibration=just_below)))
    assert not any("unsure" in w for w in advice(dataclasses.replace(a, calibration=None)))


@needs_en_de
def test_confidence_is_the_models_own_whatever_the_decoding():
    """Sampling records probabilities after temperature / top-k; the warning scores the output with the plain model
    instead (checked here against a teacher-forced pass), and blames the sampling, not the sentence. Heads switched
    off make another model than the calibrated one: no confidence warning then."""
    tr = load_pretrained("en-de")
    req = Request.parse("A dog is running in the snow.", "en-de", method="sample", temperature=1.5, seed=3)
    a = h.analysis(req)
    sure = dataclasses.replace(a.quality, threshold=1e-9)  # the fitted estimate flags it: sampling is blamed too
    flagged = [w for w in advice(dataclasses.replace(a, quality=sure)) if "may well be wrong" in w]
    assert len(flagged) == 1 and "Sampling picks less likely words" in flagged[0]
    a = dataclasses.replace(a, quality=None)  # the fallback: the floor on the model's own probabilities
    probs, _ = tr.forced(a.text, a.out_ids[:-1])
    n = len(token_probs(a))
    assert mean_logprob(a) == pytest.approx(sum(math.log(p) for p in probs[:n]) / n, abs=1e-4)
    recorded = sum(math.log(p) for p in token_probs(a)) / n
    assert abs(recorded - mean_logprob(a)) > 0.01  # the recorded (tempered) numbers really differ
    floor_above = dataclasses.replace(a, calibration=dataclasses.replace(a.calibration, floor=mean_logprob(a) + 1e-6))
    words = [w for w in advice(floor_above) if "unsure" in w]
    assert len(words) == 1 and "Sampling picks less likely words" in words[0]
    assert tr.task.hint.rstrip(".") not in words[0]  # the sampling is blamed, not the sentence
    ablated = dataclasses.replace(floor_above, ablated=[("decoder.layers.0.cross_attn", 0)])
    assert not any("unsure" in w for w in advice(ablated))


def test_an_uncalibrated_model_never_says_unsure():
    """toy-reverse ships without a calibration: even text it cannot read (its mean log-probability far below
    en-de's floor) gets no "unsure" warning, rather than a floor measured on another model."""
    tr = load_pretrained("toy-reverse")
    assert tr.calibration is None and calibration.KEY not in tr.metrics
    a = h.analysis(Request.parse("Zebras quietly debate quantum chromodynamics", "toy-reverse"))
    assert mean_logprob(a) < -1.0
    assert a.calibration is None and not any("unsure" in w for w in advice(a))


def _toy_copy(tmp_path):
    folder = tmp_path / "toy"
    shutil.copytree(CHECKPOINTS / "toy-reverse", folder, ignore=shutil.ignore_patterns("work", "snapshots"))
    return folder


def test_a_calibration_counts_only_for_the_weights_it_was_measured_on(tmp_path):
    folder = _toy_copy(tmp_path)
    metrics = json.loads((folder / METRICS).read_text())
    good = {"low_mean_logprob": -0.5, "median_mean_logprob": -0.1, "quantile": 0.05, "split": "val",
            "sentences": 200, "weights_sha256": sha256(folder / WEIGHTS)}
    (folder / METRICS).write_text(json.dumps({**metrics, "confidence": good}))
    assert load_pretrained(folder).calibration.floor == -0.5
    other = tmp_path / "other"
    shutil.copytree(folder, other)
    (other / METRICS).write_text(json.dumps({**metrics, "confidence": {**good, "weights_sha256": "0" * 64}}))
    assert load_pretrained(other).calibration is None  # retrained or compressed since: not this model's floor


def test_calibrate_confidence_from_the_command_line(tmp_path, capsys):
    """training.evaluate --calibrate-confidence on a copy of toy-reverse and 150 made-up val sentences of its task:
    the floor lands in metrics.json (other keys kept) with the weights' SHA-256; test splits, --beam and a bad
    quantile are refused; --no-write writes nothing."""
    from training import evaluate

    folder, data = _toy_copy(tmp_path), tmp_path / "data"
    data.mkdir()
    rng = np.random.default_rng(0)
    lines = [" ".join(rng.choice(list("abcdefghij"), size=int(rng.integers(3, 9)))) for _ in range(150)]
    for split in ("val", "test_x"):
        (data / f"{split}.en").write_text("\n".join(lines) + "\n")
        (data / f"{split}.de").write_text("\n".join(" ".join(reversed(x.split())) for x in lines) + "\n")
    before = json.loads((folder / METRICS).read_text())
    args = ["--checkpoint", str(folder), "--data-dir", str(data), "--calibrate-confidence"]
    assert evaluate.main(args + ["--split", "test_x"]) == 2 and "not on a test split" in capsys.readouterr().err
    assert evaluate.main(args + ["--split", "val", "--beam", "4"]) == 2
    assert evaluate.main(args[:-1] + ["--calibrate-confidence", "0.7", "--split", "val"]) == 2
    assert evaluate.main(args + ["--split", "val", "--no-write"]) == 0
    assert json.loads((folder / METRICS).read_text()) == before
    assert evaluate.main(args + ["--split", "val"]) == 0
    after = json.loads((folder / METRICS).read_text())
    assert {k: v for k, v in after.items() if k != "confidence"} == before
    conf = after["confidence"]
    assert conf["sentences"] == 150 and conf["split"] == "val" and conf["weights_sha256"] == sha256(folder / WEIGHTS)
    cal = calibration.read_calibration(after, "metrics.json", sha256(folder / WEIGHTS))  # (a new process would load it)
    assert cal is not None and cal.floor == conf["low_mean_logprob"] <= cal.median <= 0


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
                                    {"low_mean_logprob": -0.2, "median_mean_logprob": -0.5}, {"sentences": 1e999},
                                    {"split": None}, {"sentences": 0},
                                    {"low_mean_logprob": 0.0, "median_mean_logprob": 0.0}])
def test_a_malformed_calibration_is_refused_naming_metrics_json(tmp_path, broken):
    folder = _toy_copy(tmp_path)
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
    from training.data import CORPORA

    tr = load_pretrained("en-de")
    # the split the floor was measured on: "val" (Multi30k) or "Tatoeba val + Multi30k val", in that order
    corpora = ["tatoeba", "multi30k"] if "Tatoeba" in tr.calibration.split else ["multi30k"]
    paths = [CORPORA[c].default_dir / "val.en.gz" for c in corpora]
    if not all(p.is_file() for p in paths):
        pytest.skip(f"{' and '.join(corpora)} not beside the repo")
    src = [line.rstrip("\n") for p in paths for line in gzip.open(p, "rt", encoding="utf-8")]
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


def test_chips_are_told_apart_by_more_than_shade_and_their_key_says_so():
    """Under deuteranopia the three shades became near-identical beiges (issue 49): each band also has a line of its
    own under the chip (none, dotted, dashed), the key shows the same, and its words are apart for a screen reader."""
    import html
    import re

    from explorer.api.advice import CHIP_MARKS, CHIP_SHADES, band
    from explorer.api.handlers import chips_key

    class Fake:
        out_tokens = ["▁a", "▁b", "▁c", "</s>"]

        class trace:
            steps = [type("S", (), {"chosen_prob": p})() for p in (0.95, 0.5, 0.1, 0.8)]

    marks = [re.search(r"border-bottom:2px (\w+)", chip).group(1) for chip in confidence_chips(Fake()).split("</span> ")]
    assert [band(p) for p in (0.95, 0.5, 0.1, 0.8)] == [0, 1, 2, 0]
    assert marks == ["solid", "dotted", "dashed", "solid"] and len(set(CHIP_MARKS)) == len(CHIP_SHADES)
    assert "transparent" in CHIP_MARKS[0]  # (sure: no line to see)
    key = chips_key()
    assert [re.search(r"border-bottom:2px (\w+)", s).group(1) for s in key.split("</span>")[:3]] == ["solid", "dotted", "dashed"]
    text = html.unescape(re.sub(r"<[^>]+>", "", key))
    assert "sure, p ≥ 0.7;0.3 ≤ p < 0.7;unsure, p < 0.3" in text, text
