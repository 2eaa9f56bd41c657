"""ModelConfig: one dataclass in the paper's names. Defaults are the paper's base model."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any


@dataclass
class ModelConfig:
    vocab_size: int = 37000  # paper: shared source-target BPE vocabulary of ~37k tokens
    d_model: int = 512  # width of every residual stream vector
    n_heads: int = 8  # h; d_k = d_v = d_model / h
    d_ff: int = 2048  # inner width of the position-wise feed-forward network
    n_encoder_layers: int = 6  # N for the encoder stack
    n_decoder_layers: int = 6  # N for the decoder stack
    dropout: float = 0.1  # P_drop on (embeddings + PE) and on every sub-layer output
    attention_dropout: float = 0.1  # dropout on the attention weights (Annotated Transformer's choice)
    max_len: int = 512  # longest sequence the positional table covers
    norm_first: bool = False  # paper: post-LN, LayerNorm(x + Sublayer(x)); True = pre-LN
    positional: str = "sinusoidal"  # paper: "sinusoidal"; "learned" is Table 3 row (E)
    pad_id: int = 0  # token id that is masked out of every attention
    bos_id: int = 2  # first decoder input token
    eos_id: int = 3  # decoding stops here

    def __post_init__(self) -> None:
        if self.d_model % self.n_heads:
            raise ValueError(f"d_model ({self.d_model}) must be divisible by n_heads ({self.n_heads})")
        if self.positional not in ("sinusoidal", "learned"):
            raise ValueError(f"positional must be 'sinusoidal' or 'learned', not {self.positional!r}")
        for name in ("vocab_size", "d_model", "n_heads", "d_ff", "max_len"):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be positive")
        ids = {"pad_id": self.pad_id, "bos_id": self.bos_id, "eos_id": self.eos_id}
        for name, i in ids.items():
            if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < self.vocab_size:
                raise ValueError(f"{name} {i!r} is not a token id of the vocabulary (0..{self.vocab_size - 1})")
        if len(set(ids.values())) != 3:
            raise ValueError(f"pad_id, bos_id and eos_id must differ, got {ids}")

    @property
    def d_k(self) -> int:
        return self.d_model // self.n_heads

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ModelConfig:
        known = {f.name for f in fields(cls)}
        unknown = set(d) - known
        if unknown:
            raise ValueError(f"unknown ModelConfig fields: {sorted(unknown)}")
        return cls(**d)
