"""The "may be wrong" estimate (model/quality.py): its signals, its fit, how a checkpoint carries it, and what the
page says with it (explorer/api/advice.py)."""

import dataclasses
import json
import math
import shutil
from pathlib import Path

import numpy as np
import pytest
import torch

from explorer.api import handlers as h
from explorer.api.advice import advice, may_be_wrong, plain, token_probs
from explorer.serving.request import Request
from model import quality
from model.checkpoint import METRICS, WEIGHTS, CheckpointError, sha256
from model.tokenizer import UNK
from model.translator import CHECKPOINTS, available, load_pretrained

needs_en_de = pytest.mark.skipif("en-de" not in available(), reason="needs the shipped en-de checkpoint")

# Typed by hand, as a class would: each sentence with the shipped model's translation, a person's judgement of it
# ("right", "partly" or "nonsense") and whether the estimate flagged it, as measured on the shipped model.
TYPED = json.loads((Path(__file__).parent / "typed_sentences.json").read_text(encoding="utf-8"))


def _signals(out_ids, src_ids, src_pieces, cross=None, logits=None, v=12, reverse=None):
    t, s = len(out_ids), len(src_ids)
    if logits is None:
        logits = torch.zeros(t, v)
        for i, o in enumerate(out_ids):
            logits[i, o] = 3.0
    if cross is None:
        cross = [torch.full((2, t, s), 1.0 / s)]
    sig = quality.pass_signals(logits, out_ids, [0, 2], cross, src_ids, src_pieces)
    sig.reverse = np.log(reverse if reverse is not None else np.full(s, 0.5))  # (S,) as the reverse model gives
    return sig


def test_signals_match_a_hand_computation():
    """Chosen log-probabilities, runner-up margin and entropy against a softmax by hand; lengths, repeats and
    unknown pieces counted by hand."""
    v = 12
    out = [5, 5, 6, 3]  # "x x y" + EOS: one repeat
    src = [4, 1, 7, 8, 3]  # one unknown piece among 4
    pieces = ["▁a", "▁b", "c", "▁d", "[EOS]"]  # 3 words
    reverse = [0.9, 0.05, 0.5, 0.6, 0.8]  # the reverse model's p of each source piece: "b" (0.05) is lost
    sig = _signals(out, src, pieces, v=v, reverse=reverse)
    # each row: 3.0 on the chosen id, 0 elsewhere, ids 0 and 2 blocked -> v - 2 live ids
    p_chosen = math.exp(3) / (math.exp(3) + (v - 3))
    assert np.allclose(sig.chosen, math.log(p_chosen))
    assert np.allclose(sig.other, math.log(1 / (math.exp(3) + (v - 3))))
    p_other = 1 / (math.exp(3) + (v - 3))
    entropy = -(p_chosen * math.log(p_chosen) + (v - 3) * p_other * math.log(p_other))
    assert np.allclose(sig.entropy, entropy)
    f = dict(zip(quality.FEATURES, quality.features(sig, UNK)))
    assert f["mean_logprob"] == pytest.approx(math.log(p_chosen))
    assert f["low_share"] == 0.0  # p_chosen is about 0.65
    assert f["length_ratio"] == pytest.approx(math.log(4 / 4))
    assert f["repeated_share"] == pytest.approx(1 / 3)
    assert f["unknown_share"] == pytest.approx(1 / 4)
    assert f["pieces_per_word"] == pytest.approx(4 / 3)
    assert f["unread_share"] == 0.0  # an even spread reads every piece
    assert f["reverse_mean"] == pytest.approx(np.log(reverse).mean())
    assert f["reverse_min"] == pytest.approx(math.log(0.05))
    assert f["reverse_low_share"] == pytest.approx(1 / 5)
    assert f["reverse_worst_window"] == pytest.approx(math.log(0.05 * 0.5 * 0.6) / 3)  # "b c d"


