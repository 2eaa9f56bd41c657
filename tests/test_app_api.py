"""Every named endpoint through gradio_client and plain HTTP against a launched app, bad inputs included."""

import base64
import json
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import numpy as np
import pytest
from app_server import LOOPING_SENTENCE, MODEL, SENTENCE, api_call, served
from gradio_client import Client

from explorer.api import handlers as h
from explorer.serving import exports, limits
from explorer.serving.request import Request
from explorer.serving.store import STORE, peak_concurrency

DEC = dict(method="greedy", beam_size=4, length_penalty=0.6, temperature=1.0, top_k=0, top_p=1.0, seed=0, max_len=60)
PUBLIC = ["/translate", "/analyze", "/attention", "/step", "/beam", "/positional", "/queries", "/inside_head", "/ablate",
          "/logit_lens", "/bertviz", "/model_info", "/export_tensors", "/export_figures", "/attribute", "/patch",
          "/next_token", "/edit_source", "/training"]
NEEDS_MORE = {"/model_info", "/patch", "/training"}  # no sentence; a second sentence; a model with snapshots


def dec(text=SENTENCE, **kw):
    d = {**DEC, **kw}
    return [text, d["method"], d["beam_size"], d["length_penalty"], d["temperature"], d["top_k"], d["top_p"],
            d["seed"], d["max_len"], kw.get("model", MODEL)]


DEMO: list = []  # the module's running Blocks, for tests that look at its sessions


@pytest.fixture(scope="module")
def server():
    with served() as (demo, url):
        DEMO[:] = [demo]
        yield url


@pytest.fixture(scope="module")
def client(server):
    return Client(server, verbose=False)


def raw(url: str, name: str, data: list) -> tuple[str, object]:
    """A plain HTTP call, as curl would make it: -> (SSE event name, its data). A generous read timeout: 32 exports
    queued on two model slots wait their turn on a busy 2-core machine."""
    return api_call(url, name, data, timeout=300)


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
    assert set(PUBLIC) <= names
    assert not any(n.startswith("/lambda") or n.startswith("/translate_") for n in names)  # each name once, no strays


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
    translation, pieces, n_steps, heat0, _, _ = client.predict(*dec(), "Cross-attention", 1, "all heads (mean)",
                                                               api_name="/analyze")
    assert translation and "Source pieces" in pieces and n_steps >= len(translation.split())
    heat, mv, stats = client.predict(*dec(), "Cross-attention", 1, "all heads (mean)", api_name="/attention")
    assert figure(heat0) == figure(heat)
    fig = figure(heat)
    assert SENTENCE in fig["layout"]["title"]["text"]
    z = array(fig["data"][0]["z"])
    assert np.allclose(z.sum(1), 1, atol=2e-3)  # rows of an attention map sum to 1 (rounded to 4 digits)
    assert len(figure(mv)["data"]) >= 4 and len(figure(stats)["data"]) == 4  # cross: entropy, focus, first, EOS
    step = figure(client.predict(*dec(), 1, 1, "head 0", api_name="/step"))
    assert step["layout"]["title"]["text"].startswith("Decoding step 1")
    queries = client.predict(*dec(), "Encoder self-attention", api_name="/queries")
    inside = figure(client.predict(*dec(), "Encoder self-attention", 0, "head 1", "1: x", api_name="/inside_head"))
    assert "head 1" in inside["layout"]["title"]["text"]
    assert queries[0].startswith("0: ")
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


@pytest.mark.parametrize("name", [n for n in PUBLIC if n not in NEEDS_MORE])
def test_every_endpoint_works_called_alone_with_only_the_sentence(server, name):
    """Plain HTTP, one argument: the documented defaults are filled in (defect 3: it answered {"error": null})."""
    event, data = raw(server, name.strip("/"), [SENTENCE] if name != "/model_info" else [])
    assert event == "complete", data
    assert data and all(x is not None for x in data)


def test_patch_called_alone_asks_for_the_corrupted_sentence(server):
    event, data = raw(server, "patch", [SENTENCE])
    assert event == "error" and "corrupted sentence" in str(data)


