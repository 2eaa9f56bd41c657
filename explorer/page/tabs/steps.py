"""Step by step: one decoding step (the next-token distribution, where that step looked), drawn in the browser;
and beam search on the shown sentence, a second decode on a button."""

from __future__ import annotations

import gradio as gr

from explorer.api.handlers import AVERAGE
from explorer.page import texts, ui
from explorer.page.tabs.common import MODEL_WORK, PRIVATE, Page, opened, tab_intro
from i18n import label


def build(p: Page, first_steps: int) -> None:
    with gr.Tab(label("page.steps.tab"), id="steps") as tab:
        tab_intro("steps", texts.STEPS)
        with gr.Row():
            p.step = gr.Slider(0, first_steps, value=0, step=1, label=label("page.steps.step"), elem_id="step")
            p.step_layer = gr.Slider(0, p.last, value=p.last, step=1, label=label("page.cross_layer"),
                                     elem_id="step-layer")
            p.step_head = gr.Dropdown(p.heads, value=AVERAGE, label=label("page.head"), elem_id="step-head")
        p.step_plot = gr.Plot(label=label("page.steps.plot"), elem_id="step-plot")
        run_beam = gr.Button(label("page.steps.run_beam"), elem_id="run-beam")
        p.beam_plot = gr.Plot(label=label("page.steps.beam_tree"), elem_id="beam-plot")
        p.compare_plot = gr.Plot(label=label("page.steps.greedy_vs_beam"), elem_id="compare-plot")
    opened(tab, "steps", p)

    for c in (p.step, p.step_layer, p.step_head):  # no server request: views.js redraws from the bank
        c.input(None, [p.bank, p.step, p.step_layer, p.step_head], p.step_plot,
                js="(b, t, l, h) => AE.step(b, t, l, h)", **PRIVATE)
    run_beam.click(ui.beam, [p.shown, p.beam_size], [p.beam_plot, p.compare_plot], **MODEL_WORK, **PRIVATE)
