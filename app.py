"""Attention Explorer: look inside an English->German Transformer, one tab per step.

    python app.py     # http://127.0.0.1:7860; GRADIO_SERVER_NAME / GRADIO_SERVER_PORT are honoured

Only wiring lives here: components, and events bound to explorer.ui (the page), explorer.api (the
public API) and explorer/static/views.js (views the browser draws itself). docs/architecture.md
describes the data flow of one translation.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

# numpy's OpenBLAS would start one thread per core and spin them after each matrix product: on 2 cores that
# doubled the CPU time of every request (the threads are counted against the process, and idle cores are gone)
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import gradio as gr  # noqa: E402  (after the thread setting, which numpy reads when it loads)
import torch  # noqa: E402
from starlette.middleware import Middleware  # noqa: E402

from explorer import api, limits, memory, texts, ui  # noqa: E402
from explorer.beyond import METHOD_NAMES, suggested_corruption  # noqa: E402
from explorer.blocks import ExplorerBlocks  # noqa: E402
from explorer.edges import Edges  # noqa: E402
from explorer.fair_queue import LONG, FairQueue  # noqa: E402
from explorer.handlers import (  # noqa: E402
    AVERAGE,
    KIND_LABELS,
    ablation_presets,
    default_ablation,
    examples_for,
    head_names,
    input_info,
    input_label,
    learned_tables,
    model_for,
    model_page,
    output_label,
)
from explorer.request import Request, UserError, default_model  # noqa: E402
from explorer.static_cache import StaticCache  # noqa: E402
from explorer.store import STORE  # noqa: E402
from model.translator import available  # noqa: E402

torch.set_num_threads(int(os.environ.get("TORCH_THREADS", "1")))  # one request per core, one thread each
STATIC = Path(__file__).parent / "explorer" / "static"
VIEWS_JS = "\n".join((STATIC / name).read_text(encoding="utf-8") for name in ("views.js", "links.js", "lesson.js",
                                                                                       "present.js", "figure1.js"))
CSS = """.ae-status{padding:6px 10px;border-radius:6px;background:#eef6ee;font-size:14px}
.ae-stale{background:#fff4e0;color:#6b3d00} .ae-hidden{display:none !important}
.ae-answer,.ae-nav button,#ae-lesson-start{border:1px solid #bbb;border-radius:6px;padding:4px 10px;margin:2px;background:#f7f7f7}
.ae-reveal{margin-top:8px;padding:8px 10px;border-radius:6px} .ae-right{background:#e6f4ea} .ae-wrong{background:#fdecea}
.ae-present .gradio-container{--text-xs:14px;--text-sm:17px;--text-md:21px;--text-lg:24px;--text-xl:30px;
  --input-text-size:22px;--body-text-color:#000;--block-label-text-size:17px;--block-info-text-size:16px}
.ae-present [data-testid=markdown],.ae-present #examples,.ae-present #link,.ae-present #model-view,
.ae-present #head-stats,.ae-present #beam-plot,.ae-present #compare-plot{display:none !important}
.ae-present .js-line{stroke-width:4px !important} .ae-present .ae-status{font-size:20px}
#ae-figure1 svg{display:block;max-width:520px;margin:auto} .ae-part{cursor:pointer}
.ae-part rect{fill:#f3f6fb;stroke:#8a9bb0;stroke-width:1} .ae-part text{font-size:11px;pointer-events:none}
.ae-part.ae-on rect{fill:#ffe1c2;stroke:#f97316;stroke-width:2.5} .ae-part:hover rect{stroke:#f97316}
.ae-stack{fill:none;stroke:#bbb;stroke-dasharray:4 3} .ae-note{font-size:10px;fill:#666}
.ae-arrow{stroke:#888;fill:none;stroke-width:1.5}"""
LAUNCH = dict(css=CSS, state_session_capacity=limits.SESSION_CAPACITY)  # head= is added by build()
MODEL_WORK = dict(concurrency_id="model", concurrency_limit=limits.MODEL_SLOTS)  # one limit for all model work
# the page's Translate: more at once, so that the decodes of a class clicking together wait together and run as
# one batch (explorer/batcher.py); the model work inside still passes the one gate (explorer/store.py)
TRANSLATE_WORK = dict(concurrency_id="translate", concurrency_limit=limits.TRANSLATE_SLOTS)
# long work (attribution, patching, attention through training): its own group, a few per client, dropped when
# nobody listens (explorer/fair_queue.py), and its model work yields to short work between chunks (explorer/store.py)
LONG_WORK = dict(concurrency_id=LONG, concurrency_limit=limits.LONG_SLOTS)
# views that only redraw from a stored analysis: one at a time, after any running translation (explorer/priority.py)
VIEW_WORK = dict(concurrency_id="views", concurrency_limit=1)
PRIVATE = dict(api_visibility="private")
# Every view the browser draws from the page's copy of the analysis (the views that need the model again,
# beam search and ablation, are cleared by Translate itself: they belong to the previous sentence).
DRAW = """(bank, text, model, kind, layer, head, step, slayer, shead, peLen, peDims, ...options) => [
  AE.heatmap(bank, kind, layer, head), AE.modelView(bank, kind), AE.stats(bank, kind), AE.step(bank, step, slayer, shead),
  AE.status(bank, text, model, ...options),
  ...AE.positional(bank, peLen, peDims), AE.peSentence(bank), AE.lens(bank)]"""


def link_rules(model: gr.Dropdown, method: gr.Radio, numbers: dict[str, gr.Slider | gr.Number]) -> dict:
    """What a link's request fields may hold, read from the components that will take them (links.js checks each
    value against these before it sets a component)."""
    def rule(c):
        if isinstance(c, gr.Number):  # the seed: Request's own range
            return [0, 2**31 - 1, True]
        return [c.minimum, c.maximum, float(c.step).is_integer() and float(c.minimum).is_integer()]
    return {"models": [str(v) for _, v in model.choices], "methods": [str(v) for _, v in method.choices],
            "numbers": {field: rule(c) for field, c in numbers.items()}}


def head_html(rules: dict) -> str:
    """views.js, the examples, the learned positional tables (if a model has one) and what a link may hold, for the
    page's <head>."""
    examples = {name: examples_for(name) for name in available()}  # each model's own, clicked by index
    return (f"<script>{VIEWS_JS}\nwindow.AE_EXAMPLES = {json.dumps(examples)};\n"
            f"window.AE_PE_TABLES = {json.dumps(learned_tables(available()))};\n"
            f"window.AE_LINK_RULES = {json.dumps(rules)};\n"
            f"window.AE_MAX_CHARS = {limits.MAX_CHARS};</script>")


def build() -> gr.Blocks:
    model_name = default_model()
    if not available():
        raise UserError("no checkpoints found: every model folder in checkpoints/ needs model.safetensors")
    for name in available():  # a broken checkpoint stops start-up here, not mid-session
        model_for(name)
        model_page(name)
    tr = model_for(model_name)
    cfg = tr.cfg
    last = cfg.n_decoder_layers - 1
    heads = [AVERAGE] + [f"head {i}" for i in range(cfg.n_heads)]
    task, examples_text = tr.task, examples_for(model_name)
    default = Request.parse(examples_text[0], model_name)  # the model's first example is shown on load
    for text in examples_text:  # examples answer at once
        for method in ("greedy", "beam"):
            STORE.pin(Request.parse(text, model_name, method))
    first_text, first_pieces, first_bank, first_shown, first_steps = ui.initial(default)
    card0, curves0, lr0 = ui.model_tab(model_name)

    with ExplorerBlocks(title="Attention Explorer") as demo:
        # the public API first, so that its names are taken before the page's private events are registered
        for name, fn in api.PUBLIC.items():  # README's names; each works called alone, defaults filled in
            gr.api(fn, api_name=name, **({} if name in api.LIGHT else TRANSLATE_WORK if name == "translate" else
                                         LONG_WORK if name in api.LONG else MODEL_WORK))
        gr.Markdown(texts.INTRO)
        with gr.Row():
            text = gr.Textbox(label=input_label(task), value=examples_text[0], max_length=limits.MAX_CHARS, scale=4,
                              elem_id="sentence", info=input_info(task))
            model = gr.Dropdown(available(), value=model_name, label="Model", scale=1, elem_id="model")
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
            with gr.Row():  # departures from the paper's decoding, off by default: for the model's repetition loops
                no_repeat = gr.Slider(0, limits.MAX_NO_REPEAT_NGRAM, value=0, step=1, elem_id="no-repeat",
                                      label="No-repeat n-gram size (0 = off; not in the paper)",
                                      info="No sequence of this many pieces may appear twice.")
                rep_penalty = gr.Slider(1, limits.MAX_REPETITION_PENALTY, value=1, step=0.1, elem_id="rep-penalty",
                                        label="Repetition penalty (1 = off; not in the paper)",
                                        info="Pieces already written become less likely (CTRL, 2019).")
        with gr.Row():
            go = gr.Button("Translate", variant="primary", elem_id="translate", scale=3)
            copy_link = gr.Button("Copy link to this view", elem_id="copy-link", scale=1)
            present = gr.Button("Presentation mode", elem_id="present", scale=1)
        link_box = gr.Textbox(label="Link to this view", interactive=False, elem_id="link", max_lines=1,
                              placeholder="“Copy link to this view” puts the sentence, options, tab, layer, head and "
                                          "step here (and in the address bar): opening it shows the same view.")
        examples = gr.Dataset(components=[gr.Textbox(visible=False)], samples=[[e] for e in examples_text],
                              label="Examples (click one to translate it)", type="index", elem_id="examples")
        status = gr.HTML(elem_id="status")
        translation = gr.Textbox(first_text, label=output_label(task), interactive=False, elem_id="translation")
        pieces = gr.HTML(first_pieces)
        with gr.Accordion("Where am I: the Transformer of the paper (click a part to open its view)", open=True):
            gr.HTML('<div id="ae-figure1"></div>', elem_id="figure1")  # explorer/static/figure1.js draws it
        with gr.Accordion("Guided lesson: predict, then reveal (eight stops, on your own sentence)", open=False):
            gr.HTML(texts.LESSON_START, elem_id="lesson")  # explorer/static/lesson.js draws into #ae-lesson
        # the page's copy of the analysis every view draws from: JSON text (views.js parses it once), which Gradio
        # passes through as it is (a gr.JSON value is validated and re-serialised on every event: ~10 ms for 60 KB)
        bank = gr.Textbox(first_bank, visible=False, elem_id="bank")
        shown = gr.Textbox(first_shown, visible=False, elem_id="shown")  # its request: what the server views read

        with gr.Tabs():
            with gr.Tab("Translate & attend", id="attend") as tab_attend:
                gr.Markdown(texts.ATTEND)
                with gr.Row():
                    kind = gr.Radio(list(KIND_LABELS), value="Cross-attention", label="Attention type", elem_id="kind")
                    layer = gr.Slider(0, last, value=last, step=1, label="Layer", elem_id="layer")
                    head = gr.Dropdown(heads, value=AVERAGE, label="Head", elem_id="head")
                heatmap = gr.Plot(label="Attention heatmap", elem_id="heatmap")
                all_heads = gr.Plot(label="Model view: every layer and head", elem_id="model-view")
                stats = gr.Plot(label="Head statistics", elem_id="head-stats")
                with gr.Accordion("bertviz views (interactive; need the CDN)", open=False) as bv_box:
                    bv_head = gr.HTML(elem_id="bertviz-head")
                    bv_model = gr.HTML()
                with gr.Row():
                    get_npz = gr.Button("Download tensors (.npz)", elem_id="download-npz")
                    get_html = gr.Button("Download these figures (.html)", elem_id="download-html")
                npz_file, html_file = gr.File(visible=False), gr.File(visible=False)
            with gr.Tab("Step by step", id="steps") as tab_steps:
                gr.Markdown(texts.STEPS)
                with gr.Row():
                    step = gr.Slider(0, first_steps, value=0, step=1, label="Decoding step", elem_id="step")
                    step_layer = gr.Slider(0, last, value=last, step=1, label="Cross-attention layer", elem_id="step-layer")
                    step_head = gr.Dropdown(heads, value=AVERAGE, label="Head", elem_id="step-head")
                step_plot = gr.Plot(label="This step", elem_id="step-plot")
                run_beam = gr.Button("Run beam search on this sentence (beam size from Decoding options, at least 2)",
                                     elem_id="run-beam")
                beam_plot = gr.Plot(label="Beam tree", elem_id="beam-plot")
                compare_plot = gr.Plot(label="Greedy vs beam", elem_id="compare-plot")
            with gr.Tab("Positional encoding", id="pe") as tab_pe:
                gr.Markdown(texts.POSITIONAL)
                with gr.Row():
                    pe_len = gr.Slider(2, limits.MAX_PE_LENGTH, value=50, step=1, label="Positions")
                    pe_dims = gr.Textbox("0, 1, 10, 11, 60, 61", label="Dimensions to draw", elem_id="pe-dims")
                pe_table = gr.Plot(label="PE matrix", elem_id="pe-table")
                pe_waves = gr.Plot(label="Dimensions as waves", elem_id="pe-waves")
                pe_sim, pe_sentence = gr.Plot(label="Similarity"), gr.Plot(label="Your sentence", elem_id="pe-sentence")
            with gr.Tab("Inside a head", id="inside") as tab_inside:
                gr.Markdown(texts.INSIDE)
                with gr.Row():
                    in_kind = gr.Radio(list(KIND_LABELS), value="Encoder self-attention", label="Attention type")
                    in_layer = gr.Slider(0, last, value=0, step=1, label="Layer")
                    in_head = gr.Dropdown(heads[1:], value="head 0", label="Head")
                    in_query = gr.Dropdown([], label="Query token", elem_id="query")
                inside_plot = gr.Plot(label="Inside the head", elem_id="inside-plot")
            with gr.Tab("Experiments", id="experiments") as tab_exp:
                gr.Markdown(texts.EXPERIMENTS)
                preset = gr.Dropdown(list(ablation_presets(tr)), value=None, label="Pick a group of heads (or tick them "
                                     "below)", elem_id="ablation-preset")
                heads_off = gr.CheckboxGroup(head_names(tr), value=default_ablation(tr), label="Heads to switch off",
                                             elem_id="heads-off")
                run_ablation = gr.Button("Run with these heads off", elem_id="run-ablation")
                ablation_text = gr.Textbox(label="Translations", lines=3, interactive=False, elem_id="ablation-text",
                                           placeholder="Pick heads, then press “Run with these heads off”.")
                with gr.Row():
                    before, after = gr.Plot(label="Original", elem_id="ablation-before"), gr.Plot(label="With heads off")
                effect_plot = gr.Plot(label="Each original token's probability, intact and with the heads off",
                                      elem_id="ablation-effect")
                diff_plot = gr.Plot(label="Cross-attention: heads off minus intact", elem_id="ablation-difference")
                lens_plot = gr.Plot(label="Logit lens", elem_id="lens-plot")
            with gr.Tab("Beyond attention", id="beyond") as tab_beyond:
                gr.Markdown(texts.BEYOND)
                with gr.Accordion("Attribution: what each output token depends on", open=True):
                    with gr.Row():
                        at_method = gr.Radio(list(METHOD_NAMES.values()), value=METHOD_NAMES["integrated_gradients"],
                                             label="Method", elem_id="attr-method")
                        at_steps = gr.Slider(8, 128, value=32, step=8, label="Integrated gradients: steps")
                        at_layer = gr.Slider(0, last, value=last, step=1, label="Cross-attention layer to compare")
                    with gr.Row():
                        at_target = gr.Textbox(label="Force a German translation (optional)", elem_id="attr-target",
                                               max_length=limits.MAX_CHARS, placeholder="empty: the translation shown")
                        at_contrast = gr.Textbox(label="Contrast: why this, not … (optional)", elem_id="attr-contrast",
                                                 max_length=limits.MAX_CHARS, placeholder="e.g. Katze")
                    run_attr = gr.Button("Attribute", elem_id="run-attribute")
                    attr_text = gr.Textbox(label="Agreement", lines=3, interactive=False, elem_id="attr-text")
                    attr_plot = gr.Plot(label="Attribution beside cross-attention", elem_id="attr-plot")
                with gr.Accordion("Activation patching: which heads carry the difference", open=False):
                    with gr.Row():
                        corrupt = gr.Textbox(suggested_corruption(default.text, model_name),
                                             label="Corrupted sentence (same number of pieces)",
                                             max_length=limits.MAX_CHARS, elem_id="corrupt", scale=4)
                        patch_pos = gr.Number(-1, precision=0, label="Output position (-1: first that differs)")
                    run_patch = gr.Button("Patch each head", elem_id="run-patch")
                    patch_text = gr.Textbox(label="What was measured", lines=3, interactive=False, elem_id="patch-text")
                    patch_plot = gr.Plot(label="Patching effects", elem_id="patch-plot")
                with gr.Accordion("What-if: force a German beginning, or change one English word", open=False):
                    with gr.Row():
                        prefix = gr.Textbox(label="German prefix to force", elem_id="prefix",
                                            max_length=limits.MAX_CHARS, placeholder="e.g. Eine Katze", scale=4)
                        run_prefix = gr.Button("Force this prefix", elem_id="run-prefix", scale=1)
                    prefix_text = gr.Textbox(label="Next token", lines=3, interactive=False, elem_id="prefix-text")
                    with gr.Row():
                        prefix_bars = gr.Plot(label="Next-token distribution", elem_id="prefix-bars")
                        prefix_att = gr.Plot(label="Where each head looks next", elem_id="prefix-attention")
                    with gr.Row():
                        edit_piece = gr.Textbox(label="English word (or piece number) to change", elem_id="edit-piece",
                                                max_length=limits.MAX_CHARS, placeholder="e.g. dog")
                        edit_new = gr.Textbox(label="Replace it with (empty: mask it)", elem_id="edit-new",
                                              max_length=limits.MAX_CHARS, placeholder="e.g. cat")
                        run_edit = gr.Button("Edit and translate again", elem_id="run-edit")
                    edit_text = gr.Textbox(label="Translations", lines=3, interactive=False, elem_id="edit-text")
                    edit_bars = gr.Plot(label="Each original token's probability", elem_id="edit-bars")
                    edit_att = gr.Plot(label="Cross-attention, original vs edited", elem_id="edit-attention")
            with gr.Tab("Compare", id="compare") as tab_compare:
                gr.Markdown(texts.COMPARE)
                text_b = gr.Textbox(texts.COMPARE_B, label="Second sentence", max_length=limits.MAX_CHARS,
                                    elem_id="sentence-b")
                with gr.Row():
                    c_kind = gr.Radio(list(KIND_LABELS), value="Encoder self-attention", label="Attention type")
                    c_layer = gr.Slider(0, last, value=last, step=1, label="Layer", elem_id="compare-layer")
                    c_head = gr.Dropdown(heads, value=AVERAGE, label="Head")
                run_compare = gr.Button("Compare with the sentence shown above", elem_id="run-compare")
                compare_view = gr.Plot(label="Side by side, one colour scale", elem_id="compare-view")
            with gr.Tab("Model", id="model") as tab_model:
                gr.Markdown(texts.MODEL)
                card = gr.Markdown(card0)
                curves, lr_plot = gr.Plot(curves0, label="Training curves"), gr.Plot(lr0, label="Learning rate")
                with gr.Accordion("Attention through training: watch alignment form on the sentence shown",
                                  open=True):
                    gr.Markdown(texts.THROUGH_TRAINING)
                    with gr.Row():
                        tt_layer = gr.Slider(0, last, value=last, step=1, label="Cross-attention layer",
                                             elem_id="training-layer")
                        tt_head = gr.Dropdown(heads, value=AVERAGE, label="Head", elem_id="training-head")
                        run_training = gr.Button("Show attention through training", elem_id="run-training")
                    tt_table = gr.Markdown(elem_id="training-table")
                    tt_plot = gr.Plot(label="Through training", show_label=False, elem_id="training-plot")

        # Lazy parts: opening "Inside a head" or the bertviz panel clicks its hidden button (views.js), once per
        # analysis; no event fires on page load and reopening asks nothing.
        run_lazy = {name: gr.Button(elem_id=f"ae-run-{name}", elem_classes=["ae-hidden"]) for name in ("inside", "bertviz")}
        options = [method, beam_size, length_penalty, max_len, temperature, top_k, top_p, seed, no_repeat, rep_penalty]
        demo.link_rules = link_rules(model, method, {  # Request's field names, as links.js names them
            "beam_size": beam_size, "length_penalty": length_penalty, "max_len": max_len, "temperature": temperature,
            "top_k": top_k, "top_p": top_p, "seed": seed, "no_repeat_ngram_size": no_repeat,
            "repetition_penalty": rep_penalty})
        draw_in = [bank, text, model, kind, layer, head, step, step_layer, step_head, pe_len, pe_dims, *options]
        draw_out = [heatmap, all_heads, stats, step_plot, status, pe_table, pe_waves, pe_sim, pe_sentence, lens_plot]

        # -- Translate: button, Enter, or an example; exactly one decode with capture -------------------
        decode_in = [text, model, *options, shown]
        decode_out = [translation, pieces, bank, shown, step, beam_plot, compare_plot, ablation_text, before, after,
                      effect_plot, diff_plot, compare_view, attr_text, attr_plot, patch_text, patch_plot, prefix_text,
                      prefix_bars, prefix_att, edit_text, edit_bars, edit_att, tt_table, tt_plot, layer, head,
                      step_layer, step_head, in_layer, in_head, heads_off, preset, c_layer, tt_layer, tt_head, corrupt]

        view_state = [kind, layer, head, step, step_layer, step_head]

        def after_translate(event):  # a shared link's view state first (once), then every view drawn
            return (event.then(None, [*view_state, bank], view_state, js="(...v) => AE.linkView(...v)", **PRIVATE)
                    .then(None, draw_in, draw_out, js=DRAW, **PRIVATE)
                    .then(None, shown, None, js="(s) => { AE.refreshOpen(s); }", **PRIVATE))

        after_translate(gr.on([go.click, text.submit], ui.translate, decode_in, decode_out, **TRANSLATE_WORK, **PRIVATE))
        after_translate(examples.click(None, [examples, model], [text], js="(i, m) => AE_EXAMPLES[m][i]", **PRIVATE)
                        .then(ui.translate, decode_in, decode_out, **TRANSLATE_WORK, **PRIVATE))

        # -- views the browser draws: no server request --------------------------------------------
        demo.load(None, draw_in, draw_out, js=DRAW, **PRIVATE)
        redraw = gr.Button(elem_id="ae-redraw", elem_classes=["ae-hidden"])  # presentation mode: every view again
        redraw.click(None, draw_in, draw_out, js=DRAW, **PRIVATE)
        # -- shareable links (explorer/static/links.js): state in the URL; a link with a text translates on opening
        link_in = [text, model, *options]
        demo.load(None, link_in, link_in, js="(...v) => AE.linkIn(...v)", **PRIVATE).then(
            None, [bank, text, model, *options], status,  # the status line says what the link held that was ignored
            js="(b, t, m, ...o) => { AE.linkGo(); AE.figure1.highlight(); return AE.status(b, t, m, ...o); }", **PRIVATE)
        copy_link.click(None, [shown, *view_state], link_box, js="(...v) => AE.linkOut(...v)", **PRIVATE)
        present.click(None, None, present, js="() => AE.present.toggle()", **PRIVATE)  # present.js: no request
        attend_in = [bank, kind, layer, head]
        for c in (kind, layer, head):
            c.input(None, attend_in, [heatmap, all_heads, stats],
                    js="(b, k, l, h) => [AE.heatmap(b, k, l, h), AE.modelView(b, k), AE.stats(b, k)]", **PRIVATE)
        for c in (step, step_layer, step_head):
            c.input(None, [bank, step, step_layer, step_head], step_plot, js="(b, t, l, h) => AE.step(b, t, l, h)",
                    **PRIVATE)
        gr.on([c.change for c in (text, model, *options)], None, [bank, text, model, *options], status,
              js="(b, t, m, ...o) => AE.status(b, t, m, ...o)", **PRIVATE)

        for c in (pe_len, pe_dims):
            c.change(None, [bank, pe_len, pe_dims], [pe_table, pe_waves, pe_sim], js="(b, n, d) => AE.positional(b, n, d)",
                    **PRIVATE)

        # -- lazy parts -----------------------------------------------------------------------------------
        for tab, name in ((tab_attend, "attend"), (tab_steps, "steps"), (tab_pe, "pe"), (tab_inside, "inside"),
                          (tab_exp, "experiments"), (tab_beyond, "beyond"), (tab_compare, "compare"),
                          (tab_model, "model")):
            tab.select(None, shown, None, js=f"(s) => {{ AE.openTab({name!r}, s); }}", **PRIVATE)
        run_lazy["inside"].click(ui.inside_tab, [shown, in_kind, in_layer, in_head, in_query], [in_query, inside_plot],
                                 **VIEW_WORK, **PRIVATE)
        run_lazy["bertviz"].click(ui.bertviz, shown, [bv_head, bv_model], **VIEW_WORK, **PRIVATE)
        bv_box.expand(None, shown, None, js="(s) => { AE.openTab('bertviz', s); }", **PRIVATE)
        bv_box.collapse(None, None, None, js="() => { AE.closeTab('bertviz'); }", **PRIVATE)

        # -- server views that need the model ----------------------------------------------------------
        run_beam.click(ui.beam, [shown, beam_size], [beam_plot, compare_plot], **MODEL_WORK, **PRIVATE)
        in_kind.input(ui.inside_tab, [shown, in_kind, in_layer, in_head, in_query], [in_query, inside_plot],
                      **VIEW_WORK, **PRIVATE)
        for c in (in_layer, in_head, in_query):
            c.input(ui.inside_view, [shown, in_kind, in_layer, in_head, in_query], inside_plot, **VIEW_WORK, **PRIVATE)
        run_ablation.click(ui.ablate, [shown, heads_off], [ablation_text, before, after, effect_plot, diff_plot],
                           **MODEL_WORK, **PRIVATE)
        run_compare.click(ui.compare, [shown, text_b, c_kind, c_layer, c_head], compare_view, **MODEL_WORK, **PRIVATE)
        run_attr.click(ui.attribute, [shown, at_method, at_target, at_contrast, at_steps, at_layer],
                       [attr_text, attr_plot], **LONG_WORK, **PRIVATE)
        run_patch.click(ui.patch, [shown, corrupt, patch_pos], [patch_text, patch_plot], **LONG_WORK, **PRIVATE)
        gr.on([run_prefix.click, prefix.submit], ui.next_token, [shown, prefix], [prefix_text, prefix_bars, prefix_att],
              **MODEL_WORK, **PRIVATE)
        run_training.click(ui.training, [shown, tt_layer, tt_head], [tt_table, tt_plot], **LONG_WORK, **PRIVATE)
        run_edit.click(ui.edit_source, [shown, edit_piece, edit_new], [edit_text, edit_bars, edit_att], **MODEL_WORK,
                       **PRIVATE)
        preset.input(ui.ablation_preset, [shown, preset], heads_off, **PRIVATE)  # no model: names only
        # a model has its own input form, examples and output: switching fills in its first example and translates
        after_translate(model.input(ui.switch_model, model, [card, curves, lr_plot, text, examples, translation],
                                    **PRIVATE).then(ui.translate, decode_in, decode_out, **TRANSLATE_WORK, **PRIVATE))
        get_npz.click(ui.export_tensors, shown, npz_file, **MODEL_WORK, **PRIVATE).then(
            None, npz_file, None, js="(f) => AE.download(f)", **PRIVATE)
        get_html.click(ui.export_figures, [shown, kind, layer, head], html_file, **MODEL_WORK, **PRIVATE).then(
            None, html_file, None, js="(f) => AE.download(f)", **PRIVATE)

    return demo


def serve(demo: gr.Blocks, **kwargs):
    """Queue and launch as `python app.py` does (tests and benchmarks call this too)."""
    memory.limit_arenas()
    app_kwargs = dict(kwargs.pop("app_kwargs", None) or {})
    public = [fn.api_name for fn in demo.fns.values() if fn.api_name and fn.api_visibility != "private"]
    app_kwargs["middleware"] = [*app_kwargs.get("middleware", []),
                                Middleware(Edges, names=public),  # requests the app never needs: 4xx (edges.py)
                                Middleware(StaticCache)]  # see static_cache.py
    # queue positions are sent every STATUS_EVERY_S seconds, not to every waiting event at every job start
    # ("auto": with a class waiting that is quadratic in messages)
    demo.queue(default_concurrency_limit=limits.MODEL_SLOTS, max_size=limits.QUEUE_SIZE,
               status_update_rate=limits.STATUS_EVERY_S)
    # Gradio's queue loop polls every 1 ms when it has nothing to start (idle, or every worker busy): ~80 ms of
    # CPU a second doing nothing, more with a class queued. Every 10 ms adds at most 10 ms before an event starts.
    demo._queue.sleep_when_free = limits.QUEUE_POLL_S
    demo._queue.__class__ = FairQueue  # long work: a few per client, dropped when nobody listens (fair_queue.py)
    return demo.launch(head=head_html(demo.link_rules), app_kwargs=app_kwargs, **LAUNCH, **kwargs)


if __name__ == "__main__":
    try:
        demo = build()  # loads every shipped model: a broken checkpoint stops us here, not mid-session
    except UserError as e:
        sys.exit(f"error: {e}")
    serve(demo)
