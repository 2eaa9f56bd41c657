"""A class under attack (issue 48): a teacher runs the whole lesson for a class of honest students while an attacker
runs the issue's findings in turn, one at each stop, everyone from one address (a school's network behind one proxy,
the harshest case: no per-address limit can tell the attacker from the class).

    python bench/class_rooms.py --only siege [--students 30 --attack-s 12]

Honest actions (the teacher's lesson, reveals and view changes; each student's join, answers and the lesson stops
heard on their stream; a student's reload reopening their stream during each attack) are timed and must all be
answered; the tally at each stop must be exactly the honest answers plus the attacker's own one answer as a student;
students translate throughout (Translate p95); the server's RSS is sampled. Goals: honest actions 100% answered, p95
<= 1 s; the tally right at all 8 stops; Translate p95 <= 1 s; RSS growth <= 50 MB. tests/test_siege.py runs a small
version and checks what does not depend on timing.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import time

import httpx

HOME = {"x-forwarded-for": "10.77.0.1"}  # the class and its teacher: one address (a school behind one proxy)
ELSEWHERE = {"x-forwarded-for": "10.88.0.1"}  # the attacker at home (``same_address=False``)
OPTIONS = ["a", "b", "c", "d"]


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))] if xs else float("nan")


class Class:
    """The honest side: a teacher and students, every action's status and seconds kept in ``actions``."""

    def __init__(self, client: httpx.AsyncClient, url: str) -> None:
        self.client, self.url = client, url
        self.actions: list[tuple[str, int, float]] = []  # (what, status, seconds)
        self.heard: dict[str, dict[int, float]] = {}  # sid -> lesson stop -> when heard
        self.sent: dict[int, float] = {}  # lesson stop -> when the teacher posted it
        self.dropped = 0  # honest streams that ended by themselves (not by the teacher's End)
        self.ending = False
        self.room: dict = {}
        self.sids: list[str] = []
        self.streams: list[asyncio.Task] = []

    async def act(self, what: str, path: str, body: dict) -> dict:
        t0 = time.perf_counter()
        try:
            r = await self.client.post(f"{self.url}/class/{self.room.get('code', '')}{path}", json=body, headers=HOME)
            status, data = r.status_code, (r.json() if r.headers.get("content-type", "").startswith("application/json")
                                           else {})
        except httpx.HTTPError:
            status, data = -1, {}
        self.actions.append((what, status, time.perf_counter() - t0))
        return data

    async def open(self, students: int) -> None:
        r = await self.client.post(f"{self.url}/class/new", json={}, headers=HOME)
        r.raise_for_status()
        self.room = r.json()
        for i in range(students):
            d = await self.act("join", "/join", {"nick": f"Student {i}"})
            if "sid" in d:
                self.sids.append(d["sid"])
        self.streams = [asyncio.create_task(self.listen(sid)) for sid in self.sids]
        await self.act("lock", "/lock", {"key": self.room["key"], "locked": True})  # the class is in: no one new

    async def listen(self, sid: str, once: bool = False) -> None:
        """A student's page: its stream, reopened when it ends (as class.js does); each lesson stop heard."""
        heard = self.heard.setdefault(sid, {})
        while True:
            t0 = time.perf_counter()
            try:
                async with self.client.stream("GET", f"{self.url}/class/{self.room['code']}/events",
                                              params={"sid": sid}, headers=HOME) as s:
                    if once:
                        self.actions.append(("stream reopened", s.status_code, time.perf_counter() - t0))
                    if s.status_code != 200:
                        raise httpx.HTTPError(f"status {s.status_code}")
                    async for line in s.aiter_lines():
                        if line.startswith("data:"):
                            stop = json.loads(line[5:]).get("lesson", -1)
                            if isinstance(stop, int) and stop >= 0 and stop not in heard:
                                heard[stop] = time.perf_counter()
                            if once:
                                return
            except (httpx.HTTPError, OSError):
                if once:
                    return
            if once or self.ending:
                return
            self.dropped += 1
            await asyncio.sleep(0.5)

    async def stop(self, i: int) -> None:
        self.sent[i] = time.perf_counter()
        await self.act("lesson", "/lesson", {"key": self.room["key"], "stop": i, "options": OPTIONS, "answer": 1,
                                             "ids": OPTIONS})

    async def answers(self, i: int) -> None:
        await asyncio.gather(*(self.act("answer", "/answer", {"sid": sid, "stop": f"stop {i + 1}", "option": k % 4,
                                                              "options": 4, "ids": OPTIONS})
                               for k, sid in enumerate(self.sids)))

    async def views(self, until: float) -> None:
        k = 0
        while time.perf_counter() < until:
            await self.act("view", "/state", {"key": self.room["key"], "state": f"text=Siege%20{k}&tab=attend"})
            k += 1
            await asyncio.sleep(1.0)