def test_a_source_word_the_attention_never_reads_counts_as_unread():
    src, pieces = [4, 5, 6, 3], ["▁a", "▁b", "▁c", "[EOS]"]
    cross = torch.zeros(1, 2, 3, 4)  # (H, T, S) for one layer
    cross[..., 0] = 0.5
    cross[..., 1] = 0.5  # "c" (index 2) and EOS get nothing
    f = dict(zip(quality.FEATURES, quality.features(_signals([5, 6, 3], src, pieces, cross=[cross[0]]), UNK)))
    assert f["unread_share"] == pytest.approx(1 / 3)


def test_the_fit_is_a_minimum_and_finds_the_signal():
    """Newton's solution has a zero gradient of the penalised log-likelihood (checked independently), and on data
    where only the first feature matters it weighs that feature most, with the right sign."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=(600, 4))
    y = (rng.random(600) < 1 / (1 + np.exp(-(2.0 * x[:, 0] - 0.5)))).astype(float)
    w, b = quality.fit_logistic(x, y, l2=1.0)
    p = 1 / (1 + np.exp(-(x @ w + b)))
    grad_w, grad_b = x.T @ (p - y) + 1.0 * w, (p - y).sum()
    assert np.abs(grad_w).max() < 1e-6 and abs(grad_b) < 1e-6
    assert w[0] > 1.2 and np.abs(w[1:]).max() < 0.3
    assert quality.fit_logistic(x, y, l2=1.0)[0].tolist() == w.tolist()  # deterministic


def test_recall_and_precision_count_by_hand():
    flagged = np.array([1, 1, 0, 0, 1], bool)
    bad = np.array([1, 0, 1, 0, 1], bool)
    assert quality.recall_precision(flagged, bad) == (2 / 3, 2 / 3)


def test_suspect_words_are_the_unsure_words_least_sure_first():
    pieces = ["▁Das", "▁Haus", "chen", "▁ist", "▁rot", "."]
    probs = [0.9, 0.8, 0.1, 0.95, 0.25, 0.05]
    assert quality.word_spans(pieces) == [(0, 1), (1, 3), (3, 4), (4, 5), (5, 6)]
    assert quality.suspect_words(pieces, probs) == [1, 3]  # "Hauschen" (0.1), "rot" (0.25); "." never named


def test_unsure_words_are_whole_words_with_their_least_sure_piece():
    pieces = ["▁Das", "▁Haus", "chen", "▁ist", "▁rot", ".", "▁Gr", "<0xC3>", "<0xBC>", "n"]
    probs = [0.9, 0.8, 0.1, 0.95, 0.25, 0.05, 0.2, 0.9, 0.9, 0.5]
    assert quality.unsure_words(pieces, probs) == [("Hauschen", 0.1), ("Grün", 0.2), ("rot", 0.25)]
    assert quality.unsure_words(pieces, probs, below=0.15) == [("Hauschen", 0.1)]  # "." (0.05) is never a word
    assert quality.unsure_words(pieces, [1.0] * len(pieces)) == []
    ellipsis = ["▁Haus", "▁", "<0xE2>", "<0x80>", "<0xA6>"]  # "…" outside the alphabet: byte pieces, no word
    assert quality.unsure_words(ellipsis, [0.9, 0.1, 0.1, 0.1, 0.1]) == []
    unknown = ["▁Haus", "<unk>", "▁rot"]  # <unk> never makes a word unsure: not the status line's, not the warning's
    assert quality.unsure_words(unknown, [0.9, 0.05, 0.2]) == [("rot", 0.2)]
    assert quality.suspect_words(unknown, [0.9, 0.05, 0.2]) == [1]


def _toy_copy(tmp_path, reverse: bool = True):
    """toy-reverse, with a copy of itself as its reverse model (the same pieces: all the loading checks need)."""
    folder = tmp_path / "toy"
    shutil.copytree(CHECKPOINTS / "toy-reverse", folder, ignore=shutil.ignore_patterns("work", "snapshots"))
    if reverse:
        shutil.copytree(folder, folder / quality.REVERSE, ignore=shutil.ignore_patterns(quality.REVERSE))
    return folder


def _fitted(sha: str, **over) -> dict:
    n = len(quality.FEATURES)
    good = {"features": list(quality.FEATURES), "mean": [0.0] * n, "scale": [1.0] * n, "weights": [0.1] * n,
            "bias": -1.0, "threshold": 0.5, "fitted_on": "val", "sentences": 300, "scores": {},
            "weights_sha256": sha, "reverse_sha256": sha}  # toy's reverse model is a copy of itself
    return {**good, **over}


def _write_estimate(folder, **over):
    metrics = json.loads((folder / METRICS).read_text())
    (folder / METRICS).write_text(json.dumps({**metrics, "quality": _fitted(sha256(folder / WEIGHTS), **over)}))


def test_a_checkpoint_carries_its_estimate_for_its_own_weights_and_reverse_model_only(tmp_path):
    folder = _toy_copy(tmp_path)
    _write_estimate(folder)
    tr = load_pretrained(folder)
    assert tr.quality.threshold == 0.5 and tr.reverse is not None
    other = tmp_path / "other"
    shutil.copytree(folder, other)
    _write_estimate(other, weights_sha256="0" * 64)
    assert load_pretrained(other).quality is None
    no_reverse = tmp_path / "no_reverse"
    shutil.copytree(folder, no_reverse, ignore=shutil.ignore_patterns(quality.REVERSE))
    bare = load_pretrained(no_reverse)  # falls back (the page then says it is the rough check)
    assert bare.quality is None and bare.reverse is None
    another = tmp_path / "another_reverse"
    shutil.copytree(folder, another)
    _write_estimate(another, reverse_sha256="1" * 64)
    assert load_pretrained(another).quality is None


def test_the_reverse_pass_scores_the_source_as_step_by_step_decoding_would(tmp_path):
    """reverse_logprobs (one teacher-forced pass) against an independent path: the reverse model's own encoder and
    decoder run one source piece at a time, each next piece's log-probability read off the last position."""
    folder = _toy_copy(tmp_path)
    _write_estimate(folder)
    tr = load_pretrained(folder)
    a = tr.analyze("abcdef")
    rev, cfg = tr.reverse, tr.reverse.cfg
    assert a.reverse_logprobs.shape == (len(a.src_ids),)
    with torch.inference_mode():
        memory, mask = rev.encode(torch.tensor([a.out_ids]))
        by_step, prefix = [], [cfg.bos_id]
        for want in a.src_ids:
            logits = rev.project(rev.decode(torch.tensor([prefix]), memory, mask))[0, -1]  # (V,)
            by_step.append(float(logits.float().log_softmax(-1)[want]))
            prefix.append(want)
    assert np.allclose(a.reverse_logprobs, by_step, atol=1e-4)
    assert np.all(a.reverse_logprobs <= 0)
    # heads switched off: not the model the estimate was fitted on, so no reverse pass either
    assert tr.analyze("abcdef", ablated=[("decoder.layers.0.cross_attn", 0)]).reverse_logprobs is None


