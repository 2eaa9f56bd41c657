"""Attention Explorer: look inside an English->German Transformer, one tab per step.

    python app.py     # http://127.0.0.1:7860; GRADIO_SERVER_NAME / GRADIO_SERVER_PORT are honoured

Only wiring lives here: components, and events bound to explorer.endpoints.
"""

from __future__ import annotations

import os
import sys

import gradio as gr
import torch

from explorer import endpoints as ep
from explorer import limits, texts
from explorer.handlers import AVERAGE, KIND_LABELS
from model.translator import available

torch.set_num_threads(int(os.environ.get("TORCH_THREADS", "1")))  # 2 requests at once x 1 thread = 2 cores
DEFAULT_TEXT = texts.EXAMPLES[3]
DEFAULT_MODEL = "en-de" if "en-de" in available() else (available() or ["en-de"])[0]


def build() -> gr.Blocks:
    heads, head_names = ep.choices_for_all_models()
    with gr.Blocks(title="Attention Explorer") as demo:
        gr.Markdown(texts.INTRO)
        with gr.Row():
            text = gr.Textbox(label="English sentence", value=DEFAULT_TEXT, max_length=limits.MAX_CHARS, scale=4,
                              elem_id="sentence")
            model = gr.Dropdown(available(), value=DEFAULT_MODEL, label="Model", scale=1, allow_custom_value=True)
        with gr.Accordion("Decoding options", open=False):
            with gr.Row():
                method = gr.Radio(["greedy", "beam", "sample"], value="greedy", label="Decoding")
                beam_size = gr.Slider(1, limits.MAX_BEAM, value=4, step=1, label="Beam size")
                length_penalty = gr.Slider(0, 2, value=0.6, step=0.1, label="Length penalty α")
                max_len = gr.Slider(1, limits.MAX_OUTPUT_TOKENS, value=60, step=1, label="Max output tokens")
            with gr.Row():
                temperature = gr.Slider(0.05, limits.MAX_TEMPERATURE, value=1.0, step=0.05, label="Temperature")
                top_k = gr.Slider(0, limits.MAX_TOP_K, value=0, step=1, label="Top-k (0 = off)")
                top_p = gr.Slider(0.05, 1, value=1.0, step=0.05, label="Top-p")
                seed = gr.Number(0, precision=0, label="Seed")
        go = gr.Button("Translate", variant="primary", elem_id="translate")
        gr.Examples(texts.EXAMPLES, inputs=text)
        translation = gr.Textbox(label="German", interactive=False, elem_id="translation")
        pieces = gr.HTML()
        dec = [text, method, beam_size, length_penalty, temperature, top_k, top_p, seed, max_len, model]

        with gr.Tabs():
            with gr.Tab("Translate & attend", id="attend"):
                gr.Markdown(texts.ATTEND)
                with gr.Row():
                    kind = gr.Radio(list(KIND_LABELS), value="Cross-attention", label="Attention type")
                    layer = gr.Slider(0, 2, value=2, step=1, label="Layer")
                    head = gr.Dropdown(heads, value=AVERAGE, label="Head")
                heatmap = gr.Plot(label="Attention heatmap", elem_id="heatmap")
                all_heads = gr.Plot(label="Model view: every layer and head")
                stats = gr.Plot(label="Head statistics")
                with gr.Accordion("bertviz views (interactive; need the CDN)", open=False) as bv_box:
                    bv_head = gr.HTML(elem_id="bertviz-head")
                    bv_open = gr.State(False)
                    bv_model = gr.HTML()
                with gr.Row():
                    get_npz = gr.DownloadButton("Download tensors (.npz)")
                    get_html = gr.DownloadButton("Download these figures (.html)")
            with gr.Tab("Step by step", id="steps"):
                gr.Markdown(texts.STEPS)
                with gr.Row():
                    step = gr.Slider(0, 10, value=0, step=1, label="Decoding step", elem_id="step")
                    step_layer = gr.Slider(0, 2, value=2, step=1, label="Cross-attention layer")
                    step_head = gr.Dropdown(heads, value=AVERAGE, label="Head")
                step_plot = gr.Plot(label="This step", elem_id="step-plot")
                beam_plot = gr.Plot(label="Beam tree")
                compare_plot = gr.Plot(label="Greedy vs beam")
            with gr.Tab("Positional encoding", id="pe"):
                gr.Markdown(texts.POSITIONAL)
                with gr.Row():
                    pe_len = gr.Slider(2, limits.MAX_PE_LENGTH, value=50, step=1, label="Positions")
                    pe_dims = gr.Textbox("0, 1, 10, 11, 60, 61", label="Dimensions to draw")
                pe_table, pe_waves = gr.Plot(label="PE matrix"), gr.Plot(label="Dimensions as waves")
                pe_sim, pe_sentence = gr.Plot(label="Similarity"), gr.Plot(label="Your sentence")
            with gr.Tab("Inside a head", id="inside"):
                gr.Markdown(texts.INSIDE)
                with gr.Row():
                    in_kind = gr.Radio(list(KIND_LABELS), value="Encoder self-attention", label="Attention type")
                    in_layer = gr.Slider(0, 2, value=0, step=1, label="Layer")
                    in_head = gr.Dropdown(heads[1:], value="head 0", label="Head")
                    in_query = gr.Dropdown([], label="Query token", allow_custom_value=True)
                inside_plot = gr.Plot(label="Inside the head")
            with gr.Tab("Experiments", id="experiments"):
                gr.Markdown(texts.EXPERIMENTS)
                heads_off = gr.CheckboxGroup(head_names, label="Heads to switch off")
                run_ablation = gr.Button("Run with these heads off")
                ablation_text = gr.Textbox(label="Translations", lines=3, interactive=False)
                with gr.Row():
                    before, after = gr.Plot(label="Original"), gr.Plot(label="With heads off")
                lens_plot = gr.Plot(label="Logit lens", elem_id="lens-plot")
            with gr.Tab("Model", id="model"):
                gr.Markdown(texts.MODEL)
                card = gr.Markdown()
                curves, lr_plot = gr.Plot(label="Training curves"), gr.Plot(label="Learning rate")

        attn_in = dec + [kind, layer, head]
        step_in, inside_in = dec + [step, step_layer, step_head], dec + [in_kind, in_layer, in_head, in_query]
        pe_in, pe_out = dec + [pe_len, pe_dims], [pe_table, pe_waves, pe_sim, pe_sentence]
        controls = [layer, head, step_layer, step_head, in_layer, in_head, heads_off]
        private = dict(api_visibility="private")

        def draw_everything(event, public: bool):
            """Decode once, then every tab draws from the same (cached) analysis. Named endpoints once only."""
            api = (lambda name: dict(api_name=name)) if public else (lambda name: private)
            return (event.then(ep.analyze, attn_in, [translation, pieces, step, heatmap, all_heads, stats],
                               **api("analyze"))
                    .then(ep.step, step_in, step_plot, **api("step"))
                    .then(ep.queries, dec + [in_kind], in_query, **api("queries"))
                    .then(ep.inside, inside_in, inside_plot, **api("inside_head"))
                    .then(ep.positional, pe_in, pe_out, **api("positional"))
                    .then(ep.beam, dec, [beam_plot, compare_plot], **api("beam"))
                    .then(ep.lens, dec, lens_plot, **api("logit_lens"))
                    .then(ep.ablate, dec + [heads_off], [ablation_text, before, after], **private)
                    .then(ep.bertviz_if_open, dec + [bv_open], [bv_head, bv_model], **private))

        # named endpoints first: events registered later with the same function get suffixed names
        run_ablation.click(ep.ablate, dec + [heads_off], [ablation_text, before, after], api_name="ablate")
        draw_everything(go.click(lambda: None, None, None, **private), public=True)
        draw_everything(text.submit(lambda: None, None, None, **private), public=False)
        gr.api(ep.translate, api_name="translate")
        for i, c in enumerate((kind, layer, head)):
            c.input(ep.attention, attn_in, [heatmap, all_heads, stats], **(dict(api_name="attention") if i == 0 else private))
        # bertviz pages are large: drawn when their panel is opened, and again after each translation if open
        bv_box.expand(lambda: True, None, bv_open, **private).then(ep.bertviz, dec, [bv_head, bv_model], api_name="bertviz")
        bv_box.collapse(lambda: False, None, bv_open, **private)
        for c in (step, step_layer, step_head):
            c.input(ep.step, step_in, step_plot, **private)
        in_kind.input(ep.queries, dec + [in_kind], in_query, **private).then(ep.inside, inside_in, inside_plot, **private)
        for c in (in_layer, in_head, in_query):
            c.input(ep.inside, inside_in, inside_plot, **private)
        for c in (pe_len, pe_dims):
            c.input(ep.positional, pe_in, pe_out, **private)
        get_npz.click(ep.export_tensors, dec, get_npz, api_name="export_tensors")
        get_html.click(ep.export_figures, attn_in, get_html, api_name="export_figures")
        # first load: meaningful figures without a click
        draw_everything(demo.load(ep.model_controls, model, controls, api_name="load_controls", **private).then(
            ep.model_info, model, [card, curves, lr_plot], api_name="model_info"), public=False)
        model.input(ep.model_controls, model, controls, api_name="model_controls").then(
            ep.model_info, model, [card, curves, lr_plot], **private)
    return demo


if __name__ == "__main__":
    try:
        demo = build()  # loads every shipped model: a broken checkpoint stops us here, not mid-session
    except ep.UserError as e:
        sys.exit(f"error: {e}")
    demo.queue(default_concurrency_limit=limits.CONCURRENCY, max_size=limits.QUEUE_SIZE).launch()
