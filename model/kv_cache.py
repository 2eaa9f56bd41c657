"""The incremental key/value cache of decoding, as one small class.

At decoding step t only the newest target position is fed to the decoder. Each decoder
self-attention block appends that position's key and value to the ones of positions 0..t-1
(``extend``); each cross-attention block computes the keys and values of the encoder output once
and reuses them at every step (``fixed``). Beam search keeps some hypotheses and drops others:
``reorder`` selects the batch rows. ``offset`` is the number of target positions already cached,
i.e. the position of the next token fed in.
"""

from __future__ import annotations

from collections.abc import Callable

import torch

KV = tuple[torch.Tensor, torch.Tensor]  # keys, values: (B, H, T, d_k) each


class KVCache:
    def __init__(self) -> None:
        self._grow: dict[str, KV] = {}  # self-attention block path -> keys/values of the positions so far
        self._fixed: dict[str, KV] = {}  # cross-attention block path -> keys/values of the encoder output

    @property
    def offset(self) -> int:
        """Target positions cached so far (0 before the first step)."""
        for k, _ in self._grow.values():
            return k.size(2)
        return 0

    def extend(self, block: str, k: torch.Tensor, v: torch.Tensor) -> KV:
        """Append the new positions' keys and values (B, H, Tnew, d_k) -> all of them (B, H, Tpast + Tnew, d_k)."""
        if block in self._grow:
            past_k, past_v = self._grow[block]
            k = torch.cat([past_k, k], dim=2)  # (B, H, Tpast, d_k) + (B, H, Tnew, d_k) -> (B, H, Tpast + Tnew, d_k)
            v = torch.cat([past_v, v], dim=2)
        self._grow[block] = (k, v)
        return k, v

    def fixed(self, block: str, make: Callable[[], KV]) -> KV:
        """Keys and values that do not change between steps (cross-attention over the encoder output): ``make()``
        runs at the first step only."""
        if block not in self._fixed:
            self._fixed[block] = make()
        return self._fixed[block]

    def reorder(self, rows: torch.Tensor) -> None:
        """Keep batch rows ``rows`` (B_new,) of every cached tensor, in that order (beam search's survivors)."""
        for table in (self._grow, self._fixed):
            for block, (k, v) in table.items():
                table[block] = (k.index_select(0, rows), v.index_select(0, rows))
