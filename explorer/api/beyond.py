"""Beyond attention weights: attribution, activation patching and what-if edits for the shown request.

Like handlers.py: a Request goes in, text and figures come out, no Gradio. Every model computation passes
the model gate (``run_model``). A bad setting raises ``UserError`` naming the field.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from explorer.api.task_words import languages
from explorer.serving import limits
from explorer.serving.request import Request, UserError, clean_text, number, translator
from explorer.serving.store import analysis, long, require_words, run_model
from i18n import num, pct, t
from model.attribution import METHODS
from model.names import act_name
from viz.ablation import effect_summary
from viz.attention import side_by_side, which_heads
from viz.attribution import METHOD_NAMES, SIGNED, agreement, agreement_text, attribution_figure
from viz.patching import patching_figure, patching_summary
from viz.tokens import readable
from viz.whatif import edit_effect, next_token_figure, prefix_attention_figure

METHOD_LABELS = {label: key for key, label in METHOD_NAMES.items()}  # the page's radio shows the names
MAX_STEPS = 128
# a word of the shown sentence -> one that usually keeps the number of pieces: the corrupted sentence suggested
SWAPS = {"dog": "cat", "cat": "dog", "dogs": "cats", "cats": "dogs", "man": "woman", "woman": "man", "men": "women",
         "women": "men", "boy": "girl", "girl": "boy", "boys": "girls", "girls": "boys", "red": "blue", "blue": "red",
         "black": "white", "white": "black", "snow": "sand", "beach": "street", "street": "beach", "park": "street",
         "two": "three", "three": "two", "running": "walking", "walking": "running", "sits": "stands",
         "stands": "sits", "london": "paris", "paris": "london", "year": "week", "week": "year", "arm": "leg",
         "leg": "arm", "tom": "mary", "mary": "tom", "his": "her", "her": "his", "he": "she", "she": "he",
         "house": "car", "car": "house", "book": "letter", "small": "big", "big": "small", "old": "young",
         "young": "old"}


def suggested_corruption(text: str, model: str) -> str:
    """The shown sentence with its first swappable word swapped (dog -> cat) when that keeps the number of pieces,
    so that patching can line the two runs up; else the sentence itself."""
    tok = translator(model).tokenizer
    n = len(tok.encode(" ".join(text.split())))
    words = text.split()
    for i, w in enumerate(words):
        core = w.strip(".,;:!?\"'")
        new = SWAPS.get(core.lower())
        if not new:
            continue
        new = new.capitalize() if core[:1].isupper() else new
        candidate = " ".join(words[:i] + [w.replace(core, new, 1)] + words[i + 1 :])
        if len(tok.encode(candidate)) == n:
            return candidate
    return text


def optional_text(value: Any, field: str) -> str | None:
    """Empty or None -> None; otherwise cleaned text (as the sentence is), the message naming the field
    (``field``: its catalogue key, server.field.<field>: "Forced translation")."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if not isinstance(value, str):
        raise UserError(t("server.error.field_not_text", name=t(f"server.field.{field}")))
    if len(value) > limits.MAX_CHARS:
        raise UserError(t("server.error.field_too_long", name=t(f"server.field.{field}.in_text"),
                          limit=limits.MAX_CHARS, n=len(value)))
    return clean_text(value)


def method_key(method: Any) -> str:
    if method in METHODS:
        return method
    if isinstance(method, str) and method in METHOD_LABELS:  # (a list from an API call: named, not a traceback)
        return METHOD_LABELS[method]
    raise UserError(t("server.error.method_name", methods=", ".join(METHODS), got=repr(str(method)[:30])))


def check_work(steps: int, n_src: int, n_tgt: int) -> None:
    """Integrated gradients costs about steps x German pieces x all pieces (one backward pass per German piece and
    step, through the whole sentence): a request over limits.MAX_IG_WORK is refused, naming what to lower."""
    work = steps * n_tgt * (n_src + n_tgt)
    if work <= limits.MAX_IG_WORK:
        return
    fits = limits.MAX_IG_WORK // (n_tgt * (n_src + n_tgt))
    lower = t("server.error.ig_lower", fits=fits) if fits >= 1 else t("server.error.ig_other")
    raise UserError(t("server.error.ig_work", steps=steps, n_tgt=n_tgt, n_src=n_src, work=num(work, 0),
                      limit=num(limits.MAX_IG_WORK, 0), lower=lower))


