"""Start a run from a trained checkpoint's weights, optionally with a deeper encoder ("progressive stacking").

A deeper encoder costs little at decoding time (it runs once per sentence; the decoder and the output projection run
once per token), so growing the encoder of a model that has stopped improving is a cheap way to add capacity.
The new encoder layers start as copies of the trained ones, stacked on top in order: trained layers [0, 1, 2] become
[0, 1, 2, 0, 1, 2] (Gong et al. 2019, "Efficient Training of BERT by Progressively Stacking"). Everything else
(embeddings, decoder, output projection) must have the same shape, and the tokenizer is the checkpoint's own.
"""

from __future__ import annotations

import re
from pathlib import Path

import torch

from model.checkpoint import load_checkpoint
from model.config import ModelConfig

ENCODER_LAYER = re.compile(r"^encoder\.layers\.(\d+)\.(.+)$")


def stacked_state(trained: dict[str, torch.Tensor], n_trained: int, n_layers: int) -> dict[str, torch.Tensor]:
    """The trained state with encoder layer i (for i < n_layers) copied from trained layer i mod n_trained."""
    if n_layers < n_trained:
        raise ValueError(f"the checkpoint's encoder has {n_trained} layers, this run {n_layers}: pass --encoder-layers "
                         f"{n_trained} or more")
    state = {k: v for k, v in trained.items() if not ENCODER_LAYER.match(k)}
    for key, value in trained.items():
        m = ENCODER_LAYER.match(key)
        if m is None:
            continue
        source, rest = int(m.group(1)), m.group(2)
        for i in range(source, n_layers, n_trained):  # the copies of this layer in the grown stack
            state[f"encoder.layers.{i}.{rest}"] = value.clone()
    return state


def warm_start(folder: str | Path, cfg: ModelConfig) -> dict[str, torch.Tensor]:
    """-> a state dict for a model of ``cfg`` (train.py takes the checkpoint's spm.model too). Raises ValueError
    when the checkpoint's shape does not fit ``cfg`` (other width, heads, vocabulary, decoder depth or max_len),
    naming what differs."""
    folder = Path(folder)
    model, _, _ = load_checkpoint(folder)  # dequantized float32 weights
    have = model.cfg
    differ = [f"{name} {getattr(have, name)} (this run {getattr(cfg, name)})"
              for name in ("vocab_size", "d_model", "n_heads", "d_ff", "n_decoder_layers", "norm_first", "positional",
                           "max_len")
              if getattr(have, name) != getattr(cfg, name)]
    if differ:
        raise ValueError(f"--init-from {folder} has another shape: " + ", ".join(differ))
    return stacked_state(model.state_dict(), have.n_encoder_layers, cfg.n_encoder_layers)
