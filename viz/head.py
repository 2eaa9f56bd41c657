"""Inside one head: from a query vector and the key vectors to the head's output, step by step."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from viz.arrays import as_array
from viz.style import DIVERGING_SCALE, base_layout, token_axis
from viz.tokens import hover_labels, readable


def head_arithmetic(q, k, v, scores, weights, query_index: int) -> dict[str, np.ndarray]:
    """The numbers of one query in one head. q (Tq, d_k), k and v (Tk, d_k), scores/weights (Tq, Tk).

    'raw' is q.k / sqrt(d_k) recomputed from q and k; 'masked' marks keys the mask removed (the
    captured score there is the dtype's minimum); 'output' = sum_j weight_j v_j.
    """
    q, k, v, scores, weights = (as_array(x) for x in (q, k, v, scores, weights))
    if not 0 <= query_index < q.shape[0]:
        raise ValueError(f"query index {query_index} out of range 0..{q.shape[0] - 1}")
    qi = q[query_index]
    raw = k @ qi / math.sqrt(q.shape[-1])  # (Tk, d_k) x (d_k,) -> (Tk,)
    masked = scores[query_index] <= np.finfo(np.float32).min / 2
    w = weights[query_index]
    return {"q": qi, "k": k, "v": v, "raw": raw, "masked": masked, "weights": w, "output": w @ v}


def inside_head(q, k, v, scores, weights, query_tokens: list[str], key_tokens: list[str], query_index: int,
                layer: int, head: int, kind: str) -> go.Figure:
    """q_i, K, q_i.k_j / sqrt(d_k), the mask, softmax, V and sum_j w_j v_j laid out top to bottom."""
    a = head_arithmetic(q, k, v, scores, weights, query_index)
    d_k = a["q"].shape[0]
    dims = list(range(d_k))
    keys = list(range(len(key_tokens)))
    qname = readable(query_tokens[query_index])
    fig = make_subplots(rows=3, cols=2, column_widths=[0.5, 0.5], vertical_spacing=0.17, horizontal_spacing=0.14,
                        row_heights=[0.25, 0.4, 0.35], subplot_titles=[
                            f"1. query vector q of “{qname}” ({d_k} numbers)",
                            "2. key vectors k_j, one row per key token",
                            "3. scores q·k_j / √d_k (grey = masked out)",
                            "4. softmax → attention weights (sum to 1)",
                            "5. value vectors v_j",
                            "6. output = Σ_j weight_j · v_j",
                        ])
    hover_k = hover_labels(key_tokens)
    fig.add_trace(go.Heatmap(z=a["q"][None, :], x=dims, colorscale=DIVERGING_SCALE, zmid=0, showscale=False,
                             hovertemplate="q[%{x}] = %{z:.4f}<extra></extra>"), row=1, col=1)
    fig.add_trace(go.Heatmap(z=a["k"], x=dims, y=keys, colorscale=DIVERGING_SCALE, zmid=0, showscale=False,
                             customdata=np.repeat(np.array(hover_k, dtype=object)[:, None], d_k, 1),
                             hovertemplate="key %{customdata}<br>k[%{x}] = %{z:.4f}<extra></extra>"), row=1, col=2)
    colours = ["#c7c7c7" if m else "#1f77b4" for m in a["masked"]]
    fig.add_trace(go.Bar(x=keys, y=np.where(a["masked"], 0, a["raw"]), marker_color=colours, customdata=hover_k,
                         text=["masked" if m else "" for m in a["masked"]],
                         hovertemplate="key %{customdata}<br>q·k/√d_k = %{y:.4f}<extra></extra>"), row=2, col=1)
    fig.add_trace(go.Bar(x=keys, y=a["weights"], marker_color="#2ca02c", customdata=hover_k,
                         hovertemplate="key %{customdata}<br>weight = %{y:.4f}<extra></extra>"), row=2, col=2)
    fig.add_trace(go.Heatmap(z=a["v"], x=dims, y=keys, colorscale=DIVERGING_SCALE, zmid=0, showscale=False,
                             customdata=np.repeat(np.array(hover_k, dtype=object)[:, None], d_k, 1),
                             hovertemplate="key %{customdata}<br>v[%{x}] = %{z:.4f}<extra></extra>"), row=3, col=1)
    fig.add_trace(go.Heatmap(z=a["output"][None, :], x=dims, colorscale=DIVERGING_SCALE, zmid=0, showscale=False,
                             hovertemplate="output[%{x}] = %{z:.4f}<extra></extra>"), row=3, col=2)
    for r, c in ((1, 1), (3, 2)):
        fig.update_yaxes(showticklabels=False, row=r, col=c)
        fig.update_xaxes(title_text="dimension of d_k", row=r, col=c)
    for r, c in ((1, 2), (3, 1)):
        fig.update_yaxes(**token_axis(key_tokens, "key token"), autorange="reversed", row=r, col=c)
        fig.update_xaxes(title_text="dimension of d_k", row=r, col=c)
    for c, t in ((1, "score"), (2, "weight")):
        fig.update_xaxes(**token_axis(key_tokens, "key token"), tickangle=-45, row=2, col=c)
        fig.update_yaxes(title_text=t, row=2, col=c)
    fig.update_layout(showlegend=False)
    fig.update_annotations(font_size=12)
    return base_layout(fig, f"Inside {kind} attention, layer {layer}, head {head}, query #{query_index} “{qname}”",
                       height=1000, width=1100)
