"""Translate & attend: the attention heatmap of one layer and head, the model view, head statistics, the bertviz
panels and the downloads. Every figure but bertviz is drawn in the browser (views.js) from the page's bank."""

from __future__ import annotations

import gradio as gr

from explorer.api.handlers import AVERAGE
from explorer.page import texts, ui
from explorer.page.tabs.common import MODEL_WORK, PRIVATE, VIEW_WORK, Page, kind_choices, opened, tab_intro
from i18n import label


def build(p: Page) -> None:
    with gr.Tab(label("page.attend.tab"), id="attend") as tab:
        tab_intro("attend", texts.ATTEND)
        with gr.Row():
            p.kind = gr.Radio(kind_choices(), value="Cross-attention", label=label("page.kind"), elem_id="kind",
                              scale=3)
            p.layer = gr.Slider(0, p.last, value=p.last, step=1, label=label("page.layer"), elem_id="layer")
            p.head = gr.Dropdown(p.heads, value=AVERAGE, label=label("page.head"), elem_id="head")
        p.heatmap = gr.Plot(label=label("page.attend.heatmap"), elem_id="heatmap")
        p.all_heads = gr.Plot(label=label("page.attend.model_view"), elem_id="model-view")
        p.stats = gr.Plot(label=label("page.attend.stats"), elem_id="head-stats")
        with gr.Accordion(label("page.attend.bertviz"), open=False, elem_id="bertviz-fold") as bv_box:
            bv_head = gr.HTML(elem_id="bertviz-head")
            bv_model = gr.HTML()
        with gr.Row():
            get_npz = gr.Button(label("page.attend.npz"), elem_id="download-npz")
            get_html = gr.Button(label("page.attend.html"), elem_id="download-html")
        npz_file, html_file = gr.File(visible=False), gr.File(visible=False)
    opened(tab, "attend", p)

    attend_in = [p.bank, p.kind, p.layer, p.head]
    for c in (p.kind, p.layer, p.head):  # no server request: views.js redraws from the bank
        c.input(None, attend_in, [p.heatmap, p.all_heads, p.stats],
                js="(b, k, l, h) => [AE.heatmap(b, k, l, h), AE.modelView(b, k), AE.stats(b, k)]", **PRIVATE)
    # the bertviz panel is a lazy part: opening it clicks its hidden button once per analysis (views.js)
    p.run_lazy["bertviz"].click(ui.bertviz, p.shown, [bv_head, bv_model], **VIEW_WORK, **PRIVATE)
    bv_box.expand(None, p.shown, None, js="(s) => { AE.openTab('bertviz', s); }", **PRIVATE)
    bv_box.collapse(None, None, None, js="() => { AE.closeTab('bertviz'); }", **PRIVATE)
    get_npz.click(ui.export_tensors, p.shown, npz_file, **MODEL_WORK, **PRIVATE).then(
        None, npz_file, None, js="(f) => AE.download(f)", **PRIVATE)
    get_html.click(ui.export_figures, [p.shown, p.kind, p.layer, p.head], html_file, **MODEL_WORK, **PRIVATE).then(
        None, html_file, None, js="(f) => AE.download(f)", **PRIVATE)
