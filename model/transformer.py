"""Encoder, Decoder and the Transformer of "Attention Is All You Need" with one tied embedding matrix."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from model.config import ModelConfig
from model.hooks import HookPoint, name_hook_points
from model.kv_cache import KVCache
from model.layers import DecoderLayer, Dropout, EncoderLayer, PositionalEncoding


class Encoder(nn.Module):
    """A stack of N encoder layers (plus a final LayerNorm when pre-LN)."""

    def __init__(self, cfg: ModelConfig) -> None:
        super().__init__()
        self.layers = nn.ModuleList(
            EncoderLayer(cfg.d_model, cfg.n_heads, cfg.d_ff, cfg.dropout, cfg.attention_dropout, cfg.norm_first)
            for _ in range(cfg.n_encoder_layers)
        )
        self.norm = nn.LayerNorm(cfg.d_model) if cfg.norm_first else nn.Identity()
        self.out = HookPoint()  # (B, S, D)

    def forward(self, x: torch.Tensor, src_mask: torch.Tensor) -> torch.Tensor:
        for layer in self.layers:
            x = layer(x, src_mask)
        return self.out(self.norm(x))


class Decoder(nn.Module):
    """A stack of N decoder layers (plus a final LayerNorm when pre-LN)."""

    def __init__(self, cfg: ModelConfig) -> None:
        super().__init__()
        self.layers = nn.ModuleList(
            DecoderLayer(cfg.d_model, cfg.n_heads, cfg.d_ff, cfg.dropout, cfg.attention_dropout, cfg.norm_first)
            for _ in range(cfg.n_decoder_layers)
        )
        self.norm = nn.LayerNorm(cfg.d_model) if cfg.norm_first else nn.Identity()
        self.out = HookPoint()  # (B, T, D)

    def forward(self, x, memory, tgt_mask, src_mask, cache: KVCache | None = None) -> torch.Tensor:
        for layer in self.layers:
            x = layer(x, memory, tgt_mask, src_mask, cache)
        return self.out(self.norm(x))


class Transformer(nn.Module):
    """Encoder-decoder. forward(src, tgt) -> logits; encode()/decode()/project() for step-by-step decoding."""

    def __init__(self, cfg: ModelConfig) -> None:
        super().__init__()
        self.cfg = cfg
        # One matrix for source embeddings, target embeddings and the pre-softmax projection (paper 3.4).
        self.embedding = nn.Embedding(cfg.vocab_size, cfg.d_model, padding_idx=cfg.pad_id)
        nn.init.normal_(self.embedding.weight, mean=0.0, std=cfg.d_model**-0.5)
        with torch.no_grad():
            self.embedding.weight[cfg.pad_id].zero_()
        self.positional = PositionalEncoding(cfg.d_model, cfg.max_len, cfg.positional)
        self.embed_dropout = Dropout(cfg.dropout)
        self.encoder = Encoder(cfg)
        self.decoder = Decoder(cfg)
        self.src_embed, self.src_pos = HookPoint(), HookPoint()  # (B, S, D)
        self.tgt_embed, self.tgt_pos = HookPoint(), HookPoint()  # (B, T, D)
        self.logits = HookPoint()  # (B, T, V)
        for name, p in self.named_parameters():
            if p.dim() > 1 and not name.startswith(("embedding", "positional")):
                nn.init.xavier_uniform_(p)
        name_hook_points(self)

    # -- masks ---------------------------------------------------------------------------
    def src_mask(self, src: torch.Tensor) -> torch.Tensor:
        """(B, S) ids -> (B, 1, 1, S) bool, True where the key is a real token."""
        return (src != self.cfg.pad_id)[:, None, None, :]

    def tgt_mask(self, tgt: torch.Tensor) -> torch.Tensor:
        """(B, T) ids -> (B, 1, T, T) bool: key is real and not in the future."""
        t = tgt.size(1)
        causal = torch.ones(t, t, dtype=torch.bool, device=tgt.device).tril()  # (T, T)
        return (tgt != self.cfg.pad_id)[:, None, None, :] & causal  # (B, 1, 1, T) & (T, T) -> (B, 1, T, T)

    # -- the three stages ----------------------------------------------------------------
    def _embed(self, ids: torch.Tensor, embed_hook: HookPoint, pos_hook: HookPoint, start: int = 0) -> torch.Tensor:
        x = embed_hook(self.embedding(ids) * math.sqrt(self.cfg.d_model))  # (B, T, D)
        return self.embed_dropout(pos_hook(self.positional(x, start)))

    def encode(self, src: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(B, S) ids -> memory (B, S, D) and the source mask (B, 1, 1, S)."""
        src_mask = self.src_mask(src)
        return self.encoder(self._embed(src, self.src_embed, self.src_pos), src_mask), src_mask

    def decode(
        self,
        tgt: torch.Tensor,
        memory: torch.Tensor,
        src_mask: torch.Tensor,
        cache: KVCache | None = None,
    ) -> torch.Tensor:
        """Target ids (B, T) -> decoder output (B, T, D).

        With a cache, ``tgt`` holds only the new positions (starting at ``cache.offset``); the keys and
        values of earlier positions come from the cache, so no causal mask is needed for them.
        """
        start = 0 if cache is None else cache.offset
        x = self._embed(tgt, self.tgt_embed, self.tgt_pos, start)
        tgt_mask = self.tgt_mask(tgt) if cache is None else None
        if cache is not None and tgt.size(1) > 1:
            tgt_mask = torch.ones(tgt.size(1), start + tgt.size(1), dtype=torch.bool, device=tgt.device).tril(start)
        return self.decoder(x, memory, tgt_mask, src_mask, cache)

    def project(self, h: torch.Tensor) -> torch.Tensor:
        """Decoder output (B, T, D) -> logits (B, T, V) through the shared embedding matrix."""
        # F.linear reads the (V, D) matrix as stored; h @ W.t() was 5x slower for one decoding step
        return self.logits(F.linear(h, self.embedding.weight))  # (B, T, D) x (D, V) -> (B, T, V)

    def new_cache(self) -> KVCache:
        return KVCache()

    def forward(self, src: torch.Tensor, tgt: torch.Tensor, rows: torch.Tensor | None = None) -> torch.Tensor:
        """Logits (B, T, V); with ``rows`` (B, T) bool, only the selected positions' logits (N, V): training
        projects the real target tokens alone, not the padding (the projection is a third of a step)."""
        memory, src_mask = self.encode(src)
        h = self.decode(tgt, memory, src_mask)  # (B, T, D)
        return self.project(h if rows is None else h[rows])  # (B, T, V), or (N, D) -> (N, V)

    def num_parameters(self) -> int:
        return sum(p.numel() for p in self.parameters())
