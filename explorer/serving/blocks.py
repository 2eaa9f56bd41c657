"""gr.Blocks with two guarantees for every endpoint, public or not, and lean sessions:

- arguments left out of a call (a raw HTTP call with only the sentence) take their defaults: the
  documented default of a gr.api parameter, or the initial value of a UI component;
- a value a component cannot take (a word where a slider expects a number) is answered with a
  message naming the field, not with ``{"error": null}`` and a logged traceback;
- a new session does not copy every component's config (see LeanSessionState).
"""

from __future__ import annotations

import html
import os
from copy import copy
from typing import Any

import gradio as gr
from gradio.state_holder import SessionState, StateHolder


class LeanSessionState(SessionState):
    """Gradio's per-session state without ``config_values``, its per-session copy of every component's config.

    That copy serves only gr.DeepLinkButton, which this app does not have. Building it runs get_config() on each
    of the page's ~280 blocks for every new session (~90 ms of CPU: a class of 60 pays it 60 times, and every plain
    HTTP call is a new session), and every event then writes its output values into it, so each session pinned
    the page's copy of the analysis and its figures. Component updates (a slider's new maximum) still go to the
    session's own blocks, as in Gradio. Written against gradio 6.31 (pinned in requirements.txt); the tests drive
    the whole app through it.
    """

    def __init__(self, blocks: gr.Blocks):  # SessionState.__init__ without the config copy
        self.blocks_config = copy(blocks.default_config)
        self.config_values: dict[int, Any] = {}
        self.state_data: dict[int, Any] = {}
        self._state_ttl = {}
        self.is_closed = False
        self.STATE_TTL_WHEN_CLOSED = 1 if os.getenv("GRADIO_IS_E2E_TEST", None) else 3600

    def __setitem__(self, key: int, value: Any) -> None:
        if isinstance(self.blocks_config.blocks.get(key), gr.State):
            super().__setitem__(key, value)  # this app has no gr.State; kept exact for one that does
        else:
            self.blocks_config.blocks[key] = value  # a component update, for this session only

    def _update_config(self, key: int) -> None:
        pass

    def _update_value_in_config(self, key: int, value: Any) -> None:
        pass


class LeanStateHolder(StateHolder):
    def __getitem__(self, session_id: str) -> SessionState:
        with self.lock:
            if session_id not in self.session_data:
                self.session_data[session_id] = LeanSessionState(self.blocks)
        return super().__getitem__(session_id)


def _label(block: Any, i: int) -> str:
    label = getattr(block, "label", None)
    if label and label != "API":
        return str(label)
    info = getattr(block, "_api_info", None) or {}
    return str(info.get("title") or f"argument {i + 1}")


def _expected(block: Any) -> str:
    """What a component takes, in words (a slider's range, a menu's choices), for a message about a value it refused."""
    choices = getattr(block, "choices", None)
    if choices:
        names = [str(c[1] if isinstance(c, (tuple, list)) else c) for c in choices]
        return "one of: " + ", ".join(names[:12]) + (", …" if len(names) > 12 else "")
    lo, hi = getattr(block, "minimum", None), getattr(block, "maximum", None)
    if lo is not None and hi is not None:
        return f"a number from {lo:g} to {hi:g}"
    return "a value of its kind"


def refused(block: Any, i: int, value: Any) -> gr.Error:
    """A value a component would not take -> one short message that names the field and what it takes; escaped (a
    toast renders HTML, and the value came from a request) and not logged with a traceback (it is the caller's
    error, not ours)."""
    text = str(value)
    quoted = repr(text[:30] + ("…" if len(text) > 30 else ""))
    return gr.Error(html.escape(f"{_label(block, i)}: {quoted} is not a valid value; it takes {_expected(block)}.",
                                quote=False), print_exception=False)


class ExplorerBlocks(gr.Blocks):
    @property
    def state_holder(self) -> StateHolder:
        return self._state_holder

    @state_holder.setter
    def state_holder(self, holder: StateHolder) -> None:
        # Gradio's App creates a StateHolder and hands it to the Blocks here (StateHolder.set_blocks); the same
        # object serves the routes, so giving it the lean class makes every session of this app lean
        if type(holder) is StateHolder:
            holder.__class__ = LeanStateHolder
        self._state_holder = holder

    def validate_inputs(self, block_fn, inputs: list[Any]) -> None:
        missing = block_fn.inputs[len(inputs):]
        for block in missing:
            value = getattr(block, "value", None)
            inputs.append(value() if callable(value) else value)
        super().validate_inputs(block_fn, inputs)

    async def preprocess_data(self, block_fn, inputs, state, explicit_call: bool = False):
        try:
            return await super().preprocess_data(block_fn, inputs, state, explicit_call)
        except Exception as err:  # find the input that failed and name it (Gradio's own message quotes the value
            # unescaped, "Value: <a href=...> is not in the list of choices", and a toast renders it as markup)
            for i, (block, value) in enumerate(zip(block_fn.inputs, inputs)):
                try:
                    if block_fn.preprocess and hasattr(block, "preprocess"):
                        block.preprocess(value)
                except Exception:
                    raise refused(block, i, value) from None
            if isinstance(err, gr.Error):
                raise gr.Error(html.escape(str(err.message), quote=False), print_exception=False) from None
            raise gr.Error(f"The request's arguments could not be read ({type(err).__name__}).",
                           print_exception=False) from None
