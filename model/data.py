"""Reading Multi30k and making batches by token count.

The data folder is ``--data-dir`` when given, else $ATTENTION_EXPLORER_DATA when set, else
../shared/data/multi30k beside the project (where CI keeps it; a fresh clone has none).
"""

from __future__ import annotations

import gzip
import os
import random
from pathlib import Path

import numpy as np

DATA_ENV = "ATTENTION_EXPLORER_DATA"
DEFAULT_DATA_DIR = Path(
    os.environ.get(DATA_ENV) or Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "multi30k"
)
WHERE_TO_GET = (
    "Multi30k task 1 is in the public Multi30k dataset repository (github.com/multi30k/dataset), "
    "folder data/task1/raw/: put train.{en,de}.gz, val.{en,de}.gz and test_2016_flickr.{en,de}.gz "
    "in one folder and pass it with --data-dir (or set $ATTENTION_EXPLORER_DATA)."
)


def find_data_dir(data_dir: str | Path | None) -> Path:
    d = Path(data_dir) if data_dir else DEFAULT_DATA_DIR
    if not d.is_dir():
        raise FileNotFoundError(f"data folder {d} not found. {WHERE_TO_GET}")
    return d


def read_lines(path: Path) -> list[str]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f]


def read_split(data_dir: str | Path | None, split: str, src: str = "en", tgt: str = "de") -> tuple[list[str], list[str]]:
    """(source lines, target lines) of one split; accepts X.en.gz or plain X.en."""
    d = find_data_dir(data_dir)
    out = []
    for lang in (src, tgt):
        for name in (f"{split}.{lang}.gz", f"{split}.{lang}"):
            if (d / name).is_file():
                out.append(read_lines(d / name))
                break
        else:
            raise FileNotFoundError(f"{d / (split + '.' + lang + '.gz')} not found. {WHERE_TO_GET}")
    if len(out[0]) != len(out[1]):
        raise ValueError(f"{split}: {len(out[0])} {src} lines but {len(out[1])} {tgt} lines")
    return out[0], out[1]


def spaced_sources(data_dir: str | Path | None, split: str, n: int) -> list[str]:
    """``n`` source sentences evenly spaced through a split, the first and the last included: a sample for a
    measurement that takes nothing from one corner of the file."""
    src, _ = read_split(data_dir, split)
    return [src[i] for i in np.linspace(0, len(src) - 1, min(n, len(src))).round().astype(int)]


def token_batches(
    pairs: list[tuple[list[int], list[int]]],
    max_tokens: int,
    shuffle: bool,
    seed: int = 0,
) -> list[list[int]]:
    """Group pair indices into batches of at most ``max_tokens`` (padded) tokens per side.

    Pairs are sorted by length so a batch wastes little on padding; with ``shuffle``
    the order inside equal-length runs and the order of batches are random.
    """
    rng = random.Random(seed)
    idx = list(range(len(pairs)))
    if shuffle:
        rng.shuffle(idx)
    idx.sort(key=lambda i: (len(pairs[i][1]), len(pairs[i][0])))  # stable: shuffled within a length
    batches, cur, width = [], [], 0
    for i in idx:
        w = max(width, len(pairs[i][0]), len(pairs[i][1]))
        if cur and w * (len(cur) + 1) > max_tokens:
            batches.append(cur)
            cur, w = [], max(len(pairs[i][0]), len(pairs[i][1]))
        cur.append(i)
        width = w
    if cur:
        batches.append(cur)
    if shuffle:
        rng.shuffle(batches)
    return batches