def test_a_reverse_model_with_other_pieces_is_refused(tmp_path):
    if "en-de" not in available():
        pytest.skip("needs the shipped en-de checkpoint (a model with other pieces)")
    folder = _toy_copy(tmp_path, reverse=False)
    shutil.copytree(CHECKPOINTS / "en-de", folder / quality.REVERSE,
                    ignore=shutil.ignore_patterns("snapshots", quality.REVERSE))
    with pytest.raises(CheckpointError, match="tokenizer differs"):
        load_pretrained(folder)


def test_a_words_text_decodes_the_byte_pieces_the_tokenizer_keeps():
    assert quality.word_text(["▁Zo", "<0xC3>", "<0xAB>"]) == "Zoë"
    assert quality.word_text(["▁", "<0xF0>", "<0x9F>", "<0x8D>", "<0x95>"]) == "🍕"
    assert quality.word_text(["▁na", "<0xC3>"]) == "na\ufffd"  # a cut character says so, not a code


def test_a_reverse_model_too_short_for_the_checkpoint_is_refused(tmp_path):
    folder = _toy_copy(tmp_path)
    config = json.loads((folder / quality.REVERSE / "config.json").read_text())
    config["model"]["max_len"] = 32  # toy-reverse reads and writes up to 128 pieces
    (folder / quality.REVERSE / "config.json").write_text(json.dumps(config))
    with pytest.raises(CheckpointError, match="max_len"):
        load_pretrained(folder)


