"""Repetition loops in a decoded output: "… auf dem er er er er er …", "Holz haus haus haus".

A loop is a unit of ``period`` consecutive tokens that occurs at least ``min_repeats`` times in a row. The
detector works on token ids (pieces), so a word split into pieces that repeat ("haus haus haus") is found too.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

MAX_PERIOD = 6
MIN_REPEATS = 3


@dataclass(frozen=True)
class Loop:
    start: int  # index of the first token of the repeated run
    period: int  # tokens in one unit
    repeats: int  # how many times the unit occurs in a row

    @property
    def end(self) -> int:
        return self.start + self.period * self.repeats


def is_punctuation(piece: str) -> bool:
    """A piece of punctuation or digits alone (".", "!", "9"): repeated, it is an ellipsis or a number, not a loop."""
    text = piece.replace("\u2581", "")
    return bool(text) and not any(ch.isalpha() for ch in text)


def find_loop(tokens: list[int], min_repeats: int = MIN_REPEATS, max_period: int = MAX_PERIOD,
              quiet: Collection[int] = ()) -> Loop | None:
    """The longest run (in tokens) of a unit repeated at least ``min_repeats`` times in a row, or None. A unit made
    only of ``quiet`` ids (punctuation and digits: "...", "2000") is never a loop."""
    best: Loop | None = None
    n = len(tokens)
    for period in range(1, max_period + 1):
        i = 0
        while i + period * min_repeats <= n:
            reps = 1
            while tokens[i + reps * period : i + (reps + 1) * period] == tokens[i : i + period] and \
                    i + (reps + 1) * period <= n:
                reps += 1
            if reps >= min_repeats and all(t in quiet for t in tokens[i : i + period]):
                reps = 1  # an ellipsis or a number
            if reps >= min_repeats and (best is None or period * reps > best.period * best.repeats):
                best = Loop(i, period, reps)
            i += max(1, (reps - 1) * period) if reps >= min_repeats else 1
    return best


def find_loop_in(tokenizer, ids: list[int]) -> Loop | None:
    """find_loop with the tokenizer's punctuation and digit pieces quiet."""
    return find_loop(ids, quiet={i for i in set(ids) if is_punctuation(tokenizer.id_to_piece(i))})
