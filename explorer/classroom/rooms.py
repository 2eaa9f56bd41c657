"""Class rooms: a room a teacher opens, students join by a short code, follow the teacher's view in, answer the
lesson's questions in, and send their own views to (the server side; explorer/classroom/routes.py puts it on HTTP).

Rooms live in this process's memory and, by default, in a SQLite file (explorer/classroom/store.py), written at
every change: a restart brings every open room back, and pages reconnect by themselves. Nothing personal is kept: a
student is a random id and, if they give one, a nickname; answers are counted per room, never named to the class.
Control is a secret key that only the teacher's browser holds: it is never part
of the join link, and only its digest is kept here. No Gradio, no asyncio loop needed to create a room: waiting for a
change (``Room.changed``, a bell: bell.py) is the one awaitable, for the push channel.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import hmac
import json
import math
import re
import resource
import secrets
import time
import unicodedata
import urllib.parse
from collections import Counter, OrderedDict, deque
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from urllib.parse import parse_qs

from explorer.classroom.bell import Bell
from explorer.classroom.store import RoomStore
from explorer.serving.addresses import site
from i18n import DEFAULT, t
from i18n import speaking as _speaking

ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # no look-alikes: no 0/O, 1/I/L
CODE_LEN = 6
MAX_ROOMS = 200  # rooms open at once in this process (a room nobody is in costs a few KB)
# rooms one address holds open at once (a school's teachers behind one address): with the room's opener kept in the
# rooms file, a restart does not reset it; three addresses took all 50 rooms of the process in 0.29 s and kept them
# (helper 22): now MAX_ROOMS / OPEN_PER_ADDRESS = 20 addresses would be needed, each holding its rooms alive
OPEN_PER_ADDRESS = 10
MAX_STUDENTS = 150  # students in one room, at most (the teacher sets the room's own size up to it)
MAX_BARRED = 300  # browsers a room keeps barred (the oldest forgotten first)
ROOM_SIZE = 60  # a new room's size: a class and then some; a teacher with a lecture hall sets more (Rooms.resize)
IDLE_S = 3 * 3600  # a room nobody used for this long ends
EMPTY_S = 10 * 60  # a room with no student and no teacher's page open ends after this long (one process's store)
# ... and a room with students but no page of anyone open (no stream) and no change for this long: a class's lunch
# break fits, while rooms filled with fake students nobody watches no longer hold their places for IDLE_S
# (attacker helper 33: one fake student kept a room for 3 hours)
UNWATCHED_S = 45 * 60
NICK_CHARS = 24
NOTE_CHARS = 140
STATE_CHARS = 8_000  # a view: a link's query string (links.js), as long as a long link
STOP_CHARS = 40  # a lesson stop's name
MAX_OPTIONS = 8
OPTION_CHARS = 160  # one option's text, as the teacher's panel shows it
# views sent to the teacher: a room keeps the newest of each of its students (kept_shares), the panel lists the
# newest MAX_SHARES of them; together they hold at most SHARE_CHARS, as 20 of the largest did (a room is written
# whole at every change: 432 KB at 60 of the largest, 1.2 ms a change); past it a new view is refused
MAX_SHARES = 20
MESSAGES_PER_MIN = 60  # what one student may send in a minute
# what the teacher's page may send in a minute: it posts its view every 0.4 s while a slider moves (150 a minute), and
# opening the teacher's stream is not counted
TEACHER_MESSAGES_PER_MIN = 240
MISSES_PER_MIN = 30  # wrong codes, keys or student ids from one browser in a minute; then its code routes wait
# ... and from one address, all its browsers together (a school's NAT, a Space's proxy: one student's 31 typos or
# guesses held every join behind the address, attacker helper 22), or a guesser who changes cookies each time
ADDRESS_MISSES_PER_MIN = 300
ROOM_JOINS_PER_MIN = 60  # joins into one room from one address in a minute: a class behind one address joins at
# once, while one visitor needs minutes to fill a room of MAX_STUDENTS (one of the default ROOM_SIZE, a moment: the
# teacher locks it once the class is in and removes whom they do not know; helper 33)
# joins from one address in a minute into all rooms, a coarse flood guard: twice what the rooms one address may hold
# open take, so that one student behind a school's (or a Space's) address, filling rooms of their own, cannot spend it
# and keep the other classes behind that address out (attacker helper 30: 300, spent by one student); a refused join
# (locked, full, removed) costs nothing
JOINS_PER_MIN = 2 * OPEN_PER_ADDRESS * ROOM_JOINS_PER_MIN
ROOMS_PER_HOUR = 20  # rooms one address may open in an hour (a school's teachers behind one address)
# ... and one IPv6 /48 (a site, or one person's free tunnel: helper 82 filled all 200 rooms from 24 of its /56s):
# rooms live 3 hours at most untouched, so a site holds at most 3 x 40 of the process's MAX_ROOMS
SITE_ROOMS_PER_HOUR = 40
RATE_KEYS = 20_000  # addresses (or ids) one rate table remembers; the least recently seen go first
# the lesson's stops as its page names them (explorer/page/static/lesson.js: stopKey(), eight stops)
STOPS = tuple(f"stop {i}" for i in range(1, 9))
# a student may not appear as the teacher (in any language the page speaks)
NOT_TEACHER_NICKS = {"teacher", "the teacher", "lehrkraft", "die lehrkraft", "lehrer", "lehrerin"}
# push streams (server-sent events) open at once: a student's page (and a reload's), the teacher's (projector and
# laptop), a room, this process; the process's cap stays far below its file descriptors, so that a flood is refused
# in words and the server's accept loop keeps its descriptors
# (2: a page and its reload's; with 3, 100 fake students took a room's whole ROOM_STREAMS and the late honest ones
# were refused, helper 22: at 2, MAX_STUDENTS students fit in it whatever each holds)
STREAMS_PER_STUDENT = 2
STREAMS_PER_TEACHER = 4
ROOM_STREAMS = 2 * MAX_STUDENTS  # students' streams in one room (the teacher's are not counted here)
MAX_STREAMS = max(64, min(3_000, resource.getrlimit(resource.RLIMIT_NOFILE)[0] // 4))
# streams from one address (all its rooms' students and teachers): a school's few classes behind one address fit;
# one visitor's own rooms full of fake students take at most this share of the process's
STREAMS_PER_ADDRESS = max(32, MAX_STREAMS // 5)
# ... but a room's first ROOM_FLOOR streams from an address are never refused for that share, up to ADDRESS_CEILING
# from the address in all: a class behind one address (a school's network) keeps its phones and their reloads while
# someone behind the same address fills rooms of their own with fakes (the siege bench: 6 reloads refused); those
# rooms take their floor too, so the ceiling bounds the address (the rooms it may open in an hour, floored, fit)
ROOM_FLOOR = 40
ADDRESS_CEILING = 3 * STREAMS_PER_ADDRESS
# a teacher's panel opens past MAX_STREAMS and past its address's share, up to this many more in the process (every
# room's teacher pages fit; below the descriptors): attacker helper 33 took all 3,000 streams from 5 addresses and
# the honest teacher's panel got 503, where the teacher's panel always opens
TEACHER_RESERVE = min(MAX_ROOMS * STREAMS_PER_TEACHER, MAX_STREAMS)


class RoomError(Exception):
    """A refusal in words, with the HTTP status it travels with."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


