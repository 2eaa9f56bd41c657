"""Request handlers: a validated Request in, what a view shows out (figures, text, bytes).

No Gradio here: errors are UserError, which the endpoints turn into a message for the user. Every
view reads the one Analysis of its Request from the bounded store (explorer/serving/store.py).
"""

from __future__ import annotations

import csv
import functools
import html
import io
import json
from pathlib import Path
from typing import Any

import numpy as np

from explorer.api.advice import CHIP_MARKS, CHIP_SHADES, SOURCE, advice, confidence_chips, may_be_wrong, unsure
from explorer.api.examples import EXAMPLES
from explorer.api.task_words import credit_text, languages, task_keys
from explorer.serving import limits
from explorer.serving.request import Request, UserError, number, translator
from explorer.serving.store import analysis, note_text, require_words, run_model
from i18n import lang, num, t
from model.names import act_name
from model.schedule import lr_at
from model.translator import Analysis, Translator, resolve
from viz import arrays, views
from viz.ablation import ablation_effect, attention_difference, effect_summary
from viz.arrays import block_name
from viz.attention import side_by_side, which_heads
from viz.bertviz_view import iframe
from viz.page_data import page_data, short
from viz.tokens import readable
from viz.training import lr_schedule_figure, training_curves

KIND_LABELS = {"Cross-attention": "cross", "Encoder self-attention": "encoder", "Decoder self-attention": "decoder"}
AVERAGE = "all heads (mean)"
model_for = translator


def titled(fig, text: str):
    """Every figure names the sentence it shows: appended to the first line of its title."""
    title = fig.layout.title.text or ""
    first, sep, rest = title.partition("<br>")
    quoted = t("server.quoted", text=html.escape(short(text), quote=False))
    fig.update_layout(title_text=f"{first} — {quoted}{sep}{rest}")
    return fig


def _layer(tr: Translator, kind: str, layer: Any) -> int:
    n = tr.cfg.n_encoder_layers if kind == "encoder" else tr.cfg.n_decoder_layers
    return number(layer, t("server.field.layer"), 0, n - 1, integer=True)


def _head(tr: Translator, head: Any) -> int | None:
    if head in (None, "", AVERAGE):
        return None
    text = str(head).removeprefix("head ")
    return number(text, t("server.field.head"), 0, tr.cfg.n_heads - 1, integer=True)


def _kind(kind: Any) -> str:
    if kind in KIND_LABELS.values():
        return kind
    if not isinstance(kind, str) or kind not in KIND_LABELS:  # (a list from an API call: named, not a traceback)
        raise UserError(t("server.error.kind", kinds=", ".join(KIND_LABELS)))
    return KIND_LABELS[kind]


# -- the views --------------------------------------------------------------------------------
def translate(req: Request) -> str:
    """The translation of the request's analysis (the same decode every view draws from)."""
    a = analysis(req)
    require_words(a)
    return a.translation


def tokens_html(a: Analysis) -> str:
    """The pieces of the shown translation: source and output chips (each output piece shaded by the probability it
    was chosen with, the shades explained beside them), led by what a learner should know about this translation (a
    note that the decode wrote nothing, a loop, that it may be wrong: advice.py decides). Drawn with the translation,
    so a warning always belongs to the sentence shown (a toast would stay on screen over the next one)."""
    source, target = (_in(name) for name in getattr(a, "languages", ("English", "German")))

    def chips(tokens: list[str], colour: str) -> str:
        return " ".join(f'<span{source} style="background:{colour};border-radius:4px;padding:1px 5px;margin:1px;'
                        f'display:inline-block;font-family:monospace">{html.escape(readable(tok))}</span>'
                        for tok in tokens)
    note = note_text(a)
    notes = ([note] if note else []) + advice(a)
    # first, where a student looks: what to know before trusting the translation beside it
    warnings = "".join(f"<div class='ae-advice' role='status' style='margin-bottom:6px;padding:6px 10px;"
                       f"background:#fff4e5;border-left:4px solid #b45309;font-size:0.9375rem'>⚠ {_headlined(w, source)}</div>"
                       for w in notes)
    # the source line's count and pieces, and the output line's, are covered while the lesson's first stop asks
    # for the source's (style.css)
    return (f"<div class='ae-pieces'>{warnings}<div class='ae-src-line'><span class='ae-src-count'>"
            f"{t('server.pieces.source', n=len(a.src_tokens))} {chips(a.src_tokens, '#e8f0fe')}</span>"
            f"<span class='ae-src-later'>{t('server.pieces.later')}</span></div>"
            f"<div class='ae-out-line' style='margin-top:4px'>{t('server.pieces.output', n=len(a.out_tokens))} "
            f"{confidence_chips(a, target)}</div>"
            f"<div style='margin-top:2px;font-size:0.8125rem;color:#555'>{chips_key()}</div>"
            f"<details style='font-size:0.8125rem;color:#555'><summary>{t('server.pieces.what')}</summary>"
            f"{pieces_key(len(a.vocab))}</details></div>")


