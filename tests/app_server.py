"""Start app.py's Blocks in this process on a free port, for gradio_client and browser tests."""

from __future__ import annotations

import socket
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import gradio as gr

CKPT = Path(__file__).resolve().parent.parent / "checkpoints"
MODEL = "en-de" if (CKPT / "en-de" / "model.safetensors").is_file() else "toy-reverse"
SENTENCE = "A dog is running in the snow." if MODEL == "en-de" else "a b c d e"
# a Multi30k val sentence whose greedy en-de translation loops: "Ein Mann und eine Frau arbeiten an einem
# Fahrradreifen-Rasen-Rasen-Rasen." (scripts/val_loops.py lists them)
LOOPING_SENTENCE = "A man and woman are working on replacing a bike tire tube."
# sentences whose greedy en-de translation falls below the model's "unsure" floor (-0.782; these: -1.13 and -1.30)
UNSURE_SENTENCES = ("Quantum chromodynamics describes the strong interaction.",
                    "The derivative of a polynomial is computed term by term.")


def api_call(url: str, name: str, data: list, session: str | None = None, timeout: float = 300) -> tuple[str, object]:
    """A plain HTTP call, as curl would make it (POST, then read the result stream) -> (SSE event name, its data)."""
    import json

    import httpx

    body = {"data": data} | ({"session_hash": session} if session else {})
    # ASCII escapes: a lone surrogate travels as \ud800, as a browser sends it
    r = httpx.post(f"{url}gradio_api/call/{name}", content=json.dumps(body),
                   headers={"content-type": "application/json"}, timeout=60)
    r.raise_for_status()
    return api_result(url, name, r.json()["event_id"], timeout)


def api_result(url: str, name: str, event_id: str, timeout: float = 300) -> tuple[str, object]:
    import json

    import httpx

    event = None
    with httpx.stream("GET", f"{url}gradio_api/call/{name}/{event_id}", timeout=timeout) as s:
        for line in s.iter_lines():
            if line.startswith("event:"):
                event = line.split(":", 1)[1].strip()
            elif line.startswith("data:") and event in ("complete", "error"):
                return event, json.loads(line.split(":", 1)[1])
    return event, None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def served(**kwargs) -> Iterator[tuple[gr.Blocks, str]]:
    """(demo, url), served exactly as `python app.py` serves it, until the block ends: then the server is closed,
    and Gradio's Node server too when ``ssr_mode=True`` started one (demo.close() leaves that running; it outlived
    the suite)."""
    import app

    demo = app.build()
    port = free_port()
    try:
        app.serve(demo, server_name="127.0.0.1", server_port=port, prevent_thread_lock=True, quiet=True, **kwargs)
        yield demo, f"http://127.0.0.1:{port}/"
    finally:
        close(demo)


def close(demo: gr.Blocks) -> None:
    node = getattr(demo, "node_process", None)
    try:
        demo.close(verbose=False)
    finally:
        if node is not None:
            node.terminate()
            try:
                node.wait(10)
            except subprocess.TimeoutExpired:
                node.kill()
                node.wait()
