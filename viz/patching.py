"""Activation patching as a picture: for each attention kind, a layers x heads grid of how much patching that
head's output from the clean run into the corrupted run restores the clean token, and one row per layer output."""

from __future__ import annotations

import html

import numpy as np
import plotly.graph_objects as go

from i18n import num, t
from viz.style import DIVERGING_SCALE, axis_id, base_layout, grid, signed
from viz.tokens import readable

KIND_TITLES = {"encoder": "encoder self-attention", "decoder": "decoder self-attention", "cross": "cross-attention"}


def kind_title(kind: str) -> str:
    """KIND_TITLES in the reader's language."""
    return t(f"server.viz.patch.kind.{kind}")


def patching_summary(restored_heads: dict[str, np.ndarray], restored_layers: dict[str, np.ndarray], token: str,
                     position: int, clean_logp: float, corrupt_logp: float) -> str:
    """What was measured and which head restores most."""
    best_kind, best = max(((k, np.unravel_index(np.nanargmax(v), v.shape)) for k, v in restored_heads.items()
                           if np.isfinite(v).any()), key=lambda kv: restored_heads[kv[0]][kv[1]], default=(None, None))
    text = t("server.viz.patch.summary", token=repr(readable(token)), position=position, clean=num(clean_logp, 2),
             corrupt=num(corrupt_logp, 2))
    if best_kind is not None:
        layer, head = (int(i) for i in best)
        text += t("server.viz.patch.best", kind=kind_title(best_kind), layer=layer, head=head,
                  value=signed(restored_heads[best_kind][layer, head], 2))
    return text


def patching_figure(restored_heads: dict[str, np.ndarray], restored_layers: dict[str, np.ndarray],
                    token: str, position: int, sentences: tuple[str, str]) -> go.Figure:
    """restored_heads: kind -> (L, H); restored_layers: "encoder"/"decoder" -> (L,). One symmetric colour scale."""
    kinds = [k for k in KIND_TITLES if k in restored_heads]
    panels = [(kind_title(k), np.asarray(restored_heads[k], dtype=float), t("server.viz.axis.head")) for k in kinds]
    panels += [(t(f"server.viz.patch.outputs.{s}"), np.asarray(restored_layers[s], dtype=float)[:, None], "")
               for s in ("encoder", "decoder") if s in restored_layers]
    layout = grid(1, len(panels), [p[0] for p in panels], hgap=0.05)
    traces = []
    for i, (title, z, col) in enumerate(panels):
        a = axis_id(i)
        n_l, n_h = z.shape
        traces.append(go.Heatmap(
            z=z, x=list(range(n_h)), y=list(range(n_l)), coloraxis="coloraxis", xaxis=f"x{a}", yaxis=f"y{a}",
            text=np.vectorize(lambda v: "" if np.isnan(v) else signed(round(v, 2) + 0.0, 2))(z),  # no "-0.00"
            texttemplate="%{text}",
            hovertemplate=f"{title}<br>" + t("server.viz.patch.hover_head" if col else "server.viz.patch.hover_layer",
                                             layer="%{y}", head="%{x}", value="%{z:+.3f}") + "<extra></extra>"))
        layout[f"xaxis{a}"].update(tickmode="array", tickvals=list(range(n_h)),
                                   ticktext=[f"H{h}" for h in range(n_h)] if col else [t("server.viz.patch.whole")],
                                   title=dict(text=col))
        layout[f"yaxis{a}"].update(tickmode="array", tickvals=list(range(n_l)), ticktext=[f"L{j}" for j in range(n_l)],
                                   autorange="reversed", title=dict(text=t("server.viz.axis.layer") if i == 0 else ""))
    finite = np.concatenate([p[1].ravel() for p in panels])
    finite = finite[np.isfinite(finite)]
    span = max(1.0, float(np.abs(finite).max()) if finite.size else 1.0)
    layout["coloraxis"] = dict(colorscale=DIVERGING_SCALE, cmin=-span, cmax=span, cmid=0,
                               colorbar=dict(title=dict(text=t("server.viz.patch.restored"))))
    fig = go.Figure(data=traces, layout=layout)
    clean, corrupt = (html.escape(s, quote=False) for s in sentences)
    return base_layout(fig, t("server.viz.patch.title", token=html.escape(readable(token), quote=False),
                              position=position, clean=clean, corrupt=corrupt), height=420, width=1300)
