"""Attention heatmap of one head (or the average), the model view of all layers x heads, head statistics."""

from __future__ import annotations

import html
import math

import numpy as np
import plotly.graph_objects as go

from i18n import t
from viz.arrays import as_array
from viz.style import ATTENTION_SCALE, MASKED, axis_id, base_layout, cell_numbers, grid, masked_hover, token_axis
from viz.tokens import hover_labels, readable


def cell_hover(query_tokens: list[str], key_tokens: list[str], predicted: list[str] | None = None) -> np.ndarray:
    q, k = hover_labels(query_tokens), hover_labels(key_tokens)
    if predicted:  # a decoder query at position t is where token t+1 is chosen
        q = [t("server.viz.predicting", query=qi, token=html.escape(readable(p), quote=False))
             for qi, p in zip(q, predicted)]
    cell = t("server.viz.cell_hover")
    return np.array([[cell.format(query=qi, key=kj) for kj in k] for qi in q], dtype=object)


def causal(n_q: int, n_k: int) -> np.ndarray:
    """(Tq, Tk) True where decoder self-attention's mask removed the key: it comes after the query."""
    return np.arange(n_k)[None, :] > np.arange(n_q)[:, None]


def masked_trace(mask: np.ndarray, hover: str | None = None, **where) -> go.Heatmap:
    """Grey cells where ``mask`` is True (nothing elsewhere), named in the hover (default: the causal mask's);
    drawn over the weights, whose own cells there are gaps."""
    z = np.where(mask, 1.0, np.nan)
    where_hover = t("server.viz.masked_cell", y="%{y}", x="%{x}", hover=masked_hover() if hover is None else hover)
    return go.Heatmap(z=z, x=list(range(mask.shape[1])), y=list(range(mask.shape[0])), zmin=0, zmax=1,
                      colorscale=[[0, MASKED], [1, MASKED]], showscale=False, hoverongaps=False,
                      hovertemplate=f"{where_hover}<extra></extra>", **where)


def weight_hover(digits: str) -> str:
    """A heatmap cell's hover: its query and key (customdata), then its weight."""
    return f"%{{customdata}}<br>{t('server.viz.weight')}: %{{z:{digits}}}<extra></extra>"


def kind_title(kind: str) -> str:
    """ "Cross-attention", "Encoder self-attention", "Decoder self-attention (masked)" in the reader's language."""
    return t(f"server.viz.kind.{kind}")


def which_heads(head: int | None, n_heads: int | None = None) -> str:
    """ "mean of 4 heads" / "mean of heads" / "head 2": what a figure of one layer shows."""
    if head is not None:
        return t("server.viz.head", head=head)
    return t("server.viz.mean_of_heads") if n_heads is None else t("server.viz.mean_of_n_heads", n=n_heads)


def subtitle(kind: str, source: str = "English", target: str = "German") -> str:
    """What the rows and columns are, in the model's own terms (its task's source and target)."""
    return t(f"server.viz.subtitle.{kind}", source=source, target=target)


def attention_heatmap(
    attention,
    query_tokens: list[str],
    key_tokens: list[str],
    head: int | None = None,
    layer: int = 0,
    kind: str = "cross",
    predicted_tokens: list[str] | None = None,
    languages: tuple[str, str] = ("English", "German"),
) -> go.Figure:
    """One layer's attention (H, Tq, Tk): one head, or the mean over heads when head is None.

    Rows are queries (the tokens doing the looking), columns are keys (the tokens looked at).
    predicted_tokens (decoder queries): the token each row goes on to produce, shown on hover.
    """
    w = as_array(attention)
    if w.ndim != 3 or w.shape[1:] != (len(query_tokens), len(key_tokens)):
        raise ValueError(f"attention of shape {w.shape} does not fit {len(query_tokens)} queries x {len(key_tokens)} keys")
    if head is not None and not 0 <= head < w.shape[0]:
        raise ValueError(f"head {head} out of range 0..{w.shape[0] - 1}")
    z = w.mean(0) if head is None else w[head]
    which = which_heads(head, w.shape[0])
    mask = causal(*z.shape) if kind == "decoder" else np.zeros(z.shape, bool)
    fig = go.Figure(go.Heatmap(
        z=np.where(mask, np.nan, z), x=list(range(len(key_tokens))), y=list(range(len(query_tokens))), zmin=0, zmax=1,
        colorscale=ATTENTION_SCALE, customdata=cell_hover(query_tokens, key_tokens, predicted_tokens),
        hovertemplate=weight_hover(".4f"), hoverongaps=False,
        colorbar=dict(title=dict(text=t("server.viz.weight"))),
    ))
    if mask.any():
        fig.add_trace(masked_trace(mask))
    q_title = t("server.viz.axis.query_decoder" if kind in ("decoder", "cross") else "server.viz.axis.query_source")
    k_title = t("server.viz.axis.key_source" if kind in ("encoder", "cross") else "server.viz.axis.key_decoder")
    fig.update_xaxes(**token_axis(key_tokens, k_title), tickangle=-60, side="bottom", constrain="domain")
    # square cells whatever the container's width (a wide desktop column, a 390 px phone)
    fig.update_yaxes(**token_axis(query_tokens, q_title), autorange="reversed", scaleanchor="x", constrain="domain")
    n = max(len(query_tokens), len(key_tokens))
    size = int(min(900, max(420, 22 * n + 160)))
    sub = subtitle(kind, *languages)
    return base_layout(fig, t("server.viz.heatmap_title", kind=kind_title(kind), layer=layer, which=which, sub=sub),
                       height=size, width=max(640, size + 120))


