"""Mixing corpora for one model: which corpora, how often each is repeated in an epoch, and where each pair came from.

A mix is written ``multi30k:2,tatoeba:1``: every epoch holds Multi30k's training pairs twice and Tatoeba's once
(upsampling the smaller corpus keeps its share of the gradient). The tokenizer sees each corpus once.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from training.data import CORPORA, read_split


@dataclass(frozen=True)
class Mix:
    weights: dict[str, int]  # corpus -> repeats in one epoch

    @classmethod
    def parse(cls, spec: str) -> Mix:
        weights: dict[str, int] = {}
        for part in filter(None, (p.strip() for p in spec.split(","))):
            name, _, rep = part.partition(":")
            if name not in CORPORA:
                raise ValueError(f"unknown corpus {name!r} in --mix {spec!r}; known: {', '.join(CORPORA)}")
            if name in weights:
                raise ValueError(f"corpus {name!r} named twice in --mix {spec!r}")
            try:
                n = int(rep) if rep else 1
            except ValueError:
                raise ValueError(f"--mix {spec!r}: {rep!r} is not a whole number of repeats") from None
            if not 1 <= n <= 20:
                raise ValueError(f"--mix {spec!r}: repeats must be 1 to 20, not {n}")
            weights[name] = n
        if not weights:
            raise ValueError("--mix names no corpus")
        return cls(weights)

    def __str__(self) -> str:
        return ",".join(f"{k}:{v}" for k, v in self.weights.items())


@dataclass
class Splits:
    """Per corpus, each split's (source lines, target lines)."""
    corpora: dict[str, dict[str, tuple[list[str], list[str]]]]

    def joined(self, split: str, mix: Mix | None = None) -> tuple[list[str], list[str], list[str]]:
        """(sources, targets, corpus of each pair): the split of every corpus, repeated as ``mix`` says."""
        src, tgt, origin = [], [], []
        for name, splits in self.corpora.items():
            s, t = splits[split]
            for _ in range(mix.weights[name] if mix else 1):
                src += s
                tgt += t
                origin += [name] * len(s)
        return src, tgt, origin


def read_corpora(mix: Mix, dirs: dict[str, str | Path | None], splits=("train", "val"),
                 train_limit: int = 0) -> Splits:
    """Read ``splits`` of every corpus in the mix (a misaligned file is refused, named, by read_split)."""
    out = {}
    for name in mix.weights:
        out[name] = {s: read_split(dirs.get(name), s, corpus=name) for s in splits}
        if train_limit and "train" in out[name]:
            s, t = out[name]["train"]
            out[name]["train"] = (s[:train_limit], t[:train_limit])
    return Splits(out)
