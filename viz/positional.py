"""Positional encoding: the table, chosen dimensions as waves, position similarity, embedding vs PE size."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from i18n import t
from viz.arrays import as_array
from viz.style import DIVERGING_SCALE, base_layout, token_axis
from viz.tokens import hover_labels


def pe_heatmap(pe_table, length: int | None = None, title_kind: str = "sinusoidal") -> go.Figure:
    """The PE matrix (positions x dimensions) that is added to the token embeddings."""
    pe = as_array(pe_table)
    pe = pe[: length or pe.shape[0]]
    fig = go.Figure(go.Heatmap(
        z=pe, colorscale=DIVERGING_SCALE, zmid=0, colorbar=dict(title=dict(text=t("server.viz.pe.value"))),
        hovertemplate=t("server.viz.pe.hover", position="%{y}", dim="%{x}") + "<br>PE = %{z:.4f}<extra></extra>",
    ))
    fig.update_xaxes(title_text=t("server.viz.pe.axis_dim"))
    fig.update_yaxes(title_text=t("server.viz.pe.axis_position"), autorange="reversed")
    formula = ("PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(...)" if title_kind == "sinusoidal"
               else t("server.viz.pe.learned"))
    return base_layout(fig, t("server.viz.pe.title", formula=formula, n=pe.shape[0], d=pe.shape[1]), height=520)


def pe_waves(pe_table, dims: list[int], length: int | None = None) -> go.Figure:
    """Chosen dimensions as curves over position: low dimensions oscillate fast, high ones slowly."""
    pe = as_array(pe_table)
    pe = pe[: length or pe.shape[0]]
    bad = [d for d in dims if not 0 <= d < pe.shape[1]]
    if bad:
        raise ValueError(f"dimensions {bad} out of range 0..{pe.shape[1] - 1}")
    fig = go.Figure()
    pos = np.arange(pe.shape[0])
    for d in dims:
        kind = "sin" if d % 2 == 0 else "cos"
        fig.add_trace(go.Scatter(x=pos, y=pe[:, d], mode="lines", name=t("server.viz.pe.dim", d=d, kind=kind),
                                 hovertemplate=t("server.viz.pe.wave_hover", d=d, position="%{x}", value="%{y:.4f}")
                                 + "<extra></extra>"))
    fig.update_xaxes(title_text=t("server.viz.pe.position"))
    fig.update_yaxes(title_text=t("server.viz.pe.pe_value"), range=[-1.1, 1.1] if np.abs(pe).max() <= 1 else None)
    return base_layout(fig, t("server.viz.pe.waves_title"), height=420)


def pe_similarity(pe_table, length: int | None = None) -> go.Figure:
    """PE(p) . PE(q) for every pair of positions: it depends (mostly) on the offset p - q only."""
    pe = as_array(pe_table)
    pe = pe[: length or pe.shape[0]]
    sim = pe @ pe.T  # (L, D) x (D, L) -> (L, L)
    fig = go.Figure(go.Heatmap(
        z=sim, colorscale="Viridis", colorbar=dict(title=dict(text=t("server.viz.pe.dot"))),
        hovertemplate=t("server.viz.pe.sim_hover", p="%{y}", q="%{x}", value="%{z:.3f}") + "<extra></extra>",
    ))
    fig.update_xaxes(title_text=t("server.viz.pe.position_q"))
    fig.update_yaxes(title_text=t("server.viz.pe.position_p"), autorange="reversed")
    return base_layout(fig, t("server.viz.pe.sim_title"), height=520, width=620)


def embedding_vs_pe(token_embedding, positional, tokens: list[str]) -> go.Figure:
    """For the user's sentence: the size (L2 norm) of each token embedding x sqrt(d_model) vs the PE added to it.

    token_embedding: (S, D) captured src_embed; positional: (S, D) the PE rows added (src_pos - src_embed).
    """
    e, p = as_array(token_embedding), as_array(positional)
    if e.shape != p.shape or e.shape[0] != len(tokens):
        raise ValueError(f"shapes {e.shape} and {p.shape} do not fit {len(tokens)} tokens")
    x = list(range(len(tokens)))
    hover = hover_labels(tokens)
    fig = go.Figure()
    fig.add_trace(go.Bar(x=x, y=np.linalg.norm(e, axis=1), name=t("server.viz.pe.emb_name"),
                         customdata=hover,
                         hovertemplate=f"%{{customdata}}<br>|{t('server.viz.pe.embedding')}| = %{{y:.3f}}<extra></extra>"))
    fig.add_trace(go.Bar(x=x, y=np.linalg.norm(p, axis=1), name=t("server.viz.pe.pe_name"),
                         customdata=hover, hovertemplate="%{customdata}<br>|PE| = %{y:.3f}<extra></extra>"))
    fig.update_layout(barmode="group", legend=dict(orientation="h", y=1.02, yanchor="bottom", x=0))
    fig.update_xaxes(**token_axis(tokens, t("server.viz.axis.source_token")), tickangle=-45)
    fig.update_yaxes(title_text=t("server.viz.pe.norm"))
    return base_layout(fig, t("server.viz.pe.size_title"), height=440)