PANEL_LABELS = 20  # at most this many token labels along a small panel's axis: more overlap (the hover names all)


def thinned(axis: dict, most: int = PANEL_LABELS) -> dict:
    """Every k-th tick label of a token axis kept (k so that at most ``most`` remain), the others blank."""
    labels = axis["ticktext"]
    k = -(-len(labels) // most)  # ceil
    return dict(axis, ticktext=[t if i % k == 0 else "" for i, t in enumerate(labels)])


def model_view(attention_layers, query_tokens: list[str], key_tokens: list[str], kind: str = "cross") -> go.Figure:
    """All layers x heads (L, H, Tq, Tk) as small multiples on one shared colour scale (0..1)."""
    w = as_array(attention_layers)
    if w.ndim != 4 or w.shape[2:] != (len(query_tokens), len(key_tokens)):
        raise ValueError(f"attention of shape {w.shape} does not fit {len(query_tokens)} x {len(key_tokens)} tokens")
    n_l, n_h = w.shape[:2]
    # "L0 H1": four panel titles side by side fit a 390 px phone ("layer 0 · head 1" overlapped)
    layout = grid(n_l, n_h, [f"L{layer} H{h}" for layer in range(n_l) for h in range(n_h)], vgap=0.06)
    hover = cell_hover(query_tokens, key_tokens)
    small = 7 if max(len(query_tokens), len(key_tokens)) > 24 else 9
    traces = []
    mask = causal(len(query_tokens), len(key_tokens)) if kind == "decoder" else None
    for i in range(n_l * n_h):
        layer, h = divmod(i, n_h)
        a = axis_id(i)
        traces.append(go.Heatmap(
            z=w[layer, h] if mask is None else np.where(mask, np.nan, w[layer, h]), coloraxis="coloraxis",
            customdata=hover, xaxis=f"x{a}", yaxis=f"y{a}", hoverongaps=False,
            x=list(range(len(key_tokens))), y=list(range(len(query_tokens))),
            hovertemplate=t("server.viz.layer_head", layer=layer, head=h) + "<br>" + weight_hover(".4f"),
        ))
        if mask is not None:
            traces.append(masked_trace(mask, xaxis=f"x{a}", yaxis=f"y{a}"))
        xa = thinned(token_axis(key_tokens, t("server.viz.axis.key") if layer == n_l - 1 else "", small))
        ya = thinned(token_axis(query_tokens, t("server.viz.axis.query") if h == 0 else "", small))
        xa.update(showticklabels=layer == n_l - 1, tickangle=-90)
        ya.update(showticklabels=h == 0, autorange="reversed")
        layout[f"xaxis{a}"].update(xa)
        layout[f"yaxis{a}"].update(ya)
    layout["coloraxis"] = dict(colorscale=ATTENTION_SCALE, cmin=0, cmax=1,
                               colorbar=dict(title=dict(text=t("server.viz.weight"))))
    fig = go.Figure(data=traces, layout=layout)
    panel = 210 if max(len(query_tokens), len(key_tokens)) <= 24 else 260
    long = max(len(query_tokens), len(key_tokens)) > PANEL_LABELS
    every = t("server.viz.model_view.long") if long else ""
    return base_layout(fig, t("server.viz.model_view.title", kind=kind_title(kind), long=every),
                       height=panel * n_l + 160, width=min(1400, panel * n_h + 200))


# name -> (panel title, one line on what it measures, scale). Statistics of kind "weight" share one 0..1 scale,
# so that 0.01 and 0.04 look alike; entropy runs to ln(number of keys), distance to (number of keys - 1).
STAT_INFO = {
    "entropy": ("entropy (nats)", "how spread out a query's attention is: 0 = all on one key, "
                "ln(number of keys) = evenly on all", "entropy"),
    "focus": ("largest weight", "the weight of the key each query looks at most: near 1 = one key at a time",
              "weight"),
    "distance": ("mean distance |query − key|", "how many positions away a query looks, on average: 0 = at itself",
                 "distance"),
    "previous": ("weight on the previous position", "how much a query looks at the position just before its own",
                 "weight"),
    "same": ("weight on its own position", "how much a query looks at itself", "weight"),
    "first": ("weight on the first key", "the first token ([BOS] for the decoder): heads with nothing to do often "
              "rest their attention there", "weight"),
    "last": ("weight on the source's EOS", "the English end-of-sentence token: another common resting place",
             "weight"),
}


def stat_text(name: str) -> tuple[str, str]:
    """A statistic's panel title and its line of text, in the reader's language (STAT_INFO holds the English, which
    the page's copy of an analysis carries: the page translates it by the same keys, server.stat.<name>.*)."""
    return t(f"server.stat.{name}.title"), t(f"server.stat.{name}.text")


KIND_STATS = {  # what means something for each kind of attention, in panel order
    "encoder": ("entropy", "distance", "previous", "same", "first", "last"),
    "decoder": ("entropy", "distance", "previous", "same", "first", "focus"),  # keys are earlier German positions
    "cross": ("entropy", "focus", "first", "last"),  # a German and an English position share no axis: no distance
}


def stat_range(name: str, n_keys: int) -> tuple[float, float]:
    """The colour scale of a statistic: 0..1 for weights, 0..ln(keys) for entropy, 0..keys-1 for distance."""
    kind = STAT_INFO[name][2]
    return 0.0, {"weight": 1.0, "entropy": math.log(max(n_keys, 2)), "distance": float(max(n_keys - 1, 1))}[kind]


def head_statistics(attention_layers) -> dict[str, np.ndarray]:
    """Per (layer, head), averaged over query positions: every statistic of STAT_INFO (KIND_STATS picks which
    mean something for a kind of attention)."""
    w = as_array(attention_layers)  # (L, H, Tq, Tk)
    _, _, tq, tk = w.shape
    qi = np.arange(tq)[:, None]
    kj = np.arange(tk)[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        plogp = np.where(w > 0, w * np.log(w), 0.0)
    prev = np.zeros(w.shape[:2])
    if tq > 1 and tk > 1:
        rows = np.arange(1, min(tq, tk + 1))
        prev = w[:, :, rows, rows - 1].mean(-1)
    diag = np.arange(min(tq, tk))
    return {
        "entropy": -plogp.sum(-1).mean(-1),
        "distance": (w * np.abs(qi - kj)).sum(-1).mean(-1),
        "previous": prev,
        "same": w[:, :, diag, diag].sum(-1) / tq,
        "first": w[:, :, :, 0].mean(-1),
        "last": w[:, :, :, -1].mean(-1),
        "focus": w.max(-1).mean(-1),
    }


def head_statistics_figure(attention_layers, kind: str = "encoder") -> go.Figure:
    """One small layer x head grid per statistic that means something for this kind, each value in its cell,
    each statistic on its own scale with its own colour bar, and a line of text under the grids for each."""
    stats = head_statistics(attention_layers)
    names = KIND_STATS[kind]
    n_l, n_h = stats["entropy"].shape
    n_keys = as_array(attention_layers).shape[-1]
    cols = (len(names) + 1) // 2
    texts = {n: stat_text(n) for n in names}
    layout = grid(2, cols, [texts[n][0] for n in names], hgap=0.11, vgap=0.3)
    traces = []
    for i, name in enumerate(names):
        a, values = axis_id(i), stats[name]
        lo, hi = stat_range(name, n_keys)
        x1, (y0, y1) = layout[f"xaxis{a}"]["domain"][1], layout[f"yaxis{a}"]["domain"]
        layout[f"coloraxis{a}"] = dict(colorscale="Viridis", cmin=lo, cmax=hi, colorbar=dict(
            x=x1 + 0.005, xanchor="left", y=(y0 + y1) / 2, len=y1 - y0, thickness=10, tickfont=dict(size=9)))
        traces.append(go.Heatmap(
            z=values, x=[f"h{h}" for h in range(n_h)], y=[f"L{layer}" for layer in range(n_l)], xaxis=f"x{a}",
            yaxis=f"y{a}", coloraxis=f"coloraxis{a}", text=cell_numbers(values, 2), texttemplate="%{text}",
            hovertemplate=texts[name][0] + "<br>" + t("server.viz.stat_hover", layer="%{y}", head="%{x}",
                                                      value="%{z:.4f}") + "<extra></extra>",
        ))
        layout[f"xaxis{a}"].update(title=dict(text=t("server.viz.axis.head")))
        layout[f"yaxis{a}"].update(title=dict(text=t("server.viz.axis.layer")), autorange="reversed")
    layout["annotations"].append(dict(
        text="<br>".join(f"<b>{texts[n][0]}</b>: {texts[n][1]}" for n in names), x=0, y=-0.12,
        xref="paper", yref="paper", xanchor="left", yanchor="top", align="left", showarrow=False, font=dict(size=11)))
    fig = go.Figure(data=traces, layout=layout)
    fig = base_layout(fig, t("server.viz.stats_title", kind=kind_title(kind)), height=620 + 18 * len(names),
                      width=1100)
    fig.update_layout(margin=dict(b=80 + 18 * len(names)))
    return fig



def side_by_side(first, second, kind: str = "cross", layer: int = 0, which: str | None = None,
                 languages: tuple[str, str] = ("English", "German")) -> go.Figure:
    """Two sentences' attention, one layer and head each, next to each other on ONE colour scale (0..1): the same
    cell colour means the same weight in both. ``first``/``second``: (weights (Tq, Tk), query tokens, key tokens,
    sentence). ``which``: what of the layer is shown (default "mean of heads")."""
    which = which_heads(None) if which is None else which
    # short panel titles: two full sentences side by side overlap on a phone (the hover names every token)
    layout = grid(1, 2, [t(n, sentence=html.escape(short_text(s, 24), quote=False))
                         for n, (*_, s) in zip(("server.viz.compare.first", "server.viz.compare.second"),
                                               (first, second))], hgap=0.12)
    traces = []
    for i, (w, q_tokens, k_tokens, _) in enumerate((first, second)):
        w, a = np.asarray(w, dtype=float), axis_id(i)
        if w.shape != (len(q_tokens), len(k_tokens)):
            raise ValueError(f"attention of shape {w.shape} does not fit {len(q_tokens)} x {len(k_tokens)} tokens")
        mask = causal(*w.shape) if kind == "decoder" else np.zeros(w.shape, bool)
        traces.append(go.Heatmap(
            z=np.where(mask, np.nan, w), x=list(range(len(k_tokens))), y=list(range(len(q_tokens))),
            coloraxis="coloraxis", xaxis=f"x{a}", yaxis=f"y{a}", hoverongaps=False,
            customdata=cell_hover(q_tokens, k_tokens),
            hovertemplate=weight_hover(".3f")))
        if mask.any():
            traces.append(masked_trace(mask, xaxis=f"x{a}", yaxis=f"y{a}"))
        layout[f"xaxis{a}"].update(token_axis(k_tokens, t("server.viz.axis.key")), tickangle=-60)
        layout[f"yaxis{a}"].update(token_axis(q_tokens, t("server.viz.axis.query") if i == 0 else ""),
                                   autorange="reversed")
    layout["coloraxis"] = dict(colorscale=ATTENTION_SCALE, cmin=0, cmax=1,
                               colorbar=dict(title=dict(text=t("server.viz.weight"))))
    n = max(len(t) for w, q, k, _ in (first, second) for t in (q, k))
    fig = go.Figure(data=traces, layout=layout)
    return base_layout(fig, t("server.viz.compare.title", kind=kind_title(kind), layer=layer, which=which,
                              sub=subtitle(kind, *languages)), height=int(min(900, max(460, 22 * n + 220))),
                       width=1200)


def short_text(text: str, n: int = 60) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"
