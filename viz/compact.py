"""Figures made small for the wire: float arrays rounded to a few significant digits, sent as JSON lists.

plotly serialises numpy arrays as base64 float64 (about 11 bytes a number); attention weights,
probabilities and positional encodings need no more than 3-4 significant digits on a screen.
"""

from __future__ import annotations

import base64
import json
from typing import Any

import numpy as np
import plotly.graph_objects as go
from plotly.utils import PlotlyJSONEncoder

DIGITS = 4  # significant digits kept


def _round(x: Any) -> Any:
    if isinstance(x, np.ndarray):
        if x.dtype.kind == "f":
            with np.errstate(divide="ignore", invalid="ignore"):
                scale = np.where(x == 0, 1.0, 10.0 ** (DIGITS - 1 - np.floor(np.log10(np.abs(x) + (x == 0)))))
                return (np.round(x * scale) / scale).tolist()
        return x.tolist()
    if isinstance(x, dict) and "bdata" in x and "dtype" in x:  # plotly 6 already wrote the array as base64
        flat = np.frombuffer(base64.b64decode(x["bdata"]), dtype=np.dtype(x["dtype"]))
        shape = [int(n) for n in str(x.get("shape", len(flat))).split(",")]
        return _round(flat.reshape(shape))
    if isinstance(x, dict):
        return {k: _round(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_round(v) for v in x]
    if isinstance(x, float) and x != 0 and np.isfinite(x):
        return float(f"{x:.{DIGITS}g}")
    return x


def compact_json(fig: go.Figure) -> str:
    """The figure's JSON with its traces' numbers rounded to DIGITS significant digits."""
    d = fig.to_plotly_json()
    d["data"] = [_round(t) for t in d["data"]]
    return json.dumps(d, cls=PlotlyJSONEncoder, separators=(",", ":"))


def plot_value(fig: go.Figure | None) -> dict | None:
    """gr.Plot's value (its API format), from a figure."""
    if fig is None:
        return None
    return {"type": "plotly", "plot": compact_json(fig)}
