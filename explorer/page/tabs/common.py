"""What every tab module shares: the page object the tabs put their components on, the event groups (queues) work
runs in, and the two small layout pieces every tab uses."""

from __future__ import annotations

import re
from types import SimpleNamespace

import gradio as gr

from explorer.api.handlers import KIND_LABELS
from explorer.page import texts
from explorer.serving import limits
from explorer.serving.fair_queue import LONG
from i18n import choices, rendered, t

# one limit for all model work (beam search, ablation, exports, what-if, the public API's model endpoints)
MODEL_WORK = dict(concurrency_id="model", concurrency_limit=limits.MODEL_SLOTS)
# the page's Translate: more at once, so that the decodes of a class clicking together wait together and run as
# one batch (explorer/serving/batcher.py); the model work inside still passes the one gate (explorer/serving/store.py)
TRANSLATE_WORK = dict(concurrency_id="translate", concurrency_limit=limits.TRANSLATE_SLOTS)
# long work (attribution, patching, attention through training): its own group, a few per client, dropped when
# nobody listens (explorer/serving/fair_queue.py), and its model work yields to short work between chunks
# (explorer/serving/store.py)
LONG_WORK = dict(concurrency_id=LONG, concurrency_limit=limits.LONG_SLOTS)
# views that only redraw from a stored analysis: one at a time, after any running translation (explorer/serving/priority.py)
VIEW_WORK = dict(concurrency_id="views", concurrency_limit=1)
PRIVATE = dict(api_visibility="private")


class Page(SimpleNamespace):
    """The page's components by name (``p.text``, ``p.heatmap``, ...): the top of the page's, then each tab's, as
    its module adds them; and what the tabs are sized by (``last``: the last decoder layer, ``heads``: the head
    choices, ``tr``: the default model's translator)."""


def folded(intro: str, details: str) -> str:
    """A tab's first line, and its longer text folded under "More" (in the language being spoken)."""
    summary = re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", intro)  # a <summary> holds no Markdown
    return f'<details class="ae-more"><summary>{summary} <u>{t(texts.MORE)}</u></summary>\n\n{details}\n\n</details>'


def tab_intro(tab: str, details: str) -> gr.Markdown:
    """A tab's first line in plain words, and its longer text (formula, what to try) folded under "More", in the
    page's language (``details``: the longer text's catalogue key)."""
    text = rendered(f"page.{tab}.folded", lambda: folded(t(texts.TAB_INTROS[tab]), t(details)))
    return gr.Markdown(text, elem_classes=["ae-intro"])


def kind_choices() -> list:
    """The attention types: shown in the page's language, the value the English name the code and links use."""
    return choices([(f"page.kind.{code}", name) for name, code in KIND_LABELS.items()])


def opened(tab: gr.Tab, name: str, p: Page) -> None:
    """Selecting the tab tells views.js which view is open (a lazy part asks the server once per analysis)."""
    tab.select(None, p.shown, None, js=f"(s) => {{ AE.openTab({name!r}, s); }}", **PRIVATE)
