"""The JavaScript model in a real browser: Chromium loads it in a Web Worker from the app's own /browser-model/ files
(each checked against its SHA-256), shows the download's progress, and makes the page's copy of a translation that
equals the server's, with the server's "may be wrong" estimate; a second visit takes the weights from the browser's
cache. The files the route serves and
refuses. (The page does not use the worker yet: this holds the part the page will use.)"""

import json
import os
from pathlib import Path

import httpx
import pytest
from app_server import MODEL, served

from explorer.browser_model import parity
from model.quality import estimate
from model.tokenizer import UNK
from model.translator import load_pretrained
from viz.page_data import page_data

pw = pytest.importorskip("playwright.sync_api")
CHROMIUM = "/usr/bin/chromium"
if not Path(CHROMIUM).exists():
    if os.environ.get("CI"):
        raise RuntimeError("browser tests need /usr/bin/chromium (see .ci/run)")
    pytest.skip("Chromium is not installed", allow_module_level=True)
if MODEL != "en-de":
    pytest.skip("the shipped en-de is needed", allow_module_level=True)

SENTENCES = ["Two children are playing football on the beach.", "Café 😀 <b>naïve</b> & co", "Why is the sky blue?"]
LOAD = """async ([base, texts]) => {
  const w = new Worker("/browser-model/worker.js", { type: "module" });
  const progress = [], inbox = [];
  let waiting = null;
  w.onmessage = (e) => {
    if (e.data.kind === "progress") progress.push([e.data.loaded, e.data.total]);
    else { inbox.push(e.data); if (waiting) waiting(); }
  };
  // the next message of one of these kinds (the estimator's comes on its own, after ready)
  const next = async (kinds) => {
    for (;;) {
      const i = inbox.findIndex((m) => kinds.includes(m.kind));
      if (i >= 0) return inbox.splice(i, 1)[0];
      await new Promise((go) => { waiting = go; });
    }
  };
  w.postMessage({ id: 1, kind: "load", base });
  const ready = await next(["ready", "error"]);
  const estimator = ready.kind === "ready" ? await next(["estimator"]) : null;
  const results = [];
  for (const text of texts) {
    w.postMessage({ id: 2, kind: "translate", text });
    const r = await next(["result", "error"]);
    if (r.kind === "result") r.estimate = (await next(["estimate"])).estimate;  // (its own message, after the copy)
    results.push(r);
  }
  w.terminate();
  return { ready, estimator, results, progress };
}"""


@pytest.fixture(scope="module")
def server():
    with served() as (_, url):
        yield url


@pytest.fixture(scope="module")
def context(server):
    with pw.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"])
        ctx = b.new_context(viewport={"width": 1280, "height": 800})
        yield ctx
        b.close()


def test_the_worker_makes_the_servers_copy_of_a_translation_and_a_second_visit_downloads_nothing(server, context):
    pg = context.new_page()
    pg.goto(server + "browser-model/worker.js")  # a page of the app's origin (the worker must be same-origin)
    first = pg.evaluate(LOAD, ["/browser-model/en-de/", SENTENCES])
    assert first["ready"]["kind"] == "ready", first["ready"]
    size = (Path(__file__).resolve().parent.parent / "checkpoints" / "en-de" / "model.safetensors").stat().st_size
    # the download's progress: growing, to the whole file
    assert len(first["progress"]) >= 2 and first["progress"][-1] == [size, size]
    assert [p[0] for p in first["progress"]] == sorted(p[0] for p in first["progress"])
    assert first["ready"]["transferred"] >= size
    tr = load_pretrained("en-de")
    # then the "may be wrong" estimate's reverse model, in the background, and each translation's estimate: the
    # server's flag and words ("Why is the sky blue?" is flagged, "blue" missing)
    assert first["estimator"]["ready"] is True and first["estimator"]["bytes"] >= size, first["estimator"]
    for text, r in zip(SENTENCES, first["results"]):
        assert r["kind"] == "result", r
        a = tr.analyze(text)
        assert parity.page_differences(r["page"], page_data(a, tr.cfg.n_heads)) == []
        py, js = estimate(a, UNK, [s.chosen_prob for s in a.trace.steps][: len(a.out_tokens)]), r["estimate"]
        assert (js["flagged"], js["words"], js["missing"]) == (py.flagged, list(py.words), list(py.missing)), text
        assert abs(js["probability"] - py.probability) < 1e-4
    assert first["results"][2]["estimate"]["flagged"] and "blue" in first["results"][2]["estimate"]["missing"]
    assert "&lt;b&gt;" in first["results"][1]["page"]["text_html"]  # the sentence is data, escaped
    # a later visit: the weights come from the browser's cache (asked for by their hash), nothing over the network
    pg2 = context.new_page()
    pg2.goto(server + "browser-model/worker.js")
    second = pg2.evaluate(LOAD, ["/browser-model/en-de/", SENTENCES[:1]])
    assert second["ready"]["kind"] == "ready" and second["results"][0]["page"] == first["results"][0]["page"]
    assert second["ready"]["transferred"] < 100_000, second["ready"]  # at most the revalidated small files