def test_missing_words_are_the_source_words_the_reverse_model_finds_unlikely():
    pieces = ["▁Why", "▁is", "▁the", "▁sky", "▁bl", "ue", "?", "[EOS]"]
    logp = np.log([0.9, 0.95, 0.9, 0.8, 0.3, 0.001, 0.002, 0.99])  # "blue" (its worst piece 0.001); "?" never named
    assert quality.missing_words(pieces, logp) == ["blue"]
    assert quality.missing_words(pieces, logp, below=0.85) == ["blue", "sky"]
    assert quality.missing_words(pieces, None) == []
    assert quality.missing_words(["▁Zo", "<0xC3>", "<0xAB>", "[EOS]"], np.log([0.5, 0.001, 0.5, 0.9])) == ["Zoë"]


@pytest.mark.parametrize("broken", [{"features": ["mean_logprob"]}, {"threshold": 1.5}, {"scale": [0.0] * 13},
                                    {"weights": [1.0]}, {"bias": "high"}, {"mean": None},
                                    {"missing_below": 0.05}, {"missing_below": -1e-5}, {"missing_below": "low"}])
def test_a_malformed_estimate_is_refused_naming_metrics_json(tmp_path, broken):
    folder = _toy_copy(tmp_path)
    _write_estimate(folder, **broken)
    with pytest.raises(CheckpointError, match=r"metrics\.json.*quality"):
        load_pretrained(folder)


@needs_en_de
def test_the_shipped_model_has_an_estimate_that_meets_its_goals_as_fitted():
    q = load_pretrained("en-de").quality
    assert q is not None, "checkpoints/en-de has no fitted quality estimate: python -m training.quality"
    assert q.scores["val"]["sentences"] >= 3000  # measured on every val sentence; fitted on the judged ones
    # fitted on a person's judgements of a val sample (checkpoints/en-de/judged.json), not on chrF: its chance is the
    # chance a reader finds the translation wrong or partly wrong; its cut-offs chosen there for flags that are
    # wrong or partly wrong at least 85% of the time
    assert q.label == quality.JUDGED_LABEL and "judged" in q.fitted_on and q.sentences == 600
    assert "judged" in q.scores["threshold"]["chosen_by"]
    # the cut-offs README and the model card quote: the word rule is on (a refit that turned it off would show here)
    assert round(q.threshold, 3) == 0.564 and q.missing_below == 1e-5
    # every weight on the side quality.SIGNS allows: more of a bad sign never makes a translation look surer
    assert all(quality.SIGNS[f] * w >= 0 for f, w in zip(q.features, q.weights)), dict(zip(q.features, q.weights))
    assert "signed" in q.fitted_on
    assert q.scores["tatoeba/val (judged)"]["precision"] >= 0.85
    cv = q.scores["tatoeba/val (judged, cross-validated)"]  # each val sentence scored by a fit that did not see it
    assert cv["precision"] >= 0.85 and cv["recall"] >= 0.6  # 67.9% with 600 judged (54.0% with 300)
    # the goal (recall >= 60% at precision >= 70%), on the newer sentences, judged the same way but never used
    recent = q.scores["tatoeba/recent (judged)"]
    assert recent["recall"] >= 0.6 and recent["precision"] >= 0.7 and recent["recall_95"][0] >= 0.6
    # a second reader, who judged the same translations apart, finds it too, and mostly agrees with the first
    second = recent["second_reader"]
    assert second["recall"] >= 0.6 and second["precision"] >= 0.7 and second["kappa_wrong_or_right"] >= 0.8
    # its chance means what it says on sentences it never saw: the mean chance is the judged wrong share, and in
    # each band of chance holding 20 or more judged translations the wrong share is near the band's mean chance
    for split in ("tatoeba/recent (judged)", "multi30k/val (judged)"):
        cal = q.scores[split]["calibration"]
        assert abs(cal["mean_p"] - cal["wrong_share"]) <= 0.03, (split, cal)
        assert all(abs(b["mean_p"] - b["wrong_share"]) <= 0.15 for b in cal["bins"] if b["judged"] >= 20), (split, cal)
    # captions, judged the same way by both readers and never used to fit: the flags are as right there
    captions = q.scores["multi30k/val (judged)"]
    assert captions["precision"] >= 0.85 and captions["second_reader"]["precision"] >= 0.85
    # by the reference alone (sentence chrF < 40) most of its bad translations are still flagged (its precision,
    # 42%, is far from the goal: chrF calls many right translations wrong and forgives a dropped word)
    assert q.scores["tatoeba/recent"]["recall"] >= 0.6


