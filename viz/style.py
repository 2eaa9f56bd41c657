"""Shared look: colour scales, sizes, and the axis helper that keeps duplicate tokens distinct."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from i18n import num, t
from viz.tokens import axis_labels

ATTENTION_SCALE = "Blues"
# plotly_white's look as layout settings only. Assigning the "plotly_white" template by name makes
# plotly validate and deep-copy the whole template (~20 ms a figure) and send it with every figure
# (~6.6 KB); these few settings draw the same page. views.js uses the same values.
AXIS = dict(automargin=True, gridcolor="#EBF0F8", linecolor="#EBF0F8", ticks="", title=dict(standoff=15),
            zerolinecolor="#EBF0F8", zerolinewidth=2)
LEAN_WHITE = go.layout.Template(layout=dict(
    font=dict(color="#2a3f5f"), paper_bgcolor="white", plot_bgcolor="white", hovermode="closest",
    hoverlabel=dict(align="left"), xaxis=AXIS, yaxis=AXIS, coloraxis=dict(colorbar=dict(outlinewidth=0, ticks="")),
    colorway=["#636efa", "#EF553B", "#00cc96", "#ab63fa", "#FFA15A", "#19d3f3", "#FF6692", "#B6E880", "#FF97FF",
              "#FECB52"],
))
DIVERGING_SCALE = "RdBu"
MASKED = "#c8c8c8"  # cells and bars the causal mask removed: grey, never white like a weight of 0
FONT = dict(family="Inter, Helvetica, Arial, sans-serif", size=12)


def masked_hover() -> str:
    """The hover of a cell or bar the causal mask removed, in the reader's language."""
    return t("server.viz.masked_hover")


def signed(x: float, digits: int = 3) -> str:
    """A change with its sign, as the language writes numbers: +0.123 / +0,123 (f"{x:+.3f}" in English)."""
    sign, rest = (text := f"{x:+.{digits}f}")[0], text[1:]
    return sign + num(float(rest), digits)


def cell_numbers(values, digits: int = 2):
    """Numbers written inside heatmap cells: rounded numbers in English (as plotly shows them), text with a decimal
    comma where the language writes one."""
    rounded = np.round(np.asarray(values, dtype=float), digits)
    if t("_meta.decimal") == ".":
        return rounded
    return np.vectorize(lambda v: str(v).replace(".", t("_meta.decimal")), otypes=[object])(rounded)


def separators() -> dict:
    """plotly's decimal and thousands separators for the reader's language (hover text and ticks: 0,93 in German);
    nothing for English, plotly's own default."""
    return {} if t("_meta.decimal") == "." else {"separators": t("_meta.decimal") + "."}
def token_axis(pieces: list[str], title: str, font_size: int | None = None) -> dict:
    """A categorical-looking axis over numeric positions: tokens as tick text, every tick shown."""
    n = len(pieces)
    size = font_size or (12 if n <= 20 else 10 if n <= 32 else 8)
    return dict(
        title=dict(text=title), tickmode="array", tickvals=list(range(n)), ticktext=axis_labels(pieces),
        tickfont=dict(size=size), showgrid=False, zeroline=False,
    )


def base_layout(fig: go.Figure, title: str, height: int | None = None, width: int | None = None) -> go.Figure:
    fig.update_layout(title=dict(text=title, x=0.01, xanchor="left"), font=FONT, template=LEAN_WHITE,
                      margin=dict(l=80, r=30, t=70, b=80), **separators())
    if height:
        fig.update_layout(height=height)
    # No fixed width on the page: the figure fills its container (a phone is 390 px wide). ``width`` is the
    # natural width for a static export, kept in layout.meta for scripts/gallery.py.
    fig.update_layout(autosize=True, meta=dict(export_width=width or 1000))
    return fig


def axis_id(i: int) -> str:
    """Plotly's name of the i-th (0-based) x or y axis: '', '2', '3', ..."""
    return "" if i == 0 else str(i + 1)


def grid(rows: int, cols: int, titles: list[str], hgap: float = 0.02, vgap: float = 0.05,
         title_size: int = 11) -> dict:
    """A small-multiples layout as a plain dict (make_subplots plus per-panel updates is ~30x slower).

    Panel i = row * cols + col uses axes x{i+1}/y{i+1}; rows run top to bottom.
    """
    layout: dict = {"annotations": []}
    w, h = (1 - hgap * (cols - 1)) / cols, (1 - vgap * (rows - 1)) / rows
    for i in range(rows * cols):
        r, c = divmod(i, cols)
        x0, y1 = c * (w + hgap), 1 - r * (h + vgap)
        a = axis_id(i)
        clip = lambda v: min(1.0, max(0.0, round(v, 6)))  # float error must not leave [0, 1]
        layout[f"xaxis{a}"] = dict(domain=[clip(x0), clip(x0 + w)], anchor=f"y{a}")
        layout[f"yaxis{a}"] = dict(domain=[clip(y1 - h), clip(y1)], anchor=f"x{a}")
        if i < len(titles):
            layout["annotations"].append(dict(text=titles[i], x=x0 + w / 2, y=y1, xref="paper", yref="paper",
                                              xanchor="center", yanchor="bottom", showarrow=False,
                                              font=dict(size=title_size)))
    return layout
