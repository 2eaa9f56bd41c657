"""How complete integrated gradients is on real sentences: over all rows, and row by row.

    python scripts/ig_completeness.py [--checkpoint en-de] [--split val] [--n 100] [--steps 64] [--data-dir DIR]

Takes ``--n`` sentences evenly spaced through the split (val by default: nothing is chosen on a test set), runs
``Translator.attribute(text, "integrated_gradients", steps=...)`` on each (the model's own greedy translation is
explained) and prints the distribution of
- ``completeness_error``: sum over rows of |row sum of attributions - (f_t(x) - f_t(baseline))| over the sum of
  |f_t(x) - f_t(baseline)| (rows cannot cancel; the goal: <= 1% at 64 steps);
- the worst row's relative gap (``worst_row_completeness_error``) and its gap in nats (``row_gaps``).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from model.translator import load_pretrained  # noqa: E402
from training.data import spaced_sources  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--checkpoint", default="en-de", help="a name under checkpoints/ or a checkpoint folder")
    p.add_argument("--split", default="val")
    p.add_argument("--data-dir", default=None, help="folder with <split>.en.gz (default: ../shared/data/multi30k)")
    p.add_argument("--n", type=int, default=100, help="how many sentences, evenly spaced through the split")
    p.add_argument("--steps", type=int, default=64)
    p.add_argument("--threads", type=int, default=2)
    args = p.parse_args(argv)
    torch.set_num_threads(args.threads)
    try:
        texts = spaced_sources(args.data_dir, args.split, args.n)
    except (FileNotFoundError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    tr = load_pretrained(args.checkpoint)
    whole, worst_rel, worst_nats = [], [], []
    t0 = time.perf_counter()
    for k, text in enumerate(texts, 1):
        a = tr.attribute(text, "integrated_gradients", steps=args.steps)
        whole.append(a.completeness_error)
        worst_rel.append(a.worst_row_completeness_error)
        worst_nats.append(float(a.row_gaps.max()))
        if k % 10 == 0:
            print(f"  {k}/{len(texts)} sentences, {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
    whole, worst_rel, worst_nats = map(np.array, (whole, worst_rel, worst_nats))
    print(f"{tr.name}: {len(texts)} {args.split} sentences, integrated gradients with {args.steps} steps "
          f"({time.perf_counter() - t0:.0f} s)")
    print(f"all rows (completeness_error): max {whole.max():.2%}, median {np.median(whole):.2%}, "
          f"over 1%: {(whole > 0.01).sum()}")
    print(f"worst row, relative: max {worst_rel.max():.1%}, median {np.median(worst_rel):.2%}, "
          f"sentences whose worst row is over 1%: {(worst_rel > 0.01).sum()}")
    print(f"worst row, in nats: max {worst_nats.max():.3f}, median {np.median(worst_nats):.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
