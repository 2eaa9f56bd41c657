"""Benchmark: a class of students against one running `python app.py`.

    python bench/classroom.py [--clients 60] [--spread 10] [--port 7960] [--no-browser] [--sentences-file F]
    python bench/classroom.py --browser-model [--clients 500] [--cached]

With --browser-model the app is started with ATTENTION_EXPLORER_BROWSER_MODEL=1: each page loads the model into a
Web Worker and Translates without the server (issue 51). The recorded page load then holds the model's files (the
worker's requests, seen through Playwright), so each student of the class downloads them as a first visit does
(--cached: as a later visit, from the browser's cache: without them); the browser's own Translate time, measured in
the browser sessions, is added to each student's time to the first heatmap, which the server no longer computes.

Starts `python app.py` and a bare Gradio page of the same layout (no model, no events on load), then:

1. one real browser session (Chromium through Playwright) records every HTTP call the page makes: the page load,
   Translate, each tab, switching head and layer. Its summary is printed: the class below replays exactly these
   calls (with --no-browser, a built-in description recorded the same way from gradio 6.31.0 is used instead);
2. browser figures: server CPU of a fresh page load, app vs bare page, alternating; server CPU and bytes of
   Translate + every tab for 17-word sentences;
3. the same calls over plain HTTP, one student at a time, with the server idle between calls: where CPU and bytes go;
4. the class: N students arriving evenly within --spread seconds, each loading the page (every GET the browser made),
   translating its own sentence and opening every tab, as concurrent HTTP clients (a lean asyncio HTTP/1.1
   client with six connections each, as a browser has: this client shares the cores with the server it measures).

Server CPU is utime+stime of the server process (/proc/<pid>/stat), read when the server is idle again, minus its
idle rate (an idle Gradio server polls: 50-90 ms/s here) measured in the same run and updated from every idle
second seen since. Bytes are response bodies as they travel (compressed where Gradio compresses). MB = 10^6 bytes.
Not a test: it prints figures and PASS/FAIL beside the goals of the issue. Takes ~10 minutes on 2 cores.
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import json
import os
import random
import statistics
import string
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections import Counter, defaultdict, deque
from dataclasses import dataclass, field
from itertools import product
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(os.environ.get("ATTENTION_EXPLORER_DATA") or ROOT.parent / "shared" / "data" / "multi30k")
CLK = os.sysconf("SC_CLK_TCK")
MB = 1e6
CHROMIUM = "/usr/bin/chromium"
CHROME_ARGS = ["--no-sandbox", "--disable-background-networking", "--disable-component-update", "--no-first-run",
               "--disable-sync"]
ACCEPT = "gzip, deflate, br, zstd"  # what Chromium asks for: Gradio answers assets brotli-compressed
JOIN, STREAM = "/gradio_api/queue/join", "/gradio_api/queue/data"
MODEL_PREFIX = "/browser-model/"  # explorer/browser_model/routes.py PREFIX: the browser's model, its scripts and files
# local.js's line once the model and its estimate are loaded, or have failed: its words say which
MODEL_SAID = "() => (document.querySelector('#ae-local [role=status]') || {}).textContent || ''"
TABS = ["Step by step", "Positional encoding", "Inside a head", "Experiments", "Compare", "Model", "Translate & attend"]
SENTENCE, SHOWN = "<sentence>", "<shown>"  # placeholders in a recorded call, filled in per student

GOALS = {  # the goals: (limit, unit)
    "cpu": (0.35, "s"), "page": (0.10, "s"), "bytes": (0.5, "MB"), "errors": (0, ""), "p95": (8.0, "s"),
    # issue 51 (--browser-model): a student costs the server its page load and static files only; p95 first heatmap
    "student": (0.05, "s"), "p95 model": (3.0, "s")}

# What the page does, recorded from Chromium against gradio 6.31.0 (used with --no-browser). Events are named by
# what triggers them ("translate": the Translate button; "run-inside": the hidden button views.js clicks when
# "Inside a head" first opens for an analysis); their payloads are built from the page's config (the components'
# values), as the browser builds them. Nothing runs on load; Step, Positional and Experiments are drawn by views.js.
BUILTIN_EVENTS = [("load", []), ("translate", ["translate"]), ("tab Step by step", []),
                  ("tab Positional encoding", []), ("tab Inside a head", ["run-inside"]), ("tab Experiments", []),
                  ("tab Compare", []), ("tab Model", []), ("tab Translate & attend", []), ("head/layer", [])]
BUILTIN_GETS = {"translate": ["/static/fonts/IBMPlexMono/IBMPlexMono-Regular.woff2"]}
BUILTIN_ASSETS = """/ /assets/index-DphvyggB.js /assets/index-DiEEvXS6.css /static/js/iframeResizer.contentWindow.min.js
/assets/Index-Akn07EZk2.js /assets/core-Bdx9080F.js /assets/src-DcSdoR3U.js /assets/runtime-qxXi1UK7.js
/assets/dist-Kll2twSG.js /assets/core-DonAqEks.css /assets/HistoryStorageControl-DuiTcqlS.js
/assets/HistoryStorageControl-WpXJfujP.css /assets/logo-D4NPp-_W.js /assets/statustracker-DQF-KcRT.js
/assets/src-1GSBhSW9.js /assets/legacy-CDJ-45tY.js /assets/src-B8NTxzPO.css /assets/browser-DEyAkl5d.js
/assets/statustracker-CouyIdTk.css /assets/Index-EfSyqQsq.css /favicon.ico {theme} /assets/Blocks-D1GWYZdr.js
/assets/api-logo-CCEtYehn.js /assets/settings-logo-AL7zGNml.js /assets/Blocks-0aNuD791.css
/static/fonts/SourceSansPro/SourceSansPro-Regular.woff2 /assets/Index-BtpqUM30.js /assets/Index-DrCM5gzc.css
/assets/Index-BWOfFqNG.js /assets/markdown-code-DajcpNdM.js /assets/prism-BQtKK7pc.js
/assets/markdown-code-BKTx0QVF.css /assets/Example-BLP_p0S2.js /assets/Example-CgIc4GLa.css /assets/Index-BGK55NKF.css
/assets/Index-Dw2QElZn2.js /assets/Index-LKTY8Jbn.css /assets/Index-3o3U-0UB.js /assets/Index-C1GyojFs.css
/assets/Index-reaEz31n.js /assets/Example-BSPwNEyy.js /assets/Example-B1swpn2y.css /assets/Index-Ba0kRe4M.css
/assets/Index-DAYzeNnX.js /assets/Example-TKXR5WLL.js /assets/Example-BeU1J4ps.css /assets/Index-CUQnb8lN.css
/assets/Index-x9Lwa_7O.js /assets/Index-CSQTwOT5.css /assets/Index-B0rFgO7A.js /assets/Example-D_3AXZ0f.js
/assets/Example-DWDv4qx4.css /assets/Index-CvOXDAXN.css /assets/Index-DHgdeJnx.js /assets/Index-Cr_YPqE0.css
/assets/Index-CNppf56v.js /assets/Index-BHng8pvl.css /assets/Index-lnVPVsWk.js /assets/Image-PyHwlVak.js
/assets/Image-Da_XA0w6.css /assets/shared-cH3oJBDc.js /assets/ImagePreview-D7QICQRi.js
/assets/ImagePreview-B2sIO-1d.css /assets/Index-CcsdfK63.css /assets/Index-DACN_yOo.js /assets/Index-CdrjrUBL.css
/assets/Index-CwZFw7rD.js /assets/Example-h__FlDnt.js /assets/Example-BG5zdIqX.css /assets/HTML-DBguWbVR.js
/assets/HTML-BuYIBbeV.css /assets/Index-VzTVYr-q.css /assets/Index-DAx5Uzyn2.js /assets/Index-CDyOSUJJ.css
/assets/Index-WUTC_uqz.js /assets/Index-Dx8MxtAM.css /assets/Index-DbTgghCM.js /assets/Plot-ChJwqOIq.js
/assets/Index-oJyC7LSr.js /assets/Index-Bqii6RB8.css /assets/Index-BvgenQIA.js
/static/fonts/SourceSansPro/SourceSansPro-SemiBold.woff2 /assets/PlotlyPlot-D9Pvz5DK.js"""

# A bare Gradio page of the app's layout: the same kinds and numbers of components, no model, no events on load.
# Its first tab shows a plot (plotly loads, as on the app's page, where the browser draws the heatmap at once).
BARE = '''import gradio as gr
import plotly.graph_objects as go

fig = go.Figure(go.Heatmap(z=[[(i * j) % 7 for j in range(12)] for i in range(12)]))
with gr.Blocks(title="Bare page") as demo:
    gr.Markdown("Type an English sentence and look inside a small Transformer.")
    with gr.Row():
        text = gr.Textbox("A dog is running in the snow.", label="English sentence", scale=4)
        gr.Dropdown(["en-de", "toy-reverse"], value="en-de", label="Model", scale=1)
    with gr.Accordion("Decoding options", open=False):
        with gr.Row():
            gr.Radio(["greedy", "beam", "sample"], value="greedy", label="Decoding")
            gr.Slider(1, 8, 4, step=1, label="Beam size")
            gr.Slider(0, 2, 0.6, step=0.1, label="Length penalty")
            gr.Slider(1, 100, 60, step=1, label="Max output tokens")
        with gr.Row():
            gr.Slider(0.05, 5, 1, step=0.05, label="Temperature")
            gr.Slider(0, 200, 0, step=1, label="Top-k")
            gr.Slider(0.05, 1, 1, step=0.05, label="Top-p")
            gr.Number(0, precision=0, label="Seed")
    go_button = gr.Button("Translate", variant="primary")
    gr.Dataset(components=[gr.Textbox(visible=False)], samples=[[f"Example sentence {i}."] for i in range(6)])
    gr.HTML("<p>status</p>")
    out = gr.Textbox(label="German", interactive=False)
    gr.HTML("<p>pieces</p>")
    gr.JSON({}, visible=False)
    gr.Textbox(visible=False)
    with gr.Tabs():
        with gr.Tab("Translate & attend"):
            gr.Markdown("What you see.")
            with gr.Row():
                gr.Radio(["Encoder self-attention", "Decoder self-attention", "Cross-attention"], value="Cross-attention")
                gr.Slider(0, 2, 2, step=1, label="Layer")
                gr.Dropdown(["all heads (mean)", "head 0", "head 1", "head 2", "head 3"], value="all heads (mean)")
            gr.Plot(fig, label="Attention heatmap")
            gr.Plot(label="Model view")
            gr.Plot(label="Head statistics")
            with gr.Accordion("bertviz views", open=False):
                gr.HTML()
                gr.HTML()
            with gr.Row():
                gr.Button("Download tensors")
                gr.Button("Download figures")
            gr.File(visible=False)
            gr.File(visible=False)
        with gr.Tab("Step by step"):
            gr.Markdown("Step by step.")
            with gr.Row():
                gr.Slider(0, 10, 0, step=1)
                gr.Slider(0, 2, 2, step=1)
                gr.Dropdown(["all heads (mean)", "head 0"], value="all heads (mean)")
            gr.Plot()
            gr.Plot()
            gr.Plot()
        with gr.Tab("Positional encoding"):
            gr.Markdown("Positions.")
            with gr.Row():
                gr.Slider(2, 200, 50, step=1)
                gr.Textbox("0, 1, 10, 11, 60, 61")
            for _ in range(4):
                gr.Plot()
        with gr.Tab("Inside a head"):
            gr.Markdown("Inside a head.")
            with gr.Row():
                gr.Radio(["Encoder self-attention", "Cross-attention"], value="Encoder self-attention")
                gr.Slider(0, 2, 0, step=1)
                gr.Dropdown(["head 0", "head 1"], value="head 0")
                gr.Dropdown([], label="Query token")
            gr.Plot()
        with gr.Tab("Experiments"):
            gr.Markdown("Experiments.")
            gr.CheckboxGroup([f"cross L2 H{i}" for i in range(4)], value=["cross L2 H0"])
            gr.Button("Run with these heads off")
            gr.Textbox(lines=3, interactive=False)
            with gr.Row():
                gr.Plot()
                gr.Plot()
            gr.Plot()
        with gr.Tab("Model"):
            gr.Markdown("The model.")
            gr.Markdown("| field | value |\\n| --- | --- |\\n| d_model | 256 |")
            gr.Plot(fig)
            gr.Plot(fig)
    for _ in range(5):
        gr.Textbox(visible=False)
    go_button.click(lambda s: s, text, out)
demo.queue().launch()
'''

# The page's own test for "nothing running": no Gradio status tracker visible for 1.5 s (tests/test_browser.py).
IDLE_JS = """() => {
  const busy = document.querySelectorAll('[data-testid=status-tracker]:not(.hide)').length > 0;
  if (busy || window.__idleSince === undefined) { window.__idleSince = busy ? undefined : Date.now(); return false; }
  return Date.now() - window.__idleSince > 1500;
}"""
# Counts the page's completed events and their errors, reading a copy of each queue/data stream (observes only).
TEE_JS = r"""(() => {
  const f = window.fetch, seen = window.__events = {completed: 0, failed: []};
  window.fetch = async (...a) => {
    const r = await f(...a), url = String((a[0] && a[0].url) || a[0]);
    if (!url.includes('/queue/data') || !r.body) return r;
    const [mine, theirs] = r.body.tee();
    (async () => {
      const rd = mine.getReader(), dec = new TextDecoder(); let buf = '';
      for (;;) {
        const {done, value} = await rd.read(); if (done) break;
        buf += dec.decode(value, {stream: true}); let i;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, i); buf = buf.slice(i + 2);
          for (const line of block.split('\n')) {
            if (!line.startsWith('data:')) continue;
            try {
              const m = JSON.parse(line.slice(5));
              if (m.msg === 'process_completed') {
                seen.completed++; if (!m.success) seen.failed.push(String((m.output && m.output.error) || 'error'));
              }
            } catch (e) {}
          }
        }
      }
    })();
    return new Response(theirs, {status: r.status, statusText: r.statusText, headers: r.headers});
  };
})();"""


# -- servers ---------------------------------------------------------------------------------------------------

class Server:
    """A server process this benchmark started, and its CPU and memory as /proc reports them."""

    def __init__(self, name: str, cmd: list[str], port: int, env: dict | None = None):
        self.name, self.url, self.port = name, f"http://127.0.0.1:{port}", port
        self.idle_seconds: deque[float] = deque(maxlen=30)  # CPU seconds of recent idle seconds
        self.log = tempfile.TemporaryFile()
        env = {**os.environ, "GRADIO_SERVER_PORT": str(port), "GRADIO_ANALYTICS_ENABLED": "False", **(env or {})}
        self.proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=self.log, stderr=subprocess.STDOUT)

    @property
    def idle(self) -> float:
        """CPU seconds per second when nothing happens: the median of the recent idle windows."""
        return statistics.median(self.idle_seconds) if self.idle_seconds else 0.0

    def wait_up(self, timeout: float = 300) -> float:
        t0 = time.monotonic()
        while time.monotonic() - t0 < timeout:
            if self.proc.poll() is not None:
                self.log.seek(0)
                raise RuntimeError(f"{self.name} exited with {self.proc.returncode}:\n{self.log.read()[-2000:].decode()}")
            try:
                with urllib.request.urlopen(self.url + "/", timeout=2) as r:
                    if r.status == 200:
                        return time.monotonic() - t0
            except OSError:
                time.sleep(0.2)
        raise RuntimeError(f"{self.name} did not answer within {timeout:.0f} s")

    def cpu(self) -> float:
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / CLK  # fields 14 and 15: utime, stime

    def memory_mb(self, key: str) -> float:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1]) / 1024
        return float("nan")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def measure_idle(servers: list[Server], seconds: int) -> None:
    """Fill each server's idle estimate with `seconds` one-second windows, all servers at once."""
    last = [s.cpu() for s in servers]
    t = time.monotonic()
    for _ in range(seconds):
        time.sleep(1.0)
        now, t = time.monotonic() - t, time.monotonic()
        for k, s in enumerate(servers):
            c = s.cpu()
            s.idle_seconds.append((c - last[k]) / now)
            last[k] = c


