"""Class rooms: a room a teacher opens, students join by a short code, follow the teacher's view in, answer the
lesson's questions in, and send their own views to (the server side; explorer/classroom/routes.py puts it on HTTP).

Everything lives in this process's memory. Nothing personal is kept: a student is a random id and, if they give one,
a nickname; answers are counted per room, never named to the class. A restart ends every room (pages say so; a
student's own view is in their link). Control is a secret key that only the teacher's browser holds: it is never part
of the join link, and only its digest is kept here. No Gradio, no asyncio loop needed to create a room: waiting for a
change (``Room.changed``) is the one awaitable, for the push channel.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import re
import secrets
import time
from collections import deque
from dataclasses import dataclass, field

ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # no look-alikes: no 0/O, 1/I/L
CODE_LEN = 6
MAX_ROOMS = 50  # rooms open at once in this process
MAX_STUDENTS = 150  # students in one room
IDLE_S = 3 * 3600  # a room nobody used for this long ends
NICK_CHARS = 24
NOTE_CHARS = 140
STATE_CHARS = 8_000  # a view: a link's query string (links.js), as long as a long link
STOP_CHARS = 40  # a lesson stop's name
MAX_OPTIONS = 8
MAX_SHARES = 60  # views sent to the teacher in one room; the oldest go first
MESSAGES_PER_MIN = 60  # what one client (a student, the teacher) may send in a minute
JOINS_PER_MIN = 300  # joins from one address in a minute (a school's classes behind one address join at once)
ROOMS_PER_HOUR = 20  # rooms one address may open in an hour (a school's teachers behind one address)


class RoomError(Exception):
    """A refusal in words, with the HTTP status it travels with."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


