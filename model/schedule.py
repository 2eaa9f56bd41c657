"""The learning-rate schedule of the paper (equation 3), shared by training and by the Model tab that draws it."""

from __future__ import annotations

import math


def lr_at(step: int, peak: float, warmup: int) -> float:
    """Paper eq. 3 rescaled so the peak is ``peak`` at step ``warmup``: peak * min(s/w, sqrt(w/s))."""
    step = max(step, 1)
    return peak * min(step / warmup, math.sqrt(warmup / step))
