"""Request handlers. Each validates its inputs, gets (or reuses) one Analysis and returns what a tab shows.

No Gradio here: errors are UserError, which app.py turns into a gr.Error message.
"""

from __future__ import annotations

import csv
import html
import io
import json
import math
import threading
import unicodedata
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from explorer import limits
from model.checkpoint import CheckpointError
from model.train import lr_at
from model.translator import Analysis, DecodeOptions, Translator, available, load_pretrained, resolve
from viz import views
from viz.arrays import block_name
from viz.bertviz_view import iframe
from viz.tokens import readable
from viz.training import lr_schedule_figure, training_curves


class UserError(ValueError):
    """A problem with what the user asked for; the message is shown to them as it is."""


KIND_LABELS = {"Cross-attention": "cross", "Encoder self-attention": "encoder", "Decoder self-attention": "decoder"}
AVERAGE = "all heads (mean)"


# -- validation -------------------------------------------------------------------------------
def clean_text(text: Any) -> str:
    if not isinstance(text, str):
        raise UserError("The sentence must be text.")
    if len(text) > limits.MAX_CHARS:
        raise UserError(f"Please keep the sentence to {limits.MAX_CHARS} characters; this one has {len(text)}.")
    # control characters (NUL, bell, ...) carry no meaning for the model: drop them, keep tabs as spaces
    text = "".join(" " if c in "\t\n\r" else c for c in text if c in "\t\n\r" or unicodedata.category(c) != "Cc")
    if not text.strip():
        raise UserError("Type an English sentence first.")
    return text.strip()


def model_for(name: Any) -> Translator:
    if not isinstance(name, str) or name not in available():
        raise UserError(f"Unknown model {str(name)[:40]!r}. Choose one of: {', '.join(available())}.")
    try:
        return load_pretrained(name)
    except CheckpointError as e:
        raise UserError(f"The model {name!r} could not be loaded: {e}") from None


def _number(value: Any, name: str, lo: float, hi: float, integer: bool = False, lo_open: bool = False) -> float:
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise UserError(f"{name} must be a number, not {str(value)[:20]!r}.") from None
    if math.isnan(x) or (x <= lo if lo_open else x < lo) or x > hi:
        bound = f"greater than {lo:g}" if lo_open else f"at least {lo:g}"
        raise UserError(f"{name} must be {bound} and at most {hi:g}; got {value}.")
    if integer and x != int(x):
        raise UserError(f"{name} must be a whole number; got {value}.")
    return int(x) if integer else x


@dataclass(frozen=True)
class Request:
    model: str
    text: str
    method: str = "greedy"
    beam_size: int = 4
    length_penalty: float = 0.6
    temperature: float = 1.0
    top_k: int = 0
    top_p: float = 1.0
    seed: int = 0
    max_len: int = 60
    ablated: tuple[tuple[str, int], ...] = ()

    def options(self) -> DecodeOptions:
        return DecodeOptions(self.method, self.beam_size, self.length_penalty, self.temperature, self.top_k,
                             self.top_p, self.seed, self.max_len)


def make_request(model: Any, text: Any, method: Any = "greedy", beam_size: Any = 4, length_penalty: Any = 0.6,
                 temperature: Any = 1.0, top_k: Any = 0, top_p: Any = 1.0, seed: Any = 0,
                 max_len: Any = 60, ablated: tuple[tuple[str, int], ...] = ()) -> Request:
    tr = model_for(model)
    text = clean_text(text)
    method = str(method).lower()
    if method not in ("greedy", "beam", "sample"):
        raise UserError(f"Decoding must be greedy, beam or sample; got {str(method)[:20]!r}.")
    n_tokens = len(tr.tokenizer.encode(" ".join(text.split())))
    if n_tokens + 1 > limits.MAX_SOURCE_TOKENS:
        raise UserError(f"The sentence is {n_tokens} tokens long; the limit is {limits.MAX_SOURCE_TOKENS - 1}.")
    return Request(
        model=model, text=text, method=method,
        beam_size=_number(beam_size, "Beam size", 1, limits.MAX_BEAM, integer=True),
        length_penalty=_number(length_penalty, "Length penalty", 0, 2),
        temperature=_number(temperature, "Temperature", 0, limits.MAX_TEMPERATURE, lo_open=True),
        top_k=_number(top_k, "Top-k", 0, limits.MAX_TOP_K, integer=True),
        top_p=_number(top_p, "Top-p", 0, 1, lo_open=True),
        seed=_number(seed, "Seed", 0, 2**31 - 1, integer=True),
        max_len=_number(max_len, "Maximum output length", 1, limits.MAX_OUTPUT_TOKENS, integer=True),
        ablated=tuple(ablated),
    )


