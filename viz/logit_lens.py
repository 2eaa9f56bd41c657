"""Logit lens: the decoder's output projection applied after every decoder layer."""

from __future__ import annotations

import html

import numpy as np
import plotly.graph_objects as go

from i18n import t
from viz.arrays import as_array
from viz.style import base_layout, token_axis
from viz.tokens import readable


def lens_top(layer_outputs, unembed, blocked: tuple[int, ...] = ()) -> tuple[np.ndarray, np.ndarray]:
    """layer_outputs (L, T, D) already in the space the projection expects; unembed (V, D).

    -> (top ids (L, T), their probabilities (L, T)) of softmax(h @ unembed^T), with the ``blocked``
    ids (pad, bos: never produced) removed as decoding removes them.
    """
    # float32, the model's own precision: float64 doubled the time of this (L*T, D) x (D, V) product
    h, e = (np.asarray(x.detach().float().numpy() if hasattr(x, "detach") else x, dtype=np.float32)
            for x in (layer_outputs, unembed))
    logits = h @ e.T  # (L, T, D) x (D, V) -> (L, T, V)
    if blocked:
        logits[..., list(blocked)] = -np.inf
    logits -= logits.max(-1, keepdims=True)
    probs = np.exp(logits)
    probs /= probs.sum(-1, keepdims=True)
    top = probs.argmax(-1)
    return top, np.take_along_axis(probs, top[..., None], -1)[..., 0]


def logit_lens(layer_outputs, unembed, tgt_tokens: list[str], id_to_piece, blocked: tuple[int, ...] = ()) -> go.Figure:
    """Rows: decoder layers; columns: decoder positions; cell: top next token and its probability."""
    h = as_array(layer_outputs)
    top, p = lens_top(h, unembed, blocked)
    words = np.vectorize(lambda i: html.escape(readable(id_to_piece(int(i))), quote=False))(top)
    n_l = h.shape[0]
    fig = go.Figure(go.Heatmap(
        z=p, x=list(range(len(tgt_tokens))), y=list(range(n_l)), zmin=0, zmax=1, colorscale="Greens",
        text=words, texttemplate="%{text}", textfont=dict(size=10), customdata=words,
        colorbar=dict(title=dict(text="p(top)")),
        # %{y} and %{x} hover as their tick labels ("after layer 1", the token): not repeated here
        hovertemplate=t("server.viz.lens.hover", layer="%{y}", token="%{x}", top="%{customdata}")
        + "<br>p = %{z:.4f}<extra></extra>",
    ))
    fig.update_xaxes(**token_axis(tgt_tokens, t("server.viz.lens.axis_x")), tickangle=-45)
    fig.update_yaxes(tickmode="array", tickvals=list(range(n_l)),
                     ticktext=[t("server.viz.lens.after", layer=i) for i in range(n_l)],
                     title_text=t("server.viz.lens.axis_y"), autorange="reversed")
    return base_layout(fig, t("server.viz.lens.title"), height=200 + 70 * n_l, width=max(700, 70 * len(tgt_tokens) + 200))
