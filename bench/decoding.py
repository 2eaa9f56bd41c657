"""Benchmark: cached vs uncached greedy decoding (30 output tokens), run_with_cache vs a plain forward, and what
a batch of greedy decodes costs per sentence (explorer/serving/batcher.py batches a class's Translate clicks).

    python bench/decoding.py [--checkpoint checkpoints/en-de] [--repeats 15]
    python bench/decoding.py --checkpoint runs/enc6-join --against checkpoints/en-de   # a candidate's decoding cost

Uses the checkpoint's architecture and weights when the folder exists (else the same
architecture with random weights). Prints medians of interleaved runs in one process.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import interleaved  # noqa: E402
from model.checkpoint import load_checkpoint, load_config  # noqa: E402
from model.config import ModelConfig  # noqa: E402
from model.decoding import greedy  # noqa: E402
from model.hooks import run_with_cache  # noqa: E402
from model.transformer import Transformer  # noqa: E402

STEPS = 30


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--checkpoint", default="checkpoints/en-de")
    p.add_argument("--repeats", type=int, default=15)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--against", default="",
                   help="another checkpoint: its cached greedy timed in the same interleaved runs, and the ratio")
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    path = Path(args.checkpoint)
    if (path / "model.safetensors").is_file():
        model, _, _ = load_checkpoint(path)
        what = f"{path} (trained weights)"
    else:
        cfg = load_config(path)[0] if (path / "config.json").is_file() else ModelConfig(
            vocab_size=8000, d_model=256, n_heads=4, d_ff=512, n_encoder_layers=3, n_decoder_layers=3)
        torch.manual_seed(0)
        model, what = Transformer(cfg).eval(), "random weights, en-de architecture"
    cfg = model.cfg
    # A 15-token source; min_len forbids an early EOS so that every run decodes exactly STEPS tokens.
    src = torch.randint(4, cfg.vocab_size, (1, 15), generator=torch.Generator().manual_seed(0))
    out, _ = greedy(model, src, STEPS, trace_top_k=0, min_len=STEPS)
    assert len(out[0]) == STEPS, len(out[0])
    tgt = torch.tensor([[cfg.bos_id] + out[0]])
    runs = {}
    if args.against:
        other, _, _ = load_checkpoint(Path(args.against))
        runs["against"] = lambda: greedy(other, src, STEPS, use_cache=True, trace_top_k=0, min_len=STEPS)
    with torch.inference_mode():
        t = interleaved({
            **runs,
            "cached": lambda: greedy(model, src, STEPS, use_cache=True, trace_top_k=0, min_len=STEPS),
            "uncached": lambda: greedy(model, src, STEPS, use_cache=False, trace_top_k=0, min_len=STEPS),
            "forward": lambda: model(src, tgt),
            "run_with_cache": lambda: run_with_cache(model, src, tgt),
        }, repeats=args.repeats)
    print(f"model: {what}; {model.num_parameters() / 1e6:.2f}M parameters; {args.threads} threads; "
          f"medians of {args.repeats} interleaved runs")
    print(f"greedy, {STEPS} output tokens: cached {t['cached'] * 1e3:.1f} ms, uncached {t['uncached'] * 1e3:.1f} ms, "
          f"speedup {t['uncached'] / t['cached']:.2f}x")
    if args.against:
        print(f"against {args.against} ({other.num_parameters() / 1e6:.2f}M parameters): cached greedy "
              f"{t['cached'] / STEPS * 1e3:.2f} vs {t['against'] / STEPS * 1e3:.2f} ms/token, "
              f"{t['cached'] / t['against']:.2f}x")
    print(f"teacher-forced pass (15 -> {STEPS + 1} tokens): forward {t['forward'] * 1e3:.2f} ms, "
          f"run_with_cache {t['run_with_cache'] * 1e3:.2f} ms, overhead {t['run_with_cache'] / t['forward']:.3f}x")


    if not args.against:  # the shipped en-de's request figures; a comparison needs only the line above
        translator_figures(args.repeats)


def translator_figures(repeats: int) -> None:
    """What a request costs end to end: analyze (decode + captured pass) vs translate, beam 5 vs greedy."""
    from model.translator import DecodeOptions, available, load_pretrained

    if "en-de" not in available():
        print("(en-de not shipped: skipping the translator figures)")
        return
    tr = load_pretrained("en-de")
    text = "A Boston Terrier is running on lush green grass in front of a white fence."
    beam = DecodeOptions("beam", beam_size=5)
    reverse = tr.reverse  # the quality estimate's reverse pass (model/quality.py); None: the checkpoint has none

    def analyze_without_reverse():
        tr.reverse = None
        try:
            return tr.analyze(text)
        finally:
            tr.reverse = reverse

    t = interleaved({
        "translate": lambda: tr.translate(text),
        "analyze": lambda: tr.analyze(text),
        "analyze_no_reverse": analyze_without_reverse,
        "beam5": lambda: tr.translate(text, beam),
    }, repeats=repeats)
    extra = "no reverse model" if reverse is None else \
        f"the pass costs {(t['analyze'] - t['analyze_no_reverse']) * 1e3:.1f} ms"
    print(f"15-word sentence, en-de: translate (greedy) {t['translate'] * 1e3:.1f} ms, analyze (greedy + capture "
          f"+ reverse pass) {t['analyze'] * 1e3:.1f} ms, overhead {t['analyze'] / t['translate']:.3f}x; without the "
          f"reverse pass {t['analyze_no_reverse'] * 1e3:.1f} ms ({extra})")
    print(f"beam 5: {t['beam5'] * 1e3:.1f} ms, {t['beam5'] / t['translate']:.2f}x greedy")
    sentences = [text, "Two young men are playing soccer on a green field while a crowd watches from the stands.",
                 "A woman in a red coat reads a newspaper on a bench next to a busy street in the city.",
                 "An old man with a long white beard is sitting on a bench in the park feeding pigeons."] * 4
    greedy_opts = DecodeOptions()
    sizes = (1, 2, 4, 8, 16)
    t = interleaved({n: (lambda n=n: tr.greedy_batch(sentences[:n], [greedy_opts] * n)) for n in sizes},
                    repeats=repeats)
    print("greedy_batch, 15-19-word sentences, per sentence: " + ", ".join(
        f"batch {n} {t[n] / n * 1e3:.1f} ms" for n in sizes) + f" ({t[1] / (t[8] / 8):.1f}x cheaper at 8)")


if __name__ == "__main__":
    main()