def settle(server: Server, sleep=time.sleep, window: float = 1.0, slack: float = 0.03, timeout: float = 120):
    """Wait until one window costs the server no more than its idle rate (+ slack); return (cpu, time) at its end.
    Each idle window also updates the idle estimate, which drifts with what else runs on the machine."""
    deadline = time.monotonic() + timeout
    c, t = server.cpu(), time.monotonic()
    while True:
        sleep(window)
        c2, t2 = server.cpu(), time.monotonic()
        if c2 - c - server.idle * (t2 - t) <= slack or t2 > deadline:
            server.idle_seconds.append((c2 - c) / (t2 - t))
            return c2, t2
        c, t = c2, t2


def cost(server: Server, start: tuple[float, float], end: tuple[float, float]) -> float:
    """Server CPU seconds between two settled points, less what it burns idle."""
    return end[0] - start[0] - server.idle * (end[1] - start[1])


def get_text(url: str) -> str:
    with urllib.request.urlopen(url, timeout=60) as r:
        return r.read().decode("utf-8")


# -- what the page does ----------------------------------------------------------------------------------------

@dataclass
class Call:
    phase: str
    method: str
    path: str
    body: dict | None = None
    bytes: int = 0  # response body as it travelled (Chromium: transfer size less headers; else decoded size)
    data: int = 0