def test_a_weights_file_that_is_not_the_checkpoints_is_refused_in_the_browser(server, context):
    pg = context.new_page()
    pg.goto(server + "browser-model/worker.js")

    def tampered(route):  # what a broken proxy or a changed file on the server would send
        body = bytearray(route.fetch().body())
        body[-1] ^= 1
        route.fulfill(status=200, body=bytes(body), headers={"content-type": "application/octet-stream"})
    pg.route("**/model.safetensors*", tampered)
    out = pg.evaluate(LOAD, ["/browser-model/en-de/", SENTENCES[:1]])
    assert out["ready"]["kind"] == "error" and "model.safetensors: SHA-256" in out["ready"]["message"]
    assert out["results"][0]["kind"] == "error"  # and a translation asked for then is refused in words


def test_the_route_serves_the_model_files_and_nothing_else(server):
    ok = httpx.get(server + "browser-model/en-de/config.json")
    assert ok.status_code == 200 and ok.json()["model"]["d_model"] == 256
    sha = ok.json()["files"]["model.safetensors"]["sha256"]
    w = httpx.get(server + f"browser-model/en-de/model.safetensors?v={sha}")
    assert w.status_code == 200 and "immutable" in w.headers["cache-control"] and w.headers["etag"] == f'"{sha}"'
    assert httpx.get(server + "browser-model/en-de/model.safetensors", headers={"if-none-match": f'"{sha}"'}).status_code == 304
    assert "javascript" in httpx.get(server + "browser-model/transformer.js").headers["content-type"]
    # the reverse model's three files and the estimate's fitted numbers (metrics.json's "quality"), and no more
    assert httpx.get(server + "browser-model/en-de/reverse/model.safetensors").status_code == 200
    metrics = json.loads((Path(__file__).resolve().parent.parent / "checkpoints" / "en-de" / "metrics.json").read_text())
    assert httpx.get(server + "browser-model/en-de/quality.json").json() == metrics["quality"]
    for path in ("browser-model/", "browser-model/cli.js", "browser-model/en-de/metrics.json",
                 "browser-model/en-de/reverse/train_log.csv", "browser-model/en-de/reverse/metrics.json",
                 "browser-model/toy-reverse/quality.json", "browser-model/en-de/train_log.csv",
                 "browser-model/en-de/%2e%2e/en-de/config.json",
                 "browser-model/package.json", "browser-model/nope/config.json"):
        assert httpx.get(server + path).status_code == 404, path
    assert httpx.post(server + "browser-model/en-de/config.json").status_code == 405


def test_an_abandoned_download_ends_with_its_client_and_downloads_in_flight_are_bounded(server, monkeypatch):
    """Attacker helper 47: 20,286 downloads of the weights abandoned after one byte went on reading the whole file each
    (19,949 descriptors, 6 GB). Now each ends when its client goes, so 60 abandoned ones leave room for an honest
    download under a cap of 20 in flight from one address; 20 held open at once meet the cap (503, Retry-After)."""
    import socket
    import time
    from urllib.parse import urlparse

    from explorer.browser_model import routes

    monkeypatch.setattr(routes, "PER_ADDRESS", 20)
    host, port = urlparse(server).hostname, urlparse(server).port
    request = b"GET /browser-model/en-de/model.safetensors HTTP/1.1\r\nHost: x\r\n\r\n"

    def opened() -> socket.socket:
        s = socket.create_connection((host, port), timeout=10)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # reads little: the server waits on this client
        s.sendall(request)
        assert s.recv(1)  # the download has begun
        return s

    for _ in range(60):
        s = opened()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")  # reset on close
        s.close()
    time.sleep(1.0)
    honest = httpx.get(server + "browser-model/en-de/model.safetensors", timeout=30)
    size = (Path(__file__).resolve().parent.parent / "checkpoints" / "en-de" / "model.safetensors").stat().st_size
    assert honest.status_code == 200 and len(honest.content) == size
    held = [opened() for _ in range(20)]  # slow readers, still there
    try:
        refused = httpx.get(server + "browser-model/en-de/model.safetensors", timeout=30)
        assert refused.status_code == 503 and refused.headers["retry-after"]
    finally:
        for s in held:
            s.close()
    time.sleep(1.0)
    assert httpx.get(server + "browser-model/en-de/spm.model", timeout=30).status_code == 200
