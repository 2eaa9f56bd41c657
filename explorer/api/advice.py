"""What a learner should be told about a translation before trusting it: it may be wrong, it repeats itself.

A model knows only the kind of text it was trained on (its task card's hint says which). Outside that world it
still writes fluent-looking German, so the page says when this translation may well be wrong: the model's fitted
quality estimate (model/quality.py: the decoder's own probabilities, what the cross-attention left unread, the
output's length and repetitions, how foreign the source is; fitted on val to find translations whose chrF would be
below 40) flags it, and names the words it was least sure of; or a source word is so unlikely to the reverse model
reading the output that the translation seems to have dropped or changed it, and the page names that word. A
model without a fitted estimate for its weights falls back to the older, rougher check (a mean log-probability
below the floor measured on its val split, model/calibration.py) and says that it is the rough one; a model with
neither says nothing. A repeating output (model/loops.py) is named with what to try. This module is the one place
that decides what the page says.
"""

from __future__ import annotations

import html
import math

from explorer.api.task_words import by_text
from i18n import num, pct, t
from model.calibration import mean_logprob as calibrated_mean
from model.loops import find_loop, is_punctuation
from model.quality import Estimate, estimate, unsure_words, word_spans
from model.tokenizer import UNK
from model.translator import Analysis
from viz.tokens import readable


def token_probs(a: Analysis) -> list[float]:
    """The probability the decoder gave each output token (and EOS) when it chose it."""
    return [s.chosen_prob for s in a.trace.steps][: len(a.out_tokens)]


def mean_logprob(a: Analysis) -> float | None:
    """Mean log-probability the model itself gives the output tokens (EOS included unless the decode hit its length
    limit), from the analysis' teacher-forced pass, whatever the decoding: the measure the calibration takes on
    greedy decodes (model/calibration.py)."""
    return calibrated_mean(a.model_probs()[: len(token_probs(a))])


def advice(a: Analysis) -> list[str]:
    """Plain-language warnings about this translation (empty when there is nothing to say), in the reader's
    language; the first sentence of each is its headline."""
    out = []
    loop = find_loop(a.out_ids[:-1], quiet={i for i, p in zip(a.out_ids, a.out_tokens) if is_punctuation(p)})
    if loop is not None:
        unit = "".join(a.out_tokens[loop.start : loop.start + loop.period]).replace("▁", " ").strip()
        out.append(t("server.advice.loop", unit=t("server.quoted", text=unit), n=loop.repeats,
                     options=t("server.field.decoding_options"), no_repeat=t("server.field.no_repeat"),
                     penalty=t("server.field.repetition_penalty"), value=num(1.5, 1)))
    est = may_be_wrong(a)
    domain = by_text("hint", a.domain)
    why = (t("server.advice.sampling") if a.options.method == "sample"
           else (f"{domain.rstrip('.')}. " if domain else "") + t("server.advice.far"))
    if est is not None:
        if est.flagged:
            def source(words):  # words of the source language, marked so the page can say so (lang="en")
                return quoted(SOURCE[0] + plain(w) + SOURCE[1] for w in words)
            if est.dropped:  # flagged for words it seems to have lost, not by the whole sentence's probability
                parts = [t("server.advice.dropped", words=source(est.dropped))]
            else:
                parts = [t("server.advice.may_be_wrong", p=pct(est.probability))]
            if est.words:
                parts.append(t("server.advice.least_sure", words=quoted(est.words)))
            others = [w for w in est.missing if w not in est.dropped]
            if others:
                parts.append(t("server.advice.missing", words=source(others)))
            # a lost word is this translation's own fault, not the text's kind: no hint about the training data then
            out.append("; ".join(parts) + ". " + ("" if est.dropped else why))
        return out
    cal = a.calibration
    m = mean_logprob(a) if cal is not None and not a.ablated else None  # heads off: not the calibrated model
    if m is not None and m < cal.floor:
        out.append(t("server.advice.unsure", p=num(math.exp(m), 2), n=num(cal.sentences, 0), split=cal.split,
                     share=pct(1 - cal.quantile), floor=num(math.exp(cal.floor), 2),
                     median=num(math.exp(cal.median), 2)) + why)
    return out


