"""The page's server events (private: the public API is explorer/api.py). Each reads the request of the
analysis the page shows (``shown``, JSON set by Translate), never the text box, so a view can never
drift to a sentence that was typed but not translated.

Switching attention type, layer, head or decoding step has no server event at all, nor has opening the
Step, Positional or Experiments tab: the browser draws those views from the page's copy of the analysis
(explorer/static/views.js). What needs the model again runs on a button: beam search, ablation.
"""

from __future__ import annotations

import functools
from typing import Any

import gradio as gr
from gradio.components.plot import PlotData

from explorer import exports
from explorer import handlers as h
from explorer.api import endpoint
from explorer.request import Request
from viz.compact import plot_value as _plot_value


def plot_value(fig: Any) -> PlotData | None:
    """gr.Plot's own value type, so Gradio passes the compact JSON through untouched."""
    value = fig if isinstance(fig, dict) or fig is None else _plot_value(fig)
    return None if value is None else PlotData(**value)


def sized_controls(model: str) -> tuple:
    """Layer sliders, head pickers and ablation choices sized to the model."""
    cfg = h.model_for(model).cfg
    last = max(cfg.n_encoder_layers, cfg.n_decoder_layers) - 1
    heads = [h.AVERAGE] + [f"head {i}" for i in range(cfg.n_heads)]
    return (gr.Slider(maximum=last), gr.Dropdown(choices=heads), gr.Slider(maximum=cfg.n_decoder_layers - 1),
            gr.Dropdown(choices=heads), gr.Slider(maximum=last), gr.Dropdown(choices=heads[1:]),
            gr.CheckboxGroup(choices=h.head_names(h.model_for(model))))


@endpoint
def translate(text: Any, model: Any, method: Any, beam_size: Any, length_penalty: Any, max_len: Any,
              temperature: Any, top_k: Any, top_p: Any, seed: Any):
    """Translate: one decode with capture. -> German, token pieces, the page's copy of the analysis, its request,
    the step slider sized to this decode, and the controls sized to the model."""
    req = Request.parse(text, model, method, beam_size, length_penalty, temperature, top_k, top_p, seed, max_len)
    return first_view(req) + sized_controls(req.model)


def initial(req: Request) -> tuple:
    """German, token pieces, the page's copy of the analysis, its request, the last step. At start-up this
    is the default sentence's first view, which the page is built with: a page load runs no model."""
    a = h.analysis(req)
    return a.translation, h.tokens_html(a), h.page_json(req), req.to_json(), max(len(a.trace.steps), 1) - 1


def first_view(req: Request) -> tuple:
    *values, last_step = initial(req)
    note = h.analysis(req).note
    if note:
        gr.Warning(note)
    return (*values, gr.Slider(maximum=last_step, value=0))


def _req(shown: Any) -> Request:
    return Request.from_json(shown)


def lazy(n_outputs: int):
    """A lazy part's event (its hidden button, clicked by views.js): nothing to draw while no analysis is shown."""
    def wrap(fn):
        @functools.wraps(fn)
        def inner(shown: Any, *args: Any):
            if shown in (None, ""):
                return gr.skip() if n_outputs == 1 else tuple(gr.skip() for _ in range(n_outputs))
            return fn(shown, *args)
        return inner
    return wrap


@endpoint
def beam(shown: Any):
    """The Step tab's "Run beam search" button: a second decode (beam), its tree, and greedy vs beam."""
    return tuple(plot_value(f) for f in h.beam_views(_req(shown)))


@lazy(2)
@endpoint
def inside_tab(shown: Any, kind: Any, layer: Any, head: Any, query: Any):
    """Opening the tab (or a new translation): the query choices of this analysis, and the head's arithmetic."""
    req = _req(shown)
    choices = h.query_choices(req, kind)
    names = [c.split(":")[0] for c in choices]
    q = str(query).split(":")[0] if query not in (None, "") else ""
    value = choices[names.index(q)] if q in names else choices[min(1, len(choices) - 1)]
    return gr.Dropdown(choices=choices, value=value), plot_value(h.inside_head(req, kind, layer, head, value))


@endpoint
def inside_view(shown: Any, kind: Any, layer: Any, head: Any, query: Any):
    return plot_value(h.inside_head(_req(shown), kind, layer, head, query))


@endpoint
def ablate(shown: Any, heads: Any):
    summary, before, after = h.ablation(_req(shown), heads)
    return summary, plot_value(before), plot_value(after)


@lazy(2)
@endpoint
def bertviz(shown: Any):
    return h.bertviz_frames(_req(shown))


@endpoint
def model_tab(model: Any):
    card, curves, lr = h.model_page(model)
    return card, plot_value(curves), plot_value(lr)


@endpoint
def export_tensors(shown: Any):
    req = _req(shown)
    return exports.write(h.export_npz(req), "analysis", ".npz")


@endpoint
def export_figures(shown: Any, kind: Any, layer: Any, head: Any):
    req = _req(shown)
    return exports.write(h.export_html(req, kind, layer, head), "figures", ".html")

