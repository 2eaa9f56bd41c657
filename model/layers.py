"""The paper's building blocks: positional encoding, multi-head attention, FFN, encoder and decoder layers."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from model.hooks import HookPoint
from model.kv_cache import KVCache


class Dropout(nn.Dropout):
    """nn.Dropout that costs nothing in eval mode: a decoding step passes ~20 of them, and the module
    call machinery alone was ~7% of a cached greedy decode."""

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        if not self.training or self.p == 0:
            return x
        return super().__call__(x)


def sinusoidal_table(max_len: int, d_model: int) -> torch.Tensor:
    """PE(pos, 2i) = sin(pos / 10000^(2i/d_model)), PE(pos, 2i+1) = cos(pos / 10000^(2i/d_model))."""
    pos = torch.arange(max_len, dtype=torch.float64).unsqueeze(1)  # (L, 1)
    two_i = torch.arange(0, d_model, 2, dtype=torch.float64)  # (ceil(D/2),) the even index 2i
    angle = pos / torch.pow(10000.0, two_i / d_model)  # (L, ceil(D/2))
    pe = torch.zeros(max_len, d_model, dtype=torch.float64)
    pe[:, 0::2] = torch.sin(angle)
    pe[:, 1::2] = torch.cos(angle[:, : d_model // 2])  # odd D: the last sin has no cos partner
    return pe.float()  # computed in float64 so the float32 table is exact to rounding


class PositionalEncoding(nn.Module):
    """Adds position information: the paper's fixed sinusoids, or a learned table (Table 3, row E)."""

    def __init__(self, d_model: int, max_len: int, kind: str = "sinusoidal") -> None:
        super().__init__()
        self.kind = kind
        if kind == "sinusoidal":
            self.register_buffer("pe", sinusoidal_table(max_len, d_model), persistent=False)
        else:
            self.learned = nn.Parameter(torch.randn(max_len, d_model) * 0.02)

    @property
    def table(self) -> torch.Tensor:
        """(max_len, D): the vectors added at each position."""
        return self.pe if self.kind == "sinusoidal" else self.learned

    def forward(self, x: torch.Tensor, start: int = 0) -> torch.Tensor:
        t = x.size(1)
        if start + t > self.table.size(0):
            raise ValueError(f"sequence of {start + t} positions exceeds max_len {self.table.size(0)}")
        return x + self.table[start : start + t].to(x.dtype)  # (B, T, D) + (T, D)


def attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    mask: torch.Tensor | None = None,
    dropout: nn.Module | None = None,
    on_scores=None,
    on_weights=None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Equation 1 of the paper: Attention(Q, K, V) = softmax(Q K^T / sqrt(d_k)) V.

    q (..., Tq, d_k), k and v (..., Tk, d_k), mask broadcastable to (..., Tq, Tk) with True = may attend.
    Returns (out (..., Tq, d_k), weights (..., Tq, Tk)). ``on_scores`` / ``on_weights`` see (and may
    replace) the scaled, masked scores and the weights: the model passes its hook points there.
    """
    d_k = q.size(-1)
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)  # (..., Tq, d_k) x (..., d_k, Tk) -> (..., Tq, Tk)
    if mask is not None:
        # finfo.min, not -inf: a masked key gets exactly 0 weight, and a row with no key left (decoding never
        # makes one; occlusion's erased BOS does, and leaves that cell unmeasured) gives a uniform row, not NaN.
        scores = scores.masked_fill(~mask, torch.finfo(scores.dtype).min)
    if on_scores is not None:
        scores = on_scores(scores)
    weights = F.softmax(scores, dim=-1)
    if on_weights is not None:
        weights = on_weights(weights)
    p = weights if dropout is None else dropout(weights)
    return p @ v, weights  # (..., Tq, Tk) x (..., Tk, d_k) -> (..., Tq, d_k)


class MultiHeadAttention(nn.Module):
    """MultiHead(Q, K, V) = Concat(head_1..head_h) W_O, head_i = Attention(Q W_Q_i, K W_K_i, V W_V_i).

    Computed explicitly with ``attention`` (equation 1), not a fused kernel, so the weights exist to be captured.
    """

    def __init__(self, d_model: int, n_heads: int, attention_dropout: float, cross: bool = False) -> None:
        super().__init__()
        self.path = ""  # dotted module path, set by name_hook_points(); keys the decoding cache
        self.n_heads = n_heads
        self.d_k = d_model // n_heads
        self.cross = cross  # keys and values from the encoder output: fixed during decoding
        self.w_q = nn.Linear(d_model, d_model)
        self.w_k = nn.Linear(d_model, d_model)
        self.w_v = nn.Linear(d_model, d_model)
        self.w_o = nn.Linear(d_model, d_model)
        self.dropout = Dropout(attention_dropout)
        self.q, self.k, self.v = HookPoint(), HookPoint(), HookPoint()  # (B, H, T, d_k)
        self.scores = HookPoint()  # (B, H, Tq, Tk) scaled and masked, before softmax
        self.weights = HookPoint()  # (B, H, Tq, Tk) after softmax
        self.z = HookPoint()  # (B, H, Tq, d_k) each head's weighted sum of values, before W_O (head ablation acts here)
        self.out = HookPoint()  # (B, Tq, D) after W_O

    def _split(self, x: torch.Tensor) -> torch.Tensor:
        b, t, _ = x.shape
        return x.view(b, t, self.n_heads, self.d_k).transpose(1, 2)  # (B, T, D) -> (B, H, T, d_k)

    def _kv(self, memory: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self._split(self.w_k(memory)), self._split(self.w_v(memory))  # (B, Tk, D) -> (B, H, Tk, d_k) each

    def forward(
        self,
        query: torch.Tensor,
        memory: torch.Tensor,
        mask: torch.Tensor | None,
        cache: KVCache | None = None,
    ) -> torch.Tensor:
        """query (B, Tq, D), memory (B, Tk, D), mask broadcastable to (B, H, Tq, Tk), True = may attend.

        With a decoding ``cache``, self-attention appends the new positions' keys and values to the
        cached ones, and cross-attention computes them from the encoder output once.
        """
        q = self._split(self.w_q(query))  # (B, H, Tq, d_k)
        if cache is None:
            k, v = self._kv(memory)
        elif self.cross:
            k, v = cache.fixed(self.path, lambda: self._kv(memory))
        else:
            k, v = cache.extend(self.path, *self._kv(memory))  # (B, H, Tpast + Tq, d_k)
        q, k, v = self.q(q), self.k(k), self.v(v)
        z, _ = attention(q, k, v, mask, self.dropout, self.scores, self.weights)  # (B, H, Tq, d_k)
        z = self.z(z)
        b, _, tq, _ = z.shape
        z = z.transpose(1, 2).reshape(b, tq, self.n_heads * self.d_k)  # (B, H, Tq, d_k) -> (B, Tq, D)
        return self.out(self.w_o(z))


class FeedForward(nn.Module):
    """FFN(x) = max(0, x W_1 + b_1) W_2 + b_2, applied to each position separately."""

    def __init__(self, d_model: int, d_ff: int) -> None:
        super().__init__()
        self.w_1 = nn.Linear(d_model, d_ff)
        self.w_2 = nn.Linear(d_ff, d_model)
        self.hidden = HookPoint()  # (B, T, F) after ReLU

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.w_2(self.hidden(F.relu(self.w_1(x))))  # (B, T, D) -> (B, T, F) -> (B, T, D)


class SublayerConnection(nn.Module):
    """Residual + LayerNorm: post-LN LayerNorm(x + Dropout(f(x))) (paper) or pre-LN x + Dropout(f(LayerNorm(x)))."""

    def __init__(self, d_model: int, dropout: float, norm_first: bool) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(d_model)
        self.dropout = Dropout(dropout)
        self.norm_first = norm_first

    def forward(self, x: torch.Tensor, f) -> torch.Tensor:
        if self.norm_first:
            return x + self.dropout(f(self.norm(x)))
        return self.norm(x + self.dropout(f(x)))


class EncoderLayer(nn.Module):
    """Self-attention then feed-forward, each wrapped in a residual connection."""

    def __init__(self, d_model: int, n_heads: int, d_ff: int, dropout: float, attention_dropout: float,
                 norm_first: bool) -> None:
        super().__init__()
        self.self_attn = MultiHeadAttention(d_model, n_heads, attention_dropout)
        self.ffn = FeedForward(d_model, d_ff)
        self.sub_attn = SublayerConnection(d_model, dropout, norm_first)
        self.sub_ffn = SublayerConnection(d_model, dropout, norm_first)
        self.out = HookPoint()  # (B, S, D)

    def forward(self, x: torch.Tensor, src_mask: torch.Tensor) -> torch.Tensor:
        x = self.sub_attn(x, lambda y: self.self_attn(y, y, src_mask))
        return self.out(self.sub_ffn(x, self.ffn))


class DecoderLayer(nn.Module):
    """Masked self-attention, cross-attention over the encoder output, then feed-forward."""

    def __init__(self, d_model: int, n_heads: int, d_ff: int, dropout: float, attention_dropout: float,
                 norm_first: bool) -> None:
        super().__init__()
        self.self_attn = MultiHeadAttention(d_model, n_heads, attention_dropout)
        self.cross_attn = MultiHeadAttention(d_model, n_heads, attention_dropout, cross=True)
        self.ffn = FeedForward(d_model, d_ff)
        self.sub_self = SublayerConnection(d_model, dropout, norm_first)
        self.sub_cross = SublayerConnection(d_model, dropout, norm_first)
        self.sub_ffn = SublayerConnection(d_model, dropout, norm_first)
        self.out = HookPoint()  # (B, T, D)

    def forward(
        self,
        x: torch.Tensor,
        memory: torch.Tensor,
        tgt_mask: torch.Tensor | None,
        src_mask: torch.Tensor,
        cache: KVCache | None = None,
    ) -> torch.Tensor:
        x = self.sub_self(x, lambda y: self.self_attn(y, y, tgt_mask, cache))
        x = self.sub_cross(x, lambda y: self.cross_attn(y, memory, src_mask, cache))
        return self.out(self.sub_ffn(x, self.ffn))