class Attacker:
    """One student of the class (an id of their own) and a visitor, from the class's address; each attack runs until
    ``until``. ``scale`` shrinks the counts (the test's small version)."""

    def __init__(self, client: httpx.AsyncClient, url: str, code: str, scale: float, home: dict) -> None:
        self.client, self.url, self.code, self.scale, self.home = client, url, code, scale, home
        self.sid = ""
        self.statuses: dict[str, dict[int, int]] = {}
        self.held: list = []  # streams and sockets kept open until the end
        self.fakes_made: list[tuple[str, str]] = []  # (room code, sid) of the fake students it made

    def n(self, k: int) -> int:
        return max(1, int(k * self.scale))

    async def post(self, what: str, path: str, body, **kw) -> dict:
        try:
            r = await self.client.post(f"{self.url}{path}", headers=self.home | kw.pop("headers", {}),
                                       **({"json": body} if body is not None else kw))
            status = r.status_code
            data = r.json() if r.headers.get("content-type", "").startswith("application/json") else {}
        except httpx.HTTPError:
            status, data = -1, {}
        seen = self.statuses.setdefault(what, {})
        seen[status] = seen.get(status, 0) + 1
        return data if isinstance(data, dict) else {}

    async def misses(self, until: float) -> None:  # finding 1: 31 wrong ids at once (the address held back), again
        while time.perf_counter() < until:
            await asyncio.gather(*(self.post("wrong id", f"/class/{self.code}/answer",
                                             {"sid": secrets.token_urlsafe(12), "stop": "stop 1", "option": 0,
                                              "options": 4}) for _ in range(max(31, self.n(40)))),
                                 self.post("wrong code", "/class/ZZZZZZ/join", {"nick": "x"}))
            await asyncio.sleep(0.5)

    async def poison(self, until: float, i: int) -> None:  # finding 2: answers ahead, of another shape
        while time.perf_counter() < until:
            for later in range(i + 2, 9):
                await self.post("answer ahead", f"/class/{self.code}/answer",
                                {"sid": self.sid, "stop": f"stop {later}", "option": 1, "options": 2, "ids": ["x", "y"]})
            await self.post("answer of another shape", f"/class/{self.code}/answer",
                            {"sid": self.sid, "stop": f"stop {i + 1}", "option": 7, "options": 8})
            await self.post("made-up stop", f"/class/{self.code}/answer",
                            {"sid": self.sid, "stop": "stop 999", "option": 0, "options": 4})
            await asyncio.sleep(0.3)

    async def own_room(self, fakes: int) -> tuple[dict, list[str]]:
        room = await self.post("new room", "/class/new", {})
        sids = []
        for _ in range(fakes if "code" in room else 0):
            j = await self.post("fake join", f"/class/{room['code']}/join", {"nick": ""})
            if "sid" in j:
                sids.append(j["sid"])
        return room, sids

    async def fakes(self, until: float) -> None:  # finding 3: fakes into the class, and rooms full of them
        while time.perf_counter() < until:
            await self.post("join the locked class", f"/class/{self.code}/join", {"nick": "Tеacher"})
            room, sids = await self.own_room(self.n(60))
            self.fakes_made += [(room["code"], sid) for sid in sids]
            for sid in sids[:self.n(20)]:
                await self.post("fake answer", f"/class/{room.get('code')}/answer",
                                {"sid": sid, "stop": "stop 1", "option": 0, "options": 4})
            await asyncio.sleep(0.5)

    async def streams(self, until: float) -> None:  # finding 4: every stream the process has
        async def hold(code: str, sid: str) -> None:
            try:
                r = await self.client.send(self.client.build_request(
                    "GET", f"{self.url}/class/{code}/events", params={"sid": sid}, headers=self.home), stream=True)
            except httpx.HTTPError:
                return
            seen = self.statuses.setdefault("stream", {})
            seen[r.status_code] = seen.get(r.status_code, 0) + 1
            if r.status_code == 200:
                self.held.append(r)
            else:
                await r.aclose()
        await asyncio.gather(*(hold(self.code, self.sid) for _ in range(self.n(10))))
        # three streams for each fake student in its own rooms, then for those of rooms it can still open
        await asyncio.gather(*(hold(code, sid) for code, sid in self.fakes_made for _ in range(3)))
        while time.perf_counter() < until:
            room, sids = await self.own_room(self.n(60))
            await asyncio.gather(*(hold(room["code"], sid) for sid in sids for _ in range(3)))
            await asyncio.sleep(0.5)

    async def rooms(self, until: float) -> None:  # finding 5: every room the process has
        while time.perf_counter() < until:
            await self.post("new room", "/class/new", {})
            await asyncio.sleep(0.2)

    async def uploads(self, until: float) -> None:  # finding 6: files through Gradio's routes; a body too large
        blob = b"\0" * (2 << 20)
        while time.perf_counter() < until:
            await self.post("process_recording", "/gradio_api/process_recording", None,
                            files={"files": ("a.wav", blob, "audio/wav")})
            await self.post("upload", "/gradio_api/upload", None, files={"files": ("a.bin", blob)})
            await self.post("2 MB of JSON", f"/class/{self.code}/answer", None, content=b"[" + b"1," * (1 << 20) + b"1]",
                            headers={"content-type": "application/json"})
            await asyncio.sleep(0.5)

    async def sockets(self, until: float) -> None:  # finding 7: idle and half-sent connections
        host, port = self.url.split("//")[1].split(":")
        for _ in range(self.n(200)):
            try:
                _, w = await asyncio.open_connection(host, int(port))
                w.write(b"GET / HTTP/1.1\r\nHost: x\r\n")  # never finished
                self.held.append(w)
            except OSError:
                seen = self.statuses.setdefault("socket", {})
                seen[-1] = seen.get(-1, 0) + 1
        await asyncio.sleep(max(0.0, until - time.perf_counter()))

    async def shares(self, until: float) -> None:  # finding 11: views and QR codes as fast as they go
        while time.perf_counter() < until:
            await asyncio.gather(*(self.post("share", f"/class/{self.code}/share",
                                             {"sid": self.sid, "state": "text=" + "x" * 7000, "note": "look"})
                                   for _ in range(self.n(10))))
            for _ in range(self.n(10)):
                try:
                    r = await self.client.get(f"{self.url}/class/{self.code}/qr.svg", params={"origin": self.url},
                                              headers=self.home)
                    seen = self.statuses.setdefault("qr.svg", {})
                    seen[r.status_code] = seen.get(r.status_code, 0) + 1
                except httpx.HTTPError:
                    pass
            await asyncio.sleep(0.2)

    async def quiet(self, until: float) -> None:  # (the control: no attack)
        await asyncio.sleep(max(0.0, until - time.perf_counter()))

    async def close(self) -> None:
        for h in self.held:
            if isinstance(h, asyncio.StreamWriter):
                h.close()
            else:
                await h.aclose()
        self.held.clear()


