"""Benchmark: the JavaScript model (explorer/browser_model/static, run in Node.js) against PyTorch on the shipped
en-de: parity on Tatoeba val (pieces, greedy output, attention weights, step probabilities), the tokenizer on
made-up strings, and the time of one Translate (greedy with every attention map kept) in each, medians.

    python bench/browser_model.py [--sentences 2000] [--strings 1000] [--threads 1]

Lists every sentence whose output differs, with both outputs and the step where they part.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from explorer.browser_model import parity  # noqa: E402
from model.translator import DecodeOptions, load_pretrained  # noqa: E402
from training.data import read_split  # noqa: E402

EN_DE = Path(__file__).resolve().parent.parent / "checkpoints" / "en-de"


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--sentences", type=int, default=2000)
    p.add_argument("--strings", type=int, default=1000)
    p.add_argument("--threads", type=int, default=1, help="PyTorch's threads (the JS model runs on one)")
    p.add_argument("--tatoeba-dir", default=None)
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    tr = load_pretrained("en-de")
    texts = read_split(args.tatoeba_dir, "val", corpus="tatoeba")[0][: args.sentences]

    t0 = time.perf_counter()
    rows = parity.compare(tr, EN_DE, texts)
    print(f"parity on {len(rows)} Tatoeba val sentences ({time.perf_counter() - t0:.0f} s)")
    same_pieces = sum(r.same_pieces for r in rows)
    same_out = sum(r.same_output for r in rows)
    print(f"  source pieces identical: {same_pieces}/{len(rows)}")
    print(f"  greedy output identical: {same_out}/{len(rows)} ({100 * same_out / len(rows):.2f}%, goal >= 99.5%)")
    print(f"  attention weights, largest |JS - PyTorch|: {max(r.attention_diff for r in rows):.2e} (goal <= 1e-3)")
    print(f"  chosen probability, largest |JS - PyTorch|: {max(r.prob_diff for r in rows):.2e}")
    for r in rows:
        if not r.same_output:
            print(f"  differs: {r.text!r}\n    JS:      {r.js!r}\n    PyTorch: {r.torch!r}")

    strings = parity.made_up_strings(args.strings)
    bad = parity.token_parity(tr, EN_DE, strings)
    print(f"tokenizer on {len(strings)} made-up strings: {len(strings) - len(bad)} identical")
    for text, js, py in bad:
        print(f"  differs: {text!r}\n    JS: {js}\n    SentencePiece: {py}")

    # one Translate each: JS greedy keeping every map (Node's own clock) vs the server's greedy + capture pass
    sample = texts[:100]
    js_ms = [r["ms"] for r in parity.run_js(EN_DE, sample, "--no-attention")]
    torch_ms = []
    for text in sample:
        t = time.perf_counter()
        out, _ = tr._decode(tr._src_ids(text), DecodeOptions())
        tr._forced_ids(tr._src_ids(text), out)
        torch_ms.append(1000 * (time.perf_counter() - t))
    js_med, torch_med = statistics.median(js_ms), statistics.median(torch_ms)
    print(f"one Translate, median of {len(sample)} (Node.js {sys.platform}, one thread; PyTorch {args.threads} thread):")
    print(f"  JS model:  {js_med:.1f} ms   PyTorch greedy + capture: {torch_med:.1f} ms   ratio {js_med / torch_med:.2f}")


if __name__ == "__main__":
    main()
