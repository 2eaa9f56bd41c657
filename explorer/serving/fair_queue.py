"""Gradio's queue with two rules for long work (attribution, patching, attention through training: the "long"
concurrency group in app.py), so that one visitor cannot hold up a class:

- **A few per client.** A client may have at most ``limits.LONG_PER_CLIENT`` long requests queued or running;
  one more is refused at once with a message that says so (a page or a gradio_client is one client by its
  session; a plain HTTP call without a session by its address). At most ``limits.LONG_QUEUE`` long requests
  wait in all.
- **Nobody listening, nothing run.** A request (long or short) posted to ``/gradio_api/call/<name>`` or
  ``/gradio_api/queue/join`` whose result stream nobody has opened ``limits.UNHEARD_GRACE_S`` seconds after it was
  queued is dropped before it runs (four such
  posts once burned 30 CPU-seconds). A page that closes is already dropped by Gradio itself.

Short work goes first at the model gate, in turns by address there too (explorer/serving/store.py); a client may
have ``limits.SHORT_PER_CLIENT`` of it waiting and an address ``limits.SHORT_PER_ADDRESS``, and a full queue refuses
the newest event of the address holding the most rather than the newcomer; an event no server function answers (an
unknown index, or one of the page's own browser-side events) is refused in words, not with a traceback. It is taken
in turns by address instead of first come, first served: each address's first waiting request, then each one's second,
and so on (``interleaved``), so that one visitor's 50 costly translations posted at once (beam 8, 100 tokens, 300
characters: helper 22) wait behind each other and not in front of everyone's next Translate (28 s before). Written against
gradio 6.31 (pinned); app.serve gives the app's queue this class, as blocks.py does for sessions.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from gradio import route_utils
from gradio.exceptions import Error
from gradio.queueing import Queue
from gradio.server_messages import ProcessCompletedMessage
from gradio.utils import error_payload

from explorer.serving import limits, listeners
from explorer.serving.addresses import address
from i18n import COOKIE, from_accept, known, speaking, t

log = logging.getLogger("attention-explorer")
LONG = "long"  # the concurrency id of long work

dropped = 0  # long requests dropped because nobody was listening (tests, benchmarks)


def heard(event: Any) -> bool:
    return listeners.listening(event.session_hash, event._id)


def language_of(request: Any) -> str | None:
    """The page's language (its ae_lang cookie, else its Accept-Language) from a plain HTTP request."""
    cookies = getattr(request, "cookies", None) or {}
    headers = getattr(request, "headers", None) or {}
    return known(cookies.get(COOKIE)) or from_accept(headers.get("accept-language"))


def address_of(request: Any) -> str:
    """The request's address as the per-address limits read it (behind a Space's proxy: the visitor's)."""
    scope = getattr(request, "scope", None)
    if isinstance(scope, dict):
        return "address:" + address(scope)
    return "address:" + str(getattr(getattr(request, "client", None), "host", None))


def client_of(body: Any, request: Any) -> str:
    """A page or gradio_client by its session; a plain HTTP call without one by its address."""
    if getattr(body, "session_hash", None):
        return "session:" + str(body.session_hash)
    return address_of(request)


def interleaved(events: list[Any], key) -> list[Any]:
    """``events`` in turns by ``key``: every key's first in their order, then every key's second, ... (stable)."""
    seen: dict[Any, int] = {}
    turns = []
    for i, event in enumerate(events):
        k = key(event)
        seen[k] = seen.get(k, -1) + 1
        turns.append((seen[k], i))
    return [events[i] for _, i in sorted(turns)]


def address_key(event: Any) -> str:
    return getattr(event, "ae_address", "")


_said = {"at": 0.0, "since": 0}


def said_dropped(event: Any) -> None:
    """One log line a second at most for the requests dropped unheard (a flood of them wrote one each)."""
    now = time.monotonic()
    if now - _said["at"] < 1.0:
        _said["since"] += 1
        return
    more = f" (and {_said['since']} more since the last line)" if _said["since"] else ""
    _said.update(at=now, since=0)
    log.warning("dropped a %s request nobody was listening for (%s)%s", event.fn.api_name,
                getattr(event, "ae_client", "?")[:40], more)


