"""Every named endpoint through gradio_client against a launched app, bad inputs included."""

import base64
import json
from pathlib import Path

import numpy as np
import pytest
from app_server import MODEL, SENTENCE, launch
from gradio_client import Client

DEC = dict(method="greedy", beam_size=4, length_penalty=0.6, temperature=1.0, top_k=0, top_p=1.0, seed=0, max_len=60)


def dec(text=SENTENCE, **kw):
    d = {**DEC, **kw}
    return [text, d["method"], d["beam_size"], d["length_penalty"], d["temperature"], d["top_k"], d["top_p"],
            d["seed"], d["max_len"], kw.get("model", MODEL)]


@pytest.fixture(scope="module")
def client():
    demo, url = launch()
    try:
        yield Client(url, verbose=False)
    finally:
        demo.close()


def figure(value) -> dict:
    """gr.Plot's API value -> the plotly figure dict."""
    plot = value["plot"] if isinstance(value, dict) else value
    return json.loads(plot) if isinstance(plot, str) else plot


def array(value) -> np.ndarray:
    """A plotly JSON array: a list, or plotly 6's typed array {"dtype", "bdata" (base64), "shape"}."""
    if isinstance(value, dict) and "bdata" in value:
        flat = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        shape = [int(x) for x in str(value.get("shape", len(flat))).split(",")]
        return flat.reshape(shape)
    return np.array(value)


def test_endpoints_are_named(client):
    names = set(client.view_api(print_info=False, return_format="dict")["named_endpoints"])
    assert {"/translate", "/analyze", "/attention", "/step", "/queries", "/inside_head", "/positional", "/beam",
            "/logit_lens", "/bertviz", "/ablate", "/export_tensors", "/export_figures", "/model_info",
            "/model_controls"} <= names


def test_translate(client):
    out = client.predict(SENTENCE, model=MODEL, api_name="/translate")
    assert isinstance(out, str) and out
    if MODEL == "en-de":
        assert "Hund" in out
    beam = client.predict(SENTENCE, "beam", 4, model=MODEL, api_name="/translate")
    assert isinstance(beam, str) and beam
    s1 = client.predict(SENTENCE, "sample", 4, 0.6, 1.5, 0, 0.9, 7, model=MODEL, api_name="/translate")
    s2 = client.predict(SENTENCE, "sample", 4, 0.6, 1.5, 0, 0.9, 7, model=MODEL, api_name="/translate")
    assert s1 == s2  # seeded


def test_views(client):
    translation, pieces, slider, heat0, _, _ = client.predict(*dec(), "Cross-attention", 1, "all heads (mean)",
                                                              api_name="/analyze")
    assert translation and "Source pieces" in pieces
    heat, mv, stats = client.predict(*dec(), "Cross-attention", 1, "all heads (mean)", api_name="/attention")
    assert figure(heat0) == figure(heat)
    fig = figure(heat)
    z = array(fig["data"][0]["z"])
    assert np.allclose(z.sum(1), 1, atol=1e-4)  # rows of an attention map sum to 1
    assert len(figure(mv)["data"]) >= 4 and len(figure(stats)["data"]) == 6
    step = figure(client.predict(*dec(), 1, 1, "head 0", api_name="/step"))
    assert step["layout"]["title"]["text"].startswith("Decoding step 1")
    queries = client.predict(*dec(), "Encoder self-attention", api_name="/queries")
    inside = figure(client.predict(*dec(), "Encoder self-attention", 0, "head 1", "1: x", api_name="/inside_head"))
    assert "head 1" in inside["layout"]["title"]["text"]
    assert queries is not None
    pe = client.predict(*dec(), 40, "0, 1, 5", api_name="/positional")
    assert len(pe) == 4 and len(array(figure(pe[0])["data"][0]["z"])) == 40
    tree, compare = client.predict(*dec(), api_name="/beam")
    assert figure(tree)["data"] and len(figure(compare)["data"]) == 2
    lens = figure(client.predict(*dec(), api_name="/logit_lens"))
    assert "Logit lens" in lens["layout"]["title"]["text"]
    head_html, model_html = client.predict(*dec(), api_name="/bertviz")
    assert head_html.startswith('<iframe sandbox="allow-scripts"') and "srcdoc=" in model_html
    text, before, after = client.predict(*dec(), ["cross L0 H0", "cross L0 H1"], api_name="/ablate")
    assert text.startswith("Original:") and figure(before) and figure(after)
    card, curves, lr = client.predict(MODEL, api_name="/model_info")
    assert "parameters" in card and figure(curves)["data"]


