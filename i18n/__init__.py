"""The words a person reads, in their language: one catalogue per language (``en.json``, ``de.json``; adding a
language is adding a file), used by the server (``t``), by Gradio's own labels (``gradio_i18n``) and by the page's
JavaScript (explorer/page/static/i18n.js reads the same catalogues from the page's <head>).

Which language an event speaks: ``speaking(code)`` where the caller knows it (tests, a class room's request),
else the page's choice, which the page keeps in the ``ae_lang`` cookie (i18n.js sets it from the link, the switch or
the browser's language) and which Gradio hands every event in its request; else English.

A template names its values (``"{n} pieces"``); numbers are formatted for the language by ``num`` and ``pct``
(0.93 in English, 0,93 in German) before they go in.

It lives below explorer and viz, which both import it, and imports neither (nor model): the standard library, and
gradio lazily (the event's request, ``I18nData``).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
DEFAULT = "en"
COOKIE = "ae_lang"


def _load() -> dict[str, dict[str, str]]:
    out = {}
    for path in sorted(HERE.glob("*.json")):
        out[path.stem] = json.loads(path.read_text(encoding="utf-8"))
    return out


CATALOGUES: dict[str, dict[str, str]] = _load()
LANGUAGES = (DEFAULT, *sorted(set(CATALOGUES) - {DEFAULT}))  # English first: the fallback of every key
_forced: ContextVar[str | None] = ContextVar("ae_lang", default=None)
# strings made at start-up in every language (the first view, the model card): Gradio's labels pick them by key
RENDERED: dict[str, dict[str, str]] = {code: {} for code in CATALOGUES}
LABELS: set[str] = set()  # the keys components were built with (label, choices): what Gradio's i18n needs


def known(code: Any) -> str | None:
    """A language code we have a catalogue for ("de-AT" -> "de"), or None."""
    if not isinstance(code, str):
        return None
    code = code.strip().lower()[:2]
    return code if code in CATALOGUES else None


def from_accept(header: str | None) -> str | None:
    """The first language of an Accept-Language header we have a catalogue for."""
    for part in (header or "").split(","):
        code = known(part.split(";")[0])
        if code:
            return code
    return None


def lang() -> str:
    """The language of the text being made now."""
    forced = _forced.get()
    if forced:
        return forced
    try:
        from gradio.context import LocalContext
        request = LocalContext.request.get(None)
    except (ImportError, LookupError):
        request = None
    if request is not None:
        cookies = getattr(request, "cookies", None) or {}
        return known(cookies.get(COOKIE)) or from_accept(request.headers.get("accept-language")) or DEFAULT
    return DEFAULT


@contextlib.contextmanager
def speaking(code: str | None) -> Iterator[str]:
    """Make text in this language inside the block (an unknown code: English)."""
    token = _forced.set(known(code) or DEFAULT)
    try:
        yield _forced.get()
    finally:
        _forced.reset(token)


def t(key: str, **values: Any) -> str:
    """The text of ``key`` in the current language, its ``{names}`` filled in (a key missing from a language falls
    back to English; a key missing from English is a bug and raises KeyError)."""
    template = CATALOGUES[lang()].get(key)
    if template is None:
        template = CATALOGUES[DEFAULT][key]
    return template.format(**values) if values else template


def from_english(text: str, prefix: str, suffix: str = "") -> str:
    """Words the code or a checkpoint holds in English (a task's words, an ablation preset), in the current language:
    the entry whose key starts with ``prefix`` (and ends with ``suffix``) and whose English is ``text`` (a
    template's ``{name}`` stands for a number); other words stay as they are (a model of one's own speaks its
    config's words)."""
    import re

    for key, english in CATALOGUES[DEFAULT].items():
        if not text or not key.startswith(prefix) or not key.endswith(suffix):
            continue
        if english == text:
            return t(key)
        if "{" in english:
            found = re.fullmatch(re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>\\d+)", re.escape(english)), text)
            if found:
                return t(key, **found.groupdict())
    return text


def num(x: float, digits: int = 2) -> str:
    """A number as the language writes it: 0.93 / 0,93; thousands 1,234 / 1.234."""
    text = f"{x:,.{digits}f}"
    if t("_meta.decimal") == ",":
        text = text.replace(",", "\u0000").replace(".", ",").replace("\u0000", ".")
    return text


def pct(x: float, digits: int = 0) -> str:
    """A share as a percentage: 34% / 34 %."""
    return t("_meta.percent", n=num(100 * x, digits))


def rendered(key: str, make: Callable[[], str]) -> Any:
    """A value made at start-up (a first view, a model card) in every language, as a Gradio i18n key: the page
    shows the one of its language. ``make`` is called once per language, inside ``speaking``."""
    from gradio.i18n import I18nData

    for code in CATALOGUES:
        with speaking(code):
            RENDERED[code][key] = make()
    return I18nData(key)


def gradio_i18n():
    """Gradio's i18n: the keys components were built with (``label``, ``choices``) and the values made at start-up
    (``rendered``); the page's scripts get every key from the page's <head> (``page_catalogues``), so the rest would
    only weigh on every page load twice."""
    import gradio as gr

    return gr.I18n(**{code: {**{k: CATALOGUES[code].get(k, CATALOGUES[DEFAULT][k]) for k in sorted(LABELS)},
                             **RENDERED[code]} for code in CATALOGUES})


def page_catalogues() -> dict[str, dict[str, str]]:
    """What the page's JavaScript reads (window.AE_I18N): every language's catalogue, English filled in for keys a
    language lacks (the parity test keeps that list empty)."""
    return {code: {**CATALOGUES[DEFAULT], **CATALOGUES[code]} for code in CATALOGUES}


def label(key: str) -> Any:
    """A component's label, info, placeholder, button or tab text, Markdown or HTML made at build time, as a Gradio
    i18n key: the page shows it in its own language (the key must be in the catalogues)."""
    from gradio.i18n import I18nData

    CATALOGUES[DEFAULT][key]  # a key missing from English fails at start-up, not as a raw key on the page
    LABELS.add(key)
    return I18nData(key)


def choices(pairs: list[tuple[str, str]]) -> list[tuple[Any, str]]:
    """Radio / Dropdown choices: (catalogue key of what is shown, the value the code and links use, which stays the
    same in every language)."""
    return [(label(key), value) for key, value in pairs]
