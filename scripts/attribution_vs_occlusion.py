"""Which attribution method agrees with erasing the input? Every method held against occlusion, row by row.

    python scripts/attribution_vs_occlusion.py --checkpoint toy-reverse
    python scripts/attribution_vs_occlusion.py --checkpoint runs/toy-copy     # a copying toy, trained as README says
    python scripts/attribution_vs_occlusion.py --checkpoint en-de [--split val] [--n 50] [--data-dir DIR]

Occlusion erases one source piece at a time (it becomes padding) and measures how much the log-probability of
each output token falls: the effect of one intervention, not an estimate. For every output token of the model's
own greedy translation (EOS excluded) and every method (cross-attention of the last layer, heads averaged,
included as a method), over the source pieces, by size (|value|: attention, rollout and saliency have no sign,
and a piece whose erasure raises the token matters too):
- ``top-1``: how often the method's largest value is on the piece whose erasure moves the token most;
- ``Spearman``: the mean rank correlation between the method's row and occlusion's row;
- ``signed top-1`` (signed methods only): how often the method's largest signed value is on the piece whose
  erasure lowers the token most;
- ``on EOS``: how often the method's largest value is on the source's EOS.
On a toy (toy-reverse, or a copying toy trained with ``--task copy``; the toy's own examples) it also counts how
often each method's largest value is the aligned letter, the one the output copies (the mirror letter when
reversing), over the whole source and over the letters alone (EOS left out). en-de reads ``--n`` sentences evenly
spaced through the split (val by default: nothing is chosen on a test set).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from model.attribution import METHODS  # noqa: E402
from model.batch import pad_batch  # noqa: E402
from model.decoding import greedy  # noqa: E402
from model.names import act_name  # noqa: E402
from model.translator import load_pretrained  # noqa: E402
from training.data import spaced_sources  # noqa: E402
from training.toy import EXAMPLES, make_pairs  # noqa: E402
from viz.attribution import SIGNED, spearman  # noqa: E402

COMPARED = ("cross_attention",) + tuple(m for m in METHODS if m != "occlusion")


def rows(tr, text: str, steps: int) -> dict[str, np.ndarray]:
    """Every method's source rows (n, S) for the n output pieces of the greedy translation (EOS excluded)."""
    a = tr.analyze(text)  # the greedy translation and its pass's attention
    out_ids, n = a.out_ids[:-1], len(a.out_ids) - 1  # the output pieces, EOS left out
    last = tr.cfg.n_decoder_layers - 1
    out = {"cross_attention": a.cache[act_name("cross", last, "weights")][0].mean(0).numpy()[:n]}  # (H, T, S) -> (n, S)
    for m in COMPARED[1:] + ("occlusion",):
        out[m] = tr.attribute(text, m, target=out_ids, steps=steps).source[:n]
    return out


def compare(tr, texts: list[str], steps: int = 32, toy: str | None = None) -> dict[str, dict[str, float]]:
    """Per method, over every output row of every text: top-1 agreement with occlusion and mean Spearman with it
    (by size), signed top-1 (signed methods), the share of rows peaking on EOS and, for a ``toy`` ("reverse" or
    "copy"), on the aligned letter, over the whole source ("aligned") and over the letters alone ("letters")."""
    if toy not in (None, "reverse", "copy"):
        raise ValueError(f"toy must be 'reverse', 'copy' or None, not {toy!r}")
    keys = ("top1", "rho", "signed", "eos", "aligned", "letters")
    tally = {m: {k: [] for k in keys} for m in COMPARED + ("occlusion",)}
    for text in texts:
        r = rows(tr, text, steps)
        occ = r["occlusion"]
        n, s = occ.shape
        if toy is not None and n != s - 1:  # a wrong output has no aligned letter for every row
            raise ValueError(f"{text!r}: {n} output letters for {s - 1} source letters; the toy got it wrong")
        for m, a in r.items():
            if a.shape != occ.shape:
                raise ValueError(f"{m}: rows {a.shape} do not match occlusion's {occ.shape} on {text!r}")
            for t in range(n):
                top = int(np.abs(a[t]).argmax())
                tally[m]["top1"].append(top == int(np.abs(occ[t]).argmax()))
                tally[m]["rho"].append(spearman(np.abs(a[t]), np.abs(occ[t])))
                if m in SIGNED:
                    tally[m]["signed"].append(a[t].argmax() == occ[t].argmax())
                tally[m]["eos"].append(top == s - 1)
                if toy is not None:
                    aligned = s - 2 - t if toy == "reverse" else t  # the source holds s - 1 letters, then EOS
                    tally[m]["aligned"].append(top == aligned)
                    tally[m]["letters"].append(int(np.abs(a[t, :s - 1]).argmax()) == aligned)  # EOS left out
    return {m: {k: float(np.nanmean(v)) if v else float("nan") for k, v in d.items()} | {"rows": len(d["top1"])}
            for m, d in tally.items()}


