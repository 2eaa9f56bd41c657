"""viz/: each figure shows exactly the numbers it was given, labelled with the tokens it was given."""

import ast
import html
import math
from pathlib import Path

import numpy as np
import pytest
import torch

from conftest import tiny_model
from model.decoding import beam_search, greedy
from model.hooks import run_with_cache
from model.layers import PositionalEncoding
from viz import arrays
from viz.attention import KIND_STATS, STAT_INFO, attention_heatmap, head_statistics, head_statistics_figure, model_view
from viz.bertviz_view import bertviz_page, iframe, safe_json
from viz.decoding import beam_tree, greedy_vs_beam, step_view
from viz.head import head_arithmetic, inside_head
from viz.logit_lens import lens_top, logit_lens
from viz.positional import embedding_vs_pe, pe_heatmap, pe_similarity, pe_waves
from viz.style import MASKED
from viz.tokens import axis_labels, readable

VIZ = Path(__file__).resolve().parent.parent / "viz"


def softmaxed(shape, seed=0):
    a = np.random.default_rng(seed).random(shape)
    return a / a.sum(-1, keepdims=True)


SRC = ["▁A", "▁dog", "▁runs", "▁dog", "s", "</s>"]  # a repeated token, a continuation piece, a special
TGT = ["<s>", "▁Ein", "▁Hund", "▁läuft"]


def test_token_labels():
    assert [readable(t) for t in SRC] == ["A", "dog", "runs", "dog", "·s", "[EOS]"]
    assert readable("<0xF0>") == "byte F0" and readable("▁") == "␣"
    labels = axis_labels(["<s>", "▁<b>x</b>"])
    assert labels == ["<i>[BOS]</i>", "&lt;b&gt;x&lt;/b&gt;"]  # plotly renders HTML: token text escaped


def test_heatmap_shows_given_weights_and_tokens():
    w = softmaxed((4, len(TGT), len(SRC)))
    fig = attention_heatmap(w, TGT, SRC, head=2, layer=1, kind="cross")
    z = np.array(fig.data[0].z)
    assert np.array_equal(z, w[2])
    assert list(fig.layout.xaxis.ticktext) == axis_labels(SRC) and list(fig.layout.xaxis.tickvals) == list(range(6))
    assert list(fig.layout.yaxis.ticktext) == axis_labels(TGT)
    assert "query" in fig.layout.yaxis.title.text and "key" in fig.layout.xaxis.title.text
    assert "layer 1" in fig.layout.title.text and "head 2" in fig.layout.title.text
    assert "%{z:.4f}" in fig.data[0].hovertemplate
    hover = np.array(fig.data[0].customdata)
    assert hover[1, 3] == "query: Ein (#1)<br>key: dog (#3)"  # the duplicate "dog" keeps its own position
    pred = attention_heatmap(w, TGT, SRC, head=0, predicted_tokens=["▁Ein", "▁Hund", "▁läuft", "</s>"])
    assert np.array(pred.data[0].customdata)[1, 0] == "query: Ein (#1), predicting Hund<br>key: A (#0)"
    avg = attention_heatmap(w, TGT, SRC, head=None)
    assert np.allclose(np.array(avg.data[0].z), w.mean(0)) and "mean of 4 heads" in avg.layout.title.text
    with pytest.raises(ValueError):
        attention_heatmap(w, SRC, SRC)


def test_model_view_has_a_panel_per_layer_and_head():
    w = softmaxed((3, 4, len(SRC), len(SRC)))
    fig = model_view(w, SRC, SRC, kind="encoder")
    assert len(fig.data) == 12
    for i, tr in enumerate(fig.data):
        layer, head = divmod(i, 4)
        assert np.array_equal(np.array(tr.z), w[layer, head]) and tr.coloraxis == "coloraxis"
    assert fig.layout.coloraxis.cmin == 0 and fig.layout.coloraxis.cmax == 1  # one shared scale
    assert [a.text for a in fig.layout.annotations][:2] == ["L0 H0", "L0 H1"]  # short: four fit a phone


