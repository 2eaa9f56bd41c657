"""Several processes, one class (explorer/classroom/redis_store.py): two `python app.py` processes sharing a real
`redis-server` (started and stopped here) serve one class; the teacher on one, the students on the other. Follow,
answers and their tally, a shown view and the end travel between them."""

import json
import shutil
import threading
import time

import httpx
import pytest
from app_server import free_port
from processes import started
from test_class_restart import app_process

pytestmark = pytest.mark.skipif(shutil.which("redis-server") is None,
                                reason="redis-server is not installed (Debian: apt-get install redis-server; .ci/run does)")


@pytest.fixture
def redis_url():
    pytest.importorskip("redis", reason="the redis client is not installed (pip install -r requirements-dev.txt)")
    port = free_port()
    with started(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
                 stdout=open("/dev/null", "w")):
        import redis

        client = redis.Redis(port=port)
        for _ in range(100):
            try:
                client.ping()
                break
            except redis.ConnectionError:
                time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"


def listen(url: str, heard: list, stop: threading.Event) -> threading.Thread:
    """Server-sent events from ``url`` into ``heard`` (each event's JSON), in a thread."""
    def run():
        with httpx.stream("GET", url, timeout=60) as s:
            for line in s.iter_lines():
                if line.startswith("data:"):
                    heard.append(json.loads(line[5:]))
                if stop.is_set():
                    return
    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t


def until(check, timeout=10.0):
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "not heard in time"
        time.sleep(0.05)
    return time.monotonic()


def test_two_processes_serve_one_class(redis_url, tmp_path, monkeypatch):
    monkeypatch.setenv("ATTENTION_EXPLORER_REDIS", redis_url)
    pa, pb = free_port(), free_port()
    with app_process(pa, tmp_path / "a.sqlite3"), app_process(pb, tmp_path / "b.sqlite3"):
        a, b = f"http://127.0.0.1:{pa}/class/", f"http://127.0.0.1:{pb}/class/"
        room = httpx.post(a + "new", json={}).json()
        code, key = room["code"], room["key"]
        sids = [httpx.post(f"{b}{code}/join", json={"nick": f"S{i}"}).json()["sid"] for i in range(2)]
        stop = threading.Event()
        students = [[], []]
        teacher: list = []
        for sid, heard in zip(sids, students):
            listen(f"{b}{code}/events?sid={sid}", heard, stop)
        listen(f"{a}{code}/teacher?key={key}", teacher, stop)
        until(lambda: all(students) and teacher and teacher[-1]["students"] == 2)

        # the teacher's view, posted to A, reaches both students on B
        sent = time.monotonic()
        assert httpx.post(f"{a}{code}/state", json={"key": key, "state": "text=A%20dog&tab=inside&in_layer=2"}).is_success
        got = until(lambda: all(h[-1]["state"] == "text=A%20dog&tab=inside&in_layer=2" for h in students))
        assert got - sent < 1.0
        # answers on B: the tally on A's panel; the reveal on A reaches B
        for i, sid in enumerate(sids):
            assert httpx.post(f"{b}{code}/answer", json={"sid": sid, "stop": "stop 3", "option": i, "options": 4}).is_success
        until(lambda: teacher[-1]["tallies"].get("stop 3", {}).get("answered") == 2)
        assert teacher[-1]["tallies"]["stop 3"]["counts"] == [1, 1, 0, 0]
        httpx.post(f"{a}{code}/reveal", json={"key": key, "stop": "stop 3"})
        until(lambda: all("stop 3" in h[-1]["revealed"] for h in students))
        # a view sent on B, shown from A, reaches the other student
        httpx.post(f"{b}{code}/share", json={"sid": sids[0], "state": "text=A%20cat", "note": "look"})
        until(lambda: teacher[-1]["shares"])
        httpx.post(f"{a}{code}/show", json={"key": key, "share": teacher[-1]["shares"][0]["id"]})
        until(lambda: students[1][-1]["state"] == "text=A%20cat" and students[1][-1]["shown"]["nick"] == "S0")
        # exploring on B is counted on A; the end on A reaches B
        httpx.post(f"{b}{code}/follow", json={"sid": sids[1], "following": False})
        until(lambda: teacher[-1]["exploring"] == 1)
        httpx.post(f"{a}{code}/end", json={"key": key})
        until(lambda: all(h[-1]["ended"] for h in students))
        assert httpx.post(f"{b}{code}/check", json={"sid": sids[0]}).status_code == 404
        stop.set()
