"""Benchmark: what one training step costs, the landed recipe against the cheaper one, on the same batches.

    python bench/train_step.py [--steps 12] [--profile]

Both arms train the en-de architecture (6.0M parameters, 8k joint vocabulary) on real Multi30k + Tatoeba batches
of 2,500 padded tokens a side (sorted by length, as training makes them), in turns so machine noise hits both:
- before: float32, logits for every position (padding included), attention dropout 0.1 (the landed model.train);
- after:  bfloat16 autocast (float32 weights and Adam), logits for real target tokens only, no attention dropout
  (training.train's defaults).
Prints median seconds a step, target tokens a second, the padding share and an epoch's estimate; --profile adds
the operators that cost most in one arm's steps. Needs the corpora (../shared/data or --data-dir/--tatoeba-dir).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from model.config import ModelConfig  # noqa: E402
from model.tokenizer import BOS, EOS, PAD  # noqa: E402
from model.transformer import Transformer  # noqa: E402
from training.batches import batch_tensors, encode_pairs  # noqa: E402
from training.data import corpus_dirs, token_batches  # noqa: E402
from training.mixing import Mix, read_corpora  # noqa: E402
from training.tokenizer import train_tokenizer  # noqa: E402


def make_arm(vocab: int, attention_dropout: float, seed: int = 0):
    torch.manual_seed(seed)
    cfg = ModelConfig(vocab_size=vocab, d_model=256, n_heads=4, d_ff=512, n_encoder_layers=3, n_decoder_layers=3,
                      dropout=0.1, attention_dropout=attention_dropout, max_len=256, pad_id=PAD, bos_id=BOS, eos_id=EOS)
    model = Transformer(cfg).train()
    return model, torch.optim.Adam(model.parameters(), lr=1e-4, betas=(0.9, 0.98), eps=1e-9)


def step_before(model, opt, src, tgt_in, tgt_out) -> None:
    logits = model(src, tgt_in)  # (B, T, V)
    loss = F.cross_entropy(logits.flatten(0, 1), tgt_out.flatten(), ignore_index=PAD, label_smoothing=0.1)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()


def step_after(model, opt, src, tgt_in, tgt_out) -> None:
    rows = tgt_out != PAD  # (B, T)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        logits = model(src, tgt_in, rows)  # (N, V)
    loss = F.cross_entropy(logits.float(), tgt_out[rows], label_smoothing=0.1)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=12, help="timed steps of each arm (after 3 warm-up steps)")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--max-tokens", type=int, default=2500)
    p.add_argument("--mix", default="multi30k:2,tatoeba:1")
    p.add_argument("--data-dir", default=None)
    p.add_argument("--tatoeba-dir", default=None)
    p.add_argument("--profile", action="store_true")
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    mix = Mix.parse(args.mix)
    splits = read_corpora(mix, corpus_dirs(args), splits=("train",))
    once = splits.joined("train")
    tok = train_tokenizer(once[0] + once[1], 8000)
    pairs = encode_pairs(tok, *splits.joined("train", mix)[:2], 256)
    batches = token_batches(pairs, args.max_tokens, shuffle=True, seed=1)
    real = sum(len(s) + len(t) - 1 for s, t in pairs)
    padded = sum(len(b) * (max(len(pairs[i][0]) for i in b) + max(len(pairs[i][1]) for i in b) - 1) for b in batches)
    tgt_tokens = sum(len(t) - 1 for _, t in pairs)
    arms = {"before": (step_before, *make_arm(tok.vocab_size, 0.1)), "after": (step_after, *make_arm(tok.vocab_size, 0.0))}
    times: dict[str, list[float]] = {k: [] for k in arms}
    tokens: list[int] = []
    for i, idx in enumerate(batches[: args.steps + 3]):
        src, tgt_in, tgt_out = batch_tensors(pairs, idx)
        for name, (fn, model, opt) in arms.items():  # in turns: the same batch, the same moment
            t0 = time.perf_counter()
            fn(model, opt, src, tgt_in, tgt_out)
            if i >= 3:
                times[name].append(time.perf_counter() - t0)
        if i >= 3:
            tokens.append(int((tgt_out != PAD).sum()))
    print(f"{len(pairs)} training pairs ({mix}), {len(batches)} batches of <= {args.max_tokens} padded tokens a side; "
          f"padding {1 - real / padded:.1%} of the tokens; {args.threads} threads; {args.steps} steps an arm")
    per_tok = statistics.mean(tokens)
    base = statistics.median(times["before"])
    for name, ts in times.items():
        med = statistics.median(ts)
        tps = per_tok / med
        print(f"{name:7} median {med * 1000:6.0f} ms a step, {tps:6.0f} target tokens/s, epoch ~{tgt_tokens / tps / 60:5.1f} "
              f"min, {base / med:.2f}x")
    if args.profile:
        from torch.profiler import ProfilerActivity, profile

        fn, model, opt = arms["after"]
        with profile(activities=[ProfilerActivity.CPU]) as prof:
            for idx in batches[: 5]:
                fn(model, opt, *batch_tensors(pairs, idx))
        print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=12))


if __name__ == "__main__":
    main()
