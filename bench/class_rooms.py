"""Benchmark: class rooms' push channel (explorer/classroom/rooms.py, routes.py) against `python app.py` in its own
process, as a class meets it: students joined by HTTP and listening on server-sent events, a teacher changing the view.

    python bench/class_rooms.py [--students 100] [--changes 30] [--rooms 10 --per-room 30]

Prints, from one run: p50/p95 delivery (the teacher's POST to each follower's event), the server's CPU per change
for the whole class (utime+stime of the server process from /proc, minus its idle rate over the same time), errors,
and RSS growth; once for one room of --students, once for --rooms rooms of --per-room at once.
Goals (issue "Lead a class with it"): p95 <= 1 s, CPU per change <= 50 ms, 0 errors, RSS growth <= 20 MB.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.app_server import rss_mb, start  # noqa: E402

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
        r = await client.post(f"{url}/class/{code}/join", json={"nick": ""})
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


async def teach(url: str, pid: int, rooms: int, per_room: int, changes: int, gap: float) -> dict:
    limits = httpx.Limits(max_connections=rooms * per_room + 20, max_keepalive_connections=rooms * per_room + 20)
    async with httpx.AsyncClient(timeout=120, limits=limits) as client:
        opened = []
        for _ in range(rooms):
            r = await client.post(f"{url}/class/new")
            r.raise_for_status()
            opened.append(r.json())
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
                state = f"text=Change%20{i}%20room%20{j}&tab=steps&step={i % 5}"
                sent[state] = time.perf_counter()
                r = await client.post(f"{url}/class/{room['code']}/state", json={"key": room["key"], "state": state})
                if r.status_code != 200:
                    errors.append(f"state {r.status_code}")
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


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--students", type=int, default=100)
    p.add_argument("--changes", type=int, default=30)
    p.add_argument("--rooms", type=int, default=10)
    p.add_argument("--per-room", type=int, default=30)
    p.add_argument("--gap", type=float, default=0.5, help="seconds between the teacher's changes")
    p.add_argument("--port", type=int, default=7897)
    args = p.parse_args()
    proc, boot = start([sys.executable, "app.py"], args.port)
    url = f"http://127.0.0.1:{args.port}"
    try:
        print(f"server up in {boot:.1f} s (pid {proc.pid})")
        show(asyncio.run(teach(url, proc.pid, 1, args.students, args.changes, args.gap)))
        # joins are limited per address and minute (rooms.JOINS_PER_MIN): every student here comes from 127.0.0.1
        print("waiting 61 s for the per-address join window to clear")
        time.sleep(61)
        show(asyncio.run(teach(url, proc.pid, args.rooms, args.per_room, args.changes, args.gap)))
    finally:
        proc.terminate()
        proc.wait(timeout=30)


if __name__ == "__main__":
    main()
