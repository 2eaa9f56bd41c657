"""training/judged.py: the warning's recall and precision by a person's judgement, from a stratified sample."""

from __future__ import annotations

import json

import numpy as np
import pytest

from model.quality import fit_logistic, fit_logistic_signed, recall_precision
from training import judged
from training.judged import source_sha256
from training.quality import judged_rows


def _population(n=400, seed=0):
    rng = np.random.default_rng(seed)
    p = rng.random(n)
    wrong = rng.random(n) < p  # a higher p is wrong more often
    bad = rng.random(n) < np.where(wrong, 0.4, 0.05)  # chrF < 40: a quarter of the split, mostly the wrong ones
    return p, wrong, bad


def test_a_fully_judged_split_gives_the_plain_recall_and_precision():
    p, wrong, bad = _population()
    flagged = p >= 0.6
    w = judged.stratum_weights(bad, int(bad.sum()), int((~bad).sum()))
    assert np.allclose(w, 1.0)
    est = judged.estimate(flagged, wrong, w)
    r, pr = recall_precision(flagged, wrong)
    assert est["recall"] == pytest.approx(r, abs=1e-4) and est["precision"] == pytest.approx(pr, abs=1e-4)
    assert est["wrong_share"] == pytest.approx(wrong.mean(), abs=1e-4)


def test_a_stratified_sample_is_weighted_back_to_the_split():
    """Judge 60 sentences of each stratum, as the shipped sample does though the strata differ in size: weighted
    by stratum size the estimates centre on the split's own figures; unweighted they do not."""
    p, wrong, bad = _population(3000, seed=3)
    flagged = p >= 0.6
    full = judged.estimate(flagged, wrong, np.ones(len(p)))
    rng = np.random.default_rng(4)
    weighted, unweighted = [], []
    for _ in range(200):
        pick = np.r_[rng.choice(np.flatnonzero(bad), 60, replace=False), rng.choice(np.flatnonzero(~bad), 60, replace=False)]
        w = judged.stratum_weights(bad[pick], int(bad.sum()), int((~bad).sum()))
        weighted.append(judged.estimate(flagged[pick], wrong[pick], w)["precision"])
        unweighted.append(judged.estimate(flagged[pick], wrong[pick], np.ones(len(pick)))["precision"])
    assert abs(np.mean(weighted) - full["precision"]) < 0.02 < abs(np.mean(unweighted) - full["precision"])
    w = judged.stratum_weights(np.array([True, True, False]), 10, 30)
    assert w.tolist() == [5.0, 5.0, 30.0]
    with pytest.raises(ValueError, match="stratum"):
        judged.stratum_weights(np.ones(5, bool), 5, 10)  # the good stratum was never judged


def test_the_threshold_is_the_lowest_whose_judged_flags_are_right_often_enough():
    p, wrong, _ = _population(1000, seed=1)
    w = np.ones(len(p))
    t = judged.choose_threshold(p, wrong, w, 0.85)
    assert judged.estimate(p >= t, wrong, w)["precision"] >= 0.85
    lower = np.unique(np.round(p, 4))
    lower = lower[lower < t]
    assert all(judged.estimate(p >= x, wrong, w)["precision"] < 0.85 or (p >= x).sum() < 20 for x in lower)
    with pytest.raises(ValueError, match="no threshold"):
        judged.choose_threshold(p, np.zeros(len(p), bool), w, 0.85)


def test_the_interval_holds_the_estimate_and_shrinks_to_a_point_without_variation():
    p, wrong, bad = _population(300, seed=2)
    flagged = p >= 0.5
    w = judged.stratum_weights(bad, int(bad.sum()) * 3, int((~bad).sum()) * 3)
    est, ci = judged.estimate(flagged, wrong, w), judged.interval(flagged, wrong, bad, int(bad.sum()) * 3,
                                                                   int((~bad).sum()) * 3, rounds=300)
    assert ci["recall_95"][0] <= est["recall"] <= ci["recall_95"][1] and ci["recall_95"][0] < ci["recall_95"][1]
    assert ci == judged.interval(flagged, wrong, bad, int(bad.sum()) * 3, int((~bad).sum()) * 3, rounds=300)
    every = np.ones(len(p), bool)
    assert judged.interval(every, every, bad, 10, 10, rounds=50) == {"recall_95": [1.0, 1.0], "precision_95": [1.0, 1.0]}


