"""Inside one head: from a query vector and the key vectors to the head's output, step by step."""

from __future__ import annotations

import html
import math

import numpy as np
import plotly.graph_objects as go

from i18n import num, t
from viz.arrays import as_array
from viz.style import DIVERGING_SCALE, MASKED, axis_id, base_layout, masked_hover, token_axis
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


# make_subplots(rows=3, cols=2, row_heights=[0.25, 0.4, 0.35], vertical_spacing=0.17, horizontal_spacing=0.14)
# as plain domains: building the figure from dicts is ~5x cheaper than make_subplots plus per-panel updates
_COLS = ([0.0, 0.43], [0.57, 1.0])
_ROWS = ([0.835, 1.0], [0.401, 0.665], [0.0, 0.231])
_ROW_PX = 140  # the K panel's height in px (the lower of K and V): 0.165 of the 850 px inside a 1000 px figure's margins


def inside_head(q, k, v, scores, weights, query_tokens: list[str], key_tokens: list[str], query_index: int,
                layer: int, head: int, kind: str) -> go.Figure:
    """q_i, K, q_i.k_j / sqrt(d_k), the mask, softmax, V and sum_j w_j v_j laid out top to bottom. ``kind`` names
    the attention in the title ("encoder self": "Inside encoder self attention")."""
    a = head_arithmetic(q, k, v, scores, weights, query_index)
    d_k = a["q"].shape[0]
    dims = list(range(d_k))
    keys = list(range(len(key_tokens)))
    qname = html.escape(readable(query_tokens[query_index]), quote=False)  # (plotly reads a title as HTML)
    # short: two panels side by side must not overlap on a 390 px phone (the figure's title names the query)
    titles = [t("server.viz.inside.q", n=d_k), t("server.viz.inside.k"), t("server.viz.inside.scores"),
              t("server.viz.inside.softmax"), t("server.viz.inside.v"), t("server.viz.inside.output")]
    key, masked_text, masked_word = t("server.viz.inside.key"), masked_hover(), t("server.viz.inside.masked")
    hover_k = hover_labels(key_tokens)
    per_cell = np.repeat(np.array(hover_k, dtype=object)[:, None], d_k, 1).tolist()  # (Tk, d_k) hover labels
    heat = dict(type="heatmap", colorscale=DIVERGING_SCALE, zmid=0, showscale=False)
    # a masked key's bar stands at the height of the tallest real one, grey and hatched, named in the hover: a
    # zero-height bar showed nothing (its score is −∞ before softmax, its weight exactly 0)
    masked = a["masked"]
    tallest_score = float(np.abs(a["raw"][~masked]).max()) if (~masked).any() else 1.0
    tallest_weight = float(a["weights"].max()) or 1.0
    hatch = dict(shape=["/" if m else "" for m in masked], fgcolor="#7f7f7f")
    colours = [MASKED if m else "#1f77b4" for m in masked]
    data = [
        dict(heat, z=a["q"][None, :], x=dims, hovertemplate="q[%{x}] = %{z:.4f}<extra></extra>"),
        dict(heat, z=a["k"], x=dims, y=keys, customdata=per_cell,
             hovertemplate=f"{key} %{{customdata}}<br>k[%{{x}}] = %{{z:.4f}}<extra></extra>"),
        dict(type="bar", x=keys, y=np.where(masked, tallest_score, a["raw"]), marker=dict(color=colours, pattern=hatch),
             text=[masked_word if m else "" for m in masked],
             hovertext=[f"{key} {k}<br>{masked_text}" if m else f"{key} {k}<br>q·k/√d_k = {num(r, 4)}"
                        for k, m, r in zip(hover_k, masked, a["raw"])], hovertemplate="%{hovertext}<extra></extra>"),
        dict(type="bar", x=keys, y=np.where(masked, tallest_weight, a["weights"]),
             marker=dict(color=[MASKED if m else "#2ca02c" for m in masked], pattern=hatch),
             text=[masked_word if m else "" for m in masked],
             hovertext=[f"{key} {k}<br>{masked_text}" if m
                        else f"{key} {k}<br>{t('server.viz.weight')} = {num(w, 4)}"
                        for k, m, w in zip(hover_k, masked, a["weights"])], hovertemplate="%{hovertext}<extra></extra>"),
        dict(heat, z=a["v"], x=dims, y=keys, customdata=per_cell,
             hovertemplate=f"{key} %{{customdata}}<br>v[%{{x}}] = %{{z:.4f}}<extra></extra>"),
        dict(heat, z=a["output"][None, :], x=dims, hovertemplate="output[%{x}] = %{z:.4f}<extra></extra>"),
    ]
    layout: dict = {"annotations": [], "showlegend": False}
    dimension = dict(title=dict(text=t("server.viz.inside.dimension")))
    key_token = t("server.viz.inside.key_token")
    key_rows = dict(token_axis(key_tokens, key_token), autorange="reversed")
    # the K and V panels' rows: about 140 px for all keys in K; where a row is under 13 px (11 keys and more) only
    # every k-th word is written, at 11 px (14 and 20 keys' words were written over each other: helper 16; the
    # hover and the text alternative name every row)
    every = -(-13 * len(key_tokens) // _ROW_PX)
    words = list(key_rows["ticktext"])  # every key's word (the page's text alternative reads them from meta)
    if every > 1:
        key_rows["ticktext"] = [w if j % every == 0 else "" for j, w in enumerate(words)]
        key_rows["tickfont"] = dict(size=11)
    axes = [(dimension, dict(showticklabels=False)), (dimension, key_rows),
            (dict(token_axis(key_tokens, key_token), tickangle=-45), dict(title=dict(text=t("server.viz.inside.score")))),
            (dict(token_axis(key_tokens, key_token), tickangle=-45), dict(title=dict(text=t("server.viz.weight")))),
            (dimension, key_rows), (dimension, dict(showticklabels=False))]
    for i, (trace, (x_axis, y_axis)) in enumerate(zip(data, axes)):
        (x0, x1), (y0, y1), a_id = _COLS[i % 2], _ROWS[i // 2], axis_id(i)
        trace.update(xaxis=f"x{a_id}", yaxis=f"y{a_id}")
        layout[f"xaxis{a_id}"] = dict(x_axis, domain=[x0, x1], anchor=f"y{a_id}")
        layout[f"yaxis{a_id}"] = dict(y_axis, domain=[y0, y1], anchor=f"x{a_id}")
        layout["annotations"].append(dict(text=titles[i], x=(x0 + x1) / 2, y=y1, xref="paper", yref="paper",
                                          xanchor="center", yanchor="bottom", showarrow=False, font=dict(size=12)))
    fig = base_layout(go.Figure(dict(data=data, layout=layout)), t("server.viz.inside.title", kind=kind, layer=layer,
                      head=head, query=query_index, token=t("server.quoted", text=qname)), height=1000, width=1100)
    if every > 1:  # every key's word, for the page's text alternative (figures.js), where the panels write some
        fig.layout.meta = dict(fig.layout.meta, aeWords={"yaxis2": words, "yaxis5": words})
    return fig