def long_work(url: str, until: float, scale: float, statuses: dict) -> None:
    """Finding 10 (in a thread): long attributions, each from a session of its own, until ``until``."""
    from concurrent.futures import ThreadPoolExecutor

    from bench.fair_share import attribute_args, call

    def one(k: int) -> None:
        while time.perf_counter() < until:
            event, _, _ = call(url + "/", "attribute", attribute_args(f"The dog number {k} runs in the park.", 32),
                               session=secrets.token_hex(8))
            statuses[event] = statuses.get(event, 0) + 1
    with ThreadPoolExecutor(max(1, int(12 * scale))) as pool:
        list(pool.map(one, range(max(1, int(12 * scale)))))


# (the wrong ids last: past the misses limit the address is held back for a minute from all that carries no key or
# id, joins and new rooms included, which would stop the attacks after it before they reach their own limits)
ATTACKS = ("poison", "fakes", "streams", "rooms", "uploads", "sockets", "long work and shares", "misses")


async def siege(url: str, rss, students: int = 30, attack_s: float = 12, scale: float = 1.0,
                translators=None, same_address: bool | None = True) -> dict:
    """The lesson's 8 stops, one attack at each (ATTACKS); -> the figures show_siege prints. ``rss``: a function
    giving the server's RSS in MB; ``translators``: a running bench.fair_share.Translators (or None);
    ``same_address``: the attacker behind the class's own address (else at an address of its own; None: no attacker
    at all, the same lesson as a control of the figures)."""
    limits = httpx.Limits(max_connections=4000, max_keepalive_connections=200)
    async with httpx.AsyncClient(timeout=httpx.Timeout(30, connect=5), limits=limits) as client:
        cls = Class(client, url)
        await cls.open(students)
        bad = Attacker(client, url, cls.room["code"], scale, HOME if same_address else ELSEWHERE)
        rss0 = peak = rss()
        first = len(translators.times) if translators else 0
        # the attacker is one of the class (joined before the lock): an id of their own, one honest-looking answer
        # a stop; stop 0 opens before the lock in a real class too
        await cls.act("unlock", "/lock", {"key": cls.room["key"], "locked": False})
        bad.sid = (await bad.post("join", f"/class/{cls.room['code']}/join", {"nick": "Mallory"})).get("sid", "")
        await cls.act("lock", "/lock", {"key": cls.room["key"], "locked": True})
        tallies, grew, own = [], {}, []
        for i, attack in enumerate(ATTACKS if same_address is not None else ("quiet",) * len(ATTACKS)):
            before = rss()
            until = time.perf_counter() + attack_s
            await cls.stop(i)
            mine = await bad.post("own answer", f"/class/{cls.room['code']}/answer",
                                  {"sid": bad.sid, "stop": f"stop {i + 1}", "option": 0, "options": 4, "ids": OPTIONS})
            own.append("code" in mine)  # counted (its own messages may be spent by then: 429)
            if attack == "long work and shares":
                work: dict = {}
                runs = [asyncio.to_thread(long_work, url, until, scale, work), bad.shares(until)]
                bad.statuses["long work"] = work
            else:
                runs = [getattr(bad, attack)(until, i) if attack == "poison" else getattr(bad, attack)(until)]
            task = asyncio.gather(*runs, cls.views(until))
            await asyncio.sleep(attack_s / 3)
            reopen = asyncio.create_task(cls.listen(cls.sids[i % len(cls.sids)], once=True))  # a student reloads
            await cls.answers(i)
            while not task.done():
                await asyncio.sleep(0.5)
                peak = max(peak, rss())
            await task
            await reopen
            panel = await cls.act("reveal", "/reveal", {"key": cls.room["key"], "stop": f"stop {i + 1}"})
            tallies.append(panel.get("tallies", {}).get(f"stop {i + 1}", {}).get("counts"))
            peak = max(peak, rss())
            grew[attack] = rss() - before
        await bad.close()
        await asyncio.sleep(3)
        lasting = rss() - rss0  # what stays once the attacker's connections are closed
        cls.ending = True  # (the End below closes every stream: no drop)
        await cls.act("end", "/end", {"key": cls.room["key"]})
        for t in cls.streams:
            t.cancel()
        await asyncio.gather(*cls.streams, return_exceptions=True)
    honest = [k % 4 for k in range(len(cls.sids))]
    # the class's answers and the attacker's own one where it was taken
    want = [[honest.count(o) + (o == 0 and counted) for o in range(4)] for counted in own]
    heard = [cls.heard.get(sid, {}).get(i) for sid in cls.sids for i in range(len(ATTACKS))]
    delivery = [h - cls.sent[i % len(ATTACKS)] for i, h in enumerate(heard) if h is not None]
    ok = [a for a in cls.actions if 200 <= a[1] < 300]
    t = translators.times[first:] if translators else []
    return {"students": len(cls.sids), "wanted": students, "actions": len(cls.actions), "answered": len(ok),
            "failed": sorted({f"{w} {s}" for w, s, _ in cls.actions if not 200 <= s < 300}),
            "p95": pct([s for _, _, s in ok], 0.95), "heard": len(delivery), "stops_due": len(heard),
            "delivery_p95": pct(delivery, 0.95), "dropped": cls.dropped, "tallies": tallies, "want": want,
            "tally_ok": tallies == want, "translate": t,
            "translate_p95": pct(t, 0.95), "translate_errors": translators.errors if translators else 0,
            "same_address": same_address, "rss_growth": peak - rss0, "rss_lasting": lasting, "grew": grew,
            "attacker": bad.statuses}


