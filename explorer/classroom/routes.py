"""Class rooms on HTTP (explorer/classroom/rooms.py): plain routes under /class/ beside Gradio's, as ASGI middleware (app.serve
puts it in the list), so that following the teacher costs one light push channel per student (server-sent events),
not a Gradio queue event per student per change.

    POST /class/new                     -> {code, key}           the teacher's key: kept in the teacher's browser only
    POST /class/<code>/join   {nick}    -> {sid, nick, ...}      a student
    GET  /class/<code>/events?sid=      server-sent events: the student's view of the room at every change
    GET  /class/<code>/teacher?key=     server-sent events: the teacher's panel (students, tallies, shared views)
    GET  /class/<code>/qr.svg?origin=   the join link as a QR code (SVG), for the projector
    POST /class/<code>/<action>         state, reveal, show, back, lesson, remove, lock, size, end (the teacher, with key);
                                        follow, answer, share (a student, with sid); check (either: is the room there for me?)

Every refusal is JSON ``{"error": "<words>"}`` with its status (rooms.RoomError); user text is bounded and cleaned
in rooms.py and escaped wherever the page shows it. A POST must be ``application/json`` (415 otherwise), and when it
carries an ``Origin`` header that origin must be this server's own (403): a page elsewhere cannot post to a class.
A POST without ``Origin`` comes from no browser (curl, the benchmarks) and is taken. A code that is no room, a key
not the room's and an id not in it get one answer (rooms.NoRoom, 404) and count as misses of the client's browser
(its ``ae_browser`` cookie, at its address) and of its address; past rooms.MISSES_PER_MIN in a minute from the browser,
or rooms.ADDRESS_MISSES_PER_MIN from the address, a route that takes a code answers 429, unless the request carries
the room's key or one of its students' ids (a class behind one address is not shut out by one guesser among it). The client's
address is the TCP peer, or with ``ATTENTION_EXPLORER_TRUSTED_PROXY=N`` (N proxies in front, each appending to
X-Forwarded-For; 1 by default on a Hugging Face Space) the N-th address of X-Forwarded-For from the right; without it,
every request that carries X-Forwarded-For counts as one address ("forwarded"), so a forged header buys nothing.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import io
import json
import logging
import re
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any

from explorer.classroom.bell import Bell, any_of
from explorer.classroom.rooms import ROOMS, NoRoom, Rate, Room, RoomError, Rooms, english
from explorer.serving.addresses import address, trusted_proxies
from i18n import COOKIE, from_accept, known, num, speaking, t

log = logging.getLogger("attention-explorer")
PREFIX = "/class/"
KEEPALIVE_S = 15  # a comment line this often keeps proxies from closing a quiet stream
# A stream's messages come at most this often: the changes in between coalesce into the newest (attacker helper 86:
# one address's 800 streams in its own 10 rooms, fed as fast as each room's teacher allowance lets, each message
# built for each stream, kept the event loop busy and an honest Translate took 1.0-1.9 s)
PUSH_GAP_S = 0.25
WIRE_ROOMS = 32  # rooms whose newest class-wide message is kept encoded (student_event)
MAX_BODY = 16_384  # bytes of one POST: a view is at most rooms.STATE_CHARS characters
RETRY_S = 10  # what a refused stream asks the page to wait (Retry-After)
# The join links one room's QR code is drawn for (the projector's origin, a proxy's, a tunnel's): each new link costs a
# drawing (7-21 ms of CPU), and the client names the host, so a made-up Host per request drew without end (helper 22:
# 60 a second from one address took honest Translate's p50 from 0.1 s to 1.8 s). Drawn off the event loop, too.
# A room keeps its QR_LINKS newest links (an older one is drawn again when asked: a made-up host never shuts out the
# teacher's own, helper 30's 429 after three made-up hosts lasted until a restart), and an address has a drawing of
# a new link QR_DRAWS_PER_MIN times a minute.
QR_LINKS = 3
QR_DRAWS_PER_MIN = 12
QR_ROOMS = 4096  # rooms whose drawn links are remembered (the oldest forgotten first)
_qr_links: dict[str, list[str]] = {}
_qr_draws = Rate(QR_DRAWS_PER_MIN, 60)


def as_bytes(payload: Any) -> bytes:
    """JSON as UTF-8; text that is not (a lone surrogate rooms.py refused at the door) as escapes, never a 500."""
    return json.dumps(payload, ensure_ascii=False).encode("utf-8", "backslashreplace")


async def reply(send, status: int, payload: Any, content_type: bytes = b"application/json") -> None:
    body = payload if isinstance(payload, bytes) else as_bytes(payload)
    headers = [(b"content-type", content_type), (b"content-length", str(len(body)).encode()),
               (b"cache-control", b"no-store")]
    if status in (429, 503):  # a flood's refusals: the server lets go of the connection now, not when the client does
        headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def read_json(receive) -> dict:
    chunks, size = [], 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise RoomError(t("class.err.cut_off"))
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_BODY:
            raise RoomError(t("class.err.body", n=num(MAX_BODY, 0)), 413)
        chunks.append(chunk)
        if not message.get("more_body"):
            break
    try:
        data = json.loads(b"".join(chunks) or b"{}")
    except (ValueError, UnicodeDecodeError, RecursionError):  # RecursionError: thousands of nested [ or {
        raise RoomError(t("class.err.not_json")) from None
    if not isinstance(data, dict):
        raise RoomError(t("class.err.not_object"))
    return data


def query(scope) -> dict[str, str]:
    from urllib.parse import parse_qs

    return {k: v[0] for k, v in parse_qs(scope.get("query_string", b"").decode("latin-1")).items()}


def headers_of(scope) -> dict[str, str]:
    return {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}


def language(scope) -> str | None:
    """The language of the page that sent this request: its ``ae_lang`` cookie (i18n; i18n.js sets it), else
    the browser's Accept-Language; None (English) for a client that sends neither."""
    headers = headers_of(scope)
    for part in headers.get("cookie", "").split(";"):
        name, _, value = part.partition("=")
        if name.strip() == COOKIE and known(value.strip().strip('"')):
            return known(value.strip().strip('"'))
    return from_accept(headers.get("accept-language"))