@needs_en_de
def test_the_estimate_comes_from_the_pages_own_pass_and_is_deterministic(monkeypatch):
    """No second decode: with every decoding function broken after the analysis, the estimate is still computed,
    twice the same, from the analysis' captured pass."""
    a = h.analysis(Request.parse("Why is the sky blue?", "en-de"))
    first = may_be_wrong(a)
    import model.translator as mt

    def broken(*args, **kwargs):
        raise AssertionError("decoded again")

    for name in ("greedy", "beam_search", "sample"):
        monkeypatch.setattr(mt, name, broken)
    monkeypatch.setattr(mt.Translator, "forward", broken, raising=False)
    again = quality.estimate(a, UNK, token_probs(a))  # computed afresh (may_be_wrong keeps one per analysis)
    assert first == again and first is not None and may_be_wrong(a) is first
    # the same numbers by hand from the cache: the probability of the fitted logistic model
    q = a.quality
    x = quality.features(quality.analysis_pass(a), UNK)
    z = q.bias + sum(w * (xi - m) / s for w, xi, m, s in zip(q.weights, x, q.mean, q.scale))
    assert first.probability == pytest.approx(1 / (1 + math.exp(-z)), abs=1e-9)


@needs_en_de
def test_a_flagged_translation_says_so_first_names_its_unsure_words_and_outlines_them():
    a = h.analysis(Request.parse("Why is the sky blue?", "en-de"))
    flagged = dataclasses.replace(a, quality=dataclasses.replace(a.quality, threshold=1e-6))
    est = may_be_wrong(flagged)
    assert est.flagged
    words = [plain(w) for w in advice(flagged) if w.startswith("This translation may well be wrong")]
    assert len(words) == 1 and f"{est.probability:.0%}" in words[0]
    for w in est.words:
        assert f"“{w}”" in words[0]
    assert est.missing == ("blue",)  # what the fluent output lost (the reverse model gives it p < 0.01)
    for w in est.missing:  # and the words of the sentence the reverse model found missing from the output
        assert f"“{w}”" in words[0].split("dropped or changed")[1]
    probs = token_probs(a)
    spans = quality.word_spans(list(a.out_tokens[:-1]))
    for k in est.word_indices:  # every named word is one the chips shade as unsure
        assert min(probs[slice(*spans[k])]) < quality.LOW_P
    page = h.tokens_html(flagged)
    for w in est.missing:  # English words inside the warning say so (a German page reads them as English)
        assert f'“<span lang="en">{w}</span>”' in page
    assert page.index("may well be wrong") < page.index("Source pieces")  # first, beside the translation
    assert page.count("outline:2px solid") == sum(e - s for s, e in (spans[k] for k in est.word_indices))
    calm = dataclasses.replace(a, quality=dataclasses.replace(a.quality, threshold=1 - 1e-9, missing_below=0.0))
    assert not any("may well be wrong" in w for w in advice(calm)) and "outline:2px" not in h.tokens_html(calm)


