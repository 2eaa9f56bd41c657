"""Person judgements of a model's translations: how often "may be wrong" is right by a reader, not by chrF.

"Sentence chrF < 40 against the one reference" calls many right translations wrong (Tatoeba says the same thing in
many ways) and some wrong ones right. So a person read a random sample of each split's translations, drawn
separately from those with chrF < 40 and those with chrF >= 40 (the strata), and judged each:

- W: wrong: the meaning is lost or changed, or the German is garbled;
- P: partly wrong: the meaning is mostly kept, but a word is dropped or wrong, or there is a clear grammar error;
- R: right: the meaning is kept in correct German (it may differ from the reference).

A stratified sample estimates the whole split's figures by weighting each judged sentence by its stratum's size
over the number judged in it. The judgements belong to one model's translations: the file records its weights'
SHA-256 and each judged translation, and a model that now translates a judged line otherwise is refused.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from model.quality import fit_logistic_signed, predict_logistic

WRONG = ("W", "P")  # what the warning should catch: wrong or partly wrong (the "nonsense or partly wrong")
LABELS = ("W", "P", "R")


@dataclass
class Sample:
    corpus: str
    split: str
    lines: np.ndarray  # (n,) line numbers in the split (0-based)
    judged: np.ndarray  # (n,) "W" / "P" / "R"
    translations: list[str]
    source_sha256: list[str]  # of each judged line's source sentence: the same split, the same order
    second: np.ndarray | None = None  # (n,) a second reader's labels of the same translations, when there are any

    @property
    def key(self) -> str:
        return f"{self.corpus}/{self.split}"


def load_judged(path: Path) -> tuple[str, list[Sample]]:
    """-> (the judged weights' SHA-256, the samples). Raises ValueError naming the file when it is malformed."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        samples = []
        for s in data["samples"]:
            items = s["items"]
            judged = np.array([it["judged"] for it in items])
            has_second = ["second" in it for it in items]
            if any(has_second) and not all(has_second):
                raise ValueError(f"{s['corpus']}/{s['split']}: a second reader's labels on some items, not all")
            second = np.array([it["second"] for it in items]) if any(has_second) else None
            for labels in (judged, second if second is not None else judged):
                if not set(labels) <= set(LABELS):
                    raise ValueError(f"labels other than {LABELS}: {sorted(set(labels) - set(LABELS))}")
            lines = np.array([int(it["line"]) for it in items])
            if (lines < 0).any() or len(set(lines.tolist())) != len(lines):
                raise ValueError(f"{s['corpus']}/{s['split']}: line numbers must be distinct and not negative")
            samples.append(Sample(s["corpus"], s["split"], lines, judged, [str(it["translation"]) for it in items],
                                  [str(it["source_sha256"]) for it in items], second))
        return str(data["weights_sha256"]), samples
    except (OSError, KeyError, TypeError, ValueError) as e:
        raise ValueError(f"{path}: not a judgements file ({e})") from None


def agreement(first: np.ndarray, second: np.ndarray) -> dict:
    """How far two readers agree on the same translations: the share of equal labels and Cohen's kappa (agreement
    beyond chance), over the three labels and over "wrong or partly wrong" against "right"."""
    def kappa(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
        seen = (a == b).mean()
        chance = sum((a == label).mean() * (b == label).mean() for label in set(a) | set(b))
        return float(seen), float((seen - chance) / (1 - chance)) if chance < 1 else 1.0
    agree, k = kappa(first, second)
    agree2, k2 = kappa(np.isin(first, WRONG), np.isin(second, WRONG))
    return {"agree": round(agree, 4), "kappa": round(k, 4), "agree_wrong_or_right": round(agree2, 4),
            "kappa_wrong_or_right": round(k2, 4)}


def source_sha256(sentence: str) -> str:
    return hashlib.sha256(sentence.encode("utf-8")).hexdigest()


def check_translations(sample: Sample, sources: list[str], hyps: list[str], path: Path) -> None:
    """The judgements apply only to the sentences and translations that were read."""
    for line, judged_text, sha in zip(sample.lines, sample.translations, sample.source_sha256):
        if line >= len(hyps):
            raise ValueError(f"{path}: {sample.key} line {line} is past the split's {len(hyps)} lines")
        if source_sha256(sources[line]) != sha:
            raise ValueError(f"{path}: {sample.key} line {line} is another sentence than the one judged (another "
                             "copy or order of the split?)")
        if hyps[line] != judged_text:
            raise ValueError(f"{path}: {sample.key} line {line} was judged as {judged_text!r}, but the model now "
                             f"translates it {hyps[line]!r}: judge this model's translations again")


def stratum_weights(in_bad_stratum: np.ndarray, n_bad: int, n_good: int) -> np.ndarray:
    """(n,) each judged sentence's weight: its stratum's size in the split over the number judged in that stratum."""
    judged_bad = int(in_bad_stratum.sum())
    judged_good = len(in_bad_stratum) - judged_bad
    if (n_bad and not judged_bad) or (n_good and not judged_good):
        raise ValueError("a stratum of the split has no judged sentence")
    return np.where(in_bad_stratum, n_bad / max(1, judged_bad), n_good / max(1, judged_good))


def estimate(flagged: np.ndarray, wrong: np.ndarray, weights: np.ndarray) -> dict:
    """The split's recall (share of wrong translations flagged), precision (share of flags on wrong translations),
    flagged share and wrong share, each estimated from the judged sentences and their weights."""
    total, w_wrong, w_flag = weights.sum(), (weights * wrong).sum(), (weights * flagged).sum()
    hit = (weights * (flagged & wrong)).sum()
    return {"recall": round(float(hit / max(w_wrong, 1e-12)), 4), "precision": round(float(hit / max(w_flag, 1e-12)), 4),
            "flagged_share": round(float(w_flag / total), 4), "wrong_share": round(float(w_wrong / total), 4),
            "judged": int(len(weights)), "judged_flagged": int(flagged.sum()), "judged_wrong": int(wrong.sum())}


def lowest_threshold(p: np.ndarray, wrong: np.ndarray, weights: np.ndarray, precision: float,
                     also: np.ndarray | None = None, min_flagged: int = 20) -> float | None:
    """The lowest threshold whose flags (p >= threshold, or ``also``) are judged wrong (or partly) at least
    ``precision`` of the time, among thresholds that flag at least ``min_flagged`` judged sentences (fewer would
    make the figure a coin toss); None when none does."""
    also = np.zeros(len(p), bool) if also is None else also
    best = None
    for t in np.unique(np.floor(p * 1e4) / 1e4)[::-1]:  # high to low, rounded down: each flags its own sentence
        flagged = (p >= t) | also
        if flagged.sum() >= min_flagged and estimate(flagged, wrong, weights)["precision"] >= precision:
            best = float(t)
    return best


def choose_threshold(p: np.ndarray, wrong: np.ndarray, weights: np.ndarray, precision: float,
                     min_flagged: int = 20) -> float:
    """lowest_threshold, or ValueError when no threshold reaches ``precision``."""
    best = lowest_threshold(p, wrong, weights, precision, min_flagged=min_flagged)
    if best is None:
        raise ValueError(f"no threshold reaches a judged precision of {precision:.0%}")
    return best


# candidate cut-offs for "a source word this unlikely to the reverse model was dropped or changed" (0: off); all
# below model.quality.MISSING_P, so the word that sets off a flag is always among the words the page names
MISSING_CANDIDATES = (0.0, 1e-6, 3e-6, 1e-5, 3e-5, 1e-4, 3e-4, 1e-3)


def choose_rule(p: np.ndarray, least_word: np.ndarray, wrong: np.ndarray, weights: np.ndarray, precision: float,
                candidates: tuple[float, ...] = MISSING_CANDIDATES) -> tuple[float, float]:
    """(threshold, missing_below): flag when p >= threshold or the least likely source word (least_word, by the
    reverse model) is below missing_below. For each candidate missing_below, the lowest threshold whose flags reach
    ``precision`` (lowest_threshold); of those, the pair that catches the most judged wrong translations (ties: the
    smaller missing_below). ValueError when no pair reaches ``precision``."""
    best = None
    for m in sorted(candidates):
        t = lowest_threshold(p, wrong, weights, precision, also=least_word < m)
        if t is None:
            continue
        recall = estimate((p >= t) | (least_word < m), wrong, weights)["recall"]
        if best is None or recall > best[0]:
            best = (recall, t, m)
    if best is None:
        raise ValueError(f"no threshold reaches a judged precision of {precision:.0%}")
    return best[1], best[2]


L2_CANDIDATES = (1.0, 3.0, 10.0, 30.0, 100.0, 300.0, 1000.0)


def out_of_fold(x: np.ndarray, wrong: np.ndarray, weights: np.ndarray, l2: float, folds: int = 5,
                seed: int = 0, signs: np.ndarray | None = None) -> np.ndarray:
    """(n,) each judged sentence's p from a logistic fit (weighted by ``weights``; its weights keeping ``signs``,
    default all free) on the other folds: what the fit says of sentences it did not see. x: (n, F) standardised
    features. Folds by a fixed permutation."""
    signs = np.zeros(x.shape[1]) if signs is None else signs
    fold = np.random.default_rng(seed).permutation(len(x)) % folds
    p = np.zeros(len(x))
    for k in range(folds):
        train = fold != k
        w, b = fit_logistic_signed(x[train], wrong[train].astype(float), signs, l2=l2,
                                   weights=weights[train] / weights[train].mean())
        p[~train] = predict_logistic(x[~train], w, b)
    return p


def choose_l2(x: np.ndarray, wrong: np.ndarray, weights: np.ndarray, precision: float,
              candidates: tuple[float, ...] = L2_CANDIDATES, signs: np.ndarray | None = None) -> tuple[float, dict]:
    """The L2 penalty whose out-of-fold p catch the most judged wrong translations at ``precision`` (lowest_threshold
    on those p; ties: the stronger penalty), and that figure: {"l2", "recall", "precision", "threshold"}.
    ValueError when no candidate reaches ``precision``."""
    best = None
    for l2 in sorted(candidates, reverse=True):
        p = out_of_fold(x, wrong, weights, l2, signs=signs)
        t = lowest_threshold(p, wrong, weights, precision)
        if t is None:
            continue
        est = estimate(p >= t, wrong, weights)
        if best is None or est["recall"] > best["recall"]:
            best = {"l2": l2, "recall": est["recall"], "precision": est["precision"], "threshold": t}
    if best is None:
        raise ValueError(f"no L2 penalty's cross-validated fit reaches a judged precision of {precision:.0%}")
    return best["l2"], best


CALIBRATION_EDGES = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)


def calibration(p: np.ndarray, wrong: np.ndarray, weights: np.ndarray,
                edges: tuple[float, ...] = CALIBRATION_EDGES) -> dict:
    """Whether the fitted chance means what it says: the split's estimated mean p against its estimated wrong share,
    and within each band of p (weighted back to the split like every judged figure): {"mean_p", "wrong_share",
    "bins": [{"from", "to", "judged", "mean_p", "wrong_share"}]} (empty bands left out)."""
    w = np.asarray(weights, dtype=np.float64)
    bins = []
    for lo, hi in zip(edges, edges[1:]):
        inside = (p >= lo) & ((p < hi) if hi < edges[-1] else (p <= hi))
        if inside.any():
            bins.append({"from": lo, "to": hi, "judged": int(inside.sum()),
                         "mean_p": round(float((w[inside] * p[inside]).sum() / w[inside].sum()), 4),
                         "wrong_share": round(float((w[inside] * wrong[inside]).sum() / w[inside].sum()), 4)})
    return {"mean_p": round(float((w * p).sum() / w.sum()), 4), "wrong_share": round(float((w * wrong).sum() / w.sum()), 4),
            "bins": bins}


def interval(flagged: np.ndarray, wrong: np.ndarray, in_bad_stratum: np.ndarray, n_bad: int, n_good: int,
             rounds: int = 2000, seed: int = 0) -> dict:
    """95% bootstrap intervals of recall and precision: each stratum's judged sentences drawn again with
    replacement, ``rounds`` times (a fixed seed: the same figures every run)."""
    rng = np.random.default_rng(seed)
    bad_idx, good_idx = np.flatnonzero(in_bad_stratum), np.flatnonzero(~in_bad_stratum)
    recalls, precisions = [], []
    for _ in range(rounds):
        idx = np.concatenate([rng.choice(bad_idx, len(bad_idx)), rng.choice(good_idx, len(good_idx))])
        est = estimate(flagged[idx], wrong[idx], stratum_weights(in_bad_stratum[idx], n_bad, n_good))
        recalls.append(est["recall"])
        if flagged[idx].any():  # a draw without flags has no precision
            precisions.append(est["precision"])
    return {"recall_95": [round(float(np.percentile(recalls, q)), 4) for q in (2.5, 97.5)],
            "precision_95": [round(float(np.percentile(precisions, q)), 4) for q in (2.5, 97.5)]}
