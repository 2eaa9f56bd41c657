"""Attribution (model/attribution.py, Translator.attribute): every method checked against a computation made here,
independently of the code under test (autograd by hand, the model run by hand, rollout re-derived from the
captured attention weights)."""

import importlib.util
import math
from functools import cache
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from conftest import random_ids, tiny_model
from model import attribution as attr
from model.hooks import run_with_cache, run_with_hooks
from model.names import act_name
from model.translator import available, load_pretrained

needs_en_de = pytest.mark.skipif("en-de" not in available(), reason="en-de not shipped")

# ordinary caption-like sentences (Multi30k style), of different lengths
CAPTIONS = [
    "A man in a blue shirt is standing on a ladder.",
    "Two children play with a red ball in the park.",
    "A woman sings on stage while a band plays.",
]
DOG = "A dog runs in the park."


# -- helpers: everything below is computed without model/attribution.py ------------------------------------

def _logp_from_logits(model, logits: torch.Tensor) -> torch.Tensor:
    """log_softmax with pad and BOS excluded (set to -inf), out of place so autograd can go through it."""
    blocked = torch.tensor([model.cfg.pad_id, model.cfg.bos_id])
    return F.log_softmax(logits.index_fill(-1, blocked, float("-inf")), dim=-1)


def _manual_logp(model, src: torch.Tensor, tgt: torch.Tensor, e_src: torch.Tensor, e_tgt: torch.Tensor) -> torch.Tensor:
    """The model run by hand from given (scaled) token embeddings, as Transformer.encode/decode/_embed do
    (dropout is off in eval): -> log p (B, T, V)."""
    src_mask = model.src_mask(src)
    memory = model.encoder(model.positional(e_src), src_mask)
    h = model.decoder(model.positional(e_tgt), memory, model.tgt_mask(tgt), src_mask)
    return _logp_from_logits(model, model.project(h))


def _embed(model, ids: torch.Tensor) -> torch.Tensor:
    return model.embedding(ids) * math.sqrt(model.cfg.d_model)


def _manual_grads(model, src_ids, tgt_ids, score_ids, alpha: float = 1.0):
    """d log p(score_ids[t]) / d (source embeddings, target embeddings) at alpha * e, one autograd.grad per t.
    -> (T, S, D), (T, T, D), f (T,)."""
    src, tgt = torch.tensor([src_ids]), torch.tensor([tgt_ids])
    with torch.enable_grad():
        e_src = (alpha * _embed(model, src).detach()).requires_grad_()
        e_tgt = (alpha * _embed(model, tgt).detach()).requires_grad_()
        logp = _manual_logp(model, src, tgt, e_src, e_tgt)[0]  # (T, V)
        gs, gt, f = [], [], []
        for t, y in enumerate(score_ids):
            a, b = torch.autograd.grad(logp[t, y], (e_src, e_tgt), retain_graph=True)
            gs.append(a[0])
            gt.append(b[0])
            f.append(logp[t, y].detach())
    return torch.stack(gs), torch.stack(gt), torch.stack(f)


def _ids(tr, text, target=None):
    src_ids, out = tr._target_ids(text, target)
    return src_ids, [tr.cfg.bos_id] + out, out + [tr.cfg.eos_id]


def _zero_embedding_logp(model, src_ids, tgt_ids, score_ids) -> np.ndarray:
    """log p(score_ids[t]) with every source and target token embedding replaced by zeros (IG's baseline)."""
    zeros = lambda x, name: torch.zeros_like(x)  # noqa: E731
    with torch.no_grad():
        logits = run_with_hooks(model, torch.tensor([src_ids]), torch.tensor([tgt_ids]),
                                {"src_embed": zeros, "tgt_embed": zeros})
    logp = _logp_from_logits(model, logits)[0]
    return logp[torch.arange(len(score_ids)), torch.tensor(score_ids)].numpy()


def _plain_logp(model, src_ids, tgt_ids, score_ids) -> np.ndarray:
    with torch.no_grad():
        logp = _logp_from_logits(model, model(torch.tensor([src_ids]), torch.tensor([tgt_ids])))[0]
    return logp[torch.arange(len(score_ids)), torch.tensor(score_ids)].numpy()


def _uniform_nodes(f_grid, grid, steps):
    """Fixed midpoint nodes that do not depend on f (replaces adaptive_nodes where f must not matter)."""
    edges = torch.linspace(0, 1, steps + 1)
    return (edges[1:] + edges[:-1]) / 2, edges.diff()


