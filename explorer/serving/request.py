"""One typed request across the seam: what to translate, with which model and decoding options.

The only home of the defaults and of input validation. The app's events, the API endpoints, the
tests and the benchmarks all build a Request with ``Request.parse(...)``; a bad value raises
UserError with a message that names the field.
"""

from __future__ import annotations

import json
import math
import unicodedata
from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from explorer.serving import limits
from i18n import t
from model.checkpoint import CheckpointError
from model.translator import DecodeOptions, Translator, available, load_pretrained


class UserError(ValueError):
    """A problem with what the user asked for; the message is shown to them as it is (so it is made in their
    language, i18n.t)."""


def default_model() -> str:
    names = available()
    return "en-de" if "en-de" in names else (names or ["en-de"])[0]


@dataclass(frozen=True)
class Request:
    """Hashable, immutable: the key of one analysis. Field defaults are the documented API defaults."""

    text: str
    model: str = "en-de"
    method: str = "greedy"  # greedy | beam | sample
    beam_size: int = 4
    length_penalty: float = 0.6  # GNMT alpha, beam only
    temperature: float = 1.0  # sampling only
    top_k: int = 0  # sampling only; 0 = off
    top_p: float = 1.0  # sampling only
    seed: int = 0  # sampling only
    max_len: int = 60  # output tokens
    ablated: tuple[tuple[str, int], ...] = ()  # (attention block path, head) switched off
    no_repeat_ngram_size: int = 0  # departures from the paper's decoding, off by default (model/decoding.py)
    repetition_penalty: float = 1.0

    # -- construction -------------------------------------------------------------------
    @classmethod
    def parse(cls, text: Any, model: Any = None, method: Any = "greedy", beam_size: Any = 4,
              length_penalty: Any = 0.6, temperature: Any = 1.0, top_k: Any = 0, top_p: Any = 1.0, seed: Any = 0,
              max_len: Any = 60, ablated: Any = (), no_repeat_ngram_size: Any = 0,
              repetition_penalty: Any = 1.0) -> Request:
        """Validate raw values (from a browser, an HTTP client or Python) into a Request."""
        name = default_model() if model in (None, "") else model
        tr = translator(name)
        text = clean_text(text)
        method = str(method).strip().lower() if method is not None else "greedy"
        if method not in ("greedy", "beam", "sample"):
            raise UserError(t("server.error.method", got=repr(str(method)[:20])))
        n_tokens = len(tr.tokenizer.encode(" ".join(text.split())))
        if n_tokens + 1 > limits.MAX_SOURCE_TOKENS:
            raise UserError(t("server.error.too_many_tokens", n=n_tokens, limit=limits.MAX_SOURCE_TOKENS - 1))
        return cls(
            text=text, model=name, method=method,
            beam_size=number(beam_size, t("server.field.beam_size"), 1, limits.MAX_BEAM, integer=True),
            length_penalty=number(length_penalty, t("server.field.length_penalty"), 0, 2),
            temperature=number(temperature, t("server.field.temperature"), 0, limits.MAX_TEMPERATURE, lo_open=True),
            top_k=number(top_k, "Top-k", 0, limits.MAX_TOP_K, integer=True),
            top_p=number(top_p, "Top-p", 0, 1, lo_open=True),
            seed=number(seed, t("server.field.seed"), 0, 2**31 - 1, integer=True),
            max_len=number(max_len, t("server.field.max_len"), 1, limits.MAX_OUTPUT_TOKENS, integer=True),
            ablated=tuple(sorted((str(b), int(h)) for b, h in (ablated or ()))),
            no_repeat_ngram_size=number(no_repeat_ngram_size, t("server.field.no_repeat"), 0,
                                        limits.MAX_NO_REPEAT_NGRAM, integer=True),
            repetition_penalty=number(repetition_penalty, t("server.field.repetition_penalty"), 1,
                                      limits.MAX_REPETITION_PENALTY),
        )

    @classmethod
    def from_json(cls, text: Any) -> Request:
        """The page holds the request of what it shows as JSON; validated again on the way back in."""
        try:
            raw = json.loads(text)
            if not isinstance(raw, dict):
                raise TypeError
        except (TypeError, ValueError):
            raise UserError(t("server.error.translate_first")) from None
        known = {f.name for f in fields(cls)}
        return cls.parse(**{k: v for k, v in raw.items() if k in known})

    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False, sort_keys=True)

    def replace(self, **changes: Any) -> Request:
        return replace(self, **changes)

    def options(self) -> DecodeOptions:
        return DecodeOptions(self.method, self.beam_size, self.length_penalty, self.temperature, self.top_k,
                             self.top_p, self.seed, self.max_len, repetition_penalty=self.repetition_penalty,
                             no_repeat_ngram_size=self.no_repeat_ngram_size)