BROWSER_COOKIE = "ae_browser"  # a random name the page keeps in its browser (class.js): misses are counted by it
_BROWSER = re.compile(r"[A-Za-z0-9_-]{8,40}")


def browser(scope) -> str:
    """The browser a request comes from, by the name its page chose (``ae_browser`` cookie); "" for a client that
    sends none (curl, a script: all of them one browser of their address)."""
    for part in headers_of(scope).get("cookie", "").split(";"):
        name, _, value = part.partition("=")
        if name.strip() == BROWSER_COOKIE and _BROWSER.fullmatch(value.strip()):
            return value.strip()
    return ""


def check_post(scope) -> None:
    """A POST to a class: JSON only, and from this server's own pages when a browser sent it (Origin)."""
    headers = headers_of(scope)
    if headers.get("content-type", "").split(";")[0].strip().lower() != "application/json":
        raise RoomError(t("class.err.content_type"), 415)
    # a browser says where a request comes from in Sec-Fetch-Site, which no page can set: only this site's own pages
    # may post (a page elsewhere that set X-Forwarded-Host to its own host passed the check below: Gradio's CORS
    # answers the preflight for any origin)
    site = headers.get("sec-fetch-site")
    if site is not None and site != "same-origin":
        raise RoomError(t("class.err.origin"), 403)
    origin = headers.get("origin")
    if origin is None:
        return  # no browser sends a POST without it: curl, a script
    # the host the page was opened on: Host, or, behind a trusted proxy, the proxy's X-Forwarded-Host (a client that
    # is no browser can forge any header anyway)
    hosts = {headers.get("host", "")} | ({headers.get("x-forwarded-host", "")} if trusted_proxies() else set())
    m = re.fullmatch(r"https?://([^/\s?#]{1,200})", origin)
    if not m or m.group(1) not in hosts - {""}:
        raise RoomError(t("class.err.origin"), 403)


@functools.lru_cache(maxsize=64)
def qr_svg(url: str) -> bytes:
    """The join link as a QR code: drawn once per room's link (7-21 ms of CPU on the event loop each time before)."""
    import segno

    out = io.BytesIO()
    segno.make(url, error="m").save(out, kind="svg", scale=10, border=2, xmldecl=False, title=t("class.qr_title"))
    return out.getvalue()


def join_url(scope, origin: str, code: str) -> str:
    """The join link on the origin the teacher's page was opened from (checked against the request's own host)."""
    headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
    host = headers.get("x-forwarded-host") or headers.get("host", "")
    m = re.fullmatch(r"(https?)://([^/\s?#]{1,200})", origin or "")
    if not m or m.group(2) != host:
        raise RoomError(t("class.err.qr_origin"))
    return f"{origin}/?class={code}"


_wire: OrderedDict[str, tuple[tuple, bytes]] = OrderedDict()  # room code -> ((room, version, ended), its JSON)