def test_head_statistics_match_an_independent_computation():
    w = softmaxed((2, 3, 5, 5), seed=4)
    stats = head_statistics(w)
    for layer in range(2):
        for h in range(3):
            a = w[layer, h]
            ent = np.mean([-sum(p * math.log(p) for p in row) for row in a])
            dist = np.mean([sum(a[i, j] * abs(i - j) for j in range(5)) for i in range(5)])
            prev = np.mean([a[i, i - 1] for i in range(1, 5)])
            assert stats["entropy"][layer, h] == pytest.approx(ent)
            assert stats["distance"][layer, h] == pytest.approx(dist)
            assert stats["previous"][layer, h] == pytest.approx(prev)
            assert stats["same"][layer, h] == pytest.approx(np.mean(np.diag(a)))
            assert stats["first"][layer, h] == pytest.approx(a[:, 0].mean())
            assert stats["last"][layer, h] == pytest.approx(a[:, -1].mean())
            assert stats["focus"][layer, h] == pytest.approx(np.mean([max(row) for row in a]))
    fig = head_statistics_figure(w, kind="encoder")
    assert len(fig.data) == 6 and np.allclose(np.array(fig.data[0].z), stats["entropy"])
    one_hot = np.zeros((1, 1, 4, 4))
    one_hot[0, 0, np.arange(4), np.arange(4)] = 1  # attends to itself only
    s = head_statistics(one_hot)
    assert s["entropy"][0, 0] == 0 and s["same"][0, 0] == 1 and s["distance"][0, 0] == 0


@pytest.mark.parametrize("kind", ["encoder", "decoder", "cross"])
def test_head_statistics_each_on_its_own_scale_with_a_bar_and_a_line_of_text(kind):
    w = softmaxed((2, 3, 5, 6 if kind == "cross" else 5), seed=1)
    fig = head_statistics_figure(w, kind=kind)
    names = KIND_STATS[kind]
    assert len(fig.data) == len(names)
    if kind == "cross":  # a German position and an English one share no axis
        assert not {"distance", "previous", "same"} & set(names)
    if kind == "decoder":  # the last decoder key is no EOS
        assert "last" not in names
    n_keys = w.shape[-1]
    for i, (trace, name) in enumerate(zip(fig.data, names)):
        name_of_axis = "coloraxis" if i == 0 else f"coloraxis{i + 1}"  # plotly's names
        axis = fig.layout[name_of_axis]
        assert trace.coloraxis == name_of_axis and axis.colorbar.x is not None  # its own scale and bar
        want = {"weight": 1.0, "entropy": math.log(n_keys), "distance": n_keys - 1}[STAT_INFO[name][2]]
        assert (axis.cmin, axis.cmax) == (0, pytest.approx(want))
        assert np.allclose(np.array(trace.z), head_statistics(w)[name])
    text = fig.layout.annotations[-1].text
    assert all(STAT_INFO[n][1] in text for n in names)  # a line for each statistic shown


@pytest.mark.parametrize("kind", ["sinusoidal", "learned"])
def test_positional_views_equal_the_model_buffer(kind):
    pe = PositionalEncoding(16, 50, kind).table.detach()
    fig = pe_heatmap(pe, length=40)
    assert np.allclose(np.array(fig.data[0].z), pe[:40].numpy())
    assert fig.layout.xaxis.title.text and fig.layout.yaxis.title.text
    waves = pe_waves(pe, [0, 1, 6])
    assert np.allclose(np.array(waves.data[2].y), pe[:, 6].numpy()) and waves.data[1].name == "dim 1 (cos)"
    sim = pe_similarity(pe, length=20)
    assert np.allclose(np.array(sim.data[0].z), (pe[:20] @ pe[:20].T).numpy(), atol=1e-5)
    with pytest.raises(ValueError):
        pe_waves(pe, [16])


