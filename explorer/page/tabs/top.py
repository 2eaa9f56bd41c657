"""The top of the page, above the tabs: the sentence, the model and Translate; examples; the folds (decoding
options, "Where am I", the guided lesson) with Copy link, Presentation mode and Start over beside them; the status
line, the translation and its pieces; and the page's copy of the analysis (hidden).

The first screen gets to the point: at 1280x800 the sentence, its translation and the first heatmap are in sight
(tests/test_every_screen.py)."""

from __future__ import annotations

import gradio as gr

from explorer.api.handlers import input_info, input_label, output_label
from explorer.page import texts
from explorer.page.tabs.common import PRIVATE, Page
from explorer.serving import limits
from model.translator import available


def build(p: Page, examples_text: list[str], first: tuple) -> None:
    first_text, first_pieces, first_bank, first_shown = first
    task = p.tr.task
    gr.Markdown(texts.INTRO, elem_id="intro")
    with gr.Row(equal_height=False):
        p.text = gr.Textbox(label=input_label(task), value=examples_text[0], max_length=limits.MAX_CHARS, scale=4,
                            elem_id="sentence", info=input_info(task))
        p.model = gr.Dropdown(available(), value=p.model_name, label="Model", scale=1, min_width=120, elem_id="model")
        p.go = gr.Button("Translate", variant="primary", elem_id="translate", scale=1, min_width=120)
    # shown by "Copy link" (links.js); hidden until then, so that it takes no room on the first screen
    p.link_box = gr.Textbox(label="Link to this view", interactive=False, elem_id="link", max_lines=1,
                            elem_classes=["ae-hidden"])
    p.examples = gr.Dataset(components=[gr.Textbox(visible=False)], samples=[[e] for e in examples_text],
                            label="Examples (click one to translate it)", type="index", elem_id="examples")
    with gr.Row(elem_id="folds", equal_height=False):
        with gr.Accordion("Decoding options", open=False, elem_id="options"):
            p.method = gr.Radio(["greedy", "beam", "sample"], value="greedy", label="Decoding")
            with gr.Row():
                p.beam_size = gr.Slider(1, limits.MAX_BEAM, value=4, step=1, label="Beam size")
                p.length_penalty = gr.Slider(0, 2, value=0.6, step=0.1, label="Length penalty α")
            p.max_len = gr.Slider(1, limits.MAX_OUTPUT_TOKENS, value=60, step=1, label="Max output tokens")
            with gr.Row():
                p.temperature = gr.Slider(0.05, limits.MAX_TEMPERATURE, value=1.0, step=0.05, label="Temperature")
                p.top_k = gr.Slider(0, limits.MAX_TOP_K, value=0, step=1, label="Top-k (0 = off)")
            with gr.Row():
                p.top_p = gr.Slider(0.05, 1, value=1.0, step=0.05, label="Top-p")
                p.seed = gr.Number(0, precision=0, label="Seed")
            # departures from the paper's decoding, off by default: for the model's repetition loops
            p.no_repeat = gr.Slider(0, limits.MAX_NO_REPEAT_NGRAM, value=0, step=1, elem_id="no-repeat",
                                    label="No-repeat n-gram size (0 = off; not in the paper)",
                                    info="No sequence of this many pieces may appear twice.")
            p.rep_penalty = gr.Slider(1, limits.MAX_REPETITION_PENALTY, value=1, step=0.1, elem_id="rep-penalty",
                                      label="Repetition penalty (1 = off; not in the paper)",
                                      info="Pieces already written become less likely (CTRL, 2019).")
        with gr.Accordion("Where am I", open=False, elem_id="where") as where_box:
            gr.HTML('<div id="ae-figure1"></div>', elem_id="figure1")  # explorer/page/static/figure1.js draws it
        with gr.Accordion("Guided lesson", open=False, elem_id="lesson-box"):
            gr.HTML(texts.LESSON_START, elem_id="lesson")  # explorer/page/static/lesson.js draws into #ae-lesson
        p.copy_link = gr.Button("Copy link", elem_id="copy-link", scale=0, min_width=130)
        present = gr.Button("Presentation mode", elem_id="present", scale=0, min_width=190)
        reset = gr.Button("Start over", elem_id="reset", scale=0, min_width=130)
        teach = gr.Button("Teach a class", elem_id="teach", scale=0, min_width=150)
        gr.HTML('<div id="ae-langs"></div>', elem_id="langs")  # the language switch: i18n.js draws it
    gr.HTML('<div id="class-panel"></div>', elem_id="class-panel-box")  # explorer/classroom/static/class.js: the teacher's
    p.status = gr.HTML(elem_id="status")
    with gr.Row(equal_height=False, elem_id="result"):
        p.translation = gr.Textbox(first_text, label=output_label(task), interactive=False, elem_id="translation",
                                   scale=1, min_width=240)
        p.pieces = gr.HTML(first_pieces, elem_id="pieces", scale=2, min_width=300)
    # the page's copy of the analysis every view draws from: JSON text (views.js parses it once), which Gradio
    # passes through as it is (a gr.JSON value is validated and re-serialised on every event: ~10 ms for 60 KB)
    p.bank = gr.Textbox(first_bank, visible=False, elem_id="bank")
    p.shown = gr.Textbox(first_shown, visible=False, elem_id="shown")  # its request: what the server views read
    p.options = [p.method, p.beam_size, p.length_penalty, p.max_len, p.temperature, p.top_k, p.top_p, p.seed,
                 p.no_repeat, p.rep_penalty]

    present.click(None, None, present, js="() => AE.present.toggle()", **PRIVATE)  # present.js: no request
    # "Start over": the page as a first visit opens it (no link state), after asking: a student's view is lost
    reset.click(None, None, None, js="() => { AE.startOver(); }", **PRIVATE)
    teach.click(None, None, None, js="() => { AE.room.teach(); }", **PRIVATE)  # class.js: a room (/class/...)
    # the diagram is drawn when its fold opens (Gradio renders a closed fold's content only then)
    where_box.expand(None, None, None, js="() => { setTimeout(AE.figure1.highlight, 50); }", **PRIVATE)
    # typing, another model or other options: the status line says the views still show the translated sentence
    gr.on([c.change for c in (p.text, p.model, *p.options)], None, [p.bank, p.text, p.model, *p.options], p.status,
          js="(b, t, m, ...o) => AE.status(b, t, m, ...o)", **PRIVATE)
