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
import platform
import random
import sys
import time
from pathlib import Path

import torch
import torch.nn.functional as F
from safetensors.torch import save_file

from model import distributed as dist
from model.checkpoint import METRICS, TRAIN_LOG, save_checkpoint
from model.config import ModelConfig
from model.data import token_batches
from model.schedule import lr_at
from model.snapshots import DEFAULT_STEPS, save_snapshot
from model.tokenizer import BOS, EOS, PAD, Tokenizer
from model.toy import tokenizer_corpus
from model.train_data import batch_tensors, encode_pairs, load_texts
from model.train_eval import validation_loss
from model.train_state import average_epochs, load_resume, save_resume
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
    p.add_argument("--snapshots", default=",".join(map(str, DEFAULT_STEPS)),
                   help="steps at which to keep int8 weights with their validation loss, to watch attention form "
                        "(comma-separated; the final model is always kept; empty: none)")
    return p.parse_args(argv)


def make_tokenizer(args, texts, work: Path) -> Tokenizer:
    """Rank 0 trains the tokenizer on the training split (or finds it when resuming); the other ranks load it."""
    spm_path = work / "spm.model"
    if dist.is_main() and not (args.resume and spm_path.is_file()):
        corpus = tokenizer_corpus() if args.task != "multi30k" else texts["train"][0] + texts["train"][1]
        Tokenizer.train(corpus, args.vocab_size).save(spm_path)  # training split only
    dist.barrier()
    return Tokenizer.load(spm_path)


