"""Training curves and the learning-rate schedule, for the Model tab."""

from __future__ import annotations

import plotly.graph_objects as go

from i18n import t
from viz.style import base_layout


def loss_points(rows: list[dict[str, str]]) -> tuple[list[tuple[int, float]], list[tuple[int, float]]]:
    """train_log.csv rows -> (step, training loss) and (step, validation loss) points."""
    train = [(int(r["step"]), float(r["loss"])) for r in rows if r.get("loss") and not r.get("val_loss")]
    val = [(int(r["step"]), float(r["val_loss"])) for r in rows if r.get("val_loss")]
    return train, val


def training_curves(rows: list[dict[str, str]], name: str = "") -> go.Figure:
    """rows: train_log.csv as dicts (step, epoch, loss, lr, val_loss); training loss and validation loss by step."""
    train, val = loss_points(rows)
    fig = go.Figure()
    step = t("server.viz.step", step="%{x}")
    fig.add_trace(go.Scatter(x=[s for s, _ in train], y=[v for _, v in train], mode="lines",
                             name=t("server.viz.train.training_name"),
                             hovertemplate=f"{step}<br>{t('server.viz.training_loss')} %{{y:.3f}}<extra></extra>"))
    fig.add_trace(go.Scatter(x=[s for s, _ in val], y=[v for _, v in val], mode="lines+markers",
                             name=t("server.viz.train.validation_name"),
                             hovertemplate=f"{step}<br>{t('server.viz.validation_loss')} %{{y:.3f}}<extra></extra>"))
    fig.update_xaxes(title_text=t("server.viz.train.axis_step"))
    fig.update_yaxes(title_text=t("server.viz.train.axis_loss"))
    fig.update_layout(legend=dict(orientation="h", y=1.02, yanchor="bottom", x=0))
    return base_layout(fig, t("server.viz.train.title_of", name=name) if name else t("server.viz.train.title"),
                       height=420)


def lr_schedule_figure(steps: list[int], lrs: list[float], warmup: int) -> go.Figure:
    """The learning rate the training used at each step (computed by model.schedule.lr_at)."""
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=steps, y=lrs, mode="lines", name=t("server.viz.train.lr"),
                             hovertemplate=t("server.viz.step", step="%{x}") + "<br>lr %{y:.2e}<extra></extra>"))
    fig.add_vline(x=warmup, line_dash="dot", annotation_text=t("server.viz.train.warmup", step=warmup))
    fig.update_xaxes(title_text=t("server.viz.train.axis_step"))
    fig.update_yaxes(title_text=t("server.viz.train.lr"))
    return base_layout(fig, t("server.viz.train.lr_title"), height=380)
