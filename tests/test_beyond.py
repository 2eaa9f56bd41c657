"""The Beyond-attention views on content: each figure holds the model's own numbers for the shown request."""

import numpy as np
import pytest

from explorer.api import beyond
from explorer.serving.request import Request, UserError
from model.names import act_name
from model.translator import available, load_pretrained
from viz.attribution import agreement, attribution_figure, spearman
from viz.patching import patching_figure
from viz.whatif import edit_effect

pytestmark = pytest.mark.skipif("en-de" not in available(), reason="needs the shipped en-de checkpoint")
TEXT = "A dog is running in the snow."


@pytest.fixture(scope="module")
def tr():
    return load_pretrained("en-de")


@pytest.fixture(scope="module")
def req():
    return Request.parse(TEXT, "en-de")


def heatmaps(fig):
    return [t for t in fig.data if t.type == "heatmap" and t.coloraxis]


def test_spearman_matches_pearson_of_ranks_and_handles_ties():
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=12), rng.normal(size=12)
    ra, rb = np.argsort(np.argsort(a)), np.argsort(np.argsort(b))  # no ties: ranks by double argsort
    assert spearman(a, b) == pytest.approx(np.corrcoef(ra, rb)[0, 1], abs=1e-12)
    assert spearman(a, a) == pytest.approx(1.0) and spearman(a, -a) == pytest.approx(-1.0)
    assert spearman([1, 1, 2], [1, 2, 3]) == pytest.approx(np.corrcoef([0.5, 0.5, 2], [0, 1, 2])[0, 1])
    assert np.isnan(spearman([1, 1, 1], [1, 2, 3]))


@pytest.mark.parametrize("method", ["rollout", "saliency", "input_x_gradient", "integrated_gradients", "occlusion"])
def test_attribution_view_holds_the_models_attribution_and_the_shown_cross_attention(tr, req, method):
    from explorer.serving.store import analysis

    text, fig = beyond.attribution(req, method, steps=16)
    a = analysis(req)
    r = tr.attribute(TEXT, method, target=a.out_ids[:-1], steps=16)
    src, tgt, att = heatmaps(fig)
    np.testing.assert_allclose(np.array(src.z, dtype=float), r.source, rtol=1e-6, atol=1e-9)
    z_tgt = np.array(tgt.z, dtype=float)
    later = np.triu(np.ones_like(z_tgt, dtype=bool), 1)
    assert np.isnan(z_tgt[later]).all()  # the decoder cannot see later positions: drawn grey, not 0
    np.testing.assert_allclose(z_tgt[~later], r.target[~later], rtol=1e-6, atol=1e-9)
    cross = a.cache[act_name("cross", tr.cfg.n_decoder_layers - 1, "weights")][0].mean(0).numpy()  # (T, S)
    np.testing.assert_allclose(np.array(att.z, dtype=float), cross, rtol=1e-6)
    bars = [t for t in fig.data if t.type == "bar"][0]
    rho = [spearman(np.abs(r.source[t]), cross[t]) for t in range(len(r.out_tokens))]
    np.testing.assert_allclose(np.array(bars.x, dtype=float), np.nan_to_num(rho), atol=1e-12)
    assert f"{np.nanmean(rho):+.2f}" in text and "Spearman" in text
    assert ("should add up to how much its log-probability changes" in text) == (method == "integrated_gradients")
    unmeasured = [t for t in fig.data if t.type == "heatmap" and "not measurable" in (t.hovertemplate or "")]
    if method == "occlusion":  # erasing BOS leaves the first output nothing to read: that cell alone is grey
        z = np.array(unmeasured[0].z, dtype=float)
        assert len(unmeasured) == 1 and z[0, 0] == 1 and np.isnan(np.delete(z.ravel(), 0)).all()
        assert np.isnan(r.target[0, 0]) and fig.layout.coloraxis.colorbar.title.text == "fall (nats)"
    else:
        assert not unmeasured and np.isfinite(r.target).all()
    if method == "integrated_gradients":
        rows = r.source.astype(np.float64).sum(1) + r.target.astype(np.float64).sum(1)
        change = r.scores.astype(np.float64) - r.baseline_scores  # (T_out,)
        gaps = np.abs(rows - change)  # (T_out,) in nats
        assert f"miss by {100 * gaps.sum() / np.abs(change).sum():.2f}% of the total change (16 steps)" in text
        worst = int(np.argmax(gaps))
        assert f": {gaps[worst]:.2f} of {abs(change[worst]):.2f}." in text
        assert ("That is loose" in text) == (gaps.sum() / np.abs(change).sum() > 0.02)


def test_too_few_integration_steps_are_called_loose(req):
    loose, _ = beyond.attribution(req, "integrated_gradients", steps=2)
    tight, _ = beyond.attribution(req, "integrated_gradients", steps=64)
    assert "That is loose: more steps" in loose
    assert "That is loose" not in tight and "miss by" in tight

def test_attribution_with_a_forced_target_and_a_contrast(tr, req):
    text, fig = beyond.attribution(req, "input × gradient", target="Eine Katze rennt im Schnee.", contrast="Hund")
    r = tr.attribute(TEXT, "input_x_gradient", target="Eine Katze rennt im Schnee.", contrast="Hund")
    src = heatmaps(fig)[0]
    np.testing.assert_allclose(np.array(src.z, dtype=float), r.source, rtol=1e-6, atol=1e-9)
    assert [lab.split(" not ")[0] for lab in fig.layout.yaxis.ticktext][:2] == ["Eine", "Katze"]
    assert all(lab.endswith(" not Hund") for lab in fig.layout.yaxis.ticktext)
    assert "why its word and not “Hund”" in text
    _, cache = tr.forced(TEXT, tr.tokenizer.encode("Eine Katze rennt im Schnee."))
    want = cache[act_name("cross", 2, "weights")][0].mean(0).numpy()  # cross-attention of the forced output
    np.testing.assert_allclose(np.array(heatmaps(fig)[2].z, dtype=float), want, rtol=1e-6)


