"""How sure a checkpoint usually is of its own translations, measured on its validation split and kept in
``metrics.json`` under "confidence", so that "unsure" means unsure for *this* model.

A translation's confidence is the mean log-probability of the tokens greedy decoding chose (EOS included). The
floor is the ``quantile`` of that over the split (0.05: the least sure 5% of in-domain sentences fall below it).
A better-regularised model is less sure of itself on everything, so a floor calibrated on one model is wrong for
the next one (-1.2 flagged 2.9% of val for the previous en-de, 1.4% for the current one). The calibration
records the SHA-256 of the weights it was measured on, and is ignored for any other weights (a model retrained or
compressed into the same folder) until it is measured again.

    python -m training.evaluate --checkpoint en-de --split val --calibrate-confidence
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

KEY = "confidence"
QUANTILE = 0.05


@dataclass(frozen=True)
class Calibration:
    floor: float  # mean log-probability below which a translation is called unsure
    median: float  # the split's median mean log-probability
    quantile: float  # the share of the split below ``floor``
    split: str
    sentences: int
    weights_sha256: str = ""  # the weights it was measured on

    def to_dict(self) -> dict[str, Any]:
        return {"low_mean_logprob": self.floor, "median_mean_logprob": self.median, "quantile": self.quantile,
                "split": self.split, "sentences": self.sentences, "weights_sha256": self.weights_sha256}


def mean_logprob(probs: list[float]) -> float | None:
    """Mean log-probability of the chosen tokens (probabilities as decoding recorded them)."""
    return sum(math.log(max(p, 1e-12)) for p in probs) / len(probs) if probs else None


def check_quantile(quantile: float) -> None:
    if not 0 < quantile < 0.5:
        raise ValueError(f"quantile must lie in (0, 0.5), got {quantile}")


def calibrate(scores: list[float], split: str, quantile: float = QUANTILE, weights_sha256: str = "") -> Calibration:
    """Scores (one mean log-probability per sentence of ``split``) -> the floor at ``quantile``."""
    check_quantile(quantile)
    if len(scores) < 100:
        raise ValueError(f"{len(scores)} sentences are too few to calibrate on (at least 100)")
    a = np.asarray(scores, dtype=np.float64)
    return Calibration(round(float(np.quantile(a, quantile)), 4), round(float(np.median(a)), 4), quantile, split,
                       len(scores), weights_sha256)


def read_calibration(metrics: Any, where: str, weights_sha256: str | None = None) -> Calibration | None:
    """metrics.json's "confidence" section -> a Calibration; None when the checkpoint has none, or when it was
    measured on other weights than ``weights_sha256`` (when given). A malformed section raises ValueError naming
    ``where``."""
    data = metrics.get(KEY) if isinstance(metrics, dict) else None
    if data is None:
        return None
    try:
        if not isinstance(data, dict):
            raise TypeError("not an object")
        floor, median = float(data["low_mean_logprob"]), float(data["median_mean_logprob"])
        quantile, split, n = float(data["quantile"]), data["split"], int(data["sentences"])
        sha = data.get("weights_sha256", "")
    except (TypeError, KeyError, ValueError, OverflowError) as e:
        raise ValueError(f"{where}: \"{KEY}\" needs low_mean_logprob, median_mean_logprob, quantile, split and "
                         f"sentences ({type(e).__name__}: {e})") from None
    if not (math.isfinite(floor) and math.isfinite(median) and floor < 0 and floor <= median <= 0
            and 0 < quantile < 0.5 and n >= 1 and isinstance(split, str) and split.strip() and isinstance(sha, str)):
        raise ValueError(f"{where}: \"{KEY}\" must have low_mean_logprob < 0, low_mean_logprob <= "
                         f"median_mean_logprob <= 0, 0 < quantile < 0.5, sentences >= 1, a split name and "
                         f"weights_sha256 as text; got {data}")
    if weights_sha256 is not None and sha != weights_sha256:
        return None  # measured on other weights: say nothing rather than use another model's floor
    return Calibration(floor, median, quantile, split, n, sha)