def _file(tmp_path, items, sha="ab" * 32, split="val"):
    path = tmp_path / "judged.json"
    path.write_text(json.dumps({"weights_sha256": sha, "samples": [
        {"corpus": "tatoeba", "split": split, "items": items}]}), encoding="utf-8")
    return path


def _item(line, judged_as, translation, source="Hello."):
    return {"line": line, "source_sha256": source_sha256(source), "judged": judged_as, "translation": translation}


def test_a_malformed_file_or_other_translations_are_refused_naming_the_file(tmp_path):
    with pytest.raises(ValueError, match="judged.json.*labels other than"):
        judged.load_judged(_file(tmp_path, [_item(0, "maybe", "Hallo.")]))
    with pytest.raises(ValueError, match="distinct and not negative"):
        judged.load_judged(_file(tmp_path, [_item(0, "W", "Hallo."), _item(0, "R", "Hallo.")]))
    with pytest.raises(ValueError, match="not a judgements file.*source_sha256"):
        judged.load_judged(_file(tmp_path, [{"line": 0, "judged": "W", "translation": "Hallo."}]))
    path = _file(tmp_path, [_item(1, "W", "Hallo.")])
    sha, [sample] = judged.load_judged(path)
    assert sha == "ab" * 32 and sample.key == "tatoeba/val" and sample.lines.tolist() == [1]
    judged.check_translations(sample, ["Hi.", "Hello."], ["x", "Hallo."], path)
    with pytest.raises(ValueError, match="line 1 was judged as 'Hallo.', but the model now translates it 'Hi.'"):
        judged.check_translations(sample, ["Hi.", "Hello."], ["x", "Hi."], path)
    with pytest.raises(ValueError, match="line 1 is another sentence than the one judged"):
        judged.check_translations(sample, ["Hello.", "Hi."], ["x", "Hallo."], path)
    with pytest.raises(ValueError, match="line 1 is past the split's 1 lines"):
        judged.check_translations(sample, ["Hello."], ["Hallo."], path)


def test_judgements_of_other_weights_or_without_val_choose_nothing(tmp_path):
    x = np.zeros((3, 2))
    data = {"tatoeba/val": (x, np.array([10.0, 50.0, 90.0]), ["a", "b", "c"], np.ones(3))}
    items = [_item(i, "W", t, source=t.upper()) for i, t in enumerate("abc")]
    sources = {"tatoeba/val": ["A", "B", "C"]}
    with pytest.raises(ValueError, match="judgements of weights abababababab.., not of these"):
        judged_rows(_file(tmp_path, items), "cd" * 32, data, sources)
    data["tatoeba/recent"], sources["tatoeba/recent"] = data.pop("tatoeba/val"), sources.pop("tatoeba/val")
    with pytest.raises(ValueError, match="no judged tatoeba/val"):
        judged_rows(_file(tmp_path, items, split="recent"), "ab" * 32, data, sources)


def test_the_dropped_word_cut_off_is_chosen_with_the_threshold_when_it_catches_more():
    """Half the wrong translations are sure of themselves (a low p) but lost a word (a tiny least_word): the
    threshold alone cannot reach them; the pair (threshold, missing_below) does, at the same precision."""
    rng = np.random.default_rng(5)
    p, wrong, _ = _population(1000, seed=6)
    lost = wrong & (rng.random(len(p)) < 0.5)
    p = np.where(lost, p * 0.2, p)  # sure of a translation that lost a word
    least_word = np.where(lost, 10 ** rng.uniform(-7, -5, len(p)), 10 ** rng.uniform(-4, 0, len(p)))
    w = np.ones(len(p))
    t, m = judged.choose_rule(p, least_word, wrong, w, 0.85)
    alone = judged.choose_threshold(p, wrong, w, 0.85)
    assert m in judged.MISSING_CANDIDATES and m > 0
    both = judged.estimate((p >= t) | (least_word < m), wrong, w)
    assert both["precision"] >= 0.85 and both["recall"] > judged.estimate(p >= alone, wrong, w)["recall"] + 0.2
    # a word signal that says nothing is left off (0), and the threshold is the plain one
    assert judged.choose_rule(p, np.ones(len(p)), wrong, w, 0.85) == (alone, 0.0)
    with pytest.raises(ValueError, match="no threshold"):
        judged.choose_rule(p, least_word, np.zeros(len(p), bool), w, 0.85)