@dataclass
class Plan:
    """A student's calls: GETs of a page load, then per phase the joins it posts and other GETs it makes."""
    assets: list[str]
    phases: list[tuple[str, list[dict], list[str]]]
    local: float = 0.0  # seconds the browser's own model takes to Translate (--browser-model), added to the heatmap
    shown: str | None = None  # the recorded request JSON (its text the recorded sentence): a student's, its text swapped

    def events(self) -> dict[str, int]:
        return {phase: len(bodies) for phase, bodies, _ in self.phases}


def page_config(html: str) -> dict:
    i = html.index("window.gradio_config =") + len("window.gradio_config =")
    return json.JSONDecoder().raw_decode(html[i:].lstrip())[0]


def builtin_plan(url: str, cfg: dict) -> Plan:
    """The calls the page makes (BUILTIN_*), with payloads built from the page's config as the browser builds them."""
    comps = {c["id"]: c for c in cfg["components"]}
    events = {}
    for i, d in enumerate(cfg["dependencies"]):
        for trigger, event in d["targets"] if d.get("backend_fn") else []:
            elem = comps.get(trigger, {}).get("props", {}).get("elem_id") or ""
            if event == "click" and elem == "ae-server-translate":  # (the server's Translate: #translate's own
                # event is the browser's, local.js, which presses this button where only the server can translate)
                events["translate"] = (i, d, trigger, event)
            elif event == "click" and elem.startswith("ae-run-"):
                events[elem.removeprefix("ae-")] = (i, d, trigger, event)

    def body(name: str, after_translate: bool) -> dict:
        i, d, trigger, event = events[name]
        data = []
        for c in d["inputs"]:
            props = comps[c].get("props", {})
            if props.get("elem_id") == "sentence":
                data.append(SENTENCE)
            elif props.get("elem_id") == "shown":  # the shown request: the default's until Translate answers, then the student's
                data.append(SHOWN if after_translate else props.get("value"))
            else:
                data.append(props.get("value"))
        b = {"data": data, "fn_index": i, "trigger_id": trigger, "session_hash": ""}
        return b if event == "click" else {**b, "event_data": None}

    theme = f"/theme.css?v={cfg.get('theme_hash')}"
    assets = [theme if p == "{theme}" else p for p in BUILTIN_ASSETS.split()]
    phases = [(phase, [body(n, phase not in ("load", "translate")) for n in names], BUILTIN_GETS.get(phase, []))
              for phase, names in BUILTIN_EVENTS]
    return Plan(assets, phases)


def recorded_plan(calls: list[Call], sentence: str) -> Plan:
    """The browser's calls with its sentence (and the request JSON carrying it) turned into placeholders."""
    def placeholder(v):
        if v == sentence:
            return SENTENCE
        if isinstance(v, str) and v.startswith("{"):
            try:
                if json.loads(v).get("text") == sentence:
                    return SHOWN
            except (ValueError, AttributeError):
                pass
        return v

    assets = [c.path for c in calls if c.phase == "load" and c.method == "GET" and not c.path.startswith(STREAM)]
    shown = next((v for c in calls if c.body for v in c.body.get("data", []) if placeholder(v) == SHOWN), None)
    phases: dict[str, tuple[list, list]] = {phase: ([], []) for phase, _ in BUILTIN_EVENTS}  # the page's order
    for c in calls:
        bodies, gets = phases.setdefault(c.phase, ([], []))
        if c.method == "POST" and c.path.startswith(JOIN):
            bodies.append({**c.body, "data": [placeholder(v) for v in c.body["data"]]})
        elif c.method == "GET" and c.phase != "load" and not c.path.startswith(STREAM):
            gets.append(c.path)
    return Plan(assets, [(p, b, g) for p, (b, g) in phases.items()], shown=shown)


def same_calls(a: Plan, b: Plan) -> list[str]:
    """Differences between two plans' events (fn_index, trigger and data per phase); [] when they agree."""
    def norm(v):
        if isinstance(v, float) and v.is_integer():
            return int(v)
        return [norm(x) for x in v] if isinstance(v, list) else v

    def key(plan):
        return {p: sorted(json.dumps([x["fn_index"], x["trigger_id"], norm(x["data"])]) for x in bodies)
                for p, bodies, _ in plan.phases}
    ka, kb = key(a), key(b)
    return [f"{p}: {ka.get(p)} vs {kb.get(p)}" for p in sorted(set(ka) | set(kb)) if ka.get(p, []) != kb.get(p, [])]


# -- the browser -----------------------------------------------------------------------------------------------

