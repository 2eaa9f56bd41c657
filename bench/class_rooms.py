"""Benchmark: class rooms' push channel (explorer/classroom/rooms.py, explorer/classroom/routes.py) against
`python app.py` in its own process, as a class meets it: students joined by HTTP and listening on server-sent events, a
teacher changing the view.

    python bench/class_rooms.py [--students 100] [--changes 30] [--rooms 10 --per-room 30]
                                [--only push|floods|restart|redis|siege]

Prints, from one run: p50/p95 delivery (the teacher's POST to each follower's event), the server's CPU per change
for the whole class (utime+stime of the server process from /proc, minus its idle rate over the same time), errors,
and RSS growth; once for one room of --students, once for --rooms rooms of --per-room at once.
Goals (issue "Lead a class with it"): p95 <= 1 s, CPU per change <= 50 ms, 0 errors, RSS growth <= 20 MB.

Then two floods of one visitor (issue 33), each while 5 students translate their own sentences (Translate over the
HTTP API, one every 1.5 s each) and the teacher keeps changing the view: a **stream flood** (--flood-students student
ids each trying to open --flood-streams event streams at once, held for --flood-s seconds) and an **answer flood**
(--flood-students ids each answering once a second, at the lesson's stops and at made-up ones, for --flood-s
seconds). Each prints streams or answers taken and refused, Translate p50/p95 during it, the teacher's panel (its
changes answered 200, the events its stream heard, the bytes down it), the server's CPU and RSS growth.
Goals: Translate p95 <= 1 s and RSS growth <= 50 MB during either, the teacher's panel keeps working. First the same
without a flood (the baseline: the machine's own Translate p95). Each case lets the students translate first (at least
WARM_S seconds and until more sentences than the analysis store keeps are done), so that the store's filling is not
counted as the flood's memory.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.app_server import rss_mb, start  # noqa: E402
from bench.fair_share import Translators  # noqa: E402
from bench.siege import show_siege, siege  # noqa: E402
from explorer.classroom.rooms import ROOM_SIZE  # noqa: E402
from explorer.serving.limits import ANALYSIS_CACHE, LONG_SLOTS  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")


def cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK  # utime + stime


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))] if xs else float("nan")


async def student(client: httpx.AsyncClient, url: str, code: str, heard: dict, errors: list, ready: asyncio.Event,
                  n_ready: list, total: int) -> None:
    """Join, then listen: the time each state arrives (by its text) into ``heard[state]``."""
    try:
        r = await client.post(f"{url}/class/{code}/join", json={"nick": ""}, headers=own_address())
        r.raise_for_status()
        sid = r.json()["sid"]
        async with client.stream("GET", f"{url}/class/{code}/events", params={"sid": sid}) as s:
            first = True
            async for line in s.aiter_lines():
                if not line.startswith("data:"):
                    continue
                data = json.loads(line[5:])
                if first:
                    first = False
                    n_ready[0] += 1
                    if n_ready[0] == total:
                        ready.set()
                if data.get("ended"):
                    return
                heard.setdefault(data["state"], []).append(time.perf_counter())
    except Exception as e:  # noqa: BLE001 - a benchmark counts every failure
        errors.append(repr(e)[:200])


async def set_view(client: httpx.AsyncClient, url: str, room: dict, state: str, sent: dict, errors: list) -> None:
    """The teacher's change of view: when it was sent (``sent[state]``), a refusal into ``errors``."""
    sent[state] = time.perf_counter()
    r = await client.post(f"{url}/class/{room['code']}/state", json={"key": room["key"], "state": state})
    if r.status_code != 200:
        errors.append(f"state {r.status_code}")