@pytest.mark.skipif(MODEL != "en-de", reason="English sentences")
def test_beyond_attention_endpoints(client):
    """Attribution, patching and what-if through gradio_client: the figures hold the model's own numbers."""
    from explorer.serving.store import analysis
    from model.translator import load_pretrained

    tr = load_pretrained(MODEL)
    text, plot = client.predict(*dec(), "saliency", "", "", 32, -1, api_name="/attribute")
    a = analysis(Request.parse(SENTENCE, MODEL))
    want = tr.attribute(SENTENCE, "saliency", target=a.out_ids[:-1])
    z = array(figure(plot)["data"][0]["z"])
    np.testing.assert_allclose(z, want.source, rtol=1e-3, atol=1e-6)  # the compact figure keeps 4 significant digits
    assert "Spearman" in text
    text, plot = client.predict(*dec(), "occlusion", "", "Katze", 32, -1, api_name="/attribute")
    want = tr.attribute(SENTENCE, "occlusion", target=a.out_ids[:-1], contrast="Katze")
    np.testing.assert_allclose(array(figure(plot)["data"][0]["z"]), want.source, rtol=1e-3, atol=1e-5)
    assert "Occlusion (erase one input)" in text and "not “Katze”" in text
    text, plot = client.predict(*dec(), corrupted=SENTENCE.replace("dog", "cat"), api_name="/patch")
    p = tr.patch(SENTENCE, SENTENCE.replace("dog", "cat"))
    assert f"{p.clean_logp:.2f}" in text and len(figure(plot)["data"]) == 5  # 3 attention kinds, 2 layer stacks
    text, bars, att = client.predict(*dec(), prefix="Eine Katze", api_name="/next_token")
    r = tr.next_token(SENTENCE, "Eine Katze")
    assert r["continuation"] in text
    np.testing.assert_allclose(array(figure(bars)["data"][0]["y"]), r["top_probs"], rtol=1e-3)
    text, bars, att = client.predict(*dec(), piece="dog", replacement="cat", api_name="/edit_source")
    assert "Katze" in text.splitlines()[1] and len(figure(bars)["data"]) == 2
    with pytest.raises(Exception, match="as many pieces as the shown one"):
        client.predict(*dec(), corrupted="A big cat is running in the deep snow.", api_name="/patch")


def test_training_through_the_client(client):
    """Attention through training over gradio_client: a row per snapshot, and each snapshot's heatmap is the
    cross-attention the explorer computed for that snapshot. (Both shipped models have snapshots, so the refusal of
    a model without them is tested in-process: test_through_training.py::test_a_model_without_snapshots_says_so.)"""
    from explorer.api import through_training as tt
    from model.translator import load_pretrained

    model = next((m for m in ("en-de", "toy-reverse") if load_pretrained(m).snapshots()), None)
    if model is None:
        pytest.skip("no shipped model has snapshots")
    text = "A dog is running in the snow." if model == "en-de" else "c a t s"
    table, plot = client.predict(text, model=model, layer=-1, head="head 1", api_name="/training")
    runs = tt.snapshot_runs(Request.parse(text, model))
    fig = figure(plot)
    heatmaps = [t for t in fig["data"] if t["type"] == "heatmap"]
    assert len(heatmaps) == len(runs) == len(load_pretrained(model).snapshots()) >= 5
    for r, trace in zip(runs, heatmaps):
        np.testing.assert_allclose(array(trace["z"]), r["cross"][-1][1], rtol=1e-3, atol=1e-6)  # 4 significant digits
        assert f"| {'final' if r['final'] else r['step']} |" in table


def test_model_info_alone(server):
    event, data = raw(server, "model_info", [])
    assert event == "complete" and "parameters" in data[0]


@pytest.mark.parametrize("name, data, field", [
    ("translate", [SENTENCE, "beam", "four"], "Beam size"),
    ("translate", [SENTENCE, "sample", 4, 0.6, "warm"], "Temperature"),
    ("translate", [SENTENCE, "greedy", 4, 0.6, 1.0, 0, 1.0, "lucky"], "Seed"),
    ("translate", [SENTENCE, "greedy", 4, 0.6, 1.0, 0, 1.0, 0, "long"], "Maximum output length"),
    ("translate", [SENTENCE, "greedy", 4, {"a": 1}], "Length penalty"),
    ("attention", [SENTENCE, "greedy", 4, 0.6, 1.0, 0, 1.0, 0, 60, MODEL, "Cross-attention", "top"], "Layer"),
    ("attention", [SENTENCE, "greedy", 4, 0.6, 1.0, 0, 1.0, 0, 60, MODEL, "Cross-attention", 0, "head x"], "Head"),
    ("step", [SENTENCE, "greedy", 4, 0.6, 1.0, 0, 1.0, 0, 60, MODEL, "third"], "Step"),
    ("positional", [SENTENCE, "greedy", 4, 0.6, 1.0, 0, 1.0, 0, 60, MODEL, "many"], "Positions"),
    ("inside_head", [SENTENCE, "greedy", 4, 0.6, 1.0, 0, 1.0, 0, 60, MODEL, "Encoder self-attention", 0, "head 0",
                     "x: y"], "Query token"),
    ("ablate", [SENTENCE, "greedy", 4, 0.6, 1.0, 0, 1.0, 0, 60, MODEL, ["cross L9 H9"]], "Unknown head"),
    ("translate", ["a \ud800 b"], "not valid Unicode"),
])
def test_bad_values_over_plain_http_name_the_field(server, name, data, field):
    event, payload = raw(server, name, data)
    assert event == "error" and payload and field in str(payload.get("error")), payload


