"""Where rooms live between restarts: one SQLite file (standard library only), a row per open room holding it as
JSON (students, answers, reveals, views sent, the shown view, the teacher's current view). rooms.py writes a room at
every change (``Room.bump``) and deletes it when it ends; on start every room still within ``rooms.IDLE_S`` comes
back, the older ones are deleted. At most ``rooms.MAX_ROOMS`` rows, each bounded by rooms.py's own bounds.

Off the event loop: a change made on the server's loop is handed to one writer thread (the newest JSON of each room,
so a burst of changes is one write) and the route answers once it is committed (``committed``): the loop never waits
for the file, not even when another process holds it locked. A change made off a loop (the start, a script, a test)
is written at once, in order with the writer's.

``ATTENTION_EXPLORER_ROOMS`` names the file (default: ``rooms.sqlite3`` in the user's cache folder); ``memory`` keeps
rooms in this process only, as before (a restart ends them).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sqlite3
import threading
import time
from pathlib import Path

log = logging.getLogger("attention-explorer")
ROOMS_ENV = "ATTENTION_EXPLORER_ROOMS"
WAIT_S = 0.5  # how long a write waits for a file another process holds locked (it was 5 s, on the event loop)
ANSWER_WITHIN_S = 2 * WAIT_S  # a route waits this long for its change to be committed, then answers (kept in memory)


def default_path() -> str:
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return str(Path(cache) / "attention-explorer" / "rooms.sqlite3")


class RoomStore:
    """Rooms as JSON rows of one SQLite file; every write is committed before the change is answered (WAL)."""

    shared = False  # one process: its memory is the truth, the file is for the next start

    def __init__(self, path: str):
        self.path = path
        self.lock = threading.Lock()  # the connection: the writer, or a write off the loop, holds it while writing
        self.ready = threading.Condition()  # the hand-over below (never held while the file is written)
        self.pending: dict[str, str | None] = {}  # room code -> its newest JSON, None to delete it
        self.handed = 0  # changes handed over ...
        self.written = 0  # ... and how many of them the writer has done (committed, or said in the log)
        self.waiters: list[tuple[int, asyncio.AbstractEventLoop, asyncio.Future]] = []
        self.writer: threading.Thread | None = None
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        try:
            self.db = self.connect()
        except sqlite3.OperationalError:  # locked, read-only: not damaged, left as it is (from_env: rooms in memory)
            raise
        except sqlite3.DatabaseError as e:  # not a database (overwritten, truncated): set aside, a fresh one begun
            self.db = self.set_aside(e)

    def connect(self) -> sqlite3.Connection:
        # readable by this user only: it holds student ids, which let their holder answer as that student (SQLite
        # gives its -wal and -shm files the database file's permissions)
        os.close(os.open(self.path, os.O_CREAT | os.O_RDWR, 0o600))
        os.chmod(self.path, 0o600)
        # a file another process holds locked: a change waits at most WAIT_S for it (the event loop waits with it),
        # then lives in this process's memory only (save: said in the log, never an error to the teacher)
        db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=WAIT_S)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")  # WAL + NORMAL: a killed process loses nothing committed
        db.execute("CREATE TABLE IF NOT EXISTS rooms (code TEXT PRIMARY KEY, saved REAL NOT NULL, data TEXT NOT NULL)")
        db.execute("SELECT COUNT(*) FROM rooms").fetchone()  # (a damaged page is found here, not at the first class)
        return db

    def set_aside(self, error: Exception) -> sqlite3.Connection:
        """The damaged file (and its -wal, -shm) renamed to ``<name>.damaged-<time>`` for whoever looks into it, said
        once in the log; a fresh file takes its place: the rooms in it are lost, the app goes on serving."""
        stamp = time.strftime("%Y%m%d-%H%M%S")
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(self.path + suffix):
                os.replace(self.path + suffix, f"{self.path}.damaged-{stamp}{suffix}")
        log.warning("class rooms: %s is damaged (%s); set aside as %s.damaged-%s, its rooms lost", self.path, error,
                    self.path, stamp)
        return self.connect()

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
        self.put(code, json.dumps(data, ensure_ascii=False))  # (here: ``data`` shares the room's lists)

    def delete(self, code: str, why: str = "") -> None:
        self.put(code, None)

    def put(self, code: str, text: str | None) -> None:
        with self.ready:
            self.pending.pop(code, None)
            self.pending[code] = text
            self.handed += 1
            try:
                asyncio.get_running_loop()
            except RuntimeError:
                on_loop = False
            else:
                on_loop = True
                if self.writer is None:
                    self.writer = threading.Thread(target=self.run, name="rooms-writer", daemon=True)
                    self.writer.start()
                self.ready.notify()
        if not on_loop:
            self.flush()

    def run(self) -> None:
        while True:
            with self.ready:
                while not self.pending:
                    self.ready.wait()
            self.flush()

    def flush(self) -> None:
        """Every change handed over so far, written in one transaction. Taken and written under the connection's
        lock, so two flushes never write a room's changes out of order."""
        with self.lock:
            with self.ready:
                batch, self.pending, upto = self.pending, {}, self.handed
            if batch:
                self.write(batch)
            with self.ready:
                self.written = max(self.written, upto)
                due = [w for w in self.waiters if w[0] <= self.written]
                self.waiters = [w for w in self.waiters if w[0] > self.written]
        for _, loop, done in due:
            loop.call_soon_threadsafe(_settle, done)

    def write(self, batch: dict[str, str | None]) -> None:
        """Changes, committed; a file locked by another process (after WAIT_S) or damaged since the start leaves them
        in this process's memory (the rooms go on; a restart would not bring these changes back), said in the log."""
        now = time.time()
        try:
            self.db.execute("BEGIN IMMEDIATE")
            try:
                for code, text in batch.items():
                    if text is None:
                        self.db.execute("DELETE FROM rooms WHERE code = ?", (code,))
                    else:
                        self.db.execute("INSERT OR REPLACE INTO rooms (code, saved, data) VALUES (?, ?, ?)",
                                        (code, now, text))
                self.db.execute("COMMIT")
            except BaseException:
                if self.db.in_transaction:
                    self.db.execute("ROLLBACK")
                raise
        except sqlite3.Error as e:
            log.warning("class rooms: %d change(s) could not be written to %s (%s); the rooms go on in memory",
                        len(batch), self.path, e)

    async def committed(self) -> None:
        """Wait (off the loop) until every change handed over so far is written, at most ANSWER_WITHIN_S."""
        loop = asyncio.get_running_loop()
        with self.ready:
            if self.written >= self.handed:
                return
            done = loop.create_future()
            self.waiters.append((self.handed, loop, done))
        try:
            await asyncio.wait_for(done, ANSWER_WITHIN_S)
        except TimeoutError:
            pass  # the change is applied in memory; the writer says in the log if it cannot be written

    def load(self, idle_s: float, limit: int) -> list[tuple[float, dict]]:
        """(seconds since its last change, the room's JSON) of every room changed within ``idle_s``, newest first, at
        most ``limit``; the rest are deleted."""
        now = time.time()
        try:
            with self.lock:
                self.db.execute("DELETE FROM rooms WHERE saved < ?", (now - idle_s,))
                rows = self.db.execute("SELECT code, saved, data FROM rooms ORDER BY saved DESC").fetchall()
                for code, _, _ in rows[limit:]:
                    self.db.execute("DELETE FROM rooms WHERE code = ?", (code,))
        except sqlite3.DatabaseError as e:  # a damaged page among the rows (a locked file: OperationalError, below)
            if isinstance(e, sqlite3.OperationalError):
                log.warning("class rooms: %s cannot be read now (%s); no room comes back", self.path, e)
                return []
            with self.lock:
                self.db.close()
                self.db = self.set_aside(e)
            return []
        out = []
        for code, saved, data in rows[:limit]:
            try:
                room = json.loads(data)
            except ValueError:
                room = None
            if not isinstance(room, dict) or not isinstance(saved, (int, float)):
                log.warning("class rooms: room %s in %s is not a room's JSON; dropped", code, self.path)
                self.delete(code)
                continue
            out.append((max(0.0, now - saved), room))
        return out


def _settle(done: asyncio.Future) -> None:
    if not done.done():
        done.set_result(None)