# -- one analysis per request, reused by every tab --------------------------------------------
_CACHE: OrderedDict[Request, Analysis] = OrderedDict()
_CACHE_LOCK = threading.Lock()


def analysis(req: Request) -> Analysis:
    """The Analysis of a request: decoded once, then shared read-only by the views of that request."""
    with _CACHE_LOCK:
        if req in _CACHE:
            _CACHE.move_to_end(req)
            return _CACHE[req]
    a = model_for(req.model).analyze(req.text, req.options(), list(req.ablated))
    with _CACHE_LOCK:
        _CACHE[req] = a
        while len(_CACHE) > limits.ANALYSIS_CACHE:
            _CACHE.popitem(last=False)
    return a


def _layer(tr: Translator, kind: str, layer: Any) -> int:
    n = tr.cfg.n_encoder_layers if kind == "encoder" else tr.cfg.n_decoder_layers
    return _number(layer, "Layer", 0, n - 1, integer=True)


def _head(tr: Translator, head: Any) -> int | None:
    if head in (None, "", AVERAGE):
        return None
    text = str(head).removeprefix("head ")
    return _number(text, "Head", 0, tr.cfg.n_heads - 1, integer=True)


def _kind(kind: Any) -> str:
    if kind in KIND_LABELS.values():
        return kind
    if kind not in KIND_LABELS:
        raise UserError(f"Attention type must be one of {', '.join(KIND_LABELS)}.")
    return KIND_LABELS[kind]


# -- the views --------------------------------------------------------------------------------
def translate(req: Request) -> str:
    return model_for(req.model).translate(req.text, req.options())


def tokens_html(a: Analysis) -> str:
    def chips(tokens: list[str], colour: str) -> str:
        return " ".join(f'<span style="background:{colour};border-radius:4px;padding:1px 5px;margin:1px;'
                        f'display:inline-block;font-family:monospace">{html.escape(readable(t))}</span>' for t in tokens)
    return (f"<div><b>Source pieces ({len(a.src_tokens)}):</b> {chips(a.src_tokens, '#e8f0fe')}</div>"
            f"<div style='margin-top:6px'><b>Output pieces ({len(a.out_tokens)}):</b> {chips(a.out_tokens, '#e6f4ea')}</div>")


def attention_views(req: Request, kind: Any, layer: Any, head: Any):
    tr, a = model_for(req.model), analysis(req)
    kind = _kind(kind)
    layer, head = _layer(tr, kind, layer), _head(tr, head)
    return views.heatmap(a, kind, layer, head), views.all_heads(a, kind), views.statistics(a, kind)


def bertviz_frames(req: Request) -> tuple[str, str]:
    a = analysis(req)
    return iframe(views.bertviz(a, "head"), 640, "bertviz head view"), iframe(views.bertviz(a, "model"), 900,
                                                                              "bertviz model view")


def step_view(req: Request, step: Any, layer: Any, head: Any):
    tr, a = model_for(req.model), analysis(req)
    n = len(a.trace.steps)
    t = _number(step, "Step", 0, max(n - 1, 0), integer=True)
    return views.decoding_step(a, t, _layer(tr, "cross", layer), _head(tr, head))


def beam_views(req: Request):
    """Beam tree and greedy-vs-beam for the request's sentence (beam size from the request, >= 2)."""
    beam_req = _replace(req, method="beam", beam_size=max(req.beam_size, 2))
    greedy_req = _replace(req, method="greedy")
    b, g = analysis(beam_req), analysis(greedy_req)
    return views.beam(b), views.compare(g, b)


def _replace(req: Request, **kw) -> Request:
    return Request(**{**req.__dict__, **kw})


def positional_views(req: Request, length: Any, dims: Any):
    a = analysis(req)
    n = _number(length, "Length", 2, min(limits.MAX_PE_LENGTH, a.pe_table.shape[0]), integer=True)
    d = a.pe_table.shape[1]
    try:
        chosen = [int(x) for x in str(dims).replace(",", " ").split()] if dims else [0, 1, 4, 5]
    except ValueError:
        raise UserError("Dimensions must be whole numbers separated by commas, e.g. 0, 1, 10.") from None
    if not chosen or len(chosen) > 12 or any(not 0 <= x < d for x in chosen):
        raise UserError(f"Pick 1 to 12 dimensions between 0 and {d - 1}.")
    figs = views.positional(a, n, tuple(chosen))
    return figs["table"], figs["waves"], figs["similarity"], figs["sentence"]