# around a source-language word inside a warning: tokens_html escapes the text, then marks these spans with the
# source's lang. Control characters a sentence cannot carry into a word: the tokenizer keeps a typed one as a byte
# piece, shown as its code, and plain() strips them from the words besides
SOURCE = ("\x02", "\x03")


def plain(note: str) -> str:
    """A warning without the source-language marks (for text that is not HTML)."""
    return note.replace(SOURCE[0], "").replace(SOURCE[1], "")


def unsure(a: Analysis) -> list[dict]:
    """Every output word (EOS left out) with a piece chosen below the chips' unsure shade, least sure first, as
    {"word", "p"}: the status line names them even when the sentence is not flagged (a fluent translation can hide
    one guessed word), by the same word rule as the warning (model/quality.py), so the page never splits words itself."""
    pieces = list(a.out_tokens[:-1])  # the last piece is EOS
    # p unrounded (6 places), so that the page shows the chip's own figure
    return [{"word": w, "p": round(p, 6)} for w, p in unsure_words(pieces, token_probs(a), CHIP_SHADES[1][0])]


def quoted(words) -> str:
    return ", ".join(t("server.quoted", text=w) for w in words)


def may_be_wrong(a: Analysis) -> Estimate | None:
    """The fitted quality estimate of this translation (model/quality.py), from the analysis' own pass; None when
    the model has none for its weights, or heads are switched off (not the model it was fitted on). Its named
    words are those the output chips shade as unsure (p < 0.3 when chosen), least sure first. Computed once per
    analysis (the pieces, the chips and the page's copy all ask; dataclasses.replace makes a new one)."""
    if "_may_be_wrong" not in a.__dict__:
        a.__dict__["_may_be_wrong"] = estimate(a, UNK, token_probs(a))
    return a.__dict__["_may_be_wrong"]


# the output chips' shades, surest first: (lowest probability, colour); green (sure) to orange (unsure), text dark
CHIP_SHADES = ((0.7, "#c8ecd2"), (0.3, "#fbe3b5"), (0.0, "#f7c4b0"))
# ... told apart by more than shade (under deuteranopia the three became near-identical beiges, issue 49): a line
# under each chip, none for sure, dotted in between, dashed for unsure
CHIP_MARKS = ("border-bottom:2px solid transparent", "border-bottom:2px dotted #6b4e16", "border-bottom:2px dashed #8f2d0d")


def band(p: float) -> int:
    """0 sure, 1 in between, 2 unsure (CHIP_SHADES's floors)."""
    return next(i for i, (floor, _) in enumerate(CHIP_SHADES) if p >= floor)


def confidence_chips(a: Analysis, lang: str = "") -> str:
    """The output pieces, each shaded by the probability it was chosen with (hover: the number); when the
    translation is flagged as maybe wrong, the pieces of the words it names are outlined too. ``lang``: the
    attribute each chip carries (' lang="de"'), the pieces being words of the target language."""
    est = may_be_wrong(a)
    named: set[int] = set()
    if est is not None and est.flagged:
        spans = word_spans(list(a.out_tokens[:-1]))
        named = {i for k in est.word_indices for i in range(*spans[k])}
    chips = []
    for i, (tok, p) in enumerate(zip(a.out_tokens, token_probs(a) + [None] * len(a.out_tokens))):
        if p is None:
            shade, mark, title = "#eeeeee", CHIP_MARKS[0], t("server.chip.not_decoded")
        else:
            # green (sure) to orange (unsure); text stays dark on both
            shade, mark = CHIP_SHADES[band(p)][1], CHIP_MARKS[band(p)]
            title = t("server.chip.title", p=num(p, 2)) + (t("server.chip.may_be_wrong") if i in named else "")
        outline = "outline:2px solid #b42318;" if i in named else ""
        chips.append(f'<span{lang} title="{html.escape(title)}" style="background:{shade};{mark};{outline}border-radius:4px;'
                     f'padding:1px 5px;margin:1px;display:inline-block;font-family:monospace">'
                     f'{html.escape(readable(tok))}<sub style="font-size:0.625rem;color:#555;margin-left:2px">'
                     f'{"" if p is None else num(p, 2)}</sub></span>')
    return " ".join(chips)
