"""The server's edges: requests no page or API client of this app makes get a short 4xx before Gradio sees them.

Plain ASGI, outside Gradio's routes (app.serve puts it in the middleware list):

- uploads are refused (403): the app has no upload component and no endpoint takes a file, yet Gradio's
  ``/gradio_api/upload`` would store whatever is posted to it (20 MB a file) in its temp folder for good, and
  ``/gradio_api/process_recording`` any size (an attacker left 1,060 MB in /tmp with 6 posts);
- a request body over MAX_BODY bytes gets 413 (by its Content-Length; one sent in chunks is cut off there): the
  app's requests carry a sentence and a few numbers, yet Gradio read 200 MB JSON bodies whole into memory (RSS
  +400 MB each, a 3.6 GB peak with four at once);
- a URL longer than MAX_URL characters gets 414 (a link of this app is at most a few KB: the sentence is at
  most 300 characters, 3.6 KB percent-encoded at the worst), where Gradio answered a 65 KB one with a 500 and
  a 90-line traceback in the log;
- ``/gradio_api/call/<name>`` for a name that is not a public endpoint gets 404 naming the endpoints, where
  Gradio answered 500;
- a session_hash longer than MAX_SESSION characters (in a JSON body, a query or a heartbeat's path) gets 400: Gradio
  kept ~0.85 MB for each 900 KB one, for good;
- a JSON body with a number that is not finite (``NaN``, ``Infinity``, ``1e999``) gets 400 naming it: Gradio answered
  each with a 500 and a 6.7 KB traceback (its validation error cannot be written as JSON; attacker helper 33 wrote
  14 MB of log in 20 s). Any other error escaping Gradio before its answer began is a 500 in words, its traceback
  logged at most once a minute (a bug still shows; a flood of it does not).

Each refusal is one log line, never a traceback, and at most one such line a second (LOG_EVERY_S: the others are
counted into the next): 518 refused requests a second wrote 112 KB/s. A result stream Gradio had started and then
failed (``/gradio_api/queue/data`` for a session it does not know: two tracebacks, 6 KB, a request; helper 22 grew
the log 3.7 MB with 599 GETs) ends the same way: quietly, counted in that line. It also counts the result streams open now
(explorer/serving/listeners.py), so that long work nobody listens for can be dropped before it runs.
"""

from __future__ import annotations

import json
import logging
import math
import time
import urllib.parse
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from explorer.serving import listeners
from explorer.serving.addresses import address
from explorer.serving.listeners import CALL_PREFIX

log = logging.getLogger("attention-explorer")

LOG_EVERY_S = 1.0
MAX_URL = 16_384  # characters of path + query string
MAX_BODY = 1_000_000  # bytes of a request body (a Translate's is well under 4 KB; a class route's at most 16 KB)
UPLOAD_PATHS = ("/gradio_api/upload", "/upload", "/gradio_api/process_recording", "/process_recording")
# an upload's progress, asked by any method: Gradio's tracker keeps an entry for every id it is asked about and never
# drops it (helper 80: 4,000 asks with fresh 15,000-character ids kept 10 MB), and this app takes no uploads
UPLOAD_PROGRESS = ("/gradio_api/upload_progress", "/upload_progress")
# Gradio's dashboard: the page never asks for it, and each visit wrote its address to the log (helper 30: 87 bytes a
# request, 259 MB an hour of a flood)
MONITORING = ("/monitoring", "/gradio_api/monitoring")
MAX_SESSION = 64  # characters of a session_hash (Gradio's pages send 11, gradio_client 36)
HEARTBEAT = "/gradio_api/heartbeat/"
# Gradio's heartbeat is one long-lived stream an open page holds: one address holds at most this many at once (a
# school behind one address: 10 classes of 60 pages), the next answered 429 (attacker helper 82: one address behind a
# trusted proxy held 2,041, +57 MB; without a trusted proxy connections.PER_PEER already bounds it)
HEARTBEATS_PER_ADDRESS = 600
TRACEBACK_EVERY_S = 60.0  # an error escaping Gradio: its traceback at most this often