def test_agreement_counts_by_hand():
    a = np.array(list("WWPRRRPW"))
    b = np.array(list("WPPRRWPW"))
    got = judged.agreement(a, b)
    seen = 6 / 8
    chance = (3 / 8) * (3 / 8) + (2 / 8) * (3 / 8) + (3 / 8) * (2 / 8)  # W, P, R
    assert got["agree"] == round(seen, 4) and got["kappa"] == round((seen - chance) / (1 - chance), 4)
    # wrong-or-partly against right: only the R/W pair (6th) differs
    seen2, chance2 = 7 / 8, (5 / 8) * (6 / 8) + (3 / 8) * (2 / 8)
    assert got["agree_wrong_or_right"] == round(seen2, 4)
    assert got["kappa_wrong_or_right"] == round((seen2 - chance2) / (1 - chance2), 4)
    assert judged.agreement(a, a)["kappa"] == 1.0


def test_a_second_readers_labels_load_when_every_item_has_one(tmp_path):
    items = [{**_item(0, "W", "Hallo."), "second": "P"}, {**_item(1, "R", "Tschüss."), "second": "R"}]
    _, [sample] = judged.load_judged(_file(tmp_path, items))
    assert sample.second.tolist() == ["P", "R"]
    _, [sample] = judged.load_judged(_file(tmp_path, [_item(0, "W", "Hallo.")]))
    assert sample.second is None
    with pytest.raises(ValueError, match="second reader's labels on some items, not all"):
        judged.load_judged(_file(tmp_path, [items[0], _item(1, "R", "Tschüss.")]))
    with pytest.raises(ValueError, match="labels other than"):
        judged.load_judged(_file(tmp_path, [{**items[0], "second": "?"}]))


def test_calibration_compares_the_mean_chance_with_the_wrong_share_in_each_band_by_hand():
    p = np.array([0.1, 0.1, 0.3, 0.9, 0.95, 1.0])
    wrong = np.array([0, 1, 0, 1, 1, 0], bool)
    weights = np.array([3.0, 1.0, 1.0, 1.0, 1.0, 2.0])
    c = judged.calibration(p, wrong, weights, edges=(0.0, 0.5, 1.0))
    assert c["mean_p"] == pytest.approx((0.3 + 0.1 + 0.3 + 0.9 + 0.95 + 2.0) / 9, abs=1e-4)
    assert c["wrong_share"] == pytest.approx(3 / 9, abs=1e-4)
    low, high = c["bins"]
    assert (low["judged"], low["mean_p"], low["wrong_share"]) == (3, pytest.approx(0.7 / 5, abs=1e-4), pytest.approx(0.2))
    assert (high["judged"], high["mean_p"], high["wrong_share"]) == (3, pytest.approx(3.85 / 4, abs=1e-4), pytest.approx(0.5))
    assert [b["from"] for b in judged.calibration(p, wrong, weights, edges=(0.0, 0.2, 0.4, 0.6, 1.0))["bins"]] == [0.0, 0.2, 0.6]
    edge = judged.calibration(np.array([0.2, 1.0]), np.array([1, 0], bool), np.ones(2), edges=(0.0, 0.2, 1.0))
    assert [(b["from"], b["judged"]) for b in edge["bins"]] == [(0.2, 2)]  # a band holds its lower edge; 1.0 the last


def test_a_weighted_fit_counts_a_sentence_as_its_weight_in_copies():
    """fit_logistic with weights: a sentence of weight 3 is the same as three copies of it (an independent path)."""
    rng = np.random.default_rng(7)
    x, y = rng.normal(size=(40, 3)), (rng.random(40) < 0.4).astype(float)
    weights = rng.integers(1, 4, 40).astype(float)
    w, b = fit_logistic(x, y, l2=1.0, weights=weights)
    w2, b2 = fit_logistic(np.repeat(x, weights.astype(int), axis=0), np.repeat(y, weights.astype(int)), l2=1.0)
    assert np.allclose(w, w2, atol=1e-8) and b == pytest.approx(b2, abs=1e-8)
    assert not np.allclose(w, fit_logistic(x, y, l2=1.0)[0], atol=1e-3)  # and the weights matter


