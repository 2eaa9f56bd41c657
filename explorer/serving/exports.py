"""Export files: unique names, written atomically, deleted a short while after they are made.

They are written inside Gradio's own cache folder, so Gradio serves them from there without making
a copy, and nothing is left behind: they are downloaded at once (by the page or by the API client that
asked), so every export older than EXPORT_TTL_S is deleted, by the next export or, when none comes, by a
timer that runs while any export is on disk; and all exports together never hold more than
EXPORT_MAX_BYTES (the oldest go first).
"""

from __future__ import annotations

import os
import tempfile
import threading
import time
import uuid
from pathlib import Path

from explorer.serving import limits

_LOCK = threading.Lock()
_TIMER: list[threading.Timer] = []  # the pending sweep, if any


def folder() -> Path:
    """Gradio's cache folder (GRADIO_TEMP_DIR, else <tmp>/gradio) / attention-explorer-exports."""
    root = Path(os.environ.get("GRADIO_TEMP_DIR") or Path(tempfile.gettempdir()) / "gradio")
    path = root / "attention-explorer-exports"
    path.mkdir(parents=True, exist_ok=True)
    return path


def _files() -> list[tuple[float, int, Path]]:
    """(modified, size, path) of every file in the folder, oldest first."""
    out = []
    for f in folder().iterdir():
        try:
            st = f.stat()
            out.append((st.st_mtime, st.st_size, f))
        except FileNotFoundError:
            pass
    return sorted(out)


def sweep(ttl: float | None = None, room: int = 0) -> int:
    """Delete exports older than ttl seconds, then the oldest until ``room`` more bytes fit under
    EXPORT_MAX_BYTES; -> how many were deleted."""
    ttl = limits.EXPORT_TTL_S if ttl is None else ttl
    now, gone = time.time(), 0
    with _LOCK:
        files = _files()
        total = sum(size for _, size, _ in files)
        for mtime, size, f in files:
            if now - mtime > ttl or total + room > limits.EXPORT_MAX_BYTES:
                f.unlink(missing_ok=True)
                total -= size
                gone += 1
    return gone


def _sweep_later() -> None:
    """A sweep once the newest export has had its time, again while exports remain (one timer at a time)."""
    with _LOCK:
        if _TIMER and _TIMER[0].is_alive():
            return
        timer = threading.Timer(limits.EXPORT_TTL_S + 1, _timer_fired)
        timer.daemon = True
        _TIMER[:] = [timer]
        timer.start()


def _timer_fired() -> None:
    sweep()
    with _LOCK:
        _TIMER.clear()
        left = any(folder().iterdir())
    if left:
        _sweep_later()


def write(data: bytes, stem: str, suffix: str) -> str:
    """Write bytes to a new file with a unique name (temp file + rename: never seen half-written)."""
    sweep(room=len(data))
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
    _sweep_later()
    return str(d / name)


def size_on_disk() -> int:
    return sum(size for _, size, _ in _files())  # (a file swept away while it is counted is not counted)