def test_tiny_temperature_through_the_client(client):
    """It gave "Something went wrong" (NaN probabilities); a lone surrogate is tested over plain HTTP above."""
    cold = client.predict(SENTENCE, "sample", 4, 0.6, 1e-38, model=MODEL, api_name="/translate")
    assert cold == client.predict(SENTENCE, model=MODEL, api_name="/translate")  # the argmax, every step


def test_a_decode_that_yields_nothing_says_why(client, beam8_ends_at_once):
    text = SENTENCE + " (an empty beam through the API)"
    with pytest.raises(Exception, match="produced no words"):
        client.predict(text, "beam", 8, model=MODEL, api_name="/translate")
    assert client.predict(text, "beam", 4, model=MODEL, api_name="/translate")  # defect 4: beam 4 still works


def test_step_works_for_late_steps_called_alone(server):
    """Defect 5: /step refused steps above 10 unless /analyze ran first in the same session."""
    text = "A man in a blue shirt and a woman in a red dress are walking their two dogs along the beach at sunset."
    event, data = raw(server, "step", [text, "greedy", 4, 0.6, 1.0, 0, 1.0, 0, 60, MODEL, 15])
    assert event == "complete", data
    assert figure(data[0])["layout"]["title"]["text"].startswith("Decoding step 15")
    event, data = raw(server, "step", [text, "greedy", 4, 0.6, 1.0, 0, 1.0, 0, 60, MODEL, 99])
    assert event == "error" and "Step must be" in data["error"]


def test_user_errors_log_no_traceback(server, capfd):
    capfd.readouterr()
    for data in ([""], [SENTENCE, "beam", "x"], ["a \ud800"], [SENTENCE, "greedy", 4, 0.6, 1.0, 0, 1.0, 0, "y"]):
        assert raw(server, "translate", data)[0] == "error"
    out, err = capfd.readouterr()
    assert "Traceback" not in out + err


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


def _export(url: str, text: str, client: Client | None = None) -> tuple[str, bytes]:
    c = client or Client(url, verbose=False, download_files=False)
    f = c.predict(*dec(text), api_name="/export_tensors")
    r = httpx.get(f["url"], timeout=60)
    r.raise_for_status()
    return text, r.content


def test_concurrent_exports_are_complete_and_correct(server):
    """16 identical and 16 different exports at once: every file whole and of its own sentence."""
    texts = [SENTENCE] * 16 + [f"{SENTENCE[:-1]} number {i}." for i in range(16)]
    with ThreadPoolExecutor(32) as pool:
        results = list(pool.map(lambda t: _export(server, t), texts))
    import io
    for text, blob in results:
        data = np.load(io.BytesIO(blob))
        assert json.loads(str(data["__meta__"]))["text"] == text
        assert all(data[k].size for k in data.files)


def test_exports_do_not_accumulate(server, monkeypatch):
    """Each export sweeps the older ones (TTL 0). The timer that would also sweep 1 s after the last export is
    off here: under load it could delete a file before its download finished (tests/test_exports.py tests it)."""
    monkeypatch.setattr(limits, "EXPORT_TTL_S", 0.0)
    monkeypatch.setattr(exports, "_sweep_later", lambda: None)
    client = Client(server, verbose=False, download_files=False)  # one visitor's page (a Client each took 37 s)
    _export(server, SENTENCE, client)
    start = exports.size_on_disk()
    for i in range(100):
        _export(server, f"Export number {i} of a dog.", client)
    assert exports.size_on_disk() <= max(start, 1) * 3  # only the newest few exist at any time
    assert len(list(exports.folder().iterdir())) <= 3


def test_at_most_one_model_computation_per_slot_under_mixed_load(server):
    STORE.clear()
    peak_concurrency(reset=True)
    jobs = []
    for i in range(24):
        text = f"A child number {i} plays with a ball."
        jobs.append(("translate", [text, ["greedy", "beam", "sample"][i % 3], 3, 0.6, 1.3, 0, 1.0, i]))
        if i % 4 == 0:
            jobs[-1] = ("ablate", [text, "greedy", 4, 0.6, 1.0, 0, 1.0, 0, 60, MODEL, ["cross L0 H0"]])
    with ThreadPoolExecutor(24) as pool:
        out = list(pool.map(lambda j: raw(server, *j), jobs))
    assert all(e == "complete" for e, _ in out), [d for e, d in out if e != "complete"][:3]
    assert 1 <= peak_concurrency() <= limits.MODEL_SLOTS


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


