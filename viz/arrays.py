"""Pulling arrays out of an Analysis' capture cache by the names in docs/architecture.md. Pure dictionary access."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from model.names import block_name as _block_name

KINDS = {
    "encoder": ("encoder", "self_attn", "Encoder self-attention"),
    "decoder": ("decoder", "self_attn", "Decoder self-attention (masked)"),
    "cross": ("decoder", "cross_attn", "Cross-attention"),
}


def as_array(x: Any) -> np.ndarray:
    """torch tensor / numpy / nested lists -> float64 numpy array."""
    if hasattr(x, "detach"):
        x = x.detach().cpu().float().numpy()
    return np.asarray(x, dtype=np.float64)


def block_name(kind: str, layer: int) -> str:
    """The attention block of ``kind`` in ``layer`` (``model.names``: the one place hook names are built)."""
    return _block_name(kind, int(layer))


def n_layers(cache: Mapping[str, Any], kind: str) -> int:
    n = 0
    while f"{block_name(kind, n)}.weights" in cache:
        n += 1
    return n


def attention(cache: Mapping[str, Any], kind: str, layer: int) -> np.ndarray:
    """(H, Tq, Tk) attention weights of one layer; the batch of one is dropped."""
    name = f"{block_name(kind, layer)}.weights"
    if name not in cache:
        raise KeyError(f"{name} was not captured (layers available: {n_layers(cache, kind)})")
    return as_array(cache[name])[0]


def all_layers(cache: Mapping[str, Any], kind: str) -> np.ndarray:
    """(L, H, Tq, Tk) attention weights of every layer."""
    return np.stack([attention(cache, kind, i) for i in range(n_layers(cache, kind))])


def tokens_for(kind: str, src_tokens: list[str], tgt_tokens: list[str]) -> tuple[list[str], list[str]]:
    """(query tokens, key tokens) of an attention kind."""
    if kind == "encoder":
        return src_tokens, src_tokens
    if kind == "decoder":
        return tgt_tokens, tgt_tokens
    return tgt_tokens, src_tokens
