"""A bell: asyncio.Event's set / is_set, and a future may be hooked to it, so that one coroutine waits for any of
several bells, the client leaving and a timeout without a task of its own for each (routes.stream: a push stream is
one task besides its request's, where it was four: 17 KB of the process a stream instead of 19, 500 streams)."""

from __future__ import annotations

import asyncio


class Bell:
    __slots__ = ("_rung", "_waiting")

    def __init__(self) -> None:
        self._rung = False
        self._waiting: list[asyncio.Future] = []

    def is_set(self) -> bool:
        return self._rung

    def set(self) -> None:
        """Rings once, for good: every hooked future is done with True, and every later one at once."""
        self._rung = True
        waiting, self._waiting = self._waiting, []
        for fut in waiting:
            if not fut.done():
                fut.set_result(True)

    def hook(self, fut: asyncio.Future) -> None:
        if self._rung:
            if not fut.done():
                fut.set_result(True)
        else:
            self._waiting.append(fut)

    def unhook(self, fut: asyncio.Future) -> None:
        try:
            self._waiting.remove(fut)
        except ValueError:
            pass


async def any_of(bells: list[Bell], task: asyncio.Future, seconds: float) -> bool:
    """True as soon as one of ``bells`` rings or ``task`` ends, False after ``seconds`` with neither."""
    loop = asyncio.get_running_loop()
    fut = loop.create_future()

    def ring(_: object = None, result: bool = True) -> None:
        if not fut.done():
            fut.set_result(result)

    timer = loop.call_later(seconds, ring, None, False)
    task.add_done_callback(ring)
    for bell in bells:
        bell.hook(fut)
    try:
        return await fut
    finally:
        timer.cancel()
        task.remove_done_callback(ring)
        for bell in bells:
            bell.unhook(fut)
