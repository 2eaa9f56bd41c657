"""Step-by-step decoding: top-k bars with the choice marked, attention rows, the beam tree, greedy vs beam."""

from __future__ import annotations

import html
import math
from typing import Any

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from i18n import num, t
from viz.arrays import as_array
from viz.attention import which_heads
from viz.style import ATTENTION_SCALE, base_layout, token_axis
from viz.tokens import hover_labels, readable


def step_view(
    step: Any,
    id_to_piece,
    cross_row,
    self_row,
    src_tokens: list[str],
    prefix_tokens: list[str],
    layer: int,
    head: int | None,
) -> go.Figure:
    """Decoding step t: top-k next tokens (chosen one marked), and the attention row that produced them.

    step: a StepChoice (top_ids, top_probs, chosen, chosen_prob, step, prefix);
    id_to_piece: callable id -> piece; cross_row (S,) and self_row (t+1,) are the attention weights of
    the query at decoder position t over source tokens and over BOS + prefix.
    """
    labels = [readable(id_to_piece(i)) for i in step.top_ids]
    which = which_heads(head)
    colours = ["#d62728" if i == step.chosen else "#1f77b4" for i in step.top_ids]
    fig = make_subplots(rows=3, cols=1, row_heights=[0.44, 0.28, 0.28], vertical_spacing=0.2, subplot_titles=[
        t("server.viz.step.top", step=step.step, n=len(labels)),
        t("server.viz.step.cross", layer=layer, which=which),
        t("server.viz.step.self"),
    ])
    fig.add_trace(go.Bar(x=list(range(len(labels))), y=step.top_probs, marker_color=colours,
                         text=[num(p, 3) for p in step.top_probs], textposition="outside",
                         customdata=[html.escape(s, quote=False) for s in labels],
                         hovertemplate="%{customdata}<br>p = %{y:.4f}<extra></extra>", showlegend=False), row=1, col=1)
    fig.update_xaxes(tickmode="array", tickvals=list(range(len(labels))),
                     ticktext=[html.escape(s, quote=False) for s in labels], row=1, col=1)
    fig.update_yaxes(title_text=t("server.viz.probability"), range=[0, 1.18], row=1, col=1)  # headroom for labels
    for r, row, toks in ((2, cross_row, src_tokens), (3, self_row, prefix_tokens)):
        w = as_array(row)
        fig.add_trace(go.Heatmap(z=w[None, :], x=list(range(len(toks))), zmin=0, zmax=1, colorscale=ATTENTION_SCALE,
                                 showscale=r == 2, customdata=[hover_labels(toks)],
                                 colorbar=dict(title=dict(text=t("server.viz.weight")), len=0.5, y=0.3),
                                 hovertemplate=t("server.viz.key_hover", name="%{customdata}")
                                 + f"<br>{t('server.viz.weight')}: %{{z:.4f}}<extra></extra>"), row=r, col=1)
        fig.update_xaxes(**token_axis(toks, ""), tickangle=-45, row=r, col=1)
        fig.update_yaxes(showticklabels=False, row=r, col=1)
    prefix = " ".join(readable(p) for p in prefix_tokens)
    chosen = html.escape(readable(id_to_piece(step.chosen)), quote=False)
    title = t("server.viz.step.title", step=step.step, prefix=t("server.quoted", text=html.escape(prefix, quote=False)),
              chosen=chosen)
    return base_layout(fig, title, height=760)


START = -1  # x of the [BOS] node: the first token chosen is step 0, as on the step slider


