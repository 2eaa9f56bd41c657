"""Beyond attention: attribution (long work), activation patching (long work) and what-if edits (force a German
beginning, change one English word), each on a button, each reading the shown analysis's request."""

from __future__ import annotations

import gradio as gr

from explorer.api.beyond import METHOD_NAMES, suggested_corruption
from explorer.page import texts, ui
from explorer.page.tabs.common import LONG_WORK, MODEL_WORK, PRIVATE, Page, opened, tab_intro
from explorer.serving import limits


def build(p: Page, first_text: str) -> None:
    with gr.Tab("Beyond attention", id="beyond") as tab:
        tab_intro("beyond", texts.BEYOND)
        with gr.Accordion("Attribution: what each output token depends on", open=True, elem_id="attr-box"):
            with gr.Row():
                p.at_method = gr.Radio(list(METHOD_NAMES.values()), value=METHOD_NAMES["integrated_gradients"],
                                       label="Method", elem_id="attr-method")
                p.at_steps = gr.Slider(8, 128, value=32, step=8, label="Integrated gradients: steps")
                p.at_layer = gr.Slider(0, p.last, value=p.last, step=1, label="Cross-attention layer to compare")
            with gr.Row():
                p.at_target = gr.Textbox(label="Force a German translation (optional)", elem_id="attr-target",
                                         max_length=limits.MAX_CHARS, placeholder="empty: the translation shown")
                p.at_contrast = gr.Textbox(label="Contrast: why this, not … (optional)", elem_id="attr-contrast",
                                           max_length=limits.MAX_CHARS, placeholder="e.g. Katze")
            run_attr = gr.Button("Attribute", elem_id="run-attribute")
            p.attr_text = gr.Textbox(label="Agreement", lines=3, interactive=False, elem_id="attr-text")
            p.attr_plot = gr.Plot(label="Attribution beside cross-attention", elem_id="attr-plot")
        with gr.Accordion("Activation patching: which heads carry the difference", open=False, elem_id="patch-box"):
            with gr.Row():
                p.corrupt = gr.Textbox(suggested_corruption(first_text, p.model_name),
                                       label="Corrupted sentence (same number of pieces)",
                                       max_length=limits.MAX_CHARS, elem_id="corrupt", scale=4)
                p.patch_pos = gr.Number(-1, precision=0, label="Output position (-1: first that differs)")
            run_patch = gr.Button("Patch each head", elem_id="run-patch")
            p.patch_text = gr.Textbox(label="What was measured", lines=3, interactive=False, elem_id="patch-text")
            p.patch_plot = gr.Plot(label="Patching effects", elem_id="patch-plot")
        with gr.Accordion("What-if: force a German beginning, or change one English word", open=False,
                          elem_id="whatif-box"):
            with gr.Row():
                p.prefix = gr.Textbox(label="German prefix to force", elem_id="prefix",
                                      max_length=limits.MAX_CHARS, placeholder="e.g. Eine Katze", scale=4)
                run_prefix = gr.Button("Force this prefix", elem_id="run-prefix", scale=1)
            p.prefix_text = gr.Textbox(label="Next token", lines=3, interactive=False, elem_id="prefix-text")
            with gr.Row():
                p.prefix_bars = gr.Plot(label="Next-token distribution", elem_id="prefix-bars")
                p.prefix_att = gr.Plot(label="Where each head looks next", elem_id="prefix-attention")
            with gr.Row():
                p.edit_piece = gr.Textbox(label="English word (or piece number) to change", elem_id="edit-piece",
                                          max_length=limits.MAX_CHARS, placeholder="e.g. dog")
                p.edit_new = gr.Textbox(label="Replace it with (empty: mask it)", elem_id="edit-new",
                                        max_length=limits.MAX_CHARS, placeholder="e.g. cat")
                run_edit = gr.Button("Edit and translate again", elem_id="run-edit")
            p.edit_text = gr.Textbox(label="Translations", lines=3, interactive=False, elem_id="edit-text")
            p.edit_bars = gr.Plot(label="Each original token's probability", elem_id="edit-bars")
            p.edit_att = gr.Plot(label="Cross-attention, original vs edited", elem_id="edit-attention")
    opened(tab, "beyond", p)

    run_attr.click(ui.attribute, [p.shown, p.at_method, p.at_target, p.at_contrast, p.at_steps, p.at_layer],
                   [p.attr_text, p.attr_plot], **LONG_WORK, **PRIVATE)
    run_patch.click(ui.patch, [p.shown, p.corrupt, p.patch_pos], [p.patch_text, p.patch_plot], **LONG_WORK, **PRIVATE)
    gr.on([run_prefix.click, p.prefix.submit], ui.next_token, [p.shown, p.prefix],
          [p.prefix_text, p.prefix_bars, p.prefix_att], **MODEL_WORK, **PRIVATE)
    run_edit.click(ui.edit_source, [p.shown, p.edit_piece, p.edit_new], [p.edit_text, p.edit_bars, p.edit_att],
                   **MODEL_WORK, **PRIVATE)
