"""The compact form of one Analysis that the page holds: everything the client-side views draw from.

Pure: an Analysis (duck-typed) in, a JSON-ready dict out. The browser (explorer/page/static/views.js)
draws the attention heatmap, the model view, the head statistics and the step view from it, so
switching layer, head, attention type or decoding step never asks the server.

Compact on purpose: attention weights are integers in per-mille (0..1000: three decimals, about a
float16's precision), token labels are sent once, nothing is repeated per layer or head.
"""

from __future__ import annotations

import html
from typing import Any

import numpy as np

from viz import arrays
from viz.attention import KIND_STATS, STAT_INFO, head_statistics
from viz.logit_lens import lens_top
from viz.tokens import is_special, readable

SCALE = 1000  # attention weights travel as round(w * SCALE)


def labels(pieces: list[str]) -> list[str]:
    """Readable pieces, HTML-escaped once (plotly renders axis and hover text as HTML)."""
    return [html.escape(readable(p), quote=False) for p in pieces]


def permille(w: np.ndarray) -> list:
    return np.rint(np.asarray(w) * SCALE).astype(np.int16).tolist()


def short(text: str, n: int = 70) -> str:
    """A sentence for a figure title: whole when short, else its start and an ellipsis."""
    return text if len(text) <= n else text[: n - 1].rstrip() + "…"


def lens_data(a: Any) -> dict:
    """Logit lens: the top next token after each decoder layer at each position, and its probability
    (viz/logit_lens.py lens_top, the numbers its server figure draws)."""
    top, p = lens_top(a.lens_layers, a.unembed, a.blocked_ids)  # (L, T) each
    return {"words": [labels([a.id_to_piece(int(i)) for i in row]) for row in top], "p": np.round(p, 3).tolist()}


def positional_data(a: Any) -> dict:
    """The user's sentence: the size (L2 norm) of each token embedding x sqrt(d_model) and of the PE row added to it."""
    emb = arrays.as_array(a.cache["src_embed"])[0]  # (S, D)
    pos = arrays.as_array(a.cache["src_pos"])[0] - emb  # (S, D) the PE rows actually added
    return {"emb": np.round(np.linalg.norm(emb, axis=1), 3).tolist(),
            "pe": np.round(np.linalg.norm(pos, axis=1), 3).tolist()}


def page_data(a: Any, n_heads: int) -> dict:
    """The page's copy of an analysis. ``att[kind][layer][head]`` is (Tq, Tk) in per-mille."""
    att, stats = {}, {}
    for kind in arrays.KINDS:
        w = arrays.all_layers(a.cache, kind)  # (L, H, Tq, Tk)
        att[kind] = permille(w)
        s = head_statistics(w)
        stats[kind] = {name: np.round(s[name], 3).tolist() for name in KIND_STATS[kind]}  # in panel order
    steps = []
    for st in a.trace.steps:
        top = [int(i) for i in st.top_ids]
        steps.append({
            "top": labels([a.id_to_piece(i) for i in top]),
            "p": [round(float(p), 4) for p in st.top_probs],
            "pick": top.index(int(st.chosen)) if int(st.chosen) in top else -1,
            "chosen": labels([a.id_to_piece(int(st.chosen))])[0],
            "chosen_p": round(float(st.chosen_prob), 4),
        })
    return {
        "text": a.text,
        "text_html": html.escape(a.text),
        "title_html": html.escape(short(a.text)),
        "translation": a.translation,
        "method": a.options.method,
        "heads": n_heads,
        "src": labels(a.src_tokens), "tgt": labels(a.tgt_tokens), "out": labels(a.out_tokens),
        "src_special": [i for i, p in enumerate(a.src_tokens) if is_special(p)],
        "tgt_special": [i for i, p in enumerate(a.tgt_tokens) if is_special(p)],
        "att": att,
        "stats": stats,
        "stat_info": STAT_INFO,  # name -> [panel title, what it measures, scale]
        "steps": steps,
        "lens": lens_data(a),
        "pe_sentence": positional_data(a),
    }
