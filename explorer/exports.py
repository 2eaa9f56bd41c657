"""Export files: unique names, written atomically, deleted a short while after they are made.

They are written inside Gradio's own cache folder, so Gradio serves them from there without making
a copy, and nothing is left behind: each call first deletes the exports older than EXPORT_TTL_S
(they are downloaded at once, by the page or by the API client that asked).
"""

from __future__ import annotations

import os
import tempfile
import threading
import time
import uuid
from pathlib import Path

from explorer import limits

_LOCK = threading.Lock()


def folder() -> Path:
    """Gradio's cache folder (GRADIO_TEMP_DIR, else <tmp>/gradio) / attention-explorer-exports."""
    root = Path(os.environ.get("GRADIO_TEMP_DIR") or Path(tempfile.gettempdir()) / "gradio")
    path = root / "attention-explorer-exports"
    path.mkdir(parents=True, exist_ok=True)
    return path


def sweep(ttl: float | None = None) -> int:
    """Delete exports older than ttl seconds; -> how many were deleted."""
    ttl = limits.EXPORT_TTL_S if ttl is None else ttl
    now, gone = time.time(), 0
    with _LOCK:
        for f in folder().iterdir():
            try:
                if now - f.stat().st_mtime > ttl:
                    f.unlink()
                    gone += 1
            except FileNotFoundError:
                pass
    return gone


def write(data: bytes, stem: str, suffix: str) -> str:
    """Write bytes to a new file with a unique name (temp file + rename: never seen half-written)."""
    sweep()
    d = folder()
    name = f"{stem}-{uuid.uuid4().hex[:12]}{suffix}"
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".partial-", suffix=suffix)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, d / name)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return str(d / name)


def size_on_disk() -> int:
    return sum(f.stat().st_size for f in folder().iterdir() if f.is_file())
