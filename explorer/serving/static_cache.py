"""Gradio's static files, compressed once instead of on every request.

Gradio serves its ~5 MB of front-end files (/assets, /static, the theme CSS) through a Brotli middleware that
compresses each response again for every page load: ~0.4 s of server CPU a visitor on 2 cores, which a class
arriving at once pays sixty times over before anyone has translated anything. The files do not change while the
server runs (their names carry a content hash), so this ASGI middleware keeps each one's compressed response in
memory, keyed by path and encoding, and answers from there. It sits inside Gradio's Brotli middleware, which
passes a response that already has a Content-Encoding through untouched.

The page itself (GET /) is the same for every visitor too: Gradio rebuilds it each time (a deep copy of the
config of ~280 blocks and the API description: ~40 ms of CPU) and sends its 310 KB uncompressed. It is kept as
well, compressed, per origin the visitor used (the headers Gradio builds the page's root URL from), and only
when Gradio set no cookie (no login). The query string does not change the page (a link's state is read by
links.js in the browser), so every link of one origin shares one copy.

Gradio's ``/config`` (the same config as JSON, 860 KB, ~28 ms a request) is kept the same way, per origin.

The origin is the client's to choose (any Host or X-Forwarded-Host): attacker helper 33 asked for the page under a
new host each time, ~55 ms of CPU a request, and honest Translate took 4-9 s. So a copy not kept yet is built at
most NEW_PAGES_PER_MIN times a minute for one address (then 429 in words; a kept copy is always served), and a new
copy evicts the page kept with the fewest visits, not the least recent (the real origin's, visited by everyone,
stays).

An LRU bounded by MAX_BYTES and MAX_PAGES: a new entry evicts the least recently used ones, so the cache never
fills up and stops caching. Only GETs of those paths with status 200 are kept (others are answered as Gradio
answered them); an If-None-Match that matches gets a 304.
"""

from __future__ import annotations

import gzip
import threading
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any

import brotli

from explorer.serving.addresses import address

PREFIXES = ("/assets/", "/static/", "/theme.css", "/favicon.ico")
COMPRESSIBLE = (".js", ".css", ".html", ".json", ".svg", ".map", ".txt", ".md")
MAX_BYTES = 64 * 2**20  # all cached bodies together
MAX_PAGES = 16  # copies of the page and of /config (one per origin each was asked for under)
PAGE_PATHS = ("/", "/config")
NEW_PAGES_PER_MIN = 20  # copies not kept yet that one address may have built in a minute
BUILDERS = 20_000  # addresses remembered for that count (the least recently seen forgotten first)
ORIGIN_HEADERS = (b"host", b"x-forwarded-host", b"x-forwarded-proto", b"x-gradio-server")
MIN_SIZE = 500  # smaller bodies are sent as they are
BROTLI_QUALITY = 6  # once per file: smaller than Gradio's quality 4, still quick

Scope = dict[str, Any]
Message = dict[str, Any]


def _encoding(accept: str) -> str:
    return "br" if "br" in accept else "gzip" if "gzip" in accept else "identity"


def _compress(body: bytes, encoding: str) -> bytes:
    if encoding == "br":
        return brotli.compress(body, quality=BROTLI_QUALITY)
    return gzip.compress(body, compresslevel=6, mtime=0)


