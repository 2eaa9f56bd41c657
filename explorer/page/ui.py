"""The page's server events (private: the public API is explorer/api/endpoints.py). Each reads the request of the
analysis the page shows (``shown``, JSON set by Translate), never the text box, so a view can never
drift to a sentence that was typed but not translated.

Switching attention type, layer, head or decoding step has no server event at all, nor has opening the
Step, Positional or Experiments tab: the browser draws those views from the page's copy of the analysis
(explorer/page/static/views.js). What needs the model again runs on a button: beam search, ablation.
"""

from __future__ import annotations

import functools
import html
import re
from collections.abc import Callable
from typing import Any

import gradio as gr
from gradio.components.plot import PlotData

from explorer.api import beyond, through_training
from explorer.api import handlers as h
from explorer.api.endpoints import endpoint
from explorer.serving import exports, priority
from explorer.serving.request import Request, UserError
from i18n import label, rendered, t
from viz.compact import plot_value as _plot_value


def page_event(n_outputs: int, fallback: Any = "skip", failed: Any = None):
    """A page event's user error (an empty sentence, a bad number) becomes a toast, and every output keeps what
    it shows: raising would put an "Error" badge on each output component until the next success. Other
    errors go through `endpoint` (logged, short message). ``fallback`` replaces "keep" where keeping would
    repeat an old action (a download); ``failed(message)`` gives the outputs instead, where an old result left in
    place would look like the answer to the new settings."""
    def wrap(fn):
        @functools.wraps(fn)
        def soft(*args: Any):
            try:
                return fn(*args)
            except UserError as e:
                gr.Warning(html.escape(str(e), quote=False))  # a toast renders HTML; messages quote user text
                if failed is not None:
                    return failed(str(e))
                keep = [gr.skip() if fallback == "skip" else fallback for _ in range(n_outputs)]
                return keep[0] if n_outputs == 1 else tuple(keep)
        return endpoint(soft)
    return wrap


def experiment_event(n_plots: int):
    """A Beyond-attention button: on a user error its text says it did not run and its figures are emptied."""
    return page_event(1 + n_plots, failed=lambda message: (t("page.not_run", message=message), *([None] * n_plots)))


def plot_value(fig: Any) -> PlotData | None:
    """gr.Plot's own value type, so Gradio passes the compact JSON through untouched."""
    value = fig if isinstance(fig, dict) or fig is None else _plot_value(fig)
    return None if value is None else PlotData(**value)


def shown_as(key: str, make: Callable[[], str], build: bool) -> Any:
    """What a choice shows: at start-up (``build``) a key Gradio shows in the page's language, made in every language
    (``rendered``); in an event, the text in the request's language."""
    return rendered(key, make) if build else make()


def head_choices(n_heads: int, mean: bool = True, build: bool = False) -> list[tuple[Any, str]]:
    """A head picker's choices: (shown in the page's language, the value the code and links use: "head 3",
    "all heads (mean)")."""
    out = [(label("page.head.mean") if build else t("page.head.mean"), h.AVERAGE)] if mean else []
    return out + [(shown_as(f"page.head.n.{i}", lambda i=i: t("page.head.n", n=i), build), f"head {i}")
                  for i in range(n_heads)]


def preset_choices(tr: Any, build: bool = False) -> list[tuple[Any, str]]:
    """The ablation presets (their English names are the values, in links too), shown in the page's language."""
    return [(shown_as("page.preset.shown." + re.sub(r"\W+", "-", name), lambda name=name: h.spoken("page.preset.", name),
                      build), name) for name in h.ablation_presets(tr)]


