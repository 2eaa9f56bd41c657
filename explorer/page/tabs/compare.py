"""Compare: the shown sentence and a second one side by side, one attention view, one colour scale (the second
sentence is decoded on the button)."""

from __future__ import annotations

import gradio as gr

from explorer.api.beyond import suggested_corruption
from explorer.api.handlers import AVERAGE
from explorer.page import texts, ui
from explorer.page.tabs.common import MODEL_WORK, PRIVATE, Page, kind_choices, opened, tab_intro
from explorer.serving import limits
from i18n import label


def build(p: Page) -> None:
    with gr.Tab(label("page.compare.tab"), id="compare") as tab:
        tab_intro("compare", texts.COMPARE)
        # the sentence shown on opening with one word changed (girl -> boy), as the tab suggests; else the classic pair
        one_word = suggested_corruption(p.text.value, p.model_name)
        p.text_b = gr.Textbox(one_word if one_word != p.text.value else texts.COMPARE_B,
                              label=label("page.compare.second"), max_length=limits.MAX_CHARS, elem_id="sentence-b")
        with gr.Row():
            p.c_kind = gr.Radio(kind_choices(), value="Encoder self-attention", label=label("page.kind"),
                                elem_id="compare-kind")
            p.c_layer = gr.Slider(0, p.last, value=p.last, step=1, label=label("page.layer"), elem_id="compare-layer")
            p.c_head = gr.Dropdown(p.heads, value=AVERAGE, label=label("page.head"), elem_id="compare-head")
        run = gr.Button(label("page.compare.run"), elem_id="run-compare")
        p.compare_view = gr.Plot(label=label("page.compare.view"), elem_id="compare-view")
    opened(tab, "compare", p)

    run.click(ui.compare, [p.shown, p.text_b, p.c_kind, p.c_layer, p.c_head], p.compare_view, **MODEL_WORK,
              **PRIVATE)