# -- field validation ---------------------------------------------------------------------
def clean_text(text: Any) -> str:
    if not isinstance(text, str):
        raise UserError(t("server.error.not_text"))
    if len(text) > limits.MAX_CHARS:
        raise UserError(t("server.error.too_long", limit=limits.MAX_CHARS, n=len(text)))
    bad = [c for c in text if unicodedata.category(c) == "Cs"]
    if bad:
        raise UserError(t("server.error.surrogate", code=f"U+{ord(bad[0]):04X}"))
    # control characters (NUL, bell, tabs, newlines) carry no meaning for the model: each becomes a space, as the page
    # reads them (views.js), so "dog\0runs" is "dog runs" on both sides
    text = "".join(" " if unicodedata.category(c) == "Cc" else c for c in text)
    if not text.strip():
        raise UserError(t("server.error.empty"))
    return text.strip()


def number(value: Any, name: str, lo: float, hi: float, integer: bool = False, lo_open: bool = False) -> Any:
    """A number in [lo, hi] (or (lo, hi]) from whatever arrived; the message names the field (``name``, as the
    reader's language says it)."""
    if isinstance(value, bool) or value is None or isinstance(value, (list, dict)):
        raise UserError(t("server.error.not_a_number", name=name, got=repr(shown(value))))
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise UserError(t("server.error.not_a_number", name=name, got=repr(shown(value)))) from None
    if math.isnan(x) or (x <= lo if lo_open else x < lo) or x > hi:
        bound = t("server.error.greater_than" if lo_open else "server.error.at_least", lo=general(lo))
        raise UserError(t("server.error.out_of_range", name=name, bound=bound, hi=general(hi), got=shown(value)))
    if integer and x != int(x):
        raise UserError(t("server.error.not_whole", name=name, got=shown(value)))
    return int(x) if integer else x


def general(x: float) -> str:
    """A bound as a message writes it (f"{x:g}": 2, 0.5, 2.14748e+09), with the language's decimal mark."""
    return f"{x:g}".replace(".", t("_meta.decimal"))


def shown(value: Any, n: int = 20) -> str:
    """A value as a message quotes it: at most n characters, and "…" where it was cut (a number that long is not
    one the user typed by hand, but they must see that what is quoted is not all of it)."""
    text = str(value)
    return text if len(text) <= n else text[:n] + "…"


def translator(name: Any) -> Translator:
    if not isinstance(name, str) or name not in available():
        raise UserError(t("server.error.unknown_model", name=repr(shown(name, 40)), models=", ".join(available())))
    try:
        tr = load_pretrained(name)
    except CheckpointError as e:
        raise UserError(t("server.error.model_not_loaded", name=repr(name), why=str(e))) from None
    need = max(limits.MAX_SOURCE_TOKENS, limits.MAX_OUTPUT_TOKENS + 1)  # + 1: BOS before the output
    if tr.cfg.max_len < need:
        raise UserError(t("server.error.model_max_len", name=repr(name), max_len=tr.cfg.max_len,
                          source=limits.MAX_SOURCE_TOKENS, output=limits.MAX_OUTPUT_TOKENS))
    return tr
