"""The explorer's handlers without a server: validation messages name the setting; views come from one analysis."""

import pytest
from app_server import MODEL, SENTENCE

from explorer import handlers as h
from explorer.handlers import UserError


@pytest.mark.parametrize("kwargs, message", [
    (dict(text=""), "Type an English sentence"),
    (dict(text="\x00 \x1b"), "Type an English sentence"),
    (dict(text="x" * 301), "300 characters"),
    (dict(text=None), "must be text"),
    (dict(model="../../etc"), "Unknown model"),
    (dict(method="nucleus"), "greedy, beam or sample"),
    (dict(beam_size=0), "Beam size must be at least 1"),
    (dict(beam_size=2.5), "Beam size must be a whole number"),
    (dict(beam_size=9), "Beam size must be at least 1 and at most 8"),
    (dict(temperature=0), "Temperature must be greater than 0"),
    (dict(temperature="hot"), "Temperature must be a number"),
    (dict(top_p=0), "Top-p must be greater than 0"),
    (dict(top_p=1.01), "Top-p must be greater than 0 and at most 1"),
    (dict(top_k=-1), "Top-k"),
    (dict(max_len=float("nan")), "Maximum output length"),
    (dict(seed=-5), "Seed"),
])
def test_bad_settings_are_named(kwargs, message):
    args = dict(model=MODEL, text=SENTENCE, **{k: v for k, v in kwargs.items() if k not in ("model", "text")})
    args.update({k: v for k, v in kwargs.items() if k in ("model", "text")})
    with pytest.raises(UserError, match=message):
        h.make_request(**args)


def test_control_characters_are_dropped_and_whitespace_normalised():
    req = h.make_request(MODEL, "  A\x00 dog\t runs \x07 ")
    assert req.text == "A dog  runs"


def test_views_share_one_analysis():
    req = h.make_request(MODEL, SENTENCE)
    a = h.analysis(req)
    assert h.analysis(h.make_request(MODEL, SENTENCE)) is a  # same request -> decoded once
    heat, mv, stats = h.attention_views(req, "Cross-attention", 0, "head 1")
    assert list(heat.data[0].z[0]) == list(a.cache["decoder.layers.0.cross_attn.weights"][0, 1, 0].double().numpy())
    with pytest.raises(UserError, match="Layer"):
        h.attention_views(req, "Cross-attention", 7, None)
    with pytest.raises(UserError, match="Head"):
        h.attention_views(req, "Cross-attention", 0, "head 9")
    with pytest.raises(UserError, match="Attention type"):
        h.attention_views(req, "Sideways attention", 0, None)


def test_ablation_of_every_cross_head_changes_the_output():
    tr = h.model_for(MODEL)
    req = h.make_request(MODEL, SENTENCE)
    names = [n for n in h.head_names(tr) if n.startswith("cross")]
    text, _, _ = h.ablation(req, names)
    assert "(changed)" in text
    text, _, _ = h.ablation(req, [])
    assert "(identical)" in text
    with pytest.raises(UserError, match="Unknown head"):
        h.ablation(req, ["cross L99 H0"])


def test_tokens_html_escapes():
    req = h.make_request(MODEL, "<img src=x onerror=alert(1)> </script>")
    page = h.tokens_html(h.analysis(req))
    assert "<img" not in page and "</script" not in page