LANGUAGE_CODES = {"English": "en", "German": "de"}  # a task's language names (English data) -> the HTML lang code


def _in(language: str) -> str:
    """ lang="en" for the pieces of a language we know the code of (they sit inside text of the page's language)."""
    code = LANGUAGE_CODES.get(language)
    return f' lang="{code}"' if code else ""


def _headlined(note: str, source: str = "") -> str:
    """A note as HTML, its first sentence in bold (the headline a student reads first); words advice() marked as the
    source language's carry ``source`` (' lang="en"')."""
    head, sep, rest = note.partition(". ")

    def esc(text: str) -> str:
        return html.escape(text).replace(SOURCE[0], f"<span{source}>").replace(SOURCE[1], "</span>")
    return f"<b>{esc(head + sep.strip())}</b> {esc(rest)}" if sep else f"<b>{esc(note)}</b>"


def chips_key() -> str:
    """What the output chips' shades mean (advice.confidence_chips's thresholds)."""
    swatch = "<span style='background:{};{};border-radius:3px;padding:0 5px;margin:0 3px'>{}</span>"
    sure, unsure = (num(CHIP_SHADES[i][0], 1) for i in (0, 1))
    words = [html.escape(w) for w in (t("server.pieces.sure", p=sure), f"{unsure} ≤ p < {sure}",
                                      t("server.pieces.unsure", p=unsure))]
    # (a separator between the swatches: a screen reader read "sure, p ≥ 0.7p ≥ 0.3unsure")
    return (t("server.pieces.shade") + ";".join(swatch.format(CHIP_SHADES[i][1], CHIP_MARKS[i], words[i]) for i in range(3))
            + t("server.pieces.shade_note"))


def pieces_key(vocab_size: int) -> str:
    """What the token chips mean (the "·" marker above all)."""
    return t("server.pieces.key", n=num(vocab_size, 0))


def page(req: Request) -> dict:
    """The page's compact copy of the analysis (viz/page_data.py), with the request it came from."""
    a = analysis(req)
    data = page_data(a, model_for(req.model).cfg.n_heads)
    data["request"] = req.to_json()
    data["note"] = a.note
    est = may_be_wrong(a)  # the status line leads with it (views.js leastSure), as the pieces do
    data["may_be_wrong"] = None if est is None else {"flagged": est.flagged, "p": round(est.probability, 3),
                                                     "words": list(est.words), "missing": list(est.missing),
                                                     "dropped": list(est.dropped)}
    data["unsure"] = unsure(a)  # the words the status line names as unsure, least sure first
    data["pe"] = positional_info(req.model)
    task = model_for(req.model).task
    # the checkpoint's own (English) names, and their catalogue keys where it has them: the page, which translates
    # its own text, names the rows and columns in its language (AE.t(key)); this copy stays the same in every language
    data["task"] = {"source": task.source, "target": task.target}
    data["task_keys"] = task_keys(req.model)  # field -> catalogue key or None: AE.t(key) where there is one
    return data


def examples_for(model: str) -> list[str]:
    """The model's own examples (its config's task); English sentences for a model that names none."""
    return list(model_for(model).task.examples) or list(EXAMPLES)


