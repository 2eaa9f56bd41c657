"""Benchmark: the explorer as a user meets it, through its HTTP API in a separate server process.

    python bench/app_server.py [--requests 40] [--clients 16] [--per-client 10]

Prints, from one run: start-up time of `python app.py` to the first HTTP 200 against a bare Gradio
hello-world; p50/p95 of one analysis request (analyze + the first tab's figures) for 15-word
sentences; resident memory after 100 mixed requests; and a load test of concurrent clients.
"""

from __future__ import annotations

import argparse
import gzip
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from training.data import DEFAULT_DATA_DIR  # noqa: E402

HELLO = """import gradio as gr
with gr.Blocks() as demo:
    t = gr.Textbox()
    gr.Button().click(lambda s: s, t, t, api_name="echo")
demo.queue().launch()
"""
DEC = ["greedy", 4, 0.6, 1.0, 0, 1.0, 0, 60, "en-de"]


def sentences(n_words: int = 15) -> list[str]:
    with gzip.open(DEFAULT_DATA_DIR / "test_2016_flickr.en.gz", "rt", encoding="utf-8") as f:
        return [line.strip() for line in f if len(line.split()) == n_words]


def start(cmd: list[str], port: int) -> tuple[subprocess.Popen, float]:
    env = {**os.environ, "GRADIO_SERVER_PORT": str(port), "GRADIO_ANALYTICS_ENABLED": "False"}
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/"
    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"{cmd} exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=1) as r:
                if r.status == 200:
                    return proc, time.perf_counter() - t0
        except OSError:
            time.sleep(0.05)


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--requests", type=int, default=40)
    p.add_argument("--clients", type=int, default=16)
    p.add_argument("--per-client", type=int, default=10)
    p.add_argument("--startups", type=int, default=3)
    args = p.parse_args()
    from gradio_client import Client

    # -- start-up: ours vs a bare hello-world, alternating ----------------------------------------------
    hello = Path(tempfile.mkdtemp()) / "hello.py"
    hello.write_text(HELLO)
    ours_t, bare_t = [], []
    for i in range(args.startups):
        for cmd, store in (([sys.executable, "app.py"], ours_t), ([sys.executable, str(hello)], bare_t)):
            proc, secs = start(cmd, 7900 + i)
            store.append(secs)
            proc.terminate()
            proc.wait()
    print(f"start-up to first HTTP 200: app.py {statistics.median(ours_t):.2f} s, bare Gradio "
          f"{statistics.median(bare_t):.2f} s, ratio {statistics.median(ours_t) / statistics.median(bare_t):.2f}x "
          f"(medians of {args.startups})")

    proc, _ = start([sys.executable, "app.py"], 7950)
    try:
        url = "http://127.0.0.1:7950/"
        client = Client(url, verbose=False)
        texts = sentences()
        # warm-up: the first request of a process pays for lazy imports
        view = ["Cross-attention", 2, "all heads (mean)"]
        client.predict(texts[0], *DEC, *view, api_name="/analyze")
        # -- one analysis request: the first tab in one call, fresh sentences (no cache hits) ---------
        lat, lat_bv = [], []
        for text in texts[1 : 1 + args.requests]:
            t0 = time.perf_counter()
            client.predict(text, *DEC, *view, api_name="/analyze")
            lat.append(time.perf_counter() - t0)
            client.predict(text, *DEC, api_name="/bertviz")
            lat_bv.append(time.perf_counter() - t0)
        print(f"analysis request /analyze (decode + capture + translation, heatmap, model view, head statistics), "
              f"15-word sentences, n={len(lat)}: p50 {statistics.median(lat) * 1e3:.0f} ms, "
              f"p95 {pct(lat, 0.95) * 1e3:.0f} ms; with the 2 bertviz pages (opened panel): "
              f"p50 {statistics.median(lat_bv) * 1e3:.0f} ms, p95 {pct(lat_bv, 0.95) * 1e3:.0f} ms")
        single = []
        for text in texts[:20]:
            t0 = time.perf_counter()
            client.predict(text, api_name="/translate")
            single.append(time.perf_counter() - t0)
        p50_single = statistics.median(single)
        # -- memory after 100 mixed requests --------------------------------------------------------
        modes = [("greedy", 4), ("beam", 5), ("sample", 4)]
        for i in range(100):
            text = texts[i % len(texts)]
            m, k = modes[i % 3]
            if i % 4 == 0:
                client.predict(text, m, k, 0.6, 1.0, 0, 1.0, i, 60, "en-de", ["cross L0 H1"], api_name="/ablate")
            elif i % 4 == 1:
                client.predict(text, m, k, 0.6, 1.0, 0, 1.0, i, 60, "en-de", "Encoder self-attention", 0, "head 0",
                               api_name="/attention")
            else:
                client.predict(text, m, k, 0.6, 1.0, 0, 1.0, i, 60, "en-de", *view, api_name="/analyze")
        print(f"resident memory of the server after 100 mixed requests: {rss_mb(proc.pid):.0f} MB")
        # -- load: concurrent clients ---------------------------------------------------------------
        errors, times = [], []
        lock = threading.Lock()

        def worker(c: int) -> None:
            cl = Client(url, verbose=False)
            for r in range(args.per_client):
                text = texts[(c * args.per_client + r) % len(texts)]
                t0 = time.perf_counter()
                try:
                    cl.predict(text, api_name="/translate")
                    with lock:
                        times.append(time.perf_counter() - t0)
                except Exception as e:  # counted, not raised: the figure is the error count
                    with lock:
                        errors.append(repr(e)[:80])

        t0 = time.perf_counter()
        threads = [threading.Thread(target=worker, args=(c,)) for c in range(args.clients)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wall = time.perf_counter() - t0
        total = args.clients * args.per_client
        print(f"load: {args.clients} clients x {args.per_client} /translate requests: {len(errors)} errors, "
              f"p50 {statistics.median(times) * 1e3:.0f} ms, p95 {pct(times, 0.95) * 1e3:.0f} ms "
              f"({pct(times, 0.95) / p50_single:.1f}x the single-client p50 of {p50_single * 1e3:.0f} ms), "
              f"throughput {total / wall:.1f} requests/s")
        if errors:
            print("first errors:", errors[:3])
    finally:
        proc.terminate()
        proc.wait()


if __name__ == "__main__":
    main()