async def teach(url: str, pid: int, rooms: int, per_room: int, changes: int, gap: float) -> dict:
    limits = httpx.Limits(max_connections=rooms * per_room + 20, max_keepalive_connections=rooms * per_room + 20)
    async with httpx.AsyncClient(timeout=120, limits=limits) as client:
        opened = []
        for _ in range(rooms):
            r = await client.post(f"{url}/class/new", json={})
            r.raise_for_status()
            opened.append(r.json())
            await sized(client, url, opened[-1], per_room)
        await asyncio.sleep(1)
        rss0 = rss_mb(pid)
        heard = [dict() for _ in opened]
        errors: list[str] = []
        ready, n_ready = asyncio.Event(), [0]
        total = rooms * per_room
        tasks = []
        for room, h in zip(opened, heard):
            for _ in range(per_room):
                tasks.append(asyncio.create_task(student(client, url, room["code"], h, errors, ready, n_ready, total)))
                await asyncio.sleep(0.005)  # a class joins over a few seconds, not in one instant
        try:
            await asyncio.wait_for(ready.wait(), 120)
        except asyncio.TimeoutError:
            raise SystemExit(f"only {n_ready[0]} of {total} students heard the room; errors: {errors[:3]}") from None
        await asyncio.sleep(2)
        idle0, t_idle0 = cpu_s(pid), time.perf_counter()
        await asyncio.sleep(3)
        idle_rate = (cpu_s(pid) - idle0) / (time.perf_counter() - t_idle0)  # the server's own idle burn
        sent: dict[str, float] = {}
        c0, t0 = cpu_s(pid), time.perf_counter()
        for i in range(changes):
            for j, room in enumerate(opened):
                await set_view(client, url, room, f"text=Change%20{i}%20room%20{j}&tab=steps&step={i % 5}", sent, errors)
            await asyncio.sleep(gap)
        await asyncio.sleep(1)
        c1, t1 = cpu_s(pid), time.perf_counter()
        rss1 = rss_mb(pid)
        for room in opened:
            await client.post(f"{url}/class/{room['code']}/end", json={"key": room["key"]})
        await asyncio.wait(tasks, timeout=30)
        delays, missing = [], 0
        for j, h in enumerate(heard):
            for state, t_sent in sent.items():
                if not state.endswith(f"room%20{j}&tab=steps&step={int(state.split('&step=')[1])}") or \
                        f"room%20{j}&" not in state:
                    continue
                got = h.get(state, [])
                missing += per_room - len(got)
                delays += [t - t_sent for t in got]
        spent = (c1 - c0) - idle_rate * (t1 - t0)
        return {"students": total, "rooms": rooms, "changes": changes * rooms, "p50": statistics.median(delays),
                "p95": pct(delays, 0.95), "max": max(delays), "missing": missing, "errors": len(errors),
                "error_kinds": sorted(set(errors))[:3], "cpu_per_change_ms": 1000 * spent / (changes * rooms),
                "idle_ms_per_s": 1000 * idle_rate, "rss_before": rss0, "rss_growth": rss1 - rss0}


def show(r: dict) -> None:
    ok = r["p95"] <= 1 and r["cpu_per_change_ms"] <= 50 and r["errors"] == 0 and r["missing"] == 0 \
        and r["rss_growth"] <= 20
    print(f"{r['rooms']} room(s), {r['students']} students, {r['changes']} changes: delivery p50 {r['p50'] * 1000:.0f} ms, "
          f"p95 {r['p95'] * 1000:.0f} ms, max {r['max'] * 1000:.0f} ms; missed {r['missing']}; errors {r['errors']} "
          f"{r['error_kinds']}; server CPU per change (whole class) {r['cpu_per_change_ms']:.1f} ms "
          f"(idle {r['idle_ms_per_s']:.0f} ms/s subtracted); RSS {r['rss_before']:.0f} MB, "
          f"+{r['rss_growth']:.1f} MB -> {'PASS' if ok else 'FAIL'}")


_addresses = itertools.count()