def spoken(prefix: str, text: str) -> str:
    """``text`` in the language being spoken, by its catalogue entry under ``prefix`` (i18n.from_english)."""
    from i18n import from_english

    return from_english(text, prefix)


def input_label(task) -> str:
    """ "an English sentence" -> "English sentence" (the text box's label), in the language being spoken."""
    words = task.input.split(" ", 1)
    text = words[1] if len(words) == 2 and words[0] in ("a", "an") else task.input
    return spoken("page.task.", text[:1].upper() + text[1:])


def output_label(task) -> str:
    return spoken("page.task.", task.target[:1].upper() + task.target[1:])


def input_info(task) -> str:
    """The line under the text box: what the model was trained on (what it translates well), and the length limit."""
    from i18n import num, t

    limit = t("page.task.limit", n=num(limits.MAX_CHARS, 0))
    return " ".join(p for p in (spoken("page.task.", task.hint), limit) if p) or t("page.task.type", input=task.input)


@functools.lru_cache(maxsize=limits.ANALYSIS_CACHE)
def page_json(req: Request) -> str:
    """page(req) as the JSON text the page holds: made once per Request (an Example clicked by a whole class
    is serialised once), compact separators."""
    return json.dumps(page(req), ensure_ascii=False, separators=(",", ":"))


def positional_info(model: str) -> dict:
    """What the page needs to draw the model's positional encoding itself (views.js): the sinusoids are
    computed in the browser from d_model; a learned table travels once per page load (learned_tables)."""
    cfg = model_for(model).cfg
    return {"kind": cfg.positional, "d_model": cfg.d_model, "model": model,
            "max_len": min(limits.MAX_PE_LENGTH, model_for(model).model.positional.table.shape[0])}


def learned_tables(models: list[str]) -> dict[str, list]:
    """The learned positional tables of these models (first MAX_PE_LENGTH rows, 3 decimals); none for sinusoids."""
    out = {}
    for name in models:
        if model_for(name).cfg.positional == "learned":
            table = model_for(name).model.positional.table.detach().float().numpy()[: limits.MAX_PE_LENGTH]
            out[name] = np.round(table, 3).tolist()
    return out


def attention_views(req: Request, kind: Any, layer: Any, head: Any):
    tr, a = model_for(req.model), analysis(req)
    kind = _kind(kind)
    layer, head = _layer(tr, kind, layer), _head(tr, head)
    return tuple(titled(f, a.text) for f in (views.heatmap(a, kind, layer, head, languages(req.model)),
                                            views.all_heads(a, kind), views.statistics(a, kind)))


def bertviz_frames(req: Request) -> tuple[str, str]:
    a = analysis(req)
    return (iframe(views.bertviz(a, "head"), 640, t("server.bertviz.head")),
            iframe(views.bertviz(a, "model"), 900, t("server.bertviz.model")))


def step_view(req: Request, step: Any, layer: Any, head: Any):
    tr, a = model_for(req.model), analysis(req)
    require_words(a)
    n = len(a.trace.steps)
    i = number(step, t("server.field.step"), 0, max(n - 1, 0), integer=True)
    return titled(views.decoding_step(a, i, _layer(tr, "cross", layer), _head(tr, head)), a.text)


def beam_views(req: Request):
    """Beam tree and greedy-vs-beam for the request's sentence (beam size from the request, >= 2)."""
    b = analysis(req.replace(method="beam", beam_size=max(req.beam_size, 2)))
    g = analysis(req.replace(method="greedy"))
    return titled(views.beam(b), b.text), titled(views.compare(g, b), b.text)


def model_positional(model: str, length: int, dims: tuple[int, ...]):
    """The figures that depend only on the model: computed once per (model, length, dimensions, language)."""
    return _model_positional(model, length, dims, lang())


@functools.lru_cache(maxsize=64)
def _model_positional(model: str, length: int, dims: tuple[int, ...], language: str):
    from viz.positional import pe_heatmap, pe_similarity, pe_waves

    pe = model_for(model).model.positional.table.detach()
    return pe_heatmap(pe, length), pe_waves(pe, list(dims), length), pe_similarity(pe, length)


