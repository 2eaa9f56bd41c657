"""The JavaScript model (static/) against PyTorch on the same checkpoint: pieces, greedy output and attention weights.

``run_js`` feeds sentences to ``node static/cli.js``; ``compare`` runs PyTorch on each and says, sentence by
sentence, whether the source pieces and the greedy output are the same and how far apart the attention weights are.
The attention weights are compared on one output (the JS one, teacher-forced in PyTorch), so they are measured even
where the two greedy outputs part.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from explorer.browser_model import STATIC
from model.names import act_name
from model.translator import DecodeOptions, Translator

CLI = STATIC / "cli.js"


def node() -> str | None:
    """The node executable, or None where Node.js is not installed."""
    return shutil.which("node")


def run_js(folder: str | Path, texts: list[str], mode: str = "") -> list[dict]:
    """One row of ``cli.js`` per text; ``mode``: "" (with attention), "--no-attention", "--tokens", "--page",
    "--estimate" or "--pieces LANG"."""
    exe = node()
    if exe is None:
        raise RuntimeError("Node.js is not installed: the JavaScript model runs in node here")
    args = [exe, str(CLI), str(folder)] + mode.split()
    stdin = "".join(json.dumps(t) + "\n" for t in texts)
    done = subprocess.run(args, input=stdin, capture_output=True, text=True, timeout=3600)
    if done.returncode != 0:
        raise RuntimeError(f"cli.js failed ({done.returncode}): {done.stderr[-2000:]}")
    rows = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    if len(rows) != len(texts):
        raise RuntimeError(f"cli.js answered {len(rows)} rows for {len(texts)} texts")
    return rows


@dataclass
class Row:
    text: str
    same_pieces: bool
    same_output: bool
    js: str
    torch: str
    attention_diff: float  # the largest |JS - PyTorch| over every attention weight, on the JS output
    prob_diff: float  # the largest |JS - PyTorch| of a step's chosen probability, on the JS output


def compare(translator: Translator, folder: str | Path, texts: list[str]) -> list[Row]:
    rows = []
    for text, js in zip(texts, run_js(folder, texts)):
        ids = translator._src_ids(text)
        out = translator._decode(ids, DecodeOptions())[0] if text.strip() else []
        diff = pdiff = 0.0
        if text.strip():
            probs, cache = translator._forced_ids(ids, js["out"])
            pdiff = max(abs(a - b) for a, b in zip(probs, js["p"]))
            heads, n_src = translator.cfg.n_heads, len(ids)
            n = len(js["cross"][0]) // (heads * n_src)  # decoder positions the JS model ran: BOS + its output
            for kind, got in (("encoder", js["encoder"]), ("decoder", js["self"]), ("cross", js["cross"])):
                for layer, flat in enumerate(got):
                    ref = cache[act_name(kind, layer, "weights")][0].float().numpy()  # (H, rows, cols)
                    if kind != "encoder":
                        ref = ref[:, :n, :n] if kind == "decoder" else ref[:, :n]
                    diff = max(diff, float(np.abs(ref.reshape(-1) - np.asarray(flat)).max()))
        rows.append(Row(text, js["ids"] == ids, js["out"] == out, js["text"], translator.tokenizer.decode(out),
                        diff, pdiff))
    return rows


def made_up_sentences(n: int) -> list[str]:
    """Plain English sentences of the kind the model was trained on, for where no corpus is at hand."""
    who = ["A man", "The woman", "Two children", "My brother", "The old dog", "A girl in a red coat", "Tom",
           "Our teacher", "The players", "A small cat"]
    what = ["is reading a book", "walks along the beach", "plays football in the park", "is eating an apple",
            "sleeps on the sofa", "rides a bike to school", "is waiting for the bus", "sings a song"]
    when = ["", " today", " in the morning", " every day"]
    out = [f"{a} {b}{c}." for c in when for b in what for a in who]  # 320 different sentences
    return out[:n]


def made_up_strings(n: int, seed: int = 0) -> list[str]:
    """Strings the tokenizer must cut as SentencePiece does: accents, emoji, long words, odd spaces, empty."""
    rng = np.random.default_rng(seed)
    alphabet = list("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,;:!?'\"()-") + list(
        "äöüßÄÖÜéèêàçñøåæœ€£¥©®°±µ¿¡«»„“”‘’–—…") + ["😀", "👍🏽", "🇩🇪", "👩‍👩‍👧", "中", "文", "ж", "ω", "\u200b", "\t", "\n",
                                                "\u00a0", "\u3000", "\u2028", "\ufeff", "\x1c"]
    words = ["the", "dog", "Straßenbahnhaltestelle", "naïve", "café", "unbelievably", "x" * 40, "Donaudampfschiff"]
    out = ["", " ", "   ", "\t\n"]
    while len(out) < n:
        parts = []
        for _ in range(int(rng.integers(1, 12))):
            if rng.random() < 0.4:
                parts.append(str(rng.choice(words)))
            else:
                parts.append("".join(str(rng.choice(alphabet)) for _ in range(int(rng.integers(1, 8)))))
        out.append(" ".join(parts))
    return out[:n]


def token_parity(translator: Translator, folder: str | Path, texts: list[str]) -> list[tuple[str, list[int], list[int]]]:
    """Every text whose JS source ids differ from the server's: (text, JS ids, server ids)."""
    js = run_js(folder, texts, "--tokens")
    return [(t, r["ids"], translator._src_ids(t)) for t, r in zip(texts, js) if r["ids"] != translator._src_ids(t)]