def test_embedding_vs_pe_bars_are_norms():
    e, p = np.random.default_rng(1).normal(size=(6, 8)), np.random.default_rng(2).normal(size=(6, 8))
    fig = embedding_vs_pe(e, p, SRC)
    assert np.allclose(fig.data[0].y, np.linalg.norm(e, axis=1)) and np.allclose(fig.data[1].y, np.linalg.norm(p, axis=1))


@pytest.fixture(scope="module")
def run():
    m = tiny_model(5)
    with torch.no_grad():
        m.embedding.weight.mul_(6)
    src = torch.tensor([[10, 11, 12, 13, 3]])
    (out,), (gtrace,) = greedy(m, src, 8)
    best, btrace = beam_search(m, src, beam_size=3, max_len=8)
    tgt = torch.tensor([[2] + out])
    _, cache = run_with_cache(m, src, tgt)
    return m, src, out, gtrace, btrace, cache


def piece(i):
    return f"▁t{i}" if i > 3 else ["<pad>", "<unk>", "<s>", "</s>"][i]


def test_step_view(run):
    m, src, out, gtrace, _, cache = run
    t = 1
    step = gtrace.steps[t]
    cross = arrays.attention(cache, "cross", 0)[:, t].mean(0)
    selfrow = arrays.attention(cache, "decoder", 0)[:, t, : t + 1].mean(0)
    src_tokens = [piece(i) for i in src[0].tolist()]
    prefix = ["<s>"] + [piece(i) for i in out[:t]]
    fig = step_view(step, piece, cross, selfrow, src_tokens, prefix, layer=0, head=None)
    bars = fig.data[0]
    assert list(bars.y) == step.top_probs
    chosen_at = step.top_ids.index(step.chosen)
    assert bars.marker.color[chosen_at] == "#d62728" and bars.marker.color.count("#d62728") == 1
    assert np.allclose(np.array(fig.data[1].z)[0], cross) and np.allclose(np.array(fig.data[2].z)[0], selfrow)
    assert "step 1" in fig.layout.title.text


def test_beam_tree_nodes_and_edges_equal_the_trace(run):
    *_, btrace, _ = run
    fig = beam_tree(btrace, piece)
    nodes = fig.data[3]
    cands = [c for st in btrace.beam_steps for c in st.candidates]
    assert len(nodes.x) == len(cands)
    assert list(nodes.text) == [html.escape(readable(piece(c.token)), quote=False) for c in cands]
    colours = {"#2ca02c": "finished", "#1f77b4": "kept", "#767676": "pruned"}
    shapes = {"square": "finished", "circle": "kept", "circle-open": "pruned"}  # not by colour alone
    for c, col, shape in zip(cands, nodes.marker.color, nodes.marker.symbol):
        assert colours[col] == shapes[shape] == ("finished" if c.finished else "kept" if c.kept else "pruned")
    # every edge runs from the node of the candidate's parent hypothesis to the candidate
    ex, ey = list(fig.data[0].x), list(fig.data[0].y)
    k = 0
    for s, st in enumerate(btrace.beam_steps):
        for ci, c in enumerate(st.candidates):
            (px, x), (py, y) = ex[3 * k : 3 * k + 2], ey[3 * k : 3 * k + 2]
            assert (x, y) == (s, -ci)  # x = the step's number on the step slider (the first token is step 0)
            if s == 0:
                assert (px, py) == (-1, 0)  # the start, before step 0
            else:
                assert (px, py) == (s - 1, -btrace.beam_steps[s - 1].beams[c.parent])
            k += 1
    win = fig.data[1]
    assert len(win.x) == len(btrace.hypotheses[0].tokens) + 1 + btrace.hypotheses[0].finished

    assert list(win.x) == list(range(-1, len(win.x) - 1))  # one node per step, from the start on
    assert list(fig.layout.xaxis.tickvals)[0] == 0 and min(nodes.x) == 0


