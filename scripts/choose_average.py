"""Choose how many final epochs to average, on the validation split only.

    python scripts/choose_average.py runs/en-de --last 1,3,5,8                 # a table: val loss, BLEU and chrF
    python scripts/choose_average.py runs/en-de --write 5 --out runs/en-de-avg5  # that average as a checkpoint
                                             # (with the run's train_log, snapshots (final = this average), metrics)
    python scripts/choose_average.py runs/en-de --like checkpoints/en-de         # a run not finished yet

A training run keeps the weights of its last ``--average`` epochs in ``<run>/work/``; each candidate averages the
last K of them. Each corpus the run was trained on (its --mix; --corpora to choose) is scored on its own val split.
Test sets are never read here.
"""

from __future__ import annotations

import argparse
import json
import platform
import shutil
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from model.checkpoint import METRICS, load_checkpoint, load_config, save_checkpoint  # noqa: E402
from model.config import ModelConfig  # noqa: E402
from model.snapshots import FOLDER as SNAPSHOTS  # noqa: E402
from model.snapshots import save_snapshot  # noqa: E402
from model.tokenizer import BOS, EOS, PAD, Tokenizer  # noqa: E402
from model.transformer import Transformer  # noqa: E402
from model.translator import Translator  # noqa: E402
from training.batches import encode_pairs  # noqa: E402
from training.data import corpus_dirs, read_split  # noqa: E402
from training.evaluate import bleu, chrf  # noqa: E402
from training.mixing import Mix  # noqa: E402
from training.state import average_epochs  # noqa: E402
from training.task_card import data_credit, task_card  # noqa: E402
from training.validation import validation_loss  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("run", help="a training output folder (its work/ holds the last epochs)")
    p.add_argument("--last", default="1,3,5,8", help="candidates: average the last K epochs, for each K")
    p.add_argument("--write", type=int, default=0, help="write the average of the last K epochs as a checkpoint")
    p.add_argument("--out", default="", help="where --write puts it")
    p.add_argument("--like", default="", help="for a run without config.json yet: a checkpoint of the same shape")
    p.add_argument("--data-dir", default=None, help="Multi30k folder")
    p.add_argument("--tatoeba-dir", default=None, help="Tatoeba folder")
    p.add_argument("--corpora", default="", help="val splits to score, e.g. tatoeba,multi30k (default: the run's mix)")
    p.add_argument("--threads", type=int, default=2)
    args = p.parse_args(argv)
    torch.set_num_threads(args.threads)
    run = Path(args.run)
    if (run / "config.json").is_file():
        model, tok, training = load_checkpoint(run)
    else:  # a run still going (or stopped to resume later): its settings from work/run.json (else --like's shape)
        tok, training = Tokenizer.load(run / "work" / "spm.model"), _training_of(run)
        if "d_model" in training:
            cfg = ModelConfig(
                vocab_size=tok.vocab_size, d_model=training["d_model"], n_heads=training["n_heads"],
                d_ff=training["d_ff"], n_encoder_layers=training.get("encoder_layers") or training["layers"],
                n_decoder_layers=training["layers"],
                dropout=training["dropout"], attention_dropout=training["attention_dropout"],
                max_len=training["max_len"], norm_first=training["norm_first"], positional=training["positional"],
                pad_id=PAD, bos_id=BOS, eos_id=EOS)
        elif args.like:
            cfg, _ = load_config(Path(args.like))
        else:
            p.error(f"{run} has neither config.json nor work/run.json: name a checkpoint of the same shape with --like")
        model = Transformer(cfg)
    epochs = sorted((run / "work").glob("epoch_*.safetensors"))
    mix = Mix.parse(args.corpora or training.get("mix") or "multi30k")
    dirs = corpus_dirs(args)
    vals = {name: read_split(dirs[name], "val", corpus=name) for name in mix.weights}
    joined = ([s for v in vals.values() for s in v[0]], [r for v in vals.values() for r in v[1]])
    if args.write:
        if not args.out:
            p.error("--write needs --out")
        model.load_state_dict(average_epochs(epochs[-args.write:]))
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        for name in ("train_log.csv",):
            if (run / name).is_file():
                shutil.copy2(run / name, out / name)
        if (run / SNAPSHOTS).is_dir() and run.resolve() != out.resolve():  # the run's snapshots, to watch it learn
            shutil.rmtree(out / SNAPSHOTS, ignore_errors=True)
            shutil.copytree(run / SNAPSHOTS, out / SNAPSHOTS)
        with torch.no_grad():
            loss = validation_loss(model, encode_pairs(tok, *joined, model.cfg.max_len), training.get("max_tokens", 2500))
        training = dict(training, average=args.write, averaged=[e.stem for e in epochs[-args.write:]],
                        val_loss_averaged=loss)
        save_checkpoint(out, model.eval(), tok, training, task=task_card(mix))  # --out's own card stays
        if (out / SNAPSHOTS).is_dir():  # the final snapshot is the model written here, not the run's own average
            save_snapshot(out, model, training.get("steps", 0), training.get("epochs_run", 0), loss, final=True)
        metrics = json.loads((run / METRICS).read_text()) if (run / METRICS).is_file() else {}
        metrics = {k: v for k, v in metrics.items() if k in ("parameters", "training_minutes", "hardware", "data")}
        metrics.setdefault("parameters", model.num_parameters())
        if "training_minutes" not in metrics and training.get("elapsed_s"):
            metrics["training_minutes"] = round(training["elapsed_s"] / 60, 1)
        if "hardware" not in metrics:  # a run still going: where this sitting runs (earlier ones: their logs)
            metrics["hardware"] = (f"{platform.machine()}, {training.get('processes', 1)} process(es) x "
                                   f"{torch.get_num_threads()} CPU threads, torch {torch.__version__}, "
                                   f"{training.get('precision', 'float32')} autocast")
        if "data" not in metrics:  # a run still going: the credit of every corpus it trains on
            pairs = {n: len(read_split(dirs[n], "train", corpus=n)[0]) for n in mix.weights}
            metrics["data"] = data_credit(mix, pairs)
        (out / METRICS).write_text(json.dumps(dict(metrics, val_loss=loss), indent=2) + "\n")  # no BLEU of another model
        print(f"wrote {out}: the average of {', '.join(e.stem for e in epochs[-args.write:])}")
        return 0
    val_pairs = encode_pairs(tok, *joined, model.cfg.max_len)
    print(f"{run}: {len(epochs)} epochs kept ({epochs[0].stem} .. {epochs[-1].stem}); val only")
    names = list(vals)
    print("| last K epochs averaged | val loss | " + " | ".join(f"{n} val BLEU / chrF (greedy)" for n in names) + " |\n|---|---|"
          + "---|" * len(names))
    for k in [int(x) for x in args.last.split(",")]:
        if k > len(epochs):
            continue
        t0 = time.time()
        model.load_state_dict(average_epochs(epochs[-k:]))
        model.eval()
        with torch.no_grad():
            loss = validation_loss(model, val_pairs, training.get("max_tokens", 2500))
        cells = []
        for src, refs in vals.values():
            hyps = Translator(model, tok).translate_batch(src)
            res = bleu(hyps, refs)
            cells.append(f"{res['bleu']} / {chrf(hyps, refs)['chrf']}")
        print(f"| {k} | {loss:.4f} | {' | '.join(cells)} |  ({time.time() - t0:.0f} s)", flush=True)
    print(json.dumps({"signature": res["signature"]}))
    return 0


def _training_of(run: Path) -> dict:
    """A run still going: its settings (work/run.json) and how far it got (work/resume.json)."""
    work = run / "work"
    training = json.loads((work / "run.json").read_text()).get("training", {}) if (work / "run.json").is_file() else {}
    if (work / "resume.json").is_file():
        state = json.loads((work / "resume.json").read_text())
        training.update(epochs_run=state.get("epoch", 0), steps=state.get("step", 0), elapsed_s=state.get("elapsed_s"))
    return training


if __name__ == "__main__":
    sys.exit(main())