def student_event(room: Room, sid: str) -> tuple[bytes, bool]:
    """(one student's message as JSON, whether it is their stream's last): the class-wide part encoded once a version
    for every stream of the room (the WIRE_ROOMS rooms changed last), their own part added; a student the teacher
    removed hears it once (and their stream ends)."""
    if sid not in room.students and not room.ended:
        return as_bytes(room.for_student(sid) | {"ended": english("class.ended.removed"),
                                                 "ended_key": "class.ended.removed"}), True
    key = (id(room), room.version, room.ended)  # (a code an ended room had may name a new one)
    kept = _wire.get(room.code)
    if kept is None or kept[0] != key:
        kept = _wire[room.code] = (key, as_bytes(room.for_class())[:-1])  # (without its closing brace)
        while len(_wire) > WIRE_ROOMS:
            _wire.popitem(last=False)
    _wire.move_to_end(room.code)
    return kept[1] + b"," + as_bytes(room.for_one(sid))[1:], bool(room.ended)


def teacher_event(room: Room) -> tuple[bytes, bool]:
    return as_bytes(room.for_teacher()), bool(room.ended)


async def stream(receive, send, room: Room, render: Callable[[], tuple[bytes, bool]], version: Callable[[], int],
                 end: Bell | None = None) -> None:
    """Server-sent events: ``render()``'s message now, then again at a change (at most one a PUSH_GAP_S: changes in
    between coalesce into the newest), a comment line every KEEPALIVE_S while nothing changes; until the room ends (or
    a removed student has been told so), the client goes away or ``end`` rings (the stream's place given to another
    class's: Rooms.fair_place; then the response is closed, and the page reconnects). One task besides the request's
    own: the one that hears the client leave (bell.any_of waits for the rest)."""
    leaving = asyncio.ensure_future(until_disconnect(receive))
    bells = [room.changed()] if end is None else [room.changed(), end]
    loop = asyncio.get_running_loop()
    sent_at = -PUSH_GAP_S
    try:
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"text/event-stream"), (b"cache-control", b"no-store"),
                                (b"x-accel-buffering", b"no")]})
        last = None
        while True:
            bells[0] = room.changed()  # taken before reading: a change from here on rings it
            if version() != last or room.ended:
                wait = sent_at + PUSH_GAP_S - loop.time()
                if wait > 0 and not room.ended:
                    await any_of(bells[1:], leaving, wait)  # (the changes meanwhile coalesce into the newest)
                    if leaving.done():
                        return
                    continue
                last = version()
                body, over = render()  # over: the room ended, or this student was removed
                await send({"type": "http.response.body", "body": b"event: room\ndata: " + body + b"\n\n",
                            "more_body": not over})
                sent_at = loop.time()
                if over:
                    return
            if leaving.done():
                return
            if end is not None and end.is_set():
                await send({"type": "http.response.body", "body": b"", "more_body": False})
                return
            if not await any_of(bells, leaving, KEEPALIVE_S):
                await send({"type": "http.response.body", "body": b": keep-alive\n\n", "more_body": True})
    except OSError:  # (the client went away while a message was sent)
        return
    finally:
        leaving.cancel()