def beam_tree(trace: Any, id_to_piece, max_steps: int | None = None) -> go.Figure:
    """Every beam step's candidates as nodes (x = step, as numbered on the step slider; y = rank), edges to their
    parent hypothesis; the start (BOS) stands at x = -1.

    Kept hypotheses are filled dots, pruned candidates grey rings, finished (EOS) ones squares, and the winner's
    path drawn in red. Edge hover: token and its log-probability.
    """
    steps = trace.beam_steps[: max_steps or len(trace.beam_steps)]
    node_x, node_y, node_text, node_hover, node_colour, node_symbol = [], [], [], [], [], []
    edge_x, edge_y = [], []
    position = {}  # (step, candidate index) -> (x, y)
    for s, st in enumerate(steps):
        for ci, c in enumerate(st.candidates):
            x, y = s, -ci
            position[(s, ci)] = (x, y)
            if s == 0:
                px, py = START, 0
            else:
                px, py = position[(s - 1, steps[s - 1].beams[c.parent])]
            edge_x += [px, x, None]
            edge_y += [py, y, None]
            label = readable(id_to_piece(c.token))
            node_x.append(x)
            node_y.append(y)
            node_text.append(html.escape(label, quote=False))
            node_hover.append(t("server.viz.beam.node", step=s, token=html.escape(label, quote=False),
                                logp=num(c.token_logprob, 3), score=num(c.score, 3))
                              + t("server.viz.beam.finished" if c.finished else "server.viz.beam.kept" if c.kept
                                  else "server.viz.beam.pruned"))
            node_colour.append("#2ca02c" if c.finished else "#1f77b4" if c.kept else "#767676")
            # the shape says it too, not only the colour (WCAG 1.4.1): a ring is pruned, a square finished
            node_symbol.append("square" if c.finished else "circle" if c.kept else "circle-open")
    win_x, win_y = _winner_path(steps, trace)
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=edge_x, y=edge_y, mode="lines", line=dict(color="#bbbbbb", width=1),
                             hoverinfo="skip", name=t("server.viz.beam.extension")))
    fig.add_trace(go.Scatter(x=win_x, y=win_y, mode="lines", line=dict(color="#d62728", width=3), hoverinfo="skip",
                             name=t("server.viz.beam.best")))
    fig.add_trace(go.Scatter(x=[START], y=[0], mode="markers+text", text=["[BOS]"], textposition="middle left",
                             marker=dict(size=12, color="#444"), hovertext=[t("server.viz.beam.start")],
                             hoverinfo="text", name=t("server.viz.beam.start")))
    fig.add_trace(go.Scatter(x=node_x, y=node_y, mode="markers+text", text=node_text, textposition="top center",
                             textfont=dict(size=10), marker=dict(size=10, color=node_colour, symbol=node_symbol),
                             hovertext=node_hover, hoverinfo="text", name=t("server.viz.beam.candidates")))
    fig.update_xaxes(title_text=t("server.viz.beam.axis_step"),
                     tickmode="array", tickvals=list(range(len(steps))), range=[START - 0.8, len(steps) - 0.5])
    fig.update_yaxes(title_text=t("server.viz.beam.axis_rank"), showticklabels=False)
    fig.update_layout(legend=dict(orientation="h", y=-0.15))
    width = max(700, 90 * (len(steps) + 1))
    fig = base_layout(fig, t("server.viz.beam.title", size=len(steps[0].beams) if steps else 0), height=560,
                      width=min(width, 2400))
    # what the figure is for, in words (the page's text alternative, figures.js: the marker shapes and the red path
    # say fate and winner only to sight; the points' table read rank "-1.00")
    fig.layout.meta = dict(fig.layout.meta or {}, aeSummary=beam_summary(steps, trace, id_to_piece),
                           aeTable=beam_table(steps, id_to_piece))
    return fig


def _fate(c) -> str:
    return t("server.viz.beam.finished" if c.finished else "server.viz.beam.kept" if c.kept else "server.viz.beam.pruned")


def _words(ids, id_to_piece) -> str:
    return " ".join(readable(id_to_piece(int(i))) for i in ids)


def beam_summary(steps, trace, id_to_piece) -> str:
    """The winner, every final hypothesis with its score, and each step's candidates by fate, as plain text."""
    if not trace.hypotheses or not steps:
        return t("server.viz.beam.none")
    lines = [t("server.viz.beam.winner", words=_words(trace.hypotheses[0].tokens, id_to_piece),
               score=num(trace.hypotheses[0].score, 3))]
    lines.append(t("server.viz.beam.final", list="; ".join(
        t("server.viz.beam.hypothesis", words=_words(h.tokens, id_to_piece), score=num(h.score, 3),
          fate=t("server.viz.beam.finished" if h.finished else "server.viz.beam.unfinished"))
        for h in trace.hypotheses)))
    for st in steps:
        said = []
        for fate in ("kept", "finished", "pruned"):
            words = [readable(id_to_piece(c.token)) for c in st.candidates
                     if (c.finished if fate == "finished" else c.kept and not c.finished if fate == "kept"
                         else not c.kept and not c.finished)]
            if words:
                said.append(t(f"server.viz.beam.{fate}") + ": " + ", ".join(words))
        lines.append(t("server.viz.beam.step_line", step=st.step, list="; ".join(said)))
    return "\n".join(lines)