def parse_dims(dims: Any, d: int) -> tuple[int, ...]:
    try:
        chosen = [int(x) for x in str(dims).replace(",", " ").split()] if dims not in (None, "") else [0, 1, 10, 11]
    except ValueError:
        raise UserError(t("server.error.dims_numbers")) from None
    if not chosen or len(chosen) > 12 or any(not 0 <= x < d for x in chosen):
        raise UserError(t("server.error.dims_range", hi=d - 1))
    return tuple(chosen)


def pe_settings(req: Request, length: Any, dims: Any) -> tuple[int, tuple[int, ...]]:
    size, d = model_for(req.model).model.positional.table.shape
    return (number(length, t("server.field.positions"), 2, min(limits.MAX_PE_LENGTH, size), integer=True),
            parse_dims(dims, d))


def positional_views(req: Request, length: Any, dims: Any):
    n, chosen = pe_settings(req, length, dims)
    return (*model_positional(req.model, n, chosen), sentence_positional(req))


def sentence_positional(req: Request):
    a = analysis(req)
    return titled(views.positional_sentence(a), a.text)


def query_choices(req: Request, kind: Any) -> list[str]:
    a = analysis(req)
    queries = a.src_tokens if _kind(kind) == "encoder" else a.tgt_tokens
    return [f"{i}: {readable(tok)}" for i, tok in enumerate(queries)]


def inside_head(req: Request, kind: Any, layer: Any, head: Any, query: Any):
    tr, a = model_for(req.model), analysis(req)
    kind = _kind(kind)
    h = _head(tr, head)
    n = len(a.src_tokens if kind == "encoder" else a.tgt_tokens)
    q = number(str(query).split(":")[0] if query not in (None, "") else 0, t("server.field.query"), 0, n - 1,
               integer=True)
    return titled(views.head_inside(a, kind, _layer(tr, kind, layer), 0 if h is None else h, q), a.text)


def head_names(tr: Translator) -> list[str]:
    names = []
    for kind, label in (("encoder", "enc-self"), ("decoder", "dec-self"), ("cross", "cross")):
        n = tr.cfg.n_encoder_layers if kind == "encoder" else tr.cfg.n_decoder_layers
        names += [f"{label} L{layer} H{h}" for layer in range(n) for h in range(tr.cfg.n_heads)]
    return names


DEFAULT_PRESET = "every cross-attention head of the last layer"  # the group Experiments opens with ticked


def default_ablation(tr: Translator) -> list[str]:
    """Something worth seeing on first load: every cross-attention head of the last layer off."""
    last = tr.cfg.n_decoder_layers - 1
    return [f"cross L{last} H{i}" for i in range(tr.cfg.n_heads)]


def parse_heads(tr: Translator, names: Any) -> tuple[tuple[str, int], ...]:
    blocks = {"enc-self": "encoder", "dec-self": "decoder", "cross": "cross"}
    valid = set(head_names(tr))
    if isinstance(names, str):
        names = [names]
    if names is not None and not isinstance(names, (list, tuple)):
        raise UserError(t("server.error.heads_list"))
    out = []
    for name in names or []:
        if name not in valid:
            raise UserError(t("server.error.unknown_head", name=repr(str(name)[:30])))
        label, layer, head = name.split()
        out.append((block_name(blocks[label], int(layer[1:])), int(head[1:])))
    return tuple(sorted(out))


