"""The server's edges: requests no page or API client of this app makes get a short 4xx before Gradio sees them.

Plain ASGI, outside Gradio's routes (app.serve puts it in the middleware list):

- uploads are refused (403): the app has no upload component and no endpoint takes a file, yet Gradio's
  ``/gradio_api/upload`` would store whatever is posted to it (20 MB a file) in its temp folder for good;
- a URL longer than MAX_URL characters gets 414 (a link of this app is at most a few KB: the sentence is at
  most 300 characters, 3.6 KB percent-encoded at the worst), where Gradio answered a 65 KB one with a 500 and
  a 90-line traceback in the log;
- ``/gradio_api/call/<name>`` for a name that is not a public endpoint gets 404 naming the endpoints, where
  Gradio answered 500.

Each refusal is one log line, never a traceback. It also counts the result streams open now
(explorer/serving/listeners.py), so that long work nobody listens for can be dropped before it runs.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from explorer.serving import listeners
from explorer.serving.listeners import CALL_PREFIX

log = logging.getLogger("attention-explorer")

MAX_URL = 16_384  # characters of path + query string
UPLOAD_PATHS = ("/gradio_api/upload", "/upload")


async def answer(send, status: int, message: str) -> None:
    body = json.dumps({"error": message}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


def refusal(method: str, path: str, query: bytes, names: frozenset[str]) -> tuple[int, str] | None:
    """-> (status, message) for a request this app never needs, else None (Gradio answers it)."""
    if len(path) + len(query) > MAX_URL:
        return 414, f"This address is {len(path) + len(query):,} characters long; links of this app are at most {MAX_URL:,}."
    if method == "POST" and path.rstrip("/") in UPLOAD_PATHS:
        return 403, "This app takes no file uploads."
    if path.startswith(CALL_PREFIX):
        name = path[len(CALL_PREFIX):].split("/", 1)[0]
        if name not in names:
            shown = name if len(name) <= 40 else name[:40] + "…"
            return 404, f"No endpoint named {shown!r}. Endpoints: {', '.join(sorted(names))}."
    return None


class Edges:
    def __init__(self, app: Callable[..., Awaitable[None]], names: Iterable[str] = ()) -> None:
        self.app = app
        self.names = frozenset(names)  # the public endpoints' api names
        self.refused = 0

    async def __call__(self, scope: dict[str, Any], receive, send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        method, path, query = scope.get("method", ""), scope.get("path", ""), scope.get("query_string", b"")
        why = refusal(method, path, query, self.names)
        if why is not None:
            self.refused += 1
            status, message = why
            log.warning("refused %s %s: %s", method, path[:80], message[:120])
            return await answer(send, status, message)
        key = listeners.stream_key(method, path, query)
        if key is None:
            return await self.app(scope, receive, send)
        listeners.opened(key)  # a result stream: someone listens for this session or event until it closes
        try:
            return await self.app(scope, receive, send)
        finally:
            listeners.closed(key)
