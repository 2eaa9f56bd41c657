"""The explorer's handlers without a server: validation names the field; views come from one analysis."""

import json
import threading

import numpy as np
import pytest
from app_server import MODEL, SENTENCE

from explorer.api import handlers as h
from explorer.serving.request import Request, UserError
from explorer.serving.store import STORE, AnalysisStore, nbytes
from viz.page_data import SCALE, page_data
from viz.tokens import readable


@pytest.mark.parametrize("kwargs, message", [
    (dict(text=""), "Type an English sentence"),
    (dict(text="\x00 \x1b"), "Type an English sentence"),
    (dict(text="x" * 301), "300 characters"),
    (dict(text=None), "must be text"),
    (dict(text="a \ud800 b"), "not valid Unicode"),
    (dict(model="../../etc"), "Unknown model"),
    (dict(method="nucleus"), "greedy, beam or sample"),
    (dict(beam_size=0), "Beam size must be at least 1"),
    (dict(beam_size=2.5), "Beam size must be a whole number"),
    (dict(beam_size=9), "Beam size must be at least 1 and at most 8"),
    (dict(beam_size="eight"), "Beam size must be a number"),
    (dict(beam_size=[4]), "Beam size must be a number"),
    (dict(temperature=0), "Temperature must be greater than 0"),
    (dict(temperature="hot"), "Temperature must be a number"),
    (dict(top_p=0), "Top-p must be greater than 0"),
    (dict(top_p=1.01), "Top-p must be greater than 0 and at most 1"),
    (dict(top_k=-1), "Top-k"),
    (dict(max_len=float("nan")), "Maximum output length"),
    (dict(max_len=None), "Maximum output length must be a number"),
    (dict(seed=-5), "Seed"),
    (dict(length_penalty="x"), "Length penalty must be a number"),
])
def test_bad_settings_are_named(kwargs, message):
    args = {"text": SENTENCE, "model": MODEL, **kwargs}
    with pytest.raises(UserError, match=message):
        Request.parse(**args)


def test_defaults_live_in_one_place():
    req = Request.parse(SENTENCE, MODEL)
    assert req == Request(text=SENTENCE, model=MODEL)  # parse's defaults are the dataclass's
    assert Request.from_json(req.to_json()) == req
    with pytest.raises(UserError, match="Translate a sentence first"):
        Request.from_json("not json")


def test_control_characters_become_spaces_as_the_page_reads_them():
    req = Request.parse("  A\x00 dog\t runs \x07 ", MODEL)
    assert req.text == "A  dog  runs"  # NUL, tab and bell are spaces (views.js reads them so); the ends are stripped
    assert Request.parse("A\x00dog", MODEL).text == "A dog"  # not "Adog": the words stay apart


def test_views_share_one_analysis():
    req = Request.parse(SENTENCE, MODEL)
    a = h.analysis(req)
    assert h.analysis(Request.parse(SENTENCE, MODEL)) is a  # same request -> decoded once
    heat, mv, stats = h.attention_views(req, "Cross-attention", 0, "head 1")
    assert list(heat.data[0].z[0]) == list(a.cache["decoder.layers.0.cross_attn.weights"][0, 1, 0].double().numpy())
    assert SENTENCE in heat.layout.title.text and SENTENCE in mv.layout.title.text  # titles name the sentence
    with pytest.raises(UserError, match="Layer"):
        h.attention_views(req, "Cross-attention", 7, None)
    with pytest.raises(UserError, match="Head"):
        h.attention_views(req, "Cross-attention", 0, "head 9")
    with pytest.raises(UserError, match="Attention type"):
        h.attention_views(req, "Sideways attention", 0, None)


def test_page_data_is_the_analysis_in_per_mille():
    """What the browser draws from equals the captured weights to 3 decimals, and is compact."""
    req = Request.parse(SENTENCE, MODEL)
    a = h.analysis(req)
    d = page_data(a, h.model_for(MODEL).cfg.n_heads)
    for kind, name in (("cross", "decoder.layers.1.cross_attn.weights"), ("encoder", "encoder.layers.0.self_attn.weights"),
                       ("decoder", "decoder.layers.1.self_attn.weights")):
        w = a.cache[name][0].double().numpy()  # (H, Tq, Tk)
        got = np.array(d["att"][kind][int(name.split(".")[2])]) / SCALE
        assert got.shape == w.shape and np.abs(got - w).max() <= 0.5 / SCALE + 1e-9
    assert len(d["steps"]) == len(a.trace.steps) and d["steps"][0]["chosen"] == d["out"][0]
    assert len(json.dumps(d)) < 60_000


