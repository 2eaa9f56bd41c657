"""Val sentences whose greedy translation loops (model/loops.py): where the tests and the lesson find their examples
of a repetition when a model is retrained. Val only; test sets are never read here.

    python scripts/val_loops.py --checkpoint checkpoints/en-de [--corpora multi30k,tatoeba]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from model.loops import find_loop_in  # noqa: E402
from model.translator import DecodeOptions, load_pretrained  # noqa: E402
from training.data import read_split  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--checkpoint", default="en-de")
    p.add_argument("--corpora", default="multi30k,tatoeba")
    p.add_argument("--threads", type=int, default=2)
    args = p.parse_args(argv)
    torch.set_num_threads(args.threads)
    tr = load_pretrained(args.checkpoint)
    for corpus in args.corpora.split(","):
        src, _ = read_split(None, "val", corpus=corpus)
        found = 0
        for i in range(0, len(src), 64):
            chunk = src[i : i + 64]
            for text, (ids, _) in zip(chunk, tr.greedy_batch(chunk, [DecodeOptions()] * len(chunk))):
                loop = find_loop_in(tr.tokenizer, list(ids))
                if loop:
                    found += 1
                    print(f"{corpus} val: {text}\n  -> {tr.tokenizer.decode(ids)}  ({loop.repeats} x {loop.period} pieces)")
        print(f"{corpus} val: {found} of {len(src)} greedy translations loop\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
