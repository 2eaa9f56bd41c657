"""Model: the model card (configuration, BLEU with its signature), training curves, the learning-rate schedule,
and attention through training (every kept snapshot on the shown sentence: long work, on a button)."""

from __future__ import annotations

import gradio as gr

from explorer.api.handlers import AVERAGE
from explorer.page import texts, ui
from explorer.page.tabs.common import LONG_WORK, PRIVATE, Page, opened, tab_intro


def build(p: Page) -> None:
    card0, curves0, lr0 = ui.model_tab(p.model_name)
    with gr.Tab("Model", id="model") as tab:
        tab_intro("model", texts.MODEL)
        p.card = gr.Markdown(card0)
        p.curves, p.lr_plot = gr.Plot(curves0, label="Training curves"), gr.Plot(lr0, label="Learning rate")
        with gr.Accordion("Attention through training: watch alignment form on the sentence shown", open=True):
            gr.Markdown(texts.THROUGH_TRAINING)
            with gr.Row():
                p.tt_layer = gr.Slider(0, p.last, value=p.last, step=1, label="Cross-attention layer",
                                       elem_id="training-layer")
                p.tt_head = gr.Dropdown(p.heads, value=AVERAGE, label="Head", elem_id="training-head")
                run = gr.Button("Show attention through training", elem_id="run-training")
            p.tt_table = gr.Markdown(elem_id="training-table")
            p.tt_plot = gr.Plot(label="Through training", show_label=False, elem_id="training-plot")
    opened(tab, "model", p)

    run.click(ui.training, [p.shown, p.tt_layer, p.tt_head], [p.tt_table, p.tt_plot], **LONG_WORK, **PRIVATE)
