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
    """One row of ``cli.js`` per text; ``mode``: "" (with attention), "--no-attention" or "--tokens"."""
    exe = node()
    if exe is None:
        raise RuntimeError("Node.js is not installed: the JavaScript model runs in node here")
    args = [exe, str(CLI), str(folder)] + ([mode] if mode else [])
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
            n = len(js["p"])  # decoder positions the JS model ran (one fewer than PyTorch's when no EOS came)
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