def ablation(req: Request, heads: Any):
    """Translation with the chosen heads off, next to the original; cross-attention of the last layer for both;
    and how much each token of the original translation lost or gained (its probability with its prefix forced,
    intact vs heads off), which says what the heads did even when the words stay the same.
    -> summary text, the two heatmaps, the per-step figure, the difference of cross-attention (heads off minus
    intact, both on the original translation)."""
    tr = model_for(req.model)
    off = parse_heads(tr, heads)
    base, changed = analysis(req.replace(ablated=())), analysis(req.replace(ablated=off))
    out = base.out_ids[:-1]  # the original translation; the probabilities cover it and then EOS
    p_intact, c_intact = run_model(lambda: tr.forced(req.text, out))
    p_off, c_off = run_model(lambda: tr.forced(req.text, out, list(off)))
    last = tr.cfg.n_decoder_layers - 1
    cross = [act_name("cross", i, "weights") for i in range(tr.cfg.n_decoder_layers)]  # (1, H, T, S) each
    summary = (t("server.ablation.summary", original=base.translation, n=len(off), changed=changed.translation)
               + "\n" + t("server.identical" if base.translation == changed.translation else "server.changed") + " "
               + effect_summary(base.out_tokens, p_intact, p_off))
    layers = [np.stack([c[n][0].mean(0).numpy() for n in cross]) for c in (c_intact, c_off)]  # (L, T, S) heads averaged
    difference = attention_difference(*layers, base.tgt_tokens, base.src_tokens)
    names = languages(req.model)
    heads_off = views.heatmap(changed, "cross", last, None, names)
    n, here = tr.cfg.n_heads, sum(1 for block, _ in off if block == block_name("cross", last))
    if here:  # a head switched off keeps its weights (its output is what is zeroed): the title says how many are off
        heads_off.update_layout(title_text=heads_off.layout.title.text.replace(
            which_heads(None, n), t("server.ablation.mean_off", mean=which_heads(None, n), off=here, n=n), 1))
    return (summary, titled(views.heatmap(base, "cross", last, None, names), base.text), titled(heads_off, changed.text),
            titled(ablation_effect(base.out_tokens, p_intact, p_off, len(off)), base.text),
            titled(difference, base.text))


def compare(req: Request, text_b: Any, kind: Any, layer: Any, head: Any):
    """The shown sentence and a second one (same model and decoding options), one view each, one colour scale."""
    tr = model_for(req.model)
    kind = _kind(kind)
    n_layer, h = _layer(tr, kind, layer), _head(tr, head)
    other = Request.parse(text_b, req.model, req.method, req.beam_size, req.length_penalty, req.temperature,
                          req.top_k, req.top_p, req.seed, req.max_len, no_repeat_ngram_size=req.no_repeat_ngram_size,
                          repetition_penalty=req.repetition_penalty)
    views_of = []
    for r in (req, other):
        a = analysis(r)
        require_words(a)
        w = arrays.attention(a.cache, kind, n_layer)  # (H, Tq, Tk)
        q, k = arrays.tokens_for(kind, a.src_tokens, a.tgt_tokens)
        views_of.append((w.mean(0) if h is None else w[h], q, k, a.text))
    return side_by_side(views_of[0], views_of[1], kind, n_layer, which_heads(h), languages(req.model))


def ablation_presets(tr: Translator) -> dict[str, list[str]]:
    """Named groups of heads for the ablation picker: every head of one kind, every head of one layer."""
    names = head_names(tr)
    presets = {f"all {label} heads": [n for n in names if n.startswith(prefix + " ")]
               for prefix, label in (("cross", "cross-attention"), ("enc-self", "encoder self-attention"),
                                     ("dec-self", "decoder self-attention"))}
    n_layers = max(tr.cfg.n_encoder_layers, tr.cfg.n_decoder_layers)
    for layer in range(n_layers):
        presets[f"whole layer {layer} (every kind)"] = [n for n in names if n.split()[1] == f"L{layer}"]
    presets[DEFAULT_PRESET] = default_ablation(tr)
    return presets


def logit_lens(req: Request):
    a = analysis(req)
    return titled(views.lens(a), a.text)