@needs_en_de
def test_a_dropped_word_flags_a_sure_translation_and_the_warning_names_it_without_a_probability():
    """"Why is the sky blue?" -> "Warum ist der Himmel?": the reverse model reading the output finds "blue" almost
    impossible. With a threshold nothing reaches and a word cut-off above that word, it is flagged for the word
    alone: the warning names it as missing or changed, with no "chance it is wrong" beside it, and no hint about the
    kind of text (the fault is this translation's own)."""
    a = h.analysis(Request.parse("Why is the sky blue?", "en-de"))
    least = quality.least_likely_word(a.src_tokens, a.reverse_logprobs)
    assert least < 1e-4  # "blue", as measured (docs/model-card.md)
    word_only = dataclasses.replace(a.quality, threshold=1 - 1e-9, missing_below=quality.MISSING_P)
    flagged = dataclasses.replace(a, quality=word_only)
    est = may_be_wrong(flagged)
    assert est.flagged and est.dropped == ("blue",) and est.missing == ("blue",)
    [warning] = [plain(w) for w in advice(flagged) if w.startswith("This translation may well be wrong")]
    assert warning.startswith("This translation may well be wrong: “blue” may be missing or changed")
    assert f"{est.probability:.0%}" not in warning and "chance" not in warning and "Trained on" not in warning
    page = h.tokens_html(flagged)
    assert '“<span lang="en">blue</span>” may be missing' in page  # the English word marked as English
    # the cut-off at the word itself: not below it, so not flagged, and nothing said
    off = dataclasses.replace(a, quality=dataclasses.replace(word_only, missing_below=least))
    assert not may_be_wrong(off).flagged and not any("may well be wrong" in w for w in advice(off))
    # a sentence flagged by its probability is not "dropped", whatever its words
    by_p = may_be_wrong(dataclasses.replace(a, quality=dataclasses.replace(word_only, threshold=1e-6)))
    assert by_p.flagged and by_p.dropped == ()
    assert h.page(Request.parse("Why is the sky blue?", "en-de"))["may_be_wrong"]["dropped"] == list(
        may_be_wrong(a).dropped)


def test_the_least_likely_word_is_the_cut_off_missing_words_names():
    pieces = ["▁Why", "▁is", "▁the", "▁sky", "▁bl", "ue", "?", "[EOS]"]
    reverse = np.log(np.array([0.9, 0.8, 0.9, 0.7, 0.5, 2e-6, 1e-9, 0.9]))  # "?" is never a word
    assert quality.least_likely_word(pieces, reverse) == pytest.approx(2e-6)
    least = quality.least_likely_word(pieces, reverse)
    assert quality.missing_words(pieces, reverse, below=least * 1.5) == ["blue"]
    assert quality.missing_words(pieces, reverse, below=least) == []  # below, not at
    assert quality.least_likely_word(pieces, None) == 1.0 and quality.missing_words(pieces, None) == []
    q = quality.QualityModel(("a",), (0.0,), (1.0,), (1.0,), 0.0, 0.5, "x", 1, {}, missing_below=1e-5)
    assert q.flags(0.5, 1.0) and q.flags(0.1, 9e-6) and not q.flags(0.1, 1e-5) and not q.flags(0.49, 0.5)
    assert not dataclasses.replace(q, missing_below=0.0).flags(0.1, 0.0)  # 0: the word rule is off


@needs_en_de
def test_without_a_fitted_estimate_the_rough_check_says_it_is_the_rough_one():
    a = h.analysis(Request.parse("Why is the sky blue?", "en-de"))
    bare = dataclasses.replace(a, quality=None)
    low = dataclasses.replace(bare, calibration=dataclasses.replace(a.calibration, floor=0.0 - 1e-9))
    words = [w for w in advice(low) if "unsure" in w]
    assert len(words) == 1 and "no fitted quality estimate" in words[0]
    assert not any("unsure" in w or "may well" in w for w in advice(dataclasses.replace(bare, calibration=None)))
    ablated = dataclasses.replace(a, ablated=[("decoder.layers.0.cross_attn", 0)])
    assert may_be_wrong(ablated) is None
    assert may_be_wrong(dataclasses.replace(a, reverse_logprobs=None)) is None  # no reverse pass: no estimate


