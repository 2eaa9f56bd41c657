"""Activation patching: which heads and layers carry the difference between two sentences.

Two source sentences of the same token length, a clean one ("A dog runs") and a corrupted one ("A cat
runs"), are run with the clean translation forced as the decoder's input. One activation at a time —
one head's ``z`` (its weighted sum of values, before W_O) or one layer's output (the residual stream) —
is copied from the clean run into the corrupted run, and the log-probability of the clean translation's
token at one position is read off. ``restored`` = (patched - corrupted) / (clean - corrupted): 1 means
this activation alone brings the clean answer back, 0 that it changes nothing. All patched runs go
through the model as one batch, one row each.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F

from model.decoding import blocked_ids
from model.hooks import capture, intervene
from model.names import act_name
from model.pause import between_chunks

HEAD_KINDS = ("encoder", "decoder", "cross")
ROW_CHUNK = 16  # patched runs in one batched pass


@dataclass
class Patching:
    position: int  # output position whose token is measured
    token: int  # the clean translation's token there
    clean_logp: float
    corrupt_logp: float
    heads: dict[str, np.ndarray]  # kind -> (L, H) log p after patching that head's z
    layers: dict[str, np.ndarray]  # "encoder" / "decoder" -> (L,) log p after patching that layer's output

    def restored(self, values: np.ndarray) -> np.ndarray:
        span = self.clean_logp - self.corrupt_logp
        return (np.asarray(values) - self.corrupt_logp) / (span if abs(span) > 1e-9 else np.nan)


def _logp(model, logits: torch.Tensor) -> torch.Tensor:
    logits = logits.clone()
    logits[..., blocked_ids(model.cfg)] = float("-inf")
    return F.log_softmax(logits, dim=-1)  # (B, T, V)


@torch.no_grad()
def patch(model, clean_src: list[int], corrupt_src: list[int], tgt_ids: list[int], out_ids: list[int],
          position: int | None = None) -> Patching:
    """tgt_ids (T,) = BOS + clean translation; out_ids (T,) = clean translation + EOS. ``position`` None: the first
    position where the corrupted run prefers another token, else the one where the clean token loses most."""
    if len(clean_src) != len(corrupt_src):
        raise ValueError(f"the two sentences must have the same number of source pieces to line up position by "
                         f"position: {len(clean_src)} and {len(corrupt_src)}")
    cfg = model.cfg
    src_c, src_x, tgt = torch.tensor([clean_src]), torch.tensor([corrupt_src]), torch.tensor([tgt_ids])
    with capture() as clean:
        lp_clean = _logp(model, model(src_c, tgt))[0]  # (T, V)
    lp_corrupt = _logp(model, model(src_x, tgt))[0]
    out = torch.tensor(out_ids)  # (T,)
    c_tok, x_tok = lp_clean.gather(1, out[:, None])[:, 0], lp_corrupt.gather(1, out[:, None])[:, 0]  # (T,)
    if position is None:
        differs = (lp_corrupt.argmax(-1) != out).nonzero()
        position = int(differs[0]) if len(differs) else int((c_tok - x_tok).argmax())
    if not 0 <= position < len(out_ids):
        raise ValueError(f"position must be in 0..{len(out_ids) - 1}, got {position}")

    rows: list[tuple[str, int | None]] = []  # (hook name, head or None = the whole tensor)
    for kind in HEAD_KINDS:
        n = cfg.n_encoder_layers if kind == "encoder" else cfg.n_decoder_layers
        rows += [(act_name(kind, i, "z"), h) for i in range(n) for h in range(cfg.n_heads)]
    rows += [(act_name("encoder", i, "out"), None) for i in range(cfg.n_encoder_layers)]
    rows += [(act_name("decoder", i, "out"), None) for i in range(cfg.n_decoder_layers)]
    vals = []
    for c0 in range(0, len(rows), ROW_CHUNK):  # a chunk of patched runs at a time: bounded memory, others run between
        chunk = rows[c0:c0 + ROW_CHUNK]
        by_name: dict[str, list[tuple[int, int | None]]] = {}
        for r, (name, head) in enumerate(chunk):
            by_name.setdefault(name, []).append((r, head))

        def patcher(x: torch.Tensor, name: str, by_name=by_name) -> torch.Tensor:
            x = x.clone()
            for r, head in by_name[name]:
                if head is None:
                    x[r] = clean[name][0]  # (T, D): the whole layer output
                else:
                    x[r, head] = clean[name][0, head]  # (T, d_k): one head's z
            return x

        b = len(chunk)
        with intervene({name: patcher for name in by_name}):
            lp = _logp(model, model(src_x.expand(b, -1), tgt.expand(b, -1)))  # (b, T, V)
        vals.append(lp[:, position, out_ids[position]])  # (b,)
        between_chunks()
    vals = torch.cat(vals).numpy()  # (R,)
    heads, layers, k = {}, {}, 0
    for kind in HEAD_KINDS:
        n = cfg.n_encoder_layers if kind == "encoder" else cfg.n_decoder_layers
        heads[kind] = vals[k : k + n * cfg.n_heads].reshape(n, cfg.n_heads)  # (L * H,) -> (L, H)
        k += n * cfg.n_heads
    layers["encoder"] = vals[k : k + cfg.n_encoder_layers]
    layers["decoder"] = vals[k + cfg.n_encoder_layers :]
    return Patching(position, out_ids[position], float(c_tok[position]), float(x_tok[position]), heads, layers)