def own_address() -> dict[str, str]:
    """Each simulated student joins from an address of its own (a phone on its own network), as the server started
    with ATTENTION_EXPLORER_TRUSTED_PROXY=1 reads it: one address may add only rooms.ROOM_JOINS_PER_MIN to a room in a
    minute, and a flooder's ids here stand for ones gathered over minutes or from many addresses."""
    k = next(_addresses)
    return {"x-forwarded-for": f"10.{k // 65536 % 256}.{k // 256 % 256}.{k % 256}"}


WARM_S = 25  # translations before a case is measured: at least this long ...
WARM_TRANSLATIONS = ANALYSIS_CACHE + 8  # ... and until the analysis store is full (its bound is a count)
WARM_MAX_S = 240  # a machine too busy to fill it in this long is measured anyway (the figure then says so)


async def warm(tr: Translators) -> None:
    """The students translate until the analysis store has filled to its bound: its growth is not the flood's."""
    t0 = time.perf_counter()
    await asyncio.sleep(WARM_S)
    while len(tr.times) < WARM_TRANSLATIONS and time.perf_counter() - t0 < WARM_MAX_S:
        await asyncio.sleep(1)
    if len(tr.times) < WARM_TRANSLATIONS:
        print(f"note: only {len(tr.times)} translations before measuring; the store's filling is in the figure")
STOPS = [f"stop {i}" for i in range(1, 9)]  # the lesson's own (explorer/classroom/rooms.py STOPS)


class Panel:
    """The teacher during a flood: a change every 0.5 s (each answer's status kept), the panel's stream heard."""

    def __init__(self, client: httpx.AsyncClient, url: str, room: dict) -> None:
        self.client, self.url, self.room = client, url, room
        self.statuses: list[int] = []
        self.events = self.bytes = 0
        self.tasks = [asyncio.create_task(self.listen()), asyncio.create_task(self.change())]

    async def listen(self) -> None:
        async with self.client.stream("GET", f"{self.url}/class/{self.room['code']}/teacher",
                                      params={"key": self.room["key"]}) as s:
            async for line in s.aiter_lines():
                self.bytes += len(line) + 1
                self.events += line.startswith("data:")

    async def change(self) -> None:
        i = 0
        while True:
            r = await self.client.post(f"{self.url}/class/{self.room['code']}/state",
                                       json={"key": self.room["key"], "state": f"text=Flood%20{i}&tab=steps"})
            self.statuses.append(r.status_code)
            i += 1
            await asyncio.sleep(0.5)

    async def close(self) -> dict:
        for t in self.tasks:
            t.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        ok = self.statuses.count(200)
        return {"panel_changes": f"{ok}/{len(self.statuses)}", "panel_events": self.events,
                "panel_mb": self.bytes / 1e6, "panel_ok": ok == len(self.statuses) > 0 and self.events > 0}


async def sized(client: httpx.AsyncClient, url: str, room: dict, students: int) -> None:
    """A room takes rooms.ROOM_SIZE students unless its teacher sets more (a lecture hall's size): set to ``students``
    where that is more (the cases here run 100-150 in one room)."""
    if students > ROOM_SIZE:
        r = await client.post(f"{url}/class/{room['code']}/size", json={"key": room["key"], "size": students})
        r.raise_for_status()


async def flood_room(client: httpx.AsyncClient, url: str, students: int) -> tuple[dict, list[str]]:
    r = await client.post(f"{url}/class/new", json={})
    r.raise_for_status()
    room = r.json()
    await sized(client, url, room, students)
    sids = []
    for _ in range(students):
        j = await client.post(f"{url}/class/{room['code']}/join", json={"nick": ""}, headers=own_address())
        j.raise_for_status()
        sids.append(j.json()["sid"])
    return room, sids