def beam_table(steps, id_to_piece) -> dict:
    """A row per candidate: step, its word, the hypothesis it makes (every word from the start), score, fate."""
    rows = []
    for s, st in enumerate(steps):
        for ci, c in enumerate(st.candidates):
            path = _path_to(steps, s, ci)
            rows.append([str(st.step), readable(id_to_piece(c.token)),
                         _words([steps[k].candidates[i].token for k, i in path], id_to_piece), num(c.score, 3),
                         _fate(c)])
    return {"head": [t("server.viz.beam.col_step"), t("server.viz.beam.col_word"), t("server.viz.beam.col_words"),
                     t("server.viz.beam.col_score"), t("server.viz.beam.col_fate")], "rows": rows}


def _winner_path(steps, trace) -> tuple[list[float], list[float]]:
    """Follow the winning hypothesis back through parents: its nodes' positions, from BOS on."""
    if not trace.hypotheses or not steps:
        return [], []
    best = trace.hypotheses[0]
    target = best.tokens + ([None] if best.finished else [])
    # find the last node of the winner: at step len(target)-1, a candidate whose path spells the tokens
    end = len(target) - 1
    if end >= len(steps):
        return [], []
    for ci in range(len(steps[end].candidates)):
        path = _path_to(steps, end, ci)
        toks = [steps[s].candidates[i].token for s, i in path]
        want = best.tokens + ([toks[-1]] if best.finished else [])
        if toks == want and (not best.finished or steps[end].candidates[ci].finished):
            return [START] + [s for s, _ in path], [0] + [-i for _, i in path]
    return [], []


def _path_to(steps, s: int, ci: int) -> list[tuple[int, int]]:
    path = [(s, ci)]
    while s > 0:
        parent = steps[s].candidates[ci].parent
        s, ci = s - 1, steps[s - 1].beams[parent]
        path.append((s, ci))
    return path[::-1]


def greedy_vs_beam(greedy_trace: Any, beam_trace: Any, id_to_piece) -> go.Figure:
    """The two outputs token by token with each token's probability; total log-probability in the legend."""
    fig = go.Figure()
    same = [s.chosen for s in greedy_trace.steps] == [s.chosen for s in beam_trace.steps]
    styles = (("greedy", "#1f77b4", dict(width=6), "top center"), ("beam", "#d62728", dict(width=2, dash="dash"),
                                                                     "bottom center"))
    for trace, (name, colour, line, where) in zip((greedy_trace, beam_trace), styles):
        toks = [readable(id_to_piece(s.chosen)) for s in trace.steps]
        probs = [s.chosen_prob for s in trace.steps]
        total = sum(math.log(max(p, 1e-30)) for p in probs)
        said = t(f"server.viz.vs.{name}")
        fig.add_trace(go.Scatter(
            x=list(range(len(toks))), y=probs, mode="lines+markers+text",
            name=t("server.viz.vs.legend", name=said, total=num(total, 2)),
            text=[html.escape(tok, quote=False) for tok in toks], textposition=where, line=dict(color=colour, **line),
            textfont=dict(color=colour), opacity=0.55 if name == "greedy" else 1.0,
            hovertemplate=said + "<br>" + t("server.viz.vs.hover", step="%{x}", token="%{text}")
            + "<br>p = %{y:.4f}<extra></extra>"))
    fig.update_xaxes(title_text=t("server.viz.vs.axis_x"), dtick=1)
    fig.update_yaxes(title_text=t("server.viz.vs.axis_y"), range=[0, 1.1])
    fig.update_layout(legend=dict(orientation="h", y=-0.2))
    verdict = t("server.viz.vs.same" if same else "server.viz.vs.differ")
    return base_layout(fig, t("server.viz.vs.title", verdict=verdict), height=460)