def model_card(name: Any) -> str:
    tr = model_for(name)
    cfg, m = tr.cfg, tr.metrics
    settings = " · ".join(f"`{k}` {v}" for k, v in cfg.to_dict().items())
    bleu = m.get("bleu", {})
    # a sacreBLEU signature is full of table separators; after each, a zero-width space where a narrow cell may break
    # it (by whole fields: "smo / oth" at twice the text size, helper 45)
    pipe = lambda text: str(text).replace("|", "\\|\u200b")
    bleu_rows = [f"| {html.escape(k)} | {_plain(v['bleu'])} | {_plain(v.get('chrf', ''))} | "
                 f"{_plain(v.get('bleu_lowercase', ''))} | {pipe(v['signature'])} |" for k, v in sorted(bleu.items())]
    parts = [t("server.card.title", name=html.escape(name), n=num(tr.model.num_parameters(), 0)),
             t("server.card.trained", minutes=_plain(m.get("training_minutes", "?")),
               hardware=html.escape(str(m.get("hardware", "?")))),
             t("server.card.configuration", settings=settings)]
    data = [d for d in m.get("data", []) if isinstance(d, dict)]
    if data:
        parts.append(t("server.card.trained_on") + "; ".join(
            t("server.card.corpus_twice" if d.get("repeats_per_epoch") == 2 else "server.card.corpus",
              credit=html.escape(credit_text(str(d.get("corpus", "?")), str(d.get("credit", d.get("corpus", "?"))))),
              n=_count(d.get("train_pairs")))
            for d in data))
    if bleu_rows:
        parts.append(t("server.card.table") + "\n|---|---|---|---|---|\n" + "\n".join(bleu_rows))
    return "\n\n".join(parts)


def _count(n: Any) -> str:
    return num(n, 0) if isinstance(n, int) else "?"


def _plain(x: Any) -> str:
    """A recorded number as it was written (39.6, 199.1), with the language's decimal mark."""
    return str(x).replace(".", t("_meta.decimal")) if isinstance(x, float) else str(x)


def training_figures(name: Any):
    """Training curves from train_log.csv (a broken log gives an empty figure that says why, and the rest of the
    Model tab still works) and the learning-rate schedule."""
    tr = model_for(name)
    folder = resolve(name)
    log = folder / "train_log.csv"
    try:
        curves = training_curves(_read_log(log) if log.is_file() else [], name)
    except (OSError, csv.Error, UnicodeDecodeError, ValueError, KeyError, TypeError) as e:
        curves = training_curves([], name)
        curves.add_annotation(text=html.escape(t("server.card.log_unreadable", file=log.name,
                                                 why=f"{type(e).__name__}: {str(e)[:120]}")),
                              xref="paper", yref="paper", x=0.5, y=0.5, showarrow=False)
    run = tr.training
    peak, warmup, total = run.get("lr", 1e-3), run.get("warmup", 400), max(run.get("steps", 4000), 2)
    steps = list(range(1, total + 1, max(1, total // 400)))
    return curves, lr_schedule_figure(steps, [lr_at(s, peak, warmup) for s in steps], warmup)


def _read_log(path: Path) -> list[dict[str, str]]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def export_npz(req: Request) -> bytes:
    """Every captured tensor of the request, plus the tokens, as a .npz archive."""
    a = analysis(req)
    arrays = {k.replace(".", "/"): v.float().numpy() for k, v in a.cache.items()}
    meta = {"text": a.text, "translation": a.translation, "src_tokens": a.src_tokens, "tgt_tokens": a.tgt_tokens,
            "options": a.options.__dict__, "request": json.loads(req.to_json())}
    buf = io.BytesIO()
    np.savez_compressed(buf, __meta__=np.array(json.dumps(meta)), **arrays)
    return buf.getvalue()


def export_html(req: Request, kind: Any, layer: Any, head: Any) -> bytes:
    """The attention tab's figures as one self-contained HTML file (plotly.js embedded once)."""
    import plotly.io as pio

    figs = attention_views(req, kind, layer, head)
    parts = [pio.to_html(f, include_plotlyjs=(i == 0), full_html=False) for i, f in enumerate(figs)]
    return ("<!doctype html><html><head><meta charset='utf-8'><title>Attention Explorer figures</title>"
            "</head><body>" + "".join(parts) + "</body></html>").encode("utf-8")


def model_page(name: Any):
    """Model card and training figures: they depend only on the model (and the reader's language), so they are made
    once per model and language."""
    model_for(name)  # an unknown name or a list is refused here, naming the field, before the cache hashes it
    return _model_page(name, lang())


@functools.lru_cache(maxsize=16)
def _model_page(name: str, language: str):
    from viz.compact import plot_value

    curves, lr = training_figures(name)
    return model_card(name), plot_value(curves), plot_value(lr)