class Recorder:
    """Every request of one page to its own server, by phase, with response sizes from Chrome's network log."""

    def __init__(self, ctx, page, origin: str):
        self.origin, self.phase, self.calls, self.headers = origin, "load", {}, {}
        cdp = ctx.new_cdp_session(page)
        cdp.send("Network.enable")
        cdp.on("Network.requestWillBeSent", self._sent)
        cdp.on("Network.responseReceived", self._response)
        cdp.on("Network.dataReceived", self._data)
        cdp.on("Network.loadingFinished", self._finished)

    def _sent(self, e):
        r = e["request"]
        if r["url"].startswith(self.origin) and e["requestId"] not in self.calls:
            body = json.loads(r["postData"]) if r.get("postData") else None
            self.calls[e["requestId"]] = Call(self.phase, r["method"], r["url"][len(self.origin):], body)

    def _response(self, e):
        self.headers[e["requestId"]] = e["response"].get("encodedDataLength", 0)

    def _data(self, e):
        if e["requestId"] in self.calls:
            self.calls[e["requestId"]].data += e["dataLength"]

    def _finished(self, e):
        if e["requestId"] in self.calls:
            self.calls[e["requestId"]].bytes = int(e["encodedDataLength"] - self.headers.get(e["requestId"], 0))

    def worker_finished(self, r) -> None:
        """A request the page's Web Worker made (the browser's model: its scripts and files), which the page's own
        DevTools session does not see; Playwright reports it with its size."""
        if not r.url.startswith(self.origin + MODEL_PREFIX):
            return
        path = r.url[len(self.origin):]
        if not any(c.path == path for c in self.calls.values()):
            self.calls[f"worker {path}"] = Call(self.phase, r.method, path, None, r.sizes()["responseBodySize"])

    def log(self) -> list[Call]:
        for c in self.calls.values():
            c.bytes = c.bytes or c.data  # a stream Chrome did not report finished: its (uncompressed) body
        return list(self.calls.values())


def idle(pg) -> None:
    pg.evaluate("() => { window.__idleSince = undefined; }")
    pg.wait_for_function(IDLE_JS, polling=200, timeout=180_000)


def answered(pg, n: int) -> None:
    """Wait until the page has received the results of n events (counted by TEE_JS)."""
    pg.wait_for_function("(n) => window.__events.completed >= n", arg=n, polling=50, timeout=300_000)


