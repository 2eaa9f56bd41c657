"""The paper's building blocks: positional encoding, multi-head attention, FFN, encoder and decoder layers."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from model.hooks import HookPoint, ablated_heads


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


class MultiHeadAttention(nn.Module):
    """MultiHead(Q, K, V) = Concat(head_1..head_h) W_O, head_i = softmax(Q W_Q_i (K W_K_i)^T / sqrt(d_k)) V W_V_i.

    Computed explicitly, not with a fused kernel, so the weights exist to be captured.
    """

    def __init__(self, d_model: int, n_heads: int, attention_dropout: float) -> None:
        super().__init__()
        self.path = ""  # dotted module path, set by name_hook_points(); keys head ablation
        self.n_heads = n_heads
        self.d_k = d_model // n_heads
        self.w_q = nn.Linear(d_model, d_model)
        self.w_k = nn.Linear(d_model, d_model)
        self.w_v = nn.Linear(d_model, d_model)
        self.w_o = nn.Linear(d_model, d_model)
        self.dropout = Dropout(attention_dropout)
        self.q, self.k, self.v = HookPoint(), HookPoint(), HookPoint()  # (B, H, T, d_k)
        self.scores = HookPoint()  # (B, H, Tq, Tk) scaled and masked, before softmax
        self.weights = HookPoint()  # (B, H, Tq, Tk) after softmax
        self.out = HookPoint()  # (B, Tq, D) after W_O

    def _split(self, x: torch.Tensor) -> torch.Tensor:
        b, t, _ = x.shape
        return x.view(b, t, self.n_heads, self.d_k).transpose(1, 2)  # (B, T, D) -> (B, H, T, d_k)

    def forward(
        self,
        query: torch.Tensor,
        memory: torch.Tensor,
        mask: torch.Tensor | None,
        kv_cache: dict[str, torch.Tensor] | None = None,
        static_kv: bool = False,
    ) -> torch.Tensor:
        """query (B, Tq, D), memory (B, Tk, D), mask broadcastable to (B, H, Tq, Tk), True = may attend.

        kv_cache (incremental decoding): for self-attention (static_kv False) the new keys and
        values are appended to the cached ones; for cross-attention (static_kv True) they are
        computed from memory once and reused.
        """
        q = self._split(self.w_q(query))  # (B, H, Tq, d_k)
        if kv_cache is not None and static_kv and "k" in kv_cache:
            k, v = kv_cache["k"], kv_cache["v"]
        else:
            k = self._split(self.w_k(memory))  # (B, H, Tk, d_k)
            v = self._split(self.w_v(memory))
            if kv_cache is not None:
                if not static_kv and "k" in kv_cache:
                    k = torch.cat([kv_cache["k"], k], dim=2)  # (B, H, Tpast + Tnew, d_k)
                    v = torch.cat([kv_cache["v"], v], dim=2)
                kv_cache["k"], kv_cache["v"] = k, v
        q, k, v = self.q(q), self.k(k), self.v(v)

        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_k)  # (B, H, Tq, d_k) x (B, H, d_k, Tk) -> (B, H, Tq, Tk)
        if mask is not None:
            # finfo.min, not -inf: a masked key gets exactly 0 weight, and a row with no key left
            # (never produced by our masks) would give a uniform row instead of NaN.
            scores = scores.masked_fill(~mask, torch.finfo(scores.dtype).min)
        scores = self.scores(scores)
        weights = self.weights(F.softmax(scores, dim=-1))
        context = self.dropout(weights) @ v  # (B, H, Tq, Tk) x (B, H, Tk, d_k) -> (B, H, Tq, d_k)

        off = ablated_heads(self.path)
        if off:
            keep = torch.ones(self.n_heads, 1, 1, dtype=context.dtype, device=context.device)
            keep[sorted(off)] = 0.0
            context = context * keep  # (B, H, Tq, d_k) * (H, 1, 1)

        b, _, tq, _ = context.shape
        context = context.transpose(1, 2).reshape(b, tq, self.n_heads * self.d_k)  # (B, H, Tq, d_k) -> (B, Tq, D)
        return self.out(self.w_o(context))


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
        self.cross_attn = MultiHeadAttention(d_model, n_heads, attention_dropout)
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
        cache: dict[str, dict[str, torch.Tensor]] | None = None,
    ) -> torch.Tensor:
        self_cache = cross_cache = None
        if cache is not None:
            self_cache = cache.setdefault("self", {})
            cross_cache = cache.setdefault("cross", {})
        x = self.sub_self(x, lambda y: self.self_attn(y, y, tgt_mask, self_cache))
        x = self.sub_cross(x, lambda y: self.cross_attn(y, memory, src_mask, cross_cache, static_kv=True))
        return self.out(self.sub_ffn(x, self.ffn))
