"""Token id lists -> a padded batch tensor: used by decoding at serving time and by training."""

from __future__ import annotations

import torch


def pad_batch(seqs: list[list[int]], pad_id: int) -> torch.Tensor:
    """Lists of ids -> (B, max_len) LongTensor, right-padded."""
    width = max((len(s) for s in seqs), default=0)
    out = torch.full((len(seqs), max(width, 1)), pad_id, dtype=torch.long)
    for i, s in enumerate(seqs):
        out[i, : len(s)] = torch.tensor(s, dtype=torch.long)
    return out
