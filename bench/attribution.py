"""Benchmark: what one Translator.attribute call costs on a 15-word caption, per method, and how complete
integrated gradients is at 32 and 64 steps.

    python bench/attribution.py [--checkpoint en-de] [--repeats 7] [--threads 2]

Each figure is the median (p50) of ``--repeats`` timed calls after one warm-up call, in one process. A call
includes the greedy decode of the translation (as the explorer makes it: no forced target).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import median_seconds  # noqa: E402
from model.translator import available, load_pretrained  # noqa: E402

TEXT = "A Boston Terrier is running on lush green grass in front of a white fence."  # 15 words
GOAL_S = 1.0  # integrated gradients with 32 steps should answer within a second


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--checkpoint", default="en-de", help="a name under checkpoints/ or a checkpoint folder")
    p.add_argument("--repeats", type=int, default=7)
    p.add_argument("--threads", type=int, default=2)
    args = p.parse_args()
    if args.repeats < 5:
        p.error("--repeats must be at least 5")
    torch.set_num_threads(args.threads)
    if args.checkpoint == "en-de" and "en-de" not in available():
        print("(en-de not shipped: nothing to measure)")
        return
    tr = load_pretrained(args.checkpoint)
    assert len(TEXT.split()) == 15

    runs = {
        "rollout": dict(method="rollout"),
        "saliency": dict(method="saliency"),
        "input_x_gradient": dict(method="input_x_gradient"),
        "occlusion": dict(method="occlusion"),
        "integrated_gradients, 32 steps": dict(method="integrated_gradients", steps=32),
        "integrated_gradients, 64 steps": dict(method="integrated_gradients", steps=64),
    }
    # as the explorer calls it: the shown translation is already decoded, its pieces are passed as the target
    out_ids = tr.tokenizer.encode(tr.translate(TEXT))
    runs["integrated_gradients, 32 steps, translation given"] = dict(method="integrated_gradients", steps=32,
                                                                       target=out_ids)
    p50: dict[str, float] = {}
    for label, kw in runs.items():
        p50[label], _ = median_seconds(lambda kw=kw: tr.attribute(TEXT, **kw), repeats=args.repeats, warmup=1)

    ig = {k: tr.attribute(TEXT, "integrated_gradients", steps=k) for k in (32, 64)}
    a = ig[32]
    print(f"model: {tr.name}; {tr.model.num_parameters() / 1e6:.2f}M parameters; {args.threads} threads; "
          f"p50 of {args.repeats} calls after 1 warm-up")
    print(f"sentence: {TEXT!r} ({len(TEXT.split())} words)")
    print(f"pieces: {len(a.src_tokens)} source (incl. EOS), {len(a.out_tokens)} output (incl. EOS); "
          f"translation: {tr.translate(TEXT)!r}")
    for label in runs:
        print(f"  {label:50s} p50 {p50[label] * 1e3:8.1f} ms")
    for k, r in ig.items():
        print(f"integrated_gradients, {k} steps: completeness error {r.completeness_error * 100:.2f}% (row gaps "
              f"summed / changes summed); worst row {r.worst_row_completeness_error * 100:.2f}% "
              f"({r.row_gaps.max():.3f} nats), mean row {r.completeness.mean() * 100:.2f}%, {len(r.out_tokens)} rows")
    t = p50["integrated_gradients, 32 steps"]
    verdict = "meets" if t <= GOAL_S else "MISSES"
    print(f"goal: integrated_gradients with 32 steps <= {GOAL_S:.1f} s -> p50 {t:.3f} s, {verdict} the goal "
          f"({t / GOAL_S:.2f}x of the budget); {p50['integrated_gradients, 32 steps, translation given']:.3f} s "
          "when the translation is given (the explorer's call)")


if __name__ == "__main__":
    main()
