"""Positional encoding: the PE matrix, its dimensions as waves, the similarity of positions (computed in the
browser) and the shown sentence's embedding and PE norms."""

from __future__ import annotations

import gradio as gr

from explorer.page import texts
from explorer.page.tabs.common import PRIVATE, Page, opened, tab_intro
from explorer.serving import limits
from i18n import label


def build(p: Page) -> None:
    with gr.Tab(label("page.pe.tab"), id="pe") as tab:
        tab_intro("pe", texts.POSITIONAL)
        with gr.Row():
            p.pe_len = gr.Slider(2, limits.MAX_PE_LENGTH, value=50, step=1, label=label("page.pe.positions"),
                                 elem_id="pe-len")
            p.pe_dims = gr.Textbox("0, 1, 10, 11, 60, 61", label=label("page.pe.dims"), elem_id="pe-dims")
        p.pe_table = gr.Plot(label=label("page.pe.table"), elem_id="pe-table")
        p.pe_waves = gr.Plot(label=label("page.pe.waves"), elem_id="pe-waves")
        p.pe_sim = gr.Plot(label=label("page.pe.sim"), elem_id="pe-sim")
        p.pe_sentence = gr.Plot(label=label("page.pe.sentence"), elem_id="pe-sentence")
    opened(tab, "pe", p)

    for c in (p.pe_len, p.pe_dims):
        c.change(None, [p.bank, p.pe_len, p.pe_dims], [p.pe_table, p.pe_waves, p.pe_sim],
                 js="(b, n, d) => AE.positional(b, n, d)", **PRIVATE)