def open_page(browser, url: str, events: int | None = None, model: bool = False):
    """A fresh browser context (empty cache) on the page; waits for the first tab's plot, then for `events`
    answered events, or (None) until no Gradio event has run for 1.5 s; with ``model``, until the browser's model
    and its estimate are loaded too."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    ctx.add_init_script(TEE_JS)
    pg = ctx.new_page()
    rec = Recorder(ctx, pg, url)
    pg.on("requestfinished", rec.worker_finished)
    pg.goto(url + "/", wait_until="domcontentloaded")
    pg.locator(".js-plotly-plot .main-svg").first.wait_for(timeout=180_000)
    if model:
        ready = json.loads((ROOT / "i18n" / "en.json").read_text(encoding="utf-8"))["page.local.ready"]
        try:
            pg.wait_for_function(MODEL_SAID, polling=200, timeout=180_000)
        except Exception as e:
            raise RuntimeError(f"the browser's model said nothing in 180 s: {pg.evaluate(MODEL_SAID)!r}") from e
        said = pg.evaluate(MODEL_SAID)
        if said != ready:  # (a failed model or estimate: Translate is the server's)
            raise RuntimeError(f"the browser's model did not load: {said!r}")
    idle(pg) if events is None else answered(pg, events)
    return ctx, pg, rec


def browser_student(browser, server: Server, sentence: str, plan: Plan | None = None, model: bool = False) -> dict:
    """Load the page, then (measured) Translate, every tab, head and layer switches, as a student clicks them
    (``translated``: the seconds from the click to the new sentence's heatmap).
    Without a plan (the recording) each step waits until the page is idle for 1.5 s; with one, until the
    events the plan expects have been answered, so that the measured window holds little idle time."""
    expect = plan.events() if plan else {}
    ctx, pg, rec = open_page(browser, server.url, expect.get("load") if plan else None, model)
    load_events = pg.evaluate("() => window.__events")
    n = load_events["completed"]

    def step(phase: str) -> None:
        nonlocal n
        if plan is None:
            idle(pg)
        elif expect.get(phase):
            n += expect[phase]
            answered(pg, n)
        else:
            pg.wait_for_timeout(300)

    wait = lambda s: pg.wait_for_timeout(s * 1000)
    start = settle(server, wait)
    t0 = time.perf_counter()
    rec.phase = "translate"
    before = pg.locator("#translation textarea").input_value()
    pg.locator("#sentence textarea").fill(sentence)
    pg.locator("#translate").click()
    pg.wait_for_function("(old) => { const v = document.querySelector('#translation textarea').value; "
                         "return v && v !== old; }", arg=before, timeout=300_000)
    pg.wait_for_function("(s) => (document.querySelector('#heatmap .gtitle') || {}).textContent?.includes(s)",
                         arg=sentence[:15], timeout=300_000)
    translated = time.perf_counter() - t0  # (the new sentence's heatmap drawn)
    step("translate")
    for name in TABS:
        rec.phase = f"tab {name}"
        pg.get_by_role("tab", name=name, exact=True).click()
        step(rec.phase)
    rec.phase = "head/layer"
    switched = 0
    for head, layer in (("head 1", "1"), ("head 3", "0"), ("all heads (mean)", "2")):
        pg.locator("#head input").click()
        pg.get_by_role("option", name=head, exact=True).click()
        pg.locator("#layer input[type=range]").fill(layer)
        pg.wait_for_timeout(200)
        switched += (pg.locator("#head input").input_value() == head) + (
            pg.locator("#layer input[type=number]").input_value() == layer)
    step("head/layer")
    wall = time.perf_counter() - t0
    end = settle(server, wait)
    events = pg.evaluate("() => window.__events")
    ctx.close()
    calls = rec.log()
    return dict(cpu=cost(server, start, end), calls=calls, load_events=load_events, events=events, switched=switched,
                bytes=sum(c.bytes for c in calls if c.phase != "load"), wall=wall, translated=translated,
                idle=server.idle * (end[1] - start[1]), window=end[1] - start[1])


def browser_page_load(browser, server: Server, events: int | None, model: bool = False
                      ) -> tuple[float, float, list[Call]]:
    """(server CPU, idle CPU subtracted from it, the calls) of one fresh page load."""
    start = settle(server)
    ctx, _, rec = open_page(browser, server.url, events, model)
    ctx.close()
    end = settle(server)
    return cost(server, start, end), server.idle * (end[1] - start[1]), rec.log()


# -- students over HTTP ----------------------------------------------------------------------------------------

class Conn:
    """One keep-alive HTTP/1.1 connection, as lean as it can be: httpx costs ~5 ms of CPU a request here, and
    this client shares the cores with the server it measures."""

    def __init__(self, port: int):
        self.port, self.r, self.w = port, None, None

    async def request(self, method: str, path: str, body: bytes = b"", sink=None) -> tuple[int, int, bytes]:
        """(status, body bytes as they travelled, the body unless `sink` took it); one retry on a kept-alive
        connection the server has closed meanwhile (uvicorn closes idle ones after 5 s), as browsers do."""
        head = f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\nAccept-Encoding: {ACCEPT}\r\n"
        if method == "POST":
            head += f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
        for retry in (False, True):
            fresh = self.w is None
            if fresh:
                self.r, self.w = await asyncio.open_connection("127.0.0.1", self.port)
            try:
                self.w.write(head.encode() + b"\r\n" + body)
                await self.w.drain()
                status = await self.r.readline()
                if not status:
                    raise ConnectionResetError("closed by the server")
            except OSError:
                self.close()
                if fresh or retry:
                    raise
                continue
            return await self._response(int(status.split()[1]), sink)
        raise AssertionError("unreachable")

    async def _response(self, status: int, sink) -> tuple[int, int, bytes]:
        length, chunked, close = None, False, False
        while (line := await self.r.readline()) not in (b"\r\n", b""):
            key, _, value = line.decode("latin-1").partition(":")
            key, value = key.strip().lower(), value.strip().lower()
            if key == "content-length":
                length = int(value)
            elif key == "transfer-encoding":
                chunked = "chunked" in value
            elif key == "connection":
                close = value == "close"
        parts: list[bytes] = []
        take = sink or parts.append
        n = 0
        if chunked:
            while size := int((await self.r.readline()).split(b";")[0], 16):
                data = await self.r.readexactly(size)
                await self.r.readexactly(2)
                n += size
                take(data)
            while (await self.r.readline()) not in (b"\r\n", b""):  # trailers
                pass
        elif length is not None:
            data = await self.r.readexactly(length)
            n = length
            take(data)
        else:
            while data := await self.r.read(1 << 16):
                n += len(data)
                take(data)
            close = True
        if close:
            self.close()
        return status, n, b"".join(parts)

    def close(self) -> None:
        if self.w is not None:
            self.w.close()
        self.r = self.w = None


@dataclass
class Student:
    sentence: str
    arrival: float = 0.0  # seconds after the class starts
    session: str = field(default_factory=lambda: "".join(random.choices(string.ascii_lowercase + string.digits, k=11)))
    heatmap: float | None = None  # seconds from arrival until the Translate response (the page draws it at once)
    finished: float | None = None
    bytes: Counter = field(default_factory=Counter)  # per phase ("page" = the page load's GETs)
    static: Counter = field(default_factory=Counter)  # per phase: the part of `bytes` that is static files
    messages: Counter = field(default_factory=Counter)  # stream bytes per message type ("estimation", ...)
    counts: Counter = field(default_factory=Counter)  # stream messages per type
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    shown: str | None = None

    def fill(self, body: dict) -> dict:
        def value(v):
            return self.sentence if v == SENTENCE else self.shown if v == SHOWN else v
        return {**body, "session_hash": self.session, "data": [value(v) for v in body["data"]]}


class Stream:
    """One queue/data stream (server-sent events), read as it arrives: completed events, errors, bytes per event."""

    def __init__(self, ids: dict[str, int], st: Student, phase: str):
        self.ids, self.st, self.phase, self.buf, self.done = ids, st, phase, b"", {}

    def feed(self, data: bytes) -> None:
        self.buf += data
        while b"\n\n" in self.buf:
            block, self.buf = self.buf.split(b"\n\n", 1)
            for line in block.split(b"\n"):
                if line.startswith(b"data:"):
                    self.message(json.loads(line[5:]), len(block) + 2)

    def message(self, m: dict, size: int) -> None:
        st, fn = self.st, self.ids.get(m.get("event_id"))
        st.messages[m["msg"]] += size
        st.counts[m["msg"]] += 1
        if m["msg"] == "process_completed" and fn is not None:
            self.done[fn] = m
            if not m.get("success"):
                st.errors.append(f"{self.phase}: fn {fn}: {(m.get('output') or {}).get('error')}")
        elif m["msg"] == "log" and m.get("level") in ("warning", "error"):
            st.warnings.append(str(m.get("log")))
        elif m["msg"] in ("unexpected_error", "server_stopped", "queue_full"):
            st.errors.append(f"{self.phase}: {m['msg']}: {m.get('message')}")


class Page:
    """One student's page: six connections to the server, as a browser has."""

    def __init__(self, port: int, st: Student):
        self.conns, self.st = [Conn(port) for _ in range(6)], st

    async def get(self, conn: Conn, path: str, phase: str) -> None:
        status, n, _ = await conn.request("GET", path, sink=lambda _: None)
        self.st.bytes[phase] += n
        self.st.static[phase] += n
        if status != 200:
            self.st.errors.append(f"{phase}: GET {path.split('?')[0]} -> HTTP {status}")

    async def get_all(self, paths: list[str], phase: str) -> None:
        queue = list(reversed(paths))

        async def worker(conn: Conn) -> None:
            while queue:
                await self.get(conn, queue.pop(), phase)

        await asyncio.gather(*(worker(c) for c in self.conns[: max(1, min(6, len(paths)))]))

    async def load(self, assets: list[str]) -> None:
        await self.get(self.conns[0], assets[0], "page")  # the HTML first, then what it asks for, six at a time
        await self.get_all(assets[1:], "page")

    async def events(self, bodies: list[dict], phase: str) -> dict[int, dict]:
        """Post the joins, then read the session's stream until Gradio closes it; completed messages by fn_index."""
        st, ids = self.st, {}
        for body in bodies:
            status, n, answer = await self.conns[0].request("POST", JOIN + "?", json.dumps(body).encode())
            st.bytes[phase] += n
            event_id = json.loads(answer).get("event_id") if status == 200 else None
            if event_id is None:
                st.errors.append(f"{phase}: join fn {body['fn_index']} -> HTTP {status} {answer[:80]!r}")
            else:
                ids[event_id] = body["fn_index"]
        if not ids:
            return {}
        stream = Stream(ids, st, phase)
        status, n, _ = await self.conns[1].request("GET", f"{STREAM}?session_hash={st.session}", sink=stream.feed)
        st.bytes[phase] += n
        if status != 200:
            st.errors.append(f"{phase}: stream -> HTTP {status}")
        for fn in set(ids.values()) - set(stream.done):
            st.errors.append(f"{phase}: fn {fn}: the stream closed before it completed")
        return stream.done

    async def phase(self, phase: str, bodies: list[dict], gets: list[str]) -> None:
        st = self.st
        if gets:
            await self.get_all(gets, phase)
        done = await self.events([st.fill(b) for b in bodies], phase)
        if phase == "translate":
            for m in done.values():
                for v in (m.get("output") or {}).get("data") or []:
                    if isinstance(v, str) and v.startswith("{") and f'"text": {json.dumps(st.sentence)}' in v:
                        st.shown = v  # the request JSON the page keeps and sends with every tab
            if st.shown is None:  # Translate failed: the tabs still send what the page would, the request as typed
                st.shown = json.dumps({"text": st.sentence})

    def close(self) -> None:
        for c in self.conns:
            c.close()


async def student(port: int, plan: Plan, st: Student, t0: float, timeout: float = 600) -> None:
    await asyncio.sleep(max(0.0, t0 + st.arrival - time.perf_counter()))
    start = time.perf_counter()
    page, phase = Page(port, st), ["page"]
    if plan.shown and st.shown is None:  # (the browser's Translate sends no request: the page keeps one, as recorded)
        st.shown = json.dumps({**json.loads(plan.shown), "text": st.sentence}, sort_keys=True)

    async def visit():
        await page.load(plan.assets)
        for phase[0], bodies, gets in plan.phases:
            await page.phase(phase[0], bodies, gets)
            # (a page whose model files were refused, a 503 from the downloads' bound, would Translate on the server:
            # not replayed, so it has no first heatmap here and the p95 is not claimed)
            failed = [e for e in st.errors if e.startswith("translate:") or (plan.local and MODEL_PREFIX in e)]
            if phase[0] == "translate" and not failed:
                st.heatmap = time.perf_counter() - start + plan.local

    try:
        await asyncio.wait_for(visit(), timeout)
    except Exception as e:  # counted: the figure is the error count
        st.errors.append(f"{phase[0]}: {type(e).__name__}: {str(e)[:80]}")
    finally:
        page.close()
    st.finished = time.perf_counter() - start


def run_class(server: Server, plan: Plan, students: list[Student]) -> dict:
    peak = [server.memory_mb("VmRSS")]
    stop = threading.Event()

    def sample():
        while not stop.wait(0.2):
            peak[0] = max(peak[0], server.memory_mb("VmRSS"))

    sampler = threading.Thread(target=sample, daemon=True)
    start = settle(server)
    client_cpu = time.process_time()
    sampler.start()

    async def everyone():
        t0 = time.perf_counter()
        await asyncio.gather(*(student(server.port, plan, st, t0) for st in students))

    t0 = time.perf_counter()
    asyncio.run(everyone())
    wall = time.perf_counter() - t0
    client_cpu = time.process_time() - client_cpu
    end = settle(server)
    stop.set()
    sampler.join()
    return dict(cpu=cost(server, start, end), wall=wall, client_cpu=client_cpu, peak_rss=peak[0],
                hwm=server.memory_mb("VmHWM"), load=os.getloadavg()[0], idle=server.idle)


def one_by_one(server: Server, bare: Server, plan: Plan, bare_assets: list[str], sentences: list[str],
               warm: str, loads: int, batch: int = 4) -> dict:
    """Students one at a time with the server idle around each measured window: CPU, bytes and time per phase.
    A window holds several of the same step back to back (`batch` page loads of fresh students, or one phase of
    every student), so that the error of the idle rate times the window's length is shared among them.
    Page loads of the app (its GETs, then its events on load) and of the bare page alternate `loads` times.
    One unmeasured student goes first (`warm`), so that first-call costs (caches, lazy imports) stay out."""
    out = {k: defaultdict(list) for k in ("cpu", "bytes", "static", "wall")}
    errors: Counter = Counter()

    def measured(srv: Server | None, key: str, pages: list[Page], work) -> None:
        async def run():
            for page in pages:
                try:
                    await work(page)
                finally:
                    page.close()  # its connections belong to this event loop
        start = settle(srv) if srv else None
        t0 = time.perf_counter()
        asyncio.run(run())
        if srv is None:  # the warm-up
            return
        out["wall"][key].append((time.perf_counter() - t0) / len(pages))
        out["cpu"][key].append(cost(srv, start, settle(srv)) / len(pages))
        for st in (page.st for page in pages):
            out["bytes"][key].append(sum(st.bytes.values()))
            out["static"][key].append(sum(st.static.values()))
            errors.update(st.errors)
            st.bytes.clear()
            st.static.clear()
            st.errors.clear()

    async def visit(page: Page) -> None:
        await page.load(plan.assets)
        for phase, bodies, gets in plan.phases:
            await page.phase(phase, bodies, gets)

    measured(None, "", [Page(server.port, Student(warm))], visit)
    measured(None, "", [Page(bare.port, Student(warm))], lambda page: page.load(bare_assets))
    on_load = [(phase, b, g) for phase, b, g in plan.phases if phase == "load" and (b or g)]
    for _ in range(loads):
        pages = [Page(server.port, Student(warm)) for _ in range(batch)]
        measured(server, "page (GETs)", pages, lambda page: page.load(plan.assets))
        for phase, bodies, gets in on_load:
            measured(server, phase, pages, lambda page: page.phase(phase, bodies, gets))
        measured(bare, "bare page (GETs)", [Page(bare.port, Student(warm)) for _ in range(batch)],
                 lambda page: page.load(bare_assets))
    pages = [Page(server.port, Student(s)) for s in sentences]
    for phase, bodies, gets in plan.phases:
        if phase != "load" and (bodies or gets):
            measured(server, phase, pages, lambda page: page.phase(phase, bodies, gets))
    return dict(out, errors=errors, batch=batch, students=len(sentences))


# -- sentences -------------------------------------------------------------------------------------------------

def builtin_sentences() -> list[str]:
    who = ["A young man", "An old woman", "A little girl", "A tall boy", "A woman in glasses", "A man with a beard"]
    wearing = ["in a red jacket", "in a blue shirt", "wearing a green hat", "in a yellow dress", "in black boots"]
    doing = ["is riding a bicycle down the busy street", "is playing the guitar on a wooden bench",
             "is walking a small brown dog along the beach"]
    while_ = ["while two children watch from the corner.", "while it starts to rain.",
              "as a crowd of people walks past."]
    out = [f"{a} {b} {c} {d}" for a, b, c, d in product(who, wearing, doing, while_)]
    random.Random(0).shuffle(out)
    return [s for s in out if 15 <= len(s.split()) <= 19]


def load_sentences(path: Path | None) -> tuple[list[str], str]:
    """Sentences of 15-19 words, closest to 17 first (Multi30k val, a file, or a built-in list)."""
    path = path or DATA / "val.en.gz"
    if path.is_file():
        opener = gzip.open if path.suffix == ".gz" else open
        with opener(path, "rt", encoding="utf-8") as f:
            lines = list(dict.fromkeys(line.strip() for line in f if line.strip()))
        where = str(path)
    else:
        lines, where = builtin_sentences(), "built-in list"
    pool = [s for s in lines if 15 <= len(s.split()) <= 19] or lines
    return sorted(pool, key=lambda s: abs(len(s.split()) - 17)), where


# -- report ----------------------------------------------------------------------------------------------------

def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))] if xs else float("nan")