def minutes(seconds: float) -> int:
    """Whole minutes to say for a wait (at least 1)."""
    return max(1, math.ceil(seconds / 60))


def digest(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8", "replace")).hexdigest()


def stop_name(value: object) -> str:
    """A lesson stop's name: one of the lesson's own (``STOPS``, "stop 1" to "stop 8"), nothing else."""
    name = clean(value, "stop", STOP_CHARS)
    if not re.fullmatch(r"[A-Za-z0-9 _-]+", name):
        raise RoomError(t("class.err.stop_chars"))
    if name not in STOPS:
        raise RoomError(t("class.err.stop_range", first=STOPS[0], last=STOPS[-1]))
    return name


FIELDS = {"nickname": "class.field.nickname", "note": "class.field.note", "view": "class.field.view",
          "option": "class.field.option", "stop": "class.field.stop"}


def field_name(name: str) -> str:
    """A field's name as a refusal names it ("nickname", "note", "view", "option", "stop"), in the reader's language."""
    return t(FIELDS[name]) if name in FIELDS else name


# why a room ended: kept (and sent) as its English text, with its catalogue key beside it for each page's language
ENDED_KEYS = ("class.ended.teacher", "class.ended.idle", "class.ended.gone", "class.ended.removed",
              "class.ended.empty", "class.ended.unwatched")


def english(key: str, **values) -> str:
    """The English text of ``key`` (what a room keeps: it is shown to everyone, each page in its own language)."""
    with _speaking(DEFAULT):
        return t(key, **values)


def ended_key(text: str) -> str:
    """The catalogue key of an ended room's English text ("" for another text): each page shows it in its language."""
    return next((key for key in ENDED_KEYS if english(key) == text), "")


def plain(value: str, name: str) -> str:
    """``value`` without lone surrogates (refused: they cannot be sent on as UTF-8), with control characters (C0,
    C1, line and paragraph separators) as spaces, and without format characters (zero-width, bidi overrides and
    isolates, soft hyphens, byte-order marks: Unicode's Cf)."""
    if value.isascii() and value.isprintable():
        return value
    out = []
    for c in value:
        kind = unicodedata.category(c)
        if kind == "Cs":
            raise RoomError(t("class.err.not_text", name=field_name(name)))
        if kind == "Cc" or kind in ("Zl", "Zp"):
            out.append(" ")
        elif kind != "Cf":
            out.append(c)
    return "".join(out)


def clean(value: object, name: str, limit: int, empty: str | None = None) -> str:
    """User text, before it is stored: a str of at most ``limit`` characters, cleaned (``plain``) and trimmed (it
    is shown escaped wherever it is shown; this bounds it and keeps it printable)."""
    if value is None:
        value = ""
    if not isinstance(value, str):
        raise RoomError(t("class.err.not_str", name=field_name(name)))
    if len(value) > limit:
        raise RoomError(t("class.err.too_long", name=field_name(name), limit=limit, n=len(value)))
    text = plain(value, name).strip()
    if not text and empty is None:
        raise RoomError(t("class.err.empty", name=field_name(name)))
    return text or (empty or "")


# letters of other scripts that look like Latin ones (Cyrillic, Greek, Cherokee, small capitals): a nickname's look,
# for telling names apart (helper 22 got in as "Ꭲeacher" and "ᴛeacher"); and letters that show as nothing (Hangul
# fillers: "ㅤTeacher" looked like the teacher)
LOOKALIKE = str.maketrans("аеорсухіјѕԁһкмтвнԛԝαεορτυικνχ" "ᎢᎬᎪᏟᎻᎥᎫᏦᎷᏃᎠᏴᏒᏞᏚᎳᏙ" "ᴛᴇᴀᴄʜɪᴊᴋʟᴍɴᴏᴘʀᴜᴠᴡʏᴢ",
                          "aeopcyxijsdhkmtbhqwaeoptuikvx" "teachijkmzdbrlswv" "teachijklmnopruvwyz",
                          "\u3164\u115f\u1160\uffa0")
# ... and Latin's own look-alikes, Armenian's and others' (helper 30: "Teɑcher", "Teaϲher", "Teacհer", "Teacheɾ",
# "Teacheꭇ", "Tеасhег" got in); marks on letters ("Ţeacher", "Teacheṙ") are dropped before (looks)
# ... and (helper 33: "ΤΕΑϹΗΕR", "ᏆᎬᎪᏟᎻᎬᎡ", "ТеасհеԻ" got in) Greek capitals as they fold, the rest of Cherokee's
# Latin-looking letters (they fold to capitals) and Armenian's
MORE_LOOKALIKE = str.maketrans("ɑɡɩıɪʋɾꭇгհոսօϲσϳɛꞵꮪ" "ηβζμγ" "ᏆᎡᏀᎶᏞᏢᏃᏙᏔᎹᏌᏉᏇᎩᏩᏴ" "իցզաւ",
                               "agiiivrrrhnuoccjebs" "hbzmy" "trggl" "pzvwmsvwyvb" "rgqwl")
# ... and (helper 35: "ꓔeacher", "ꓮna" beside "Ana") Lisu's letters, drawn as Latin capitals
LISU_LOOKALIKE = str.maketrans("ꓐꓑꓓꓔꓖꓗꓙꓚꓜꓝꓟꓠꓡꓢꓣꓦꓧꓪꓫꓬꓮꓰꓲꓳꓴ", "bpdtgkjczfmnlsrvhwxyaeiou")
# ... and Coptic's small letters (its capitals fold to them) and Canadian syllabics drawn as Latin letters ("ⲦⲈⲀⲤⲎⲈR",
# "Ꭲᗴᗩᑕᕼᗴᖇ": more than all but two letters of the word in no table read as any letter)
COPTIC_SYLLABICS_LOOKALIKE = str.maketrans("ⲁⲃⲉⲍⲏⲓⲕⲙⲛⲟⲣⲥⲧⲩⲭ" "ᗩᗅᗷᑕᗪᗴᖴᕼᒍᒪᗰᑎᑭᖇᔕᑌᐯᗯ᙭ᘔ",
                                           "abezhikmnopctyx" "aabcdefhjlmnprsuvwxz")
# a Latin letter with a hook, stroke, curl or tail ("Ƭeacher", "Teacħer": helper 35) reads as the letter it is drawn
# from, as its Unicode name says ("LATIN SMALL LETTER H WITH STROKE"); marks that combine are dropped in ``looks``
LATIN_NAMED = re.compile(r"LATIN (?:SMALL |CAPITAL )?LETTER (?:SMALL CAPITAL )?([A-Z])(?: WITH .*)?$")


@functools.lru_cache(maxsize=4096)
def latin_base(ch: str) -> str:
    if ch.isascii() or not ch.isalpha():
        return ch
    m = LATIN_NAMED.match(unicodedata.name(ch, ""))
    return m.group(1).lower() if m else ch


# words that name the teacher: a nickname with one of them in it is refused ("Your teacher", "Lehrer Müller")
TEACHER_WORDS = ("teacher", "lehrer", "lehrkraft", "instructor", "admin", "moderator")
# the room's own names for a student who gave none ("Student 3", "Schüler/in 3"): a nickname that looks like one is
# given the room's own next name instead (a fake posing as an anonymous classmate: helper 30)
ROOM_NICK = re.compile(r"(student|schulerin|schuler)\d+")


def looks(name: str) -> str:
    """How a nickname looks, for telling names apart: width forms folded (NFKC), case folded, look-alike letters of
    other scripts read as Latin, and only letters and digits kept ("Tеacher" in Cyrillic, "Ｔｅａｃｈｅｒ" and
    "T e a c h e r" all look like "teacher"; a name of dots and spaces looks like nothing)."""
    folded = unicodedata.normalize("NFKC", name).casefold().translate(LOOKALIKE).translate(MORE_LOOKALIKE)
    folded = "".join(map(latin_base, folded.translate(LISU_LOOKALIKE).translate(COPTIC_SYLLABICS_LOOKALIKE)))
    bare = "".join(ch for ch in unicodedata.normalize("NFKD", folded) if not unicodedata.combining(ch))
    return "".join(ch for ch in bare if ch.isalnum())


# letters and digits that read alike in the panel's font: "AIi" (a capital i) and "Ali", "0lga" and "Olga", "Ernma"
# and "Emma" (helper 34: the teacher could not tell whose view to show, or whom to remove)
ALIKE = str.maketrans("l1|0", "iiio")


def skeleton(name: str) -> str:
    """``looks`` with the letters and digits that read alike in one font made one: for telling names apart."""
    return looks(name).translate(ALIKE).replace("rn", "m").replace("vv", "w")


# capitals of other scripts drawn as Latin capitals, read before case folding turns them into small letters of
# another look (Greek's Nu "Ν" folds to "ν", read as "v"; Eta "Η" to "η": helper 82's "ADMIΝ" got in)
CAPITAL_LOOKALIKE = str.maketrans("ΑΒΕΖΗΙΚΜΝΟΡΤΥΧη", "ABEZHIKMNOPTYXn")  # (and a small eta, drawn as n)
# digits written for letters, for the words for the teacher only ("Teach3r", "7eacher", "4dmin": helper 82)
LEET = str.maketrans("34705$", "eatoss")


def wildcards(name: str) -> str:
    """A nickname read one character at a time as ``skeleton`` reads it, with "?" for each letter or symbol that
    reads as no Latin letter or digit (spaces, punctuation and marks left out): a look-alike no table here lists,
    or a dot drawn as a letter inside a word ("Teaꞏcher")."""
    out = []
    for ch in unicodedata.normalize("NFKC", name.translate(CAPITAL_LOOKALIKE)):
        kind = unicodedata.category(ch)
        if kind[0] in "PZMC":
            continue
        seen = looks(ch).translate(ALIKE)
        out.append(seen if seen and seen.isascii() else "?")
    return "".join(out)


def _most_read(seen: str, word: str) -> int:
    """The most letters of ``word`` read in ``seen`` at once: each letter read as itself or stood for by one "?",
    any "?" between two of them left over (a dot inside the word); -1 where the word is not there."""
    @functools.cache
    def best(j: int, k: int) -> int:
        if k == len(word):
            return 0
        if j == len(seen):
            return -1
        options = []
        if seen[j] in (word[k], "?"):
            rest = best(j + 1, k + 1)
            if rest >= 0:
                options.append(rest + (seen[j] == word[k]))
        if seen[j] == "?" and 0 < k:
            options.append(best(j + 1, k))
        return max(options, default=-1)

    return max((best(i, 0) for i in range(len(seen)) if seen[i] in (word[0], "?")), default=-1)


def poses_as_teacher(name: str) -> bool:
    """A word for the teacher in the name, read with look-alikes of any script or symbol standing for any of its
    letters but two, dots drawn as letters inside it and digits for letters (helper 80 got in as "Tєacher",
    "⊤eacher", "Teacheꝛ"; helper 82 with more than a third of the letters swapped, "Teaꞏcher", "Teach3r"): a name
    wholly of another script reads as no Latin word and is read by ``looks`` alone."""
    seen = wildcards(name).translate(LEET)
    return any(_most_read(seen, word.translate(ALIKE)) >= 2 for word in TEACHER_WORDS)


def shown_state(view: str, teacher: str) -> str:
    """A student's view as every follower is to show it: without the results it asks each page to compute again
    (``run``: helper 30's shown view had every page run a 128-step attribution, 12 s of a core each) and in the
    teacher's language, not the sender's (its ``lang`` switched every page). The view is a link's query string."""
    def key(part: str) -> str:
        return urllib.parse.unquote_plus(part.split("=", 1)[0])

    kept = [part for part in view.split("&") if part and key(part) not in ("run", "lang")]  # (as written: encoded)
    lang = [part for part in (teacher or "").split("&") if key(part) == "lang"][-1:]
    return "&".join(kept + lang)


def view_query(state: str) -> str:
    """A sent view as one canonical query string, read as the page reads a link (URLSearchParams: a leading "?"
    dropped, each key's first value), its values decoded and cleaned (``plain``) and encoded again: what the panel
    quotes is then what Show to everyone puts on every screen (helper 33: "?text=…&text=…" showed the panel the
    second sentence and every screen the first), and an encoded NUL or bidi override is cleaned like typed text."""
    first: dict[str, str] = {}
    for k, v in urllib.parse.parse_qsl(state.removeprefix("?"), keep_blank_values=True):  # (STATE_CHARS bounds it)
        first.setdefault(plain(k, "view"), plain(v, "view"))
    return urllib.parse.urlencode(first, quote_via=urllib.parse.quote)


def ids_digest(ids: object) -> str:
    """Which question an answer given ahead of the teacher's answers, kept in the room as 16 characters: its ids
    themselves (8 options of 160 characters, at each of 8 stops, for each student) made a room of 60 fakes 6 MB, every
    change of which was written whole on the event loop (helper 30: honest Translate 10 s). A list: a row kept before."""
    if isinstance(ids, str):
        return ids
    return hashlib.sha256(json.dumps(ids, ensure_ascii=False).encode()).hexdigest()[:16]


def option_ids(ids: object, n: int) -> list[str]:
    """A question's ``n`` options in words no language changes (a lesson's ids: tokens, numbers, English text)."""
    if not isinstance(ids, list) or len(ids) != n:
        raise RoomError(t("class.err.options", n=MAX_OPTIONS))
    return [clean(i, "option", OPTION_CHARS) for i in ids]


class Rate:
    """At most ``n`` events per ``window`` seconds for each key (a sliding window of timestamps), remembering at most
    ``keys`` keys: the least recently seen go first (an LRU), so that many addresses cost bounded memory."""

    def __init__(self, n: int, window: float, keys: int | None = None):
        self.n, self.window, self.keys = n, window, keys or RATE_KEYS
        self.seen: OrderedDict[str, deque] = OrderedDict()

    def _window(self, key: str, now: float) -> deque:
        q = self.seen.get(key)
        if q is None:
            q = self.seen[key] = deque()
            while len(self.seen) > self.keys:
                self.seen.popitem(last=False)
        else:
            self.seen.move_to_end(key)
        while q and now - q[0] > self.window:
            q.popleft()
        return q

    def full(self, key: str, now: float | None = None) -> bool:
        """Whether ``key`` has used its ``n`` (nothing taken)."""
        if key not in self.seen:
            return False
        return len(self._window(key, time.monotonic() if now is None else now)) >= self.n

    def wait(self, key: str, now: float | None = None) -> float:
        """Seconds until ``key`` may take one more (0 if it may now)."""
        now = time.monotonic() if now is None else now
        q = self._window(key, now)
        return 0.0 if len(q) < self.n else max(0.0, q[0] + self.window - now)

    def take(self, key: str, message: str, now: float | None = None) -> None:
        now = time.monotonic() if now is None else now
        q = self._window(key, now)
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
    browser: str = ""  # the digest of the browser's own name (routes.browser), "" for a client that sends none


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
    streams: int = 0  # students' push streams open now
    stop: int = -1  # the lesson's stop the teacher leads the class at (0-7; 8: the end; -1: none)
    questions: dict[str, dict] = field(default_factory=dict)  # stop -> its options' text and the right one (teacher's)
    # stop -> student -> the digest of the ids of the question they answered (ids_digest), for answers given before
    # the teacher's question
    early: dict[str, dict[str, str]] = field(default_factory=dict)
    back: int = 0  # how many times the teacher brought everyone back: a page that sees it change follows at once
    run: int = 0  # how many times the teacher started the lesson anew: each run's answers are counted afresh
    locked: bool = False  # the teacher let nobody new join
    barred: list[str] = field(default_factory=list)  # browsers the teacher removed (their digests, the newest last)
    size: int = ROOM_SIZE  # students the room takes (the teacher's, 1 to MAX_STUDENTS): then a join is refused in words
    opener: str = ""  # the digest of the address that opened it (OPEN_PER_ADDRESS), never the address itself
    _changed: Bell | None = None
    _save: object = None  # Rooms' writer to its store (store.py), called at every change

    # -- the push channel: every waiter wakes at a change, reads the newest state (changes in between coalesce)
    def changed(self) -> Bell:
        if self._changed is None:
            self._changed = Bell()
        return self._changed

    def bump(self, follower: bool = True) -> None:
        if follower:
            self.version += 1
        self.teacher_version += 1
        self.touched = time.monotonic()
        if self._save is not None:
            self._save(self)
        self.wake()

    def wake(self) -> None:
        """Every waiter of this process reads the room again."""
        old, self._changed = self._changed, None
        if old is not None:
            old.set()

    def tally(self, stop: str) -> dict:
        votes = self.answers.get(stop, {})
        counts = [0] * self.options.get(stop, 0)
        for option in votes.values():
            counts[option] += 1
        asked = self.questions.get(stop)  # which question the counts answer (a page shows them only under it)
        return {"stop": stop, "answered": len(votes), "counts": counts,
                "ids": asked.get("ids", asked["options"]) if asked else None}

    def for_student(self, sid: str) -> dict:
        """What one student's page needs: the teacher's view, the tallies revealed, their own answers, a shown view."""
        return self.for_class() | self.for_one(sid)

    def for_class(self) -> dict:
        """The part of for_student every student of the room gets alike: it changes only with ``version`` (and
        ``ended``), so a change's message is encoded once for the whole class (routes.student_event)."""
        return {"code": self.code, "version": self.version, "state": self.state, "ended": self.ended,
                "ended_key": ended_key(self.ended) if self.ended else "",
                # the question each stop's answers answer (the teacher's, in words no language changes): a page that
                # shows another question there (a view shown to everyone, translated before the teacher's new
                # question reached the room) takes no answer of the old one for it
                "asked": {stop: q.get("ids", q["options"]) for stop, q in self.questions.items()},
                "revealed": {stop: self.tally(stop) for stop in sorted(self.revealed)},
                "shown": self.shown, "back": self.back, "lesson": self.stop, "run": self.run}

    def for_one(self, sid: str) -> dict:
        """The part of for_student that is this student's own (never empty)."""
        me = self.students.get(sid)
        return {"following": bool(me and me.following), "nick": me.nick if me else "",
                "mine": {stop: votes[sid] for stop, votes in self.answers.items() if sid in votes}}

    def for_teacher(self) -> dict:
        following = sum(s.following for s in self.students.values())
        return {"code": self.code, "version": self.teacher_version, "state": self.state, "ended": self.ended,
                "ended_key": ended_key(self.ended) if self.ended else "",
                "students": len(self.students), "following": following, "exploring": len(self.students) - following,
                "tallies": {stop: self.tally(stop) for stop in sorted(self.answers)},
                "revealed": sorted(self.revealed), "shown": self.shown, "lesson": self.stop, "run": self.run,
                "questions": {stop: {"options": q["options"], "ids": q.get("ids", q["options"]),
                                     "answer": q["answer"] if stop in self.revealed else None}
                              for stop, q in self.questions.items()},
                # each view sent as the panel lists it (its sentence, cut, and tab), never whole: Show to everyone
                # takes the whole view from the room (20 views of 8,000 characters in every panel news: 3.2 MB/s)
                "shares": [brief(share) for share in self.shares[-MAX_SHARES:]],
                # every student, for the teacher to remove any of them: by a name for their id that is no key (the id
                # itself lets its holder answer as that student)
                "roster": [{"id": public_id(s.sid), "nick": s.nick, "following": s.following}
                           for s in self.students.values()],
                "locked": self.locked, "size": self.size, "max_size": MAX_STUDENTS,
                "back": self.back}  # (back: Bring everyone back, counted)


    # -- kept between restarts (store.py): everything but the push channel's waiters and the open streams
    def dump(self) -> dict:
        return {"code": self.code, "key_digest": self.key_digest, "state": self.state, "version": self.version,
                "teacher_version": self.teacher_version, "back": self.back,
                "students": [[s.sid, s.nick, s.following, s.browser] for s in self.students.values()],
                "barred": self.barred,
                "answers": self.answers, "options": self.options, "revealed": sorted(self.revealed),
                "shares": self.shares, "shown": self.shown, "stop": self.stop, "questions": self.questions,
                "run": self.run, "early": self.early, "locked": self.locked, "size": self.size, "opener": self.opener}

    def apply(self, data: dict) -> bool:
        """Another process's change (redis_store.py): this copy becomes ``data``, its waiters woken. -> changed"""
        mine = {k: v for k, v in self.dump().items() if "version" not in k}
        if mine == {k: v for k, v in data.items() if "version" not in k}:
            return False
        other = Room.load(data, 0)
        for name in ("state", "back", "students", "answers", "options", "revealed", "shares", "shown", "stop",
                     "questions", "run", "early", "locked", "size", "barred"):
            setattr(self, name, getattr(other, name))
        self.version += 1
        self.teacher_version += 1
        self.touched = time.monotonic()
        self.wake()
        return True

    @classmethod
    def load(cls, data: dict, idle: float) -> Room:
        room = cls(data["code"], data["key_digest"], touched=time.monotonic() - idle, state=data["state"],
                   version=data["version"] + 1, teacher_version=data["teacher_version"] + 1, back=data.get("back", 0),
                   students={row[0]: Student(*row[:4]) for row in data["students"]},
                   barred=[str(b) for b in data.get("barred", [])][-MAX_BARRED:],
                   answers=data["answers"], options=data["options"], revealed=set(data["revealed"]),
                   shares=data["shares"], shown=data["shown"], stop=data.get("stop", -1),
                   questions=data.get("questions", {}), run=data.get("run", 0), early=data.get("early", {}),
                   locked=bool(data.get("locked", False)), size=room_size(data.get("size", ROOM_SIZE)),
                   opener=str(data.get("opener", "")))
        return room


def room_size(n: object) -> int:
    """A size kept in the rooms file, within 1..MAX_STUDENTS (a damaged or older row: the default)."""
    return n if isinstance(n, int) and not isinstance(n, bool) and 1 <= n <= MAX_STUDENTS else ROOM_SIZE


def public_id(sid: str) -> str:
    """A student's name in the teacher's roster: derived from their id, and no way back to it."""
    return hashlib.sha256(("roster:" + sid).encode()).hexdigest()[:12]


def shared(method):
    """A change to a room that several processes may hold (redis_store.py): made under the room's lock, on the room
    as the store holds it. With one process (SQLite, memory) the method as it is."""
    @functools.wraps(method)
    def run(self, code, *args, **kwargs):
        if not getattr(self.store, "shared", False):
            return method(self, code, *args, **kwargs)
        with self.store.lock(str(code).strip().upper()):
            self.refresh(code)
            return method(self, code, *args, **kwargs)
    return run


SHARE_TEXT_CHARS = 80  # of a sent view's sentence, as the panel quotes it
SHARE_CHARS = MAX_SHARES * STATE_CHARS  # of all the views a room keeps, together


def kept_shares(shares: list[dict]) -> list[dict] | None:
    """The views a room keeps (one a student in it: a removed student's go with them), or None where together they
    would hold more than SHARE_CHARS: the newest is refused in words, never one kept before it dropped (helper 80:
    20 fakes' views pushed Kid5's out for good; helper 82: fakes' views a character smaller than an honest one made
    it the largest, dropped first; helper 84: a size set below the class dropped the oldest). The teacher removing
    the fakes makes room again."""
    return shares if sum(len(s["state"]) + len(s["note"]) for s in shares) <= SHARE_CHARS else None


def brief(share: dict) -> dict:
    """A view sent to the teacher as the panel lists it: who, their note, the view's sentence (cut) and tab."""
    try:
        view = parse_qs(share["state"], max_num_fields=400)
    except ValueError:  # (a view of more fields than any page sends: named by nothing)
        view = {}
    tab = (view.get("tab") or ["attend"])[0]
    return {"id": share["id"], "nick": share["nick"], "note": share["note"],
            "text": (view.get("text") or [""])[0][:SHARE_TEXT_CHARS],
            "tab": tab if re.fullmatch(r"[a-z]{2,12}", tab) else ""}


class NoRoom(RoomError):
    """One answer for a code that is no room, a key that is not the room's and a student id not in it: the same
    status and words for a given code, so that a guess learns nothing. Each counts against the address's misses."""

    def __init__(self, code: object):
        text = code.strip().upper() if isinstance(code, str) else ""
        shown = "".join(c for c in text if c in ALPHABET)[:CODE_LEN]
        super().__init__(t("class.err.no_room", code=shown), 404)


class Rooms:
    """Every open room of this process, with the bounds on rooms, students, text, messages and streams."""

    def __init__(self, store: RoomStore | None = None):
        self.rooms: dict[str, Room] = {}
        self.store = store  # None: rooms live in this process only
        self.loop: asyncio.AbstractEventLoop | None = None  # the server's (routes.py sets it): remote changes go there
        for idle, data in store.load(IDLE_S, MAX_ROOMS) if store else ():
            try:
                self.rooms[data["code"]] = self.kept(Room.load(data, idle))
            except (KeyError, TypeError, ValueError, AttributeError):  # a row that is no room: dropped
                store.delete(str(data.get("code", "")) if isinstance(data, dict) else "")
        self.began = time.monotonic()  # (pages reopen after a restart: no room is unwatched before UNWATCHED_S)
        self.messages = Rate(MESSAGES_PER_MIN, 60)
        self.teachers = Rate(TEACHER_MESSAGES_PER_MIN, 60)
        self.joins = Rate(JOINS_PER_MIN, 60)
        self.room_joins = Rate(ROOM_JOINS_PER_MIN, 60)
        self.opens = Rate(ROOMS_PER_HOUR, 3600)
        self.site_opens = Rate(SITE_ROOMS_PER_HOUR, 3600)
        self.misses = Rate(MISSES_PER_MIN, 60)  # by address and browser (routes.browser: its cookie)
        self.address_misses = Rate(ADDRESS_MISSES_PER_MIN, 60)
        self.streams: dict[str, int] = {}  # "s:<sid>" / "t:<code>" -> streams open now
        self.open_streams = 0  # in this process
        self.live: dict[str, list[Bell]] = {}  # room code -> its students' streams, the newest last (ended
        # by setting their event: fair_place)

        if getattr(store, "shared", False):
            store.listen(self.heard)

    # -- several processes (redis_store.py): another's change, applied on the server's loop ----------------------
    def heard(self, message: dict) -> None:
        if self.loop is not None:
            self.loop.call_soon_threadsafe(self.remote, message)

    def remote(self, message: dict) -> None:
        room = self.rooms.get(message.get("code", ""))
        if room is None:
            return  # a room this process does not hold: read from the store when first asked for
        if message.get("ended"):
            room._save = None
            room.ended = message["ended"]
            room.wake()
            self.rooms.pop(room.code, None)
            return
        self.refresh(room.code)

    def refresh(self, code: object) -> Room | None:
        """The room as the shared store holds it, into this process's copy (a room opened elsewhere comes in)."""
        if not getattr(self.store, "shared", False):
            return self.rooms.get(code.strip().upper() if isinstance(code, str) else "")
        name = code.strip().upper() if isinstance(code, str) else ""
        if len(name) != CODE_LEN or set(name) - set(ALPHABET):
            return None
        data = self.store.get(name)
        room = self.rooms.get(name)
        if data is None:
            if room is not None and not room.ended:  # ended elsewhere
                room.ended = english("class.ended.gone")
                room._save = None
                room.wake()
                self.rooms.pop(name, None)
            return None
        if room is None:
            room = self.rooms[name] = self.kept(Room.load(data, 0))
        else:
            room.apply(data)
        return room

    def kept(self, room: Room) -> Room:
        """``room``, written to the store at every change from now on."""
        if self.store is not None:
            room._save = lambda r: self.store.save(r.code, r.dump())
        return room

    # -- wrong codes, keys and ids: counted per address; past MISSES_PER_MIN a code route waits unless the request
    # carries a key or id of the room (a class behind one address, a Space's proxy, is not shut out by one guesser)
    def held(self, address: str, browser: str = "") -> bool:
        return self.misses.full(f"a:{address}|{browser}") or self.address_misses.full("a:" + address)

    def admit(self, code: object, key: object = None, sid: object = None) -> None:
        """For an address that is held: go on only with the room's key or one of its students' ids; else 429 (not
        counted as one more miss: the guesser learns nothing, and waits)."""
        try:
            if key is not None:
                self.teacher(code, key, charge=False)
            else:
                self.student(self.room(code), sid, charge=False)
        except NoRoom:
            raise RoomError(t("class.err.misses"), 429) from None

    def missed(self, address: str, browser: str = "") -> None:
        for rate, key in ((self.misses, f"a:{address}|{browser}"), (self.address_misses, "a:" + address)):
            try:
                rate.take(key, "")
            except RoomError:
                pass

    # -- push streams ----------------------------------------------------------------------------------------------
    @contextmanager
    def streaming(self, room: Room, who: str, address: str = "") -> Iterator[Bell]:
        """One push stream of ``who`` ("s:<sid>" or "t:<code>") in ``room`` from ``address`` while the block runs,
        or a refusal in words when one more would pass a cap (``who``'s, the address's, the room's, the process's).
        Yields the stream's end: set when the stream is to end for another class's (fair_place)."""
        mine = self.streams.get(who, 0)
        theirs = self.streams.get("a:" + address, 0)
        here = self.streams.get("r:" + room.code + ":" + address, 0)  # the address's streams in this room
        if who.startswith("t:") and mine >= STREAMS_PER_TEACHER:
            raise RoomError(t("class.err.teacher_streams", n=STREAMS_PER_TEACHER), 429)
        if who.startswith("s:") and mine >= STREAMS_PER_STUDENT:
            raise RoomError(t("class.err.student_streams", n=STREAMS_PER_STUDENT), 429)
        student = who.startswith("s:")  # the room's cap is its students' pages: the teacher's panel always opens
        if student and room.streams >= ROOM_STREAMS:
            raise RoomError(t("class.err.room_streams", n=ROOM_STREAMS), 503)
        if student and theirs >= STREAMS_PER_ADDRESS and (here >= ROOM_FLOOR or theirs >= ADDRESS_CEILING):
            raise RoomError(t("class.err.address_streams", n=STREAMS_PER_ADDRESS), 429)
        if self.open_streams >= MAX_STREAMS + (0 if student else TEACHER_RESERVE):  # (a teacher's: rooms x 4 at most)
            if not (student and self.fair_place(room)):
                raise RoomError(t("class.err.max_streams"), 503)
        self.streams[who] = mine + 1
        self.streams["a:" + address] = theirs + 1
        self.streams["r:" + room.code + ":" + address] = here + 1
        room.streams += student
        self.open_streams += 1
        end = Bell()
        if student:
            self.live.setdefault(room.code, []).append(end)
        try:
            yield end
        finally:
            self.open_streams -= 1
            room.streams -= student
            for name in (who, "a:" + address, "r:" + room.code + ":" + address):
                left = self.streams.get(name, 1) - 1
                if left > 0:
                    self.streams[name] = left
                else:
                    self.streams.pop(name, None)
            if student:
                ends = self.live.get(room.code, [])
                if end in ends:
                    ends.remove(end)
                if not ends:
                    self.live.pop(room.code, None)

    def fair_place(self, room: Room) -> bool:
        """The process holds MAX_STREAMS: a student's stream in ``room`` still opens if the rooms of its opener (the
        address that opened it) hold less than an even share of the process's students' streams among the openers
        holding any; then the newest stream of the opener holding the most, in its fullest room, is ended for it
        (its page reconnects, and is refused while its opener holds more than its share). One visitor's rooms of fakes,
        opened from several addresses, took most of the process's streams and the next class got none (attacker
        helpers): now each opener, a teacher's address, keeps an even share."""
        held: Counter[str] = Counter()
        for other in self.rooms.values():
            if other.streams:
                held[other.opener] += other.streams - sum(e.is_set() for e in self.live.get(other.code, ()))
        share = MAX_STREAMS // max(1, len(held.keys() | {room.opener}))
        if held[room.opener] >= share:
            return False
        most, count = max(((o, n) for o, n in held.items() if o != room.opener), key=lambda x: x[1], default=("", 0))
        if count <= share:
            return False
        fullest = max((r for r in self.rooms.values() if r.opener == most and r.streams), key=lambda r: r.streams)
        newest = next((e for e in reversed(self.live.get(fullest.code, [])) if not e.is_set()), None)
        if newest is None:
            return False
        newest.set()
        return True

    # -- finding, sweeping ---------------------------------------------------------------------------------
    def ends_in(self, room: Room, now: float) -> tuple[float, str]:
        """(seconds until ``room`` is freed if nothing changes in it, the catalogue key of why): 3 hours unused; 10
        minutes with nobody in it and the teacher's page closed; 45 with no page of anyone open (a restart closed every
        page: they get UNWATCHED_S to come back). Only the last rule where the rooms live in one process."""
        rules = [(IDLE_S - (now - room.touched), "class.ended.idle")]
        if not getattr(self.store, "shared", False):  # (several processes: a teacher's page may be on another)
            teacher = self.streams.get("t:" + room.code)
            if not room.students and not teacher:  # opened and left: its place goes to another class
                rules.append((EMPTY_S - (now - room.touched), "class.ended.empty"))
            elif not room.streams and not teacher:  # nobody's page open for long: its place goes too
                rules.append((UNWATCHED_S - (now - max(room.touched, self.began)), "class.ended.unwatched"))
        return min(rules)

    def sweep(self, now: float | None = None) -> None:
        now = time.monotonic() if now is None else now
        for room in list(self.rooms.values()):
            left, why = self.ends_in(room, now)
            if left < 0:
                self.close(room, english(why))

    def next_free(self, now: float | None = None) -> float:
        """Seconds until sweep frees the first open room if nothing changes in it."""
        now = time.monotonic() if now is None else now
        return max(0.0, min((self.ends_in(room, now)[0] for room in self.rooms.values()), default=IDLE_S))

    def close(self, room: Room, why: str) -> None:
        room.ended = why
        room._save = None  # an ended room is deleted, not kept
        room.bump()
        self.rooms.pop(room.code, None)
        if self.store is not None:
            self.store.delete(room.code, why)
        for sid in room.students:
            self.messages.forget(sid)
        self.teachers.forget("t:" + room.code)

    def room(self, code: object) -> Room:
        self.sweep()
        room = self.rooms.get(code.strip().upper() if isinstance(code, str) else "")
        if room is None and getattr(self.store, "shared", False):
            room = self.refresh(code)  # opened by another process
        if room is None:
            raise NoRoom(code)
        return room

    def teacher(self, code: object, key: object, charge: bool = True) -> Room:
        """The room whose key ``key`` is, counting one message of the teacher's unless ``charge`` is False (opening
        the teacher's stream, asking whether the room is there)."""
        room = self.room(code)
        if not isinstance(key, str) or not hmac.compare_digest(digest(key), room.key_digest):
            raise NoRoom(code)
        if charge:
            self.teachers.take("t:" + room.code, t("class.err.teacher_rate"))
        return room

    def student(self, room: Room, sid: object, charge: bool = True) -> Student:
        student = room.students.get(sid) if isinstance(sid, str) else None
        if student is None:
            raise NoRoom(room.code)
        if charge:
            self.messages.take(sid, t("class.err.student_rate"))
        return student

    # -- the teacher ---------------------------------------------------------------------------------------
    def open(self, address: str = "") -> tuple[str, str]:
        """A new room -> (join code, the teacher's key)."""
        self.sweep()
        if len(self.rooms) >= MAX_ROOMS:
            raise RoomError(t("class.err.max_rooms", n=MAX_ROOMS, minutes=minutes(self.next_free())), 503)
        opener = digest("address:" + address)
        if sum(r.opener == opener and not r.ended for r in self.rooms.values()) >= OPEN_PER_ADDRESS:
            raise RoomError(t("class.err.open_per_address", n=OPEN_PER_ADDRESS), 429)
        self.opens.take("a:" + address, t("class.err.rooms_per_hour", n=ROOMS_PER_HOUR,
                                          minutes=minutes(self.opens.wait("a:" + address))))
        network = site(address)
        if network != address:
            self.site_opens.take("s:" + network, t("class.err.rooms_per_site", n=SITE_ROOMS_PER_HOUR,
                                                   minutes=minutes(self.site_opens.wait("s:" + network))))
        while True:
            code = "".join(secrets.choice(ALPHABET) for _ in range(CODE_LEN))
            if code not in self.rooms and not (getattr(self.store, "shared", False) and self.store.get(code)):
                break
        key = secrets.token_urlsafe(24)
        self.rooms[code] = room = self.kept(Room(code, digest(key), opener=opener))
        if self.store is not None:
            self.store.save(code, room.dump())
        return code, key

    @shared
    def set_state(self, code: object, key: object, state: object) -> Room:
        room = self.teacher(code, key)
        state = clean(state, "view", STATE_CHARS, empty="")
        if state == room.state and room.shown is None:
            return room  # nothing changed: nobody is woken
        room.state = state
        room.shown = None
        room.bump()
        return room

    @shared
    def reveal(self, code: object, key: object, stop: object) -> Room:
        room = self.teacher(code, key)
        name = stop_name(stop)
        if name not in room.revealed:
            room.revealed.add(name)
            room.bump()
        return room

    @shared
    def lesson_at(self, code: object, key: object, stop: object, options: object = None,
                  answer: object = None, fresh: object = False, ids: object = None) -> Room:
        """The teacher leads the lesson: every following student's lesson goes to ``stop`` (0-7, 8 the end, -1
        none); with the teacher's own question there (its options' text, the right one, and ``ids``: the options
        in words no language changes) for the panel's tally. Another question at the same stop (the stop asked
        again on another sentence: a view shown to everyone, a new translation) counts afresh: the answers to the
        one before, and its reveal, are dropped; the same question in another language only renames its options.
        ``fresh``: the lesson started anew (another sentence, other questions): every stop's answers, reveals and
        questions of the run before are dropped, and students' pages count their answers again (``run``)."""
        room = self.teacher(code, key)
        if not isinstance(stop, int) or isinstance(stop, bool) or not -1 <= stop <= len(STOPS):
            raise RoomError(t("class.err.lesson_stop", last=len(STOPS)))
        changed = stop != room.stop
        if fresh is True and (room.answers or room.revealed or room.questions or room.options):
            room.answers, room.options, room.revealed, room.questions, room.early = {}, {}, set(), {}, {}
            room.run += 1
            changed = True
        room.stop = stop
        if options is not None and 0 <= stop < len(STOPS):
            question = self.question(options, answer, ids)
            name, before = STOPS[stop], room.questions.get(STOPS[stop])
            if before != question:
                asked_anew = not before or (before.get("ids", before["options"]), before["answer"]) != (
                    question["ids"], question["answer"])
                if asked_anew:  # the answers there were to another question
                    votes, early = room.answers.pop(name, {}), room.early.pop(name, {})
                    room.revealed.discard(name)
                    if not before:  # answers given before the teacher asked: those to this same question count
                        # (a student who ran ahead keeps their first answer); others (their own sentence, a guess)
                        # are dropped
                        asked = ids_digest(question["ids"])
                        kept = {sid: o for sid, o in votes.items() if sid in early and ids_digest(early[sid]) == asked}
                        if kept:
                            room.answers[name] = kept
                room.questions[name] = question
                room.options[name] = len(question["options"])
                changed = True
        if changed:
            room.bump()
        return room

    @staticmethod
    def question(options: object, answer: object, ids: object) -> dict:
        """A teacher's question at a stop, checked: its options' text, the right one, and the options' ids."""
        if not isinstance(options, list) or not 1 <= len(options) <= MAX_OPTIONS:
            raise RoomError(t("class.err.options", n=MAX_OPTIONS))
        texts = [clean(o, "option", OPTION_CHARS) for o in options]
        if not isinstance(answer, int) or isinstance(answer, bool) or not 0 <= answer < len(texts):
            raise RoomError(t("class.err.right_answer", last=len(texts) - 1))
        # a page that does not send ids: its options' text is their identity
        return {"options": texts, "answer": answer, "ids": texts if ids is None else option_ids(ids, len(texts))}

    @shared
    def show(self, code: object, key: object, share_id: object) -> Room:
        """Every follower jumps to a student's view (and the teacher's view becomes it)."""
        room = self.teacher(code, key)
        share = next((s for s in room.shares if s["id"] == share_id), None)
        if share is None:
            raise RoomError(t("class.err.no_share"), 404)
        room.state = shown_state(share["state"], room.state)
        room.shown = {"id": share["id"], "nick": share["nick"], "note": share["note"]}
        room.bump()
        return room

    @shared
    def bring_back(self, code: object, key: object) -> Room:
        """Everyone follows the teacher again, at once, whatever their page showed; a student's view shown to
        everyone is no longer "shown" (the teacher's page goes back to its lesson stop's view, and so the class)."""
        room = self.teacher(code, key)
        for s in room.students.values():
            s.following = True
        room.shown = None
        room.back += 1  # every page follows the teacher's current view at once, whatever it showed
        room.bump()
        return room

    @shared
    def remove(self, code: object, key: object, share_id: object = None, student: object = None,
               students: object = None) -> Room:
        """Students leave the class, named by a view they sent (``share_id``), by their place in the roster
        (``student``, public_id) or by several places at once (``students``: a list of public ids, a class filled
        with fakes emptied in one press): their answers, their views and their place go; their page is told (its
        stream ends) and does not join this class again by itself. A fresh join with the code is a new student,
        unless the teacher locked the room (lock). Ids no longer in the room are passed over; none in it: 404."""
        room = self.teacher(code, key)
        if students is not None:
            if not isinstance(students, list) or not 0 < len(students) <= MAX_STUDENTS:
                raise RoomError(t("class.err.no_student"), 404)
            named = {s for s in students if isinstance(s, str)}
            sids = [s for s in room.students if public_id(s) in named]
        elif student is not None:
            sids = [s for s in room.students if public_id(s) == student][:1]
        else:
            share = next((s for s in room.shares if s["id"] == share_id), None)
            sids = [share["sid"]] if share is not None else []
            if not sids:
                raise RoomError(t("class.err.no_share"), 404)
        if not sids:
            raise RoomError(t("class.err.no_student"), 404)
        for sid in sids:
            self.drop(room, sid)
        room.bump()
        return room

    def drop(self, room: Room, sid: str) -> None:
        """``sid`` out of ``room``: their place, answers and views; their browser barred from joining again."""
        left = room.students.pop(sid, None)
        if left is not None and left.browser and left.browser not in room.barred:  # (that browser joins no more)
            room.barred = (room.barred + [left.browser])[-MAX_BARRED:]
        for votes in (*room.answers.values(), *room.early.values()):
            votes.pop(sid, None)
        gone = {s["id"] for s in room.shares if s["sid"] == sid}
        room.shares = [s for s in room.shares if s["sid"] != sid]
        if room.shown and room.shown["id"] in gone:
            room.shown = None
        self.messages.forget(sid)

    @shared
    def lock(self, code: object, key: object, locked: object) -> Room:
        """The teacher lets nobody new join (``locked`` true) or lets them again; the students in the room stay."""
        room = self.teacher(code, key)
        if not isinstance(locked, bool):
            raise RoomError(t("class.err.locked_value"))
        if room.locked != locked:
            room.locked = locked
            room.bump(follower=False)
        return room

    @shared
    def resize(self, code: object, key: object, size: object) -> Room:
        """The teacher sets how many students the room takes (1 to MAX_STUDENTS); nobody in it is removed: below the
        students already in, new joins wait until some leave."""
        room = self.teacher(code, key)
        if not isinstance(size, int) or isinstance(size, bool) or not 1 <= size <= MAX_STUDENTS:
            raise RoomError(t("class.err.size", n=MAX_STUDENTS))
        if room.size != size:
            room.size = size
            room.bump(follower=False)
        return room

    @shared
    def end(self, code: object, key: object) -> None:
        self.close(self.teacher(code, key), english("class.ended.teacher"))

    @shared
    def check(self, code: object, key: object = None, sid: object = None) -> Room:
        """The room, if ``key`` leads it or ``sid`` is in it (a page asks before it forgets a class); NoRoom if not.
        Nothing is charged: a page asks only after its stream failed."""
        room = self.room(code)
        if key is not None:
            return self.teacher(code, key, charge=False)
        self.student(room, sid, charge=False)
        return room

    # -- students ------------------------------------------------------------------------------------------
    @shared
    def join(self, code: object, nick: object = "", address: str = "", browser: str = "") -> tuple[Room, Student]:
        """A student joins (``browser``: the digest of their browser's own name, "" for a client that sends none): a
        browser the teacher removed is refused, on the server, not only by its page (helper 30: a removed student's
        20 of 20 joins got back in, their vote with them)."""
        room = self.room(code)
        if browser and browser in room.barred:
            raise RoomError(t("class.ended.removed"), 403)
        if room.locked:
            raise RoomError(t("class.err.locked"), 403)
        if len(room.students) >= room.size:
            raise RoomError(t("class.err.full", n=room.size), 403)
        self.room_joins.take(f"{room.code}:{address}", t("class.err.room_joins", n=ROOM_JOINS_PER_MIN))
        self.joins.take("a:" + address, t("class.err.joins"))
        name = clean(nick, "nickname", NICK_CHARS, empty="")
        look, like = looks(name), skeleton(name)
        if (like in {skeleton(n) for n in NOT_TEACHER_NICKS} or any(skeleton(w) in like for w in TEACHER_WORDS)
                or poses_as_teacher(name)):
            raise RoomError(t("class.err.teacher_nick"))
        if not look or ROOM_NICK.fullmatch(look):  # blank-looking (dots, spaces, marks), or posing as one of the
            # room's own names: a name of the room's own, kept in English and
            # shown in each reader's language ("Student 3" is "Schüler·in 3" on a German page: class.js nickOf)
            name = english("class.student_nick", n=len(room.students) + 1)
        taken = {skeleton(s.nick) for s in room.students.values()}
        if skeleton(name) in taken:  # one that looks like another's: told apart by a number
            name = next(f"{name} ({i})" for i in range(2, MAX_STUDENTS + 2) if skeleton(f"{name} ({i})") not in taken)
        student = Student(secrets.token_urlsafe(12), name, browser=browser)
        room.students[student.sid] = student
        room.bump(follower=False)
        return room, student

    @shared
    def follow(self, code: object, sid: object, following: object) -> Room:
        room = self.room(code)
        student = self.student(room, sid)
        if student.following != (following is True):
            student.following = following is True
            room.bump(follower=False)
        return room

    @shared
    def answer(self, code: object, sid: object, stop: object, option: object, options: object,
               ids: object = None) -> Room:
        """A student's answer at a lesson stop: counted once (the first answer; a later one does not change it).
        Where the teacher leads the lesson, only an answer to the teacher's question there counts (its number of
        options, and its options' ``ids`` when the page sends them): one to a question asked before is refused."""
        room = self.room(code)
        self.student(room, sid)
        name = stop_name(stop)
        # while a student's view is shown to everyone the open question waits (docs/teaching.md): no answer is taken,
        # also from a student exploring on their own whose options were live (helper 67: counted, "1 answered" beside
        # "this question waits" on the panel); the page keeps one refused so and sends it again once it is over
        if room.shown is not None:
            raise RoomError(t("class.err.waits"), 409)
        if not isinstance(options, int) or isinstance(options, bool) or not 1 <= options <= MAX_OPTIONS:
            raise RoomError(t("class.err.options", n=MAX_OPTIONS))
        if not isinstance(option, int) or isinstance(option, bool) or not 0 <= option < options:
            raise RoomError(t("class.err.answer", last=options - 1))
        # every check before any change: a refused answer (ids that are no list of names) is never counted
        question = option_ids(ids, options) if ids is not None else None
        asked = room.questions.get(name)
        if asked is not None:  # the teacher's question: only an answer to it counts
            if question is None or options != len(asked["options"]) or question != asked.get("ids", asked["options"]):
                raise RoomError(t("class.err.other_question"), 409)
        else:  # no teacher's question there (yet): no answer refuses another; the tally is as long as the longest
            room.options[name] = max(room.options.get(name, 0), options)
        votes = room.answers.setdefault(name, {})
        if sid not in votes:  # a later answer changes nothing, so it wakes nobody
            votes[sid] = option
            if asked is None and question is not None:  # which question it answers: kept if the teacher asks the same
                room.early.setdefault(name, {})[sid] = ids_digest(question)
            room.bump(follower=name in room.revealed)
        return room

    @shared
    def share(self, code: object, sid: object, state: object, note: object = "") -> Room:
        room = self.room(code)
        student = self.student(room, sid)
        view = view_query(clean(state, "view", STATE_CHARS))
        # the view as kept and sent to every screen is bounded, not only as it came: encoded again, 7,950 "é" were
        # 47,735 characters (helper 35: 1 MB rooms, each change written and sent whole, honest Translate 2.4 s)
        if len(view) > STATE_CHARS:
            raise RoomError(t("class.err.too_long", name=field_name("view"), limit=STATE_CHARS, n=len(view)))
        note = clean(note, "note", NOTE_CHARS, empty="")
        # the same view with the same note again is nothing new: it wakes nobody (helper 71: each identical send was a
        # new id and a push to the teacher's panel, 37 students' sends froze the panel's page up to 1.9 s at a time)
        if any(s["sid"] == sid and s["state"] == view and s["note"] == note for s in room.shares):
            return room
        share = {"id": secrets.token_urlsafe(6), "sid": sid, "nick": student.nick, "state": view, "note": note}
        # a student's newest view replaces the ones they sent before (one a student on the panel: a student sending
        # view after view fills it with nothing new)
        kept = kept_shares([s for s in room.shares if s["sid"] != sid] + [share])
        if kept is None:
            raise RoomError(t("class.err.shares_full"), 409)
        room.shares = kept
        room.bump(follower=False)
        return room


ROOMS = Rooms(RoomStore.from_env())  # in SQLite by default (store.py): a restart keeps every class
