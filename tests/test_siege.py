"""A class under attack, small (issue 48): bench/siege.py's siege against `python app.py` in its own process (its own
rooms, so the attacker's rooms take nothing from the other tests), with 6 honest students, each attack 2 s and a tenth
of its counts. Everything checked here is a count, not a time: the bench prints the times."""

import asyncio
import sys

from app_server import free_port

from bench.app_server import rss_mb, start
from bench.siege import ATTACKS, siege


def test_a_class_under_attack_from_its_own_address_finishes_its_lesson(monkeypatch):
    monkeypatch.setenv("ATTENTION_EXPLORER_ROOMS", "memory")
    monkeypatch.setenv("ATTENTION_EXPLORER_TRUSTED_PROXY", "1")  # the class's one address, as its proxy says
    port = free_port()
    proc, _ = start([sys.executable, "app.py"], port)
    try:
        r = asyncio.run(siege(f"http://127.0.0.1:{port}", lambda: rss_mb(proc.pid), students=6, attack_s=2.0,
                              scale=0.1))
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    assert r["students"] == 6
    assert r["failed"] == [] and r["answered"] == r["actions"] > 6 * len(ATTACKS)  # every honest action answered
    assert r["heard"] == r["stops_due"] == 6 * len(ATTACKS) and r["dropped"] == 0  # every phone heard every stop
    assert r["tally_ok"], (r["tallies"], r["want"])  # no fake, guess or poisoned answer in any stop's count
    seen = r["attacker"]
    assert set(seen["join the locked class"]) <= {403, 429}
    assert set(seen["process_recording"]) == set(seen["upload"]) == {403}
    assert set(seen["2 MB of JSON"]) == {413}
    assert 200 not in seen["wrong id"] and 429 in seen["wrong id"]  # held back, and the class went on meanwhile