def _shown(req: Request):
    a = analysis(req)
    require_words(a)
    return translator(req.model), a


def _user(fn):
    """The model refuses some inputs with ValueError (lengths that do not line up, a position out of range):
    those are the user's to fix, so they become UserError with the same message."""
    try:
        return run_model(fn)
    except ValueError as e:
        raise UserError(str(e)[:300]) from None


@long
def attribution(req: Request, method: Any, target: Any = None, contrast: Any = None, steps: Any = 32,
                layer: Any = -1):
    """-> (summary text, figure): attribution of every output token of the shown translation (or ``target``
    forced) next to cross-attention of ``layer`` (heads averaged; -1 = the last) for the same rows."""
    tr, a = _shown(req)
    m = method_key(method)
    target_text, contrast_text = optional_text(target, "forced"), optional_text(contrast, "contrast")
    n_steps = int(number(steps, t("server.field.steps"), 1, MAX_STEPS, integer=True))
    n_layer = int(number(layer, t("server.field.layer"), -1, tr.cfg.n_decoder_layers - 1, integer=True))
    n_layer = tr.cfg.n_decoder_layers - 1 if n_layer == -1 else n_layer
    out = target_text if target_text is not None else a.out_ids[:-1]  # the shown translation's own pieces
    if m == "integrated_gradients":
        n_out = len(tr.tokenizer.encode(" ".join(out.split()))) if isinstance(out, str) else len(out)
        check_work(n_steps, len(a.src_ids), n_out + 1)
    r = _user(lambda: tr.attribute(req.text, m, target=out, contrast=contrast_text, steps=n_steps))
    cache = a.cache  # the shown translation's own pass; a forced one needs its own
    if target_text is not None:
        _, cache = _user(lambda: tr.forced(req.text, tr.tokenizer.encode(" ".join(target_text.split()))))
    w = cache[act_name("cross", n_layer, "weights")][0].mean(0).numpy()  # (1, H, T, S) -> (T, S), heads averaged
    label = t("server.beyond.layer_averaged", layer=n_layer)
    rho = agreement(r.source, w)
    reading = t("server.beyond.reading", signed=t("server.beyond.reading_signed") if m in SIGNED else "")
    text = reading + agreement_text(rho, r.out_tokens, m, label)
    if r.completeness_error is not None:
        worst = int(np.argmax(r.row_gaps))
        score = t("server.beyond.score_difference" if contrast_text is not None else "server.beyond.score")
        steps_said = t("server.beyond.one_step" if n_steps == 1 else "server.beyond.steps", n=n_steps)
        text += t("server.beyond.check", score=score, miss=pct(r.completeness_error, 2), steps=steps_said,
                  token=t("server.quoted", text=readable(r.out_tokens[worst])), gap=num(r.row_gaps[worst], 2),
                  total=num(abs(r.scores[worst] - r.baseline_scores[worst]), 2))
        if r.completeness_error > 0.02:
            text += t("server.beyond.loose")
    if contrast_text is not None:
        used = ", ".join(sorted({readable(c) for c in r.contrast_tokens}))[:80]
        text += t("server.beyond.contrast", quoted=t("server.quoted", text=used), used=used)
    fig = attribution_figure(r.source, r.target, w, r.src_tokens, r.tgt_tokens, r.out_tokens, m, label,
                             r.contrast_tokens)
    return text, fig


