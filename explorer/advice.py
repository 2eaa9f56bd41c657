"""What a learner should be told about a translation before trusting it: a repetition loop, low confidence.

The model has only seen short image captions (Multi30k). Outside that world it still writes fluent-looking German,
so the page says when the model itself was unsure (a low mean log-probability of its own output tokens) and when
the output repeats itself (model/loops.py), with what to try.
"""

from __future__ import annotations

import html
import math

from model.loops import find_loop
from model.translator import Analysis
from viz.tokens import readable

# Mean log-probability of the chosen output tokens (EOS included) below which the page warns: 4.1% of the
# en-de model's greedy translations of Multi30k val fall below it (percentiles: 1% -1.29, 2% -1.10, 3% -1.06,
# 5% -0.97, median -0.35); "My grandmother bought a new computer yesterday." scores -1.008 (only just below),
# "The stock market fell sharply after the announcement." -1.53. (The previous en-de, less regularised, was
# surer of itself: -1.2 there flagged 2.9% of val.)
LOW_CONFIDENCE = -1.0


def token_probs(a: Analysis) -> list[float]:
    """The probability the decoder gave each output token (and EOS) when it chose it."""
    return [s.chosen_prob for s in a.trace.steps][: len(a.out_tokens)]


def mean_logprob(a: Analysis) -> float | None:
    probs = token_probs(a)
    return sum(math.log(max(p, 1e-12)) for p in probs) / len(probs) if probs else None


def advice(a: Analysis) -> list[str]:
    """Plain-language warnings about this translation (empty when there is nothing to say)."""
    out = []
    loop = find_loop(a.out_ids[:-1])
    if loop is not None:
        unit = "".join(a.out_tokens[loop.start : loop.start + loop.period]).replace("▁", " ").strip()
        out.append(f"The translation repeats “{unit}” {loop.repeats} times in a row: a repetition loop, a known "
                   "failure of this small model on rare or long words. Try beam search (Decoding options), or the "
                   "API's no_repeat_ngram_size=2 / repetition_penalty=1.5, or rephrase the word.")
    m = mean_logprob(a)
    if m is not None and m < LOW_CONFIDENCE:
        out.append(f"The model is unsure of this translation (its words have a mean probability of about "
                   f"{math.exp(m):.2f}; for the image captions it was trained on it is usually above 0.6). It has "
                   "only seen short descriptions of photos — people, animals, streets, sports — so a sentence from "
                   "elsewhere can come out as confident-looking nonsense.")
    return out


def confidence_chips(a: Analysis) -> str:
    """The output pieces, each shaded by the probability it was chosen with (hover: the number)."""
    chips = []
    for tok, p in zip(a.out_tokens, token_probs(a) + [None] * len(a.out_tokens)):
        if p is None:
            shade, title = "#eeeeee", "not decoded"
        else:
            # green (sure) to orange (unsure); text stays dark on both
            shade = "#c8ecd2" if p >= 0.7 else "#fbe3b5" if p >= 0.3 else "#f7c4b0"
            title = f"p = {p:.2f} when chosen"
        chips.append(f'<span title="{title}" style="background:{shade};border-radius:4px;padding:1px 5px;margin:1px;'
                     f'display:inline-block;font-family:monospace">{html.escape(readable(tok))}'
                     f'<sub style="font-size:10px;color:#555;margin-left:2px">{"" if p is None else f"{p:.2f}"}'
                     "</sub></span>")
    return " ".join(chips)
