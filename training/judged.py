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
            if not set(judged) <= set(LABELS):
                raise ValueError(f"labels other than {LABELS}: {sorted(set(judged) - set(LABELS))}")
            lines = np.array([int(it["line"]) for it in items])
            if (lines < 0).any() or len(set(lines.tolist())) != len(lines):
                raise ValueError(f"{s['corpus']}/{s['split']}: line numbers must be distinct and not negative")
            samples.append(Sample(s["corpus"], s["split"], lines, judged, [str(it["translation"]) for it in items],
                                  [str(it["source_sha256"]) for it in items]))
        return str(data["weights_sha256"]), samples
    except (OSError, KeyError, TypeError, ValueError) as e:
        raise ValueError(f"{path}: not a judgements file ({e})") from None


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


def choose_threshold(p: np.ndarray, wrong: np.ndarray, weights: np.ndarray, precision: float,
                     min_flagged: int = 20) -> float:
    """The lowest threshold whose flags are judged wrong (or partly) at least ``precision`` of the time, among
    thresholds that flag at least ``min_flagged`` judged sentences (fewer would make the figure a coin toss)."""
    best = None
    for t in np.unique(np.floor(p * 1e4) / 1e4)[::-1]:  # high to low, rounded down: each flags its own sentence
        flagged = p >= t
        if flagged.sum() >= min_flagged and estimate(flagged, wrong, weights)["precision"] >= precision:
            best = float(t)
    if best is None:
        raise ValueError(f"no threshold reaches a judged precision of {precision:.0%}")
    return best


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
