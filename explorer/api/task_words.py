"""A model's task card in the reader's language: what it translates from and into, what to type, what it was trained
on (config.json's "task", model/task.py).

A checkpoint's task card is English data, and the checkpoints are not edited: the shipped models' texts have
catalogue keys ``server.task.<model>.<field>`` (i18n). A key is used only while its English text is still
the checkpoint's own, so a retrained model whose card says something new shows its own English rather than a stale
translation; a model without keys shows its own text.
"""

from __future__ import annotations

from explorer.serving.request import translator
from i18n import CATALOGUES, DEFAULT, from_english, t

FIELDS = ("source", "target", "input", "hint")


def task_key(model: str, field: str, text: str) -> str | None:
    """The catalogue key of this model's ``field`` when its English is ``text``; None when there is none."""
    key = f"server.task.{model}.{field}"
    return key if text and CATALOGUES[DEFAULT].get(key) == text else None


def task_text(model: str, field: str, text: str) -> str:
    """``text`` (the checkpoint's own, English) in the reader's language where the catalogue has it."""
    key = task_key(model, field, text)
    return t(key) if key else text


def by_text(field: str, text: str) -> str:
    """The same for a text whose model is not at hand (an Analysis carries its task's hint, not the model's name)."""
    return from_english(text, "server.task.", f".{field}")


def credit_text(corpus: str, text: str) -> str:
    """A training corpus's credit line (metrics.json, English) in the reader's language, where the catalogue has
    this very text (``server.credit.<corpus>``)."""
    key = f"server.credit.{corpus}"
    return t(key) if text and CATALOGUES[DEFAULT].get(key) == text else text


def task_keys(model: str) -> dict[str, str | None]:
    """Each field's catalogue key (None where the model has none): for the page, which translates them itself."""
    task = translator(model).task
    return {field: task_key(model, field, getattr(task, field)) for field in FIELDS}


def languages(model: str) -> tuple[str, str]:
    """(source, target) as the figures name them: ("English", "German") / ("Englisch", "Deutsch")."""
    task = translator(model).task
    return task_text(model, "source", task.source), task_text(model, "target", task.target)
