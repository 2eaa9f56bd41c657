"""Train an English->German Transformer on Multi30k + Tatoeba (or a toy task) with the paper's recipe, scaled down.

    python -m training.train --out runs/en-de                      # the shipped en-de recipe (docs/training.md: "The recipe")
    python -m training.train --out runs/en-de --resume             # continue an interrupted run, exactly
    python -m training.train --out runs/en-de --resume --sitting-minutes 150   # train 150 minutes, then stop
    python -m training.train --task reverse --out checkpoints/toy-reverse --d-model 64 --d-ff 128 \
        --layers 2 --vocab-size 313 --epochs 8 --warmup 200 --mix multi30k

Adam(0.9, 0.98, 1e-9), linear warm-up then inverse-square-root decay, label smoothing, batches by token count
(sorted by length: little padding), bfloat16 autocast (float32 weights and optimizer), validation loss each
epoch, the average of the last epochs' weights as the final model. The resume point (weights, Adam moments,
schedule step, position in the epoch's batch order, random state) is written every --save-every steps, so an
interrupted run continues bit for bit. Everything written is safetensors / JSON / CSV, never pickle.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import random
import shutil
import sys
import time
from pathlib import Path

import torch
import torch.nn.functional as F
from safetensors.torch import save_file

from model.checkpoint import METRICS, TRAIN_LOG, CheckpointError, save_checkpoint, weights_sha256
from model.config import ModelConfig
from model.schedule import lr_at
from model.snapshots import DEFAULT_STEPS, save_snapshot
from model.tokenizer import BOS, EOS, PAD, Tokenizer
from model.transformer import Transformer
from training import distributed as dist
from training.batches import batch_tensors, encode_pairs, load_texts
from training.data import MisalignedPairs, corpus_dirs, distilled_records, token_batches
from training.joining import joined_pairs
from training.mixing import Mix
from training.progress import Progress
from training.state import average_epochs, load_resume, save_resume
from training.task_card import data_credit, task_card
from training.tokenizer import train_tokenizer
from training.toy import tokenizer_corpus
from training.validation import validation_loss
from training.warm_start import warm_start

RECIPE_MIX = "multi30k:2,tatoeba:1"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--task", default="translate", choices=["translate", "multi30k", "reverse", "copy"],
                   help="translate: the corpora of --mix; reverse/copy: generated letter strings "
                        "(multi30k: the same as translate with --mix multi30k)")
    p.add_argument("--mix", default=RECIPE_MIX,
                   help="corpora and how often each is repeated in an epoch, e.g. multi30k:2,tatoeba:1")
    p.add_argument("--data-dir", default=None,
                   help="Multi30k folder (default $ATTENTION_EXPLORER_DATA, else ../shared/data/multi30k)")
    p.add_argument("--tatoeba-dir", default=None,
                   help="Tatoeba folder (default $ATTENTION_EXPLORER_TATOEBA, else ../shared/data/tatoeba)")
    p.add_argument("--out", required=True, help="checkpoint folder to write")
    p.add_argument("--resume", action="store_true", help="continue from --out/work/resume.*")
    p.add_argument("--direction", default="en-de", choices=["en-de", "de-en"],
                   help="de-en trains the reverse model (German to English) that the quality estimate scores with")
    p.add_argument("--tokenizer", default=None,
                   help="an existing spm.model to use instead of training one (the reverse model shares en-de's)")
    p.add_argument("--train-limit", type=int, default=0, help="use only the first N training pairs of each corpus")
    p.add_argument("--vocab-size", type=int, default=8000)
    p.add_argument("--d-model", type=int, default=256)
    p.add_argument("--n-heads", type=int, default=4)
    p.add_argument("--d-ff", type=int, default=512)
    p.add_argument("--layers", type=int, default=3, help="encoder and decoder layers each")
    p.add_argument("--encoder-layers", type=int, default=0,
                   help="encoder layers, when not --layers (a deeper encoder costs little when decoding)")
    p.add_argument("--init-from", default=None,
                   help="a checkpoint folder to start from (its tokenizer and weights; a deeper --encoder-layers "
                        "stacks copies of its encoder layers)")
    p.add_argument("--join", type=float, default=0.0,
                   help="add this share of training examples made by joining two random pairs (longer sentences)")
    p.add_argument("--dropout", type=float, default=0.1)
    p.add_argument("--attention-dropout", type=float, default=0.0)
    p.add_argument("--norm-first", action="store_true", help="pre-LN instead of the paper's post-LN")
    p.add_argument("--positional", default="sinusoidal", choices=["sinusoidal", "learned"])
    p.add_argument("--max-len", type=int, default=256)
    p.add_argument("--max-tokens", type=int, default=2500, help="padded tokens per side in a batch")
    p.add_argument("--lr", type=float, default=1e-3, help="peak learning rate, reached after warm-up")
    p.add_argument("--warmup", type=int, default=800)
    p.add_argument("--label-smoothing", type=float, default=0.1)
    p.add_argument("--precision", default="bfloat16", choices=["bfloat16", "float32"],
                   help="autocast type of the forward pass (weights and Adam stay float32)")
    p.add_argument("--epochs", type=int, default=24)
    p.add_argument("--time-budget", type=float, default=0, help="minutes in all; stop after the epoch that would overrun")
    p.add_argument("--sitting-minutes", type=float, default=0,
                   help="stop this sitting after N minutes (mid-epoch), keeping the resume point; continue with --resume")
    p.add_argument("--stop-after-steps", type=int, default=0, help="stop this sitting after step N (tests)")
    p.add_argument("--save-every", type=int, default=200, help="write the resume point every N steps")
    p.add_argument("--average", type=int, default=5, help="average the weights of the last N epochs")
    p.add_argument("--save-dtype", default="float32", choices=["float32", "float16", "bfloat16", "int8"],
                   help="storage of the final weights (int8: per-row scales, a quarter of the size)")
    p.add_argument("--seed", type=int, default=1234)
    p.add_argument("--threads", type=int, default=2, help="torch CPU threads (match the cores)")
    p.add_argument("--device", default=os.environ.get("ATTENTION_EXPLORER_DEVICE", "auto"), choices=dist.DEVICES,
                   help="auto: the GPU when torch sees one, else the CPU (default $ATTENTION_EXPLORER_DEVICE, else "
                        "auto); cuda: refuse to start without one")
    p.add_argument("--log-every", type=int, default=50)
    p.add_argument("--snapshots", default=",".join(map(str, DEFAULT_STEPS)),
                   help="steps at which to keep int8 weights with their validation loss, to watch attention form "
                        "(comma-separated; the final model is always kept; empty: none)")
    args = p.parse_args(argv)
    if args.task == "multi30k":
        args.task, args.mix = "translate", "multi30k"
    return args


def init_from_error(args) -> str | None:
    """What is wrong with --init-from (and a --tokenizer beside it), in words; None when it can be used."""
    folder = Path(args.init_from)
    missing = [f for f in ("config.json", "model.safetensors", "spm.model") if not (folder / f).is_file()]
    if missing:
        return f"--init-from {folder}: checkpoint folder not found or incomplete (no {', '.join(missing)})"
    if args.tokenizer and Path(args.tokenizer).read_bytes() != (folder / "spm.model").read_bytes():
        return f"--tokenizer {args.tokenizer} differs from {folder / 'spm.model'}: its weights need its own pieces"
    return None


def make_tokenizer(args, texts, work: Path) -> Tokenizer:
    """Rank 0 trains the tokenizer on the training split (or finds it when resuming); the other ranks load it."""
    spm_path = work / "spm.model"
    if args.init_from and not args.tokenizer:
        args.tokenizer = str(Path(args.init_from) / "spm.model")  # the weights only make sense with their pieces
    if dist.is_main() and args.tokenizer and not (args.resume and spm_path.is_file()):
        shutil.copyfile(args.tokenizer, spm_path)  # the same pieces as the model it will work beside
    elif dist.is_main() and not (args.resume and spm_path.is_file()):
        corpus = tokenizer_corpus() if args.task != "translate" else texts["tokenizer"]
        train_tokenizer(corpus, args.vocab_size).save(spm_path)  # training splits only, each corpus once
    dist.barrier()
    return Tokenizer.load(spm_path)


# may differ between the sittings of one run: when to stop and what to write at the end
FREE_BETWEEN_SITTINGS = {"epochs", "time_budget", "average", "save_dtype", "snapshots", "processes"}
# recorded settings that are not flags, by what changes them
SETTING_NAMES = {"distilled": "the distilled corpora (distilled.json)", "init_from_sha256": "the --init-from weights"}


def changed_settings(before: dict, now: dict, defaults: dict | None = None) -> list[str]:
    """The settings of a run that a resumed sitting would change ("--lr 0.001, this command 0.0005"). A setting the
    run's record lacks (it was started before the flag existed) had its default then."""
    defaults = defaults or {}
    old = {k: before.get(k, defaults.get(k)) for k in set(before) | set(now)}
    return [f"{SETTING_NAMES.get(k, '--' + k.replace('_', '-'))} {old[k]}, this command {now.get(k)}" for k in sorted(old)
            if k not in FREE_BETWEEN_SITTINGS and old[k] != now.get(k)]