def sized_controls(model: str) -> tuple:
    """Layer sliders, head pickers, the ablation choices and presets of a model, each at its default value: a head or
    layer of the previous model may not exist in this one (ablation would refuse a head it does not have)."""
    tr = h.model_for(model)
    cfg = tr.cfg
    last = max(cfg.n_encoder_layers, cfg.n_decoder_layers) - 1
    heads = head_choices(cfg.n_heads)
    return (gr.Slider(maximum=cfg.n_decoder_layers - 1, value=cfg.n_decoder_layers - 1),
            gr.Dropdown(choices=heads, value=h.AVERAGE),
            gr.Slider(maximum=cfg.n_decoder_layers - 1, value=cfg.n_decoder_layers - 1),
            gr.Dropdown(choices=heads, value=h.AVERAGE), gr.Slider(maximum=last, value=0),
            gr.Dropdown(choices=heads[1:], value="head 0"),
            gr.CheckboxGroup(choices=h.head_names(tr), value=h.default_ablation(tr)),
            gr.Dropdown(choices=preset_choices(tr), value=h.DEFAULT_PRESET),
            gr.Slider(maximum=cfg.n_decoder_layers - 1, value=cfg.n_decoder_layers - 1),  # the Compare tab's layer
            gr.Slider(maximum=cfg.n_decoder_layers - 1, value=cfg.n_decoder_layers - 1),  # through training: layer,
            gr.Dropdown(choices=heads, value=h.AVERAGE))  # head


N_SIZED = 11  # outputs of sized_controls
CLEARED = (None, None, "", None, None, None, None, None,  # beam tree, greedy vs beam, ablation text and figures,
           "", None, "", None, "", None, None, "", None, None,  # the comparison; attribution, patching, what-if;
           "", None)  # through training: the old sentence's


@page_event(5 + len(CLEARED) + N_SIZED + 1)
def translate(text: Any, model: Any, method: Any, beam_size: Any, length_penalty: Any, max_len: Any,
              temperature: Any, top_k: Any, top_p: Any, seed: Any, no_repeat: Any = 0, rep_penalty: Any = 1.0,
              shown: Any = None):
    """Translate: one decode with capture. -> German, token pieces, the page's copy of the analysis, its request,
    the step slider sized to this decode, the views of the previous sentence that needed a button (cleared), and
    (only when the model is not the one shown) the controls sized to the new model. On a user error (an empty
    sentence) nothing changes but a toast."""
    with priority.translating():
        return _translate(text, model, method, beam_size, length_penalty, max_len, temperature, top_k, top_p, seed,
                          no_repeat, rep_penalty, shown)


def _translate(text, model, method, beam_size, length_penalty, max_len, temperature, top_k, top_p, seed, no_repeat,
               rep_penalty, shown):
    req = Request.parse(text, model, method, beam_size, length_penalty, temperature, top_k, top_p, seed, max_len,
                        no_repeat_ngram_size=no_repeat, repetition_penalty=rep_penalty)
    try:
        same_model = shown not in (None, "") and Request.from_json(shown).model == req.model
    except UserError:
        same_model = False
    sized = tuple(gr.skip() for _ in range(N_SIZED)) if same_model else sized_controls(req.model)
    return first_view(req) + CLEARED + sized + (beyond.suggested_corruption(req.text, req.model),)


def initial(req: Request) -> tuple:
    """German, token pieces, the page's copy of the analysis, its request, the last step. At start-up this
    is the default sentence's first view, which the page is built with: a page load runs no model."""
    a = h.analysis(req)
    return a.translation, h.tokens_html(a), h.page_json(req), req.to_json(), max(len(a.trace.steps), 1) - 1


def first_view(req: Request) -> tuple:
    """The first view of a translation. Its warnings (a note, a loop, low confidence) are in the pieces it returns,
    not toasts: a toast would stay over the next sentence's views."""
    *values, last_step = initial(req)
    return (*values, gr.Slider(maximum=last_step, value=0))


def _req(shown: Any) -> Request:
    return Request.from_json(shown)


@page_event(2)
def beam(shown: Any, beam_size: Any = None):
    """The Step tab's "Run beam search" button: a second decode (beam, with the beam size set in Decoding options
    now), its tree, and greedy vs beam."""
    req = _req(shown)
    if beam_size not in (None, ""):
        req = Request.parse(req.text, req.model, "beam", beam_size, req.length_penalty, max_len=req.max_len,
                            no_repeat_ngram_size=req.no_repeat_ngram_size, repetition_penalty=req.repetition_penalty)
    return tuple(plot_value(f) for f in h.beam_views(req))


