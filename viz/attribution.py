"""Attribution next to cross-attention for the same output tokens, and how far they agree (Spearman per token)."""

from __future__ import annotations

import html

import numpy as np
import plotly.graph_objects as go

from i18n import t
from viz.attention import causal, masked_trace, weight_hover
from viz.style import ATTENTION_SCALE, DIVERGING_SCALE, axis_id, base_layout, grid, signed, token_axis
from viz.tokens import readable

METHOD_NAMES = {"rollout": "attention rollout", "saliency": "saliency (gradient norm)",
                "input_x_gradient": "input × gradient", "integrated_gradients": "integrated gradients",
                "occlusion": "occlusion (erase one input)"}  # the values the page's radio and the API take
SIGNED = ("input_x_gradient", "integrated_gradients", "occlusion")  # attributions with a sign; the others are >= 0


def method_name(method: str) -> str:
    """A method's name as the reader's language says it (METHOD_NAMES holds the English, the values code takes)."""
    return t(f"server.method.{method}")


def ranks(x) -> np.ndarray:
    """Ranks 0..n-1 with ties given their average rank (as scipy.stats.rankdata(x) - 1)."""
    x = np.asarray(x, dtype=float)
    order = np.argsort(x, kind="mergesort")
    r = np.empty(len(x))
    r[order] = np.arange(len(x))
    _, inv = np.unique(x, return_inverse=True)
    return (np.bincount(inv, weights=r) / np.bincount(inv))[inv]


def spearman(a, b) -> float:
    """Spearman's rank correlation of two vectors; nan when either is constant."""
    ra, rb = ranks(a), ranks(b)
    ra, rb = ra - ra.mean(), rb - rb.mean()
    den = np.sqrt((ra ** 2).sum() * (rb ** 2).sum())
    return float((ra * rb).sum() / den) if den > 0 else float("nan")


def agreement(attribution, attention) -> np.ndarray:
    """(T_out,) Spearman, row by row, between cross-attention (T_out, S) and the size of the attribution over the
    source (|attribution|: attention says how much, never which way)."""
    a, w = np.abs(np.asarray(attribution, dtype=float)), np.asarray(attention, dtype=float)
    if a.shape != w.shape:
        raise ValueError(f"attribution {a.shape} and attention {w.shape} must cover the same tokens")
    return np.array([spearman(a[t], w[t]) for t in range(a.shape[0])])


def agreement_text(rho: np.ndarray, out_tokens: list[str], method: str, layer_label: str) -> str:
    """Two sentences for a learner: how well they agree on this sentence, and where least."""
    ok = ~np.isnan(rho)
    if not ok.any():
        return t("server.viz.agreement.none")
    worst, best = int(np.nanargmin(rho)), int(np.nanargmax(rho))
    mean = float(np.nanmean(rho))
    verdict = t("server.viz.agreement.close" if mean >= 0.7 else "server.viz.agreement.part" if mean >= 0.3
                else "server.viz.agreement.disagree")
    name = method_name(method)
    return t("server.viz.agreement.text", method=name[:1].upper() + name[1:], layer=layer_label, verdict=verdict,
             mean=signed(mean, 2), n=int(ok.sum()), best=repr(readable(out_tokens[best])), best_rho=signed(rho[best], 2),
             worst=repr(readable(out_tokens[worst])), worst_rho=signed(rho[worst], 2))


