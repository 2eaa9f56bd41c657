"""Attention Explorer: look inside an English->German Transformer, one tab per step.

    python app.py     # http://127.0.0.1:7860; GRADIO_SERVER_NAME / GRADIO_SERVER_PORT are honoured
    python app.py --port 8000 --host 0.0.0.0     # the same, as arguments

Only wiring lives here: components, and events bound to explorer.page (the page: its tabs, its events in ui.py,
the views the browser draws itself in page/static/, its styles in page/static/style.css), explorer.api (the public
API), explorer.classroom (class rooms) and explorer.serving (what keeps a public server fair and alive).
docs/architecture.md describes the data flow of one translation.
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

from explorer.api import endpoints  # noqa: E402
from explorer.api.handlers import ablation_presets, examples_for, head_names, learned_tables, model_for, model_page  # noqa: E402
from explorer.browser_model.routes import ModelFiles  # noqa: E402
from explorer.classroom.routes import ClassRoutes  # noqa: E402
from explorer.page import ui  # noqa: E402
from explorer.page.local import browser_model, local_config  # noqa: E402
from explorer.page.tabs import attend, beyond, compare, experiments, inside, positional, steps, top  # noqa: E402
from explorer.page.tabs import model as model_tab  # noqa: E402
from explorer.page.tabs.common import LONG_WORK, MODEL_WORK, PRIVATE, TRANSLATE_WORK, Page  # noqa: E402
from explorer.serving import connections, limits, memory  # noqa: E402
from explorer.serving.blocks import ExplorerBlocks  # noqa: E402
from explorer.serving.edges import Edges  # noqa: E402
from explorer.serving.fair_queue import FairQueue  # noqa: E402
from explorer.serving.request import Request, UserError, default_model  # noqa: E402
from explorer.serving.static_cache import StaticCache  # noqa: E402
from explorer.serving.store import STORE  # noqa: E402
from i18n import gradio_i18n, page_catalogues  # noqa: E402
from model.translator import available  # noqa: E402

torch.set_num_threads(int(os.environ.get("TORCH_THREADS", "1")))  # one request per core, one thread each
EXPLORER = Path(__file__).parent / "explorer"
PAGE_STATIC = EXPLORER / "page" / "static"
# the browser's part of the page and of class rooms, inlined into the page's <head> (head_html)
VIEWS_JS = "\n".join(path.read_text(encoding="utf-8") for path in (
    *(PAGE_STATIC / name for name in ("i18n.js", "draw_once.js", "views.js", "a11y.js", "figures.js", "links.js",
                                      "lesson_stops.js", "lesson.js", "present.js", "figure1.js", "sight.js", "local.js",
                                      "inside.js")),
    EXPLORER / "classroom" / "static" / "class.js"))
CSS = (PAGE_STATIC / "style.css").read_text(encoding="utf-8").removesuffix("\n")  # the page's styles
LAUNCH = dict(css=CSS, state_session_capacity=limits.SESSION_CAPACITY)  # head= is added by build()
# Every view the browser draws from the page's copy of the analysis (the views that need the model again,
# beam search and ablation, are cleared by Translate itself: they belong to the previous sentence).
DRAW = """(bank, text, model, kind, layer, head, step, slayer, shead, peLen, peDims, ...options) => [
  AE.heatmap(bank, kind, layer, head), AE.modelView(bank, kind), AE.stats(bank, kind), AE.step(bank, step, slayer, shead),
  AE.status(bank, text, model, ...options),
  ...AE.positional(bank, peLen, peDims), AE.peSentence(bank), AE.lens(bank)]"""


# links.js's keys of the decoding options, in p.options's order
LINK_OPTIONS = ("method", "beam", "alpha", "max_len", "temperature", "top_k", "top_p", "seed", "no_repeat",
                "rep_penalty")
# inputs of the page that are deliberately not in a link or a room's state, by elem_id, with why
LEFT_OUT = {
    "examples": "a click copies its sentence into the text box, which the state holds",
}


def link_rules(model: gr.Dropdown, method: gr.Radio, numbers: dict[str, gr.Slider | gr.Number]) -> dict:
    """What a link's request fields may hold, read from the components that will take them (links.js checks each
    value against these before it sets a component)."""
    def rule(c):
        if isinstance(c, gr.Number):  # the seed: Request's own range
            return [0, 2**31 - 1, True]
        return [c.minimum, c.maximum, float(c.step).is_integer() and float(c.minimum).is_integer()]
    return {"models": [str(v) for _, v in model.choices], "methods": [str(v) for _, v in method.choices],
            "numbers": {field: rule(c) for field, c in numbers.items()}}


def extra_rules(extras: dict[str, gr.components.Component], sized: dict[str, str]) -> dict:
    """What a link may hold for every other input a student can set (the Experiments, Beyond attention, Compare and
    Positional controls): each component's kind, default and range or choices; ``sized`` names those whose range
    depends on the model (links.js checks them against the analysis, and the heads and presets against the model's
    own, ``by_model``)."""
    def rule(key, c):
        value = c.value
        if isinstance(c, gr.Slider):
            out = {"type": "number", "min": c.minimum, "max": c.maximum, "default": value,
                   "whole": float(c.step).is_integer() and float(c.minimum).is_integer()}
        elif isinstance(c, gr.Number):  # the patching position: -1 (the first that differs) or an output position
            out = {"type": "number", "min": -1, "max": limits.MAX_OUTPUT_TOKENS, "whole": True, "default": value}
        elif isinstance(c, gr.CheckboxGroup):
            out = {"type": "choices", "default": list(value or [])}
        elif isinstance(c, (gr.Radio, gr.Dropdown)):
            out = {"type": "choice", "choices": [str(v) for _, v in c.choices], "default": value}
        else:
            out = {"type": "text", "default": value or ""}
        return out | ({"sized": sized[key]} if key in sized else {})
    rules = {key: rule(key, c) for key, c in extras.items()}
    by_model = {name: {"heads": head_names(model_for(name)), "preset": list(ablation_presets(model_for(name)))}
                for name in available()}
    return {"fields": rules, "by_model": by_model}


def head_html(rules: dict, local: dict) -> str:
    """views.js, the examples, the learned positional tables (if a model has one), what a link may hold and what the
    browser's own model needs (explorer/page/local.py), for the page's <head>."""
    examples = {name: examples_for(name) for name in available()}  # each model's own, clicked by index
    # the catalogues first: i18n.js runs first and every other script speaks through it
    return (f"<script>window.AE_I18N = {json.dumps(page_catalogues(), ensure_ascii=False)};\n"
            f"window.AE_GRADIO_CORE = {json.dumps(gradio_core())};\n{VIEWS_JS}\nwindow.AE_EXAMPLES = {json.dumps(examples)};\n"
            f"window.AE_PE_TABLES = {json.dumps(learned_tables(available()))};\n"
            f"window.AE_LINK_RULES = {json.dumps(rules)};\n"
            f"window.AE_LOCAL = {json.dumps(local, ensure_ascii=False)};\n"
            f"window.AE_MAX_CHARS = {limits.MAX_CHARS};</script>")


def gradio_core() -> str | None:
    """The file name of Gradio's frontend module that holds its i18n locale (i18n.js sets it to the page's
    language); None if this Gradio has no such file (the labels then follow the browser's language)."""
    assets = Path(gr.__file__).parent / "templates" / "frontend" / "assets"
    found = sorted(assets.glob("core-*.js"))
    return found[0].name if len(found) == 1 else None


def build() -> gr.Blocks:
    model_name = default_model()
    if not available():
        raise UserError("no checkpoints found: every model folder in checkpoints/ needs model.safetensors")
    for name in available():  # a broken checkpoint stops start-up here, not mid-session
        model_for(name)
        model_page(name)
    tr = model_for(model_name)
    examples_text = examples_for(model_name)
    default = Request.parse(examples_text[0], model_name)  # the model's first example is shown on load
    for text in examples_text:  # examples answer at once
        for method in ("greedy", "beam"):
            STORE.pin(Request.parse(text, model_name, method))
    *first, first_steps = ui.initial(default)
    p = Page(tr=tr, model_name=model_name, last=tr.cfg.n_decoder_layers - 1,
             heads=ui.head_choices(tr.cfg.n_heads, build=True),  # (shown in the page's language, value)
             local=browser_model(model_name) is not None)  # the browser may draw what its own model made

    with ExplorerBlocks(title="Attention Explorer") as demo:
        # the public API first, so that its names are taken before the page's private events are registered
        for name, fn in endpoints.PUBLIC.items():  # README's names; each works called alone, defaults filled in
            gr.api(fn, api_name=name, **({} if name in endpoints.LIGHT else TRANSLATE_WORK if name == "translate" else
                                         LONG_WORK if name in endpoints.LONG else MODEL_WORK))
        # -- the page, top to bottom: each part's layout and the events of its own controls --------------------
        top.build(p, examples_text, first)
        # Lazy parts: opening "Inside a head" or the bertviz panel clicks its hidden button (views.js), once per
        # analysis; no event fires on page load and reopening asks nothing. Outside the tabs: always on the page.
        p.run_lazy = {name: gr.Button(elem_id=f"ae-run-{name}", elem_classes=["ae-hidden"])
                      for name in ("inside", "bertviz")}
        # wrap: every tab's button stays on the page at any width (Gradio's "menu" hides most behind "•••" on a
        # phone); links.js still opens the menu when a tab has none
        with gr.Tabs(overflow_behavior="wrap", elem_id="tabs"):
            attend.build(p)
            steps.build(p, first_steps)
            positional.build(p)
            inside.build(p)
            experiments.build(p)
            beyond.build(p, default.text)
            compare.build(p)
            model_tab.build(p)

        # -- what crosses the tabs: Translate, drawing, links -------------------------------------------------
        demo.link_rules = link_rules(p.model, p.method, {  # Request's field names, as links.js names them
            "beam_size": p.beam_size, "length_penalty": p.length_penalty, "max_len": p.max_len,
            "temperature": p.temperature, "top_k": p.top_k, "top_p": p.top_p, "seed": p.seed,
            "no_repeat_ngram_size": p.no_repeat, "repetition_penalty": p.rep_penalty})
        # every other input a student can set, by its link key (links.js): restored after a link's translation, and
        # the results the link showed run again (one model call each)
        extras = {"heads": p.heads_off, "preset": p.preset, "attr_method": p.at_method, "attr_steps": p.at_steps,
                  "attr_layer": p.at_layer, "attr_target": p.at_target, "attr_contrast": p.at_contrast,
                  "corrupt": p.corrupt, "patch_pos": p.patch_pos, "prefix": p.prefix, "edit_word": p.edit_piece,
                  "edit_new": p.edit_new, "text_b": p.text_b, "c_kind": p.c_kind, "c_layer": p.c_layer,
                  "c_head": p.c_head, "pe_len": p.pe_len, "pe_dims": p.pe_dims}
        # Inside a head and attention through training: their pickers too (a follower sees the teacher's head)
        extras |= {"in_kind": p.in_kind, "in_layer": p.in_layer, "in_head": p.in_head, "in_query": p.in_query,
                   "tt_layer": p.tt_layer, "tt_head": p.tt_head}
        demo.link_rules["extras"] = extra_rules(extras, {"heads": "heads", "preset": "preset", "attr_layer": "layer",
                                                         "c_layer": "layer", "c_head": "head", "in_layer": "layer",
                                                         "tt_layer": "layer", "tt_head": "head"})
        # the query token's choices are the shown analysis's tokens ("3: dog"): any short text, matched by its number
        demo.link_rules["extras"]["fields"]["in_query"] = {"type": "text", "default": ""}
        extra_in = list(extras.values())
        # every input a student can set, by its link key: the link and the class room carry exactly these
        # (tests/test_link_state.py: every other input of the page is named in LEFT_OUT, with why)
        demo.link_state = {"text": p.text, "model": p.model, **dict(zip(LINK_OPTIONS, p.options)), "kind": p.kind,
                           "layer": p.layer, "head": p.head, "step": p.step, "step_layer": p.step_layer,
                           "step_head": p.step_head, **extras}
        options = p.options
        draw_in = [p.bank, p.text, p.model, p.kind, p.layer, p.head, p.step, p.step_layer, p.step_head, p.pe_len,
                   p.pe_dims, *options]
        draw_out = [p.heatmap, p.all_heads, p.stats, p.step_plot, p.status, p.pe_table, p.pe_waves, p.pe_sim,
                    p.pe_sentence, p.lens_plot]

        # Translate: button, Enter, or an example; exactly one decode with capture. Its outputs, in ui.translate's
        # order: the new analysis, the button views of the old one cleared (ui.CLEARED), the controls sized to a new
        # model (ui.sized_controls), the suggested corrupted sentence.
        decode_in = [p.text, p.model, *options, p.shown]
        decode_out = [p.translation, p.pieces, p.bank, p.shown, p.step,
                      p.beam_plot, p.compare_plot, p.ablation_text, p.before, p.after, p.effect_plot, p.diff_plot,
                      p.compare_view, p.attr_text, p.attr_plot, p.patch_text, p.patch_plot, p.prefix_text,
                      p.prefix_bars, p.prefix_att, p.edit_text, p.edit_bars, p.edit_att, p.tt_table, p.tt_plot,
                      p.layer, p.head, p.step_layer, p.step_head, p.in_layer, p.in_head, p.heads_off, p.preset,
                      p.c_layer, p.tt_layer, p.tt_head, p.corrupt]
        view_state = [p.kind, p.layer, p.head, p.step, p.step_layer, p.step_head]

        def after_translate(event):  # a shared link's view state first (once), then every view drawn
            return (event.then(None, [*view_state, p.bank], view_state, js="(...v) => AE.linkView(...v)", **PRIVATE)
                    .then(None, draw_in, draw_out, js=DRAW, **PRIVATE)
                    .then(None, p.shown, None, js="(s) => { AE.refreshOpen(s); AE.lesson.refresh(); }", **PRIVATE)
                    # a link's other inputs (once), then its results asked for again by their own buttons
                    .then(None, [*extra_in, p.bank], extra_in, js="(...v) => AE.linkExtras(...v)", **PRIVATE)
                    .then(None, None, None, js="() => { AE.linkRun(); }", **PRIVATE))

        # its progress shown on the German box alone: on all 37 outputs, marking each pending was a 60 ms task of
        # the browser's before the request even left
        translate = dict(fn=ui.translate, inputs=decode_in, outputs=decode_out, show_progress_on=[p.translation],
                         **TRANSLATE_WORK, **PRIVATE)
        # always_last: a Translate while one runs (a student joining a class while the page's own link translates,
        # a sentence retyped at once) runs after it with the newest sentence, instead of being dropped (Gradio's "once")
        # ... first in the browser (explorer/page/static/local.js: the page's model loaded there, greedy), which
        # then presses #ae-local-done (the views' chain) or, where only the server can, #ae-server-translate (its
        # always_last keeps the server's Translates in order; local.js keeps the browser's behind them, and drops a
        # browser result a newer press has overtaken)
        demo.local = local_config(model_name, len(decode_out))
        local = dict(fn=None, inputs=[*decode_in, p.bank], outputs=decode_out, js="(...v) => AE.local.translate(...v)",
                     show_progress="hidden", **PRIVATE)
        local_then = dict(fn=None, js="() => { AE.local.after(); }", **PRIVATE)
        gr.on([p.go.click, p.text.submit], **local).then(**local_then)
        p.examples.click(None, [p.examples, p.model], [p.text], js="(i, m) => AE_EXAMPLES[m][i]",
                         **PRIVATE).then(**local).then(**local_then)
        after_translate(gr.Button(elem_id="ae-server-translate", elem_classes=["ae-hidden"]).click(
            **translate, trigger_mode="always_last")).then(None, None, None, js="() => { AE.local.serverDone(); }",
                                                          **PRIVATE)
        after_translate(gr.Button(elem_id="ae-local-done", elem_classes=["ae-hidden"]).click(
            None, None, None, js="() => {}", **PRIVATE))
        # a model has its own input form, examples and output: switching fills in its first example and translates.
        # Only another model switches: Gradio fires the dropdown's input when focus merely leaves it (Tab, a click
        # elsewhere), which threw the typed sentence away for example 1 (AE.modelPicked presses the hidden button)
        p.model.input(None, [p.model, p.shown], None, js="(m, s) => { AE.modelPicked(m, s); }", **PRIVATE)
        after_translate(gr.Button(elem_id="ae-switch-model", elem_classes=["ae-hidden"]).click(
            ui.switch_model, p.model, [p.card, p.curves, p.lr_plot, p.text, p.examples, p.translation],
            **PRIVATE).then(**translate))

        # views the browser draws: no server request (page load too: its bank was made at start-up)
        demo.load(None, draw_in, draw_out, js=DRAW, **PRIVATE)
        redraw = gr.Button(elem_id="ae-redraw", elem_classes=["ae-hidden"])  # presentation mode: every view again
        redraw.click(None, draw_in, draw_out, js=DRAW, **PRIVATE)
        # the lesson's stop sets the values its question is about (layer, head, step: lesson.js), then every view again
        gr.Button(elem_id="ae-lesson-view", elem_classes=["ae-hidden"]).click(
            None, view_state, view_state, js="(...v) => AE.lesson.values(...v)", **PRIVATE).then(
            None, draw_in, draw_out, js=DRAW, **PRIVATE)
        # shareable links (explorer/page/static/links.js): state in the URL; a link with a text translates on opening
        link_in = [p.text, p.model, *options]
        demo.load(None, link_in, link_in, js="(...v) => AE.linkIn(...v)", **PRIVATE).then(
            None, [p.bank, p.text, p.model, *options], p.status,  # the status line names what a link held and was
            js="(b, t, m, ...o) => { AE.linkGo(); AE.figure1.highlight(); AE.room.start(); AE.present.resume();"
               " AE.lesson.resume(); AE.local.start(); return AE.status(b, t, m, ...o); }",
            **PRIVATE)  # ignored
        p.copy_link.click(None, [p.shown, *view_state, *extra_in], p.link_box, js="(...v) => AE.linkOut(...v)",
                          **PRIVATE)
        # class rooms (explorer/classroom/static/class.js): a follower shows the teacher's view as a link opened now would be
        # (its request set, then Translate, or only Translate's after-chain when the sentence is the one shown); the
        # teacher's view and a student's shared view are read from the page by hidden buttons (no server request)
        follow_in = gr.Button(elem_id="ae-follow-in", elem_classes=["ae-hidden"])
        follow_in.click(None, link_in, link_in, js="(...v) => AE.followIn(...v)", **PRIVATE).then(
            None, None, None, js="() => { AE.followGo(); }", **PRIVATE)
        after_translate(gr.Button(elem_id="ae-follow-view", elem_classes=["ae-hidden"]).click(
            None, None, None, js="() => { AE.replay(); }", **PRIVATE))
        gr.Button(elem_id="ae-room-state", elem_classes=["ae-hidden"]).click(
            None, [p.shown, *view_state, *extra_in], None,
            js="(...v) => { AE.room.push(AE.linkQuery(...v, AE.NO_RUNS)); }", **PRIVATE)
        # the language switch (i18n.js): the page reopens in the new language with its state in the link
        gr.Button(elem_id="ae-lang-state", elem_classes=["ae-hidden"]).click(
            None, [p.shown, *view_state, *extra_in], None, js="(...v) => { AE.langGo(AE.linkQuery(...v)); }",
            **PRIVATE)
        gr.Button(elem_id="ae-room-share", elem_classes=["ae-hidden"]).click(
            None, [p.shown, *view_state, *extra_in], None, js="(...v) => { AE.room.share(AE.linkQuery(...v)); }",
            **PRIVATE)
    return demo


def serve(demo: gr.Blocks, **kwargs):
    """Queue and launch as `python app.py` does (tests and benchmarks call this too)."""
    memory.limit_arenas()
    connections.install()  # a request sent a byte at a time is closed; a peer holds a share of the sockets
    app_kwargs = dict(kwargs.pop("app_kwargs", None) or {})
    public = [fn.api_name for fn in demo.fns.values() if fn.api_name and fn.api_visibility != "private"]
    app_kwargs["middleware"] = [*app_kwargs.get("middleware", []),
                                Middleware(Edges, names=public),  # requests the app never needs: 4xx (serving/edges.py)
                                Middleware(ClassRoutes),  # class rooms: /class/... (classroom/routes.py)
                                Middleware(ModelFiles),  # /browser-model/...: the JS model's files (browser_model/routes.py)
                                Middleware(StaticCache)]  # see serving/static_cache.py
    # queue positions are sent every STATUS_EVERY_S seconds, not to every waiting event at every job start
    # ("auto": with a class waiting that is quadratic in messages)
    demo.queue(default_concurrency_limit=limits.MODEL_SLOTS, max_size=limits.QUEUE_SIZE,
               status_update_rate=limits.STATUS_EVERY_S)
    # Gradio's queue loop polls every 1 ms when it has nothing to start (idle, or every worker busy): ~80 ms of
    # CPU a second doing nothing, more with a class queued. Every 10 ms adds at most 10 ms before an event starts.
    demo._queue.sleep_when_free = limits.QUEUE_POLL_S
    demo._queue.__class__ = FairQueue  # long work: a few per client, dropped when nobody listens (serving/fair_queue.py)
    return demo.launch(head=head_html(demo.link_rules, demo.local), app_kwargs=app_kwargs, i18n=gradio_i18n(), **LAUNCH, **kwargs)


def arguments(argv: list[str]) -> dict:
    """--port and --host -> launch()'s server_port and server_name; anything else is refused with the usage (an
    unknown argument was ignored: `--port 7849` served on 7860, accessibility helper 49)."""
    import argparse

    p = argparse.ArgumentParser(prog="python app.py", description="Attention Explorer (GRADIO_SERVER_PORT and "
                                "GRADIO_SERVER_NAME are honoured too)")
    p.add_argument("--port", type=int, help="the port (default 7860)")
    p.add_argument("--host", help="the address to listen on (default 127.0.0.1; 0.0.0.0 for every interface)")
    a = p.parse_args(argv)
    return {k: v for k, v in (("server_port", a.port), ("server_name", a.host)) if v is not None}


if __name__ == "__main__":
    where = arguments(sys.argv[1:])  # (before the models load: a mistyped argument is told at once)
    try:
        demo = build()  # loads every shipped model: a broken checkpoint stops us here, not mid-session
    except UserError as e:
        sys.exit(f"error: {e}")
    serve(demo, **where)