def test_the_beam_trees_words_say_the_winner_every_hypothesis_and_each_candidates_fate(run):
    """Without sight (issue 49): the winner, each final hypothesis with its score and whether it finished, and a
    table row per candidate with its words, score and fate (the shapes and the red path said these only to sight)."""
    *_, btrace, _ = run
    meta = beam_tree(btrace, piece).layout.meta
    said, table = meta["aeSummary"], meta["aeTable"]
    words = lambda ids: " ".join(readable(piece(int(i))) for i in ids)  # noqa: E731
    best = btrace.hypotheses[0]
    assert said.splitlines()[0] == f"The winner: “{words(best.tokens)}” (score {best.score:.3f})."
    at = 0
    for h in btrace.hypotheses:  # best first, each with its score and fate
        at = said.index(f"“{words(h.tokens)}” ({h.score:.3f}, {'finished (EOS)' if h.finished else 'not finished'})", at)
    cands = [(s, c) for s, st in enumerate(btrace.beam_steps) for c in st.candidates]
    assert len(table["rows"]) == len(cands) and len(table["head"]) == 5
    for (s, c), row in zip(cands, table["rows"]):
        fate = "finished (EOS)" if c.finished else "kept" if c.kept else "pruned"
        assert row[0] == str(btrace.beam_steps[s].step) and row[1] == readable(piece(c.token)) and row[4] == fate
        assert row[2].split()[-1] == row[1] and len(row[2].split()) == s + 1  # its words from the start
        assert float(row[3]) == round(c.score, 3)
    for st in btrace.beam_steps:  # each step's line names its pruned candidates
        pruned = [readable(piece(c.token)) for c in st.candidates if not c.kept and not c.finished]
        line = next(x for x in said.splitlines() if x.startswith(f"Step {st.step}:"))
        assert ("pruned: " + ", ".join(pruned) in line) == bool(pruned), line



def test_greedy_vs_beam(run):
    _, _, out, gtrace, btrace, _ = run
    fig = greedy_vs_beam(gtrace, btrace, piece)
    assert [s.chosen_prob for s in gtrace.steps] == list(fig.data[0].y)
    assert fig.data[1].name.startswith("beam")


def test_inside_head_arithmetic(run):
    m, src, out, _, _, cache = run
    blk = "decoder.layers.1.self_attn"
    q, k, v = (cache[f"{blk}.{n}"][0, 2] for n in "qkv")
    scores, weights = cache[f"{blk}.scores"][0, 2], cache[f"{blk}.weights"][0, 2]
    i = 1
    a = head_arithmetic(q, k, v, scores, weights, i)
    assert np.allclose(a["raw"][: i + 1], scores[i, : i + 1].numpy(), atol=1e-6)
    assert list(a["masked"]) == [j > i for j in range(len(a["masked"]))]  # causal: later keys masked
    assert np.allclose(a["output"], (weights[i] @ v).numpy(), atol=1e-6)
    toks = ["<s>"] + [piece(t) for t in out]
    fig = inside_head(q, k, v, scores, weights, toks, toks, i, layer=1, head=2, kind="decoder self")
    real = ~a["masked"]
    assert np.allclose(np.array(fig.data[0].z)[0], q[i].numpy())
    assert np.allclose(np.array(fig.data[3].y)[real], weights[i].numpy()[real])
    assert np.allclose(np.array(fig.data[5].z)[0], a["output"])
    # the K and V panels write a word for each of these few keys; for 20 keys, every second one, so none overlap
    assert fig.layout.yaxis2.ticktext == fig.layout.xaxis3.ticktext and "" not in fig.layout.yaxis2.ticktext
    many = [f"w{j}" for j in range(20)]
    z = np.zeros((20, q.shape[-1]), dtype=np.float32)
    wide = inside_head(q[:1], z, z, np.zeros((20, 20)), np.full((20, 20), 0.05), many[:1], many, 0, layer=0, head=0,
                       kind="encoder self")
    full = wide.layout.xaxis3.ticktext  # the scores' words, one a column, all written
    assert len(full) == 20 and "" not in full
    for axis in (wide.layout.yaxis2, wide.layout.yaxis5):  # K and V
        assert axis.ticktext == tuple(w if j % 2 == 0 else "" for j, w in enumerate(full))  # 13 * 20 / 140: 2
    assert wide.layout.meta["aeWords"]["yaxis5"] == list(full)  # every word, for the page's text alternative
    # masked keys are drawn, not zero-height: grey, hatched, as tall as the tallest real bar, named in the hover
    for trace, real_heights in ((fig.data[2], np.abs(a["raw"][real])), (fig.data[3], a["weights"][real])):
        heights = np.array(trace.y)
        assert (heights[~real] == real_heights.max()).all() and (heights[~real] > 0).all()
        assert [c == MASKED for c in trace.marker.color] == list(a["masked"])
        assert [s == "/" for s in trace.marker.pattern.shape] == list(a["masked"])
        assert all(("masked out" in h) == m for h, m in zip(trace.hovertext, a["masked"]))