@page_event(2)
def inside_tab(shown: Any, kind: Any, layer: Any, head: Any, query: Any):
    """Opening the tab (or a new translation): the query choices of this analysis, and the head's arithmetic."""
    priority.after_translations()
    req = _req(shown)
    choices = h.query_choices(req, kind)
    names = [c.split(":")[0] for c in choices]
    q = str(query).split(":")[0] if query not in (None, "") else ""
    value = choices[names.index(q)] if q in names else choices[min(1, len(choices) - 1)]
    # a query that is one of the choices is left as the page has it: a run that ends after a newer value arrived (a
    # follower given the teacher's kind, then query) must not set the older one back; another is renamed or replaced
    dropdown = gr.Dropdown(choices=choices) if value == query else gr.Dropdown(choices=choices, value=value)
    return dropdown, plot_value(h.inside_head(req, kind, layer, head, value))


@page_event(1)
def inside_view(shown: Any, kind: Any, layer: Any, head: Any, query: Any):
    priority.after_translations()
    return plot_value(h.inside_head(_req(shown), kind, layer, head, query))


@page_event(5)
def ablate(shown: Any, heads: Any):
    summary, *figures = h.ablation(_req(shown), heads)
    return (summary, *(plot_value(f) for f in figures))


@page_event(1)
def compare(shown: Any, text_b: Any, kind: Any, layer: Any, head: Any):
    """The Compare tab's button: the shown sentence and the second one, same view, one colour scale."""
    return plot_value(h.compare(_req(shown), text_b, kind, layer, head))


@page_event(1)
def ablation_preset(shown: Any, preset: Any):
    """A preset of the ablation picker -> the heads it names (in the shown analysis's model). None chosen (heads ticked
    by hand empty it, and Tab out of it fires its input): the heads stay as they are, without a word (audit 65: Tab
    through it said "Unknown preset 'None'", a warning over the focused control at 320x256)."""
    if preset is None or preset == "":
        return gr.skip()
    presets = h.ablation_presets(h.model_for(_req(shown).model))
    if preset not in presets:
        raise UserError(t("page.preset.unknown", name=repr(str(preset)[:40])))
    return gr.CheckboxGroup(value=presets[preset])


@page_event(2)
def bertviz(shown: Any):
    priority.after_translations()
    return h.bertviz_frames(_req(shown))


@endpoint
def model_tab(model: Any):
    card, curves, lr = h.model_page(model)
    return card, plot_value(curves), plot_value(lr)


@endpoint
def switch_model(model: Any):
    """The model dropdown: its Model tab, and the text box, examples and output label of its own task (the page
    then translates the model's first example: an English sentence is no input for the toy that reverses
    letters)."""
    task = h.model_for(model).task
    examples = h.examples_for(model)
    return (*model_tab(model), gr.Textbox(value=examples[0], label=h.input_label(task), info=h.input_info(task)),
            gr.Dataset(samples=[[e] for e in examples]), gr.Textbox(label=h.output_label(task)))


@page_event(1, fallback=None)
def export_tensors(shown: Any):
    req = _req(shown)
    return exports.write(h.export_npz(req), "analysis", ".npz")


@page_event(1, fallback=None)
def export_figures(shown: Any, kind: Any, layer: Any, head: Any):
    req = _req(shown)
    return exports.write(h.export_html(req, kind, layer, head), "figures", ".html")



# -- Beyond attention: attribution, patching, what-if (explorer/api/beyond.py) ---------------------------------
@experiment_event(1)
def attribute(shown: Any, method: Any, target: Any, contrast: Any, steps: Any, layer: Any):
    text, fig = beyond.attribution(_req(shown), method, target, contrast, steps, layer)
    return text, plot_value(fig)


@experiment_event(1)
def patch(shown: Any, corrupt: Any, position: Any):
    text, fig = beyond.patching(_req(shown), corrupt, position)
    return text, plot_value(fig)


@experiment_event(2)
def next_token(shown: Any, prefix: Any):
    text, bars, att = beyond.next_token(_req(shown), prefix)
    return text, plot_value(bars), plot_value(att)


@experiment_event(1)
def training(shown: Any, layer: Any, head: Any):
    """The Model tab's "Show attention through training": every snapshot on the shown sentence."""
    table, fig = through_training.view(_req(shown), layer, head)
    return table, plot_value(fig)


@experiment_event(2)
def edit_source(shown: Any, piece: Any, replacement: Any):
    text, bars, att = beyond.edit_source(_req(shown), piece, replacement)
    return text, plot_value(bars), plot_value(att)
