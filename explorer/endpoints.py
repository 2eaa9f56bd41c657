"""Gradio-facing functions: flat arguments in (text first, then decoding options), Gradio values out.

Each one is an API endpoint too (see app.py's api_name). UserError becomes a gr.Error with its
message; anything unexpected becomes a short gr.Error too, never a traceback in the page.
"""

from __future__ import annotations

import functools
import logging
import tempfile
from pathlib import Path

import gradio as gr
import plotly.io as pio

from explorer import handlers as h
from explorer.handlers import UserError

log = logging.getLogger("attention-explorer")
_EXPORTS = Path(tempfile.mkdtemp(prefix="attention-explorer-"))


def endpoint(fn):
    @functools.wraps(fn)
    def wrapped(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except UserError as e:
            raise gr.Error(str(e), print_exception=False) from None
        except gr.Error:
            raise
        except Exception:  # the app must keep serving: log the details, tell the user briefly
            log.exception("request failed")
            raise gr.Error("Something went wrong while computing this view. Try another sentence or setting.",
                           print_exception=False) from None
    return wrapped


def _req(text, method, beam_size, length_penalty, temperature, top_k, top_p, seed, max_len, model):
    return h.make_request(model, text, method, beam_size, length_penalty, temperature, top_k, top_p, seed, max_len)


@endpoint
def translate(text: str, method: str = "greedy", beam_size: int = 4, length_penalty: float = 0.6,
              temperature: float = 1.0, top_k: int = 0, top_p: float = 1.0, seed: int = 0, max_len: int = 60,
              model: str = "en-de") -> str:
    """English text in, German text out."""
    return h.translate(_req(text, method, beam_size, length_penalty, temperature, top_k, top_p, seed, max_len, model))


@endpoint
def analyze(*args):
    """One round trip for the first tab: translation, token pieces, the step slider sized to this decode,
    and the attention heatmap, model view and head statistics."""
    *dec, kind, layer, head = args
    req = _req(*dec)
    a = h.analysis(req)
    n = max(len(a.trace.steps), 1)
    figures = h.attention_views(req, kind, layer, head)
    return (a.translation, h.tokens_html(a), gr.Slider(minimum=0, maximum=n - 1, value=0, step=1), *figures)


@endpoint
def attention(*args):
    *dec, kind, layer, head = args
    return h.attention_views(_req(*dec), kind, layer, head)


@endpoint
def bertviz(*dec):
    return h.bertviz_frames(_req(*dec))


@endpoint
def bertviz_if_open(*args):
    """After a new translation: redraw the bertviz panel if it is open, else empty it (redrawn on open)."""
    *dec, is_open = args
    return bertviz(*dec) if is_open else ("", "")


@endpoint
def step(*args):
    *dec, t, layer, head = args
    return h.step_view(_req(*dec), t, layer, head)


@endpoint
def beam(*dec):
    return h.beam_views(_req(*dec))


@endpoint
def positional(*args):
    *dec, length, dims = args
    return h.positional_views(_req(*dec), length, dims)


@endpoint
def queries(*args):
    *dec, kind = args
    choices = h.query_choices(_req(*dec), kind)
    return gr.Dropdown(choices=choices, value=choices[min(1, len(choices) - 1)])


@endpoint
def inside(*args):
    *dec, kind, layer, head, query = args
    return h.inside_head(_req(*dec), kind, layer, head, query)


@endpoint
def ablate(*args):
    *dec, heads = args
    return h.ablation(_req(*dec), heads)


@endpoint
def lens(*dec):
    return h.logit_lens(_req(*dec))


@endpoint
def model_info(model: str):
    card = h.model_card(model)
    curves, lr = h.training_figures(model)
    return card, curves, lr


@endpoint
def model_controls(model: str):
    """Layer and head pickers sized to the chosen model."""
    tr = h.model_for(model)
    n_layers = max(tr.cfg.n_encoder_layers, tr.cfg.n_decoder_layers) - 1
    heads = [h.AVERAGE] + [f"head {i}" for i in range(tr.cfg.n_heads)]
    return (gr.Slider(maximum=n_layers, value=n_layers), gr.Dropdown(choices=heads, value=h.AVERAGE),
            gr.Slider(maximum=n_layers, value=n_layers), gr.Dropdown(choices=heads, value=h.AVERAGE),
            gr.Slider(maximum=n_layers, value=0), gr.Dropdown(choices=heads[1:], value="head 0"),
            gr.CheckboxGroup(choices=h.head_names(tr), value=default_ablation(tr)))


def default_ablation(tr) -> list[str]:
    """Something worth seeing on first load: every cross-attention head of the last layer off."""
    last = tr.cfg.n_decoder_layers - 1
    return [f"cross L{last} H{i}" for i in range(tr.cfg.n_heads)]


@endpoint
def export_tensors(*dec) -> str:
    req = _req(*dec)
    path = _EXPORTS / f"analysis-{abs(hash(req)) % 10**8}.npz"
    path.write_bytes(h.export_npz(req))
    return str(path)


@endpoint
def export_figures(*args) -> str:
    """The attention tab's figures as one self-contained HTML file (plotly.js embedded once)."""
    *dec, kind, layer, head = args
    req = _req(*dec)
    figs = h.attention_views(req, kind, layer, head)
    parts = [pio.to_html(f, include_plotlyjs=(i == 0), full_html=False) for i, f in enumerate(figs)]
    path = _EXPORTS / f"figures-{abs(hash((req, kind, layer, head))) % 10**8}.html"
    path.write_text("<!doctype html><html><head><meta charset='utf-8'><title>Attention Explorer figures</title>"
                    "</head><body>" + "".join(parts) + "</body></html>", encoding="utf-8")
    return str(path)


def choices_for_all_models() -> tuple[list[str], list[str]]:
    """(head dropdown choices, ablation head names) covering every shipped model, for the initial components."""
    n_heads, names = 1, []
    if not h.available():
        raise UserError(f"no checkpoints found in {h.CHECKPOINTS}: every model folder needs model.safetensors")
    for name in h.available():
        tr = h.model_for(name)
        n_heads = max(n_heads, tr.cfg.n_heads)
        names += [x for x in h.head_names(tr) if x not in names]
    return [h.AVERAGE] + [f"head {i}" for i in range(n_heads)], names
