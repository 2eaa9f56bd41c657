"""Figures straight from an Analysis (model.translator.Analysis, duck-typed): the glue the app calls.

Still pure: it only reads the Analysis' arrays and tokens and calls the other viz functions.
"""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go

from i18n import t
from viz import arrays
from viz.attention import attention_heatmap, head_statistics_figure, model_view
from viz.bertviz_view import bertviz_page
from viz.decoding import beam_tree, greedy_vs_beam, step_view
from viz.head import inside_head
from viz.logit_lens import logit_lens
from viz.positional import embedding_vs_pe, pe_heatmap, pe_similarity, pe_waves


def _tokens(a: Any, kind: str) -> tuple[list[str], list[str]]:
    return arrays.tokens_for(kind, a.src_tokens, a.tgt_tokens)


def heatmap(a: Any, kind: str = "cross", layer: int = 0, head: int | None = None,
            languages: tuple[str, str] | None = None) -> go.Figure:
    """``languages``: (source, target) as the subtitle names them (default: the analysis' own, its task's English)."""
    q, k = _tokens(a, kind)
    predicted = a.out_tokens if kind in ("cross", "decoder") else None
    return attention_heatmap(arrays.attention(a.cache, kind, layer), q, k, head=head, layer=layer, kind=kind,
                             predicted_tokens=predicted,
                             languages=languages or getattr(a, "languages", ("English", "German")))


def all_heads(a: Any, kind: str = "cross") -> go.Figure:
    q, k = _tokens(a, kind)
    return model_view(arrays.all_layers(a.cache, kind), q, k, kind=kind)


def statistics(a: Any, kind: str = "encoder") -> go.Figure:
    return head_statistics_figure(arrays.all_layers(a.cache, kind), kind=kind)


def decoding_step(a: Any, t: int, layer: int = 0, head: int | None = None) -> go.Figure:
    """Step t of the decode trace, with the attention rows of decoder position t from the captured pass."""
    steps = a.trace.steps
    if not steps:
        raise ValueError("this analysis has no decoding steps")
    t = max(0, min(int(t), len(steps) - 1))
    cross = arrays.attention(a.cache, "cross", layer)[:, t]  # (H, S)
    self_row = arrays.attention(a.cache, "decoder", layer)[:, t, : t + 1]  # (H, t+1)
    pick = (lambda w: w.mean(0)) if head is None else (lambda w: w[head])
    return step_view(steps[t], a.id_to_piece, pick(cross), pick(self_row), a.src_tokens, a.tgt_tokens[: t + 1],
                     layer, head)


def beam(a: Any) -> go.Figure:
    if not a.trace.beam_steps:
        raise ValueError("beam tree needs an analysis decoded with beam search")
    return beam_tree(a.trace, a.id_to_piece)


def compare(greedy_analysis: Any, beam_analysis: Any) -> go.Figure:
    return greedy_vs_beam(greedy_analysis.trace, beam_analysis.trace, greedy_analysis.id_to_piece)


def positional(a: Any, length: int = 50, dims: tuple[int, ...] = (0, 1, 10, 11, 60, 61)) -> dict[str, go.Figure]:
    d = a.pe_table.shape[1]
    dims = [x for x in dims if x < d]
    return {
        "table": pe_heatmap(a.pe_table, length),
        "waves": pe_waves(a.pe_table, dims, length),
        "similarity": pe_similarity(a.pe_table, length),
        "sentence": positional_sentence(a),
    }


def positional_sentence(a: Any) -> go.Figure:
    """The user's sentence: size of each token embedding next to the positional encoding added to it."""
    emb = arrays.as_array(a.cache["src_embed"])[0]
    pos = arrays.as_array(a.cache["src_pos"])[0] - emb  # the PE rows actually added
    return embedding_vs_pe(emb, pos, a.src_tokens)


def head_inside(a: Any, kind: str = "encoder", layer: int = 0, head: int = 0, query: int = 0) -> go.Figure:
    blk = arrays.block_name(kind, layer)
    q, k = _tokens(a, kind)
    parts = {n: arrays.as_array(a.cache[f"{blk}.{n}"])[0, head] for n in ("q", "k", "v", "scores", "weights")}
    name = t(f"server.viz.inside.kind.{kind}")  # "encoder self": "Inside encoder self attention"
    return inside_head(parts["q"], parts["k"], parts["v"], parts["scores"], parts["weights"], q, k, query, layer,
                       head, name)


def lens(a: Any) -> go.Figure:
    return logit_lens(a.lens_layers, a.unembed, a.tgt_tokens, a.id_to_piece, blocked=a.blocked_ids)


def bertviz(a: Any, view: str = "head") -> str:
    return bertviz_page(view, arrays.all_layers(a.cache, "encoder"), arrays.all_layers(a.cache, "decoder"),
                        arrays.all_layers(a.cache, "cross"), a.src_tokens, a.tgt_tokens)
