"""Beyond attention weights: attribution, activation patching and what-if edits for the shown request.

Like handlers.py: a Request goes in, text and figures come out, no Gradio. Every model computation passes
the model gate (``run_model``). A bad setting raises ``UserError`` naming the field.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from explorer.serving import limits
from explorer.serving.request import Request, UserError, clean_text, number, translator
from explorer.serving.store import analysis, long, require_words, run_model
from model.attribution import METHODS
from model.names import act_name
from viz.ablation import effect_summary
from viz.attention import side_by_side
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


def optional_text(value: Any, name: str) -> str | None:
    """Empty or None -> None; otherwise cleaned text (as the sentence is), the message naming ``name``."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if not isinstance(value, str):
        raise UserError(f"{name} must be text.")
    if len(value) > limits.MAX_CHARS:
        raise UserError(f"Please keep the {name.lower()} to {limits.MAX_CHARS} characters; it has {len(value)}.")
    return clean_text(value)


def method_key(method: Any) -> str:
    if method in METHODS:
        return method
    if method in METHOD_LABELS:
        return METHOD_LABELS[method]
    raise UserError(f"Attribution method must be one of: {', '.join(METHODS)}; not {str(method)[:30]!r}.")


def check_work(steps: int, n_src: int, n_tgt: int) -> None:
    """Integrated gradients costs about steps x German pieces x all pieces (one backward pass per German piece and
    step, through the whole sentence): a request over limits.MAX_IG_WORK is refused, naming what to lower."""
    work = steps * n_tgt * (n_src + n_tgt)
    if work <= limits.MAX_IG_WORK:
        return
    fits = limits.MAX_IG_WORK // (n_tgt * (n_src + n_tgt))
    lower = f"lower Steps to {fits} or fewer, or" if fits >= 1 else "choose another method, or"
    raise UserError(f"Integrated gradients at {steps} steps on {n_tgt} German and {n_src} English pieces is more work "
                    f"than one request may ask of this shared server (steps × German pieces × all pieces = {work:,}; "
                    f"the limit is {limits.MAX_IG_WORK:,}): {lower} attribute a shorter sentence.")


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
    target_text, contrast_text = optional_text(target, "Forced translation"), optional_text(contrast, "Contrast")
    n_steps = int(number(steps, "Steps", 1, MAX_STEPS, integer=True))
    n_layer = int(number(layer, "Layer", -1, tr.cfg.n_decoder_layers - 1, integer=True))
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
    label = f"layer {n_layer}, heads averaged"
    rho = agreement(r.source, w)
    reading = ("How to read it: each row is one German word; a coloured cell says how much that input word mattered "
               "for it" + (" (red: pushed it up, blue: pushed it down)" if m in SIGNED else "") + ". ")
    text = reading + agreement_text(rho, r.out_tokens, m, label)
    if r.completeness_error is not None:
        worst = int(np.argmax(r.row_gaps))
        score = "log-probability" + (" difference" if contrast_text is not None else "")
        steps_said = f"{n_steps} step" + ("" if n_steps == 1 else "s")
        text += (f" Check: each row's numbers should add up to how much its {score} changes from a blank input. "
                 f"Over all rows they miss by {100 * r.completeness_error:.2f}% of the total change ({steps_said}); "
                 f"the largest miss is on “{readable(r.out_tokens[worst])}”: {r.row_gaps[worst]:.2f} of "
                 f"{abs(r.scores[worst] - r.baseline_scores[worst]):.2f}.")
        if r.completeness_error > 0.02:
            text += " That is loose: more steps make the numbers more exact."
    if contrast_text is not None:
        used = ", ".join(sorted({readable(c) for c in r.contrast_tokens}))[:80]
        text += f" Contrast: each row explains why its word and not “{used}” (log p(word) − log p({used}))."
    fig = attribution_figure(r.source, r.target, w, r.src_tokens, r.tgt_tokens, r.out_tokens, m, label,
                             r.contrast_tokens)
    return text, fig