def digest(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8", "replace")).hexdigest()


def stop_name(value: object) -> str:
    """A lesson stop's name ("stop 6"): letters, digits, spaces, - and _ only (it is a key, never prose)."""
    name = clean(value, "stop", STOP_CHARS)
    if not re.fullmatch(r"[A-Za-z0-9 _-]+", name):
        raise RoomError("A stop's name has only letters, digits, spaces, - and _.")
    return name


def clean(value: object, name: str, limit: int, empty: str | None = None) -> str:
    """User text: a str of at most ``limit`` characters, control characters as spaces, trimmed (it is shown escaped
    wherever it is shown; this only bounds it)."""
    if value is None:
        value = ""
    if not isinstance(value, str):
        raise RoomError(f"The {name} must be text.")
    if len(value) > limit:
        raise RoomError(f"Please keep the {name} to {limit} characters; it has {len(value)}.")
    text = "".join(" " if ord(c) < 32 or ord(c) == 127 else c for c in value).strip()
    if not text and empty is None:
        raise RoomError(f"The {name} is empty.")
    return text or (empty or "")


class Rate:
    """At most ``n`` events per ``window`` seconds for each key (a sliding window of timestamps)."""

    def __init__(self, n: int, window: float):
        self.n, self.window = n, window
        self.seen: dict[str, deque] = {}

    def take(self, key: str, message: str, now: float | None = None) -> None:
        now = time.monotonic() if now is None else now
        q = self.seen.setdefault(key, deque())
        while q and now - q[0] > self.window:
            q.popleft()
        if len(q) >= self.n:
            raise RoomError(message, 429)
        q.append(now)

    def forget(self, key: str) -> None:
        self.seen.pop(key, None)


@dataclass
class Student:
    sid: str
    nick: str
    following: bool = True


@dataclass
class Room:
    code: str
    key_digest: str
    touched: float = field(default_factory=time.monotonic)
    state: str = ""  # the teacher's view (a link's query string); followers show it
    version: int = 0  # changes a follower must hear (state, a reveal, a shown view, the end)
    teacher_version: int = 0  # changes the teacher's panel must hear (joins, answers, shares)
    students: dict[str, Student] = field(default_factory=dict)
    answers: dict[str, dict[str, int]] = field(default_factory=dict)  # stop -> student -> option
    options: dict[str, int] = field(default_factory=dict)  # stop -> how many options it has
    revealed: set[str] = field(default_factory=set)
    shares: list[dict] = field(default_factory=list)
    shown: dict | None = None  # a student's view the teacher showed to everyone
    ended: str = ""  # why the room ended ("" while open)
    _changed: asyncio.Event | None = None

    # -- the push channel: every waiter wakes at a change, reads the newest state (changes in between coalesce)
    def changed(self) -> asyncio.Event:
        if self._changed is None:
            self._changed = asyncio.Event()
        return self._changed

    def bump(self, follower: bool = True) -> None:
        if follower:
            self.version += 1
        self.teacher_version += 1
        self.touched = time.monotonic()
        old, self._changed = self._changed, None
        if old is not None:
            old.set()

    def tally(self, stop: str) -> dict:
        votes = self.answers.get(stop, {})
        counts = [0] * self.options.get(stop, 0)
        for option in votes.values():
            counts[option] += 1
        return {"stop": stop, "answered": len(votes), "counts": counts}

    def for_student(self, sid: str) -> dict:
        """What one student's page needs: the teacher's view, the tallies revealed, their own answers, a shown view."""
        me = self.students.get(sid)
        return {"code": self.code, "version": self.version, "state": self.state, "ended": self.ended,
                "following": bool(me and me.following), "nick": me.nick if me else "",
                "mine": {stop: votes[sid] for stop, votes in self.answers.items() if sid in votes},
                "revealed": {stop: self.tally(stop) for stop in sorted(self.revealed)},
                "shown": self.shown}

    def for_teacher(self) -> dict:
        following = sum(s.following for s in self.students.values())
        return {"code": self.code, "version": self.teacher_version, "state": self.state, "ended": self.ended,
                "students": len(self.students), "following": following, "exploring": len(self.students) - following,
                "tallies": {stop: self.tally(stop) for stop in sorted(self.answers)},
                "revealed": sorted(self.revealed), "shares": self.shares[-20:]}


class Rooms:
    """Every open room of this process, with the bounds on rooms, students, text and messages."""

    def __init__(self):
        self.rooms: dict[str, Room] = {}
        self.messages = Rate(MESSAGES_PER_MIN, 60)
        self.joins = Rate(JOINS_PER_MIN, 60)
        self.opens = Rate(ROOMS_PER_HOUR, 3600)

    # -- finding, sweeping ---------------------------------------------------------------------------------
    def sweep(self, now: float | None = None) -> None:
        now = time.monotonic() if now is None else now
        for room in list(self.rooms.values()):
            if now - room.touched > IDLE_S:
                self.close(room, "The class ended after 3 hours without activity.")

    def close(self, room: Room, why: str) -> None:
        room.ended = why
        room.bump()
        self.rooms.pop(room.code, None)
        for sid in room.students:
            self.messages.forget(sid)

    def room(self, code: object) -> Room:
        self.sweep()
        text = code.strip().upper() if isinstance(code, str) else ""
        room = self.rooms.get(text)
        if room is None:
            shown = "".join(c for c in text if c in ALPHABET)[:CODE_LEN]
            raise RoomError(f"There is no class with the code “{shown}”: check the code, or ask your teacher for "
                            "the link (a class ends when the teacher ends it or the server restarts).", 404)
        return room

    def teacher(self, code: object, key: object) -> Room:
        room = self.room(code)
        if not isinstance(key, str) or not hmac.compare_digest(digest(key), room.key_digest):
            raise RoomError("Only the teacher who opened this class can do that.", 403)
        self.messages.take("t:" + room.code, "Too many changes in a minute: wait a moment.")
        return room

    def student(self, room: Room, sid: object) -> Student:
        student = room.students.get(sid) if isinstance(sid, str) else None
        if student is None:
            raise RoomError("You are not in this class (it may have restarted): join again with its code.", 403)
        self.messages.take(sid, "Too many messages in a minute: wait a moment.")
        return student

    # -- the teacher ---------------------------------------------------------------------------------------
    def open(self, address: str = "") -> tuple[str, str]:
        """A new room -> (join code, the teacher's key)."""
        self.sweep()
        if len(self.rooms) >= MAX_ROOMS:
            raise RoomError(f"{MAX_ROOMS} classes are open on this server: try again later.", 503)
        self.opens.take("a:" + address, f"At most {ROOMS_PER_HOUR} classes an hour from one address.")
        while True:
            code = "".join(secrets.choice(ALPHABET) for _ in range(CODE_LEN))
            if code not in self.rooms:
                break
        key = secrets.token_urlsafe(24)
        self.rooms[code] = Room(code, digest(key))
        return code, key

    def set_state(self, code: object, key: object, state: object) -> Room:
        room = self.teacher(code, key)
        room.state = clean(state, "view", STATE_CHARS, empty="")
        room.shown = None
        room.bump()
        return room

    def reveal(self, code: object, key: object, stop: object) -> Room:
        room = self.teacher(code, key)
        room.revealed.add(stop_name(stop))
        room.bump()
        return room

    def show(self, code: object, key: object, share_id: object) -> Room:
        """Every follower jumps to a student's view (and the teacher's view becomes it)."""
        room = self.teacher(code, key)
        share = next((s for s in room.shares if s["id"] == share_id), None)
        if share is None:
            raise RoomError("That view is no longer in the list.", 404)
        room.state = share["state"]
        room.shown = {"id": share["id"], "nick": share["nick"], "note": share["note"]}
        room.bump()
        return room

    def bring_back(self, code: object, key: object) -> Room:
        room = self.teacher(code, key)
        for s in room.students.values():
            s.following = True
        room.bump()
        return room

    def end(self, code: object, key: object) -> None:
        self.close(self.teacher(code, key), "The teacher ended the class.")

    # -- students ------------------------------------------------------------------------------------------
    def join(self, code: object, nick: object = "", address: str = "") -> tuple[Room, Student]:
        self.joins.take("a:" + address, "Too many joins from this address in a minute: wait a moment.")
        room = self.room(code)
        if len(room.students) >= MAX_STUDENTS:
            raise RoomError(f"This class is full ({MAX_STUDENTS} students).", 403)
        name = clean(nick, "nickname", NICK_CHARS, empty=f"Student {len(room.students) + 1}")
        student = Student(secrets.token_urlsafe(12), name)
        room.students[student.sid] = student
        room.bump(follower=False)
        return room, student

    def follow(self, code: object, sid: object, following: object) -> Room:
        room = self.room(code)
        student = self.student(room, sid)
        student.following = following is True
        room.bump(follower=False)
        return room

    def answer(self, code: object, sid: object, stop: object, option: object, options: object) -> Room:
        """A student's answer at a lesson stop: counted once (the first answer; a later one does not change it)."""
        room = self.room(code)
        self.student(room, sid)
        name = stop_name(stop)
        if not isinstance(options, int) or isinstance(options, bool) or not 1 <= options <= MAX_OPTIONS:
            raise RoomError(f"A stop has 1 to {MAX_OPTIONS} options.")
        if not isinstance(option, int) or isinstance(option, bool) or not 0 <= option < options:
            raise RoomError(f"The answer must be an option from 0 to {options - 1}.")
        if room.options.setdefault(name, options) != options:
            raise RoomError("That stop has a different number of options.")
        room.answers.setdefault(name, {}).setdefault(sid, option)
        room.bump(follower=name in room.revealed)
        return room

    def share(self, code: object, sid: object, state: object, note: object = "") -> Room:
        room = self.room(code)
        student = self.student(room, sid)
        share = {"id": secrets.token_urlsafe(6), "nick": student.nick, "state": clean(state, "view", STATE_CHARS),
                 "note": clean(note, "note", NOTE_CHARS, empty="")}
        room.shares = (room.shares + [share])[-MAX_SHARES:]
        room.bump(follower=False)
        return room


ROOMS = Rooms()