def med(xs) -> float:
    return statistics.median(xs) if xs else float("nan")


def short(v) -> str:
    s = json.dumps(v, ensure_ascii=False)
    return s if len(s) <= 40 else s[:37] + '..."'


def print_log(calls: list[Call], fn_names: dict[int, str]) -> None:
    print("\nThe page's HTTP calls (one Chromium session, Chrome's network log; bytes = response body as it travelled):")
    by_phase: dict[str, list[Call]] = defaultdict(list)
    for c in calls:
        by_phase[c.phase].append(c)
    for phase in list(dict.fromkeys([p for p, _ in BUILTIN_EVENTS] + list(by_phase))):
        cs = by_phase.get(phase, [])
        gets = [c for c in cs if c.method == "GET" and not c.path.startswith(STREAM)]
        streams = [c for c in cs if c.path.startswith(STREAM)]
        joins = [c for c in cs if c.method == "POST" and c.path.startswith(JOIN)]
        other = [c for c in cs if c not in gets + streams + joins]
        print(f"  {phase:26s} {len(cs):3d} calls, {sum(c.bytes for c in cs) / 1e3:8.1f} kB"
              + ("  (no server call)" if not cs else ""))
        if len(gets) > 3:
            big = max(gets, key=lambda c: c.bytes)
            html = next((c.bytes for c in gets if c.path == "/"), 0)
            print(f"    {len(gets)} GETs of static files, {sum(c.bytes for c in gets) / 1e3:.1f} kB (GET / {html / 1e3:.1f} "
                  f"kB, largest {big.path} {big.bytes / 1e3:.1f} kB)")
        else:
            for c in gets:
                print(f"    GET {c.path}  {c.bytes / 1e3:.1f} kB")
        for c in joins:
            b = c.body
            print(f"    POST {JOIN}  fn_index {b['fn_index']} ({fn_names.get(b['fn_index'], '?')}), trigger "
                  f"{b.get('trigger_id')}, data [{', '.join(short(v) for v in b['data'])}], answer {c.bytes} B")
        for c in streams:
            print(f"    GET {STREAM}?session_hash=...  {c.bytes / 1e3:.1f} kB (the events' messages and results)")
        for c in other:
            print(f"    {c.method} {c.path[:80]}  {c.bytes} B")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--clients", type=int, default=60)
    p.add_argument("--spread", type=float, default=10.0, help="students arrive evenly within this many seconds")
    p.add_argument("--port", type=int, default=7960, help="the app's port; the bare page gets the next one")
    p.add_argument("--no-browser", action="store_true", help="skip Chromium: use the built-in description of the calls")
    p.add_argument("--sentences-file", type=Path, help="one English sentence a line (.gz or text)")
    p.add_argument("--loads", type=int, default=5, help="page loads of each page (app, bare), browser and HTTP")
    p.add_argument("--browser-students", type=int, default=3, help="measured browser sessions (after a recorded one)")
    p.add_argument("--one-by-one", type=int, default=5, help="students replayed one phase at a time over HTTP")
    p.add_argument("--browser-model", action="store_true",
                   help="the app with ATTENTION_EXPLORER_BROWSER_MODEL=1: Translate runs in each browser (issue 51)")
    p.add_argument("--cached", action="store_true",
                   help="with --browser-model: the class's pages have the model's files in their cache (a later visit)")
    args = p.parse_args()
    if args.browser_model and (args.no_browser or args.browser_students < 1):
        p.error("--browser-model records the page's calls and the browser's Translate time in Chromium: it needs "
                "the browser and --browser-students of at least 1")
    if args.cached and not args.browser_model:
        p.error("--cached is a later visit's cache of the browser's model: it needs --browser-model")
    random.seed(1)

    sentences, where = load_sentences(args.sentences_file)
    seventeen = [s for s in sentences if len(s.split()) == 17] or sentences
    n_browser = 0 if args.no_browser else args.browser_students + 1
    browser_sents = seventeen[:n_browser]
    single_sents = [s for s in seventeen if s not in browser_sents][: args.one_by_one]
    rest = [s for s in sentences if s not in browser_sents + single_sents] or sentences
    warm = rest.pop() if len(rest) > 1 else rest[0]  # the one-at-a-time replay's unmeasured warm-up
    class_sents = [rest[i % len(rest)] for i in range(args.clients)]  # repeats only if there are too few

    bare_file = Path(tempfile.mkdtemp()) / "bare_page.py"
    bare_file.write_text(BARE)
    app = Server("app.py", [sys.executable, "app.py"], args.port,
                 {"ATTENTION_EXPLORER_BROWSER_MODEL": "1" if args.browser_model else "0"})
    bare = Server("bare page", [sys.executable, str(bare_file)], args.port + 1)
    res: dict = {}
    try:
        up = app.wait_up(), bare.wait_up()
        time.sleep(3)
        measure_idle([app, bare], 10)
        print(f"Servers: python app.py at {app.url} (up in {up[0]:.1f} s), a bare Gradio page of the same layout at "
              f"{bare.url}; {os.cpu_count()} CPU cores shared with this client; idle rates {app.idle * 1e3:.0f} and "
              f"{bare.idle * 1e3:.0f} ms/s (subtracted below); machine load average {os.getloadavg()[0]:.1f}")
        print(f"Sentences: {where}, {len(sentences)} of 15-19 words; the class has {len(set(class_sents))} distinct, "
              f"median {med([len(s.split()) for s in class_sents]):.0f} words; browser and one-at-a-time: 17 words")
        cfg = page_config(get_text(app.url + "/"))
        fn_names = {i: d.get("api_name") for i, d in enumerate(cfg["dependencies"])}
        builtin = builtin_plan(app.url, cfg)

        if not args.no_browser:
            from playwright.sync_api import sync_playwright
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROME_ARGS)
                model = args.browser_model
                first = browser_student(browser, app, browser_sents[0], model=model)  # recorded; warms the server up
                plan = recorded_plan(first["calls"], browser_sents[0])
                print_log(first["calls"], fn_names)
                print(f"  head/layer: {first['switched']} of 6 switches took effect in the page (its heatmap is redrawn "
                      f"by views.js), with {sum(1 for c in first['calls'] if c.phase == 'head/layer')} server calls")
                failed = Counter(first["load_events"]["failed"])
                print(f"  events answered on load: {first['load_events']['completed']}, failed: "
                      + (", ".join(f"{k} x {m!r}" for m, k in failed.items()) or "0"))
                print(f"  events answered after load: {first['events']['completed'] - first['load_events']['completed']}"
                      f", failed: {len(first['events']['failed']) - len(first['load_events']['failed'])}")
                diff = same_calls(plan, builtin)
                print("  the built-in description (--no-browser) " + ("matches this log" if not diff else
                      "DIFFERS from this log: " + "; ".join(diff)))
                expect = plan.events()["load"]
                browser_page_load(browser, bare, 0)  # warms the bare server up (and Chromium's own start-up)
                loads: dict[str, list[float]] = {"app": [], "bare": [], "idle": []}
                load_bytes: dict[str, list[int]] = {"app": [], "bare": []}
                bare_calls: list[Call] = []
                for _ in range(args.loads):
                    for name, srv, n in (("app", app, expect), ("bare", bare, 0)):
                        c, idle_cpu, calls = browser_page_load(browser, srv, n, model and srv is app)
                        loads[name].append(c)
                        loads["idle"].append(idle_cpu)
                        load_bytes[name].append(sum(x.bytes for x in calls))
                        bare_calls = calls if name == "bare" else bare_calls
                bare_assets = [c.path for c in bare_calls if c.method == "GET" and not c.path.startswith(STREAM)]
                sessions = [browser_student(browser, app, s, plan, model) for s in browser_sents[1:]]
                browser.close()
            if model:
                files = [a for a in plan.assets if a.startswith(MODEL_PREFIX)]
                plan.local = med([s["translated"] for s in sessions])
                print(f"  the browser's model: {len(files)} files in the page load "
                      f"({sum(c.bytes for c in first['calls'] if c.path in files) / MB:.1f} MB); Translate in the "
                      f"browser {[round(s['translated'], 2) for s in sessions]} s (median {plan.local:.2f} s, added to "
                      f"each student's first heatmap below)")
                # (a later visit: the files named by their SHA-256 come from the browser's cache; the small ones are
                # replayed as a first visit's, full answers where a browser would get 304s: the server's cost an upper
                # bound; the browser page loads above are first visits either way)
                if args.cached:
                    plan.assets = [a for a in plan.assets if not (a.startswith(MODEL_PREFIX) and "?v=" in a)]
            res["browser"] = dict(loads=loads, load_bytes=load_bytes, sessions=sessions,
                                  load_calls=(sum(1 for c in first["calls"] if c.phase == "load"), len(bare_calls)))
        else:
            plan = builtin
            missing = []
            for a in plan.assets:
                try:
                    urllib.request.urlopen(app.url + a, timeout=30).close()
                except OSError:
                    missing.append(a)
            if missing:
                print(f"warning: {len(missing)} of the built-in asset paths are missing on this Gradio "
                      f"(run with the browser to record them): {missing[:3]}")
                plan.assets = [a for a in plan.assets if a not in missing]
            bare_assets = plan.assets  # the same components: the same files, with the bare page's HTML

        print(f"\nOne student at a time over HTTP ({len(single_sents)} students)...", flush=True)
        res["single"] = one_by_one(app, bare, plan, bare_assets, single_sents, warm, args.loads)
        print(f"The class: {args.clients} students arriving within {args.spread:g} s...", flush=True)
        students = [Student(s, i * args.spread / args.clients) for i, s in enumerate(class_sents)]
        res["class"] = run_class(app, plan, students)
    finally:
        app.stop()
        bare.stop()
    report(args, plan, res, students, fn_names)