async def stream_flood(url: str, pid: int, students: int, per: int, seconds: float) -> dict:
    """Each of ``students`` ids tries to open ``per`` event streams at once; the open ones are held ``seconds``."""
    limits = httpx.Limits(max_connections=students * per + 50, max_keepalive_connections=50)
    async with httpx.AsyncClient(timeout=60, limits=limits) as client:
        room, sids = await flood_room(client, url, students)
        held: list = []
        statuses: dict[int, int] = {}

        async def one(sid: str) -> None:
            try:
                resp = await client.send(client.build_request("GET", f"{url}/class/{room['code']}/events",
                                                              params={"sid": sid}), stream=True)
            except httpx.HTTPError as e:
                statuses[-1] = statuses.get(-1, 0) + 1
                print("  stream error:", repr(e)[:120])
                return
            statuses[resp.status_code] = statuses.get(resp.status_code, 0) + 1
            if resp.status_code == 200:
                held.append(resp)
            else:
                await resp.aread()
                await resp.aclose()

        with Translators(url + "/") as tr:
            await warm(tr)
            first, rss0, c0, t0 = len(tr.times), rss_mb(pid), cpu_s(pid), time.perf_counter()
            own0 = time.process_time()
            panel = Panel(client, url, room)
            await asyncio.gather(*(one(sid) for sid in sids for _ in range(per)))
            peak = rss_mb(pid)
            end = time.perf_counter() + seconds
            while time.perf_counter() < end:
                await asyncio.sleep(1)
                peak = max(peak, rss_mb(pid))
            panel_result = await panel.close()
            for resp in held:
                await resp.aclose()
            cpu, own = cpu_s(pid) - c0, time.process_time() - own0
        await client.post(f"{url}/class/{room['code']}/end", json={"key": room["key"]})
        return {"case": f"stream flood: {students} ids x {per} streams", "taken": statuses.get(200, 0),
                "refused": {k: v for k, v in statuses.items() if k != 200}, "translate": tr.times[first:],
                "translate_errors": tr.errors, "cpu_s": cpu, "own_cpu_s": own, "wall_s": time.perf_counter() - t0,
                "rss_growth": peak - rss0} | panel_result


async def answer_flood(url: str, pid: int, students: int, seconds: float, quiet: bool = False) -> dict:
    """Each of ``students`` ids answers once a second for ``seconds``: at a lesson stop, or at a made-up one. With
    ``quiet``, nobody answers: the same room, translations and teacher, for the baseline."""
    limits = httpx.Limits(max_connections=students + 50, max_keepalive_connections=students + 50)
    async with httpx.AsyncClient(timeout=60, limits=limits) as client:
        room, sids = await flood_room(client, url, 0 if quiet else students)
        statuses: dict[int, int] = {}
        end = 0.0

        async def one(k: int, sid: str) -> None:
            i = 0
            while time.perf_counter() < end and not quiet:
                stop = STOPS[i % 8] if i % 2 else f"stop {1000 + k * 100 + i}"  # every other: a made-up stop
                try:
                    r = await client.post(f"{url}/class/{room['code']}/answer",
                                          json={"sid": sid, "stop": stop, "option": i % 4, "options": 4})
                    statuses[r.status_code] = statuses.get(r.status_code, 0) + 1
                except httpx.HTTPError:
                    statuses[-1] = statuses.get(-1, 0) + 1
                i += 1
                await asyncio.sleep(1.0)

        with Translators(url + "/") as tr:
            await warm(tr)
            first, rss0, c0, t0 = len(tr.times), rss_mb(pid), cpu_s(pid), time.perf_counter()
            own0 = time.process_time()
            panel = Panel(client, url, room)
            end = time.perf_counter() + seconds
            peak = rss_mb(pid)
            flood = asyncio.gather(*(one(k, sid) for k, sid in enumerate(sids)))
            while time.perf_counter() < end or not flood.done():
                await asyncio.sleep(1)
                peak = max(peak, rss_mb(pid))
            await flood
            panel_result = await panel.close()
            cpu, own = cpu_s(pid) - c0, time.process_time() - own0
        await client.post(f"{url}/class/{room['code']}/end", json={"key": room["key"]})
        case = "quiet (no flood: the baseline)" if quiet else f"answer flood: {students} ids x 1 answer/s"
        return {"case": f"{case} for {seconds:.0f} s",
                "taken": statuses.get(200, 0), "refused": {k: v for k, v in statuses.items() if k != 200},
                "translate": tr.times[first:], "translate_errors": tr.errors, "cpu_s": cpu, "own_cpu_s": own,
                "wall_s": time.perf_counter() - t0, "rss_growth": peak - rss0} | panel_result