def page_parity(translator: Translator, folder: str | Path, texts: list[str]) -> list[str]:
    """The page's copy made in JS (page_data.js, in Node.js) against viz/page_data.py's on the same sentences."""
    from viz.page_data import page_data

    problems = []
    for text, js in zip(texts, run_js(folder, texts, "--page")):
        problems += page_differences(js, page_data(translator.analyze(text), translator.cfg.n_heads))
    return problems


def page_differences(js: dict, py: dict) -> list[str]:
    """What differs between two copies of one translation for the page, one line each ([] when none): labels
    exactly, weights within one per-mille, other numbers within their rounding (1e-3; steps' 1e-4)."""
    text, problems = py["text"], []
    for key in ("text", "text_html", "title_html", "translation", "method", "heads", "src", "tgt", "out",
                "src_special", "tgt_special"):
        if js[key] != py[key]:
            problems.append(f"{text!r}: {key} {js[key]!r} != {py[key]!r}")
    if {k: list(v) for k, v in py["stat_info"].items()} != js["stat_info"]:
        problems.append(f"{text!r}: stat_info differs")
    for kind in py["att"]:
        a, b = np.asarray(js["att"][kind]), np.asarray(py["att"][kind])
        if a.shape != b.shape or np.abs(a - b).max() > 1:
            problems.append(f"{text!r}: att[{kind}] {a.shape} vs {b.shape}")
        for name, values in py["stats"][kind].items():
            got = js["stats"][kind].get(name)
            if got is None or np.abs(np.asarray(got) - np.asarray(values)).max() > 1.5e-3:
                problems.append(f"{text!r}: stats[{kind}][{name}]")
    if len(js["steps"]) != len(py["steps"]):
        problems.append(f"{text!r}: {len(js['steps'])} steps vs {len(py['steps'])}")
    for i, (s, r) in enumerate(zip(js["steps"], py["steps"])):
        if (s["top"], s["pick"], s["chosen"]) != (r["top"], r["pick"], r["chosen"]) or \
                max(abs(x - y) for x, y in zip(s["p"] + [s["chosen_p"]], r["p"] + [r["chosen_p"]])) > 1.5e-4:
            problems.append(f"{text!r}: step {i} {s} != {r}")
    for layer, (jw, pw, jp, pp) in enumerate(zip(js["lens"]["words"], py["lens"]["words"], js["lens"]["p"],
                                                 py["lens"]["p"])):
        if len(jw) != len(pw) or max(abs(x - y) for x, y in zip(jp, pp)) > 1.5e-3:
            problems.append(f"{text!r}: lens layer {layer}")
        problems += [f"{text!r}: lens layer {layer} position {i}: {x!r} != {y!r}"
                     for i, (x, y) in enumerate(zip(jw, pw)) if x != y]
    for key in ("emb", "pe"):
        if max(abs(x - y) for x, y in zip(js["pe_sentence"][key], py["pe_sentence"][key])) > 1.5e-3:
            problems.append(f"{text!r}: pe_sentence {key}")
    return problems


