"""Attention through training: the shown sentence translated by every snapshot the model's training run kept
(model/snapshots.py), with each snapshot's cross-attention and the loss curve. Like handlers.py: a Request goes in,
text and a figure come out, no Gradio; model work passes the model gate (``run_model``)."""

from __future__ import annotations

import functools
import html
from pathlib import Path
from typing import Any

import numpy as np

from explorer.api.handlers import _head, _layer, _read_log
from explorer.api.task_words import languages
from explorer.serving import limits
from explorer.serving.request import Request, UserError, translator
from explorer.serving.store import long, run_model
from i18n import num, t
from model.checkpoint import CheckpointError
from model.names import act_name
from model.translator import available
from viz.page_data import short
from viz.through_training import through_training


@functools.lru_cache(maxsize=limits.TRAINING_VIEW_CACHE)
def snapshot_runs(req: Request) -> tuple[dict, ...]:
    """Each snapshot's decode of the request (its own decoding options) and its cross-attention of every layer,
    (L, H, T, S) float32. Kept for the TRAINING_VIEW_CACHE most recent requests: a class on one example computes it
    once."""
    tr = translator(req.model)
    try:
        entries = tr.snapshots()
    except CheckpointError as e:
        raise UserError(str(e)) from None
    if not entries:
        others = [m for m in available() if m != req.model and translator(m).snapshots()]
        hint = t("server.tt.others", models=", ".join(others)) if others else ""
        raise UserError(t("server.tt.no_snapshots", name=t("server.quoted", text=req.model)) + hint)
    runs = []
    for e in entries:
        def one(e=e):
            try:
                return tr.at_snapshot(e).analyze(req.text, req.options())
            except CheckpointError as err:  # a snapshot file changed since training: refuse it by name
                raise UserError(str(err)) from None
        a = run_model(one)  # the gate is released between snapshots, so other requests go in between
        cross = np.stack([a.cache[act_name("cross", i, "weights")][0].float().numpy()
                          for i in range(tr.cfg.n_decoder_layers)])  # L x (H, T, S) -> (L, H, T, S)
        runs.append({"step": e["step"], "epoch": e.get("epoch", 0), "val_loss": e["val_loss"],
                     "bleu": (e.get("bleu") or {}).get("val"), "final": bool(e.get("final")),
                     "translation": a.translation, "src_tokens": a.src_tokens, "tgt_tokens": a.tgt_tokens,
                     "out_tokens": a.out_tokens, "cross": cross})
    return tuple(runs)


@functools.lru_cache(maxsize=16)
def _curve(folder: Path | None) -> tuple[dict, ...]:
    """The checkpoint's train_log.csv rows, read once per folder (a served checkpoint does not change)."""
    log = folder / "train_log.csv" if folder is not None else None
    try:
        return tuple(_read_log(log)) if log is not None and log.is_file() else ()
    except (OSError, ValueError, UnicodeDecodeError):
        return ()  # the Model tab says why; here the snapshots' own losses still draw


def summary(runs: tuple[dict, ...], req: Request) -> str:
    """A table a student can read without the slider: each snapshot's step, losses and translation."""
    how = (t("server.tt.greedily") if req.method == "greedy"
           else t("server.tt.with_method", method=req.method, options=t("server.field.decoding_options")))
    source, target = languages(req.model)
    rows = [f"| {t('server.viz.tt.final_label') if r['final'] else r['step']} | {r['epoch']} | {num(r['val_loss'], 2)} | "
            f"{'' if r['bleu'] is None else num(r['bleu'], 1)} | "
            f"{html.escape(r['translation'], quote=False).replace('|', '&#124;') or t('server.tt.nothing')} |"
            for r in runs]
    return (t("server.tt.summary", how=how, target=target, source=source) + "\n\n"
            + t("server.tt.table") + "\n|---|---|---|---|---|\n" + "\n".join(rows))


@long
def view(req: Request, layer: Any, head: Any, selected: Any = None) -> tuple[str, Any]:
    """The summary table and the figure (cross-attention of ``layer``/``head`` at each snapshot, slider, loss)."""
    tr = translator(req.model)
    layer_i = _layer(tr, "cross", layer)
    head_i = _head(tr, head)
    runs = snapshot_runs(req)
    shown = [dict(r, cross=r["cross"][layer_i]) for r in runs]  # (L, H, T, S) -> (H, T, S)
    fig = through_training(shown, list(_curve(tr.folder)), layer_i, head_i, selected, sentence=short(req.text))
    return summary(runs, req), fig
