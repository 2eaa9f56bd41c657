"""The public API: one typed function per endpoint name in docs/api.md (registered with gr.api).

Every endpoint takes the sentence first, then the decoding options with their documented defaults
(Request's field defaults), then its own settings; every argument after the sentence may be left
out, by gradio_client or by a plain HTTP call (explorer/serving/blocks.py fills in the defaults). Figures come
back as gr.Plot's API value, {"type": "plotly", "plot": "<figure JSON>"}.
"""


import functools
import html
import logging
from typing import Any

import gradio as gr

from explorer.api import beyond, through_training
from explorer.api import handlers as h
from explorer.serving import exports, limits, memory
from explorer.serving.request import Request, UserError
from i18n import t
from viz.compact import plot_value

log = logging.getLogger("attention-explorer")


def endpoint(fn):
    """UserError -> a gr.Error with its message, no traceback logged; anything else -> logged once, short message."""
    @functools.wraps(fn)
    def wrapped(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except UserError as e:  # a toast renders HTML, and messages quote what the user typed: escaped
            raise gr.Error(html.escape(str(e), quote=False), print_exception=False) from None
        except gr.Error:
            raise
        except Exception:  # the app must keep serving: log the details, tell the user briefly
            log.exception("request failed")
            raise gr.Error(t("server.error.internal"), print_exception=False) from None
        finally:
            memory.trim()
    return wrapped


def request(text: Any, method: Any, beam_size: Any, length_penalty: Any, temperature: Any, top_k: Any, top_p: Any,
            seed: Any, max_len: Any, model: Any, no_repeat_ngram_size: Any = 0, repetition_penalty: Any = 1.0) -> Request:
    return Request.parse(text, model, method, beam_size, length_penalty, temperature, top_k, top_p, seed, max_len,
                         no_repeat_ngram_size=no_repeat_ngram_size, repetition_penalty=repetition_penalty)


def layer_or_last(req: Request, kind: str, layer: Any) -> Any:
    """-1 (the default) means the last layer of that stack."""
    if isinstance(layer, (int, float)) and not isinstance(layer, bool) and layer == -1:
        cfg = h.model_for(req.model).cfg
        return (cfg.n_encoder_layers if h._kind(kind) == "encoder" else cfg.n_decoder_layers) - 1
    return layer


# The decoding options of every endpoint, in this order, with Request's defaults.
@endpoint
def translate(text: str, method: str = "greedy", beam_size: int = 4, length_penalty: float = 0.6,
              temperature: float = 1.0, top_k: int = 0, top_p: float = 1.0, seed: int = 0, max_len: int = 60,
              model: str = "en-de",
              no_repeat_ngram_size: int = 0, repetition_penalty: float = 1.0) -> str:
    """English text in, German text out."""
    return h.translate(request(text, method, beam_size, length_penalty, temperature, top_k, top_p, seed, max_len, model,
                  no_repeat_ngram_size, repetition_penalty))


@endpoint
def analyze(text: str, method: str = "greedy", beam_size: int = 4, length_penalty: float = 0.6,
            temperature: float = 1.0, top_k: int = 0, top_p: float = 1.0, seed: int = 0, max_len: int = 60,
            model: str = "en-de", kind: str = "Cross-attention", layer: int = -1,
            head: str = "all heads (mean)",
            no_repeat_ngram_size: int = 0, repetition_penalty: float = 1.0) -> tuple[str, str, int, dict, dict, dict]:
    """Translation, token pieces (HTML), number of decoding steps, and the attention heatmap, model view and
    head statistics of one attention type (layer -1 = the last)."""
    req = request(text, method, beam_size, length_penalty, temperature, top_k, top_p, seed, max_len, model,
                  no_repeat_ngram_size, repetition_penalty)
    a = h.analysis(req)
    figs = h.attention_views(req, kind, layer_or_last(req, kind, layer), head)
    return (a.translation, h.tokens_html(a), len(a.trace.steps), *(plot_value(f) for f in figs))


@endpoint
def attention(text: str, method: str = "greedy", beam_size: int = 4, length_penalty: float = 0.6,
              temperature: float = 1.0, top_k: int = 0, top_p: float = 1.0, seed: int = 0, max_len: int = 60,
              model: str = "en-de", kind: str = "Cross-attention", layer: int = -1,
              head: str = "all heads (mean)",
              no_repeat_ngram_size: int = 0, repetition_penalty: float = 1.0) -> tuple[dict, dict, dict]:
    """Heatmap (one layer, one head or the mean), model view (every layer and head), head statistics."""
    req = request(text, method, beam_size, length_penalty, temperature, top_k, top_p, seed, max_len, model,
                  no_repeat_ngram_size, repetition_penalty)
    return tuple(plot_value(f) for f in h.attention_views(req, kind, layer_or_last(req, kind, layer), head))


@endpoint
def step(text: str, method: str = "greedy", beam_size: int = 4, length_penalty: float = 0.6,
         temperature: float = 1.0, top_k: int = 0, top_p: float = 1.0, seed: int = 0, max_len: int = 60,
         model: str = "en-de", step: int = 0, layer: int = -1, head: str = "all heads (mean)",
         no_repeat_ngram_size: int = 0, repetition_penalty: float = 1.0) -> dict:
    """Decoding step `step` (0 = the first output token): the top next tokens and that step's attention."""
    req = request(text, method, beam_size, length_penalty, temperature, top_k, top_p, seed, max_len, model,
                  no_repeat_ngram_size, repetition_penalty)
    return plot_value(h.step_view(req, step, layer_or_last(req, "cross", layer), head))


@endpoint
def beam(text: str, method: str = "greedy", beam_size: int = 4, length_penalty: float = 0.6,
         temperature: float = 1.0, top_k: int = 0, top_p: float = 1.0, seed: int = 0, max_len: int = 60,
         model: str = "en-de",
         no_repeat_ngram_size: int = 0, repetition_penalty: float = 1.0) -> tuple[dict, dict]:
    """Beam tree (beam size from the options, at least 2) and greedy vs beam on the same sentence."""
    req = request(text, method, beam_size, length_penalty, temperature, top_k, top_p, seed, max_len, model,
                  no_repeat_ngram_size, repetition_penalty)
    return tuple(plot_value(f) for f in h.beam_views(req))


@endpoint
def positional(text: str, method: str = "greedy", beam_size: int = 4, length_penalty: float = 0.6,
               temperature: float = 1.0, top_k: int = 0, top_p: float = 1.0, seed: int = 0, max_len: int = 60,
               model: str = "en-de", length: int = 50, dims: str = "0, 1, 10, 11, 60, 61",
               no_repeat_ngram_size: int = 0, repetition_penalty: float = 1.0) -> tuple[dict, dict, dict, dict]:
    """PE matrix, chosen dimensions as waves, PE similarity, and embedding vs PE size for the sentence."""
    req = request(text, method, beam_size, length_penalty, temperature, top_k, top_p, seed, max_len, model,
                  no_repeat_ngram_size, repetition_penalty)
    return tuple(plot_value(f) for f in h.positional_views(req, length, dims))


@endpoint
def queries(text: str, method: str = "greedy", beam_size: int = 4, length_penalty: float = 0.6,
            temperature: float = 1.0, top_k: int = 0, top_p: float = 1.0, seed: int = 0, max_len: int = 60,
            model: str = "en-de", kind: str = "Encoder self-attention",
            no_repeat_ngram_size: int = 0, repetition_penalty: float = 1.0) -> list[str]:
    """The query tokens of an attention type, as "index: token" (inside_head's query argument)."""
    req = request(text, method, beam_size, length_penalty, temperature, top_k, top_p, seed, max_len, model,
                  no_repeat_ngram_size, repetition_penalty)
    return h.query_choices(req, kind)


@endpoint
def inside_head(text: str, method: str = "greedy", beam_size: int = 4, length_penalty: float = 0.6,
                temperature: float = 1.0, top_k: int = 0, top_p: float = 1.0, seed: int = 0, max_len: int = 60,
                model: str = "en-de", kind: str = "Encoder self-attention", layer: int = 0, head: str = "head 0",
                query: str = "1",
                no_repeat_ngram_size: int = 0, repetition_penalty: float = 1.0) -> dict:
    """One head's arithmetic for one query token: q, k, scores, softmax, v, output."""
    req = request(text, method, beam_size, length_penalty, temperature, top_k, top_p, seed, max_len, model,
                  no_repeat_ngram_size, repetition_penalty)
    return plot_value(h.inside_head(req, kind, layer_or_last(req, kind, layer), head, query))


@endpoint
def ablate(text: str, method: str = "greedy", beam_size: int = 4, length_penalty: float = 0.6,
           temperature: float = 1.0, top_k: int = 0, top_p: float = 1.0, seed: int = 0, max_len: int = 60,
           model: str = "en-de", heads: list[str] | None = None,
           no_repeat_ngram_size: int = 0, repetition_penalty: float = 1.0) -> tuple[str, dict, dict]:
    """Translate with the named heads off (e.g. ["cross L2 H0"]; default: every cross head of the last layer)."""
    req = request(text, method, beam_size, length_penalty, temperature, top_k, top_p, seed, max_len, model,
                  no_repeat_ngram_size, repetition_penalty)
    if heads is None:
        heads = h.default_ablation(h.model_for(req.model))
    summary, before, after, *_ = h.ablation(req, heads)  # the per-step and difference figures are the page's
    return summary, plot_value(before), plot_value(after)


@endpoint
def logit_lens(text: str, method: str = "greedy", beam_size: int = 4, length_penalty: float = 0.6,
               temperature: float = 1.0, top_k: int = 0, top_p: float = 1.0, seed: int = 0, max_len: int = 60,
               model: str = "en-de",
               no_repeat_ngram_size: int = 0, repetition_penalty: float = 1.0) -> dict:
    """The output projection applied after every decoder layer."""
    req = request(text, method, beam_size, length_penalty, temperature, top_k, top_p, seed, max_len, model,
                  no_repeat_ngram_size, repetition_penalty)
    return plot_value(h.logit_lens(req))


@endpoint
def bertviz(text: str, method: str = "greedy", beam_size: int = 4, length_penalty: float = 0.6,
            temperature: float = 1.0, top_k: int = 0, top_p: float = 1.0, seed: int = 0, max_len: int = 60,
            model: str = "en-de",
            no_repeat_ngram_size: int = 0, repetition_penalty: float = 1.0) -> tuple[str, str]:
    """bertviz's head view and model view, each as a sandboxed <iframe> (needs bertviz's CDN scripts)."""
    req = request(text, method, beam_size, length_penalty, temperature, top_k, top_p, seed, max_len, model,
                  no_repeat_ngram_size, repetition_penalty)
    return h.bertviz_frames(req)


@endpoint
def model_info(model: str = "en-de") -> tuple[str, dict, dict]:
    """Model card (Markdown), training curves and learning-rate schedule."""
    card, curves, lr = h.model_page(model)
    return card, curves, lr


@endpoint
def export_tensors(text: str, method: str = "greedy", beam_size: int = 4, length_penalty: float = 0.6,
                   temperature: float = 1.0, top_k: int = 0, top_p: float = 1.0, seed: int = 0, max_len: int = 60,
                   model: str = "en-de",
                   no_repeat_ngram_size: int = 0, repetition_penalty: float = 1.0) -> gr.FileData:
    """Every captured tensor of the analysis plus its tokens and request, as a .npz file."""
    req = request(text, method, beam_size, length_penalty, temperature, top_k, top_p, seed, max_len, model,
                  no_repeat_ngram_size, repetition_penalty)
    return file_data(exports.write(h.export_npz(req), "analysis", ".npz"))


@endpoint
def export_figures(text: str, method: str = "greedy", beam_size: int = 4, length_penalty: float = 0.6,
                   temperature: float = 1.0, top_k: int = 0, top_p: float = 1.0, seed: int = 0, max_len: int = 60,
                   model: str = "en-de", kind: str = "Cross-attention", layer: int = -1,
                   head: str = "all heads (mean)",
                   no_repeat_ngram_size: int = 0, repetition_penalty: float = 1.0) -> gr.FileData:
    """The attention tab's three figures as one self-contained HTML file."""
    req = request(text, method, beam_size, length_penalty, temperature, top_k, top_p, seed, max_len, model,
                  no_repeat_ngram_size, repetition_penalty)
    return file_data(exports.write(h.export_html(req, kind, layer_or_last(req, kind, layer), head), "figures", ".html"))


@endpoint
def attribute(text: str, method: str = "greedy", beam_size: int = 4, length_penalty: float = 0.6,
              temperature: float = 1.0, top_k: int = 0, top_p: float = 1.0, seed: int = 0, max_len: int = 60,
              model: str = "en-de", attribution: str = "integrated_gradients", target: str = "",
              contrast: str = "", steps: int = 32, layer: int = -1,
              no_repeat_ngram_size: int = 0, repetition_penalty: float = 1.0) -> tuple[str, dict]:
    """Attribution of every output token over the source and the German prefix (rollout, saliency,
    input_x_gradient, integrated_gradients, occlusion), beside cross-attention of `layer` (heads averaged), with the agreement
    (Spearman per token). `target` forces a German output; `contrast` explains log p(token) - log p(contrast)."""
    req = request(text, method, beam_size, length_penalty, temperature, top_k, top_p, seed, max_len, model,
                  no_repeat_ngram_size, repetition_penalty)
    summary, fig = beyond.attribution(req, attribution, target, contrast, steps, layer)
    return summary, plot_value(fig)


@endpoint
def patch(text: str, method: str = "greedy", beam_size: int = 4, length_penalty: float = 0.6,
          temperature: float = 1.0, top_k: int = 0, top_p: float = 1.0, seed: int = 0, max_len: int = 60,
          model: str = "en-de", corrupted: str = "", position: int = -1,
          no_repeat_ngram_size: int = 0, repetition_penalty: float = 1.0) -> tuple[str, dict]:
    """Activation patching from `text` (clean) into `corrupted` (same number of pieces): each head's output and
    each layer's output, the clean token's log-probability at `position` (-1: the first that differs) restored."""
    req = request(text, method, beam_size, length_penalty, temperature, top_k, top_p, seed, max_len, model,
                  no_repeat_ngram_size, repetition_penalty)
    summary, fig = beyond.patching(req, corrupted, position)
    return summary, plot_value(fig)


@endpoint
def next_token(text: str, method: str = "greedy", beam_size: int = 4, length_penalty: float = 0.6,
               temperature: float = 1.0, top_k: int = 0, top_p: float = 1.0, seed: int = 0, max_len: int = 60,
               model: str = "en-de", prefix: str = "",
               no_repeat_ngram_size: int = 0, repetition_penalty: float = 1.0) -> tuple[str, dict, dict]:
    """What-if: force a German prefix; the next-token distribution, the greedy continuation, and where every
    cross-attention head looks from there."""
    req = request(text, method, beam_size, length_penalty, temperature, top_k, top_p, seed, max_len, model,
                  no_repeat_ngram_size, repetition_penalty)
    summary, bars, att = beyond.next_token(req, prefix)
    return summary, plot_value(bars), plot_value(att)


@endpoint
def edit_source(text: str, method: str = "greedy", beam_size: int = 4, length_penalty: float = 0.6,
                temperature: float = 1.0, top_k: int = 0, top_p: float = 1.0, seed: int = 0, max_len: int = 60,
                model: str = "en-de", piece: str = "1", replacement: str = "",
                no_repeat_ngram_size: int = 0, repetition_penalty: float = 1.0) -> tuple[str, dict, dict]:
    """What-if: mask (empty replacement) or replace one source piece (its number or its word), decode again; each
    original token's probability under both, and cross-attention of the last layer under both."""
    req = request(text, method, beam_size, length_penalty, temperature, top_k, top_p, seed, max_len, model,
                  no_repeat_ngram_size, repetition_penalty)
    summary, bars, att = beyond.edit_source(req, piece, replacement)
    return summary, plot_value(bars), plot_value(att)


@endpoint
def training(text: str, method: str = "greedy", beam_size: int = 4, length_penalty: float = 0.6,
             temperature: float = 1.0, top_k: int = 0, top_p: float = 1.0, seed: int = 0, max_len: int = 60,
             model: str = "en-de", layer: int = -1, head: str = "all heads (mean)",
             no_repeat_ngram_size: int = 0, repetition_penalty: float = 1.0) -> tuple[str, dict]:
    """Attention through training: the sentence translated by each snapshot the training run kept (a table of
    step, validation loss and BLEU, translation), and one figure with each snapshot's cross-attention of `layer`
    (`head`, or the mean) on a slider, beside the loss curve with the snapshot marked."""
    req = request(text, method, beam_size, length_penalty, temperature, top_k, top_p, seed, max_len, model,
                  no_repeat_ngram_size, repetition_penalty)
    table, fig = through_training.view(req, layer_or_last(req, "cross", layer), head)
    return table, plot_value(fig)


def file_data(path: str) -> gr.FileData:
    from pathlib import Path

    return gr.FileData(path=path, orig_name=Path(path).name)


PUBLIC = {  # api_name -> function; docs/api.md lists these names (callers depend on them)
    "translate": translate, "analyze": analyze, "attention": attention, "step": step, "beam": beam,
    "positional": positional, "queries": queries, "inside_head": inside_head, "ablate": ablate,
    "logit_lens": logit_lens, "bertviz": bertviz, "model_info": model_info, "export_tensors": export_tensors,
    "export_figures": export_figures, "attribute": attribute, "patch": patch, "next_token": next_token,
    "edit_source": edit_source, "training": training,
}
LIGHT = {"model_info"}  # no model run: outside the model concurrency group
LONG = {"attribute", "patch", "training"}  # long work: its own group and queue rules (explorer/serving/fair_queue.py)
assert limits.MODEL_SLOTS >= 1
