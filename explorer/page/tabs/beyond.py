"""Beyond attention: attribution (long work), activation patching (long work) and what-if edits (force a German
beginning, change one English word), each on a button, each reading the shown analysis's request."""

from __future__ import annotations

import gradio as gr

from explorer.api.beyond import METHOD_NAMES, suggested_corruption
from explorer.page import texts, ui
from explorer.page.tabs.common import LONG_WORK, MODEL_WORK, PRIVATE, Page, opened, tab_intro
from explorer.serving import limits
from i18n import choices, label


def build(p: Page, first_text: str) -> None:
    with gr.Tab(label("page.beyond.tab"), id="beyond") as tab:
        tab_intro("beyond", texts.BEYOND)
        with gr.Accordion(label("page.beyond.attr_box"), open=True, elem_id="attr-box"):
            with gr.Row():
                # the methods' values are their English names (beyond.METHOD_LABELS, links), shown in the page's
                p.at_method = gr.Radio(choices([(f"page.method.{key}", name) for key, name in METHOD_NAMES.items()]),
                                       value=METHOD_NAMES["integrated_gradients"], label=label("page.beyond.method"),
                                       elem_id="attr-method")
                p.at_steps = gr.Slider(8, 128, value=32, step=8, label=label("page.beyond.steps"))
                p.at_layer = gr.Slider(0, p.last, value=p.last, step=1, label=label("page.beyond.attr_layer"))
            with gr.Row():
                p.at_target = gr.Textbox(label=label("page.beyond.target"), elem_id="attr-target",
                                         max_length=limits.MAX_CHARS,
                                         placeholder=label("page.beyond.target.placeholder"))
                p.at_contrast = gr.Textbox(label=label("page.beyond.contrast"), elem_id="attr-contrast",
                                           max_length=limits.MAX_CHARS,
                                           placeholder=label("page.beyond.contrast.placeholder"))
            run_attr = gr.Button(label("page.beyond.attribute"), elem_id="run-attribute")
            p.attr_text = gr.Textbox(label=label("page.beyond.agreement"), lines=3, interactive=False,
                                     elem_id="attr-text")
            p.attr_plot = gr.Plot(label=label("page.beyond.attr_plot"), elem_id="attr-plot")
        with gr.Accordion(label("page.beyond.patch_box"), open=False, elem_id="patch-box"):
            with gr.Row():
                p.corrupt = gr.Textbox(suggested_corruption(first_text, p.model_name),
                                       label=label("page.beyond.corrupt"),
                                       max_length=limits.MAX_CHARS, elem_id="corrupt", scale=4)
                p.patch_pos = gr.Number(-1, precision=0, label=label("page.beyond.patch_pos"))
            run_patch = gr.Button(label("page.beyond.patch"), elem_id="run-patch")
            p.patch_text = gr.Textbox(label=label("page.beyond.patch_text"), lines=3, interactive=False,
                                      elem_id="patch-text")
            p.patch_plot = gr.Plot(label=label("page.beyond.patch_plot"), elem_id="patch-plot")
        with gr.Accordion(label("page.beyond.whatif_box"), open=False, elem_id="whatif-box"):
            with gr.Row():
                p.prefix = gr.Textbox(label=label("page.beyond.prefix"), elem_id="prefix",
                                      max_length=limits.MAX_CHARS, placeholder=label("page.beyond.prefix.placeholder"),
                                      scale=4)
                run_prefix = gr.Button(label("page.beyond.run_prefix"), elem_id="run-prefix", scale=1)
            p.prefix_text = gr.Textbox(label=label("page.beyond.next"), lines=3, interactive=False,
                                       elem_id="prefix-text")
            with gr.Row():
                p.prefix_bars = gr.Plot(label=label("page.beyond.next_bars"), elem_id="prefix-bars")
                p.prefix_att = gr.Plot(label=label("page.beyond.next_att"), elem_id="prefix-attention")
            with gr.Row():
                p.edit_piece = gr.Textbox(label=label("page.beyond.edit_piece"), elem_id="edit-piece",
                                          max_length=limits.MAX_CHARS,
                                          placeholder=label("page.beyond.edit_piece.placeholder"))
                p.edit_new = gr.Textbox(label=label("page.beyond.edit_new"), elem_id="edit-new",
                                        max_length=limits.MAX_CHARS,
                                        placeholder=label("page.beyond.edit_new.placeholder"))
                run_edit = gr.Button(label("page.beyond.run_edit"), elem_id="run-edit")
            p.edit_text = gr.Textbox(label=label("page.translations"), lines=3, interactive=False,
                                     elem_id="edit-text")
            p.edit_bars = gr.Plot(label=label("page.beyond.edit_bars"), elem_id="edit-bars")
            p.edit_att = gr.Plot(label=label("page.beyond.edit_att"), elem_id="edit-attention")
    opened(tab, "beyond", p)

    run_attr.click(ui.attribute, [p.shown, p.at_method, p.at_target, p.at_contrast, p.at_steps, p.at_layer],
                   [p.attr_text, p.attr_plot], **LONG_WORK, **PRIVATE)
    run_patch.click(ui.patch, [p.shown, p.corrupt, p.patch_pos], [p.patch_text, p.patch_plot], **LONG_WORK, **PRIVATE)
    gr.on([run_prefix.click, p.prefix.submit], ui.next_token, [p.shown, p.prefix],
          [p.prefix_text, p.prefix_bars, p.prefix_att], **MODEL_WORK, **PRIVATE)
    run_edit.click(ui.edit_source, [p.shown, p.edit_piece, p.edit_new], [p.edit_text, p.edit_bars, p.edit_att],
                   **MODEL_WORK, **PRIVATE)