@cache
def _ig64(text: str):
    return load_pretrained("en-de").attribute(text, "integrated_gradients", steps=64)


# -- integrated gradients -----------------------------------------------------------------------------------

@needs_en_de
@pytest.mark.parametrize("text", CAPTIONS)
def test_integrated_gradients_completeness_within_one_percent_at_64_steps(text):
    """Completeness at 64 steps, recomputed here from the arrays: every row's gap |row sum - (f_t(x) - f_t(e'))|,
    summed, against the summed |f_t(x) - f_t(e')| (rows cannot cancel), within 1%; the mean row too. The worst
    single row can exceed 1% at 64 steps (the integrand jumps wherever a ReLU switches along the path, and a row
    whose log-probability barely moves makes any gap large in relative terms), so its convergence is checked at
    256 steps below."""
    a = _ig64(text)
    assert a.method == "integrated_gradients" and a.steps == 64
    assert a.source.shape == (len(a.out_tokens), len(a.src_tokens))
    assert a.target.shape == (len(a.out_tokens), len(a.tgt_tokens))
    rows = a.source.astype(np.float64).sum(1) + a.target.astype(np.float64).sum(1)  # (T_out,)
    change = a.scores.astype(np.float64) - a.baseline_scores  # (T_out,)
    error = np.abs(rows - change).sum() / np.abs(change).sum()
    assert error <= 0.01, (text, error)
    assert a.completeness_error == pytest.approx(error, rel=1e-6)
    assert float(np.mean(a.completeness)) <= 0.01, (text, a.completeness)


@needs_en_de
def test_integrated_gradients_converge_as_the_steps_grow():
    text = CAPTIONS[0]
    tr = load_pretrained("en-de")
    errors = [tr.attribute(text, "integrated_gradients", steps=k).completeness_error for k in (4, 16, 64)]
    assert errors[0] > errors[1] > errors[2], errors


@needs_en_de
def test_integrated_gradients_every_row_converges_with_more_steps():
    text = CAPTIONS[1]  # its worst row is 2.1% off at 64 steps, 1.4% at 256 and 0.13% at 512
    at64, at512 = _ig64(text), load_pretrained("en-de").attribute(text, "integrated_gradients", steps=512)
    assert at512.worst_row_completeness_error <= 0.01, at512.completeness
    assert at512.worst_row_completeness_error < at64.worst_row_completeness_error
    assert at512.row_gaps.max() < at64.row_gaps.max()


@needs_en_de
@pytest.mark.parametrize("text", CAPTIONS)
def test_integrated_gradients_rows_sum_to_the_score_gap_against_zero_embeddings(text):
    """The reported numbers are what they claim: scores = log p at the input, baseline_scores = log p with all
    token embeddings zero (run here with run_with_hooks), and each row of [source | target] sums to their
    difference within the reported completeness error."""
    tr = load_pretrained("en-de")
    a = _ig64(text)
    src_ids, tgt_ids, score_ids = _ids(tr, text)
    assert a.out_tokens == tr.tokenizer.pieces(score_ids) and a.tgt_tokens == tr.tokenizer.pieces(tgt_ids)
    fx = _plain_logp(tr.model, src_ids, tgt_ids, score_ids)
    fb = _zero_embedding_logp(tr.model, src_ids, tgt_ids, score_ids)
    np.testing.assert_allclose(a.scores, fx, rtol=0, atol=1e-4)
    np.testing.assert_allclose(a.baseline_scores, fb, rtol=0, atol=1e-4)
    total = a.source.astype(np.float64).sum(1) + a.target.astype(np.float64).sum(1)
    gap = np.abs(total - (fx - fb)) / np.abs(fx - fb)
    assert np.all(gap <= a.worst_row_completeness_error + 1e-4), (gap, a.completeness)
    np.testing.assert_allclose(gap, a.completeness, rtol=0, atol=1e-4)
    np.testing.assert_allclose(np.abs(total - (fx - fb)), a.row_gaps, rtol=0, atol=1e-4)
    assert np.all(np.triu(a.target, 1) == 0)  # the decoder cannot see later positions


