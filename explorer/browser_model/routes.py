"""``/browser-model/...``: the files the browser needs to run a model itself, and nothing else.

Plain ASGI (app.serve puts it in the middleware list), GET and HEAD only (405 with ``Allow`` otherwise):

- ``/browser-model/<file>.js``: the JavaScript model's modules (``static/``), text/javascript;
- ``/browser-model/<model>/<file>``: a shipped checkpoint's ``config.json``, ``model.safetensors`` and ``spm.model``;
- ``/browser-model/<model>/reverse/<file>``: the same three of its reverse model, and ``/browser-model/<model>/quality.json``
  the "quality" section of its ``metrics.json``: what the "may be wrong" estimate needs (``static/quality.js``).

Every other path under the prefix is 404: no listing, no other file of a folder, no path outside it. Each file is read
once at start-up (``ModelFiles.table``: 12.8 MB for both shipped models and en-de's reverse model), with its SHA-256
as the ETag, so what is sent is always what the hash names, and a download holds no file of its own; an If-None-Match
that matches (weakly, or ``*``) gets 304. A URL that carries the file's own hash (``?v=<sha256>``: the worker asks for
the weights so, with the hash from ``config.json``) may be kept by the browser for a year (``immutable``): later visits load the
model from the browser's cache without asking. Others are revalidated each time (``no-cache``).

A download stops as soon as its client goes (attacker helper 47: 20,286 downloads abandoned after one byte in 30 s
went on reading the whole file each, held 19,949 descriptors and 6 GB, and stalled every Translate), and downloads in
flight are bounded: ``PER_ADDRESS`` from one address (a class behind one school address loads at once: 150 is a
room's most), ``IN_FLIGHT`` in the process; past either, 503 with Retry-After (the page then keeps to the server).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections import Counter
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from explorer.browser_model import STATIC
from explorer.serving.addresses import address, trusted_proxies

PREFIX = "/browser-model/"
MODEL_FILES = ("config.json", "model.safetensors", "spm.model")
TYPES = {".js": b"text/javascript; charset=utf-8", ".json": b"application/json", ".safetensors": b"application/octet-stream",
         ".model": b"application/octet-stream"}
CHUNK = 64 * 1024  # bytes a send: uvicorn waits for the client to take its buffer before the next
YEAR = b"public, max-age=31536000, immutable"
PER_ADDRESS = 150  # downloads in flight from one address
IN_FLIGHT = 400  # downloads in flight in the process


def quality_section(folder: Path) -> bytes | None:
    """The "quality" section of a checkpoint's metrics.json as JSON bytes, or None where it has none (or no readable
    metrics.json: the server then has no estimate either)."""
    try:
        section = json.loads((folder / "metrics.json").read_text(encoding="utf-8")).get("quality")
    except (OSError, ValueError, AttributeError):
        return None
    return json.dumps(section).encode() if isinstance(section, dict) else None


def file_table(models: dict[str, Path]) -> dict[str, tuple[bytes, str, bytes]]:
    """URL path -> (the file's bytes, its SHA-256, its content type): the JS modules, each model's three files, its
    reverse model's and its quality estimate."""
    paths = {PREFIX + p.name: p for p in sorted(STATIC.glob("*.js")) if p.name != "cli.js"}
    for name, folder in models.items():
        for sub in ("", "reverse/"):
            for f in MODEL_FILES:
                if (folder / sub / f).is_file():
                    paths[f"{PREFIX}{name}/{sub}{f}"] = folder / sub / f
    table = {url: path.read_bytes() for url, path in paths.items()}
    for name, folder in models.items():
        section = quality_section(folder)
        if section is not None:
            table[f"{PREFIX}{name}/quality.json"] = section
    return {url: (data, hashlib.sha256(data).hexdigest(), TYPES.get(Path(url).suffix, b"application/octet-stream"))
            for url, data in table.items()}


async def plain(send, status: int, body: bytes, extra: list | None = None) -> None:
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"text/plain"), (b"content-length", str(len(body)).encode()),
                            *(extra or [])]})
    await send({"type": "http.response.body", "body": body})


def matches(sent: bytes, etag: bytes) -> bool:
    """If-None-Match against our strong tag, compared weakly as RFC 9110 asks (W/ dropped; * matches any file)."""
    tags = [t.strip() for t in sent.split(b",")]
    return b"*" in tags or etag in [t[2:] if t.startswith(b"W/") else t for t in tags]


class ModelFiles:
    def __init__(self, app: Callable[..., Awaitable[None]], models: dict[str, Path] | None = None,
                 trusted: int | None = None) -> None:
        self.app = app
        if models is None:
            from model.translator import available, resolve

            models = {name: resolve(name) for name in available()}
        self.table = file_table(models)
        self.trusted = trusted_proxies() if trusted is None else trusted
        self.flying: Counter[str] = Counter()  # downloads in flight, by address

    async def __call__(self, scope: dict[str, Any], receive, send) -> None:
        path = scope.get("path", "") if scope["type"] == "http" else ""
        if not path.startswith(PREFIX):
            return await self.app(scope, receive, send)
        method = scope.get("method", "")
        found = self.table.get(path)
        if found is None:
            return await plain(send, 404, b"not a file of the browser model")
        if method not in ("GET", "HEAD"):
            return await plain(send, 405, b"GET only", [(b"allow", b"GET, HEAD")])
        data, digest, kind = found
        etag = f'"{digest}"'.encode()
        query = scope.get("query_string", b"").decode("latin-1")
        headers = [(b"etag", etag), (b"cache-control", YEAR if query == f"v={digest}" else b"no-cache"),
                   (b"content-type", kind), (b"x-content-type-options", b"nosniff")]
        if matches(dict(scope.get("headers") or []).get(b"if-none-match", b""), etag):
            await send({"type": "http.response.start", "status": 304, "headers": headers})
            return await send({"type": "http.response.body", "body": b""})
        if method == "HEAD":
            await send({"type": "http.response.start", "status": 200,
                        "headers": headers + [(b"content-length", str(len(data)).encode())]})
            return await send({"type": "http.response.body", "body": b""})
        who = address(scope, self.trusted)
        if self.flying[who] >= PER_ADDRESS or sum(self.flying.values()) >= IN_FLIGHT:
            return await plain(send, 503, b"too many downloads at once: try again in a few seconds",
                               [(b"retry-after", b"5")])
        self.flying[who] += 1
        gone = asyncio.Event()

        async def watch() -> None:  # the client going away ends the download
            while True:
                message = await receive()
                if message["type"] == "http.disconnect":
                    gone.set()
                    return

        watcher = asyncio.create_task(watch())
        try:
            await send({"type": "http.response.start", "status": 200,
                        "headers": headers + [(b"content-length", str(len(data)).encode())]})
            view = memoryview(data)
            for at in range(0, len(data), CHUNK):
                if gone.is_set():
                    return
                more = at + CHUNK < len(data)
                await send({"type": "http.response.body", "body": bytes(view[at:at + CHUNK]), "more_body": more})
                await asyncio.sleep(0)  # (lets the watcher see a disconnect between chunks)
            if not data:
                await send({"type": "http.response.body", "body": b""})
        finally:
            watcher.cancel()
            self.flying[who] -= 1
            if self.flying[who] <= 0:
                del self.flying[who]
