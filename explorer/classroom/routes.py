"""Class rooms on HTTP (explorer/classroom/rooms.py): plain routes under /class/ beside Gradio's, as ASGI middleware (app.serve
puts it in the list), so that following the teacher costs one light push channel per student (server-sent events),
not a Gradio queue event per student per change.

    POST /class/new                     -> {code, key}           the teacher's key: kept in the teacher's browser only
    POST /class/<code>/join   {nick}    -> {sid, nick, ...}      a student
    GET  /class/<code>/events?sid=      server-sent events: the student's view of the room at every change
    GET  /class/<code>/teacher?key=     server-sent events: the teacher's panel (students, tallies, shared views)
    GET  /class/<code>/qr.svg?origin=   the join link as a QR code (SVG), for the projector
    POST /class/<code>/<action>         state, reveal, show, back, end (the teacher, with key); follow, answer, share
                                        (a student, with sid)

Every refusal is JSON ``{"error": "<words>"}`` with its status (rooms.RoomError); user text is bounded here and
escaped wherever the page shows it.
"""

from __future__ import annotations

import asyncio
import io
import json
import logging
import re
from collections.abc import Awaitable, Callable
from typing import Any

from explorer.classroom.rooms import ROOMS, Room, RoomError, Rooms

log = logging.getLogger("attention-explorer")
PREFIX = "/class/"
KEEPALIVE_S = 15  # a comment line this often keeps proxies from closing a quiet stream
MAX_BODY = 16_384  # bytes of one POST: a view is at most rooms.STATE_CHARS characters


async def reply(send, status: int, payload: Any, content_type: bytes = b"application/json") -> None:
    body = payload if isinstance(payload, bytes) else json.dumps(payload, ensure_ascii=False).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", content_type), (b"content-length", str(len(body)).encode()),
                            (b"cache-control", b"no-store")]})
    await send({"type": "http.response.body", "body": body})


async def read_json(receive) -> dict:
    chunks, size = [], 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise RoomError("The request was cut off.")
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_BODY:
            raise RoomError(f"A message to a class is at most {MAX_BODY:,} bytes.", 413)
        chunks.append(chunk)
        if not message.get("more_body"):
            break
    try:
        data = json.loads(b"".join(chunks) or b"{}")
    except (ValueError, UnicodeDecodeError):
        raise RoomError("The message is not JSON.") from None
    if not isinstance(data, dict):
        raise RoomError("The message must be a JSON object.")
    return data


def query(scope) -> dict[str, str]:
    from urllib.parse import parse_qs

    return {k: v[0] for k, v in parse_qs(scope.get("query_string", b"").decode("latin-1")).items()}


def address(scope) -> str:
    client = scope.get("client") or ("", 0)
    return str(client[0])


def qr_svg(url: str) -> bytes:
    import segno

    out = io.BytesIO()
    segno.make(url, error="m").save(out, kind="svg", scale=10, border=2, xmldecl=False, title="Join the class")
    return out.getvalue()


def join_url(scope, origin: str, code: str) -> str:
    """The join link on the origin the teacher's page was opened from (checked against the request's own host)."""
    headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
    host = headers.get("x-forwarded-host") or headers.get("host", "")
    m = re.fullmatch(r"(https?)://([^/\s?#]{1,200})", origin or "")
    if not m or m.group(2) != host:
        raise RoomError("The origin must be this server's own address.")
    return f"{origin}/?class={code}"


async def events(send, room: Room, render: Callable[[], dict], version: Callable[[], int]) -> None:
    """Server-sent events: the rendered room now, then again at every change (changes in between coalesce into
    the newest); ends after the room ends."""
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"text/event-stream"), (b"cache-control", b"no-store"),
                            (b"x-accel-buffering", b"no")]})
    last = None
    while True:
        changed = room.changed()  # taken before reading: a change from here on wakes us
        if version() != last or room.ended:
            last = version()
            data = json.dumps(render(), ensure_ascii=False)
            await send({"type": "http.response.body", "body": f"event: room\ndata: {data}\n\n".encode(),
                        "more_body": not room.ended})
            if room.ended:
                return
        try:
            await asyncio.wait_for(changed.wait(), KEEPALIVE_S)
        except asyncio.TimeoutError:
            await send({"type": "http.response.body", "body": b": keep-alive\n\n", "more_body": True})