@long
def patching(req: Request, corrupt: Any, position: Any = -1):
    """-> (summary, figure): activation patching from the shown sentence (clean) into ``corrupt``."""
    tr, _ = _shown(req)
    other = optional_text(corrupt, "corrupted")
    if other is None:
        raise UserError(t("server.error.corrupt_empty"))
    pos = int(number(position, t("server.field.position"), -1, limits.MAX_OUTPUT_TOKENS, integer=True))
    n_clean, n_other = (len(tr.tokenizer.encode(" ".join(s.split()))) for s in (req.text, other))
    if n_clean != n_other:
        hint = suggested_corruption(req.text, req.model)
        raise UserError(t("server.error.corrupt_pieces", n_other=n_other, n_clean=n_clean)
                        + (t("server.error.corrupt_try", hint=t("server.quoted", text=hint)) if hint != req.text
                           else t("server.error.corrupt_change")))
    p = _user(lambda: tr.patch(req.text, other, None if pos == -1 else pos))
    restored_heads = {k: p.restored(v) for k, v in p.heads.items()}
    restored_layers = {k: p.restored(v) for k, v in p.layers.items()}
    token = tr.vocab[p.token]
    if abs(p.clean_logp - p.corrupt_logp) < 1e-4:
        return (t("server.beyond.nothing_to_restore", token=t("server.quoted", text=readable(token)),
                  position=p.position), None)
    return (patching_summary(restored_heads, restored_layers, token, p.position, p.clean_logp, p.corrupt_logp),
            patching_figure(restored_heads, restored_layers, token, p.position, (req.text, other)))


def next_token(req: Request, prefix: Any):
    """-> (text, next-token figure, attention figure): force a German prefix on the shown sentence."""
    tr, _ = _shown(req)
    forced = optional_text(prefix, "prefix") or ""
    r = _user(lambda: tr.next_token(req.text, forced))
    text = t("server.beyond.next_token", prefix=forced or t("server.beyond.no_prefix"),
             top=", ".join(f"{readable(p)}: {num(q, 3)}" for p, q in zip(r["top_tokens"][:5], r["top_probs"][:5])),
             continuation=r["continuation"])
    return (text, next_token_figure(r["top_tokens"], r["top_probs"], r["prefix_tokens"]),
            prefix_attention_figure(r["cross"], r["src_tokens"]))


def source_choices(req: Request) -> list[str]:
    """The shown sentence's source pieces as "index: piece" (EOS excluded): what the edit may change."""
    _, a = _shown(req)
    return [f"{i}: {p}" for i, p in enumerate(a.src_tokens[:-1])]


def piece_position(pieces: list[str], which: Any) -> int:
    """A source piece named by its number (3, "3", "3: ▁dog") or by its text ("dog": the first piece that spells it)."""
    if isinstance(which, str):
        head = which.split(":", 1)[0].strip()
        if head.lstrip("-").isdigit():
            which = head
        else:
            word = which.strip().lower()
            for i, p in enumerate(pieces):
                if p.replace("▁", "").lower() == word:
                    return i
            raise UserError(t("server.error.not_a_piece", which=repr(which.strip()[:30]))
                            + ", ".join(f"{i}: {p.replace('▁', '')}" for i, p in enumerate(pieces))[:300])
    return int(number(which, t("server.field.source_piece"), 0, len(pieces) - 1, integer=True))


def edit_source(req: Request, position: Any, replacement: Any = None):
    """-> (text, probability figure, attention figure): mask or replace one source piece and decode again."""
    tr, a = _shown(req)
    pos = piece_position(a.src_tokens[:-1], position)
    new = optional_text(replacement, "replacement")
    r = _user(lambda: tr.edit_source(req.text, pos, new))
    piece = t("server.quoted", text=readable(a.src_tokens[pos]))
    what = (t("server.beyond.masked", piece=piece) if new is None
            else t("server.beyond.replaced", piece=piece, new=t("server.quoted", text=new)))
    text = (t("server.beyond.edited", original=r["translation"], what=what, edited=r["edited_translation"]) + "\n"
            + t("server.identical" if r["translation"] == r["edited_translation"] else "server.changed") + " "
            + effect_summary(r["out_tokens"], r["p_original"], r["p_edited"], t("server.beyond.original_to_edited")))
    last = tr.cfg.n_decoder_layers - 1
    edited = t("server.beyond.edited_name", what=what)
    sides = [(r["cross"][last], r["tgt_tokens"], r["src_tokens"], req.text),
             (r["edited_cross"][last], r["tgt_tokens"], r["edited_tokens"], edited)]
    return (text, edit_effect(r["out_tokens"], r["p_original"], r["p_edited"], edited),
            side_by_side(*sides, "cross", last, t("server.beyond.on_original", which=which_heads(None)),
                         languages(req.model)))
