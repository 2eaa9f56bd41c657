"""The top of the page, above the tabs: the sentence, the model and Translate; the folds ("Join a class", decoding
options, "Where am I", the guided lesson) with Copy link, Presentation mode and Start over beside them; the status
line, the translation and its pieces; the examples; and the page's copy of the analysis (hidden).

The first screen gets to the point: at 1280x800 the sentence, its translation and the first heatmap are in sight
(tests/test_every_screen.py)."""

from __future__ import annotations

import gradio as gr

from explorer.api.handlers import analysis, input_info, input_label, output_label, tokens_html
from explorer.page import texts
from explorer.page.tabs.common import PRIVATE, Page
from explorer.serving import limits
from explorer.serving.request import Request
from i18n import choices, label, rendered
from model.translator import available


def build(p: Page, examples_text: list[str], first: tuple) -> None:
    first_text, _, first_bank, first_shown = first  # the pieces: made again below
    task = p.tr.task
    gr.Markdown(label(texts.INTRO), elem_id="intro")
    with gr.Row(equal_height=False, elem_id="ask"):
        # the task's words in every language: the labels of a model chosen later come with its event (ui.switch_model)
        p.text = gr.Textbox(label=rendered("page.first.input", lambda: input_label(task)), value=examples_text[0],
                            max_length=limits.MAX_CHARS, scale=4, elem_id="sentence",
                            info=rendered("page.first.info", lambda: input_info(task)))
        p.model = gr.Dropdown(available(), value=p.model_name, label=label("page.model"), scale=1, min_width=120,
                              elem_id="model")
        p.go = gr.Button(label("page.translate"), variant="primary", elem_id="translate", scale=1, min_width=120)
    # shown by "Copy link" (links.js); hidden until then, so that it takes no room on the first screen
    p.link_box = gr.Textbox(label=label("page.link"), interactive=False, elem_id="link", max_lines=1,
                            elem_classes=["ae-hidden"])
    # the browser's own model: its download, then that Translate needs no server (local.js draws it; hidden while empty)
    gr.HTML('<div id="ae-local"></div>', elem_id="local-box")
    # drawn in this order at every width, an opened fold in its place (the Tab order is the order seen: WCAG 2.4.3);
    # "Join a class" first, where a student's phone shows it without scrolling the row
    with gr.Row(elem_id="folds", equal_height=False):
        gr.HTML('<div id="ae-join"></div>', elem_id="join-box")  # "Join a class" (a code): class.js draws it
        with gr.Accordion(label("page.options"), open=False, elem_id="options"):
            p.method = gr.Radio(choices([("page.decoding.greedy", "greedy"), ("page.decoding.beam", "beam"),
                                         ("page.decoding.sample", "sample")]), value="greedy",
                                label=label("page.decoding"))
            with gr.Row():
                p.beam_size = gr.Slider(1, limits.MAX_BEAM, value=4, step=1, label=label("page.beam_size"))
                p.length_penalty = gr.Slider(0, 2, value=0.6, step=0.1, label=label("page.length_penalty"))
            p.max_len = gr.Slider(1, limits.MAX_OUTPUT_TOKENS, value=60, step=1, label=label("page.max_len"))
            with gr.Row():
                p.temperature = gr.Slider(0.05, limits.MAX_TEMPERATURE, value=1.0, step=0.05,
                                          label=label("page.temperature"))
                p.top_k = gr.Slider(0, limits.MAX_TOP_K, value=0, step=1, label=label("page.top_k"))
            with gr.Row():
                p.top_p = gr.Slider(0.05, 1, value=1.0, step=0.05, label=label("page.top_p"))
                p.seed = gr.Number(0, precision=0, label=label("page.seed"))
            # departures from the paper's decoding, off by default: for the model's repetition loops
            p.no_repeat = gr.Slider(0, limits.MAX_NO_REPEAT_NGRAM, value=0, step=1, elem_id="no-repeat",
                                    label=label("page.no_repeat"), info=label("page.no_repeat.info"))
            p.rep_penalty = gr.Slider(1, limits.MAX_REPETITION_PENALTY, value=1, step=0.1, elem_id="rep-penalty",
                                      label=label("page.rep_penalty"), info=label("page.rep_penalty.info"))
        with gr.Accordion(label("page.where"), open=False, elem_id="where") as where_box:
            gr.HTML('<div id="ae-figure1"></div>', elem_id="figure1")  # explorer/page/static/figure1.js draws it
        with gr.Accordion(label("page.lesson"), open=False, elem_id="lesson-box"):
            gr.HTML(texts.LESSON_START, elem_id="lesson")  # explorer/page/static/lesson.js draws into #ae-lesson
        p.copy_link = gr.Button(label("page.copy_link"), elem_id="copy-link", scale=0, min_width=130)
        present = gr.Button(label("page.present"), elem_id="present", scale=0, min_width=190)
        reset = gr.Button(label("page.reset"), elem_id="reset", scale=0, min_width=130)
        teach = gr.Button(label("page.teach"), elem_id="teach", scale=0, min_width=150)
        gr.HTML('<div id="ae-langs"></div>', elem_id="langs")  # the language switch: i18n.js draws it
    gr.HTML('<div id="class-panel"></div>', elem_id="class-panel-box")  # explorer/classroom/static/class.js: the teacher's
    p.status = gr.HTML(elem_id="status")
    with gr.Row(equal_height=False, elem_id="result"):
        p.translation = gr.Textbox(first_text, label=rendered("page.first.output", lambda: output_label(task)),
                                   interactive=False, elem_id="translation", scale=1, min_width=240)
        # the first pieces and their advice in every language (first_pieces is the same, made in English)
        pieces = rendered("page.first.pieces", lambda: tokens_html(analysis(Request.from_json(first_shown))))
        p.pieces = gr.HTML(str(pieces), elem_id="pieces", scale=2, min_width=300)
    # the examples below the folds ("Join a class" stays on a small phone's first screen: helper 62, at 360x640 the
    # examples above it put it 140 px below the screen) and below the translation, which a press of Translate puts
    # on the first screen (helper 76: above it, they put the German at y=1026 of a 390x844 phone, 743 of a 1280x800
    # laptop's 800)
    p.examples = gr.Dataset(components=[gr.Textbox(visible=False)], samples=[[e] for e in examples_text],
                            label=label("page.examples"), type="index", elem_id="examples")
    # the page's copy of the analysis every view draws from: JSON text (views.js parses it once), which Gradio
    # passes through as it is (a gr.JSON value is validated and re-serialised on every event: ~10 ms for 60 KB)
    p.bank = gr.Textbox(first_bank, visible=False, elem_id="bank")
    p.shown = gr.Textbox(first_shown, visible=False, elem_id="shown")  # its request: what the server views read
    # the Model tab's figures in the page's language, asked for once when it opens (tabs/model.py)
    p.model_lang = gr.Button(elem_id="ae-model-lang", elem_classes=["ae-hidden"])
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