def query_choices(req: Request, kind: Any) -> list[str]:
    a = analysis(req)
    queries = a.src_tokens if _kind(kind) == "encoder" else a.tgt_tokens
    return [f"{i}: {readable(t)}" for i, t in enumerate(queries)]


def inside_head(req: Request, kind: Any, layer: Any, head: Any, query: Any):
    tr, a = model_for(req.model), analysis(req)
    kind = _kind(kind)
    h = _head(tr, head)
    n = len(a.src_tokens if kind == "encoder" else a.tgt_tokens)
    q = _number(str(query).split(":")[0] if query not in (None, "") else 0, "Query token", 0, n - 1, integer=True)
    return views.head_inside(a, kind, _layer(tr, kind, layer), 0 if h is None else h, q)


def head_names(tr: Translator) -> list[str]:
    names = []
    for kind, label in (("encoder", "enc-self"), ("decoder", "dec-self"), ("cross", "cross")):
        n = tr.cfg.n_encoder_layers if kind == "encoder" else tr.cfg.n_decoder_layers
        names += [f"{label} L{layer} H{h}" for layer in range(n) for h in range(tr.cfg.n_heads)]
    return names


def parse_heads(tr: Translator, names: Any) -> tuple[tuple[str, int], ...]:
    blocks = {"enc-self": "encoder", "dec-self": "decoder", "cross": "cross"}
    valid = set(head_names(tr))
    out = []
    for name in names or []:
        if name not in valid:
            raise UserError(f"Unknown head {str(name)[:30]!r}; heads look like 'cross L0 H1'.")
        label, layer, head = name.split()
        out.append((block_name(blocks[label], int(layer[1:])), int(head[1:])))
    return tuple(sorted(out))


def ablation(req: Request, heads: Any):
    """Translation with the chosen heads off, next to the original; cross-attention of the last layer for both."""
    tr = model_for(req.model)
    off = parse_heads(tr, heads)
    base, changed = analysis(_replace(req, ablated=())), analysis(_replace(req, ablated=off))
    last = tr.cfg.n_decoder_layers - 1
    summary = (f"Original: {base.translation}\nWith {len(off)} head(s) off: {changed.translation}\n"
               + ("(identical)" if base.translation == changed.translation else "(changed)"))
    return summary, views.heatmap(base, "cross", last, None), views.heatmap(changed, "cross", last, None)


def logit_lens(req: Request):
    return views.lens(analysis(req))


def model_card(name: Any) -> str:
    tr = model_for(name)
    cfg, m = tr.cfg, tr.metrics
    settings = " · ".join(f"`{k}` {v}" for k, v in cfg.to_dict().items())
    bleu = m.get("bleu", {})
    pipe = lambda text: str(text).replace("|", "\\|")  # a sacreBLEU signature is full of table separators
    bleu_rows = [f"| {k} | {v['bleu']} | {v.get('bleu_lowercase', '')} | {pipe(v['signature'])} |"
                 for k, v in sorted(bleu.items())]
    parts = [f"### {html.escape(name)}: {tr.model.num_parameters():,} parameters",
             f"Trained for {m.get('training_minutes', '?')} minutes on {html.escape(str(m.get('hardware', '?')))}.",
             f"**Configuration:** {settings}"]
    if bleu_rows:
        parts.append("| evaluation | sacreBLEU | lowercased | signature |\n|---|---|---|---|\n" + "\n".join(bleu_rows))
    return "\n\n".join(parts)


def training_figures(name: Any):
    tr = model_for(name)
    folder = resolve(name)
    log = folder / "train_log.csv"
    rows = _read_log(log) if log.is_file() else []
    t = tr.training
    peak, warmup, total = t.get("lr", 1e-3), t.get("warmup", 400), max(t.get("steps", 4000), 2)
    steps = list(range(1, total + 1, max(1, total // 400)))
    return training_curves(rows, name), lr_schedule_figure(steps, [lr_at(s, peak, warmup) for s in steps], warmup)


def _read_log(path: Path) -> list[dict[str, str]]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def export_npz(req: Request) -> bytes:
    """Every captured tensor of the request, plus the tokens, as a .npz archive."""
    a = analysis(req)
    arrays = {k.replace(".", "/"): v.float().numpy() for k, v in a.cache.items()}
    meta = {"text": a.text, "translation": a.translation, "src_tokens": a.src_tokens, "tgt_tokens": a.tgt_tokens,
            "options": a.options.__dict__}
    buf = io.BytesIO()
    np.savez_compressed(buf, __meta__=np.array(json.dumps(meta)), **arrays)
    return buf.getvalue()