def report(args, plan: Plan, res: dict, students: list[Student], fn_names: dict) -> None:
    work = [p for p, b, g in plan.phases if p != "load" and (b or g)]
    single, cls = res["single"], res["class"]
    cpu, byt, static, wall = single["cpu"], single["bytes"], single["static"], single["wall"]
    print(f"\nOne student at a time over HTTP: server CPU (idle-subtracted), bytes and time per phase. Page loads: "
          f"medians of {len(cpu['page (GETs)'])} windows of {single['batch']} fresh loads (alternating with the bare "
          f"page); phases: CPU and time the mean of {single['students']} students in one window, bytes the median")
    print(f"  {'phase':26s} {'CPU':>7s} {'bytes':>10s} {'static':>9s} {'time':>7s}  events (fn_index)")
    for key in ["page (GETs)", "bare page (GETs)", "load"] + work:
        if key in cpu:
            fns = [b["fn_index"] for p, bodies, _ in plan.phases if p == key for b in bodies]
            print(f"  {key:26s} {med(cpu[key]) * 1e3:4.0f} ms {med(byt[key]) / 1e3:7.1f} kB {med(static[key]) / 1e3:6.1f} kB "
                  f"{med(wall[key]):5.2f} s  " + ", ".join(f"{f} {fn_names.get(f)}" for f in fns))
    print("  (static: the part of the bytes that is static files; the rest is join answers and the event stream)")
    print("  errors: " + (", ".join(f"{k} x {m[:70]}" for m, k in single["errors"].items()) or "0"))
    replay_cpu = sum(med(cpu[p]) for p in work)
    replay_bytes = med([sum(v) for v in zip(*(byt[p] for p in work))])
    app_page = med(cpu["page (GETs)"]) + med(cpu.get("load", [0.0]))
    replay_page = app_page - med(cpu["bare page (GETs)"])

    n, cores = len(students), os.cpu_count() or 1
    errors = [e for st in students for e in st.errors]
    firsts = [st.heatmap for st in students if st.heatmap is not None]
    finished = [st.finished for st in students if st.finished is not None]
    work_bytes = [sum(st.bytes[p] for p in work) for st in students]
    work17 = [w for w, st in zip(work_bytes, students) if len(st.sentence.split()) == 17]
    print(f"\nThe class: {n} students, arrivals evenly over {args.spread:g} s, wall time {cls['wall']:.1f} s, "
          f"machine load average after it {cls['load']:.1f}")
    print(f"  errors: {len(errors)} in {sum(1 for st in students if st.errors)} students")
    for msg, k in Counter(errors).most_common(8):
        print(f"    {k:4d} x {msg[:120]}")
    warnings = Counter(w for st in students for w in st.warnings)
    if warnings:
        print(f"  warnings shown: {sum(warnings.values())} ({', '.join(f'{k} x {m[:50]}' for m, k in warnings.items())})")
    print(f"  time from arrival to the first heatmap (page load + Translate): p50 {med(firsts):.2f} s, "
          f"p95 {pct(firsts, 0.95):.2f} s, max {max(firsts, default=float('nan')):.2f} s ({len(firsts)} of {n} students)")
    print(f"  time from arrival until every tab is shown: p50 {med(finished):.2f} s, p95 {pct(finished, 0.95):.2f} s")
    print(f"  bytes per student: {med([sum(st.bytes.values()) for st in students]) / MB:.2f} MB in all (page load "
          f"{med([st.bytes['page'] for st in students]) / MB:.2f} MB); Translate + tabs p50 {med(work_bytes) / MB:.3f} "
          f"MB, max {max(work_bytes) / MB:.3f} MB" + (f"; 17-word sentences p50 {med(work17) / MB:.3f} MB "
                                                       f"(n={len(work17)})" if work17 else ""))
    kinds = sorted({k for st in students for k in st.counts}, key=lambda k: -med([st.messages[k] for st in students]))
    print("  event-stream messages per student, medians: " + ", ".join(
        f"{k} {med([st.counts[k] for st in students]):.0f} ({med([st.messages[k] for st in students]) / 1e3:.1f} kB)"
        for k in kinds))
    per = cls["cpu"] / n
    print(f"  server CPU per student, everything (idle rate {cls['idle'] * 1e3:.0f} ms/s subtracted): {per:.3f} s; "
          f"less a page load one at a time ({app_page:.3f} s): {per - app_page:.3f} s")
    print(f"  the class's server work: {cls['cpu']:.0f} s of CPU, at least {cls['cpu'] / cores:.0f} s on {cores} cores "
          f"for students who all arrived within {args.spread:g} s (Gradio's queue is first come, first served)")
    print(f"  server memory: peak VmRSS {cls['peak_rss']:.0f} MB (sampled every 0.2 s), VmHWM {cls['hwm']:.0f} MB; "
          f"this client's own CPU {cls['client_cpu']:.1f} s, on the same cores")

    rows = []
    b = res.get("browser")
    if b:
        loads, sessions = b["loads"], b["sessions"]
        extra = med(loads["app"]) - med(loads["bare"])
        print(f"\nBrowser (Chromium, a fresh context each time): a page load costs the server {med(loads['app']):.3f} s "
              f"(app) vs {med(loads['bare']):.3f} s (bare page), medians of {len(loads['app'])} alternating: app "
              f"{[round(x, 3) for x in loads['app']]}, bare {[round(x, 3) for x in loads['bare']]} (idle CPU "
              f"subtracted from each: ~{med(loads['idle']):.2f} s); {med(b['load_bytes']['app']) / MB:.2f} MB in "
              f"{b['load_calls'][0]} calls vs {med(b['load_bytes']['bare']) / MB:.2f} MB in {b['load_calls'][1]}")
        b_cpu, b_bytes = med([s["cpu"] for s in sessions]), med([s["bytes"] for s in sessions])
        print(f"Browser: Translate + every tab + head/layer switches, 17-word sentences: server CPU "
              f"{[round(s['cpu'], 3) for s in sessions]} s (idle CPU subtracted: {[round(s['idle'], 2) for s in sessions]}"
              f" s over windows of {[round(s['window'], 1) for s in sessions]} s: the browser figure is the noisier one), "
              f"bytes {[round(s['bytes'] / MB, 3) for s in sessions]} MB; failed events "
              f"{[len(s['events']['failed']) - len(s['load_events']['failed']) for s in sessions]}")
        rows += [("CPU per student, Translate + every tab (browser, median)", f"{b_cpu:.3f} s", "cpu", b_cpu),
                 ("page load: app minus bare page (browser, medians)", f"{extra:+.3f} s", "page", extra),
                 ("bytes, Translate + tabs, 17-word sentence (browser, median)", f"{b_bytes / MB:.4f} MB", "bytes",
                  b_bytes / MB)]
    rows += [("CPU per student, Translate + every tab (HTTP, one at a time)", f"{replay_cpu:.3f} s", "cpu", replay_cpu),
             ("page load: app minus bare page (HTTP, one at a time)", f"{replay_page:+.3f} s", "page", replay_page),
             ("bytes, Translate + tabs, 17-word sentence (HTTP, median)", f"{replay_bytes / MB:.4f} MB", "bytes",
              replay_bytes / MB)]
    if work17:
        rows.append((f"bytes, Translate + tabs, 17-word sentences (class, n={len(work17)})", f"{med(work17) / MB:.4f} MB",
                     "bytes", med(work17) / MB))
    rows += [(f"{n} students: errors", f"{len(errors)}", "errors", len(errors)),
             (f"{n} students: p95 time to first heatmap", f"{pct(firsts, 0.95):.2f} s",
              "p95 model" if args.browser_model else "p95", pct(firsts, 0.95) if len(firsts) == n else float("inf"))]
    if args.browser_model:
        rows.append((f"{n} students: server CPU a student, everything", f"{per:.3f} s", "student", per))
    print("\nGoals")
    print(f"  {'figure':62s} {'measured':>10s}  {'goal':>9s}  result")
    for label, shown, goal, value in rows:
        limit, unit = GOALS[goal]
        print(f"  {label:62s} {shown:>10s}  <= {limit:g} {unit:2s}  {'PASS' if value <= limit else 'FAIL'}")


if __name__ == "__main__":
    main()
