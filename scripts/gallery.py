"""Render every view for one sentence to PNG (kaleido + a Chromium) so a person can look at them.

    python scripts/gallery.py --checkpoint en-de --out bench/out/gallery "A man in a blue shirt is playing guitar."
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from model.translator import DecodeOptions, load_pretrained  # noqa: E402
from viz import views  # noqa: E402


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("sentence")
    p.add_argument("--checkpoint", default="en-de")
    p.add_argument("--out", default="bench/out/gallery")
    args = p.parse_args()
    torch.set_num_threads(1)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    tr = load_pretrained(args.checkpoint)
    a = tr.analyze(args.sentence)
    b = tr.analyze(args.sentence, DecodeOptions("beam", beam_size=4))
    print("greedy:", a.translation, "| beam:", b.translation)
    last = tr.cfg.n_decoder_layers - 1
    figs = {
        "heatmap_cross": views.heatmap(a, "cross", last, None),
        "heatmap_encoder_h0": views.heatmap(a, "encoder", 0, 0),
        "heatmap_decoder": views.heatmap(a, "decoder", 0, None),
        "model_view_cross": views.all_heads(a, "cross"),
        "head_stats_encoder": views.statistics(a, "encoder"),
        "step_2": views.decoding_step(a, 2, last, None),
        "beam_tree": views.beam(b),
        "greedy_vs_beam": views.compare(a, b),
        "inside_head": views.head_inside(a, "cross", last, 0, 2),
        "logit_lens": views.lens(a),
        **{f"pe_{k}": v for k, v in views.positional(a).items()},
    }
    for name, fig in figs.items():
        fig.write_image(out / f"{name}.png", width=fig.layout.meta["export_width"], height=fig.layout.height or 600)
        print("wrote", out / f"{name}.png")
    for view in ("head", "model"):
        (out / f"bertviz_{view}.html").write_text(views.bertviz(a, view))


if __name__ == "__main__":
    main()
