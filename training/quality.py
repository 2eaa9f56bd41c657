"""Fit the "may be wrong" estimate (model/quality.py) of a checkpoint on val, check it on recent, write it.

    python -m training.quality --checkpoint checkpoints/en-de --judged checkpoints/en-de/judged.json --fit judged
                                                       # the shipped fit: on a person's judgements of val
    python -m training.quality --checkpoint checkpoints/en-de --no-write # measure only (fit and threshold by chrF)

Every sentence goes through ``Translator.analyze`` (greedy), the very pass the page makes, so the features are the
page's; the reverse model (``<checkpoint>/reverse/``, trained with ``training.train --direction de-en``) then scores
each source given its output with the page's own function (``quality.reverse_logprobs``).
By default the label is "sentence chrF < 40 against the reference" (sacreBLEU's sentence chrF) and the estimate
is fitted on the val splits (Tatoeba val and Multi30k val); with ``--fit judged`` it is "wrong or partly wrong by a
person's reading", fitted on the judged Tatoeba val sample (``fit_judged``). The threshold is the lowest
probability whose flags on val are right at least ``--precision`` of the time by chrF, or, with ``--judged``, at
least ``--judged-precision`` of the time by a person's judgements of a val sample (training/judged.py; chrF calls
many right translations wrong).
With ``--judged`` a second cut-off is chosen with it, on the same judgements: a translation is also flagged when
the reverse model finds a source word less likely than ``missing_below`` (a dropped or changed word, which chrF
hardly sees; judged.choose_rule). Tatoeba's second val of newer sentences (recent) is only measured.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import time
from pathlib import Path

import numpy as np
import sacrebleu
import torch

from model import quality
from model.checkpoint import METRICS, load_checkpoint, weights_sha256
from model.tokenizer import BOS, UNK
from model.translator import DecodeOptions, Translator, load_reverse, resolve
from training import judged
from training.data import corpus_dirs, read_split

FIT = (("tatoeba", "val"), ("multi30k", "val"))
CHECK = (("tatoeba", "recent"),)
BAD_CHRF = 40.0


def measure(tr, src: list[str], refs: list[str], label: str) -> tuple[list[quality.PassSignals], np.ndarray, list[str]]:
    """(each pair's PassSignals, sentence chrF (N,), translations), through the page's own pass."""
    sigs, scores, hyps = [], [], []
    t0 = time.time()
    decoded = []
    for k in range(0, len(src), 32):  # greedy decodes batched, as the page's batcher does; then the page's pass
        chunk = src[k : k + 32]
        decoded += tr.greedy_batch(chunk, [DecodeOptions()] * len(chunk))
    for i, (s, r) in enumerate(zip(src, refs)):
        a = tr.analyze(s, decoded=decoded[i])
        sigs.append(quality.analysis_pass(a))
        hyps.append(a.translation)
        scores.append(sacrebleu.sentence_chrf(a.translation, [r]).score)
        if (i + 1) % 500 == 0:
            print(f"  {label}: {i + 1}/{len(src)} ({time.time() - t0:.0f} s)", file=sys.stderr, flush=True)
    return sigs, np.asarray(scores), hyps


def measure_cached(tr, src: list[str], refs: list[str], label: str, cache: Path | None, sha: str):
    """measure(), kept in ``cache`` (JSON, gzip) for these weights and sentences: features can change without
    decoding again."""
    key = {"weights_sha256": sha, "split": label, "sources": len(src), "first": src[:1], "last": src[-1:]}
    path = cache / f"{label.replace('/', '_')}.json.gz" if cache else None
    if path is not None and path.is_file():
        with gzip.open(path, "rt", encoding="utf-8") as f:
            data = json.load(f)
        if data["key"] == key:
            return [quality.PassSignals.from_json(d) for d in data["signals"]], np.asarray(data["chrf"]), data["hyps"]
    sigs, chrf, hyps = measure(tr, src, refs, label)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        with gzip.open(path, "wt", encoding="utf-8") as f:
            json.dump({"key": key, "signals": [x.to_json() for x in sigs], "chrf": chrf.tolist(), "hyps": hyps}, f)
    return sigs, chrf, hyps


def choose_threshold(p: np.ndarray, bad: np.ndarray, precision: float) -> float:
    """The lowest threshold whose flags (p >= threshold) are right at least ``precision`` of the time by chrF, among
    thresholds that flag at least 20 sentences: judged.choose_threshold with every sentence its own weight."""
    try:
        return judged.choose_threshold(p, bad, np.ones(len(p)), precision)
    except ValueError:
        raise SystemExit(f"no threshold reaches precision {precision:.0%} on val: the features do not separate") from None


def probabilities(x: np.ndarray, fit: tuple) -> np.ndarray:
    """(N,) the fitted logistic model's p for feature rows x (N, F); fit = (mean, scale, w, b) as stored."""
    mean, scale, w, b = fit
    return quality.predict_logistic((x - mean) / scale, w, b)


def summary(q: quality.QualityModel, x: np.ndarray, chrf: np.ndarray, least_word: np.ndarray) -> dict:
    p = np.array([q.probability(row) for row in x])
    bad = chrf < BAD_CHRF
    flagged = np.array([q.flags(pi, lw) for pi, lw in zip(p, least_word)], dtype=bool)
    r, pr = quality.recall_precision(flagged, bad)
    order = np.argsort(-p)  # AUC by ranks: the chance a bad sentence scores above a good one
    ranks = np.empty(len(p))
    ranks[order[::-1]] = np.arange(1, len(p) + 1)
    auc = (ranks[bad].sum() - bad.sum() * (bad.sum() + 1) / 2) / max(1, bad.sum() * (~bad).sum())
    return {"sentences": int(len(p)), "bad": int(bad.sum()), "flagged": int(flagged.sum()),
            "recall": round(r, 4), "precision": round(pr, 4), "auc": round(float(auc), 4)}


def any_reference(src: list[str], refs: list[str], hyps: list[str]) -> np.ndarray:
    """(N,) each translation's best sentence chrF against every reference its source has in the split (Tatoeba
    translates many English sentences more than once): a label that does not call a right translation wrong only
    because the one reference said it another way."""
    by_source: dict[str, list[str]] = {}
    for s, r in zip(src, refs):
        by_source.setdefault(s, []).append(r)
    return np.asarray([max(sacrebleu.sentence_chrf(h, [r]).score for r in by_source[s]) for s, h in zip(src, hyps)])


def judged_rows(path: Path, sha: str, data: dict, sources: dict) -> dict:
    """Each judged split's sample, as {"tatoeba/val (judged)": {"lines", "labels", "weights", "in_bad", "n_bad",
    "n_good", "least_word", "second"}}. Raises ValueError when the judgements are of other weights or other
    translations, or hold no Tatoeba val sample (the one every choice is made on)."""
    judged_sha, samples = judged.load_judged(path)
    if judged_sha != sha:
        raise ValueError(f"{path}: judgements of weights {judged_sha[:12]}.., not of these ({sha[:12]}..)")
    rows = {}
    for sample in samples:
        if sample.key not in data:
            raise ValueError(f"{path}: judges {sample.key}, which is not measured here")
        x, chrf, hyps, least_word = data[sample.key]
        judged.check_translations(sample, sources[sample.key], hyps, path)
        bad = chrf < BAD_CHRF
        weights = judged.stratum_weights(bad[sample.lines], int(bad.sum()), int((~bad).sum()))
        rows[f"{sample.key} (judged)"] = {"lines": sample.lines, "labels": sample.judged, "weights": weights,
                                          "in_bad": bad[sample.lines], "n_bad": int(bad.sum()),
                                          "n_good": int((~bad).sum()), "least_word": least_word[sample.lines],
                                          "second": sample.second}
    if "tatoeba/val (judged)" not in rows:
        raise ValueError(f"{path}: no judged tatoeba/val sample to choose the threshold on")
    return rows


def fit_judged(x: np.ndarray, row: dict, precision: float) -> tuple[np.ndarray, float, dict]:
    """(w, b, the cross-validated figures) of the logistic model fitted on the judged val sample: label wrong or
    partly wrong, each sentence weighted by its stratum (judged.stratum_weights, normalised to mean 1), the L2
    penalty chosen by 5-fold cross-validation (judged.choose_l2), each weight keeping its signal's sign
    (quality.SIGNS: fit_logistic_signed). x: (n, F) standardised features of its lines."""
    wrong, weights = np.isin(row["labels"], judged.WRONG), row["weights"]
    signs = np.array([quality.SIGNS[f] for f in quality.FEATURES], dtype=np.float64)  # (F,)
    l2, cv = judged.choose_l2(x, wrong, weights, precision, signs=signs)
    w, b = quality.fit_logistic_signed(x, wrong.astype(float), signs, l2=l2, weights=weights / weights.mean())
    return w, b, cv


def judged_summary(row: dict, q: quality.QualityModel) -> dict:
    """The flags' recall and precision by the judgements (with 95% intervals), by wrong alone, and by the second
    reader's labels with how far the two readers agree."""
    labels, weights = row["labels"], row["weights"]
    flagged = np.array([q.flags(pi, lw) for pi, lw in zip(row["p"], row["least_word"])], dtype=bool)
    wrong = np.isin(labels, judged.WRONG)
    out = judged.estimate(flagged, wrong, weights)
    out.update(judged.interval(flagged, wrong, row["in_bad"], row["n_bad"], row["n_good"]))
    if q.label == quality.JUDGED_LABEL:  # its chance is the chance of this very label: is it calibrated?
        out["calibration"] = judged.calibration(np.asarray(row["p"]), wrong, weights)
    only = judged.estimate(flagged, labels == "W", weights)
    out["wrong_only"] = {"recall": only["recall"], "precision": only["precision"]}
    if row["second"] is not None:
        by_second = judged.estimate(flagged, np.isin(row["second"], judged.WRONG), weights)
        out["second_reader"] = {"recall": by_second["recall"], "precision": by_second["precision"],
                                "wrong_share": by_second["wrong_share"], **judged.agreement(labels, row["second"])}
    return out


def old_warning(x: np.ndarray, chrf: np.ndarray, floor: float) -> dict:
    """The mean-log-probability floor's flags, for comparison."""
    flagged = x[:, quality.FEATURES.index("mean_logprob")] < floor
    r, pr = quality.recall_precision(flagged, chrf < BAD_CHRF)
    return {"flagged": int(flagged.sum()), "recall": round(r, 4), "precision": round(pr, 4)}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--checkpoint", default="en-de", help="folder, or a name under checkpoints/")
    p.add_argument("--data-dir", default=None, help="Multi30k folder (default ../shared/data/multi30k)")
    p.add_argument("--tatoeba-dir", default=None, help="Tatoeba folder (default ../shared/data/tatoeba)")
    p.add_argument("--precision", type=float, default=0.70,
                   help="the flags' precision (chrF < 40) to reach on val; not used with --judged")
    p.add_argument("--l2", type=float, default=1.0, help="L2 penalty of the logistic regression")
    p.add_argument("--limit", type=int, default=0, help="first N pairs of each split (a quick look)")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--cache", type=Path, default=None,
                   help="keep each split's decodes and pass signals here (re-fit without decoding again)")
    p.add_argument("--no-write", action="store_true", help="measure, do not write metrics.json")
    p.add_argument("--judged", type=Path, default=None,
                   help="person judgements of this model's translations (training/judged.py; the shipped en-de's: "
                        "checkpoints/en-de/judged.json): choose the threshold on the judged val sample, and report "
                        "recall and precision by judgement")
    p.add_argument("--judged-precision", type=float, default=0.85,
                   help="with --judged: the judged precision (wrong or partly wrong) the flags must reach on val")
    p.add_argument("--fit", choices=("chrf", "judged"), default="chrf",
                   help="what the estimate learns: chrF < 40 on the val splits, or (with --judged) the judged val "
                        "sample's wrong or partly wrong, its L2 penalty by cross-validation (--l2 is then unused)")
    args = p.parse_args(argv)
    torch.set_num_threads(args.threads)
    folder = resolve(args.checkpoint)
    model, tok, _ = load_checkpoint(folder)  # not load_pretrained: an estimate of other features must not stop a refit
    tr = Translator(model, tok, folder.name, folder=folder)
    reverse, reverse_sha = load_reverse(folder, tr.tokenizer)
    if reverse is None:
        print(f"error: {folder / quality.REVERSE} holds no reverse model; train one with "
              f"python -m training.train --direction de-en --tokenizer {folder / 'spm.model'} ...", file=sys.stderr)
        return 2
    dirs = corpus_dirs(args)
    if args.judged and args.limit:
        print("error: --judged needs whole splits (its strata are the split's); leave --limit out", file=sys.stderr)
        return 2
    if args.fit == "judged" and not args.judged:
        print("error: --fit judged needs the judgements: --judged FILE", file=sys.stderr)
        return 2
    data, sources, sha = {}, {}, weights_sha256(folder)
    any_ref: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
    for corpus, split in FIT + CHECK:
        src, refs = read_split(dirs[corpus], split, corpus=corpus)
        if args.limit:
            src, refs = src[: args.limit], refs[: args.limit]
        sigs, chrf, hyps = measure_cached(tr, src, refs, f"{corpus}/{split}", args.cache, sha)
        for sig in sigs:  # the page's own reverse pass, one sentence at a time as the page makes it
            sig.reverse = quality.reverse_logprobs(reverse, sig.src_ids, sig.out_ids, BOS)
        sources[f"{corpus}/{split}"] = src
        least_word = np.array([quality.least_likely_word(x.src_pieces, x.reverse) for x in sigs])
        data[f"{corpus}/{split}"] = (np.stack([quality.features(x, UNK) for x in sigs]), chrf, hyps, least_word)
        if corpus == "tatoeba" and split == "val":  # the same translations, judged against every reference
            any_ref[f"{corpus}/{split} (any reference)"] = (data[f"{corpus}/{split}"][0], any_reference(src, refs, hyps),
                                                            least_word)
    fit_keys = [f"{c}/{s}" for c, s in FIT]
    x = np.concatenate([data[k][0] for k in fit_keys])  # (N, F)
    chrf = np.concatenate([data[k][1] for k in fit_keys])
    mean, scale = x.mean(0), x.std(0)
    scale[scale < 1e-8] = 1.0
    rows, cv, label = {}, None, quality.LABEL
    fitted_on, n_fit = " + ".join(fit_keys), int(len(x))
    rule = f"chrF < {BAD_CHRF:g} precision >= {args.precision:.0%} on val"
    missing_below = 0.0  # chrF hardly sees a dropped word: only a reader's judgements can set this cut-off
    try:
        if args.judged:
            rows = judged_rows(args.judged, sha, data, sources)
        if args.fit == "judged":
            val = rows["tatoeba/val (judged)"]
            w, b, cv = fit_judged((data["tatoeba/val"][0][val["lines"]] - mean) / scale, val, args.judged_precision)
            label, n_fit = quality.JUDGED_LABEL, len(val["lines"])
            fitted_on = (f"the judged tatoeba/val sample ({n_fit} translations, each weighted by its chrF stratum; "
                         f"L2 {cv['l2']:g} by 5-fold cross-validation; each weight signed as quality.SIGNS says); "
                         f"standardised on {' + '.join(fit_keys)}")
        else:
            w, b = quality.fit_logistic((x - mean) / scale, (chrf < BAD_CHRF).astype(float), l2=args.l2)
        # as stored in metrics.json: the cut-offs are chosen on the p the page will compute
        mean, scale, w, b = rounded = (np.round(mean, 6), np.round(scale, 6), np.round(w, 6), round(float(b), 6))
        for key, row in rows.items():
            row["p"] = probabilities(data[key.removesuffix(" (judged)")][0][row["lines"]], rounded)
        if args.judged:
            val = rows["tatoeba/val (judged)"]
            threshold, missing_below = judged.choose_rule(val["p"], val["least_word"], np.isin(val["labels"], judged.WRONG),
                                                          val["weights"], args.judged_precision)
            rule = (f"judged precision (wrong or partly wrong) >= {args.judged_precision:.0%} on the judged Tatoeba "
                    f"val, threshold and missing_below together (the most judged recall)")
        else:
            threshold = choose_threshold(probabilities(x, rounded), chrf < BAD_CHRF, args.precision)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    q = quality.QualityModel(quality.FEATURES, tuple(mean.tolist()), tuple(scale.tolist()), tuple(w.tolist()), b,
                             round(threshold, 4),
                             fitted_on, n_fit, {}, sha, reverse_sha, missing_below, label)
    scores = {"val": summary(q, x, chrf, np.concatenate([data[k][3] for k in fit_keys]))}
    for key, (xs, cs, _, lw) in data.items():
        scores[key] = summary(q, xs, cs, lw)
    for key, (xs, cs, lw) in any_ref.items():
        scores[key] = summary(q, xs, cs, lw)
    for key, row in rows.items():  # the same flags, judged by a person
        scores[key] = judged_summary(row, q)
    scores["threshold"] = {"chosen_by": rule}
    if cv is not None:  # the honest val figure of a fit on the judged val sample: each sentence scored unseen
        scores["tatoeba/val (judged, cross-validated)"] = cv
    metrics_path = folder / METRICS
    metrics = json.loads(metrics_path.read_text()) if metrics_path.is_file() else {}
    floor = metrics.get("confidence", {}).get("low_mean_logprob")
    print(f"{'split':28} {'sentences':>9} {'bad':>5} {'flagged':>7} {'recall':>7} {'precision':>9} {'AUC':>6}"
          + ("   old warning (mean log-p floor): recall / precision" if floor is not None else ""))
    for key, s in scores.items():
        if "sentences" not in s:  # judged rows and the threshold's rule: printed below
            continue
        old = ""
        if floor is not None and key in data:
            o = old_warning(data[key][0], data[key][1], floor)
            old = f"   {o['recall']:.1%} / {o['precision']:.1%} ({o['flagged']} flagged)"
        print(f"{key:28} {s['sentences']:>9} {s['bad']:>5} {s['flagged']:>7} {s['recall']:>7.1%} "
              f"{s['precision']:>9.1%} {s['auc']:>6.3f}{old}")
    print("weights (standardised features):", ", ".join(f"{n} {v:+.2f}" for n, v in zip(quality.FEATURES, w)))
    if cv is not None:
        print(f"fitted on the judged val sample, label {label!r}, L2 {cv['l2']:g}: cross-validated (5 folds) recall "
              f"{cv['recall']:.1%} at precision {cv['precision']:.1%} on the judged val sample")
    for key in rows:
        s = scores[key]
        print(f"{key:28} judged {s['judged']} (estimated for the split): wrong or partly wrong {s['wrong_share']:.1%}, "
              f"flagged {s['flagged_share']:.1%}, "
              f"recall {s['recall']:.1%} (95%: {s['recall_95'][0]:.0%}-{s['recall_95'][1]:.0%}), "
              f"precision {s['precision']:.1%} ({s['precision_95'][0]:.0%}-{s['precision_95'][1]:.0%}); "
              f"wrong only: recall {s['wrong_only']['recall']:.1%}, precision {s['wrong_only']['precision']:.1%}")
        if "calibration" in s:
            c = s["calibration"]
            print(f"{'':28} calibration: mean chance {c['mean_p']:.1%} against {c['wrong_share']:.1%} judged wrong; by band: "
                  + ", ".join(f"{b['from']:.1f}-{b['to']:.1f} {b['mean_p']:.2f} vs {b['wrong_share']:.2f} ({b['judged']})"
                              for b in c["bins"]))
        if "second_reader" in s:
            r = s["second_reader"]
            print(f"{'':28} by the second reader: recall {r['recall']:.1%}, precision {r['precision']:.1%}; the readers "
                  f"agree on {r['agree']:.1%} (kappa {r['kappa']:.2f}), on wrong-or-partly vs right "
                  f"{r['agree_wrong_or_right']:.1%} (kappa {r['kappa_wrong_or_right']:.2f})")
    print(f"threshold {threshold:.4f}, missing_below {missing_below:g} ({rule})")
    q = quality.QualityModel(**{**q.__dict__, "scores": scores})
    if args.no_write or args.limit:
        print("not written" + (" (--limit)" if args.limit else ""))
        return 0
    metrics[quality.KEY] = q.to_dict()
    metrics_path.write_text(json.dumps(metrics, indent=2) + "\n")
    print(f"wrote {metrics_path} \"{quality.KEY}\"")
    return 0


if __name__ == "__main__":
    sys.exit(main())