def test_a_signed_fit_keeps_each_weight_on_its_side_and_is_the_plain_fit_when_that_already_does():
    """Two near-copies of one signal (a count and a share of unsure pieces) trade weights of opposite signs in a
    plain fit; the signed fit leaves the wrongly signed one out, so that more of the signal never means less wrong."""
    rng = np.random.default_rng(11)
    n = 400
    z = rng.normal(size=n)
    x = np.stack([z, z + 0.05 * rng.normal(size=n), rng.normal(size=n)], axis=1)  # (n, 3): two near-copies, noise
    y = (rng.random(n) < 1 / (1 + np.exp(-(1.5 * z - 0.8 * x[:, 1] + 0.8 * x[:, 0])))).astype(float)
    plain, _ = fit_logistic(x, y, l2=0.01)
    signs = np.array([1.0, 1.0, 0.0])
    assert (signs * plain < 0).any()  # the plain fit gives one copy the wrong sign
    w, b = fit_logistic_signed(x, y, signs, l2=0.01)
    assert (signs * w >= 0).all() and w[1] == 0 and w[0] > 0  # the wrongly signed copy is the one held at 0
    kept = w != 0
    w_kept, b_kept = fit_logistic(x[:, kept], y, l2=0.01)  # the left-out signal's fit is the plain fit of the rest
    assert np.allclose(w[kept], w_kept) and b == pytest.approx(b_kept)
    free = fit_logistic_signed(x, y, np.zeros(3), l2=0.01)  # no signs: the plain fit
    assert np.allclose(free[0], plain, atol=1e-10)
    allowed = fit_logistic_signed(x, y, np.sign(plain), l2=0.01)  # signs the plain fit keeps: the plain fit
    assert np.allclose(allowed[0], plain, atol=1e-10)


def test_a_signed_fit_is_the_least_penalised_loss_any_sign_keeping_choice_of_signals_reaches():
    """Against an independent search: every subset of signals held at 0, each fitted plainly, those whose fit keeps
    every sign; the least penalised loss among them is the constrained minimum, and the signed fit reaches it (a
    greedy drop of the worst signal, never freed again, misses it on some of these problems)."""
    import itertools

    def loss(x, y, w, b, l2):
        z = x @ w + b
        return float((np.logaddexp(0, z) - y * z).sum() + 0.5 * l2 * (w @ w))

    for seed in range(40):  # on seed 28 the greedy drop ends above the minimum
        rng = np.random.default_rng(seed)
        x = rng.normal(size=(120, 6)) @ rng.normal(size=(6, 6))  # (120, 6): correlated signals trade weights
        y = (rng.random(120) < 1 / (1 + np.exp(-(x @ rng.normal(size=6))))).astype(float)
        signs = rng.choice([-1.0, 0.0, 1.0], size=6)
        w, b = fit_logistic_signed(x, y, signs, l2=0.5)
        assert (signs * w >= 0).all()
        best = np.inf
        for held in itertools.product((False, True), repeat=6):
            held = np.array(held)
            if (held & (signs == 0)).any():
                continue
            v = np.zeros(6)
            v[~held], c = fit_logistic(x[:, ~held], y, l2=0.5)
            if (signs * v >= 0).all():
                best = min(best, loss(x, y, v, c, 0.5))
        assert loss(x, y, w, b, 0.5) <= best + 1e-7, seed


def test_the_l2_penalty_is_chosen_on_sentences_each_fit_did_not_see():
    """Out-of-fold p come from fits without the sentence (changing its own label does not move its own p), and the
    chosen penalty is the one whose out-of-fold flags catch the most at the precision."""
    rng = np.random.default_rng(8)
    n = 200
    x = rng.normal(size=(n, 4))
    wrong = rng.random(n) < 1 / (1 + np.exp(-(2 * x[:, 0] - 0.5)))  # the first feature carries the signal
    weights = np.where(rng.random(n) < 0.5, 1.0, 5.0)
    p = judged.out_of_fold(x, wrong, weights, l2=1.0)
    assert p.shape == (n,) and ((p > 0) & (p < 1)).all()
    assert np.corrcoef(p, x[:, 0])[0, 1] > 0.8  # it found the signal in folds that did not hold the sentence
    flipped = wrong.copy()
    flipped[0] = not flipped[0]
    assert judged.out_of_fold(x, flipped, weights, l2=1.0)[0] == pytest.approx(p[0], abs=1e-12)
    l2, cv = judged.choose_l2(x, wrong, weights, 0.7, candidates=(1.0, 1e4))
    for other in (1.0, 1e4):
        q = judged.out_of_fold(x, wrong, weights, other)
        t = judged.lowest_threshold(q, wrong, weights, 0.7)
        assert t is None or judged.estimate(q >= t, wrong, weights)["recall"] <= cv["recall"]
    assert cv["precision"] >= 0.7 and l2 in (1.0, 1e4)
    with pytest.raises(ValueError, match="cross-validated"):
        judged.choose_l2(x, np.zeros(n, bool), weights, 0.7)