def show_flood(r: dict) -> None:
    t = r["translate"]
    p95 = pct(t, 0.95)
    ok = p95 <= 1 and r["rss_growth"] <= 50 and r["panel_ok"] and r["translate_errors"] == 0
    print(f"{r['case']}: taken {r['taken']}, refused {r['refused']}; Translate p50 {statistics.median(t):.2f} s, "
          f"p95 {p95:.2f} s ({len(t)} runs, {r['translate_errors']} errors); teacher's changes {r['panel_changes']} "
          f"answered 200, its stream heard {r['panel_events']} events ({r['panel_mb']:.2f} MB); server CPU "
          f"{r['cpu_s']:.1f} s in {r['wall_s']:.0f} s (the bench's own, on the same cores: {r['own_cpu_s']:.1f} s); "
          f"RSS growth (peak) +{r['rss_growth']:.1f} MB "
          f"-> {'PASS' if ok else 'FAIL'}")


async def restarted_student(client: httpx.AsyncClient, url: str, code: str, sid: str, log: list, stop: asyncio.Event,
                            wait_answer: asyncio.Event, answered: list, shared: list, share: bool, i: int) -> None:
    """A student's page as class.js runs it: listen; answer stop 3 and maybe send a view when told; when the stream
    drops or cannot be opened, try again after a jittered backoff (0.5 s doubling, at most 4 s). Every state heard goes
    into ``log`` as (time, following, state)."""
    import random

    retry, asked = 0.0, False
    while not stop.is_set():
        try:
            async with client.stream("GET", f"{url}/class/{code}/events", params={"sid": sid}) as s:
                if s.status_code != 200:
                    raise httpx.HTTPError(f"status {s.status_code}")
                async for line in s.aiter_lines():
                    if not line.startswith("data:"):
                        continue
                    retry = 0.0
                    data = json.loads(line[5:])
                    log.append((time.perf_counter(), data["following"], data["state"], data.get("lesson")))
                    if wait_answer.is_set() and not asked:
                        asked = True
                        r = await client.post(f"{url}/class/{code}/answer",
                                              json={"sid": sid, "stop": "stop 3", "option": i % 4, "options": 4})
                        if r.status_code == 200:
                            answered.append(sid)
                        if share:
                            r = await client.post(f"{url}/class/{code}/share",
                                                  json={"sid": sid, "state": f"text=View%20{i}", "note": f"n{i}"})
                            if r.status_code == 200:
                                shared.append(sid)
                    if stop.is_set():
                        return
        except (httpx.HTTPError, OSError):
            pass
        if stop.is_set():
            return
        retry = min(4.0, (retry or 0.25) * 2) * (0.75 + random.random() / 2)
        await asyncio.sleep(retry)