def test_masked_cells_are_grey_and_named_in_every_decoder_self_attention_view():
    w = softmaxed((2, 4, 4, 4))
    toks = ["<s>", "▁Ein", "▁Hund", "▁läuft"]
    mask = np.triu(np.ones((4, 4), bool), 1)  # key after query
    fig = attention_heatmap(w[0], toks, toks, head=1, kind="decoder")
    weights, grey = np.array(fig.data[0].z, float), np.array(fig.data[1].z, float)
    assert np.isnan(weights[mask]).all() and np.allclose(weights[~mask], w[0, 1][~mask])
    assert (grey[mask] == 1).all() and np.isnan(grey[~mask]).all()  # grey exactly where masked
    assert fig.data[1].colorscale[0][1] == MASKED and "masked out" in fig.data[1].hovertemplate
    mv = model_view(w, toks, toks, kind="decoder")
    assert len(mv.data) == 2 * 2 * 4  # each panel: its weights and its grey cells, on the panel's axes
    for weights_trace, grey_trace in zip(mv.data[::2], mv.data[1::2]):
        assert (weights_trace.xaxis, weights_trace.yaxis) == (grey_trace.xaxis, grey_trace.yaxis)
        assert (np.array(grey_trace.z, float)[mask] == 1).all()
    for kind in ("cross", "encoder"):  # nothing is masked within one sentence
        assert len(attention_heatmap(w[0], toks, toks, head=0, kind=kind).data) == 1


def test_logit_lens_matches_the_model(run):
    m, src, out, _, _, cache = run
    layers = torch.stack([cache[f"decoder.layers.{i}.out"][0] for i in range(2)])  # post-LN: already normalised
    logits = layers @ m.embedding.weight.T  # independent: the model's own projection, in torch
    logits[..., [0, 2]] = float("-inf")
    probs = torch.softmax(logits, -1)
    top, p = lens_top(layers, m.embedding.weight.detach(), blocked=(0, 2))
    assert np.array_equal(top, probs.argmax(-1).numpy())
    assert np.allclose(p, probs.max(-1).values.detach().numpy(), atol=1e-6)
    assert np.array_equal(top[-1], cache["logits"][0].argmax(-1).numpy())  # last layer = the real prediction
    toks = ["<s>"] + [piece(t) for t in out]
    fig = logit_lens(layers, m.embedding.weight.detach(), toks, piece, blocked=(0, 2))
    assert list(np.array(fig.data[0].text)[1]) == [readable(piece(int(t))) for t in top[1]]
    # the hover as plotly writes it: %{y} and %{x} become their tick labels ("after layer 1", the token)
    y_labels, x_labels = fig.layout.yaxis.ticktext, fig.layout.xaxis.ticktext
    hover = fig.data[0].hovertemplate.replace("%{y}", y_labels[1]).replace("%{x}", x_labels[2])
    assert hover.count("after layer") == 1 and "after layer 1" in hover and x_labels[2] in hover


