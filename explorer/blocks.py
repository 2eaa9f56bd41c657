"""gr.Blocks with two guarantees for every endpoint, public or not, and lean sessions:

- arguments left out of a call (a raw HTTP call with only the sentence) take their defaults: the
  documented default of a gr.api parameter, or the initial value of a UI component;
- a value a component cannot take (a word where a slider expects a number) is answered with a
  message naming the field, not with ``{"error": null}`` and a logged traceback;
- a new session does not copy every component's config (see LeanSessionState).
"""

from __future__ import annotations

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
        except gr.Error:
            raise
        except Exception as err:  # find the input that failed and name it
            for i, (block, value) in enumerate(zip(block_fn.inputs, inputs)):
                try:
                    if block_fn.preprocess and hasattr(block, "preprocess"):
                        block.preprocess(value)
                except Exception as e:
                    raise gr.Error(f"{_label(block, i)}: {str(value)[:30]!r} is not a valid value ({e}).",
                                   print_exception=False) from None
            raise gr.Error(f"The request's arguments could not be read ({type(err).__name__}).",
                           print_exception=False) from None