def test_patching_view_holds_the_restored_fractions(tr, req):
    text, fig = beyond.patching(req, "A cat is running in the snow.")
    p = tr.patch(TEXT, "A cat is running in the snow.")
    maps = {t.hovertemplate.split("<br>")[0]: np.array(t.z, dtype=float) for t in fig.data}
    np.testing.assert_allclose(maps["cross-attention"], p.restored(p.heads["cross"]), rtol=1e-6)
    np.testing.assert_allclose(maps["encoder layer outputs"][:, 0], p.restored(p.layers["encoder"]), rtol=1e-6)
    assert maps["encoder layer outputs"][-1, 0] == pytest.approx(1.0, abs=1e-5)  # the whole encoder output: all back
    assert f"{p.clean_logp:.2f}" in text and f"{p.corrupt_logp:.2f}" in text


def test_next_token_view_holds_the_distribution_and_attention(tr, req):
    text, bars, att = beyond.next_token(req, "Eine Katze")
    r = tr.next_token(TEXT, "Eine Katze")
    np.testing.assert_allclose(np.array(bars.data[0].y, dtype=float), r["top_probs"], rtol=1e-6)
    np.testing.assert_allclose(np.array(att.data[0].z, dtype=float), r["cross"].reshape(-1, r["cross"].shape[-1]),
                               rtol=1e-6)
    assert r["continuation"] in text and r["continuation"].startswith("Eine Katze")


def test_edit_view_holds_both_probabilities(tr, req):
    text, bars, _ = beyond.edit_source(req, "dog", "cat")
    r = tr.edit_source(TEXT, 1, "cat")
    np.testing.assert_allclose(np.array(bars.data[0].y, dtype=float), r["p_original"], rtol=1e-6)
    np.testing.assert_allclose(np.array(bars.data[1].y, dtype=float), r["p_edited"], rtol=1e-6)
    assert r["translation"] in text and r["edited_translation"] in text and "Hund" not in r["edited_translation"]
    assert beyond.edit_source(req, "1: ▁dog", "cat")[0] == text  # by number as the choices write it
    masked, *_ = beyond.edit_source(req, 1, "")
    assert "masked" in masked


@pytest.mark.parametrize("call, message", [
    (lambda r: beyond.patching(r, "A big cat is running in the snow."), "as many pieces as the shown one"),
    (lambda r: beyond.patching(r, ""), "corrupted sentence"),
    (lambda r: beyond.edit_source(r, "zebra", "cat"), "not a piece of the shown sentence"),
    (lambda r: beyond.edit_source(r, 99, "cat"), "Source piece"),
    (lambda r: beyond.attribution(r, "magic"), "Attribution method"),
    (lambda r: beyond.attribution(r, "rollout", contrast="Katze"), "contrast"),
    (lambda r: beyond.attribution(r, "saliency", steps=0), "Steps"),
    (lambda r: beyond.attribution(r, "saliency", contrast="x" * 400), "300 characters"),
])
def test_bad_settings_get_a_clear_message(req, call, message):
    with pytest.raises(UserError, match=message):
        call(req)


def test_user_text_is_escaped_in_every_new_figure():
    evil = "<img src=x onerror=alert(1)>"
    fig = patching_figure({"cross": np.zeros((1, 2))}, {"encoder": np.zeros(1)}, evil, 0, (evil, evil))
    assert "<img" not in fig.layout.title.text and "&lt;img" in fig.layout.title.text
    fig = edit_effect(["a", "</s>"], [0.5, 0.5], [0.1, 0.2], evil)
    assert all("<img" not in t.name for t in fig.data)
    fig = attribution_figure(np.ones((2, 2)), np.ones((2, 2)), np.ones((2, 2)) / 2, [evil, "b"], ["<s>", evil],
                             [evil, "</s>"], "saliency", "layer 0", [evil, evil])
    for axis in (fig.layout.xaxis, fig.layout.xaxis2, fig.layout.yaxis):
        assert not any("<img" in str(t) for t in axis.ticktext)
    assert not any("<img" in str(c) for t in fig.data if t.customdata is not None for c in np.ravel(t.customdata))


def test_agreement_is_exactly_one_when_attribution_is_the_attention():
    w = np.random.default_rng(1).dirichlet(np.ones(6), size=4)  # (4, 6) rows of attention
    np.testing.assert_allclose(agreement(w, w), 1.0)
    np.testing.assert_allclose(agreement(-w, w), 1.0)  # attention says how much, not which way: sizes are compared


def test_the_suggested_corruption_lines_up_and_patching_says_when_nothing_differs(tr, req):
    hint = beyond.suggested_corruption(TEXT, "en-de")
    assert hint == "A cat is running in the snow."
    assert len(tr.tokenizer.encode(hint)) == len(tr.tokenizer.encode(TEXT))
    with pytest.raises(UserError, match="Try: “A cat is running in the snow.”"):
        beyond.patching(req, "A big cat is running in the snow.")
    text, fig = beyond.patching(req, TEXT)  # the same sentence: nothing to restore
    assert "nothing to restore" in text and fig is None


def test_a_forced_translation_longer_than_decoding_allows_is_refused(req):
    with pytest.raises(UserError, match="at most"):
        beyond.attribution(req, "saliency", target="Hund " * 60)
