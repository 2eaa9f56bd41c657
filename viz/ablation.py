"""What switching heads off did: the probability of each token of the original translation, intact vs heads off."""

from __future__ import annotations

import html

import numpy as np
import plotly.graph_objects as go

from viz.style import base_layout
from viz.tokens import readable


def effect_summary(tokens: list[str], p_intact: list[float], p_off: list[float]) -> str:
    """One paragraph: the mean change of the original tokens' probabilities and the step that lost most."""
    change = np.array(p_off) - np.array(p_intact)
    worst = int(np.argmin(change))
    return (f"Probability of each original token with its prefix forced, intact → heads off: mean change "
            f"{change.mean():+.3f}; largest drop at step {worst} ({readable(tokens[worst])}): "
            f"{p_intact[worst]:.3f} → {p_off[worst]:.3f}.")


def ablation_effect(tokens: list[str], p_intact: list[float], p_off: list[float], n_off: int) -> go.Figure:
    """Two bars per step of the original output (its tokens, then EOS): p(token) intact and with the heads off."""
    if not (len(tokens) == len(p_intact) == len(p_off)):
        raise ValueError(f"{len(tokens)} tokens, {len(p_intact)} and {len(p_off)} probabilities")
    steps = list(range(len(tokens)))
    labels = [f"{t}: {html.escape(readable(tok), quote=False)}" for t, tok in zip(steps, tokens)]
    change = [b - a for a, b in zip(p_intact, p_off)]
    fig = go.Figure([
        go.Bar(x=steps, y=p_intact, name="intact", marker_color="#1f77b4", customdata=labels,
               hovertemplate="step %{customdata}<br>intact: p = %{y:.3f}<extra></extra>"),
        go.Bar(x=steps, y=p_off, name=f"{n_off} head(s) off", marker_color="#d62728",
               customdata=np.stack([labels, [f"{c:+.3f}" for c in change]], axis=-1),
               hovertemplate="step %{customdata[0]}<br>heads off: p = %{y:.3f} (%{customdata[1]})<extra></extra>"),
    ])
    fig.update_xaxes(tickmode="array", tickvals=steps, ticktext=labels, tickangle=-45,
                     title_text="step: token of the original translation")
    fig.update_yaxes(title_text="p(token | source, prefix)", range=[0, 1.05])
    fig.update_layout(barmode="group", legend=dict(orientation="h", y=1.02, yanchor="bottom", x=1, xanchor="right"))
    return base_layout(fig, "What the heads did: each original token's probability, intact and with the heads off",
                       height=460, width=max(700, 60 * len(tokens) + 200))
