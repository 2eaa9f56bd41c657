"""What a learner should be told about a translation before trusting it: a repetition loop, low confidence.

A model knows only the kind of text it was trained on (its task card's hint says which). Outside that world it
still writes fluent-looking German, so the page says when the model itself was unsure (a mean log-probability of
its own output tokens below the floor measured for that model on its validation split, model/calibration.py; a
model never calibrated gets no such warning) and when the output repeats itself (model/loops.py), with what to try.
"""

from __future__ import annotations

import html
import math

from model.calibration import mean_logprob as calibrated_mean
from model.loops import find_loop, is_punctuation
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
    """Plain-language warnings about this translation (empty when there is nothing to say)."""
    out = []
    loop = find_loop(a.out_ids[:-1], quiet={i for i, p in zip(a.out_ids, a.out_tokens) if is_punctuation(p)})
    if loop is not None:
        unit = "".join(a.out_tokens[loop.start : loop.start + loop.period]).replace("▁", " ").strip()
        out.append(f"The translation repeats “{unit}” {loop.repeats} times in a row: a repetition loop, a known "
                   "failure of this small model on rare or long words. Try, under Decoding options: beam search, "
                   "\"No-repeat n-gram size\" 2 or \"Repetition penalty\" 1.5; or rephrase the word.")
    cal = a.calibration
    m = mean_logprob(a) if cal is not None and not a.ablated else None  # heads off: not the calibrated model
    if m is not None and m < cal.floor:
        out.append(f"The model is unsure of this translation: it gave its words a probability of about "
                   f"{math.exp(m):.2f} each (geometric mean). On {cal.sentences:,} sentences kept apart from its "
                   f"training data ({cal.split}), {1 - cal.quantile:.0%} get more than "
                   f"{math.exp(cal.floor):.2f} and half more than {math.exp(cal.median):.2f}. "
                   + ("Sampling picks less likely words on purpose: greedy or beam search give the model's surest "
                      "translation." if a.options.method == "sample" else
                      (f"{a.domain.rstrip('.')}. " if a.domain else "")
                      + "Far from that, it can still write fluent German that means something else."))
    return out


# the output chips' shades, surest first: (lowest probability, colour); green (sure) to orange (unsure), text dark
CHIP_SHADES = ((0.7, "#c8ecd2"), (0.3, "#fbe3b5"), (0.0, "#f7c4b0"))


def confidence_chips(a: Analysis) -> str:
    """The output pieces, each shaded by the probability it was chosen with (hover: the number)."""
    chips = []
    for tok, p in zip(a.out_tokens, token_probs(a) + [None] * len(a.out_tokens)):
        if p is None:
            shade, title = "#eeeeee", "not decoded"
        else:
            # green (sure) to orange (unsure); text stays dark on both
            shade = next(colour for floor, colour in CHIP_SHADES if p >= floor)
            title = f"p = {p:.2f} when chosen"
        chips.append(f'<span title="{title}" style="background:{shade};border-radius:4px;padding:1px 5px;margin:1px;'
                     f'display:inline-block;font-family:monospace">{html.escape(readable(tok))}'
                     f'<sub style="font-size:10px;color:#555;margin-left:2px">{"" if p is None else f"{p:.2f}"}'
                     "</sub></span>")
    return " ".join(chips)
