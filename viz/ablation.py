"""What switching heads off did: the probability of each token of the original translation, intact vs heads off."""

from __future__ import annotations

import html

import numpy as np
import plotly.graph_objects as go

from i18n import num, t
from viz.style import DIVERGING_SCALE, axis_id, base_layout, grid, signed, token_axis
from viz.tokens import readable


def effect_summary(tokens: list[str], p_intact: list[float], p_off: list[float], change: str | None = None) -> str:
    """One paragraph: the mean change of the original tokens' probabilities and the step that lost most.
    ``change`` names the two runs (default "intact → heads off")."""
    diff = np.array(p_off) - np.array(p_intact)
    worst = int(np.argmin(diff))
    return t("server.viz.effect_summary", change=t("server.viz.intact_to_off") if change is None else change,
             mean=signed(diff.mean(), 3), step=worst, token=readable(tokens[worst]), before=num(p_intact[worst], 3),
             after=num(p_off[worst], 3))


def probability_bars(tokens: list[str], p_before: list[float], p_after: list[float], before: str, after: str,
                     title: str, after_colour: str = "#d62728") -> go.Figure:
    """Two bars per step of the original output (its tokens, then EOS): p(token | its prefix) before and after a
    change (heads switched off, a source word edited). ``before``/``after`` name the bars (escaped here)."""
    if not (len(tokens) == len(p_before) == len(p_after)):
        raise ValueError(f"{len(tokens)} tokens, {len(p_before)} and {len(p_after)} probabilities")
    steps = list(range(len(tokens)))
    labels = [f"{i}: {html.escape(readable(tok), quote=False)}" for i, tok in zip(steps, tokens)]
    change = [b - a for a, b in zip(p_before, p_after)]
    before, after = (html.escape(n, quote=False) for n in (before, after))
    fig = go.Figure([
        go.Bar(x=steps, y=p_before, name=before, marker_color="#1f77b4", customdata=labels,
               hovertemplate=t("server.viz.step", step="%{customdata}")
               + f"<br>{before}: p = %{{y:.3f}}<extra></extra>"),
        go.Bar(x=steps, y=p_after, name=after, marker_color=after_colour,
               customdata=np.stack([labels, [signed(c, 3) for c in change]], axis=-1),
               hovertemplate=t("server.viz.step", step="%{customdata[0]}")
               + f"<br>{after}: p = %{{y:.3f}} (%{{customdata[1]}})<extra></extra>"),
    ])
    fig.update_xaxes(tickmode="array", tickvals=steps, ticktext=labels, tickangle=-45,
                     title_text=t("server.viz.axis.original_step"))
    fig.update_yaxes(title_text=t("server.viz.axis.p_token"), range=[0, 1.05])
    fig.update_layout(barmode="group", legend=dict(orientation="h", y=1.02, yanchor="bottom", x=1, xanchor="right"))
    return base_layout(fig, title, height=460, width=max(700, 60 * len(tokens) + 200))


def ablation_effect(tokens: list[str], p_intact: list[float], p_off: list[float], n_off: int) -> go.Figure:
    """Two bars per step of the original output (its tokens, then EOS): p(token) intact and with the heads off."""
    return probability_bars(tokens, p_intact, p_off, t("server.viz.intact"), t("server.viz.heads_off", n=n_off),
                            t("server.viz.ablation_title"))


def attention_difference(intact, ablated, query_tokens: list[str], key_tokens: list[str]) -> go.Figure:
    """Cross-attention of every decoder layer (heads averaged; (L, Tq, Tk) each) with the heads off minus intact,
    both on the original translation, one symmetric scale: red where a query looks more, blue less; exactly 0 when
    nothing is off. A head switched off changes what it passes on, not its own weights: layers after it change."""
    a, b = np.asarray(intact, dtype=float), np.asarray(ablated, dtype=float)
    if a.shape != b.shape or a.shape[1:] != (len(query_tokens), len(key_tokens)):
        raise ValueError(f"attention of shapes {a.shape} and {b.shape} for {len(query_tokens)} x {len(key_tokens)} tokens")
    d = b - a  # (L, Tq, Tk)
    n_l = d.shape[0]
    span = max(float(np.abs(d).max()), 0.05)  # a symmetric scale; no change stays white
    layout = grid(1, n_l, [t("server.viz.layer", layer=layer) for layer in range(n_l)], hgap=0.04)
    traces = []
    for layer in range(n_l):
        ax = axis_id(layer)
        traces.append(go.Heatmap(
            z=d[layer], x=list(range(len(key_tokens))), y=list(range(len(query_tokens))), coloraxis="coloraxis",
            xaxis=f"x{ax}", yaxis=f"y{ax}",
            hovertemplate=t("server.viz.difference_hover", layer=layer, y="%{y}", x="%{x}", z="%{z:+.3f}")
            + "<extra></extra>"))
        layout[f"xaxis{ax}"].update(token_axis(key_tokens, t("server.viz.axis.key_source") if layer == 0 else ""),
                                    tickangle=-60)
        layout[f"yaxis{ax}"].update(token_axis(query_tokens, t("server.viz.axis.query_input") if layer == 0 else ""),
                                    autorange="reversed", showticklabels=layer == 0)
    layout["coloraxis"] = dict(colorscale=DIVERGING_SCALE, reversescale=True, cmin=-span, cmax=span, cmid=0,
                               colorbar=dict(title=dict(text=t("server.viz.change"))))
    fig = go.Figure(data=traces, layout=layout)
    n = max(len(query_tokens), len(key_tokens))
    return base_layout(fig, t("server.viz.difference_title"), height=int(min(800, max(440, 18 * n + 220))),
                       width=1200)
