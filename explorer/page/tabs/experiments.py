"""Experiments: head ablation (heads switched off, a second decode on a button) and the logit lens (drawn in the
browser from the bank)."""

from __future__ import annotations

import gradio as gr

from explorer.api.handlers import DEFAULT_PRESET, default_ablation, head_names
from explorer.page import texts, ui
from explorer.page.tabs.common import MODEL_WORK, PRIVATE, Page, opened, tab_intro
from i18n import label


def build(p: Page) -> None:
    with gr.Tab(label("page.experiments.tab"), id="experiments") as tab:
        tab_intro("experiments", texts.EXPERIMENTS)
        # the presets' values are their English names (links hold them); each is shown in the page's language
        p.preset = gr.Dropdown(ui.preset_choices(p.tr, build=True), value=DEFAULT_PRESET,  # its heads are ticked
                               label=label("page.experiments.preset"), elem_id="ablation-preset")
        # the heads' names ("cross L5 H0") are the same in every language: short technical names, as in links
        p.heads_off = gr.CheckboxGroup(head_names(p.tr), value=default_ablation(p.tr),
                                       label=label("page.experiments.heads_off"), elem_id="heads-off")
        run = gr.Button(label("page.experiments.run"), elem_id="run-ablation")
        p.ablation_text = gr.Textbox(label=label("page.translations"), lines=3, interactive=False,
                                     elem_id="ablation-text", placeholder=label("page.experiments.placeholder"))
        with gr.Row(elem_id="ablation-pair"):
            p.before = gr.Plot(label=label("page.experiments.before"), elem_id="ablation-before")
            p.after = gr.Plot(label=label("page.experiments.after"), elem_id="ablation-after")
        p.effect_plot = gr.Plot(label=label("page.experiments.effect"), elem_id="ablation-effect")
        p.diff_plot = gr.Plot(label=label("page.experiments.difference"), elem_id="ablation-difference")
        p.lens_plot = gr.Plot(label=label("page.experiments.lens"), elem_id="lens-plot")
    opened(tab, "experiments", p)

    run.click(ui.ablate, [p.shown, p.heads_off], [p.ablation_text, p.before, p.after, p.effect_plot, p.diff_plot],
              **MODEL_WORK, **PRIVATE)
    p.preset.input(ui.ablation_preset, [p.shown, p.preset], p.heads_off, **PRIVATE)  # no model: names only
    p.heads_off.input(None, None, p.preset, js="() => null", **PRIVATE)  # ticked by hand: no longer the named group
