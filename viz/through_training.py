"""Attention through training: one sentence translated by each snapshot the training run kept, its cross-attention,
and the loss curve with that snapshot marked; a slider moves between snapshots in the browser (no server request).

gr.Plot draws a figure with ``Plotly.react(data, layout)``: animation frames would be dropped, so the slider's steps
use plotly's "update" method instead: each snapshot is its own heatmap trace and marker, made visible by its step,
which also sets the title (that snapshot's translation) and the row labels (its output tokens).
"""

from __future__ import annotations

import html

import plotly.graph_objects as go

from i18n import num, t
from viz.arrays import as_array
from viz.attention import cell_hover, thinned, weight_hover, which_heads
from viz.style import ATTENTION_SCALE, base_layout, token_axis
from viz.training import loss_points

ROW_LABELS = 30  # at most this many row labels (every k-th kept); the hover names every row


def _title(s: dict, layer: int, which: str, sentence: str) -> str:
    bleu = s.get("bleu")
    scores = (t("server.viz.tt.val_loss", loss=num(s["val_loss"], 2))
              + (t("server.viz.tt.val_bleu", bleu=num(bleu, 1)) if bleu is not None else ""))
    when = t("server.viz.tt.final") if s.get("final") else t("server.viz.step", step=s["step"])
    translation = html.escape(s["translation"] or t("server.viz.tt.nothing"), quote=False)
    said = t("server.quoted", text=html.escape(sentence, quote=False)) + " → " if sentence else ""
    return t("server.viz.tt.title", when=when, epoch=s["epoch"], scores=scores, said=said,
             translation=t("server.quoted", text=translation), layer=layer, which=which)


def through_training(snapshots: list[dict], curve: list[dict], layer: int, head: int | None,
                     selected: int | None = None, sentence: str = "") -> go.Figure:
    """snapshots: in training order, each {step, epoch, val_loss, bleu (or None), final, translation, src_tokens,
    tgt_tokens (decoder inputs: BOS + output), out_tokens (output + EOS), cross (H, T, S): that snapshot's
    cross-attention of ``layer``}. head None: the mean over heads. curve: train_log.csv rows (step, loss,
    val_loss) for the loss panel. ``selected``: the snapshot shown first (default: the last). ``sentence``: the English
    sentence, named in every title."""
    if not snapshots:
        raise ValueError("no snapshots to show")
    n = len(snapshots)
    selected = n - 1 if selected is None else selected
    which = which_heads(head)
    fig = go.Figure()
    for i, s in enumerate(snapshots):
        w = as_array(s["cross"])  # (H, T, S)
        if w.ndim != 3 or w.shape[1:] != (len(s["tgt_tokens"]), len(s["src_tokens"])):
            raise ValueError(f"snapshot {s['step']}: attention {w.shape} does not fit its tokens")
        z = w.mean(0) if head is None else w[head]  # (T, S)
        fig.add_trace(go.Heatmap(z=z, x=list(range(z.shape[1])), y=list(range(z.shape[0])), zmin=0, zmax=1,
                                 colorscale=ATTENTION_SCALE, visible=i == selected,
                                 customdata=cell_hover(s["tgt_tokens"], s["src_tokens"], s["out_tokens"]),
                                 hovertemplate=weight_hover(".4f"),
                                 # across the top: a colour bar at the side would take a phone's width from the cells
                                 colorbar=dict(title=dict(text=t("server.viz.weight"), side="top"), orientation="h",
                                               len=0.4, thickness=10, x=1, xanchor="right", y=1.0, yanchor="bottom"),
                                 name=t("server.viz.step", step=s["step"])))
    train, val = loss_points(curve)
    training_loss, validation_loss = t("server.viz.training_loss"), t("server.viz.validation_loss")
    loss_hover = "<br>{} %{{y:.3f}}<extra></extra>"
    fig.add_trace(go.Scatter(x=[a for a, _ in train], y=[b for _, b in train], mode="lines", xaxis="x2", yaxis="y2",
                             name=training_loss, line=dict(color="#b0b7c3", width=1),
                             hovertemplate=t("server.viz.step", step="%{x}") + loss_hover.format(training_loss)))
    fig.add_trace(go.Scatter(x=[a for a, _ in val], y=[b for _, b in val], mode="lines", xaxis="x2", yaxis="y2",
                             name=validation_loss, line=dict(color="#636efa"),
                             hovertemplate=t("server.viz.step", step="%{x}") + loss_hover.format(validation_loss)))
    fig.add_trace(go.Scatter(x=[s["step"] for s in snapshots], y=[s["val_loss"] for s in snapshots], mode="markers",
                             xaxis="x2", yaxis="y2", name=t("server.viz.tt.snapshots"),
                             marker=dict(size=8, color="white", line=dict(color="#EF553B", width=2)),
                             hovertemplate=t("server.viz.tt.snapshot_at", step="%{x}")
                             + loss_hover.format(validation_loss)))
    for i, s in enumerate(snapshots):
        fig.add_trace(go.Scatter(x=[s["step"]], y=[s["val_loss"]], mode="markers+text", xaxis="x2", yaxis="y2",
                                 text=[t("server.viz.step", step=s["step"])], textposition="top right",
                                 visible=i == selected, marker=dict(size=14, color="#EF553B", symbol="star"),
                                 showlegend=False, hovertemplate=t("server.viz.tt.this_snapshot", step="%{x}")
                                 + loss_hover.format(validation_loss)))
    n_curve = 3

    def visible(i: int) -> list[bool]:
        return [j == i for j in range(n)] + [True] * n_curve + [j == i for j in range(n)]

    def rows(s: dict) -> dict:
        ax = thinned(token_axis(s["tgt_tokens"], ""), ROW_LABELS)  # an early snapshot's loop: 60 rows
        return {"yaxis.tickvals": ax["tickvals"], "yaxis.ticktext": ax["ticktext"],
                "yaxis.tickfont.size": ax["tickfont"]["size"], "yaxis.range":
                [len(s["tgt_tokens"]) - 0.5, -0.5], "title.text": _title(s, layer, which, sentence)}

    steps = [dict(label=t("server.viz.tt.final_label") if s.get("final") else str(s["step"]), method="update",
                  args=[{"visible": visible(i)}, rows(s)]) for i, s in enumerate(snapshots)]
    first = snapshots[selected]
    fig.update_layout(
        xaxis=dict(token_axis(first["src_tokens"], t("server.viz.axis.key_source")), domain=[0, 1], anchor="y",
                   tickangle=-60),
        yaxis=dict(thinned(token_axis(first["tgt_tokens"], t("server.viz.axis.query_input")), ROW_LABELS),
                   domain=[0.42, 0.95],
                   anchor="x",
                   range=[len(first["tgt_tokens"]) - 0.5, -0.5]),
        xaxis2=dict(domain=[0, 1], anchor="y2", title=dict(text=t("server.viz.tt.axis_step")), type="log",
                    tickmode="array", tickvals=[s["step"] for s in snapshots],
                    ticktext=[str(s["step"]) for s in snapshots]),
        yaxis2=dict(domain=[0, 0.24], anchor="x2", title=dict(text=t("server.viz.tt.loss"))),
        sliders=[dict(active=selected, steps=steps, currentvalue=dict(prefix=t("server.viz.tt.slider")), pad=dict(t=60),
                      x=0, len=1)],
        legend=dict(orientation="h", x=1, xanchor="right", y=0.25, yanchor="bottom"),
    )
    fig = base_layout(fig, _title(first, layer, which, sentence), height=820)
    fig.update_layout(margin=dict(l=80, r=30, t=100, b=140))
    return fig
