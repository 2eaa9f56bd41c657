"""Where rooms live between restarts: one SQLite file (standard library only), a row per open room holding it as
JSON (students, answers, reveals, views sent, the shown view, the teacher's current view). rooms.py writes a room at
every change (``Room.bump``) and deletes it when it ends; on start every room still within ``rooms.IDLE_S`` comes
back, the older ones are deleted. At most ``rooms.MAX_ROOMS`` rows, each bounded by rooms.py's own bounds.

``ATTENTION_EXPLORER_ROOMS`` names the file (default: ``rooms.sqlite3`` in the user's cache folder); ``memory`` keeps
rooms in this process only, as before (a restart ends them).
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import threading
import time
from pathlib import Path

log = logging.getLogger("attention-explorer")
ROOMS_ENV = "ATTENTION_EXPLORER_ROOMS"


def default_path() -> str:
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return str(Path(cache) / "attention-explorer" / "rooms.sqlite3")


class RoomStore:
    """Rooms as JSON rows of one SQLite file; every write is committed before the change is answered (WAL)."""

    shared = False  # one process: its memory is the truth, the file is for the next start

    def __init__(self, path: str):
        self.path = path
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        # readable by this user only: it holds student ids, which let their holder answer as that student (SQLite
        # gives its -wal and -shm files the database file's permissions)
        os.close(os.open(path, os.O_CREAT | os.O_RDWR, 0o600))
        os.chmod(path, 0o600)
        self.db = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=5)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")  # WAL + NORMAL: a killed process loses nothing committed
        self.db.execute("CREATE TABLE IF NOT EXISTS rooms (code TEXT PRIMARY KEY, saved REAL NOT NULL, data TEXT NOT NULL)")
        self.lock = threading.Lock()

    @classmethod
    def from_env(cls) -> RoomStore | None:
        from explorer.classroom.redis_store import REDIS_ENV

        if os.environ.get(REDIS_ENV, "").strip():  # several processes share the rooms (redis_store.py)
            from explorer.classroom import rooms
            from explorer.classroom.redis_store import RedisStore

            return RedisStore(os.environ[REDIS_ENV].strip(), rooms.IDLE_S)
        path = os.environ.get(ROOMS_ENV, "").strip() or default_path()
        if path == "memory":
            return None
        try:
            return cls(path)
        except (OSError, sqlite3.Error) as e:  # a read-only disk: rooms in memory, said once
            log.warning("class rooms: cannot use %s (%s); rooms live in memory and end with the process", path, e)
            return None

    def save(self, code: str, data: dict) -> None:
        with self.lock:
            self.db.execute("INSERT OR REPLACE INTO rooms (code, saved, data) VALUES (?, ?, ?)",
                            (code, time.time(), json.dumps(data, ensure_ascii=False)))

    def delete(self, code: str, why: str = "") -> None:
        with self.lock:
            self.db.execute("DELETE FROM rooms WHERE code = ?", (code,))

    def load(self, idle_s: float, limit: int) -> list[tuple[float, dict]]:
        """(seconds since its last change, the room's JSON) of every room changed within ``idle_s``, newest first, at
        most ``limit``; the rest are deleted."""
        now = time.time()
        with self.lock:
            self.db.execute("DELETE FROM rooms WHERE saved < ?", (now - idle_s,))
            rows = self.db.execute("SELECT code, saved, data FROM rooms ORDER BY saved DESC").fetchall()
            for code, _, _ in rows[limit:]:
                self.db.execute("DELETE FROM rooms WHERE code = ?", (code,))
        out = []
        for code, saved, data in rows[:limit]:
            try:
                out.append((max(0.0, now - saved), json.loads(data)))
            except ValueError:
                log.warning("class rooms: room %s in %s is not JSON; dropped", code, self.path)
                self.delete(code)
        return out
