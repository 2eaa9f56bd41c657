"""``/browser-model/...``: the files the browser needs to run a model itself, and nothing else.

Plain ASGI (app.serve puts it in the middleware list), GET and HEAD only:

- ``/browser-model/<file>.js``: the JavaScript model's modules (``static/``), text/javascript;
- ``/browser-model/<model>/<file>``: a shipped checkpoint's ``config.json``, ``model.safetensors`` and ``spm.model``.

Every other path under the prefix is 404: no listing, no other file of a folder, no path outside it. Each file is
named at start-up (``ModelFiles.table``) with its SHA-256 as the ETag; an If-None-Match that matches gets 304. A URL
that carries the file's own hash (``?v=<sha256>``: the worker asks for the weights so, with the hash from
``config.json``) may be kept by the browser for a year (``immutable``): later visits load the model from the
browser's cache without asking. Others are revalidated each time (``no-cache``). Bodies are read from disk in
chunks in a worker thread, never held whole in memory.
"""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio

from explorer.browser_model import STATIC

PREFIX = "/browser-model/"
MODEL_FILES = ("config.json", "model.safetensors", "spm.model")
TYPES = {".js": b"text/javascript; charset=utf-8", ".json": b"application/json", ".safetensors": b"application/octet-stream",
         ".model": b"application/octet-stream"}
CHUNK = 256 * 1024
YEAR = b"public, max-age=31536000, immutable"


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(CHUNK), b""):
            h.update(block)
    return h.hexdigest()


def file_table(models: dict[str, Path]) -> dict[str, tuple[Path, str]]:
    """URL path -> (file, its SHA-256): the JS modules and each model's three files."""
    table = {PREFIX + p.name: p for p in sorted(STATIC.glob("*.js")) if p.name != "cli.js"}
    for name, folder in models.items():
        for f in MODEL_FILES:
            if (folder / f).is_file():
                table[f"{PREFIX}{name}/{f}"] = folder / f
    return {url: (path, sha256(path)) for url, path in table.items()}


class ModelFiles:
    def __init__(self, app: Callable[..., Awaitable[None]], models: dict[str, Path] | None = None) -> None:
        self.app = app
        if models is None:
            from model.translator import available, resolve

            models = {name: resolve(name) for name in available()}
        self.table = file_table(models)

    async def __call__(self, scope: dict[str, Any], receive, send) -> None:
        path = scope.get("path", "") if scope["type"] == "http" else ""
        if not path.startswith(PREFIX):
            return await self.app(scope, receive, send)
        method = scope.get("method", "")
        found = self.table.get(path)
        if method not in ("GET", "HEAD") or found is None:
            status = 405 if found is not None else 404
            body = b"not a file of the browser model" if status == 404 else b"GET only"
            await send({"type": "http.response.start", "status": status,
                        "headers": [(b"content-type", b"text/plain"), (b"content-length", str(len(body)).encode())]})
            return await send({"type": "http.response.body", "body": body})
        file, digest = found
        etag = f'"{digest}"'.encode()
        query = scope.get("query_string", b"").decode("latin-1")
        headers = [(b"etag", etag), (b"cache-control", YEAR if query == f"v={digest}" else b"no-cache"),
                   (b"content-type", TYPES.get(file.suffix, b"application/octet-stream")),
                   (b"x-content-type-options", b"nosniff")]
        sent_tags = dict(scope.get("headers") or []).get(b"if-none-match", b"")
        if etag in [t.strip() for t in sent_tags.split(b",")]:
            await send({"type": "http.response.start", "status": 304, "headers": headers})
            return await send({"type": "http.response.body", "body": b""})
        size = file.stat().st_size
        await send({"type": "http.response.start", "status": 200,
                    "headers": headers + [(b"content-length", str(size).encode())]})
        if method == "HEAD":
            return await send({"type": "http.response.body", "body": b""})
        with file.open("rb") as f:
            while True:
                block = await anyio.to_thread.run_sync(f.read, CHUNK)
                more = len(block) == CHUNK
                await send({"type": "http.response.body", "body": block, "more_body": more})
                if not more:
                    return
