"""Token labels for axes: SentencePiece's word-start marker made readable, special tokens marked."""

from __future__ import annotations

import html
import re

from model.names import SPECIAL_PIECES

WORD_START = "\u2581"
SPECIAL = dict(zip(SPECIAL_PIECES, ("[PAD]", "[UNK]", "[BOS]", "[EOS]")))
_BYTE = re.compile(r"^<0x([0-9A-Fa-f]{2})>$")


def readable(piece: str) -> str:
    """'▁Hund' -> 'Hund' (a word starts), 'en' -> '·en' (continues the previous word), '</s>' -> '[EOS]'."""
    if piece in SPECIAL:
        return SPECIAL[piece]
    m = _BYTE.match(piece)
    if m:
        return f"byte {m.group(1).upper()}"
    if piece.startswith(WORD_START):
        rest = piece[len(WORD_START):]
        return rest if rest else "\u2423"  # a lone marker is a space: show ␣
    return "\u00b7" + piece


def is_special(piece: str) -> bool:
    return piece in SPECIAL


def axis_labels(pieces: list[str]) -> list[str]:
    """Labels for a plotly axis, HTML-escaped (plotly renders its text as HTML).

    Duplicates stay distinct because figures place tokens at numeric positions 0..n-1 and
    use these only as tick text; specials are shown in italics.
    """
    out = []
    for p in pieces:
        text = html.escape(readable(p), quote=False)
        out.append(f"<i>{text}</i>" if is_special(p) else text)
    return out


def hover_labels(pieces: list[str]) -> list[str]:
    """'Hund' at position 3 -> 'Hund (#3)'; escaped for plotly's HTML hover text."""
    return [f"{html.escape(readable(p), quote=False)} (#{i})" for i, p in enumerate(pieces)]
