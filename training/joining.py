"""Training examples made by joining two short pairs, so that longer sentences are less foreign to the model.

Tatoeba's sentences are short (6.5 English words on average) and the model does worst on long ones; two pairs
joined ("Tom is here." + "He is asleep." -> "Tom is here. He is asleep.") is still a correct translation pair.
"""

from __future__ import annotations

import random

from model.tokenizer import BOS, EOS

Pair = tuple[list[int], list[int]]


def join(a: Pair, b: Pair) -> Pair:
    """Source ids + EOS and BOS + target ids + EOS (encode_pairs' form) of a followed by b."""
    return a[0][:-1] + b[0], a[1][:-1] + b[1][1:]


def joined_pairs(pairs: list[Pair], fraction: float, seed: int, max_len: int) -> list[Pair]:
    """round(fraction * len(pairs)) new pairs, each two distinct random pairs joined; the same for the same seed
    (so a resumed run sees the same data). Joins longer than max_len on either side are skipped."""
    if not 0 <= fraction <= 1:
        raise ValueError(f"--join must be between 0 and 1, not {fraction}")
    if fraction == 0 or len(pairs) < 2:
        return []
    rng = random.Random(seed)
    out = []
    for _ in range(round(fraction * len(pairs))):
        i, j = rng.sample(range(len(pairs)), 2)
        src, tgt = join(pairs[i], pairs[j])
        assert src[-1] == EOS and tgt[0] == BOS and EOS not in src[:-1] and EOS not in tgt[:-1]
        if len(src) <= max_len and len(tgt) <= max_len:
            out.append((src, tgt))
    return out
