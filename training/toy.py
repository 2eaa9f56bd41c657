"""Generated toy tasks (reverse, copy) whose attention shows textbook patterns."""

from __future__ import annotations

import random

ALPHABET = "abcdefghijklmnopqrstuvwxyz"
# the examples the shipped toy shows (its config.json "task"); also used for a toy trained without them
EXAMPLES = ("a b c d e", "h e l l o", "t r a n s f o r m e r", "d o g s", "a t t e n t i o n")


def make_pairs(task: str, n: int, seed: int, min_len: int = 3, max_len: int = 12,
               alphabet: str = ALPHABET[:20]) -> tuple[list[str], list[str]]:
    """n (source, target) strings of space-separated letters; target = source reversed (or copied)."""
    if task not in ("reverse", "copy"):
        raise ValueError(f"unknown toy task {task!r}; choose 'reverse' or 'copy'")
    rng = random.Random(seed)
    src, tgt = [], []
    for _ in range(n):
        seq = [rng.choice(alphabet) for _ in range(rng.randint(min_len, max_len))]
        src.append(" ".join(seq))
        tgt.append(" ".join(reversed(seq) if task == "reverse" else seq))
    return src, tgt


def tokenizer_corpus() -> list[str]:
    """Text that makes SentencePiece give every letter one piece ("▁a", ..., "▁z")."""
    return [" ".join(ALPHABET)] * 50 + [" ".join(reversed(ALPHABET))] * 50
