"""Model: the model card (configuration, BLEU with its signature), training curves, the learning-rate schedule,
and attention through training (every kept snapshot on the shown sentence: long work, on a button)."""

from __future__ import annotations

import gradio as gr

from explorer.api.handlers import AVERAGE
from explorer.page import texts, ui
from explorer.page.tabs.common import LONG_WORK, PRIVATE, Page, opened, tab_intro
from i18n import label, rendered

# A page in another language than English asks once, when the tab first opens, for the figures in its language (the
# card is made at start-up in every language; a figure's words cannot be, so those built at start-up are English).
IN_LANGUAGE = """() => {
  const b = document.getElementById("ae-model-lang");
  if (b && AE.lang !== "en" && !b.dataset.done) { b.dataset.done = "1"; b.click(); }
}"""


def build(p: Page) -> None:
    card0, curves0, lr0 = ui.model_tab(p.model_name)
    with gr.Tab(label("page.model.tab"), id="model") as tab:
        tab_intro("model", texts.MODEL)
        p.card = gr.Markdown(rendered("page.first.card." + p.model_name, lambda: ui.model_tab(p.model_name)[0]))
        p.curves = gr.Plot(curves0, label=label("page.model.curves"))
        p.lr_plot = gr.Plot(lr0, label=label("page.model.lr"))
        with gr.Accordion(label("page.model.training_box"), open=True):
            gr.Markdown(label(texts.THROUGH_TRAINING))
            with gr.Row():
                p.tt_layer = gr.Slider(0, p.last, value=p.last, step=1, label=label("page.cross_layer"),
                                       elem_id="training-layer")
                p.tt_head = gr.Dropdown(p.heads, value=AVERAGE, label=label("page.head"), elem_id="training-head")
                run = gr.Button(label("page.model.run_training"), elem_id="run-training")
            p.tt_table = gr.Markdown(elem_id="training-table")
            p.tt_plot = gr.Plot(label=label("page.model.training_plot"), show_label=False, elem_id="training-plot")
    opened(tab, "model", p)

    run.click(ui.training, [p.shown, p.tt_layer, p.tt_head], [p.tt_table, p.tt_plot], **LONG_WORK, **PRIVATE)
    # the hidden button is above the tabs (top.py): always in the page
    p.model_lang.click(ui.model_tab, p.model, [p.card, p.curves, p.lr_plot], **PRIVATE)
    tab.select(None, None, None, js=IN_LANGUAGE, **PRIVATE)
