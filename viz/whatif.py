"""What-if views: the next-token distribution after a forced prefix (and where that position looks in the source),
and what editing one source token did to each token of the original translation."""

from __future__ import annotations

import html

import numpy as np
import plotly.graph_objects as go

from i18n import t
from viz.ablation import probability_bars
from viz.attention import weight_hover
from viz.style import ATTENTION_SCALE, base_layout, token_axis
from viz.tokens import readable


def _esc(piece: str) -> str:
    return html.escape(readable(piece), quote=False)


def next_token_figure(top_tokens: list[str], top_probs: list[float], prefix_tokens: list[str]) -> go.Figure:
    """Bars: the most likely next tokens after the forced prefix."""
    labels = [_esc(t) for t in top_tokens]
    fig = go.Figure(go.Bar(x=list(range(len(labels))), y=top_probs, marker_color="#1f77b4", customdata=labels,
                           hovertemplate="%{customdata}: p = %{y:.3f}<extra></extra>"))
    fig.update_xaxes(tickmode="array", tickvals=list(range(len(labels))), ticktext=labels,
                     title_text=t("server.viz.whatif.next"))
    fig.update_yaxes(title_text=t("server.viz.whatif.p_next"), range=[0, 1.05])
    prefix = " ".join(_esc(tok) for tok in prefix_tokens) or t("server.viz.whatif.nothing")
    return base_layout(fig, t("server.viz.whatif.title", prefix=prefix), height=380, width=800)


def prefix_attention_figure(cross, src_tokens: list[str]) -> go.Figure:
    """cross (L, H, S): where each head of each layer looks in the source from the last prefix position."""
    w = np.asarray(cross, dtype=float)
    n_l, n_h, n_s = w.shape
    if n_s != len(src_tokens):
        raise ValueError(f"attention over {n_s} keys for {len(src_tokens)} source tokens")
    rows = w.reshape(n_l * n_h, n_s)  # (L, H, S) -> (L * H, S)
    labels = [f"L{layer} H{head}" for layer in range(n_l) for head in range(n_h)]
    fig = go.Figure(go.Heatmap(z=rows, x=list(range(n_s)), y=list(range(len(labels))), coloraxis="coloraxis",
                               customdata=[[f"{lab} → {_esc(tok)}" for tok in src_tokens] for lab in labels],
                               hovertemplate=weight_hover(".3f")))
    fig.update_xaxes(token_axis(src_tokens, t("server.viz.axis.source_token")), tickangle=-60)
    fig.update_yaxes(tickmode="array", tickvals=list(range(len(labels))), ticktext=labels, autorange="reversed",
                     title_text=t("server.viz.whatif.layer_head"))
    fig.update_layout(coloraxis=dict(colorscale=ATTENTION_SCALE, cmin=0, cmax=1,
                                     colorbar=dict(title=dict(text=t("server.viz.weight")))))
    return base_layout(fig, t("server.viz.whatif.cross_title"), height=int(max(360, 22 * len(labels) + 180)), width=900)


def edit_effect(out_tokens: list[str], p_original: list[float], p_edited: list[float], edit: str) -> go.Figure:
    """Two bars per step of the original translation: p(token | prefix) with the original source and the edited one."""
    return probability_bars(out_tokens, p_original, p_edited, t("server.viz.whatif.original"), edit,
                            t("server.viz.whatif.edit_title"), after_colour="#ff7f0e")