async def restart_case(url: str, port: int, students: int, server: list) -> dict:
    """A class of ``students`` mid-lesson; the server killed (SIGKILL) and started again on the same port with the
    same rooms file: seconds from the server answering again until each student is following again (a state heard
    with following true and the shown view), and the answers and views sent acknowledged before the kill that the
    class no longer has."""
    limits = httpx.Limits(max_connections=students + 20, max_keepalive_connections=students + 20)
    async with httpx.AsyncClient(timeout=httpx.Timeout(60, connect=2), limits=limits) as client:
        room = (await client.post(f"{url}/class/new", json={})).json()
        code, key = room["code"], room["key"]
        await sized(client, url, room, students)
        sids = []
        for _ in range(students):
            r = await client.post(f"{url}/class/{code}/join", json={"nick": ""}, headers=own_address())
            r.raise_for_status()
            sids.append(r.json()["sid"])
        await client.post(f"{url}/class/{code}/state", json={"key": key, "state": "text=Before&tab=pe"})
        await client.post(f"{url}/class/{code}/lesson", json={"key": key, "stop": 2})
        logs = [[] for _ in sids]
        stop, wait_answer, answered, shared = asyncio.Event(), asyncio.Event(), [], []
        tasks = [asyncio.create_task(restarted_student(client, url, code, sid, logs[i], stop, wait_answer, answered,
                                                       shared, i % 10 == 0, i)) for i, sid in enumerate(sids)]
        while sum(bool(lg) for lg in logs) < students:
            await asyncio.sleep(0.1)
        wait_answer.set()
        await client.post(f"{url}/class/{code}/state", json={"key": key, "state": "text=Mid-lesson&tab=inside"})
        while len(answered) < students or len(shared) < students // 10:
            await asyncio.sleep(0.1)
        panel = await client.post(f"{url}/class/{code}/reveal", json={"key": key, "stop": "stop 3"})
        share_id = panel.json()["shares"][0]["id"]
        shown = (await client.post(f"{url}/class/{code}/show", json={"key": key, "share": share_id})).json()
        await asyncio.sleep(1)
        expected = next(s for s in shown["shares"] if s["id"] == share_id)
        # -- the crash and the start again
        proc = server[0]
        proc.kill()
        proc.wait()
        t_kill = time.perf_counter()
        server[0], boot = start([sys.executable, "app.py"], port)
        t_up = time.perf_counter()
        back = []
        deadline = t_up + 60
        while time.perf_counter() < deadline:
            back = [next((t for t, following, _, _ in lg if t > t_kill and following), None) for lg in logs]
            if all(t is not None for t in back):
                break
            await asyncio.sleep(0.1)
        stop.set()
        panel = (await client.post(f"{url}/class/{code}/reveal", json={"key": key, "stop": "stop 3"})).json()
        after = [lg[-1] for lg in logs if lg]
        await client.post(f"{url}/class/{code}/end", json={"key": key})
        await asyncio.wait(tasks, timeout=10)
        for t in tasks:
            t.cancel()
        delays = [max(0.0, t - t_up) for t in back if t is not None]
        tally = panel["tallies"].get("stop 3", {"answered": 0})
        kept_shares = {s["nick"] for s in panel["shares"]}
        return {"students": students, "boot_s": boot, "down_s": t_up - t_kill, "back": len(delays),
                "p50": statistics.median(delays) if delays else float("nan"), "p95": pct(delays, 0.95),
                "max": max(delays) if delays else float("nan"),
                "answers_lost": len(answered) - tally["answered"],
                "views_lost": min(len(shared), 20) - len(kept_shares),  # the panel lists the last 20 sent
                "shown_kept": panel.get("shown") is not None and panel["shown"]["id"] == share_id
                and panel["state"] == expected.get("state", panel["state"]),
                "at_stop": sum(1 for _, following, state, lesson in after if following and lesson == 2)}


def show_restart(r: dict) -> None:
    ok = r["back"] == r["students"] and r["p95"] <= 5 and r["answers_lost"] == 0 and r["views_lost"] == 0 \
        and r["shown_kept"]
    print(f"restart: {r['students']} students, server down {r['down_s']:.1f} s (start {r['boot_s']:.1f} s): "
          f"{r['back']} following again, after the server answered p50 {r['p50']:.2f} s, p95 {r['p95']:.2f} s, "
          f"max {r['max']:.2f} s; answers lost {r['answers_lost']}, views lost {r['views_lost']}, shown view kept "
          f"{r['shown_kept']}, at the teacher's lesson stop {r['at_stop']} -> {'PASS' if ok else 'FAIL'}")