@torch.no_grad()
def erase_eos(tr, toy: str, n: int = 200, seed: int = 99) -> dict[str, int]:
    """Greedy outputs for n letter strings (``make_pairs`` with ``seed``; the toys were trained on seed 1234) with
    the source's EOS intact and erased (it becomes padding): how many are exactly right, how many have every letter
    right but may run on past the end, and how many have the first letter right."""
    cfg = tr.cfg
    src, tgt = make_pairs(toy, n, seed)
    want = [tr.tokenizer.encode(t) for t in tgt]
    intact = [tr.tokenizer.encode(s) + [cfg.eos_id] for s in src]
    limit = 2 * max(map(len, want)) + 10  # room to run on past the end, as the app's default allows
    out = {}
    for name, batch in (("intact", intact), ("erased", [ids[:-1] + [cfg.pad_id] for ids in intact])):
        got, _ = greedy(tr.model, pad_batch(batch, cfg.pad_id), max_len=limit)
        out[f"{name} exact"] = sum(g == w for g, w in zip(got, want))
        out[f"{name} letters"] = sum(g[:len(w)] == w for g, w in zip(got, want))
        out[f"{name} first"] = sum(g[:1] == w[:1] for g, w in zip(got, want))
    return out


@torch.no_grad()
def eos_share(tr, texts: list[str]) -> tuple[float, float]:
    """The least and most attention (heads averaged) any letter sends to EOS in the first encoder layer."""
    shares = []
    for text in texts:
        w = tr.analyze(text).cache[act_name("encoder", 0, "weights")][0].mean(0)  # (H, S, S) -> (S, S)
        shares.extend(w[:-1, -1].tolist())  # every letter's row, the EOS column
    return min(shares), max(shares)


def table(result: dict[str, dict[str, float]]) -> str:
    toy = not np.isnan(next(iter(result.values()))["aligned"])
    pct = lambda x: "      —" if np.isnan(x) else f"{x:7.1%}"  # noqa: E731
    head = (f"{'method':22s} {'top-1':>7s} {'Spearman':>9s} {'signed top-1':>13s} {'on EOS':>7s}"
            + (f" {'aligned':>8s} {'aligned, letters only':>22s}" if toy else ""))
    lines = [head]
    for m, d in result.items():
        lines.append(f"{m:22s} {pct(d['top1'])} {d['rho']:+9.2f} {pct(d['signed']):>13s} {pct(d['eos'])}"
                     + (f" {pct(d['aligned']):>8s} {pct(d['letters']):>22s}" if toy else ""))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--checkpoint", default="toy-reverse", help="a name under checkpoints/ or a checkpoint folder")
    p.add_argument("--split", default="val")
    p.add_argument("--data-dir", default=None, help="folder with <split>.en.gz (default: ../shared/data/multi30k)")
    p.add_argument("--n", type=int, default=50, help="how many sentences, evenly spaced through the split")
    p.add_argument("--steps", type=int, default=32, help="integrated gradients' steps")
    p.add_argument("--threads", type=int, default=2)
    args = p.parse_args(argv)
    torch.set_num_threads(args.threads)
    tr = load_pretrained(args.checkpoint)
    task = tr.training.get("task")
    toy = task if task in ("reverse", "copy") else None
    try:
        texts = list(tr.task.examples or EXAMPLES) if toy else spaced_sources(args.data_dir, args.split, args.n)
    except (FileNotFoundError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    result = compare(tr, texts, args.steps, toy=toy)
    rows_n = result["occlusion"]["rows"]
    print(f"{tr.name}: {len(texts)} sentences, {rows_n} output tokens, integrated gradients with {args.steps} steps "
          f"({time.perf_counter() - t0:.0f} s)")
    print(table(result))
    if toy:
        lo, hi = eos_share(tr, texts)
        e = erase_eos(tr, toy)
        print(f"first encoder layer: every letter sends {lo:.0%}-{hi:.0%} of its attention to EOS (heads averaged)")
        print(f"200 letter strings (seed 99), greedy: intact {e['intact exact']} exactly right; EOS erased "
              f"{e['erased exact']} exactly right, {e['erased letters']} with every letter right (maybe running on), "
              f"{e['erased first']} with the first letter right")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