def inside_parity(translator: Translator, folder: str | Path, texts: list[str], tol: float = 1e-3) -> list[str]:
    """Inside a head made in JS (transformer.js ``inside``) against viz/head.py's ``head_arithmetic`` on the server's
    analysis of the same sentence: every kind, layer and head at the first, middle and last query, each of q, k, v,
    the raw scores, the weights and the output within ``tol``, the mask exactly. One line per difference ([] when
    none); a sentence whose greedy outputs part is one line."""
    from viz.arrays import as_array, block_name
    from viz.head import head_arithmetic

    problems = []
    for text, js in zip(texts, run_js(folder, texts, "--inside")):
        a = translator.analyze(text)
        if [i for i in a.out_ids if i != translator.cfg.eos_id] != js["out"]:
            problems.append(f"{text!r}: the outputs part")  # (then their decoders' rows are of other words)
            continue
        for h in js["heads"]:
            blk = block_name(h["kind"], h["layer"])
            parts = {n: as_array(a.cache[f"{blk}.{n}"])[0, h["head"]] for n in ("q", "k", "v", "scores", "weights")}
            ref = head_arithmetic(parts["q"], parts["k"], parts["v"], parts["scores"], parts["weights"], h["query"])
            where = f"{text!r}: {h['kind']} layer {h['layer']} head {h['head']} query {h['query']}"
            if [bool(m) for m in ref["masked"]] != h["masked"]:
                problems.append(f"{where}: masked {list(ref['masked'])} != {h['masked']}")
                continue
            for name in ("q", "k", "v", "raw", "weights", "output"):
                got, want = np.asarray(h[name], dtype=np.float64), np.asarray(ref[name], dtype=np.float64)
                if got.shape != want.shape:
                    problems.append(f"{where}: {name} shape {got.shape} != {want.shape}")
                elif np.abs(got - want).max() > tol:
                    problems.append(f"{where}: {name} off by {np.abs(got - want).max():.2e}")
    return problems


@dataclass
class EstimateRow:
    text: str
    same_output: bool  # the JS greedy output is PyTorch's (the estimates are compared only then)
    flagged: bool  # PyTorch's flag
    same_flag: bool
    same_words: bool  # the words named (unsure, missing, dropped) are the same
    prob_diff: float  # |JS - PyTorch| of the estimated probability
    feature_diff: float  # the largest |JS - PyTorch| over the features


def estimate_parity(translator: Translator, folder: str | Path, texts: list[str]) -> list[EstimateRow]:
    """The "may be wrong" estimate made in JS (quality.js, with the reverse model in JS) against model/quality.py's
    on the same sentences (non-empty ones)."""
    from model.quality import analysis_signals, estimate
    from model.tokenizer import UNK

    rows = []
    for text, js in zip(texts, run_js(folder, texts, "--estimate")):
        a = translator.analyze(text)
        py = estimate(a, UNK, [s.chosen_prob for s in a.trace.steps][: len(a.out_tokens)])
        if py is None:
            raise RuntimeError("the checkpoint has no quality estimate for its weights and reverse model")
        e, same = js["estimate"], js["out"] == a.out_ids[:-1]
        feat = float(np.abs(np.asarray(e["features"]) - analysis_signals(a, UNK)).max())
        rows.append(EstimateRow(text, same, py.flagged, e["flagged"] == py.flagged,
                                (e["words"], e["missing"], e["dropped"]) == (list(py.words), list(py.missing),
                                                                             list(py.dropped)),
                                abs(e["probability"] - py.probability), feat))
    return rows