async def answer(send, status: int, message: str) -> None:
    body = json.dumps({"error": message}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


def declared_length(headers: Iterable[tuple[bytes, bytes]]) -> int | None:
    """The Content-Length a request declares (None without one, or one that is no number)."""
    for name, value in headers:
        if name.lower() == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


def refusal(method: str, path: str, query: bytes, names: frozenset[str],
            length: int | None = None) -> tuple[int, str] | None:
    """-> (status, message) for a request this app never needs, else None (Gradio answers it)."""
    if len(path) + len(query) > MAX_URL:
        return 414, f"This address is {len(path) + len(query):,} characters long; links of this app are at most {MAX_URL:,}."
    if method == "POST" and path.rstrip("/") in UPLOAD_PATHS:
        return 403, "This app takes no file uploads."
    if path.rstrip("/") in UPLOAD_PROGRESS:
        return 404, "This app takes no file uploads."
    if length is not None and length > MAX_BODY:
        return 413, f"This request's body is {length:,} bytes; this app's requests are at most {MAX_BODY:,}."
    if path.rstrip("/") in MONITORING or path.startswith(tuple(m + "/" for m in MONITORING)):
        return 404, "This app serves no monitoring dashboard."
    if path.startswith(CALL_PREFIX):
        name = path[len(CALL_PREFIX):].split("/", 1)[0]
        if name not in names:
            shown = name if len(name) <= 40 else name[:40] + "…"
            return 404, f"No endpoint named {shown!r}. Endpoints: {', '.join(sorted(names))}."
    return None


class NotFinite(ValueError):
    pass


def _finite(text: str) -> float:
    x = float(text)
    if not math.isfinite(x):
        raise NotFinite(text)
    return x


def _no_constant(name: str):
    raise NotFinite(name)


def body_problem(body: bytes) -> str | None:
    """What is wrong with a JSON body that Gradio would answer with a traceback or keep: a number that is not finite
    (NaN, Infinity, 1e999), or a session_hash that is no short string (Gradio's are 11 characters, a gradio_client's
    36; attacker helper 34's 900 KB ones each kept ~0.85 MB for good). None if nothing (or if the body is no JSON:
    Gradio answers that itself)."""
    try:
        data = json.loads(body, parse_float=_finite, parse_constant=_no_constant)
    except NotFinite as e:
        return f"A number in this request is not finite ({str(e)[:20]}); send a finite one."
    except (ValueError, RecursionError):
        return None
    session = data.get("session_hash") if isinstance(data, dict) else None
    if session is not None and not (isinstance(session, str) and len(session) <= MAX_SESSION):
        return f"A session_hash is a string of at most {MAX_SESSION} characters."
    return None


def long_session(path: str, query: bytes) -> bool:
    """Whether a GET names a session longer than MAX_SESSION (its query's session_hash, or a heartbeat's path)."""
    if path.startswith(HEARTBEAT) and len(path.rstrip("/")) - len(HEARTBEAT) > MAX_SESSION:
        return True
    if b"session_hash=" not in query:
        return False
    values = [v for k, v in urllib.parse.parse_qsl(query.decode("latin-1"), keep_blank_values=True) if k == "session_hash"]
    return any(len(v) > MAX_SESSION for v in values)


async def whole_body(receive) -> tuple[bytes, bool]:
    """Read a request's body (``receive`` is already capped) -> (body, whether the client went away)."""
    parts = []
    while True:
        message = await receive()
        if message.get("type") != "http.request":
            return b"".join(parts), True
        parts.append(message.get("body", b""))
        if not message.get("more_body"):
            return b"".join(parts), False


def replayed(body: bytes, receive):
    """``receive`` that gives ``body`` whole first, then whatever the client sends next (its disconnect)."""
    sent = False

    async def again() -> dict[str, Any]:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()
    return again


def is_json(scope: dict[str, Any]) -> bool:
    return any(k.lower() == b"content-type" and b"json" in v.lower() for k, v in scope.get("headers", ()))


def capped(receive):
    """``receive`` that ends a request as if its client had gone once its body passed MAX_BODY bytes (Gradio stops
    reading it and answers nobody; one log line says so)."""
    seen = 0

    async def wrapped() -> dict[str, Any]:
        nonlocal seen
        message = await receive()
        if message.get("type") == "http.request":
            seen += len(message.get("body", b""))
            if seen > MAX_BODY:
                log.warning("cut off a request body at %s bytes (at most %s)", f"{seen:,}", f"{MAX_BODY:,}")
                return {"type": "http.disconnect"}
        return message
    return wrapped


class Edges:
    def __init__(self, app: Callable[..., Awaitable[None]], names: Iterable[str] = ()) -> None:
        self.app = app
        self.names = frozenset(names)  # the public endpoints' api names
        self.refused = 0
        self._logged_at = 0.0  # when the last refusal line was written
        self._unlogged = 0  # refusals since, not written
        self._traceback_at = -TRACEBACK_EVERY_S  # when an error escaping Gradio last had its traceback logged
        self.heartbeats: dict[str, int] = {}  # address -> Gradio heartbeats it holds open now

    def said(self, what: str, *args: Any) -> None:
        """One log line for a refusal, at most one a second: the ones in between are counted into the next."""
        now = time.monotonic()
        if now - self._logged_at < LOG_EVERY_S:
            self._unlogged += 1
            return
        more = f" (and {self._unlogged} more refused since the last line)" if self._unlogged else ""
        self._logged_at, self._unlogged = now, 0
        log.warning(what + "%s", *args, more)

    async def passed(self, scope: dict[str, Any], receive, send) -> None:
        """The app, with a result stream it started and then failed ended quietly (no traceback)."""
        started = False

        async def sending(message: dict[str, Any]) -> None:
            nonlocal started
            started = started or message.get("type") == "http.response.start"
            await send(message)
        try:
            return await self.app(scope, receive, sending)
        except RuntimeError as e:
            if "response already started" not in str(e):
                return await self.failed(scope, e, started, send)
            # (the response is left incomplete, as the exception left it: uvicorn closes the connection, and the page's
            # Gradio client hears the same broken stream as before and recovers as it did; uvicorn's own line for it
            # is filtered, at the end of this file)
            self.said("ended a stream Gradio had failed after starting it: %s %s", scope.get("method", ""),
                      scope.get("path", "")[:80])
        except Exception as e:  # noqa: BLE001 - any error escaping Gradio: said, not a traceback a request
            return await self.failed(scope, e, started, send)

    async def failed(self, scope: dict[str, Any], error: Exception, started: bool, send) -> None:
        """An error escaped Gradio: a 500 in words if its answer had not begun (else the connection just ends), one
        line at most a second, its traceback at most once a minute."""
        now = time.monotonic()
        if now - self._traceback_at >= TRACEBACK_EVERY_S:
            self._traceback_at = now
            log.error("error in %s %s (its traceback; the next ones for a minute are counted, not shown)",
                      scope.get("method", ""), scope.get("path", "")[:80], exc_info=error)
        else:
            self.said("error in %s %s: %s", scope.get("method", ""), scope.get("path", "")[:80],
                      type(error).__name__)
        if not started:
            await answer(send, 500, "The server could not answer this request.")

    async def __call__(self, scope: dict[str, Any], receive, send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        method, path, query = scope.get("method", ""), scope.get("path", ""), scope.get("query_string", b"")
        why = refusal(method, path, query, self.names, declared_length(scope.get("headers", ())))
        if why is not None:
            self.refused += 1
            status, message = why
            self.said("refused %s %s: %s", method, path[:80], message[:120])
            return await answer(send, status, message)
        receive = capped(receive)  # a body sent in chunks, without a length: cut off at MAX_BODY
        if method == "POST" and is_json(scope) and not path.startswith("/class/"):
            body, gone = await whole_body(receive)
            bad = None if gone else body_problem(body)
            if bad is not None:
                self.refused += 1
                self.said("refused %s %s: %s", method, path[:80], bad[:60])
                return await answer(send, 400, bad)
            receive = replayed(body, receive)
        elif method == "GET" and long_session(path, query):
            self.refused += 1
            self.said("refused %s %s: a session_hash over %s characters", method, path[:80], MAX_SESSION)
            return await answer(send, 400, f"A session_hash is a string of at most {MAX_SESSION} characters.")
        if method == "GET" and path.startswith(HEARTBEAT):
            return await self.heartbeat(scope, receive, send)
        key = listeners.stream_key(method, path, query)
        if key is None:
            return await self.passed(scope, receive, send)
        listeners.opened(key)  # a result stream: someone listens for this session or event until it closes
        try:
            return await self.passed(scope, receive, send)
        finally:
            listeners.closed(key)


    async def heartbeat(self, scope: dict[str, Any], receive, send) -> None:
        """A page's heartbeat, counted for its address while it is open (HEARTBEATS_PER_ADDRESS)."""
        who = address(scope)
        held = self.heartbeats.get(who, 0)
        if held >= HEARTBEATS_PER_ADDRESS:
            self.refused += 1
            self.said("refused a heartbeat: %s open from one address", held)
            return await answer(send, 429, f"This address holds {held} open pages of this app, the most it may.")
        self.heartbeats[who] = held + 1
        try:
            return await self.passed(scope, receive, send)
        finally:
            left = self.heartbeats.get(who, 1) - 1
            if left > 0:
                self.heartbeats[who] = left
            else:
                self.heartbeats.pop(who, None)


class _Unfinished(logging.Filter):
    """uvicorn's line for a response left incomplete: Edges.passed says it (at most a line a second) instead."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "returned without completing response" not in record.getMessage()


logging.getLogger("uvicorn.error").addFilter(_Unfinished())
