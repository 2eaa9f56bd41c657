"""Who is listening: the result streams open now, by session hash (a page's or gradio_client's /queue/data) or by
event id (a plain HTTP caller's /call/<name>/<event id>). explorer/serving/edges.py counts them as they open and close;
explorer/serving/fair_queue.py drops long work nobody listens for. Plain Python, no Gradio."""

from __future__ import annotations

import threading
from collections import Counter
from urllib.parse import parse_qs

_open: Counter[str] = Counter()
_lock = threading.Lock()
QUEUE_DATA = "/gradio_api/queue/data"
CALL_PREFIX = "/gradio_api/call/"


def stream_key(method: str, path: str, query: bytes) -> str | None:
    """The session hash or event id a GET for results listens under, else None."""
    if method != "GET":
        return None
    if path.rstrip("/") == QUEUE_DATA:
        values = parse_qs(query.decode("latin-1")).get("session_hash")
        return values[0] if values else None
    if path.startswith(CALL_PREFIX):
        parts = path[len(CALL_PREFIX):].strip("/").split("/")
        return parts[1] if len(parts) == 2 else None
    return None


def opened(key: str) -> None:
    with _lock:
        _open[key] += 1


def closed(key: str) -> None:
    with _lock:
        _open[key] -= 1
        if _open[key] <= 0:
            del _open[key]


def listening(*keys: str) -> bool:
    with _lock:
        return any(_open[k] > 0 for k in keys)
