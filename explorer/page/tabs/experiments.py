"""Experiments: head ablation (heads switched off, a second decode on a button) and the logit lens (drawn in the
browser from the bank)."""

from __future__ import annotations

import gradio as gr

from explorer.api.handlers import DEFAULT_PRESET, ablation_presets, default_ablation, head_names
from explorer.page import texts, ui
from explorer.page.tabs.common import MODEL_WORK, PRIVATE, Page, opened, tab_intro


def build(p: Page) -> None:
    with gr.Tab("Experiments", id="experiments") as tab:
        tab_intro("experiments", texts.EXPERIMENTS)
        p.preset = gr.Dropdown(list(ablation_presets(p.tr)), value=DEFAULT_PRESET,  # its heads are the ones ticked
                               label="Pick a group of heads (or tick them below)", elem_id="ablation-preset")
        p.heads_off = gr.CheckboxGroup(head_names(p.tr), value=default_ablation(p.tr), label="Heads to switch off",
                                       elem_id="heads-off")
        run = gr.Button("Run with these heads off", elem_id="run-ablation")
        p.ablation_text = gr.Textbox(label="Translations", lines=3, interactive=False, elem_id="ablation-text",
                                     placeholder="Pick heads, then press “Run with these heads off”.")
        with gr.Row():
            p.before, p.after = gr.Plot(label="Original", elem_id="ablation-before"), gr.Plot(label="With heads off")
        p.effect_plot = gr.Plot(label="Each original token's probability, intact and with the heads off",
                                elem_id="ablation-effect")
        p.diff_plot = gr.Plot(label="Cross-attention: heads off minus intact", elem_id="ablation-difference")
        p.lens_plot = gr.Plot(label="Logit lens", elem_id="lens-plot")
    opened(tab, "experiments", p)

    run.click(ui.ablate, [p.shown, p.heads_off], [p.ablation_text, p.before, p.after, p.effect_plot, p.diff_plot],
              **MODEL_WORK, **PRIVATE)
    p.preset.input(ui.ablation_preset, [p.shown, p.preset], p.heads_off, **PRIVATE)  # no model: names only
    p.heads_off.input(None, None, p.preset, js="() => null", **PRIVATE)  # ticked by hand: no longer the named group