def attribution_figure(source, target, attention, src_tokens: list[str], tgt_tokens: list[str],
                       out_tokens: list[str], method: str, layer_label: str,
                       contrast_tokens: list[str] | None = None) -> go.Figure:
    """Four panels, one row per output token: attribution over the source (T_out, S), over the German prefix
    (T_out, T_out; later positions grey: the decoder cannot see them), cross-attention (T_out, S) of the same rows,
    and their agreement (Spearman per row)."""
    src, tgt, w = (np.asarray(x, dtype=float) for x in (source, target, attention))
    n_out = len(out_tokens)
    if src.shape != (n_out, len(src_tokens)) or w.shape != src.shape or tgt.shape != (n_out, len(tgt_tokens)):
        raise ValueError(f"shapes {src.shape}, {tgt.shape}, {w.shape} do not fit {n_out} outputs, "
                         f"{len(src_tokens)} source and {len(tgt_tokens)} target tokens")
    rho = agreement(src, w)
    contrast = contrast_tokens or []
    rows = [readable(o) + (t("server.viz.not_contrast", token=readable(c)) if c else "") for o, c in
            zip(out_tokens, contrast + [""] * (n_out - len(contrast)))]
    row_labels = [html.escape(r, quote=False) for r in rows]

    def row_axis(title: str, labelled: bool) -> dict:  # token_axis, but over labels already made readable
        return dict(title=dict(text=title), tickmode="array", tickvals=list(range(n_out)), ticktext=row_labels,
                    showgrid=False, zeroline=False, autorange="reversed", showticklabels=labelled,
                    tickfont=dict(size=12 if n_out <= 20 else 10))
    layout = grid(1, 4, [t("server.viz.attr.source"), t("server.viz.attr.prefix"),
                         t("server.viz.attr.cross", layer=layer_label), t("server.viz.attr.agreement")], hgap=0.06)
    for i, frac in enumerate(((0.0, 0.36), (0.40, 0.66), (0.70, 0.90), (0.93, 1.0))):
        layout[f"xaxis{axis_id(i)}"]["domain"] = list(frac)
        layout["annotations"][i]["x"] = sum(frac) / 2
    signed = method in SIGNED
    span = max(float(np.nanmax(np.abs(np.concatenate([src.ravel(), tgt.ravel()])), initial=0.0)), 1e-9)
    traces = []
    mask = causal(n_out, len(tgt_tokens))  # (T_out, T_out): j > t
    for i, (z, keys, title) in enumerate(((src, src_tokens, t("server.viz.axis.source_token")),
                                          (tgt, tgt_tokens, t("server.viz.axis.decoder_input")))):
        a = axis_id(i)
        if i == 1:
            z = np.where(mask, np.nan, z)
        traces.append(go.Heatmap(
            z=z, x=list(range(len(keys))), y=list(range(n_out)), coloraxis="coloraxis", xaxis=f"x{a}", yaxis=f"y{a}",
            hoverongaps=False, customdata=[[f"{row_labels[row]} ← {html.escape(readable(k), quote=False)}" for k in keys]
                                           for row in range(n_out)],
            hovertemplate=f"%{{customdata}}<br>{t('server.viz.attribution')}: %{{z:.4f}}<extra></extra>"))
        layout[f"xaxis{a}"].update(token_axis(keys, title), tickangle=-60)
        layout[f"yaxis{a}"].update(row_axis(t("server.viz.axis.output_token") if i == 0 else "", i == 0))
    traces.append(masked_trace(mask, xaxis="x2", yaxis="y2"))
    unmeasured = np.isnan(tgt) & ~mask  # occlusion's first output with BOS erased: it has nothing left to read
    if unmeasured.any():
        traces.append(masked_trace(unmeasured, t("server.viz.unmeasured"), xaxis="x2", yaxis="y2"))
    traces.append(go.Heatmap(
        z=w, x=list(range(len(src_tokens))), y=list(range(n_out)), coloraxis="coloraxis2", xaxis="x3", yaxis="y3",
        customdata=[[f"{row_labels[row]} ← {html.escape(readable(k), quote=False)}" for k in src_tokens]
                    for row in range(n_out)], hovertemplate=weight_hover(".3f")))
    layout["xaxis3"].update(token_axis(src_tokens, t("server.viz.axis.source_token")), tickangle=-60)
    layout["yaxis3"].update(row_axis("", False))
    traces.append(go.Bar(x=np.nan_to_num(rho), y=list(range(n_out)), orientation="h", xaxis="x4", yaxis="y4",
                         marker_color=["#2ca02c" if r >= 0.3 else "#d62728" for r in np.nan_to_num(rho)],
                         customdata=row_labels, showlegend=False,
                         hovertemplate="%{customdata}<br>Spearman: %{x:+.2f}<extra></extra>"))
    layout["xaxis4"].update(range=[-1, 1], title=dict(text="Spearman"), tickvals=[-1, 0, 1])
    layout["yaxis4"].update(row_axis("", False))
    layout["coloraxis"] = (dict(colorscale=DIVERGING_SCALE, reversescale=True, cmin=-span, cmax=span, cmid=0)
                           if signed else dict(colorscale="Greens", cmin=0, cmax=span))
    layout["coloraxis"]["colorbar"] = dict(title=dict(text=t("server.viz.fall" if method == "occlusion"
                                                             else "server.viz.attribution")), x=1.02, len=0.9)
    layout["coloraxis2"] = dict(colorscale=ATTENTION_SCALE, cmin=0, cmax=1,
                                # (apart from the first bar's title: at 1.12 "attribution" and "weight" ran together)
                                colorbar=dict(title=dict(text=t("server.viz.weight")), x=1.18, len=0.9))
    fig = go.Figure(data=traces, layout=layout)
    n = max(len(src_tokens), n_out)
    what = method_name(method) + t("server.viz.attr.what_contrast" if contrast else "server.viz.attr.what_logp"
                                   if method != "rollout" else "server.viz.attr.what_rollout")
    if method == "occlusion":
        what += t("server.viz.attr.what_occlusion")
    return base_layout(fig, t("server.viz.attr.title", what=html.escape(what, quote=False)),
                       height=int(min(900, max(460, 22 * n + 240))), width=1400)
