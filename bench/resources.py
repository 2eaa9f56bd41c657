"""Benchmark: memory and disk of a running `python app.py` under many distinct worst-case requests.

    python bench/resources.py [--requests 1000] [--clients 4] [--exports 100]

Each request is new to the server (its own seed) and as large as the limits allow: sampling at
temperature 5 runs to the 100-token limit, then the bertviz views (both pages) and /analyze are
asked for, each as a plain HTTP call (so each is a new Gradio session, the worst case for the
per-session values Gradio keeps). Prints the server's resident memory (VmRSS, and the peak VmHWM)
every 100 requests, and the size of the temp folders before and after --exports export calls.
Goals: RSS <= 800 MB after 1,000 requests; temp folders flat after 100 exports.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
TEXT = "A dog is running in the snow."


def start(port: int, temp: Path) -> subprocess.Popen:
    try:
        urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=1)
        raise SystemExit(f"port {port} is taken by another server: choose another with --port")
    except OSError:
        pass
    env = {**os.environ, "GRADIO_SERVER_PORT": str(port), "GRADIO_ANALYTICS_ENABLED": "False",
           "GRADIO_TEMP_DIR": str(temp), "ATTENTION_EXPLORER_EXPORT_TTL": "5"}
    proc = subprocess.Popen([sys.executable, "app.py"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    for _ in range(600):
        if proc.poll() is not None:
            raise RuntimeError(f"app.py exited: {proc.stderr.read()[-2000:]}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=1):
                return proc
        except OSError:
            time.sleep(0.1)
    raise RuntimeError("app.py did not start")


def memory(pid: int) -> dict[str, float]:
    out = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(("VmRSS", "VmHWM")):
            out[line.split(":")[0]] = int(line.split()[1]) / 1024
    return out


def call(url: str, name: str, data: list) -> tuple[str, int]:
    """A plain HTTP call (new session each time): -> (final SSE event, bytes received)."""
    r = httpx.post(f"{url}gradio_api/call/{name}", json={"data": data}, timeout=120)
    r.raise_for_status()
    event, size = "", 0
    with httpx.stream("GET", f"{url}gradio_api/call/{name}/{r.json()['event_id']}", timeout=300) as s:
        for line in s.iter_lines():
            size += len(line) + 1
            if line.startswith("event:"):
                event = line.split(":", 1)[1].strip()
                if event in ("complete", "error"):
                    pass
            if line.startswith("data:") and event in ("complete", "error"):
                break
    return event, size


def folder_size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--requests", type=int, default=1000)
    ap.add_argument("--clients", type=int, default=4)
    ap.add_argument("--exports", type=int, default=100)
    ap.add_argument("--port", type=int, default=7871)
    args = ap.parse_args()
    temp = Path(tempfile.mkdtemp(prefix="ae-bench-"))
    proc = start(args.port, temp)
    url = f"http://127.0.0.1:{args.port}/"
    try:
        print(f"after start-up: {memory(proc.pid)}")
        worst = lambda i: [TEXT, "sample", 4, 0.6, 5.0, 0, 1.0, i, 100, "en-de"]  # noqa: E731

        def one(i: int) -> tuple[int, str, int]:
            e1, b1 = call(url, "bertviz", worst(i))
            e2, b2 = call(url, "analyze", worst(i))
            return i, e1 if e1 != "complete" else e2, b1 + b2

        errors, sizes, t0 = 0, [], time.perf_counter()
        with ThreadPoolExecutor(args.clients) as pool:
            for i, event, size in pool.map(one, range(args.requests)):
                errors += event != "complete"
                sizes.append(size)
                if (i + 1) % 100 == 0:
                    m = memory(proc.pid)
                    print(f"{i + 1:5d} requests  RSS {m['VmRSS']:7.0f} MB  peak {m['VmHWM']:7.0f} MB  "
                          f"errors {errors}  {time.perf_counter() - t0:6.0f} s", flush=True)
        sizes.sort()
        print(f"response bytes per request (bertviz + analyze): median {sizes[len(sizes) // 2] / 1e6:.2f} MB, "
              f"max {sizes[-1] / 1e6:.2f} MB")
        final = memory(proc.pid)
        print(f"RSS after {args.requests} requests: {final['VmRSS']:.0f} MB (peak {final['VmHWM']:.0f} MB); "
              f"goal <= 800 MB: {'PASS' if final['VmRSS'] <= 800 else 'FAIL'}")

        before = folder_size(temp)
        for i in range(args.exports):
            for name, extra in (("export_tensors", []), ("export_figures", ["Cross-attention", 0, "head 0"])):
                event, _ = call(url, name, [f"{TEXT[:-1]} number {i}.", "greedy", 4, 0.6, 1.0, 0, 1.0, 0, 60, "en-de",
                                            *extra])
                assert event == "complete", (name, event)
        mid = folder_size(temp)
        time.sleep(6)  # exports live 5 s here (ATTENTION_EXPLORER_EXPORT_TTL); the next one sweeps them
        call(url, "export_tensors", [TEXT])
        after = folder_size(temp)
        print(f"temp folder (GRADIO_TEMP_DIR) before {args.exports} x 2 exports: {before / 1e6:.2f} MB, right after: "
              f"{mid / 1e6:.2f} MB, {6} s later + one export: {after / 1e6:.2f} MB; "
              f"flat: {'PASS' if after <= before + 5e6 else 'FAIL'}")
        print(json.dumps({"rss_mb": final["VmRSS"], "peak_mb": final["VmHWM"], "errors": errors,
                          "temp_before_mb": before / 1e6, "temp_after_mb": after / 1e6}))
    finally:
        proc.terminate()
        proc.wait(timeout=30)


if __name__ == "__main__":
    main()
