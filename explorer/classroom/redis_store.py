"""Rooms shared by several processes (``ATTENTION_EXPLORER_REDIS=redis://host:port/0``): every room is a Redis key
(its JSON, expiring after ``rooms.IDLE_S`` without a change), each change is published on one channel, and every
process applies the changes the others publish to its own copy and wakes its own streams. A change is made under a
per-room Redis lock, on the room as Redis holds it (``Rooms.refresh``), so two processes never overwrite each other.
Needs the ``redis`` client from PyPI (``pip install redis``); without the setting nothing here is imported.
"""

from __future__ import annotations

import json
import logging
import secrets
import threading
from collections.abc import Callable

log = logging.getLogger("attention-explorer")
REDIS_ENV = "ATTENTION_EXPLORER_REDIS"
KEY = "attention-explorer:room:"
LOCK = "attention-explorer:lock:"
CHANNEL = "attention-explorer:rooms"


class RedisStore:
    shared = True  # several processes: Rooms locks and refreshes a room around each change

    def __init__(self, url: str, idle_s: float):
        import redis

        self.redis = redis.Redis.from_url(url, socket_timeout=5)
        self.redis.ping()  # a wrong address stops the start, in words
        # the channel's own connection waits for messages as long as none come (with the 5 s above, a quiet channel
        # timed out every 5 s and was subscribed again a second later: a change published in that second was never
        # heard, and a teacher's panel missed two students' joins in CI); a ping every 30 s finds a dead one
        self.listening = redis.Redis.from_url(url, socket_timeout=None, socket_keepalive=True, health_check_interval=30)
        self.idle_s = int(idle_s)
        self.me = secrets.token_hex(8)  # this process, so that it skips its own messages

    def save(self, code: str, data: dict) -> None:
        self.redis.set(KEY + code, json.dumps(data, ensure_ascii=False), ex=self.idle_s)
        self.redis.publish(CHANNEL, json.dumps({"code": code, "from": self.me}))

    def delete(self, code: str, why: str = "") -> None:
        self.redis.delete(KEY + code)
        self.redis.publish(CHANNEL, json.dumps({"code": code, "from": self.me, "ended": why or "The class ended."}))

    def get(self, code: str) -> dict | None:
        raw = self.redis.get(KEY + code)
        try:
            return json.loads(raw) if raw else None
        except ValueError:
            return None

    def load(self, idle_s: float, limit: int) -> list[tuple[float, dict]]:
        out = []
        for key in self.redis.scan_iter(KEY + "*", count=200):
            data = self.get(key.decode()[len(KEY):])
            if data is not None:
                out.append((max(0.0, self.idle_s - max(0, self.redis.ttl(key))), data))
            if len(out) >= limit:
                break
        return out

    def lock(self, code: str):
        return self.redis.lock(LOCK + code, timeout=5, blocking_timeout=5)

    def listen(self, on_message: Callable[[dict], None]) -> None:
        """``on_message({"code", "ended"?})`` in a thread of its own for every change another process publishes."""
        def run() -> None:
            while True:
                try:
                    pubsub = self.listening.pubsub(ignore_subscribe_messages=True)
                    pubsub.subscribe(CHANNEL)
                    for message in pubsub.listen():
                        data = json.loads(message["data"])
                        if data.get("from") != self.me:
                            on_message(data)
                except Exception as e:  # noqa: BLE001 - Redis went away: say so, subscribe again
                    log.warning("class rooms: Redis channel lost (%s); subscribing again", e)
                    threading.Event().wait(1)

        threading.Thread(target=run, name="rooms-redis", daemon=True).start()
