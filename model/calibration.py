"""How sure a checkpoint usually is of its own translations, measured on its validation split and kept in
``metrics.json`` under "confidence", so that "unsure" means unsure for *this* model.

A translation's confidence is the mean log-probability of the tokens greedy decoding chose (EOS included). The
floor is the ``quantile`` of that over the split (0.05: the least sure 5% of in-domain sentences fall below it).
A better-regularised model is less sure of itself on everything, so a floor calibrated on one model is wrong for
the next one: the previous en-de needed -1.2 to flag what -1.0 flags for the current one.

    python -m model.evaluate --checkpoint en-de --split val --calibrate-confidence
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

    def to_dict(self) -> dict[str, Any]:
        return {"low_mean_logprob": self.floor, "median_mean_logprob": self.median, "quantile": self.quantile,
                "split": self.split, "sentences": self.sentences}


def mean_logprob(probs: list[float]) -> float | None:
    """Mean log-probability of the chosen tokens (probabilities as decoding recorded them)."""
    return sum(math.log(max(p, 1e-12)) for p in probs) / len(probs) if probs else None


def calibrate(scores: list[float], split: str, quantile: float = QUANTILE) -> Calibration:
    """Scores (one mean log-probability per sentence of ``split``) -> the floor at ``quantile``."""
    if not 0 < quantile < 0.5:
        raise ValueError(f"quantile must lie in (0, 0.5), got {quantile}")
    if len(scores) < 100:
        raise ValueError(f"{len(scores)} sentences are too few to calibrate on (at least 100)")
    a = np.asarray(scores, dtype=np.float64)
    return Calibration(round(float(np.quantile(a, quantile)), 4), round(float(np.median(a)), 4), quantile, split,
                       len(scores))


def read_calibration(metrics: dict[str, Any], where: str) -> Calibration | None:
    """metrics.json's "confidence" section -> a Calibration (None when the checkpoint has none). ``where`` names
    the file in the error."""
    data = metrics.get(KEY)
    if data is None:
        return None
    try:
        floor, median = float(data["low_mean_logprob"]), float(data["median_mean_logprob"])
        quantile, split, n = float(data["quantile"]), str(data["split"]), int(data["sentences"])
    except (TypeError, KeyError, ValueError) as e:
        raise ValueError(f"{where}: \"{KEY}\" needs low_mean_logprob, median_mean_logprob, quantile, split and "
                         f"sentences ({type(e).__name__}: {e})") from None
    if not (math.isfinite(floor) and math.isfinite(median) and floor <= median <= 0 and 0 < quantile < 0.5):
        raise ValueError(f"{where}: \"{KEY}\" must have low_mean_logprob <= median_mean_logprob <= 0 and "
                         f"0 < quantile < 0.5, got {data}")
    return Calibration(floor, median, quantile, split, n)