class FairQueue(Queue):
    def _in_turns(self, concurrency_id: str) -> None:
        """That group's waiting events in turns by address (no await since the push: get_events waits for it)."""
        waiting = self.event_queue_per_concurrency_id.get(concurrency_id)
        if waiting is not None and len(waiting.queue) > 1:
            waiting.queue[:] = interleaved(waiting.queue, address_key)

    def _long_events(self) -> list[Any]:
        queued = list(self.event_queue_per_concurrency_id[LONG].queue) if LONG in self.event_queue_per_concurrency_id \
            else []
        running = [e for job in self.active_jobs if job for e in job if e.concurrency_id == LONG]
        return queued + running

    async def push(self, body, request, username):
        fn = None
        if body.fn_index is not None:
            try:
                fn = route_utils.get_fn(self.blocks, None, body)
            except Exception:
                fn = None
        if fn is None or fn.fn is None:  # (Gradio answered 500 and logged a traceback of 3-6 KB: helper 30)
            return False, "No such function.", "error"
        client, address = client_of(body, request), address_of(request)
        if fn.concurrency_id != LONG:
            return await self._push_short(body, request, username, client, address)
        long = self._long_events()
        mine = [e for e in long if getattr(e, "ae_client", None) == client]
        theirs = sum(getattr(e, "ae_address", None) == address for e in long)
        waiting = self.event_queue_per_concurrency_id.get(LONG)
        refusal = None
        # a toast on the page: in its language (the page's cookie; this runs before the event has a request context)
        with speaking(language_of(request)):
            if len(mine) >= limits.LONG_PER_CLIENT:
                refusal = t("server.error.long_mine", n=len(mine))
            elif theirs >= limits.LONG_PER_ADDRESS:
                refusal = t("server.error.long_address", n=theirs)
            elif waiting is not None and len(waiting.queue) >= limits.LONG_QUEUE:
                refusal = t("server.error.long_queue", n=len(waiting.queue))
        ok, event_id, state = await super().push(body, request, username)
        if not ok:
            return ok, event_id, state
        event = self.event_ids_to_events.get(event_id)
        if event is None:
            return ok, event_id, state
        if refusal is None:
            event.ae_client, event.ae_address = client, address
            self._in_turns(LONG)  # (helper 22: one address's 24 attributions held a student's rollout over 20 s)
            return ok, event_id, state
        await self._refuse(event, refusal)
        return ok, event_id, state

    async def _refuse(self, event: Any, message: str) -> None:
        """``event`` taken out of the queue and answered at once with ``message``, as its error: a page shows it as a
        toast and a client raises it (a refused join would reach them as a bare "400 Bad Request")."""
        async with self.delete_lock:
            queue = self.event_queue_per_concurrency_id[event.concurrency_id].queue
            if event in queue:
                queue.remove(event)
            self.event_ids_to_events.pop(event._id, None)
        content = error_payload(Error(message, print_exception=False), True)
        self.send_message(event, ProcessCompletedMessage(output=content, title="Error", success=False))

    def _waiting(self) -> list[Any]:
        return [e for q in self.event_queue_per_concurrency_id.values() for e in q.queue]

    async def _push_short(self, body, request, username, client: str, address: str):
        waiting = self._waiting()
        mine = sum(getattr(e, "ae_client", None) == client for e in waiting)
        theirs = sum(getattr(e, "ae_address", None) == address for e in waiting)
        refusal = None
        with speaking(language_of(request)):
            if mine >= limits.SHORT_PER_CLIENT:
                refusal = t("server.error.short_mine", n=mine)
            elif theirs >= limits.SHORT_PER_ADDRESS:
                refusal = t("server.error.short_address", n=theirs)
        if refusal is None and self.max_size is not None and len(waiting) >= self.max_size:
            await self._make_room(address, theirs)
        ok, event_id, state = await super().push(body, request, username)
        event = self.event_ids_to_events.get(event_id) if ok else None
        if event is None:
            return ok, event_id, state
        event.ae_client, event.ae_address = client, address
        if refusal is not None:
            await self._refuse(event, refusal)
            return ok, event_id, state
        self._in_turns(event.concurrency_id)
        return ok, event_id, state

    async def _make_room(self, address: str, theirs: int) -> None:
        """A full queue: the newest waiting event of the address holding the most (more than this newcomer's) is
        refused in words, so that a flood from one address takes places from itself, never from everyone else."""
        counts: dict[str, int] = {}
        for e in self._waiting():
            counts[getattr(e, "ae_address", "")] = counts.get(getattr(e, "ae_address", ""), 0) + 1
        most = max(counts, key=counts.get, default=None)
        if most is None or most == address or counts[most] <= theirs + 1:
            return
        newest = max((e for e in self._waiting() if getattr(e, "ae_address", "") == most), key=lambda e: e.enqueue_time)
        with speaking(None):
            await self._refuse(newest, t("server.error.short_address", n=counts[most]))

    def get_events(self):
        """Gradio's choice of the next events, after dropping posted requests nobody is listening for."""
        global dropped
        now = time.monotonic()
        # (short work too: 50 translations posted and never read ran all the same, 27 s of CPU: helper 22)
        for q in list(self.event_queue_per_concurrency_id.values()):
            if not q.queue:
                continue
            # (and events a page's or script's /queue/join posted whose session never opened its stream: helper
            # 30's 820 posts, their client gone, kept both cores busy for 244 s)
            for event in [e for e in q.queue if now - e.enqueue_time > limits.UNHEARD_GRACE_S and not heard(e)]:
                q.queue.remove(event)
                self.event_ids_to_events.pop(event._id, None)
                self.pending_event_ids_session.get(event.session_hash, set()).discard(event._id)
                event.alive = False
                dropped += 1
                said_dropped(event)
        return super().get_events()