def test_the_judged_fit_runs_end_to_end_on_the_toy_model(tmp_path):
    """python -m training.quality --judged F --fit judged on toy-reverse (a copy of itself as its reverse model) with
    made-up splits: letters to reverse, short ones right and long ones wrong, each judged by whether the model got
    it right. The fit writes an estimate of the judged label, fitted on the judged val sample only, with its
    cross-validated figure; a second run writes the same; --fit judged without judgements is refused."""
    import random
    import shutil

    import torch

    from model import quality
    from model.checkpoint import METRICS, weights_sha256
    from model.translator import CHECKPOINTS, DecodeOptions, load_pretrained
    from training.quality import main

    torch.set_num_threads(1)
    folder = tmp_path / "toy"
    shutil.copytree(CHECKPOINTS / "toy-reverse", folder, ignore=shutil.ignore_patterns("work", "snapshots"))
    shutil.copytree(folder, folder / quality.REVERSE, ignore=shutil.ignore_patterns(quality.REVERSE))
    rng = random.Random(0)
    tr = load_pretrained(folder)

    def split(n):  # (sources, references): 3 to 18 letters; the reference is the true reversal
        src = [" ".join(rng.choice("abcdefghijklmnop") for _ in range(rng.randint(3, 18))) for _ in range(n)]
        return src, [" ".join(s.split()[::-1]) for s in src]

    dirs = {"tatoeba": tmp_path / "tatoeba", "multi30k": tmp_path / "multi30k"}
    texts = {}
    for corpus, name, n in (("tatoeba", "val", 80), ("tatoeba", "recent", 40), ("multi30k", "val", 30)):
        dirs[corpus].mkdir(exist_ok=True)
        src, ref = split(n)
        (dirs[corpus] / f"{name}.en").write_text("\n".join(src) + "\n", encoding="utf-8")
        (dirs[corpus] / f"{name}.de").write_text("\n".join(ref) + "\n", encoding="utf-8")
        texts[(corpus, name)] = (src, ref, tr.translate_batch(src, DecodeOptions()))
    src, ref, hyps = texts[("tatoeba", "val")]
    items = [{"line": i, "source_sha256": source_sha256(s), "translation": h, "judged": "R" if h == r else "W"}
             for i, (s, r, h) in enumerate(zip(src, ref, hyps))]
    assert 20 <= sum(it["judged"] == "W" for it in items) <= 60  # both kinds, enough to fit on
    path = tmp_path / "judged.json"
    path.write_text(json.dumps({"weights_sha256": weights_sha256(folder), "samples": [
        {"corpus": "tatoeba", "split": "val", "items": items}]}), encoding="utf-8")
    base = ["--checkpoint", str(folder), "--data-dir", str(dirs["multi30k"]), "--tatoeba-dir", str(dirs["tatoeba"]),
            "--threads", "1"]
    assert main(base + ["--fit", "judged"]) == 2  # no judgements to fit on: refused, nothing written
    assert "quality" not in json.loads((folder / METRICS).read_text())
    args = base + ["--judged", str(path), "--judged-precision", "0.6"]
    assert main(args + ["--fit", "judged"]) == 0
    written = json.loads((folder / METRICS).read_text())["quality"]
    q = quality.read_quality({"quality": written}, "metrics.json")
    assert q.label == quality.JUDGED_LABEL and q.sentences == 80 and "judged tatoeba/val" in q.fitted_on
    cv = q.scores["tatoeba/val (judged, cross-validated)"]
    assert cv["l2"] in judged.L2_CANDIDATES and cv["precision"] >= 0.6
    assert q.scores["tatoeba/val (judged)"]["precision"] >= 0.6  # the threshold's rule, on the judged val sample
    assert q.scores["tatoeba/recent"]["sentences"] == 40 and q.scores["multi30k/val"]["sentences"] == 30
    assert main(args + ["--fit", "judged"]) == 0
    assert json.loads((folder / METRICS).read_text())["quality"] == written  # deterministic
    assert main(args + ["--fit", "chrf"]) == 0  # the chrF fit still works, and says so
    assert json.loads((folder / METRICS).read_text())["quality"]["label"] == quality.LABEL