async def split_case(urls: list[str], students: int, changes: int, gap: float) -> dict:
    """One class over two processes sharing Redis: the teacher on the first, the students alternately on each;
    delivery from the teacher's POST to each student's event, per process the students are on."""
    limits = httpx.Limits(max_connections=students + 20, max_keepalive_connections=students + 20)
    async with httpx.AsyncClient(timeout=120, limits=limits) as client:
        room = (await client.post(f"{urls[0]}/class/new", json={})).json()
        heard = [dict(), dict()]
        errors: list[str] = []
        ready, n_ready = asyncio.Event(), [0]
        tasks = []
        for i in range(students):
            tasks.append(asyncio.create_task(student(client, urls[i % 2], room["code"], heard[i % 2], errors, ready,
                                                     n_ready, students)))
            await asyncio.sleep(0.005)
        await asyncio.wait_for(ready.wait(), 120)
        await asyncio.sleep(1)
        sent = {}
        for i in range(changes):
            await set_view(client, urls[0], room, f"text=Split%20{i}&tab=steps", sent, errors)
            await asyncio.sleep(gap)
        await asyncio.sleep(1)
        await client.post(f"{urls[0]}/class/{room['code']}/end", json={"key": room["key"]})
        await asyncio.wait(tasks, timeout=30)
        out = {"students": students, "changes": changes, "errors": len(errors)}
        for side, h in zip(("same", "other"), heard):
            delays = [t - sent[state] for state in sent for t in h.get(state, [])]
            out[side] = {"p50": statistics.median(delays), "p95": pct(delays, 0.95), "max": max(delays),
                         "missing": (students // 2) * changes - len(delays)}
        return out


def show_split(r: dict) -> None:
    ok = r["other"]["p95"] <= 1 and r["errors"] == 0 and r["other"]["missing"] == 0
    print(f"two processes, one class over Redis: {r['students']} students, {r['changes']} changes; students on the "
          f"teacher's process p50 {1000 * r['same']['p50']:.0f} ms, p95 {1000 * r['same']['p95']:.0f} ms; on the other "
          f"p50 {1000 * r['other']['p50']:.0f} ms, p95 {1000 * r['other']['p95']:.0f} ms, max "
          f"{1000 * r['other']['max']:.0f} ms; missed {r['same']['missing'] + r['other']['missing']}, errors "
          f"{r['errors']} -> {'PASS' if ok else 'FAIL'}")


def warm_long(url: str, rounds: int = 2) -> None:
    """Two attributions at once (the long-work slots' working set, which any class pressing Attribute reaches), twice:
    a server that has done so keeps about 40 MB of it, and needs about 45 MB more while two run again (measured in
    one process, docs/performance.md), whoever asks for them."""
    from concurrent.futures import ThreadPoolExecutor

    from bench.fair_share import attribute_args, call

    def one(k: int) -> None:
        for j in range(rounds):
            call(url + "/", "attribute", attribute_args(f"A woman number {k}{j} reads a book by the window.", 32))
    with ThreadPoolExecutor(LONG_SLOTS) as pool:
        list(pool.map(one, range(LONG_SLOTS)))


async def siege_case(url: str, pid: int, students: int, attack_s: float, same_address: bool | None,
                     long_warm: bool = True) -> dict:
    """The siege (bench/siege.py) while 5 students translate, after the analysis store has filled and (``long_warm``)
    after the server has run its long-work slots once, as a server in use has: the growth measured is then the
    attack's, not the first attribution's."""
    with Translators(url + "/") as tr:
        await warm(tr)
        if long_warm:
            await asyncio.to_thread(warm_long, url)
        return await siege(url, lambda: rss_mb(pid), students, attack_s, translators=tr, same_address=same_address)


def split(args) -> None:
    """--only redis: a redis-server and two `python app.py` sharing it."""
    import subprocess

    redis_port = args.port + 2
    redis = subprocess.Popen(["redis-server", "--port", str(redis_port), "--bind", "127.0.0.1", "--save", "",
                              "--appendonly", "no"], stdout=subprocess.DEVNULL)
    os.environ["ATTENTION_EXPLORER_REDIS"] = f"redis://127.0.0.1:{redis_port}/0"
    procs = []
    try:
        time.sleep(0.5)
        for port in (args.port, args.port + 1):
            procs.append(start([sys.executable, "app.py"], port)[0])
        show_split(asyncio.run(split_case([f"http://127.0.0.1:{args.port}", f"http://127.0.0.1:{args.port + 1}"],
                                          args.students, args.changes, args.gap)))
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(timeout=30)
        redis.terminate()
        redis.wait(timeout=10)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--students", type=int, default=100)
    p.add_argument("--changes", type=int, default=30)
    p.add_argument("--rooms", type=int, default=10)
    p.add_argument("--per-room", type=int, default=30)
    p.add_argument("--gap", type=float, default=0.5, help="seconds between the teacher's changes")
    p.add_argument("--port", type=int, default=7897)
    p.add_argument("--only", choices=("push", "floods", "restart", "redis", "siege"),
                   help="only the push channel's cases, the floods, the restart, one class over two processes, or "
                        "a class under attack (bench/siege.py)")
    p.add_argument("--siege-students", type=int, default=30)
    p.add_argument("--attack-s", type=float, default=12, help="seconds each attack of the siege runs")
    p.add_argument("--cold-long", action="store_true",
                   help="the siege on a server that has never run an attribution (its first two at once are then in "
                        "the attack's figure)")
    p.add_argument("--flood-students", type=int, default=150)
    p.add_argument("--flood-streams", type=int, default=20, help="streams each student id tries to open")
    p.add_argument("--flood-s", type=float, default=60)
    args = p.parse_args()
    os.environ["ATTENTION_EXPLORER_TRUSTED_PROXY"] = "1"  # the students' own addresses (own_address) are read
    if args.only == "redis":
        return split(args)
    rooms_dir = tempfile.mkdtemp(prefix="bench-rooms-")
    os.environ["ATTENTION_EXPLORER_ROOMS"] = str(Path(rooms_dir) / "rooms.sqlite3")  # this run's own rooms file
    proc, boot = start([sys.executable, "app.py"], args.port)
    server = [proc]
    url = f"http://127.0.0.1:{args.port}"
    try:
        print(f"server up in {boot:.1f} s (pid {proc.pid})")
        if args.only in (None, "push"):
            show(asyncio.run(teach(url, proc.pid, 1, args.students, args.changes, args.gap)))
            show(asyncio.run(teach(url, proc.pid, args.rooms, args.per_room, args.changes, args.gap)))
        if args.only in (None, "restart"):
            show_restart(asyncio.run(restart_case(url, args.port, args.students, server)))
            proc = server[0]
        if args.only in (None, "floods"):
            show_flood(asyncio.run(answer_flood(url, proc.pid, args.flood_students, args.flood_s, quiet=True)))
            show_flood(asyncio.run(stream_flood(url, proc.pid, args.flood_students, args.flood_streams,
                                                args.flood_s)))
            show_flood(asyncio.run(answer_flood(url, proc.pid, args.flood_students, args.flood_s)))
        if args.only in (None, "siege"):
            for same in (None, False, True):
                show_siege(asyncio.run(siege_case(url, proc.pid, args.siege_students, args.attack_s, same,
                                                  long_warm=not args.cold_long)))
    finally:
        server[0].terminate()
        server[0].wait(timeout=30)
        shutil.rmtree(rooms_dir, ignore_errors=True)


if __name__ == "__main__":
    main()