def train_epoch(ddp, opt, pairs, batches, args, step: int, epoch: int, log, start: float, device,
                snapshot=None) -> tuple[int, float]:
    """One pass over ``batches`` (global batches: this rank trains on its shard of each). -> (step, last lr).
    ``snapshot(step, epoch)`` runs after every step (it saves at the snapshot steps)."""
    run_loss, run_tok, lr = 0.0, 0, 0.0
    for bi, idx in enumerate(batches):
        src, tgt_in, tgt_out = (t.to(device) for t in batch_tensors(pairs, dist.shard(idx)))
        n_local = int((tgt_out != PAD).sum())
        n_global = sum(len(pairs[i][1]) - 1 for i in idx)  # target tokens of the whole global batch
        step += 1
        lr = lr_at(step, args.lr, args.warmup)
        for g in opt.param_groups:
            g["lr"] = lr
        logits = ddp(src, tgt_in)  # (B, T, V)
        summed = F.cross_entropy(logits.flatten(0, 1), tgt_out.flatten(), ignore_index=PAD,
                                 label_smoothing=args.label_smoothing, reduction="sum")
        # the global batch's token mean; x world because DDP averages the ranks' gradients
        loss = summed / n_global * dist.world()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        run_loss, run_tok = run_loss + summed.item(), run_tok + n_local  # this rank's share
        if step % args.log_every == 0:
            run_loss, run_tok = dist.totals(run_loss, run_tok, device=device)  # every rank takes part
            if log is not None:
                log.writerow([step, epoch, f"{run_loss / run_tok:.4f}", f"{lr:.6g}", ""])
                print(f"epoch {epoch} batch {bi + 1}/{len(batches)} step {step} loss {run_loss / run_tok:.3f} "
                      f"lr {lr:.2e} elapsed {(time.time() - start) / 60:.1f} min", flush=True)
            run_loss, run_tok = 0.0, 0
        if snapshot is not None:
            snapshot(step, epoch)
    return step, lr


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    torch.set_num_threads(args.threads)  # oversubscribed threads make CPU training many times slower
    device = dist.init()
    torch.manual_seed(args.seed)
    random.seed(args.seed)
    out = Path(args.out)
    work = out / "work"
    work.mkdir(parents=True, exist_ok=True)

    try:
        texts = load_texts(args)
    except FileNotFoundError as e:
        print(f"error: {e}", file=sys.stderr)
        dist.finish()
        return 2
    tok = make_tokenizer(args, texts, work)
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
    training["processes"] = dist.world()
    state = {"epoch": 0, "step": 0, "elapsed_s": 0.0, "val_losses": []}
    if args.resume and (work / "resume.json").is_file():
        state = load_resume(work, model, opt)
        if dist.is_main():
            print(f"resumed at epoch {state['epoch']}, step {state['step']}", flush=True)
    elif (out / TRAIN_LOG).exists() and dist.is_main():
        (out / TRAIN_LOG).unlink()
    dist.barrier()
    model.to(device)
    ddp = model
    if dist.world() > 1:
        from torch.nn.parallel import DistributedDataParallel

        ddp = DistributedDataParallel(model, device_ids=[device.index] if device.type == "cuda" else None)

    n_params = model.num_parameters()
    log_f = log = None
    if dist.is_main():
        print(f"{args.task}: {len(train_pairs)} training pairs, {len(val_pairs)} validation pairs; "
              f"{n_params / 1e6:.2f}M parameters; vocabulary {tok.vocab_size}; {dist.world()} process(es)", flush=True)
        log_new = not (out / TRAIN_LOG).exists()
        log_f = open(out / TRAIN_LOG, "a", newline="")
        log = csv.writer(log_f)
        if log_new:
            log.writerow(["step", "epoch", "loss", "lr", "val_loss"])

    start = time.time() - state["elapsed_s"]
    step = state["step"]
    snapshot_steps = {int(x) for x in args.snapshots.split(",") if x.strip()}

    def snapshot(at: int, epoch: int) -> None:
        if at not in snapshot_steps:
            return
        if dist.is_main():
            model.to("cpu")
            save_snapshot(out, model, at, epoch, validation_loss(model, val_pairs, args.max_tokens))
            model.to(device)
        dist.barrier()  # the other ranks wait for rank 0's validation

    while state["epoch"] < args.epochs:
        epoch = state["epoch"] + 1
        t_epoch = time.time()
        batches = token_batches(train_pairs, args.max_tokens, shuffle=True, seed=args.seed + epoch)  # the same on every rank
        step, lr = train_epoch(ddp, opt, train_pairs, batches, args, step, epoch, log, start, device, snapshot)
        epoch_min = (time.time() - t_epoch) / 60
        state.update(epoch=epoch, step=step, elapsed_s=time.time() - start)
        stop = 0.0
        if dist.is_main():  # validation, logs and files: rank 0 alone
            model.to("cpu")
            val = validation_loss(model, val_pairs, args.max_tokens)
            model.to(device)
            log.writerow([step, epoch, "", f"{lr:.6g}", f"{val:.4f}"])
            log_f.flush()
            save_file({k: v.detach().cpu().contiguous() for k, v in model.state_dict().items()},
                      str(work / f"epoch_{epoch:03d}.safetensors"))
            for old in sorted(work.glob("epoch_*.safetensors"))[: -max(args.average, 1)]:
                old.unlink()
            state["val_losses"].append(val)
            save_resume(work, model, opt, state)
            print(f"== epoch {epoch} done in {epoch_min:.1f} min: validation loss {val:.3f} "
                  f"(total {state['elapsed_s'] / 60:.1f} min)", flush=True)
            if args.time_budget and (time.time() - start) / 60 + epoch_min > args.time_budget:
                print(f"stopping: another epoch would pass the {args.time_budget:g}-minute budget", flush=True)
                stop = 1.0
        if dist.totals(stop, device=device)[0] > 0:  # every rank stops together
            break
    dist.barrier()
    if not dist.is_main():
        dist.finish()
        return 0
    log_f.close()

    model.to("cpu")
    epochs = sorted(work.glob("epoch_*.safetensors"))[-max(args.average, 1):]
    model.load_state_dict(average_epochs(epochs))
    model.eval()
    averaged_val = validation_loss(model, val_pairs, args.max_tokens)
    print(f"averaged {len(epochs)} epochs ({', '.join(p.stem for p in epochs)}): validation loss {averaged_val:.3f}", flush=True)
    training.update(epochs_run=state["epoch"], steps=step, averaged=[p.stem for p in epochs],
                    val_loss_averaged=averaged_val, train_pairs=len(train_pairs))
    if snapshot_steps:
        save_snapshot(out, model, step, state["epoch"], averaged_val, final=True)
    save_checkpoint(out, model, tok, training, dtype=args.save_dtype)
    metrics_path = out / METRICS
    metrics = json.loads(metrics_path.read_text()) if metrics_path.is_file() else {}
    metrics.update(
        parameters=n_params,
        training_minutes=round(state["elapsed_s"] / 60, 1),
        hardware=f"{platform.processor() or platform.machine()}, {dist.world()} process(es) x {args.threads} CPU "
                 f"threads, torch {torch.__version__}",
        val_loss=averaged_val,
    )
    metrics_path.write_text(json.dumps(metrics, indent=2) + "\n")
    print(f"wrote {out}", flush=True)
    dist.finish()
    return 0


if __name__ == "__main__":
    sys.exit(main())