async def until_disconnect(receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


async def stream(receive, send, room, render, version) -> None:
    """events() until the room ends or the client goes away, whichever comes first."""
    pushing = asyncio.ensure_future(events(send, room, render, version))
    leaving = asyncio.ensure_future(until_disconnect(receive))
    done, pending = await asyncio.wait({pushing, leaving}, return_when=asyncio.FIRST_COMPLETED)
    for task in pending:
        task.cancel()
    for task in done:
        if task is pushing and task.exception() is not None and not isinstance(task.exception(), OSError):
            raise task.exception()


TEACHER = {"state": lambda r, d: r.set_state(d.get("code"), d.get("key"), d.get("state")),
           "reveal": lambda r, d: r.reveal(d.get("code"), d.get("key"), d.get("stop")),
           "show": lambda r, d: r.show(d.get("code"), d.get("key"), d.get("share")),
           "back": lambda r, d: r.bring_back(d.get("code"), d.get("key"))}
STUDENT = {"follow": lambda r, d: r.follow(d.get("code"), d.get("sid"), d.get("following")),
           "answer": lambda r, d: r.answer(d.get("code"), d.get("sid"), d.get("stop"), d.get("option"),
                                           d.get("options")),
           "share": lambda r, d: r.share(d.get("code"), d.get("sid"), d.get("state"), d.get("note"))}


class ClassRoutes:
    def __init__(self, app: Callable[..., Awaitable[None]], rooms: Rooms | None = None) -> None:
        self.app = app
        self.rooms = rooms or ROOMS

    async def __call__(self, scope: dict[str, Any], receive, send) -> None:
        path = scope.get("path", "") if scope["type"] == "http" else ""
        if not path.startswith(PREFIX):
            return await self.app(scope, receive, send)
        try:
            await self.route(scope, receive, send, scope.get("method", ""), path[len(PREFIX):].strip("/").split("/"))
        except RoomError as e:
            log.info("class: refused %s %s: %s", scope.get("method"), path[:60], str(e)[:120])
            await reply(send, e.status, {"error": str(e)})

    async def route(self, scope, receive, send, method: str, parts: list[str]) -> None:
        rooms = self.rooms
        if method == "POST" and parts == ["new"]:
            code, key = rooms.open(address(scope))
            return await reply(send, 200, {"code": code, "key": key})
        if len(parts) != 2:
            raise RoomError("No such class address.", 404)
        code, action = parts
        if method == "GET" and action == "events":
            sid = query(scope).get("sid", "")
            room = rooms.room(code)
            if sid not in room.students:
                raise RoomError("You are not in this class (it may have restarted): join again with its code.", 403)
            return await stream(receive, send, room, lambda: room.for_student(sid), lambda: room.version)
        if method == "GET" and action == "teacher":
            room = rooms.teacher(code, query(scope).get("key"))
            return await stream(receive, send, room, room.for_teacher, lambda: room.teacher_version)
        if method == "GET" and action == "qr.svg":
            room = rooms.room(code)
            return await reply(send, 200, qr_svg(join_url(scope, query(scope).get("origin", ""), room.code)),
                               b"image/svg+xml")
        if method != "POST":
            raise RoomError("No such class address.", 404)
        data = await read_json(receive)
        data["code"] = code
        if action == "join":
            room, student = rooms.join(code, data.get("nick"), address(scope))
            return await reply(send, 200, {"sid": student.sid} | room.for_student(student.sid))
        if action == "end":
            rooms.end(code, data.get("key"))
            return await reply(send, 200, {"ended": True})
        if action in TEACHER:
            return await reply(send, 200, TEACHER[action](rooms, data).for_teacher())
        if action in STUDENT:
            room = STUDENT[action](rooms, data)
            return await reply(send, 200, room.for_student(data.get("sid")))
        raise RoomError("No such class action.", 404)
