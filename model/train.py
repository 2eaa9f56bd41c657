"""Train an English->German Transformer on Multi30k (or a toy task) with the paper's recipe, scaled down.

    python -m model.train --out checkpoints/en-de                 # the shipped en-de model
    python -m model.train --task reverse --out checkpoints/toy-reverse --d-model 64 --d-ff 128 \
        --layers 2 --vocab-size 313 --epochs 8 --warmup 200
    python -m model.train --out runs/x --resume                    # continue an interrupted run

Adam(0.9, 0.98, 1e-9), linear warm-up then inverse-square-root decay, label smoothing,
batches by token count, validation loss each epoch, the average of the last epochs'
weights as the final model. Everything written is safetensors / JSON / CSV, never pickle.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import random
import sys
import time
from pathlib import Path

import torch
import torch.nn.functional as F
from safetensors.torch import load_file, save_file

from model.batch import pad_batch
from model.checkpoint import METRICS, TRAIN_LOG, save_checkpoint
from model.config import ModelConfig
from model.data import read_split, token_batches
from model.schedule import lr_at  # noqa: F401  (re-exported: older callers import it from here)
from model.tokenizer import BOS, EOS, PAD, Tokenizer
from model.toy import make_pairs, tokenizer_corpus
from model.transformer import Transformer


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--task", default="multi30k", choices=["multi30k", "reverse", "copy"])
    p.add_argument("--data-dir", default=None,
                   help="Multi30k folder (default $ATTENTION_EXPLORER_DATA, else ../shared/data/multi30k)")
    p.add_argument("--out", required=True, help="checkpoint folder to write")
    p.add_argument("--resume", action="store_true", help="continue from --out/work/resume.*")
    p.add_argument("--train-limit", type=int, default=0, help="use only the first N training pairs (tests)")
    p.add_argument("--vocab-size", type=int, default=8000)
    p.add_argument("--d-model", type=int, default=256)
    p.add_argument("--n-heads", type=int, default=4)
    p.add_argument("--d-ff", type=int, default=512)
    p.add_argument("--layers", type=int, default=3, help="encoder and decoder layers each")
    p.add_argument("--dropout", type=float, default=0.1)
    p.add_argument("--attention-dropout", type=float, default=0.1)
    p.add_argument("--norm-first", action="store_true", help="pre-LN instead of the paper's post-LN")
    p.add_argument("--positional", default="sinusoidal", choices=["sinusoidal", "learned"])
    p.add_argument("--max-len", type=int, default=256)
    p.add_argument("--max-tokens", type=int, default=2500, help="padded tokens per side in a batch")
    p.add_argument("--lr", type=float, default=1e-3, help="peak learning rate, reached after warm-up")
    p.add_argument("--warmup", type=int, default=400)
    p.add_argument("--label-smoothing", type=float, default=0.1)
    p.add_argument("--epochs", type=int, default=15)
    p.add_argument("--time-budget", type=float, default=0, help="minutes; stop after the epoch that would overrun")
    p.add_argument("--average", type=int, default=5, help="average the weights of the last N epochs")
    p.add_argument("--save-dtype", default="float32", choices=["float32", "float16", "bfloat16", "int8"],
                   help="storage of the final weights (int8: per-row scales, a quarter of the size)")
    p.add_argument("--seed", type=int, default=1234)
    p.add_argument("--threads", type=int, default=2, help="torch CPU threads (match the cores)")
    p.add_argument("--log-every", type=int, default=50)
    return p.parse_args(argv)


def load_texts(args) -> dict[str, tuple[list[str], list[str]]]:
    if args.task == "multi30k":
        splits = {s: read_split(args.data_dir, s) for s in ("train", "val")}
    else:
        splits = {"train": make_pairs(args.task, 20000, args.seed), "val": make_pairs(args.task, 500, args.seed + 1)}
    if args.train_limit:
        src, tgt = splits["train"]
        splits["train"] = (src[: args.train_limit], tgt[: args.train_limit])
    return splits


def encode_pairs(tok: Tokenizer, src: list[str], tgt: list[str], max_len: int) -> list[tuple[list[int], list[int]]]:
    """Source ids + EOS, and BOS + target ids + EOS; pairs longer than max_len are dropped."""
    pairs = []
    for s, t in zip(tok.encode_batch(src), tok.encode_batch(tgt)):
        if len(s) + 1 <= max_len and len(t) + 2 <= max_len:
            pairs.append((s + [EOS], [BOS] + t + [EOS]))
    return pairs


def batch_tensors(pairs, idx):
    src = pad_batch([pairs[i][0] for i in idx], PAD)  # (B, S)
    tgt = pad_batch([pairs[i][1] for i in idx], PAD)  # (B, T+1)
    return src, tgt[:, :-1], tgt[:, 1:]  # decoder input is the target shifted right


@torch.no_grad()
def validation_loss(model: Transformer, pairs, max_tokens: int) -> float:
    model.eval()
    total, count = 0.0, 0
    for idx in token_batches(pairs, max_tokens, shuffle=False):
        src, tgt_in, tgt_out = batch_tensors(pairs, idx)
        logits = model(src, tgt_in)  # (B, T, V)
        total += F.cross_entropy(logits.flatten(0, 1), tgt_out.flatten(), ignore_index=PAD, reduction="sum").item()
        count += int((tgt_out != PAD).sum())
    model.train()
    return total / max(count, 1)


def save_resume(work: Path, model, opt, state: dict) -> None:
    """Model and Adam moments as safetensors, counters as JSON: resumable without pickle."""
    tensors = {f"model.{k}": v.contiguous() for k, v in model.state_dict().items()}
    params = list(model.parameters())
    for i, p in enumerate(params):
        st = opt.state.get(p, {})
        for key in ("exp_avg", "exp_avg_sq"):
            if key in st:
                tensors[f"optim.{i}.{key}"] = st[key].contiguous()
        if "step" in st:
            state.setdefault("adam_steps", {})[str(i)] = float(st["step"])
    tmp = work / "resume.safetensors.tmp"
    save_file(tensors, str(tmp))
    os.replace(tmp, work / "resume.safetensors")  # never leave a half-written resume file
    (work / "resume.json").write_text(json.dumps(state))


def load_resume(work: Path, model, opt) -> dict:
    tensors = load_file(str(work / "resume.safetensors"))
    state = json.loads((work / "resume.json").read_text())
    model.load_state_dict({k[6:]: v for k, v in tensors.items() if k.startswith("model.")})
    for i, p in enumerate(model.parameters()):
        if f"optim.{i}.exp_avg" in tensors:
            opt.state[p] = {
                "step": torch.tensor(state["adam_steps"][str(i)]),
                "exp_avg": tensors[f"optim.{i}.exp_avg"],
                "exp_avg_sq": tensors[f"optim.{i}.exp_avg_sq"],
            }
    return state


def average_epochs(paths: list[Path]) -> dict[str, torch.Tensor]:
    avg: dict[str, torch.Tensor] = {}
    for path in paths:
        for k, v in load_file(str(path)).items():
            avg[k] = avg.get(k, 0) + v.double() / len(paths)
    return {k: v.float() for k, v in avg.items()}


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    torch.set_num_threads(args.threads)  # oversubscribed threads make CPU training many times slower
    torch.manual_seed(args.seed)
    random.seed(args.seed)
    out = Path(args.out)
    work = out / "work"
    work.mkdir(parents=True, exist_ok=True)

    try:
        texts = load_texts(args)
    except FileNotFoundError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    spm_path = work / "spm.model"
    if args.resume and spm_path.is_file():
        tok = Tokenizer.load(spm_path)
    else:
        corpus = tokenizer_corpus() if args.task != "multi30k" else texts["train"][0] + texts["train"][1]
        tok = Tokenizer.train(corpus, args.vocab_size)  # training split only
        tok.save(spm_path)
    train_pairs = encode_pairs(tok, *texts["train"], args.max_len)
    val_pairs = encode_pairs(tok, *texts["val"], args.max_len)

    cfg = ModelConfig(
        vocab_size=tok.vocab_size, d_model=args.d_model, n_heads=args.n_heads, d_ff=args.d_ff,
        n_encoder_layers=args.layers, n_decoder_layers=args.layers, dropout=args.dropout,
        attention_dropout=args.attention_dropout, max_len=args.max_len, norm_first=args.norm_first,
        positional=args.positional, pad_id=PAD, bos_id=BOS, eos_id=EOS,
    )
    model = Transformer(cfg)
    model.train()
    opt = torch.optim.Adam(model.parameters(), lr=args.lr, betas=(0.9, 0.98), eps=1e-9)
    training = {k: v for k, v in vars(args).items() if k not in ("resume", "out", "data_dir", "log_every")}
    state = {"epoch": 0, "step": 0, "elapsed_s": 0.0, "val_losses": []}
    if args.resume and (work / "resume.json").is_file():
        state = load_resume(work, model, opt)
        print(f"resumed at epoch {state['epoch']}, step {state['step']}", flush=True)
    elif (out / TRAIN_LOG).exists():
        (out / TRAIN_LOG).unlink()

    n_params = model.num_parameters()
    print(f"{args.task}: {len(train_pairs)} training pairs, {len(val_pairs)} validation pairs; "
          f"{n_params / 1e6:.2f}M parameters; vocabulary {tok.vocab_size}", flush=True)
    log_new = not (out / TRAIN_LOG).exists()
    log_f = open(out / TRAIN_LOG, "a", newline="")
    log = csv.writer(log_f)
    if log_new:
        log.writerow(["step", "epoch", "loss", "lr", "val_loss"])

    start = time.time() - state["elapsed_s"]
    step = state["step"]
    while state["epoch"] < args.epochs:
        epoch = state["epoch"] + 1
        t_epoch = time.time()
        batches = token_batches(train_pairs, args.max_tokens, shuffle=True, seed=args.seed + epoch)
        run_loss, run_tok = 0.0, 0
        for bi, idx in enumerate(batches):
            src, tgt_in, tgt_out = batch_tensors(train_pairs, idx)
            step += 1
            lr = lr_at(step, args.lr, args.warmup)
            for g in opt.param_groups:
                g["lr"] = lr
            logits = model(src, tgt_in)  # (B, T, V)
            loss = F.cross_entropy(logits.flatten(0, 1), tgt_out.flatten(), ignore_index=PAD,
                                   label_smoothing=args.label_smoothing)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            n = int((tgt_out != PAD).sum())
            run_loss += loss.item() * n
            run_tok += n
            if step % args.log_every == 0:
                log.writerow([step, epoch, f"{run_loss / run_tok:.4f}", f"{lr:.6g}", ""])
                log_f.flush()
                print(f"epoch {epoch} batch {bi + 1}/{len(batches)} step {step} loss {run_loss / run_tok:.3f} "
                      f"lr {lr:.2e} elapsed {(time.time() - start) / 60:.1f} min", flush=True)
                run_loss, run_tok = 0.0, 0
        val = validation_loss(model, val_pairs, args.max_tokens)
        log.writerow([step, epoch, f"{run_loss / max(run_tok, 1):.4f}" if run_tok else "", f"{lr:.6g}", f"{val:.4f}"])
        log_f.flush()
        save_file({k: v.contiguous() for k, v in model.state_dict().items()}, str(work / f"epoch_{epoch:03d}.safetensors"))
        for old in sorted(work.glob("epoch_*.safetensors"))[: -max(args.average, 1)]:
            old.unlink()
        epoch_min = (time.time() - t_epoch) / 60
        state.update(epoch=epoch, step=step, elapsed_s=time.time() - start)
        state["val_losses"].append(val)
        save_resume(work, model, opt, state)
        print(f"== epoch {epoch} done in {epoch_min:.1f} min: validation loss {val:.3f} "
              f"(total {state['elapsed_s'] / 60:.1f} min)", flush=True)
        if args.time_budget and (time.time() - start) / 60 + epoch_min > args.time_budget:
            print(f"stopping: another epoch would pass the {args.time_budget:g}-minute budget", flush=True)
            break
    log_f.close()

    epochs = sorted(work.glob("epoch_*.safetensors"))[-max(args.average, 1):]
    model.load_state_dict(average_epochs(epochs))
    model.eval()
    averaged_val = validation_loss(model, val_pairs, args.max_tokens)
    print(f"averaged {len(epochs)} epochs ({', '.join(p.stem for p in epochs)}): validation loss {averaged_val:.3f}", flush=True)
    training.update(epochs_run=state["epoch"], steps=step, averaged=[p.stem for p in epochs],
                    val_loss_averaged=averaged_val, train_pairs=len(train_pairs))
    save_checkpoint(out, model, tok, training, dtype=args.save_dtype)
    metrics_path = out / METRICS
    metrics = json.loads(metrics_path.read_text()) if metrics_path.is_file() else {}
    metrics.update(
        parameters=n_params,
        training_minutes=round(state["elapsed_s"] / 60, 1),
        hardware=f"{platform.processor() or platform.machine()}, {args.threads} CPU threads, torch {torch.__version__}",
        val_loss=averaged_val,
    )
    metrics_path.write_text(json.dumps(metrics, indent=2) + "\n")
    print(f"wrote {out}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
