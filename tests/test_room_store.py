"""Rooms survive a restart (explorer/classroom/store.py): a second Rooms on the same SQLite file holds every open
room as it was (students, following, tallies, reveals, views sent, the shown view, the teacher's view); ended and
expired rooms are deleted."""

import sqlite3
import time

from explorer.classroom import rooms as r
from explorer.classroom.rooms import Rooms
from explorer.classroom.store import RoomStore


def test_a_class_comes_back_after_a_restart_as_it_was(tmp_path):
    path = str(tmp_path / "rooms.sqlite3")
    before = Rooms(RoomStore(path))
    code, key = before.open()
    _, a = before.join(code, "Ana")
    _, b = before.join(code, "Ben")
    before.answer(code, a.sid, "stop 3", 1, 4)
    before.answer(code, b.sid, "stop 3", 2, 4)
    before.reveal(code, key, "stop 3")
    before.follow(code, b.sid, False)
    before.share(code, b.sid, "text=A%20cat&tab=steps", "look")
    before.set_state(code, key, "text=A%20dog&tab=inside&in_layer=2")
    ended, ended_key = before.open()
    before.end(ended, ended_key)

    after = Rooms(RoomStore(path))  # the process started again
    assert set(after.rooms) == {code}
    room = after.rooms[code]
    assert room.for_teacher()["tallies"]["stop 3"]["counts"] == [0, 1, 1, 0]
    assert room.for_student(a.sid)["state"] == "text=A%20dog&tab=inside&in_layer=2"
    assert room.for_student(a.sid)["revealed"]["stop 3"]["answered"] == 2
    assert room.for_student(b.sid)["following"] is False and room.for_student(a.sid)["nick"] == "Ana"
    after.teacher(code, key)  # the same key leads it
    share = room.shares[0]["id"]
    after.show(code, key, share)
    assert after.rooms[code].for_student(a.sid)["shown"]["nick"] == "Ben"
    after.bring_back(code, key)
    assert all(s["following"] for s in (room.for_student(a.sid), room.for_student(b.sid)))
    again = Rooms(RoomStore(path))
    assert again.rooms[code].back == 1 and again.rooms[code].for_teacher()["following"] == 2


def test_ended_and_expired_rooms_are_deleted_and_the_store_is_bounded(tmp_path, monkeypatch):
    path = str(tmp_path / "rooms.sqlite3")
    rooms = Rooms(RoomStore(path))
    codes = [rooms.open(f"10.0.0.{i}")[0] for i in range(4)]
    db = sqlite3.connect(path)
    db.execute("UPDATE rooms SET saved = ? WHERE code = ?", (time.time() - r.IDLE_S - 10, codes[0]))
    db.commit()
    monkeypatch.setattr(r, "MAX_ROOMS", 2)
    kept = Rooms(RoomStore(path))
    assert len(kept.rooms) == 2 and codes[0] not in kept.rooms
    assert db.execute("SELECT COUNT(*) FROM rooms").fetchone()[0] == 2
    db.close()


def test_memory_only_when_asked(monkeypatch):
    monkeypatch.setenv("ATTENTION_EXPLORER_ROOMS", "memory")
    assert RoomStore.from_env() is None


def test_the_rooms_file_is_readable_by_its_owner_only(tmp_path):
    """It holds student ids (whoever holds one answers as that student): 0600, its WAL file too, and a file made
    readable to all before is made private again."""
    import os
    import stat

    path = tmp_path / "rooms.sqlite3"
    path.touch(mode=0o644)
    os.chmod(path, 0o644)
    rooms = Rooms(RoomStore(str(path)))
    code, _ = rooms.open()
    rooms.join(code, "Ana")
    for f in (path, tmp_path / "rooms.sqlite3-wal"):
        assert f.exists() and stat.S_IMODE(f.stat().st_mode) == 0o600, (f, oct(f.stat().st_mode))


def test_a_damaged_rooms_file_is_set_aside_and_the_app_goes_on(tmp_path):
    """A rooms file that is no longer a database (a page overwritten, garbage, truncated) neither stops the app nor
    leaves it without a file: it is renamed aside, a fresh one takes its place, and new classes are kept again. A row
    whose JSON is no room (a list) is dropped, the others come back."""
    path = tmp_path / "rooms.sqlite3"
    rooms = Rooms(RoomStore(str(path)))
    kept, _ = rooms.open()
    rooms.store.db.execute("INSERT INTO rooms (code, saved, data) VALUES ('LISTED', ?, '[1, 2]')", (time.time(),))
    rooms.store.db.close()
    again = Rooms(RoomStore(str(path)))  # a row that is a list: dropped, the room beside it back
    assert set(again.rooms) == {kept}
    again.store.db.close()
    with open(path, "r+b") as f:  # the first page overwritten
        f.write(b"\x00garbage" * 400)
    for name in ("rooms.sqlite3-wal", "rooms.sqlite3-shm"):
        (tmp_path / name).unlink(missing_ok=True)
    fresh = Rooms(RoomStore(str(path)))
    assert fresh.rooms == {}
    assert [p.name for p in tmp_path.iterdir() if ".damaged-" in p.name], list(tmp_path.iterdir())
    code, _ = fresh.open()  # a new class is kept in the fresh file
    assert set(Rooms(RoomStore(str(path))).rooms) == {code}


def test_a_rooms_file_locked_by_another_process_slows_no_change_and_loses_none_in_memory(tmp_path):
    """Another process holding the file's write lock: a change waits at most WAIT_S (it was 5 s on the event loop,
    then a 500), is applied in this process, and the room goes on."""
    from explorer.classroom import store as st

    path = str(tmp_path / "rooms.sqlite3")
    rooms = Rooms(RoomStore(path))
    code, key = rooms.open()
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")  # holds the lock
    try:
        t0 = time.monotonic()
        _, ana = rooms.join(code, "Ana")
        rooms.set_state(code, key, "text=A%20dog")
        took = time.monotonic() - t0
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert took < 3 * st.WAIT_S + 0.5, took
    assert rooms.rooms[code].for_student(ana.sid)["state"] == "text=A%20dog"