def drop_log_rows_after(path: Path, step: int) -> None:
    """A run killed between two resume points logged steps it will train again: drop those rows, so that the log
    of the resumed run reads as one run."""
    if not path.is_file():
        return
    lines = path.read_text().splitlines(keepends=True)
    kept = lines[:1] + [row for row in lines[1:] if row.split(",", 1)[0].isdigit() and int(row.split(",", 1)[0]) <= step]
    if len(kept) != len(lines):
        path.write_text("".join(kept))


class Run:
    """One training run: the model, Adam, the data and the counters that a resume point restores."""

    def __init__(self, args, model, ddp, opt, train_pairs, val_pairs, out: Path, device, log, log_f, state):
        self.args, self.model, self.ddp, self.opt = args, model, ddp, opt
        self.train_pairs, self.val_pairs, self.out, self.work = train_pairs, val_pairs, out, out / "work"
        self.device, self.log, self.log_f, self.state = device, log, log_f, state
        self.snapshot_steps = {int(x) for x in args.snapshots.split(",") if x.strip()}
        self.autocast = args.precision == "bfloat16"

    def batches(self, epoch: int) -> list[list[int]]:
        # the same on every rank, and the same again when the run resumes in the middle of this epoch
        return token_batches(self.train_pairs, self.args.max_tokens, shuffle=True, seed=self.args.seed + epoch)

    def step(self, idx: list[int]) -> tuple[float, int]:
        """One Adam step on a global batch (this rank trains on its shard). -> (summed loss, target tokens)."""
        args, st = self.args, self.state
        src, tgt_in, tgt_out = (t.to(self.device) for t in batch_tensors(self.train_pairs, dist.shard(idx)))
        rows = tgt_out != PAD  # (B, T) the real target tokens
        n_global = sum(len(self.train_pairs[i][1]) - 1 for i in idx)  # target tokens of the whole global batch
        st["step"] += 1
        lr = lr_at(st["step"], args.lr, args.warmup)
        for g in self.opt.param_groups:
            g["lr"] = lr
        with torch.autocast(self.device.type, dtype=torch.bfloat16, enabled=self.autocast):
            logits = self.ddp(src, tgt_in, rows)  # (N, V): real target tokens only
        summed = F.cross_entropy(logits.float(), tgt_out[rows], label_smoothing=args.label_smoothing,
                                 reduction="sum")
        # the global batch's token mean; x world because DDP averages the ranks' gradients
        loss = summed / n_global * dist.world()
        self.opt.zero_grad(set_to_none=True)
        loss.backward()
        self.opt.step()
        st["lr"] = lr
        return summed.item(), int(rows.sum())

    def validate(self) -> float:
        return validation_loss(self.model, self.val_pairs, self.args.max_tokens)  # on the run's device

    def save_point(self) -> None:
        if dist.is_main():
            save_resume(self.work, self.model, self.opt, self.state)

    def sitting_over(self, sitting_start: float) -> bool:
        a = self.args
        over = (a.sitting_minutes and (time.time() - sitting_start) / 60 >= a.sitting_minutes) or \
            (a.stop_after_steps and self.state["step"] >= a.stop_after_steps)
        return dist.totals(1.0 if over else 0.0, device=self.device)[0] > 0  # every rank stops together

    def epoch(self, epoch: int, progress: Progress, sitting_start: float) -> bool:
        """Train (the rest of) one epoch. -> False when the sitting ended before the epoch did."""
        args, st = self.args, self.state
        batches = self.batches(epoch)
        for bi in range(st["batch"], len(batches)):
            loss, tok = self.step(batches[bi])
            st["batch"] = bi + 1
            st["run_loss"] += loss
            st["run_tok"] += tok  # this rank's share
            if st["step"] % args.log_every == 0:
                run_loss, run_tok = dist.totals(st["run_loss"], st["run_tok"], device=self.device)
                if self.log is not None:
                    self.log.writerow([st["step"], epoch, f"{run_loss / run_tok:.4f}", f"{st['lr']:.6g}", ""])
                    self.log_f.flush()
                    print(progress.line(epoch, bi + 1, len(batches), st["step"], run_loss / run_tok, st["lr"]),
                          flush=True)
                st["run_loss"], st["run_tok"] = 0.0, 0
            if st["step"] in self.snapshot_steps:
                if dist.is_main():
                    save_snapshot(self.out, self.model, st["step"], epoch, self.validate())
                dist.barrier()  # the other ranks wait for rank 0's validation
            st["elapsed_s"] = progress.elapsed()
            if st["step"] % args.save_every == 0:
                self.save_point()
            if bi + 1 < len(batches) and self.sitting_over(sitting_start):
                self.save_point()
                return False
        return True

    def end_epoch(self, epoch: int, minutes: float) -> None:
        st = self.state
        st.update(epoch=epoch, batch=0)
        if not dist.is_main():
            return
        val = self.validate()
        self.log.writerow([st["step"], epoch, "", f"{st['lr']:.6g}", f"{val:.4f}"])
        self.log_f.flush()
        save_file({k: v.detach().cpu().contiguous() for k, v in self.model.state_dict().items()},
                  str(self.work / f"epoch_{epoch:03d}.safetensors"))
        for old in sorted(self.work.glob("epoch_*.safetensors"))[: -max(self.args.average, 1)]:
            old.unlink()
        st["val_losses"].append(val)
        save_resume(self.work, self.model, self.opt, st)
        print(f"== epoch {epoch} done in {minutes:.1f} min: validation loss {val:.3f} "
              f"(total {st['elapsed_s'] / 60:.1f} min)", flush=True)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    torch.set_num_threads(args.threads)  # oversubscribed threads make CPU training many times slower
    try:
        device = dist.init(args.device)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    torch.manual_seed(args.seed)
    random.seed(args.seed)
    out = Path(args.out)
    work = out / "work"
    work.mkdir(parents=True, exist_ok=True)

    resuming = args.resume and (work / "resume.safetensors").is_file()
    if args.init_from and not resuming:  # a resumed run has its weights already; the checkpoint may be gone
        error = init_from_error(args)
        if error:
            print(f"error: {error}", file=sys.stderr)
            dist.finish()
            return 2
    try:
        mix = Mix.parse(args.mix)
        texts = load_texts(args, mix)
    except (FileNotFoundError, MisalignedPairs, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        dist.finish()
        return 2
    tok = make_tokenizer(args, texts, work)
    train_pairs = encode_pairs(tok, *texts["train"], args.max_len)
    val_pairs = encode_pairs(tok, *texts["val"], args.max_len)
    train_pairs += joined_pairs(train_pairs, args.join, args.seed, args.max_len)  # after the corpora: same ids on resume

    cfg = ModelConfig(
        vocab_size=tok.vocab_size, d_model=args.d_model, n_heads=args.n_heads, d_ff=args.d_ff,
        n_encoder_layers=args.encoder_layers or args.layers, n_decoder_layers=args.layers, dropout=args.dropout,
        attention_dropout=args.attention_dropout, max_len=args.max_len, norm_first=args.norm_first,
        positional=args.positional, pad_id=PAD, bos_id=BOS, eos_id=EOS,
    )
    model = Transformer(cfg)
    if args.init_from and not resuming:
        try:
            model.load_state_dict(warm_start(args.init_from, cfg))
        except (CheckpointError, ValueError) as e:
            print(f"error: {e}", file=sys.stderr)
            dist.finish()
            return 2
    model.train()
    opt = torch.optim.Adam(model.parameters(), lr=args.lr, betas=(0.9, 0.98), eps=1e-9)
    skip = ("resume", "out", "data_dir", "tatoeba_dir", "tokenizer", "log_every", "sitting_minutes", "stop_after_steps",
            "save_every", "threads", "device")
    training = {k: v for k, v in vars(args).items() if k not in skip}
    recorded = json.loads((work / "run.json").read_text()).get("training", {}) \
        if args.resume and (work / "run.json").is_file() else None  # the settings the run was started with
    if args.init_from:  # which weights it started from, not only where they were (a resumed run: as recorded)
        training["init_from_sha256"] = (recorded or {}).get("init_from_sha256") if resuming \
            else weights_sha256(Path(args.init_from))
    if args.task != "translate":
        training.pop("mix")
    else:  # a corpus folder training.distill made: its targets are a teacher's, and which teacher is kept
        distilled = distilled_records(mix.weights, corpus_dirs(args))
        if distilled:
            training["distilled"] = distilled
    training["processes"] = dist.world()
    if recorded is not None:
        changed = changed_settings(recorded, training, vars(parse_args(["--out", str(out)])))
        if changed:
            print(f"error: {work} was trained with other settings; resume with the run's own "
                  f"({'; '.join(changed)}), or train into another --out", file=sys.stderr)
            dist.finish()
            return 2
    if dist.is_main():  # what the run was started with, for whoever continues it (and scripts/choose_average.py)
        (work / "run.json").write_text(json.dumps({"command": "python -m training.train " + " ".join(
            argv if argv is not None else sys.argv[1:]), "training": training}, indent=1) + "\n")
    state = {"epoch": 0, "batch": 0, "step": 0, "elapsed_s": 0.0, "val_losses": [], "run_loss": 0.0, "run_tok": 0,
             "lr": 0.0}
    if args.resume and (work / "resume.safetensors").is_file():
        try:
            state = {**state, **load_resume(work, model, opt)}
        except (FileNotFoundError, ValueError) as e:
            print(f"error: {e}", file=sys.stderr)
            dist.finish()
            return 2
        if dist.is_main():
            print(f"resumed at epoch {state['epoch'] + 1}, batch {state['batch']}, step {state['step']}", flush=True)
            drop_log_rows_after(out / TRAIN_LOG, state["step"])
    elif (out / TRAIN_LOG).exists() and dist.is_main():
        (out / TRAIN_LOG).unlink()
    dist.barrier()
    model.to(device)
    for st in opt.state.values():  # Adam moments follow the weights (a resume loads them on the CPU)
        for k, v in st.items():
            if k != "step":
                st[k] = v.to(device)
    ddp = model
    if dist.world() > 1:
        from torch.nn.parallel import DistributedDataParallel

        ddp = DistributedDataParallel(model, device_ids=[device.index] if device.type == "cuda" else None)

    n_params = model.num_parameters()
    log_f = log = None
    if dist.is_main():
        print(f"{args.task} ({texts['describe']}): {len(train_pairs)} training pairs, {len(val_pairs)} validation "
              f"pairs; {n_params / 1e6:.2f}M parameters; vocabulary {tok.vocab_size}; {dist.world()} process(es); "
              f"{args.precision}", flush=True)
        log_new = not (out / TRAIN_LOG).exists()
        log_f = open(out / TRAIN_LOG, "a", newline="")
        log = csv.writer(log_f)
        if log_new:
            log.writerow(["step", "epoch", "loss", "lr", "val_loss"])

    run = Run(args, model, ddp, opt, train_pairs, val_pairs, out, device, log, log_f, state)
    steps_per_epoch = len(run.batches(1))
    progress = Progress(state["elapsed_s"], state["step"], steps_per_epoch * args.epochs)
    sitting_start = time.time()
    while state["epoch"] < args.epochs:
        epoch = state["epoch"] + 1
        t_epoch = time.time()
        if not run.epoch(epoch, progress, sitting_start):
            if dist.is_main():
                print(f"sitting over at step {state['step']} (epoch {epoch}, batch {state['batch']}); the resume "
                      f"point is in {work}: run the same command with --resume to continue", flush=True)
                log_f.close()
            dist.finish()
            return 0
        epoch_min = (time.time() - t_epoch) / 60
        run.end_epoch(epoch, epoch_min)
        stop = 0.0
        if dist.is_main() and args.time_budget and state["elapsed_s"] / 60 + epoch_min > args.time_budget:
            print(f"stopping: another epoch would pass the {args.time_budget:g}-minute budget", flush=True)
            stop = 1.0
        if dist.totals(stop, device=device)[0] > 0:  # every rank stops together
            break
        if epoch < args.epochs and run.sitting_over(sitting_start):
            if dist.is_main():
                print(f"sitting over after epoch {epoch}; run the same command with --resume to continue", flush=True)
                log_f.close()
            dist.finish()
            return 0
    dist.barrier()
    if not dist.is_main():
        dist.finish()
        return 0
    log_f.close()
    finalize(args, model, tok, training, state, val_pairs, out, n_params, len(train_pairs), bool(run.snapshot_steps),
             texts.get("pairs", {}), dist.describe(device, args.threads))
    dist.finish()
    return 0


def finalize(args, model, tok, training, state, val_pairs, out: Path, n_params: int, n_train: int,
             snapshots: bool, corpus_pairs: dict[str, int], where: str) -> None:
    """Average the last epochs' weights and write the checkpoint folder (rank 0)."""
    work = out / "work"
    epochs = sorted(work.glob("epoch_*.safetensors"))[-max(args.average, 1):]
    model.load_state_dict(average_epochs(epochs))  # copied onto the run's device
    model.eval()
    averaged_val = validation_loss(model, val_pairs, args.max_tokens)  # where the weights are
    model.to("cpu")  # the checkpoint and the final snapshot are written from the CPU
    print(f"averaged {len(epochs)} epochs ({', '.join(p.stem for p in epochs)}): validation loss {averaged_val:.3f}",
          flush=True)
    training.update(epochs_run=state["epoch"], steps=state["step"], averaged=[p.stem for p in epochs],
                    val_loss_averaged=averaged_val, train_pairs=n_train)
    if snapshots:
        save_snapshot(out, model, state["step"], state["epoch"], averaged_val, final=True)
    save_checkpoint(out, model, tok, training, dtype=args.save_dtype,
                    task=task_card(Mix.parse(args.mix), args.direction) if args.task == "translate" else None)
    metrics_path = out / METRICS
    metrics = json.loads(metrics_path.read_text()) if metrics_path.is_file() else {}
    metrics.update(
        parameters=n_params,
        training_minutes=round(state["elapsed_s"] / 60, 1),
        hardware=f"{platform.processor() or platform.machine()}, {dist.world()} process(es) {where}, "
                 f"torch {torch.__version__}, {args.precision} autocast",
        val_loss=averaged_val,
    )
    if args.task == "translate":
        metrics["data"] = data_credit(Mix.parse(args.mix), corpus_pairs)
    metrics_path.write_text(json.dumps(metrics, indent=2) + "\n")
    print(f"wrote {out}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
