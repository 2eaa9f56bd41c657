"""Connections that send nothing, or a request a byte at a time, are closed; one peer holds a share of the sockets.

uvicorn closes an idle keep-alive connection 5 s after its last response, but not a connection that has sent
nothing yet, half its headers or half its body: each holds a descriptor for ever, and at the descriptor limit the
whole app stops answering (an attacker's 200 half-sent connections cost nothing to keep). ``GuardedH11`` is
uvicorn's own h11 protocol with three more rules:

- a request must arrive whole (headers and body) within ``READ_S`` of the connection opening or of its last
  response ending; else the connection is closed. A request that has arrived is never cut, however long its answer
  streams (the class's push streams, a result stream).
- one peer address holds at most ``PER_PEER`` connections at once when no proxy is trusted in front; behind a
  trusted proxy (a Space's) every visitor arrives from the proxy's address, and the proxy bounds each visitor's own
  connections (docs/deploy.md);
- the process holds at most ``TOTAL`` (three quarters of its descriptors): one more is closed at once, so that the
  accept loop never runs out of descriptors (and asyncio's traceback for that, were it to happen, is logged once a
  minute).

``install()`` makes it the protocol uvicorn's "auto" (and "h11") setting loads; Gradio builds uvicorn's Config with
that setting. It is called before ``launch``.
"""

from __future__ import annotations

import logging
import resource
import time

import h11
import uvicorn.config
from uvicorn.protocols.http.h11_impl import H11Protocol

from explorer.serving.addresses import trusted_proxies

READ_S = 15.0  # a request (headers and a body of at most edges' 1 MB) from a phone on a slow network fits in this
DESCRIPTORS = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
PER_PEER = max(128, DESCRIPTORS // 3)
# connections open at once in all: a quarter of the descriptors stays for the files, the database and the accept loop
# (attacker helper 34: three addresses, a third each, took all 20,000; the server stalled and asyncio logged 312,952
# "Too many open files" tracebacks in 30 s)
TOTAL = max(256, DESCRIPTORS * 3 // 4)
ACCEPT_LOG_EVERY_S = 60.0  # asyncio's line for an accept that failed for want of descriptors: once a minute at most
closed = {"slow": 0, "peer": 0, "total": 0}  # connections this process closed, for tests and benches


def peers(server_state) -> dict[str, int]:
    """Connections open per peer address, of one server (kept on its uvicorn ServerState: a server that stops takes
    its counts with it, whatever it did not close one by one; tests run many servers in one process)."""
    counts = getattr(server_state, "ae_peers", None)
    if counts is None:
        counts = server_state.ae_peers = {}
    return counts


class GuardedH11(H11Protocol):
    _guard = None
    _peer: str | None = None

    def connection_made(self, transport) -> None:  # type: ignore[override]
        super().connection_made(transport)  # (this server's ``connections`` now holds it)
        peer = self.client[0] if self.client else ""
        if len(self.connections) > TOTAL:
            closed["total"] += 1
            transport.close()
            return
        if not trusted_proxies():
            counts = peers(self.server_state)
            if counts.get(peer, 0) >= PER_PEER:
                closed["peer"] += 1
                transport.close()
                return
            counts[peer] = counts.get(peer, 0) + 1
            self._peer = peer
        self._arm()

    def connection_lost(self, exc) -> None:
        if self._guard is not None:
            self._guard.cancel()
            self._guard = None
        if self._peer is not None:
            counts = peers(self.server_state)
            left = counts.get(self._peer, 1) - 1
            if left > 0:
                counts[self._peer] = left
            else:
                counts.pop(self._peer, None)
            self._peer = None
        super().connection_lost(exc)

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._arm()  # the next request on this connection has READ_S too

    def _arm(self) -> None:
        if self._guard is not None:
            self._guard.cancel()
        self._guard = self.loop.call_later(READ_S, self._too_slow)

    def _too_slow(self) -> None:
        self._guard = None
        # IDLE: no request begun (nothing sent, or headers not finished); SEND_BODY: its body not finished
        if self.transport.is_closing() or self.conn.their_state not in (h11.IDLE, h11.SEND_BODY):
            return
        if self.conn.their_state is h11.IDLE and self.cycle is not None and not self.cycle.response_complete:
            return  # (an answer still being written to a request that has arrived)
        closed["slow"] += 1
        if self.cycle is not None:
            self.cycle.disconnected = True
            self.cycle.message_event.set()
        self.transport.close()


class _AcceptFailures(logging.Filter):
    """asyncio's "socket.accept() out of system resource" (a traceback each, at every try of its accept loop): one
    a minute goes through, the rest are dropped."""

    def __init__(self) -> None:
        super().__init__()
        self.said_at = -ACCEPT_LOG_EVERY_S

    def filter(self, record: logging.LogRecord) -> bool:
        if "out of system resource" not in record.getMessage():
            return True
        now = time.monotonic()
        if now - self.said_at < ACCEPT_LOG_EVERY_S:
            return False
        self.said_at = now
        return True


_accept_failures = _AcceptFailures()


def install() -> None:
    path = f"{__name__}:GuardedH11"
    uvicorn.config.HTTP_PROTOCOLS["auto"] = path
    uvicorn.config.HTTP_PROTOCOLS["h11"] = path
    logging.getLogger("asyncio").addFilter(_accept_failures)  # (adding it again is a no-op)