@long
def patching(req: Request, corrupt: Any, position: Any = -1):
    """-> (summary, figure): activation patching from the shown sentence (clean) into ``corrupt``."""
    tr, _ = _shown(req)
    other = optional_text(corrupt, "Corrupted sentence")
    if other is None:
        raise UserError("Type a corrupted sentence: the shown one with a word changed, the same number of pieces "
                        "(e.g. “dog” → “cat”).")
    pos = int(number(position, "Position", -1, limits.MAX_OUTPUT_TOKENS, integer=True))
    n_clean, n_other = (len(tr.tokenizer.encode(" ".join(t.split()))) for t in (req.text, other))
    if n_clean != n_other:
        hint = suggested_corruption(req.text, req.model)
        raise UserError(f"The corrupted sentence must have as many pieces as the shown one, to line the two runs up "
                        f"position by position: {n_other} and {n_clean}."
                        + (f" Try: “{hint}”." if hint != req.text else " Change one word for another of one piece."))
    p = _user(lambda: tr.patch(req.text, other, None if pos == -1 else pos))
    restored_heads = {k: p.restored(v) for k, v in p.heads.items()}
    restored_layers = {k: p.restored(v) for k, v in p.layers.items()}
    token = tr.vocab[p.token]
    if abs(p.clean_logp - p.corrupt_logp) < 1e-4:
        return (f"Both sentences give “{readable(token)}” at position {p.position} the same probability: there is "
                "nothing to restore. Change a word the translation depends on (dog → cat).", None)
    return (patching_summary(restored_heads, restored_layers, token, p.position, p.clean_logp, p.corrupt_logp),
            patching_figure(restored_heads, restored_layers, token, p.position, (req.text, other)))


def next_token(req: Request, prefix: Any):
    """-> (text, next-token figure, attention figure): force a German prefix on the shown sentence."""
    tr, _ = _shown(req)
    forced = optional_text(prefix, "Forced prefix") or ""
    r = _user(lambda: tr.next_token(req.text, forced))
    text = (f"Forced prefix: {forced or '(none: the first word)'}\nMost likely next: "
            + ", ".join(f"{readable(p)}: {q:.3f}" for p, q in zip(r["top_tokens"][:5], r["top_probs"][:5]))
            + f"\nGreedy from there: {r['continuation']}")
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
            raise UserError(f"{which.strip()[:30]!r} is not a piece of the shown sentence; its pieces are: "
                            + ", ".join(f"{i}: {p.replace('▁', '')}" for i, p in enumerate(pieces))[:300])
    return int(number(which, "Source piece", 0, len(pieces) - 1, integer=True))


def edit_source(req: Request, position: Any, replacement: Any = None):
    """-> (text, probability figure, attention figure): mask or replace one source piece and decode again."""
    tr, a = _shown(req)
    pos = piece_position(a.src_tokens[:-1], position)
    new = optional_text(replacement, "Replacement")
    r = _user(lambda: tr.edit_source(req.text, pos, new))
    piece = readable(a.src_tokens[pos])
    what = f"“{piece}” masked" if new is None else f"“{piece}” → “{new}”"
    text = (f"Original: {r['translation']}\nEdited ({what}): {r['edited_translation']}\n"
            + ("(identical)" if r["translation"] == r["edited_translation"] else "(changed)") + " "
            + effect_summary(r["out_tokens"], r["p_original"], r["p_edited"], "original → edited source"))
    last = tr.cfg.n_decoder_layers - 1
    sides = [(r["cross"][last], r["tgt_tokens"], r["src_tokens"], req.text),
             (r["edited_cross"][last], r["tgt_tokens"], r["edited_tokens"], f"edited: {what}")]
    return (text, edit_effect(r["out_tokens"], r["p_original"], r["p_edited"], f"edited: {what}"),
            side_by_side(*sides, "cross", last, "mean of heads, on the original translation", a.languages))