@pytest.mark.parametrize("text", ["🐶 🐱 🦜", "שלום עולם مرحبا", "<script>alert(1)</script> <img src=x onerror=alert(1)>",
                                  "NUL\x00inside\x07text"])
def test_odd_but_valid_inputs_are_translated(client, text):
    translation, pieces, *_ = client.predict(*dec(text), "Cross-attention", 0, "head 0", api_name="/analyze")
    assert isinstance(translation, str)
    assert "<script" not in pieces and "<img" not in pieces  # tokens reach the page escaped


def test_threads_are_not_leaked():
    assert threading.active_count() < 200


def test_sessions_are_lean_and_still_take_component_updates(server):
    """A new session does not copy every component's config, nor pin output values (explorer/serving/blocks.py);
    a component update (the step slider's new maximum after Translate) still reaches that session's blocks."""
    from explorer.serving.blocks import LeanSessionState, LeanStateHolder

    demo = DEMO[0]
    assert isinstance(demo.state_holder, LeanStateHolder)
    cfg = httpx.get(f"{server}config", timeout=30).json()
    fn = next(i for i, d in enumerate(cfg["dependencies"]) if d.get("api_name") == "translate_1")
    step = next(c["id"] for c in cfg["components"] if c.get("props", {}).get("elem_id") == "step")
    shared_max = demo.blocks[step].maximum
    sentence = ("A man in a blue shirt is standing on a ladder and cleaning the windows of a tall building."
                if MODEL == "en-de" else "a b c d e f g h i j k l")
    n_steps = len(h.analysis(Request.parse(sentence, MODEL)).trace.steps)
    assert n_steps - 1 != shared_max  # so that the resized slider is told apart from the page's own
    data = [sentence, MODEL, "greedy", 4, 0.6, 60, 1, 0, 1, 0]
    body = {"data": data, "fn_index": fn, "session_hash": "leansession1", "trigger_id": None, "event_data": None}
    assert httpx.post(f"{server}gradio_api/queue/join", json=body, timeout=30).status_code == 200
    with httpx.stream("GET", f"{server}gradio_api/queue/data?session_hash=leansession1", timeout=120) as r:
        done = next(json.loads(line[5:]) for line in r.iter_lines()
                    if line.startswith("data:") and "process_completed" in line)
    assert done["success"], done
    session = demo.state_holder.session_data["leansession1"]
    assert isinstance(session, LeanSessionState) and session.config_values == {}
    assert session.blocks_config.blocks[step].maximum == n_steps - 1  # this session's slider, resized
    assert demo.blocks[step].maximum == shared_max  # the page's own slider (every other session's) untouched


def test_static_files_come_whole_and_the_same_every_time(server):
    """The page's scripts and styles through the static cache: compressed, complete, equal to the file."""
    import re

    page = httpx.get(server, timeout=30).text
    paths = sorted(set(re.findall(r'(assets/[\w.-]+\.(?:js|css))', page)))
    assert paths, "the page names no assets"
    for path in paths[:6]:
        plain = httpx.get(server + path, headers={"Accept-Encoding": "identity"}, timeout=30)
        assert plain.status_code == 200 and plain.content
        for _ in range(3):  # the first answer fills the cache, the next come from it
            r = httpx.get(server + path, headers={"Accept-Encoding": "br"}, timeout=30)
            assert r.headers.get("content-encoding") == "br" or len(plain.content) < 500
            assert r.content == plain.content


@pytest.mark.skipif(MODEL != "en-de", reason="English sentences")
def test_repetition_options_through_the_api(client):
    """no_repeat_ngram_size / repetition_penalty (off by default) reach the decoder from every endpoint."""
    from model.loops import find_loop_in
    from model.translator import load_pretrained

    tok = load_pretrained(MODEL).tokenizer
    looping = LOOPING_SENTENCE
    plain = client.predict(looping, api_name="/translate")
    assert find_loop_in(tok, tok.encode(plain)) is not None  # the model's own loop: "-Rasen-Rasen-Rasen"
    for kw in (dict(no_repeat_ngram_size=2), dict(repetition_penalty=1.5)):
        fixed = client.predict(looping, **kw, api_name="/translate")
        assert find_loop_in(tok, tok.encode(fixed)) is None, (kw, fixed)
        translation, pieces, *_ = client.predict(looping, **kw, api_name="/analyze")
        assert translation == fixed and "repetition loop" not in pieces
    assert "repetition loop" in client.predict(looping, api_name="/analyze")[1]  # the page's warning, escaped HTML
    with pytest.raises(Exception, match="No-repeat n-gram size"):
        client.predict(looping, no_repeat_ngram_size=99, api_name="/translate")
    with pytest.raises(Exception, match="Repetition penalty"):
        client.predict(looping, repetition_penalty=0.5, api_name="/translate")
