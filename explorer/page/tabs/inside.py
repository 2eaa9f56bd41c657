"""Inside a head: the arithmetic of one head for one query token, drawn by the server when the tab opens (a lazy
part: once per analysis) and when a control changes."""

from __future__ import annotations

import gradio as gr

from explorer.page import texts, ui
from explorer.page.tabs.common import PRIVATE, VIEW_WORK, Page, kind_choices, opened, tab_intro
from i18n import label


def build(p: Page) -> None:
    with gr.Tab(label("page.inside.tab"), id="inside") as tab:
        tab_intro("inside", texts.INSIDE)
        with gr.Row():
            kind = gr.Radio(kind_choices(), value="Encoder self-attention", label=label("page.kind"),
                            elem_id="in-kind")
            layer = gr.Slider(0, p.last, value=0, step=1, label=label("page.layer"), elem_id="in-layer")
            p.in_head = gr.Dropdown(p.heads[1:], value="head 0", label=label("page.head"), elem_id="in-head")
            # its choices are the shown analysis's tokens, known to a page before this session's server copy of the
            # component has them (a follower, a reload, a restart): any value is taken, and checked by its number
            # (ui.inside_tab keeps it or falls back to a valid one; handlers.inside_head says when it is out of range)
            query = gr.Dropdown([], label=label("page.inside.query"), elem_id="query", allow_custom_value=True)
        plot = gr.Plot(label=label("page.inside.plot"), elem_id="inside-plot")
        # (the server's way in, where the page's own model cannot draw it: inside.js presses it)
        server = gr.Button(elem_id="ae-server-inside", elem_classes=["ae-hidden"]) if p.local else None
    p.in_layer = layer
    p.in_kind, p.in_query = kind, query  # in the link and room state too (app.py's extras)
    opened(tab, "inside", p)

    controls = [p.shown, kind, layer, p.in_head, query]
    # always_last: a click while one runs (a follower given the teacher's kind, then query, within a second) runs again
    # after it with the newest values, instead of being dropped (Gradio's "once")
    if not p.local:
        p.run_lazy["inside"].click(ui.inside_tab, controls, [query, plot], trigger_mode="always_last", **VIEW_WORK,
                                   **PRIVATE)
        kind.input(ui.inside_tab, controls, [query, plot], **VIEW_WORK, **PRIVATE)
        for c in (layer, p.in_head, query):
            c.input(ui.inside_view, controls, plot, **VIEW_WORK, **PRIVATE)
        return
    # The page's own model (explorer/page/static/inside.js): where this browser made the translation shown, the
    # figure is drawn here and the server asked nothing; else inside.js presses the hidden button: the server, as above
    server.click(ui.inside_tab, controls, [query, plot], trigger_mode="always_last", **VIEW_WORK, **PRIVATE)
    then = dict(fn=None, inputs=None, outputs=None, js="() => { AE.inside.after(); }", **PRIVATE)
    tab = dict(fn=None, inputs=[*controls, p.bank], outputs=[query, plot], js="(...v) => AE.inside.tab(...v)", **PRIVATE)
    p.run_lazy["inside"].click(**tab).then(**then)
    kind.input(**tab).then(**then)
    for c in (layer, p.in_head, query):
        c.input(fn=None, inputs=[*controls, p.bank], outputs=plot, js="(...v) => AE.inside.view(...v)",
                **PRIVATE).then(**then)