@needs_en_de
@pytest.mark.parametrize("typed", TYPED, ids=[t["text"][:30] for t in TYPED])
def test_typed_sentences_are_flagged_as_measured(typed):
    """The judged translation is still the one the model writes (else the judgement is stale), and the flag is as
    measured (docs/model-card.md: how many of the wrong ones it catches)."""
    a = h.analysis(Request.parse(typed["text"], "en-de"))
    assert a.translation == typed["translation"]
    est = may_be_wrong(a)
    assert est.flagged == typed["flagged"], (typed, est)
    assert list(est.missing) == typed["missing"], (typed, est)  # what the reverse model finds missing, as measured


def test_the_typed_sentences_hold_wrong_and_right_translations():
    judged = [t["judged"] for t in TYPED]
    assert len(TYPED) == 15 and set(judged) <= {"right", "partly", "nonsense"}
    assert "right" in judged and len(set(judged)) > 1


@needs_en_de
def test_the_pages_copy_carries_the_verdict_for_the_status_line():
    req = Request.parse("Quantum chromodynamics describes the strong interaction.", "en-de")
    est = may_be_wrong(h.analysis(req))
    assert h.page(req)["may_be_wrong"] == {"flagged": est.flagged, "p": round(est.probability, 3),
                                           "words": list(est.words), "missing": list(est.missing),
                                           "dropped": list(est.dropped)}
    assert est.flagged  # far from the training data


@needs_en_de
@pytest.mark.parametrize("text", ["Turn off your phones and open your books.", "Why is the sky blue?",
                                  "Quantum chromodynamics describes the strong interaction."])
def test_the_pages_copy_names_the_unsure_words_the_chips_shade(text):
    """The words the status line names are rebuilt here from the page's own chips: each word (a chip without the
    "·" that continues one starts it; punctuation is a word of its own and never named) whose least sure chip is
    below 0.3, least sure first. (Chips of byte pieces and HTML-escaped labels would need more care; these
    sentences have none, and test_unsure_words_... covers byte pieces.)"""
    data = h.page(Request.parse(text, "en-de"))
    labels = data["out"][:-1]  # the chips' labels, EOS last
    probs = [st["chosen_p"] for st in data["steps"]][: len(labels)]
    words, starts = [], [i for i, x in enumerate(labels) if not x.startswith("·") or not any(c.isalnum() for c in x)]
    for s, e in zip(starts, starts[1:] + [len(labels)]):
        word = labels[s] + "".join(x[1:] for x in labels[s + 1:e])
        if any(c.isalnum() for c in word) and min(probs[s:e]) < 0.3:
            words.append((min(probs[s:e]), word))
    assert [(w["word"], w["p"]) for w in data["unsure"]] == [(w, pytest.approx(p, abs=1e-3)) for p, w in sorted(words)]
    assert data["unsure"] or text == "Why is the sky blue?"  # the "?" after "Himmel" (p 0.19) is not a word


def test_any_reference_judges_a_translation_against_every_reference_of_its_source():
    """Tatoeba translates a sentence more than once: "Ich traf sie." is right for "I met her." even where the row's
    own reference says "Ich habe sie getroffen."; each row gets its best chrF (sacreBLEU's, computed here again)."""
    import sacrebleu

    from training.quality import any_reference

    src = ["I met her.", "I met her.", "Go."]
    refs = ["Ich habe sie getroffen.", "Ich traf sie.", "Geh."]
    hyps = ["Ich traf sie.", "Ich traf sie.", "Geht."]
    got = any_reference(src, refs, hyps)
    assert got[0] == got[1] == pytest.approx(100.0)
    assert sacrebleu.sentence_chrf(hyps[0], [refs[0]]).score < 40  # the one-reference label calls it wrong
    assert got[2] == pytest.approx(sacrebleu.sentence_chrf("Geht.", ["Geh."]).score)