def show_siege(r: dict) -> None:
    goals = {"honest actions": r["answered"] == r["actions"] and r["students"] == r["wanted"] and r["p95"] <= 1,
             "lesson": r["tally_ok"] and r["heard"] == r["stops_due"] and r["delivery_p95"] <= 1,
             "Translate": r["translate_p95"] <= 1, "RSS peak": r["rss_growth"] <= 50, "RSS after": r["rss_lasting"] <= 50}
    where = {True: "the attacker behind the class's own address", False: "the attacker at an address of its own",
             None: "no attacker (the control)"}[r["same_address"]]
    print(f"siege, {where}: {r['students']} of {r['wanted']} honest students in; honest actions "
          f"answered {r['answered']}/"
          f"{r['actions']} (p95 {r['p95'] * 1000:.0f} ms; failed: {r['failed'] or 'none'}); lesson stops heard "
          f"{r['heard']}/{r['stops_due']} (p95 {r['delivery_p95'] * 1000:.0f} ms), honest streams dropped "
          f"{r['dropped']}; tally right at {sum(c == w for c, w in zip(r['tallies'], r['want']))} of 8 stops; "
          f"Translate p95 {r['translate_p95']:.2f} s ({len(r['translate'])} runs, {r['translate_errors']} errors); "
          f"RSS growth: peak +{r['rss_growth']:.1f} MB, after the siege +{r['rss_lasting']:.1f} MB")
    print("  goals: " + ", ".join(f"{k} {'PASS' if v else 'FAIL'}" for k, v in goals.items()))
    print("  RSS change (MB) over each attack: " + ", ".join(f"{k} {v:+.1f}" for k, v in r["grew"].items()))
    for what, seen in r["attacker"].items():
        print(f"  attacker {what}: {dict(sorted(seen.items(), key=str))}")