def test_integrated_gradients_equals_a_hand_made_riemann_sum():
    """With the nodes fixed (uniform midpoints), IG = e . sum_k w_k grad f(alpha_k e), grad by plain autograd."""
    model = tiny_model()
    src_ids, tgt_ids = random_ids(1, 6, 1)[0].tolist() + [3], [2] + random_ids(1, 4, 2)[0].tolist()
    score_ids = tgt_ids[1:] + [3]
    steps = 6
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(attr, "adaptive_nodes", _uniform_nodes)
        r = attr.gradient_attribution(model, src_ids, tgt_ids, score_ids, method="integrated_gradients", steps=steps)
    alphas, widths = _uniform_nodes(None, None, steps)
    gs = gt = 0
    for a_k, w_k in zip(alphas.tolist(), widths.tolist()):
        s, t, _ = _manual_grads(model, src_ids, tgt_ids, score_ids, a_k)
        gs, gt = gs + w_k * s, gt + w_k * t
    e_src = _embed(model, torch.tensor(src_ids)).detach()
    e_tgt = _embed(model, torch.tensor(tgt_ids)).detach()
    torch.testing.assert_close(torch.from_numpy(r["source"]), (gs * e_src).sum(-1), rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(torch.from_numpy(r["target"]), (gt * e_tgt).sum(-1), rtol=1e-4, atol=1e-5)


# -- saliency and input x gradient --------------------------------------------------------------------------

@needs_en_de
def test_saliency_is_the_norm_of_autograd_of_the_chosen_log_probability():
    tr = load_pretrained("en-de")
    target = "Eine Katze läuft im Park."  # forced, not the greedy translation ("Ein Hund rennt im Park.")
    a = tr.attribute(DOG, "saliency", target=target)
    src_ids, tgt_ids, score_ids = _ids(tr, DOG, target)
    assert a.tgt_tokens == ["<s>"] + tr.tokenizer.pieces(tr.tokenizer.encode(target))
    gs, gt, f = _manual_grads(tr.model, src_ids, tgt_ids, score_ids)
    exp_src, exp_tgt = gs.norm(dim=-1), gt.norm(dim=-1)  # (T, S), (T, T)
    torch.testing.assert_close(torch.from_numpy(a.source), exp_src, rtol=1e-4, atol=1e-4 * float(exp_src.max()))
    torch.testing.assert_close(torch.from_numpy(a.target), exp_tgt, rtol=1e-4, atol=1e-4 * float(exp_tgt.max()))
    np.testing.assert_allclose(a.scores, f.numpy(), rtol=0, atol=1e-5)
    assert np.all(np.triu(a.target, 1) == 0)  # causal: exactly zero after position t
    assert np.all(a.target[np.tril_indices(len(a.target))] > 0)  # ... and something at and before it
    assert np.all(a.source > 0)
    by_ids = tr.attribute(DOG, "saliency", target=score_ids[:-1])  # the target as ids (an analysis' output)
    np.testing.assert_array_equal(by_ids.source, a.source)
    np.testing.assert_array_equal(by_ids.target, a.target)


@needs_en_de
def test_input_x_gradient_is_embedding_dot_autograd():
    tr = load_pretrained("en-de")
    a = tr.attribute(DOG, "input_x_gradient")
    src_ids, tgt_ids, score_ids = _ids(tr, DOG)
    gs, gt, f = _manual_grads(tr.model, src_ids, tgt_ids, score_ids)
    e_src = _embed(tr.model, torch.tensor(src_ids)).detach()
    e_tgt = _embed(tr.model, torch.tensor(tgt_ids)).detach()
    exp_src, exp_tgt = (gs * e_src).sum(-1), (gt * e_tgt).sum(-1)
    torch.testing.assert_close(torch.from_numpy(a.source), exp_src, rtol=1e-4, atol=1e-4 * float(exp_src.abs().max()))
    torch.testing.assert_close(torch.from_numpy(a.target), exp_tgt, rtol=1e-4, atol=1e-4 * float(exp_tgt.abs().max()))
    assert np.all(np.triu(a.target, 1) == 0)
    assert a.baseline_scores is None and a.completeness_error is None and a.steps == 0
    assert a.row_gaps is None and a.worst_row_completeness_error is None


# -- contrast ----------------------------------------------------------------------------------------------

@needs_en_de
def test_contrastive_input_x_gradient_is_the_difference_of_two_attributions():
    tr = load_pretrained("en-de")
    m = tr.model
    src_ids, tgt_ids, score_ids = _ids(tr, DOG)
    katze = tr.tokenizer.encode("Katze")[0]
    contrast_ids = [katze] * len(score_ids)
    both = attr.gradient_attribution(m, src_ids, tgt_ids, score_ids, contrast_ids, "input_x_gradient")
    y = attr.gradient_attribution(m, src_ids, tgt_ids, score_ids, None, "input_x_gradient")
    c = attr.gradient_attribution(m, src_ids, tgt_ids, contrast_ids, None, "input_x_gradient")
    for part in ("source", "target", "scores"):  # float32 rounding: ~2e-6 (source), ~1.6e-5 (target) of the largest
        np.testing.assert_allclose(both[part], y[part] - c[part], rtol=1e-5, atol=2e-5 * np.abs(y[part]).max())
    # the contrast changes something
    assert np.abs(both["source"] - y["source"]).max() > 1e-3


@needs_en_de
def test_contrastive_integrated_gradients_is_the_difference_with_the_same_nodes():
    """IG's adaptive nodes depend on f, so f, g and f - g would get different nodes. Two ways to make them equal:
    model.attribution.gradients with fixed alphas and weights, and gradient_attribution with adaptive_nodes
    replaced by fixed uniform midpoints (then only the integrand differs between the three runs)."""
    tr = load_pretrained("en-de")
    m = tr.model
    src_ids, tgt_ids, score_ids = _ids(tr, DOG)
    contrast_ids = [tr.tokenizer.encode("Katze")[0]] * len(score_ids)
    src, tgt = torch.tensor([src_ids]), torch.tensor([tgt_ids])
    y_t, c_t = torch.tensor(score_ids), torch.tensor(contrast_ids)
    alphas, weights = _uniform_nodes(None, None, 8)
    both = attr.gradients(m, src, tgt, y_t, c_t, alphas, weights)
    y = attr.gradients(m, src, tgt, y_t, None, alphas, weights)
    c = attr.gradients(m, src, tgt, c_t, None, alphas, weights)
    for i in range(3):  # grad_src, grad_tgt, f
        scale = float(y[i].abs().max())
        torch.testing.assert_close(both[i], y[i] - c[i], rtol=1e-4, atol=1e-5 * scale)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(attr, "adaptive_nodes", _uniform_nodes)
        run = lambda s, cids: attr.gradient_attribution(m, src_ids, tgt_ids, s, cids, "integrated_gradients", 8)  # noqa: E731
        both, y, c = run(score_ids, contrast_ids), run(score_ids, None), run(contrast_ids, None)
    for part in ("source", "target", "scores", "baseline_scores"):
        np.testing.assert_allclose(both[part], y[part] - c[part], rtol=1e-4, atol=1e-5 * np.abs(y[part]).max())


@needs_en_de
@pytest.mark.parametrize("method", ["saliency", "input_x_gradient", "integrated_gradients"])
def test_translator_contrast_uses_the_first_piece_at_every_position(method):
    tr = load_pretrained("en-de")
    tok = tr.tokenizer
    for contrast in ("Katze", "eine kleine Katze"):
        pieces = tok.encode(contrast)
        a = tr.attribute(DOG, method, contrast=contrast, steps=8)
        assert len(pieces) != len(a.out_tokens) - 1
        assert a.contrast_tokens == [tok.pieces(pieces)[0]] * len(a.out_tokens)
    a = tr.attribute(DOG, method, contrast="Katze", steps=8)
    src_ids, tgt_ids, score_ids = _ids(tr, DOG)
    contrast_ids = [tok.encode("Katze")[0]] * len(score_ids)
    f = _plain_logp(tr.model, src_ids, tgt_ids, score_ids) - _plain_logp(tr.model, src_ids, tgt_ids, contrast_ids)
    np.testing.assert_allclose(a.scores, f, rtol=0, atol=1e-4)  # "why Hund, not Katze" at every position
    if method == "input_x_gradient":
        ref = attr.gradient_attribution(tr.model, src_ids, tgt_ids, score_ids, contrast_ids, method)
        np.testing.assert_array_equal(a.source, ref["source"])
        np.testing.assert_array_equal(a.target, ref["target"])


@needs_en_de
def test_translator_contrast_with_as_many_pieces_as_the_output_is_used_piece_by_piece():
    tr = load_pretrained("en-de")
    tok = tr.tokenizer
    src_ids, tgt_ids, score_ids = _ids(tr, DOG)
    out = score_ids[:-1]
    katze = tok.encode("Katze")[0]
    i = next(k for k, p in enumerate(tok.pieces(out)) if p == "▁Hund")
    contrast = tok.decode(out[:i] + [katze] + out[i + 1:])  # the translation with Hund -> Katze
    pieces = tok.encode(contrast)
    assert len(pieces) == len(out)  # precondition of the check (the re-encoding keeps the piece count)
    a = tr.attribute(DOG, "input_x_gradient", contrast=contrast)
    assert a.contrast_tokens == tok.pieces(pieces) + ["</s>"]
    same = np.array([c == y for c, y in zip(pieces + [tr.cfg.eos_id], score_ids)])
    assert same.sum() == len(score_ids) - 1
    # where the contrast is the token itself, f = 0 and so is its gradient; only the Hund/Katze row is left
    assert np.all(a.scores[same] == 0)
    assert np.all(a.source[same] == 0) and np.all(a.target[same] == 0)
    assert np.abs(a.source[i]).max() > 0
    f = _plain_logp(tr.model, src_ids, tgt_ids, score_ids) - _plain_logp(tr.model, src_ids, tgt_ids, pieces + [tr.cfg.eos_id])
    np.testing.assert_allclose(a.scores, f, rtol=0, atol=1e-4)


# -- occlusion ---------------------------------------------------------------------------------------------

def _erased_logp(model, src_ids, tgt_ids, score_ids, side: str, j: int) -> np.ndarray:
    """log p(score_ids[t]) with input j of ``side`` ("source" or "target") replaced by the pad id, one plain
    forward pass (the model's masks make every attention ignore it)."""
    src, tgt = list(src_ids), list(tgt_ids)
    (src if side == "source" else tgt)[j] = model.cfg.pad_id
    return _plain_logp(model, src, tgt, score_ids)


@pytest.mark.parametrize("checkpoint, text", [("toy-reverse", "a b c d e"), ("en-de", DOG)])
def test_occlusion_is_the_fall_of_each_log_probability_when_one_input_is_erased(checkpoint, text):
    if checkpoint not in available():
        pytest.skip(f"{checkpoint} not shipped")
    tr = load_pretrained(checkpoint)
    a = tr.attribute(text, "occlusion")
    src_ids, tgt_ids, score_ids = _ids(tr, text)
    f = _plain_logp(tr.model, src_ids, tgt_ids, score_ids)
    np.testing.assert_allclose(a.scores, f, rtol=0, atol=1e-5)
    exp_src = np.stack([f - _erased_logp(tr.model, src_ids, tgt_ids, score_ids, "source", j)
                        for j in range(len(src_ids))], 1)  # (T, S), EOS included
    np.testing.assert_allclose(a.source, exp_src, rtol=1e-4, atol=1e-4)
    for j in range(1, len(tgt_ids)):  # erasing decoder input j: rows t >= j move, earlier rows cannot see it
        exp = f - _erased_logp(tr.model, src_ids, tgt_ids, score_ids, "target", j)
        np.testing.assert_allclose(a.target[j:, j], exp[j:], rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(exp[:j], 0.0, atol=1e-5)  # the causal mask, checked on the model itself
    assert np.all(np.triu(a.target, 1) == 0)
    # with BOS erased the first output has no key at all, and its attention spreads over every key, later ones
    # too (so a later decoder input would move it): not measurable, NaN; every other cell is a number
    assert np.isnan(a.target[0, 0]) and np.isfinite(np.delete(a.target.ravel(), 0)).all()
    later = list(tgt_ids)
    later[-1] = tr.tokenizer.encode("x")[0] if later[-1] != tr.tokenizer.encode("x")[0] else later[-1] + 1
    bos_gone = lambda tgt: _erased_logp(tr.model, src_ids, tgt, score_ids, "target", 0)[0]  # noqa: E731
    if len(tgt_ids) > 1:
        assert abs(bos_gone(later) - bos_gone(tgt_ids)) > 1e-4  # a later input leaks in: the cell is unmeasurable
    exp_bos = f[1:] - _erased_logp(tr.model, src_ids, tgt_ids, score_ids, "target", 0)[1:]
    np.testing.assert_allclose(a.target[1:, 0], exp_bos, rtol=1e-4, atol=1e-4)
    # the What-if panel erases a word by another road (Translator.edit_source): the same numbers, piece by piece
    for j in range(len(src_ids) - 1):
        r = tr.edit_source(text, j)
        np.testing.assert_allclose(a.source[:, j], np.log(r["p_original"]) - np.log(r["p_edited"]), atol=2e-4)
    assert a.completeness_error is None and a.steps == 0


def test_toy_reverse_occlusion_argmax_is_mostly_the_mirror_letter_and_else_eos():
    """Erasing the mirror letter removes what the output copies; erasing EOS removes the sentence's end, which
    reversing needs too: the largest fall is on one of the two in every row (or on the same letter elsewhere: the
    'l' of "h e l l o" can be read from either 'l'), and on the mirror in most."""
    tr = load_pretrained("toy-reverse")
    mirror = rows = 0
    for example in _toy_examples():
        letters = example.split()
        n = len(letters)
        a = tr.attribute(example, "occlusion")
        for t in range(n):
            top = int(a.source[t].argmax())
            assert top == n or letters[top] == letters[n - 1 - t], (example, t, np.round(a.source[t], 2))
            mirror += top == n - 1 - t
            rows += 1
    assert mirror >= 0.75 * rows, (mirror, rows)


@needs_en_de
def test_contrastive_occlusion_is_the_difference_of_two_occlusions():
    tr = load_pretrained("en-de")
    src_ids, tgt_ids, score_ids = _ids(tr, DOG)
    contrast_ids = [tr.tokenizer.encode("Katze")[0]] * len(score_ids)
    with torch.no_grad():
        both = attr.occlusion(tr.model, src_ids, tgt_ids, score_ids, contrast_ids)
        y = attr.occlusion(tr.model, src_ids, tgt_ids, score_ids)
        c = attr.occlusion(tr.model, src_ids, tgt_ids, contrast_ids)
    for part in ("source", "target", "scores"):
        np.testing.assert_allclose(both[part], y[part] - c[part], rtol=1e-5, atol=2e-5 * np.nanmax(np.abs(y[part])))
    assert np.abs(both["source"] - y["source"]).max() > 1e-3
    assert "occlusion" in attr.LINEAR


def test_occlusion_batches_give_the_same_rows():
    model = tiny_model()
    src, tgt = random_ids(1, 7, 3)[0].tolist(), random_ids(1, 5, 4)[0].tolist()
    score = random_ids(1, 5, 4)[0].tolist()
    with torch.no_grad():
        one = attr.occlusion(model, src, [model.cfg.bos_id] + tgt[1:], score, batch=1)
        many = attr.occlusion(model, src, [model.cfg.bos_id] + tgt[1:], score, batch=64)
    for part in ("source", "target", "scores"):
        np.testing.assert_allclose(one[part], many[part], rtol=1e-5, atol=1e-6)
    assert np.abs(many["source"]).max() > 0


@cache
def _comparison_script():
    """scripts/attribution_vs_occlusion.py as a module (scripts/ is not a package)."""
    path = Path(__file__).resolve().parent.parent / "scripts" / "attribution_vs_occlusion.py"
    spec = importlib.util.spec_from_file_location("attribution_vs_occlusion", path)
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    return script


def test_the_occlusion_comparison_script_counts_rows_as_the_methods_give_them():
    """scripts/attribution_vs_occlusion.py on toy-reverse: its counts for cross-attention, rollout and integrated
    gradients match counts made here from Translator.attribute and the analysis."""
    script = _comparison_script()
    tr = load_pretrained("toy-reverse")
    examples = list(_toy_examples())
    assert tuple(examples) == script.EXAMPLES  # what the script falls back on for a toy shipped without examples
    got = script.compare(tr, examples, steps=8, toy="reverse")
    rows = sum(len(e.split()) for e in examples)
    assert {m: d["rows"] for m, d in got.items()} == {m: rows for m in got}
    kinds = ("cross_attention", "rollout", "integrated_gradients")
    count = {m: {"top1": 0, "signed": 0, "eos": 0, "aligned": 0, "letters": 0} for m in kinds}
    for e in examples:
        n = len(e.split())
        occ = tr.attribute(e, "occlusion").source
        w = tr.analyze(e).cache[act_name("cross", tr.cfg.n_decoder_layers - 1, "weights")][0].mean(0).numpy()
        by = {"cross_attention": w, "rollout": tr.attribute(e, "rollout").source,
              "integrated_gradients": tr.attribute(e, "integrated_gradients", steps=8).source}
        for m, a in by.items():
            for t in range(n):
                top = int(np.abs(a[t]).argmax())
                count[m]["top1"] += top == int(np.abs(occ[t]).argmax())
                count[m]["signed"] += int(a[t].argmax()) == int(occ[t].argmax())
                count[m]["eos"] += top == n
                count[m]["aligned"] += top == n - 1 - t
                count[m]["letters"] += int(np.abs(a[t, :n]).argmax()) == n - 1 - t
    for m in kinds:
        for k in ("top1", "eos", "aligned", "letters") + (("signed",) if m == "integrated_gradients" else ()):
            assert got[m][k] == pytest.approx(count[m][k] / rows), (m, k)
    assert np.isnan(got["rollout"]["signed"])  # rollout has no sign
    assert got["occlusion"]["top1"] == 1.0 and got["occlusion"]["rho"] == pytest.approx(1.0)
    assert got["rollout"]["top1"] < got["cross_attention"]["top1"]  # the EOS sink, as the README table says
    assert "occlusion" in script.table(got) and "letters only" in script.table(got)
    # the copy alignment, counted on the same rows: the aligned letter is the one at the output's own position
    copy = script.compare(tr, examples[:2], steps=2, toy="copy")
    hand = [int(np.abs(tr.attribute(e, "rollout").source[t]).argmax()) == t
            for e in examples[:2] for t in range(len(e.split()))]
    assert copy["rollout"]["aligned"] == pytest.approx(np.mean(hand))
    with pytest.raises(ValueError, match="toy must be"):
        script.compare(tr, examples[:1], steps=2, toy="rev")


# -- rollout -----------------------------------------------------------------------------------------------

def _rollout_by_hand(cache, n_enc, n_dec):
    """Rollout re-derived from the docstring, with numpy and explicit row/column loops where it matters."""
    def head_mean(name):
        return cache[name][0].double().mean(0).numpy()

    s = cache[act_name("encoder", 0, "weights")].size(-1)
    r_ss = np.eye(s)
    for i in range(n_enc):
        a = head_mean(act_name("encoder", i, "weights"))
        r_ss = (0.5 * a + 0.5 * np.eye(s)) @ r_ss
    t = cache[act_name("decoder", 0, "weights")].size(-1)
    r_tt, r_ts = np.eye(t), np.zeros((t, s))
    for i in range(n_dec):
        a = 0.5 * head_mean(act_name("decoder", i, "weights")) + 0.5 * np.eye(t)
        r_tt, r_ts = a @ r_tt, a @ r_ts
        x = head_mean(act_name("cross", i, "weights"))  # (T, S)
        from_src = np.array([[sum(x[q, j] * r_ss[j, k] for j in range(s)) for k in range(s)] for q in range(t)])
        r_tt, r_ts = 0.5 * r_tt, 0.5 * r_ts + 0.5 * from_src
    return r_ts, r_tt


def test_rollout_matches_a_hand_derivation():
    model = tiny_model()
    src, tgt = random_ids(1, 7, 3), random_ids(1, 5, 4)
    with torch.no_grad():
        _, cache = run_with_cache(model, src, tgt)
    got = attr.rollout(cache, 2, 2)
    exp = _rollout_by_hand(cache, 2, 2)
    np.testing.assert_allclose(got[0], exp[0], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got[1], exp[1], rtol=1e-10, atol=1e-12)
    src_r, tgt_r = attr.rollout_ids(model, src[0].tolist(), tgt[0].tolist())
    np.testing.assert_allclose(src_r, exp[0], rtol=1e-10, atol=1e-12)


@needs_en_de
@pytest.mark.parametrize("text", CAPTIONS[:2])
def test_rollout_rows_sum_to_one(text):
    tr = load_pretrained("en-de")
    a = tr.attribute(text, "rollout")
    assert a.source.shape == (len(a.out_tokens), len(a.src_tokens))
    assert a.target.shape == (len(a.out_tokens), len(a.tgt_tokens))
    np.testing.assert_allclose(a.source.sum(1) + a.target.sum(1), 1.0, rtol=0, atol=1e-6)
    assert np.all(a.source >= 0) and np.all(a.target >= 0)
    assert np.all(np.triu(a.target, 1) == 0)
    with pytest.raises(ValueError, match="contrast"):
        tr.attribute(text, "rollout", contrast="Katze")


def _toy_examples():
    return load_pretrained("toy-reverse").task.examples


def test_toy_reverse_last_cross_attention_argmax_is_the_mirror_position():
    """Every output letter's cross-attention (last layer, heads averaged) peaks at its mirror position in the source,
    but one: in "a t t e n t i o n" the 'e' looks at the 'n' beside it (0.370 vs 0.352), as the shipped-checkpoint
    test allows."""
    tr = load_pretrained("toy-reverse")
    misses = []
    for example in _toy_examples():
        n = len(example.split())
        a = tr.analyze(example)
        assert a.translation == " ".join(reversed(example.split()))
        last = tr.cfg.n_decoder_layers - 1
        w = a.cache[act_name("cross", last, "weights")][0].mean(0)  # (T, S) heads averaged
        got = [int(w[i].argmax()) for i in range(n)]  # over the whole source row, for every output letter (not EOS)
        misses += [(example, i) for i in range(n) if got[i] != n - 1 - i]
    assert len(misses) <= 1, misses


def test_toy_reverse_needs_eos_to_reverse():
    """Rollout credits EOS in almost every toy row (the xfail below), and EOS is an input the toy does need. Erase
    it (it becomes padding, which every attention ignores) and the first output letter, the last source letter,
    stays right, but exact reversal collapses (plausibly the toy reads where the sentence ends from EOS; an input it
    never saw in training may also throw it off). The letters are drawn with seed 99 (the toy was trained on seed
    1234 and validated on 1235; a few short strings recur). The counts are the ones the README cites, made by
    scripts/attribution_vs_occlusion.py."""
    e = _comparison_script().erase_eos(load_pretrained("toy-reverse"), "reverse", n=200, seed=99)
    assert e["intact exact"] >= 195 and e["intact first"] >= 195, e
    assert e["erased exact"] <= 40, e
    assert e["erased letters"] <= e["erased first"]  # every letter right implies the first one right
    assert e["erased first"] >= 190, e  # the last letter is still found: what breaks is where the others lie


@pytest.mark.xfail(strict=True, reason="rollout follows the toy encoder's attention to EOS, an input the toy needs "
                   "(test_toy_reverse_needs_eos_to_reverse): every letter sends "
                   "23-66% of its attention to EOS in encoder layer 0 and 10-40% in layer 1, and rollout "
                   "multiplies that through, so EOS wins 32 of 34 rows, where occlusion puts the mirror letter "
                   "first in most (scripts/attribution_vs_occlusion.py) "
                   "(a known weakness of rollout, docs/api.md: 'Known limit of rollout'; weighting attention by the norms of "
                   "the value vectors (Kobayashi et al., 2020) does not change it)")
@pytest.mark.parametrize("example", _toy_examples())
def test_toy_reverse_rollout_argmax_is_the_mirror_position(example):
    tr = load_pretrained("toy-reverse")
    n = len(example.split())
    a = tr.attribute(example, "rollout")
    assert a.src_tokens[:n] == ["▁" + c for c in example.split()] and len(a.src_tokens) == n + 1
    assert a.out_tokens == ["▁" + c for c in reversed(example.split())] + ["</s>"]
    np.testing.assert_allclose(a.source.sum(1) + a.target.sum(1), 1.0, rtol=0, atol=1e-6)
    got = [int(a.source[i].argmax()) for i in range(n)]  # over the source (letters + EOS), every output letter
    assert got == [n - 1 - i for i in range(n)], (example, got, np.round(a.source[:n], 3))


# -- argument checks ---------------------------------------------------------------------------------------

def test_bad_arguments_raise():
    model = tiny_model()
    with pytest.raises(ValueError, match="gradient method"):
        attr.gradient_attribution(model, [5, 6, 3], [2, 7], [7, 3], method="rollout")
    with pytest.raises(ValueError, match="scored tokens"):
        attr.gradient_attribution(model, [5, 6, 3], [2, 7], [7], method="saliency")
    with pytest.raises(ValueError, match="steps"):
        attr.gradient_attribution(model, [5, 6, 3], [2, 7], [7, 3], method="integrated_gradients", steps=0)
    tr = load_pretrained("toy-reverse")
    with pytest.raises(ValueError, match="method"):
        tr.attribute("a b c", "gradcam")
    with pytest.raises(ValueError, match="empty"):
        tr.attribute("   ", "saliency")
    with pytest.raises(ValueError, match="contrast is empty"):
        tr.attribute("a b c", "saliency", contrast="  ")