def test_identical_requests_at_once_decode_once():
    store = AnalysisStore()
    req = Request.parse("Two dogs play in the garden.", MODEL)
    results = []
    threads = [threading.Thread(target=lambda: results.append(store.get(req))) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert store.computed == 1 and all(r is results[0] for r in results)


def test_store_is_bounded_by_bytes_and_keeps_pinned():
    first = Request.parse("A cat sleeps.", MODEL)
    one = nbytes(STORE.get(first))
    store = AnalysisStore(max_items=100, max_bytes=int(one * 2.5))
    store.pin(first)
    for i in range(6):
        store.get(Request.parse(f"A cat sleeps {i} times.", MODEL))
    s = store.stats()
    assert s["items"] <= 3 and s["bytes"] <= one * 2.5 * 1.5
    assert first in store._items  # pinned survives


def test_ablation_of_every_cross_head_changes_the_output():
    tr = h.model_for(MODEL)
    req = Request.parse(SENTENCE, MODEL)
    names = [n for n in h.head_names(tr) if n.startswith("cross")]
    text, _, _, effect, _ = h.ablation(req, names)
    assert "(changed)" in text
    intact, off = (np.array(t.y) for t in effect.data)
    base = h.analysis(req)
    # greedy's own output forced through the intact model gives the trace's probabilities (then EOS)
    trace_probs = [s.chosen_prob for s in base.trace.steps]
    assert np.allclose(intact[: len(trace_probs)], trace_probs, atol=1e-4)
    assert len(intact) == len(off) == len(base.out_tokens) and not np.allclose(intact, off)
    assert f"{(off - intact).mean():+.3f}" in text  # the summary names the mean change it drew
    text, _, _, effect, _ = h.ablation(req, [])
    assert "(identical)" in text and np.allclose(effect.data[0].y, effect.data[1].y)  # nothing off: no change
    with pytest.raises(UserError, match="Unknown head"):
        h.ablation(req, ["cross L99 H0"])


def test_ablation_presets_name_every_head_of_a_kind_or_a_layer():
    tr = h.model_for(MODEL)
    presets = h.ablation_presets(tr)
    names = set(h.head_names(tr))
    cfg = tr.cfg
    assert len(presets["all cross-attention heads"]) == cfg.n_decoder_layers * cfg.n_heads
    assert len(presets["all encoder self-attention heads"]) == cfg.n_encoder_layers * cfg.n_heads
    assert {n.split()[1] for n in presets["whole layer 0 (every kind)"]} == {"L0"}
    assert len(presets["whole layer 0 (every kind)"]) == 3 * cfg.n_heads
    assert all(set(v) <= names for v in presets.values())
    h.ablation(Request.parse(SENTENCE, MODEL), presets["all cross-attention heads"])  # each is a valid ablation


def test_a_decode_that_yields_nothing_says_why(beam8_ends_at_once):
    req = Request.parse(SENTENCE + " (empty beam)", MODEL, "beam", 8)
    with pytest.raises(UserError, match="produced no words: beam search"):
        h.translate(req)


def test_tiny_temperature_samples_the_argmax():
    greedy = h.analysis(Request.parse(SENTENCE, MODEL)).translation
    cold = h.analysis(Request.parse(SENTENCE, MODEL, "sample", temperature=1e-38)).translation
    assert cold == greedy


def test_tokens_html_escapes():
    req = Request.parse("<img src=x onerror=alert(1)> </script>", MODEL)
    page = h.tokens_html(h.analysis(req))
    assert "<img" not in page and "</script" not in page


def test_the_continuation_marker_is_explained_where_it_is_shown():
    a = h.analysis(Request.parse("The snowboarders jumped.", MODEL))
    page = h.tokens_html(a)
    assert any(readable(t).startswith("·") for t in a.src_tokens + a.out_tokens)  # this sentence shows the marker
    assert "continues the word before it" in page and f"{len(a.vocab):,}" in page


def test_views_name_the_models_own_languages():
    from model.translator import available

    if "toy-reverse" not in available():
        pytest.skip("needs the toy model")
    req = Request.parse("a b c d", "toy-reverse")
    assert h.page(req)["task"] == {"source": "letters", "target": "reversed letters"}
    heat, _, _ = h.attention_views(req, "Cross-attention", 0, "head 0")
    title = heat.layout.title.text
    assert "reversed letters" in title and "German" not in title and "English" not in title
    assert h.input_label(h.model_for("toy-reverse").task) == "Letters separated by spaces"
    assert h.examples_for("toy-reverse")[0] == "a b c d e"
    if MODEL == "en-de":
        assert h.input_label(h.model_for("en-de").task) == "English sentence"
        heat, _, _ = h.attention_views(Request.parse(SENTENCE, MODEL), "Cross-attention", 0, "head 0")
        assert "(rows, German)" in heat.layout.title.text and "(columns, English)" in heat.layout.title.text


def test_compare_draws_two_sentences_on_one_colour_scale():
    req = Request.parse(SENTENCE, MODEL)
    other = "a b c" if MODEL != "en-de" else "The animal didn't cross the street because it was too wide."
    fig = h.compare(req, other, "Encoder self-attention", 1, None)
    a, b = fig.data
    assert a.coloraxis == b.coloraxis == "coloraxis" and (fig.layout.coloraxis.cmin, fig.layout.coloraxis.cmax) == (0, 1)
    for trace, r in ((a, req), (b, Request.parse(other, MODEL))):
        want = h.analysis(r).cache["encoder.layers.1.self_attn.weights"][0].mean(0).numpy()
        assert np.allclose(np.array(trace.z, float), want, atol=1e-6)
    titles = [t.text for t in fig.layout.annotations]
    assert titles[0].startswith("1st: " + SENTENCE[:10]) and titles[1].startswith("2nd: " + other[:10])
    assert all(len(t) <= 5 + 24 for t in titles)  # short enough for two side by side on a phone
    with pytest.raises(UserError):
        h.compare(req, "", "Encoder self-attention", 1, None)  # an empty second sentence is a message


def test_the_attention_difference_is_zero_when_no_head_is_off():
    req = Request.parse(SENTENCE, MODEL)
    tr = h.model_for(MODEL)
    *_, nothing = h.ablation(req, [])
    assert len(nothing.data) == tr.cfg.n_decoder_layers  # a panel per layer
    assert all(np.array_equal(np.array(t.z), np.zeros_like(np.array(t.z))) for t in nothing.data)
    *_, first_layer_off = h.ablation(req, [n for n in h.head_names(tr) if n.startswith("cross L0")])
    z = [np.abs(np.array(t.z)).max() for t in first_layer_off.data]
    assert z[0] == 0 and max(z[1:]) > 0.01  # a head off keeps its own weights; the layers after it change