async def until_disconnect(receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


TEACHER = {"state": lambda r, d: r.set_state(d.get("code"), d.get("key"), d.get("state")),
           "reveal": lambda r, d: r.reveal(d.get("code"), d.get("key"), d.get("stop")),
           "show": lambda r, d: r.show(d.get("code"), d.get("key"), d.get("share")),
           "back": lambda r, d: r.bring_back(d.get("code"), d.get("key")),
           "lesson": lambda r, d: r.lesson_at(d.get("code"), d.get("key"), d.get("stop"), d.get("options"),
                                              d.get("answer"), d.get("fresh", False), d.get("ids")),
           "remove": lambda r, d: r.remove(d.get("code"), d.get("key"), d.get("share"), d.get("student"),
                                              d.get("students")),
           "lock": lambda r, d: r.lock(d.get("code"), d.get("key"), d.get("locked")),
           "size": lambda r, d: r.resize(d.get("code"), d.get("key"), d.get("size"))}
STUDENT = {"follow": lambda r, d: r.follow(d.get("code"), d.get("sid"), d.get("following")),
           "answer": lambda r, d: r.answer(d.get("code"), d.get("sid"), d.get("stop"), d.get("option"),
                                           d.get("options"), d.get("ids")),
           "share": lambda r, d: r.share(d.get("code"), d.get("sid"), d.get("state"), d.get("note"))}


class ClassRoutes:
    def __init__(self, app: Callable[..., Awaitable[None]], rooms: Rooms | None = None,
                 trusted: int | None = None) -> None:
        self.app = app
        self.rooms = rooms or ROOMS
        self.trusted = trusted_proxies() if trusted is None else trusted

    async def __call__(self, scope: dict[str, Any], receive, send) -> None:
        path = scope.get("path", "") if scope["type"] == "http" else ""
        if not path.startswith(PREFIX):
            return await self.app(scope, receive, send)
        client = address(scope, self.trusted)
        if self.rooms.loop is None:  # changes another process publishes are applied on this loop (redis_store.py)
            self.rooms.loop = asyncio.get_running_loop()
        with speaking(language(scope)):  # what this request's page reads is in its language
            try:
                await self.route(scope, receive, send, scope.get("method", ""),
                                 path[len(PREFIX):].strip("/").split("/"), client)
            except RoomError as e:
                if isinstance(e, NoRoom):
                    self.rooms.missed(client, browser(scope))
                log.info("class: refused %s %s: %s", scope.get("method"), path[:60], str(e)[:120])
                await reply(send, e.status, {"error": str(e)})

    async def route(self, scope, receive, send, method: str, parts: list[str], client: str) -> None:
        rooms = self.rooms
        if method == "POST":
            check_post(scope)
        if method == "POST" and parts == ["new"]:
            code, key = rooms.open(client)
            return await self.answer(send, {"code": code, "key": key})
        if len(parts) != 2:
            raise RoomError(t("class.err.no_address"), 404)
        code, action = parts
        # past MISSES_PER_MIN wrong codes, keys or ids from this address: only a request carrying this room's key or
        # one of its students' ids goes on (rooms.admit); a join, a QR code or a guess waits
        held = rooms.held(client, browser(scope))

        def admitted(key=None, sid=None) -> None:
            if held:
                rooms.admit(code, key, sid)

        if method == "GET" and action == "events":
            sid = query(scope).get("sid", "")
            admitted(sid=sid)
            room = rooms.room(code)
            rooms.student(room, sid, charge=False)
            with rooms.streaming(room, "s:" + sid, client) as end:
                return await stream(receive, send, room, lambda: student_event(room, sid), lambda: room.version, end)
        if method == "GET" and action == "teacher":
            admitted(key=query(scope).get("key", ""))
            room = rooms.teacher(code, query(scope).get("key"), charge=False)  # a reload is no change
            with rooms.streaming(room, "t:" + room.code, client):
                return await stream(receive, send, room, lambda: teacher_event(room), lambda: room.teacher_version)
        if method == "GET" and action == "qr.svg":
            # the teacher's panel asks with the room's key: its drawings are counted per room, not per address, and
            # go on past the address's misses (helper 33: someone behind the school's address drew 12 codes for
            # made-up hosts and the teacher's QR code was refused)
            key = query(scope).get("key")
            if key:
                admitted(key=key)
                room = rooms.teacher(code, key, charge=False)
            elif held:
                raise RoomError(t("class.err.misses"), 429)
            else:
                room = rooms.room(code)
            link = join_url(scope, query(scope).get("origin", ""), room.code)
            drawn = _qr_links.pop(room.code, [])  # (taken out and put back: the newest room last)
            _qr_links[room.code] = drawn
            if link not in drawn:
                _qr_draws.take("t:" + room.code if key else client, t("class.err.qr_links", n=QR_DRAWS_PER_MIN))
                drawn[:] = (drawn + [link])[-QR_LINKS:]
                while len(_qr_links) > QR_ROOMS:
                    del _qr_links[next(iter(_qr_links))]
            return await reply(send, 200, await asyncio.to_thread(qr_svg, link), b"image/svg+xml")
        if method != "POST":
            raise RoomError(t("class.err.no_address"), 404)
        data = await read_json(receive)
        data["code"] = code
        if held and action == "join":  # a join carries no key or id
            raise RoomError(t("class.err.misses"), 429)
        admitted(key=data.get("key"), sid=data.get("sid"))
        if action == "join":
            name = browser(scope)
            mark = hashlib.sha256(("browser:" + name).encode()).hexdigest()[:16] if name else ""
            room, student = rooms.join(code, data.get("nick"), client, mark)
            return await self.answer(send, {"sid": student.sid} | room.for_student(student.sid))
        if action == "end":
            rooms.end(code, data.get("key"))
            return await self.answer(send, {"ended": True})
        if action == "check":
            room = rooms.check(code, data.get("key"), data.get("sid"))
            return await reply(send, 200, {"open": True, "code": room.code})
        if action in TEACHER:
            return await self.answer(send, TEACHER[action](rooms, data).for_teacher())
        if action in STUDENT:
            room = STUDENT[action](rooms, data)
            return await self.answer(send, room.for_student(data.get("sid")))
        raise RoomError(t("class.err.no_action"), 404)

    async def answer(self, send, payload: dict) -> None:
        """A change's answer, sent once the rooms file holds it (store.py writes off the loop): a class restarted
        after an answer has that change."""
        committed = getattr(self.rooms.store, "committed", None)
        if committed is not None:
            await committed()
        await reply(send, 200, payload)
