"""The defaults show something on the default sentence (the shipped model's first example), as a student opening the
Experiments and Beyond attention tabs meets them: the ticked heads change what the model says, and the suggested
corrupted sentence differs in one word and gives patching something to restore."""

import numpy as np
import pytest
from app_server import MODEL

from explorer.api import beyond
from explorer.api import handlers as h
from explorer.serving.request import Request

pytestmark = pytest.mark.skipif(MODEL != "en-de", reason="the shipped en-de model's defaults")


@pytest.fixture(scope="module")
def default():
    return Request.parse(h.examples_for("en-de")[0], "en-de")


def test_the_default_ablation_changes_a_token_by_more_than_005_and_the_translation_or_the_difference(default):
    tr = h.model_for("en-de")
    heads = h.default_ablation(tr)
    off = list(h.parse_heads(tr, heads))
    base = h.analysis(default)
    out = base.out_ids[:-1]
    p_intact, _ = tr.forced(default.text, out)  # an independent pass: the model itself, heads on and off
    p_off, _ = tr.forced(default.text, out, off)
    assert max(abs(a - b) for a, b in zip(p_intact, p_off)) > 0.05
    changed = h.analysis(default.replace(ablated=tuple(sorted(off))))
    summary, *figures = h.ablation(default, heads)
    difference = np.array(figures[-1].data[0].z, dtype=float)
    assert changed.translation != base.translation or np.nanmax(np.abs(difference)) > 0
    assert ("(changed)" in summary) == (changed.translation != base.translation)


@pytest.mark.parametrize("index", range(6))
def test_the_suggested_corruption_differs_in_one_word_and_patching_restores_something(index):
    examples = h.examples_for("en-de")
    if index >= len(examples):
        pytest.skip("fewer examples")
    req = Request.parse(examples[index], "en-de")
    corrupt = beyond.suggested_corruption(req.text, "en-de")
    a, b = req.text.split(), corrupt.split()
    assert len(a) == len(b) and sum(x != y for x, y in zip(a, b)) == 1, corrupt
    tok = h.model_for("en-de").tokenizer
    assert len(tok.encode(corrupt)) == len(tok.encode(req.text))
    text, fig = beyond.patching(req, corrupt, -1)
    effects = np.concatenate([np.asarray(t.z, dtype=float).ravel() for t in fig.data if t.type == "heatmap"])
    assert np.nanmax(np.abs(effects)) > 0.01, text
