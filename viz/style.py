"""Shared look: colour scales, sizes, and the axis helper that keeps duplicate tokens distinct."""

from __future__ import annotations

import plotly.graph_objects as go

from viz.tokens import axis_labels

ATTENTION_SCALE = "Blues"
DIVERGING_SCALE = "RdBu"
FONT = dict(family="Inter, Helvetica, Arial, sans-serif", size=12)


def token_axis(pieces: list[str], title: str, font_size: int | None = None) -> dict:
    """A categorical-looking axis over numeric positions: tokens as tick text, every tick shown."""
    n = len(pieces)
    size = font_size or (12 if n <= 20 else 10 if n <= 32 else 8)
    return dict(
        title=dict(text=title), tickmode="array", tickvals=list(range(n)), ticktext=axis_labels(pieces),
        tickfont=dict(size=size), showgrid=False, zeroline=False,
    )


def base_layout(fig: go.Figure, title: str, height: int | None = None, width: int | None = None) -> go.Figure:
    fig.update_layout(title=dict(text=title, x=0.01, xanchor="left"), font=FONT, template="plotly_white",
                      margin=dict(l=80, r=30, t=70, b=80))
    if height:
        fig.update_layout(height=height)
    if width:
        fig.update_layout(width=width)
    return fig
