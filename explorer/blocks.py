"""gr.Blocks with two guarantees for every endpoint, public or not:

- arguments left out of a call (a raw HTTP call with only the sentence) take their defaults: the
  documented default of a gr.api parameter, or the initial value of a UI component;
- a value a component cannot take (a word where a slider expects a number) is answered with a
  message naming the field, not with ``{"error": null}`` and a logged traceback.
"""

from __future__ import annotations

from typing import Any

import gradio as gr


def _label(block: Any, i: int) -> str:
    label = getattr(block, "label", None)
    if label and label != "API":
        return str(label)
    info = getattr(block, "_api_info", None) or {}
    return str(info.get("title") or f"argument {i + 1}")


class ExplorerBlocks(gr.Blocks):
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