def test_bertviz_page_escapes_tokens():
    evil_src = ["▁A", "</script><script>alert(1)</script>", "<img src=x onerror=alert(2)>", "x\u2028y", "</s>"]
    evil_tgt = ["<s>", "▁&lt;", "</script>", "▁x"]
    enc, dec, cross = softmaxed((2, 4, 5, 5)), softmaxed((2, 4, 4, 4)), softmaxed((2, 4, 4, 5))
    for view in ("head", "model"):
        page = bertviz_page(view, enc, dec, cross, evil_src, evil_tgt)
        plain = bertviz_page(view, enc, dec, cross, ["a"] * 5, ["b"] * 4)
        assert page.count("<script") == plain.count("<script")  # only the template's own script tags
        assert page.count("</script") == plain.count("</script")
        assert "<img" not in page and "\u2028" not in page
        assert "cdnjs.cloudflare.com" in page and "could not be loaded" in page  # the offline message is there
        assert "\\u003cimg src=x onerror=alert(2)\\u003e" in page  # the token survives, encoded
    frame = iframe(page)
    assert frame.startswith('<iframe sandbox="allow-scripts"') and "<script" not in frame
    assert safe_json(["</script>&"]) == '["\\u003c/script\\u003e\\u0026"]'


def test_readable_at_forty_tokens():
    toks = [f"▁w{i}" for i in range(40)]
    w = softmaxed((4, 40, 40))
    fig = attention_heatmap(w, toks, toks, head=0, kind="encoder")
    assert fig.layout.height >= 800 and fig.layout.xaxis.tickfont.size == 8
    assert len(fig.layout.xaxis.tickvals) == 40  # every token labelled
    mv = model_view(softmaxed((3, 4, 40, 40)), toks, toks, kind="encoder")
    assert mv.layout.height >= 3 * 250


def test_model_names_imports_nothing_but_the_standard_library():
    tree = ast.parse((VIZ.parent / "model" / "names.py").read_text())
    imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imported |= {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert imported <= {"__future__"}, imported


def test_viz_never_runs_the_model_or_reads_files():
    for path in VIZ.glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [node.module or ""] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
                # model.names is plain strings (no torch): the one place hook names are built
                assert not any((n == "model" or n.startswith("model.")) and n != "model.names" for n in names), (path.name, names)
            if isinstance(node, ast.Call) and isinstance(node.func, (ast.Name, ast.Attribute)):
                fn = node.func.id if isinstance(node.func, ast.Name) else node.func.attr
                assert fn not in ("open", "read_text", "read_bytes", "load", "load_file"), (path.name, fn)


def test_model_view_of_a_long_sentence_keeps_its_labels_apart():
    """At 35+ tokens every label on a small panel overlapped: at most 20 stay, evenly spaced; the hover keeps all."""
    toks = [f"▁w{i}" for i in range(40)]
    fig = model_view(softmaxed((2, 2, 40, 40)), toks, toks, kind="encoder")
    for axis in (fig.layout.xaxis, fig.layout.yaxis):
        shown = [i for i, t in enumerate(axis.ticktext) if t]
        assert len(shown) <= 20 and shown == list(range(0, 40, 2))
    assert all("w39" in str(row) for row in np.array(fig.data[0].customdata)[-1:])  # hover: every token
    assert "some labels left out" in fig.layout.title.text
    short = model_view(softmaxed((2, 2, 5, 5)), toks[:5], toks[:5], kind="encoder")
    assert all(short.layout.xaxis.ticktext)  # a short sentence keeps every label
