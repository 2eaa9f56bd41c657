"""Reading the corpora (Multi30k captions, Tatoeba everyday sentences) and making batches by token count.

Each corpus is a folder of ``<split>.en[.gz]`` / ``<split>.de[.gz]`` files, line N of one translating line N of
the other. A corpus's folder is the one given on the command line when given, else its environment variable
when set ($ATTENTION_EXPLORER_DATA for Multi30k, $ATTENTION_EXPLORER_TATOEBA for Tatoeba), else
../shared/data/<name> beside the project (where CI keeps them; a fresh clone has none).
"""

from __future__ import annotations

import gzip
import json
import os
import random
from dataclasses import dataclass
from pathlib import Path

import numpy as np

SHARED = Path(__file__).resolve().parent.parent.parent / "shared" / "data"


@dataclass(frozen=True)
class Corpus:
    name: str
    env: str  # environment variable naming its folder
    where_to_get: str  # said when the folder is missing
    credit: str  # the line a model card trained on it carries

    @property
    def default_dir(self) -> Path:
        return Path(os.environ.get(self.env) or SHARED / self.name)


CORPORA = {
    "multi30k": Corpus(
        "multi30k", "ATTENTION_EXPLORER_DATA",
        "Multi30k task 1 is in the public Multi30k dataset repository (github.com/multi30k/dataset), "
        "folder data/task1/raw/: put train.{en,de}.gz, val.{en,de}.gz and test_2016_flickr.{en,de}.gz "
        "in one folder and pass it with --data-dir (or set $ATTENTION_EXPLORER_DATA).",
        "Multi30k (Elliott et al., 2016), image captions from Flickr30k, task 1 (github.com/multi30k/dataset)",
    ),
    "tatoeba": Corpus(
        "tatoeba", "ATTENTION_EXPLORER_TATOEBA",
        "Tatoeba English-German pairs are exported by manythings.org/anki (deu-eng.zip, file deu.txt: "
        "English<TAB>German<TAB>attribution per line): split them into train.en/train.de and val.en/val.de "
        "(line N translates line N) in one folder and pass it with --tatoeba-dir "
        "(or set $ATTENTION_EXPLORER_TATOEBA).",
        "Tatoeba Project (tatoeba.org), pairs exported by manythings.org/anki, CC BY 2.0",
    ),
}
DEFAULT_DATA_DIR = CORPORA["multi30k"].default_dir
DISTILLED_RECORD = "distilled.json"  # in a corpus folder training.distill made: whose translations its targets are


def corpus_dirs(args) -> dict[str, str | None]:
    """{corpus: the folder given on the command line, or None for its default} from --data-dir / --tatoeba-dir."""
    return {"multi30k": args.data_dir, "tatoeba": args.tatoeba_dir}


def distilled_records(names, dirs: dict[str, str | Path | None]) -> dict[str, dict]:
    """{corpus: its distilled.json} for each of ``names`` whose folder training.distill made; {} for plain corpora."""
    found = {}
    for name in names:
        try:
            path = find_data_dir(dirs.get(name), name) / DISTILLED_RECORD
        except FileNotFoundError:
            continue
        if path.is_file():
            found[name] = json.loads(path.read_text())
    return found


def find_data_dir(data_dir: str | Path | None, corpus: str = "multi30k") -> Path:
    c = CORPORA[corpus]
    d = Path(data_dir) if data_dir else c.default_dir
    if not d.is_dir():
        raise FileNotFoundError(f"{c.name} data folder {d} not found. {c.where_to_get}")
    return d


def read_lines(path: Path) -> list[str]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f]


class MisalignedPairs(ValueError):
    """The two sides of a split have different numbers of lines: no line can be trusted to translate its partner."""


def read_split(data_dir: str | Path | None, split: str, src: str = "en", tgt: str = "de",
               corpus: str = "multi30k") -> tuple[list[str], list[str]]:
    """(source lines, target lines) of one split; accepts X.en.gz or plain X.en. Refuses, naming both files,
    a pair of files whose line counts differ."""
    d = find_data_dir(data_dir, corpus)
    out, paths = [], []
    for lang in (src, tgt):
        for name in (f"{split}.{lang}.gz", f"{split}.{lang}"):
            if (d / name).is_file():
                out.append(read_lines(d / name))
                paths.append(d / name)
                break
        else:
            raise FileNotFoundError(f"{d / (split + '.' + lang + '.gz')} not found. {CORPORA[corpus].where_to_get}")
    if len(out[0]) != len(out[1]):
        raise MisalignedPairs(f"{paths[0]} has {len(out[0])} lines but {paths[1]} has {len(out[1])}: "
                              "line N of one must translate line N of the other")
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
