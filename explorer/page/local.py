"""What the page's own model needs to know (explorer/page/static/local.js), inlined as ``window.AE_LOCAL``: which model
the browser may load (the page's first model, where its files carry the warnings' estimate: a reverse model and a
fitted "quality" in metrics.json; only with ``ATTENTION_EXPLORER_BROWSER_MODEL=1`` for now: measured on this machine,
the browser's Translate is still slower than the server's, bench/page_cost.py), where its files are, and what the
server's Translate would do that the browser must do the same: the views it clears, the controls it leaves, the
words it swaps for patching, the limits it checks."""

from __future__ import annotations

import os

from explorer.api.beyond import SWAPS
from explorer.browser_model.routes import PREFIX, quality_section
from explorer.page.ui import CLEARED, N_SIZED
from explorer.serving import limits
from model.translator import resolve


def browser_model(model: str) -> str | None:
    """``model`` where the browser can give all its Translate gives (the estimate included), else None."""
    if os.environ.get("ATTENTION_EXPLORER_BROWSER_MODEL", "0").strip().lower() not in ("1", "on", "yes", "true"):
        return None
    folder = resolve(model)
    has_all = all((folder / sub / "model.safetensors").is_file() for sub in ("", "reverse"))
    return model if has_all and quality_section(folder) is not None else None


def local_config(model: str, outputs: int) -> dict:
    """window.AE_LOCAL for a page whose Translate has ``outputs`` outputs (ui.translate's)."""
    return {"model": browser_model(model), "base": PREFIX, "swaps": SWAPS, "cleared": list(CLEARED), "sized": N_SIZED,
            "outputs": outputs,
            "limits": {"max_beam": limits.MAX_BEAM, "max_output": limits.MAX_OUTPUT_TOKENS,
                       "max_temperature": limits.MAX_TEMPERATURE, "max_top_k": limits.MAX_TOP_K,
                       "max_chars": limits.MAX_CHARS, "max_source": limits.MAX_SOURCE_TOKENS}}
