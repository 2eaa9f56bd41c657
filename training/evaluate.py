"""Score a checkpoint with sacreBLEU (cased, detokenized) and write the result into its metrics.json.

    python -m training.evaluate --checkpoint checkpoints/en-de --table   # Tatoeba val, Multi30k val, test_2016
    python -m training.evaluate --checkpoint checkpoints/en-de --split test_2016_flickr [--beam 5]
    python -m training.evaluate --checkpoint checkpoints/en-de --split val --snapshots   # each training snapshot
    python -m training.evaluate --checkpoint checkpoints/en-de --split val --calibrate-confidence   # "unsure" floor
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import sacrebleu
import torch

from model import calibration
from model.checkpoint import METRICS, CheckpointError, weights_sha256
from model.snapshots import record_bleu
from model.translator import DecodeOptions, load_pretrained, resolve
from training.data import corpus_dirs, read_split


def bleu(hyps: list[str], refs: list[str]) -> dict:
    cased = sacrebleu.metrics.BLEU()
    lower = sacrebleu.metrics.BLEU(lowercase=True)
    c = cased.corpus_score(hyps, [refs])
    lc = lower.corpus_score(hyps, [refs])
    return {"bleu": round(c.score, 2), "signature": str(cased.get_signature()),
            "bleu_lowercase": round(lc.score, 2), "signature_lowercase": str(lower.get_signature()),
            "detail": str(c)}


# chosen on the vals (Tatoeba val and recent, Multi30k val); test_2016 is scored once, for the model chosen
TABLE = (("tatoeba", "val"), ("tatoeba", "recent"), ("multi30k", "val"), ("multi30k", "test_2016_flickr"))


def chrf(hyps: list[str], refs: list[str]) -> dict:
    metric = sacrebleu.metrics.CHRF()
    return {"chrf": round(metric.corpus_score(hyps, [refs]).score, 2), "chrf_signature": str(metric.get_signature())}


def quality_table(tr, dirs: dict[str, str | None], limit: int = 0, only=TABLE) -> dict[str, dict]:
    """Greedy BLEU and chrF on every (corpus, split) of ``only`` whose files are there:
    {"<corpus>/<split>.greedy": {...}}."""
    rows = {}
    for corpus, split in only:
        try:
            src, refs = read_split(dirs.get(corpus), split, corpus=corpus)
        except FileNotFoundError as e:
            print(f"skipped {corpus}/{split}: {e}", file=sys.stderr)
            continue
        if limit:
            src, refs = src[:limit], refs[:limit]
        t0 = time.time()
        hyps = tr.translate_batch(src)
        res = {k: v for k, v in bleu(hyps, refs).items() if k != "detail"}
        res.update(chrf(hyps, refs), sentences=len(src), seconds=round(time.time() - t0, 1), decoding="greedy")
        rows[f"{corpus}/{split}.greedy" + (f".first{limit}" if limit else "")] = res
    return rows


def print_table(rows: dict[str, dict], name: str) -> None:
    print(f"{name}, greedy decoding, cased detokenized sacreBLEU and chrF:")
    print(f"{'corpus/split':34} {'sentences':>9} {'BLEU':>6} {'chrF':>6}")
    for key, r in rows.items():
        print(f"{key:34} {r['sentences']:>9} {r['bleu']:>6.2f} {r['chrf']:>6.2f}")
    if rows:
        first = next(iter(rows.values()))
        print(f"BLEU signature: {first['signature']}\nchrF signature: {first['chrf_signature']}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--checkpoint", default="en-de", help="folder, or a name under checkpoints/")
    p.add_argument("--split", default="test_2016_flickr")
    p.add_argument("--data-dir", default=None, help="Multi30k folder (or the --corpus folder)")
    p.add_argument("--tatoeba-dir", default=None, help="Tatoeba folder (default ../shared/data/tatoeba)")
    p.add_argument("--corpus", default="multi30k", choices=["multi30k", "tatoeba", "all"],
                   help="corpus of --split (all: Tatoeba's and Multi30k's, one after the other; for "
                        "--calibrate-confidence and --snapshots)")
    p.add_argument("--table", action="store_true",
                   help="greedy BLEU and chrF on Tatoeba val, Multi30k val and test_2016 in one table")
    p.add_argument("--val-only", action="store_true",
                   help="the table without test_2016 (a model still being chosen never sees the test set)")
    p.add_argument("--beam", type=int, default=0, help="beam size; 0 or 1 = greedy")
    p.add_argument("--length-penalty", type=float, default=1.0, help="GNMT alpha (1.0 chosen on val)")
    p.add_argument("--limit", type=int, default=0, help="score only the first N sentences")
    p.add_argument("--no-write", action="store_true", help="do not update metrics.json")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--snapshots", action="store_true",
                   help="score every training snapshot (greedy) and record it in snapshots/snapshots.json")
    p.add_argument("--calibrate-confidence", type=float, nargs="?", const=calibration.QUANTILE, default=None,
                   metavar="QUANTILE", help="measure how sure the model is of its greedy translations of the split "
                   f"and write the 'unsure' floor (that quantile, default {calibration.QUANTILE}) into metrics.json")
    args = p.parse_args(argv)
    torch.set_num_threads(args.threads)
    dirs = corpus_dirs(args)
    if args.corpus == "tatoeba" and args.data_dir:
        dirs["tatoeba"] = args.data_dir
    try:
        tr = load_pretrained(args.checkpoint)
        if args.table:
            return write_table(tr, args, dirs)
        src, refs = [], []
        for corpus in (("tatoeba", "multi30k") if args.corpus == "all" else (args.corpus,)):
            s, r = read_split(dirs[corpus], args.split, corpus=corpus)
            src, refs = src + s, refs + r
    except (CheckpointError, FileNotFoundError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.limit:
        src, refs = src[: args.limit], refs[: args.limit]
    if args.snapshots:
        return score_snapshots(tr, src, refs, args.split)
    if args.calibrate_confidence is not None:
        if args.beam > 1:
            print("error: the confidence floor is measured on greedy decoding; leave --beam out", file=sys.stderr)
            return 2
        label = f"Tatoeba {args.split} + Multi30k {args.split}" if args.corpus == "all" else (
            args.split if args.corpus == "multi30k" else f"{args.corpus} {args.split}")
        if args.split.startswith("test"):
            print(f"error: calibrate on val, not on a test split ({args.split})", file=sys.stderr)
            return 2
        return calibrate_confidence(tr, src, label, args.calibrate_confidence, write=not args.no_write)
    beam = args.beam if args.beam > 1 else 0
    opts = DecodeOptions("beam", beam_size=beam, length_penalty=args.length_penalty) if beam else DecodeOptions()
    t0 = time.time()
    hyps = tr.translate_batch(src, opts)
    secs = time.time() - t0
    res = bleu(hyps, refs)
    if args.corpus == "all":
        print("error: --corpus all is for --calibrate-confidence and --snapshots; --table scores each corpus",
              file=sys.stderr)
        return 2
    prefix = "" if args.corpus == "multi30k" else f"{args.corpus}/"
    key = f"{prefix}{args.split}.{'beam' + str(beam) if beam else 'greedy'}" + (f".first{args.limit}" if args.limit else "")
    res.update(sentences=len(src), seconds=round(secs, 1),
               decoding="greedy" if not beam else f"beam {beam}, length penalty {args.length_penalty}")
    print(f"{key}: BLEU {res['bleu']} (lowercased {res['bleu_lowercase']}) on {len(src)} sentences in {secs:.0f} s")
    print(f"signature: {res['signature']}")
    print(res["detail"])
    if not args.no_write:
        path = resolve(args.checkpoint) / METRICS
        metrics = json.loads(path.read_text()) if path.is_file() else {}
        metrics.setdefault("bleu", {})[key] = {k: v for k, v in res.items() if k != "detail"}
        path.write_text(json.dumps(metrics, indent=2) + "\n")
        print(f"wrote {path}")
    return 0


def write_table(tr, args, dirs) -> int:
    vals = [t for t in TABLE if t[1] in ("val", "recent")]
    rows = quality_table(tr, dirs, args.limit, vals if args.val_only else TABLE)
    if not rows:
        print("error: none of the corpora was found", file=sys.stderr)
        return 2
    print_table(rows, tr.name)
    if not args.no_write:
        path = resolve(args.checkpoint) / METRICS
        metrics = json.loads(path.read_text()) if path.is_file() else {}
        metrics.setdefault("bleu", {}).update(rows)
        path.write_text(json.dumps(metrics, indent=2) + "\n")
        print(f"wrote {path}")
    return 0


def calibrate_confidence(tr, src: list[str], split: str, quantile: float, write: bool = True) -> int:
    """The mean log-probability of each greedy translation of ``split`` -> the floor at ``quantile``, written
    into metrics.json under "confidence" (model/calibration.py). Test splits are refused: nothing is tuned there."""
    if split.startswith("test"):
        print(f"error: calibrate on val, not on a test split ({split})", file=sys.stderr)
        return 2
    try:
        calibration.check_quantile(quantile)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    t0, scores = time.time(), []
    for i in range(0, len(src), 64):
        chunk = src[i : i + 64]
        for out, trace in tr.greedy_batch(chunk, [DecodeOptions()] * len(chunk)):
            scores.append(calibration.mean_logprob([s.chosen_prob for s in trace.steps][: len(out) + 1]))
    try:
        cal = calibration.calibrate(scores, split, quantile, weights_sha256(tr.folder))
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"{split}: {len(scores)} greedy translations in {time.time() - t0:.0f} s; mean log-probability median "
          f"{cal.median:.3f}, {quantile:.0%} below {cal.floor:.3f} (the 'unsure' floor)")
    if write:
        path = tr.folder / METRICS
        metrics = json.loads(path.read_text()) if path.is_file() else {}
        metrics[calibration.KEY] = cal.to_dict()
        path.write_text(json.dumps(metrics, indent=2) + "\n")
        print(f"wrote {path}")
    return 0


def score_snapshots(tr, src: list[str], refs: list[str], split: str) -> int:
    """Greedy sacreBLEU of each snapshot on ``split``, written into the snapshot index."""
    entries = tr.snapshots()
    if not entries:
        print(f"error: {tr.name} has no snapshots", file=sys.stderr)
        return 2
    for entry in entries:
        t0 = time.time()
        hyps = tr.at_snapshot(entry).translate_batch(src)
        res = bleu(hyps, refs)
        record_bleu(tr.folder, entry["file"], split, res["bleu"])
        print(f"{entry['file']} (step {entry['step']}): {split} BLEU {res['bleu']} in {time.time() - t0:.0f} s")
    print(f"signature: {res['signature']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