class StaticCache:
    def __init__(self, app: Callable[..., Awaitable[None]]) -> None:
        self.app = app
        # key -> (status, headers, body), least recently used first
        self.cache: OrderedDict[tuple, tuple[int, list[tuple[bytes, bytes]], bytes]] = OrderedDict()
        self.size = 0
        self.pages = 0
        self.lock = threading.Lock()
        self.hits = 0
        self.evicted = 0
        self.visits: dict[tuple, int] = {}  # a kept page's visits: the fewest go first
        self.builds: OrderedDict[str, tuple[float, int]] = OrderedDict()  # address -> (minute began, copies built)

    def _may_build(self, who: str) -> bool:
        """Whether ``who`` may have one more copy of the page built this minute (NEW_PAGES_PER_MIN)."""
        now = time.monotonic()
        with self.lock:
            began, n = self.builds.pop(who, (now, 0))
            if now - began >= 60:
                began, n = now, 0
            self.builds[who] = (began, n + 1)
            while len(self.builds) > BUILDERS:
                self.builds.popitem(last=False)
            return n < NEW_PAGES_PER_MIN

    async def __call__(self, scope: Scope, receive, send) -> None:
        path = scope.get("path", "")
        page = path in PAGE_PATHS
        if scope["type"] != "http" or scope.get("method") != "GET" or not (page or path.startswith(PREFIXES)):
            return await self.app(scope, receive, send)
        headers = {k.lower(): v for k, v in scope.get("headers", [])}
        # a static file's query string is part of its name; the page's is a link's state, which the page reads itself
        path_qs = path + ("?" + scope["query_string"].decode("latin-1") if scope.get("query_string") and path != "/" else "")
        encoding = _encoding(headers.get(b"accept-encoding", b"").decode("latin-1"))
        # the page names its own URL: one copy per origin (scheme, host, proxy headers, mount path)
        origin = (scope.get("scheme"), scope.get("root_path"), *(headers.get(h) for h in ORIGIN_HEADERS)) if page else ()
        key = (path_qs, encoding, *origin)
        with self.lock:
            entry = self.cache.get(key)
            if entry is not None:
                self.cache.move_to_end(key)
                self.hits += 1
                if page:
                    self.visits[key] = self.visits.get(key, 0) + 1
        if entry is None and page and not self._may_build(address(scope)):
            body = b"This page was asked for under too many new host names from your address; wait a minute."
            await send({"type": "http.response.start", "status": 429,
                        "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                                    (b"content-length", str(len(body)).encode()), (b"retry-after", b"60")]})
            await send({"type": "http.response.body", "body": body})
            return
        if entry is None:
            entry, keep = await self._fetch(scope, receive, path, encoding)
            if keep and len(entry[2]) <= MAX_BYTES:
                self._keep(key, entry, page)
        status, out_headers, body = entry
        etag = dict(out_headers).get(b"etag")
        if etag is not None and headers.get(b"if-none-match") == etag:
            await send({"type": "http.response.start", "status": 304, "headers": [(b"etag", etag)]})
            await send({"type": "http.response.body", "body": b""})
            return
        # a copy: an outer middleware may edit the list in place (Gradio's Brotli compresses a small body itself)
        await send({"type": "http.response.start", "status": status, "headers": list(out_headers)})
        await send({"type": "http.response.body", "body": body})

    def _keep(self, key: tuple, entry: tuple, page: bool) -> None:
        """Insert, then evict the least recently used entries until both bounds hold again."""
        with self.lock:
            if key in self.cache:
                return
            self.cache[key] = entry
            self.size += len(entry[2])
            self.pages += page
            self.visits[key] = 1 if page else 0
            while self.size > MAX_BYTES or self.pages > MAX_PAGES:
                if self.pages > MAX_PAGES:  # the page kept with the fewest visits (of those, the least recent)
                    old = min((k for k in self.cache if k != key and k[0] in PAGE_PATHS),
                              key=lambda k: self.visits.get(k, 0))
                else:
                    old = next(k for k in self.cache if k != key)
                self.size -= len(self.cache.pop(old)[2])
                self.pages -= old[0] in PAGE_PATHS
                self.visits.pop(old, None)
                self.evicted += 1

    async def _fetch(self, scope: Scope, receive, path: str, encoding: str):
        """Run the request once without conditional or range headers -> ((status, headers, body), keep): a 200 is
        compressed and kept; anything else (a 404) is answered as Gradio answered it and not kept."""
        clean = [(k, v) for k, v in scope.get("headers", []) if k.lower() not in
                 (b"if-none-match", b"if-modified-since", b"range", b"accept-encoding")]
        inner = dict(scope, headers=clean)
        start: dict = {}
        chunks: list[bytes] = []

        async def capture(message: Message) -> None:
            if message["type"] == "http.response.start":
                start.update(message)
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))

        await self.app(inner, receive, capture)
        body = b"".join(chunks)
        raw = start.get("headers", [])
        if start.get("status") != 200 or any(k.lower() == b"set-cookie" for k, _ in raw):
            return (start.get("status", 500), raw, body), False
        out = [(k, v) for k, v in raw if k.lower() not in (b"content-length", b"content-encoding")]
        html = dict((k.lower(), v) for k, v in raw).get(b"content-type", b"").startswith(b"text/html")
        if encoding != "identity" and (html or path.lower().endswith(COMPRESSIBLE)) and len(body) >= MIN_SIZE:
            body = _compress(body, encoding)
            out += [(b"content-encoding", encoding.encode()), (b"vary", b"Accept-Encoding")]
        out.append((b"content-length", str(len(body)).encode()))
        return (200, out, body), True
