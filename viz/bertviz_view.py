"""bertviz's head view and model view of our encoder, decoder and cross attention, made safe for an iframe.

bertviz writes the tokens into a <script> with json.dumps, so a token spelling </script> would end
that script and run whatever follows. We re-encode that JSON with <, >, &, U+2028 and U+2029 as
\\u escapes, and add a message for when require.js, d3 or jQuery cannot be fetched from their CDN.
"""

from __future__ import annotations

import html
import json

import torch

from i18n import t
from viz.arrays import as_array
from viz.tokens import readable

_MARK = "const params = "


def safe_json(value) -> str:
    """JSON that cannot close a <script> element or break a JavaScript string."""
    text = json.dumps(value)
    for ch, esc in (("&", "\\u0026"), ("<", "\\u003c"), (">", "\\u003e"), ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(ch, esc)
    return text


def _reencode_params(page: str) -> str:
    """Swap every copy of bertviz's params JSON for the safe encoding.

    bertviz's template replaces PYTHON_PARAMS twice: in the code and again in the comment after it,
    and a </script> inside a JavaScript comment still ends the script element.
    """
    start = page.index(_MARK) + len(_MARK)
    value, end = json.JSONDecoder().raw_decode(page, start)
    return page.replace(page[start:end], safe_json(_rounded(value)))


def _rounded(value, digits: int = 3):
    """Attention weights to 3 decimals (bertviz draws them as line opacity): a page a fraction of the size."""
    if isinstance(value, float):
        return round(value, digits)
    if isinstance(value, list):
        return [_rounded(v, digits) for v in value]
    if isinstance(value, dict):
        return {k: _rounded(v, digits) for k, v in value.items()}
    return value


def _fallback_script() -> str:
    msg = json.dumps(t("server.viz.bertviz_fallback"))
    return f"""<script>
(function () {{
  function fail() {{
    if (document.getElementById("cdn-fallback")) return;
    var p = document.createElement("p");
    p.id = "cdn-fallback";
    p.style.cssText = "font:14px sans-serif;color:#8a4b00;background:#fff4e0;padding:10px;border-radius:6px";
    p.textContent = {msg};
    document.body.insertBefore(p, document.body.firstChild);
  }}
  if (typeof requirejs === "undefined") {{ fail(); return; }}
  requirejs.onError = fail;
  setTimeout(function () {{ if (!document.querySelector("svg")) fail(); }}, 8000);
}})();
</script>"""


def _tensors(layers) -> list[torch.Tensor]:
    """(L, H, Tq, Tk) -> bertviz's list of L tensors (1, H, Tq, Tk)."""
    return [torch.from_numpy(as_array(layer)).float()[None] for layer in layers]


def bertviz_page(
    view: str,
    encoder_attention,
    decoder_attention,
    cross_attention,
    encoder_tokens: list[str],
    decoder_tokens: list[str],
) -> str:
    """A self-contained HTML document with bertviz's 'head' or 'model' view of all three attentions."""
    from bertviz import head_view, model_view  # imported here: it pulls in IPython, unneeded elsewhere

    if view not in ("head", "model"):
        raise ValueError(f"view must be 'head' or 'model', not {view!r}")
    kwargs = dict(
        encoder_attention=_tensors(encoder_attention), decoder_attention=_tensors(decoder_attention),
        cross_attention=_tensors(cross_attention), encoder_tokens=[readable(t) for t in encoder_tokens],
        decoder_tokens=[readable(t) for t in decoder_tokens], prettify_tokens=False, html_action="return",
    )
    if view == "model":
        kwargs["display_mode"] = "light"
    body = (head_view if view == "head" else model_view)(**kwargs).data
    body = _reencode_params(body)
    require_tag = body.index("</script>") + len("</script>")  # bertviz's first tag loads require.js
    body = body[:require_tag] + _fallback_script() + body[require_tag:]
    return ("<!doctype html><html><head><meta charset='utf-8'><title>bertviz</title></head>"
            "<body style='margin:8px;font-family:sans-serif'>" + body + "</body></html>")


def iframe(page: str, height: int = 620, title: str = "bertviz") -> str:
    """The page inside a sandboxed iframe; srcdoc is attribute-escaped (the page is parsed twice)."""
    return (f'<iframe sandbox="allow-scripts" title="{html.escape(title)}" style="width:100%;height:{int(height)}px;'
            f'border:1px solid #ddd;border-radius:8px" srcdoc="{html.escape(page, quote=True)}"></iframe>')
