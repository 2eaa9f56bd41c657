"""Validation loss: plain cross-entropy per target token, no label smoothing."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from model.tokenizer import PAD
from model.transformer import Transformer
from training.batches import batch_tensors
from training.data import token_batches


@torch.no_grad()
def validation_loss(model: Transformer, pairs, max_tokens: int) -> float:
    model.eval()
    device = next(model.parameters()).device  # the batches go where the weights are (a GPU run validates there)
    total, count = 0.0, 0
    for idx in token_batches(pairs, max_tokens, shuffle=False):
        src, tgt_in, tgt_out = (t.to(device) for t in batch_tensors(pairs, idx))
        logits = model(src, tgt_in)  # (B, T, V)
        total += F.cross_entropy(logits.flatten(0, 1), tgt_out.flatten(), ignore_index=PAD, reduction="sum").item()
        count += int((tgt_out != PAD).sum())
    model.train()
    return total / max(count, 1)