def test_exports(client):
    path = client.predict(*dec(), api_name="/export_tensors")
    data = np.load(path)
    meta = json.loads(str(data["__meta__"]))
    assert meta["text"] == SENTENCE and "decoder/layers/0/cross_attn/weights" in data.files
    w = data["decoder/layers/0/cross_attn/weights"]
    assert w.shape[-1] == len(meta["src_tokens"]) and w.shape[-2] == len(meta["tgt_tokens"])
    html_path = client.predict(*dec(), "Cross-attention", 0, "head 0", api_name="/export_figures")
    page = Path(html_path).read_text()
    assert page.count('class="plotly-graph-div"') == 3 and page.count("<script") >= 3


BAD = [
    (dec(""), "Type an English sentence"),
    (dec("   \t  "), "Type an English sentence"),
    (dec("\x00\x01\x07"), "Type an English sentence"),
    (dec("a" * 10_000), "300 characters"),
    (dec(model="no-such-model"), "Unknown model"),
    (dec(method="beam", beam_size=0), "Beam size must be at least 1"),
    (dec(method="beam", beam_size=1000), "Beam size must be at least 1 and at most 8"),
    (dec(method="sample", temperature=0), "Temperature must be greater than 0"),
    (dec(method="sample", temperature=-1), "Temperature must be greater than 0"),
    (dec(method="sample", top_p=0), "Top-p must be greater than 0"),
    (dec(method="sample", top_p=1.5), "Top-p must be greater than 0 and at most 1"),
    (dec(max_len=100000), "Maximum output length must be"),
    (dec("🐶" * 30), "tokens long"),  # 30 characters, but 4 byte pieces each
]


@pytest.mark.parametrize("args, message", BAD, ids=[m + str(i) for i, (_, m) in enumerate(BAD)])
def test_bad_inputs_get_a_clear_message(client, args, message):
    with pytest.raises(Exception) as err:
        client.predict(*args, api_name="/translate")
    assert message in str(err.value) and "Traceback" not in str(err.value)
    # and the app still answers a normal request correctly
    assert client.predict(SENTENCE, model=MODEL, api_name="/translate") == client.predict(
        SENTENCE, model=MODEL, api_name="/translate")


def test_ui_sliders_are_range_checked_too(client):
    """The view endpoints take Gradio sliders, which Gradio range-checks on the server before our handler."""
    with pytest.raises(Exception, match="less than minimum value 1"):
        client.predict(*dec(method="beam", beam_size=0), "Cross-attention", 0, "head 0", api_name="/attention")
    with pytest.raises(Exception, match="not in the list of choices"):
        client.predict(*dec(), "Cross-attention", 0, "head 7", api_name="/attention")


@pytest.mark.parametrize("text", ["🐶 🐱 🦜", "שלום עולם مرحبا", "<script>alert(1)</script> <img src=x onerror=alert(1)>",
                                  "NUL\x00inside\x07text"])
def test_odd_but_valid_inputs_are_translated(client, text):
    translation, pieces, *_ = client.predict(*dec(text), "Cross-attention", 0, "head 0", api_name="/analyze")
    assert isinstance(translation, str)
    assert "<script" not in pieces and "<img" not in pieces  # tokens reach the page escaped
