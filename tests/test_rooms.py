"""Class rooms (explorer/classroom/rooms.py, explorer/classroom/routes.py): codes, control by key only, answers counted once,
every bound refused in words, and the push channel over real HTTP (server-sent events)."""

import json
import threading
import time
import urllib.parse

import httpx
import pytest

from explorer.classroom import rooms as r
from explorer.classroom.rooms import Room, RoomError, Rooms


def refused(fn, *args, status=None, words=""):
    with pytest.raises(RoomError) as e:
        fn(*args)
    if status is not None:
        assert e.value.status == status
    assert words.lower() in str(e.value).lower()
    return str(e.value)


def test_codes_are_six_characters_without_look_alikes_and_the_key_is_not_in_them():
    rooms = Rooms()
    codes = set()
    for i in range(40):
        code, key = rooms.open(f"10.0.0.{i}")
        assert len(code) == 6 and set(code) <= set(r.ALPHABET) and not set(code) & set("0O1IL")
        assert code not in key and len(key) >= 24
        assert rooms.rooms[code].key_digest != key  # only a digest is kept
        codes.add(code)
    assert len(codes) == 40


def test_only_the_key_holder_controls_a_room():
    rooms = Rooms()
    code, key = rooms.open()
    _, student = rooms.join(code, "Ana")
    for fn, args in ((rooms.set_state, ("text=x",)), (rooms.reveal, ("stop 1",)), (rooms.bring_back, ()),
                     (rooms.end, ())):
        refused(fn, code, student.sid, *args, status=404, words="no class with the code")
        refused(fn, code, "", *args, status=404)
    rooms.set_state(code, key, "text=A%20dog&tab=steps")
    assert rooms.rooms[code].for_student(student.sid)["state"] == "text=A%20dog&tab=steps"


def test_unknown_and_ended_rooms_are_named_clearly():
    rooms = Rooms()
    assert "“ZZ9ZZ9”" in refused(rooms.join, "zz9zz9", "", status=404, words="no class with the code")
    message = refused(rooms.join, "<b>AB</b>CD", "", status=404)
    assert "<" not in message and "“BABBCD”" in message  # only the code's own characters are named back
    code, key = rooms.open()
    rooms.end(code, key)
    refused(rooms.join, code, "", status=404, words="no class")


def test_answers_count_once_and_are_revealed_to_the_class_only_when_the_teacher_says():
    rooms = Rooms()
    code, key = rooms.open()
    students = [rooms.join(code, "", "1.2.3.4")[1] for _ in range(5)]
    for i, s in enumerate(students):
        rooms.answer(code, s.sid, "stop 6", i % 2, 4)
    rooms.answer(code, students[0].sid, "stop 6", 3, 4)  # a second answer does not count again
    room = rooms.rooms[code]
    assert room.for_teacher()["tallies"]["stop 6"] == {"stop": "stop 6", "answered": 5, "counts": [3, 2, 0, 0], "ids": None}
    assert room.for_student(students[1].sid)["revealed"] == {}  # not yet
    assert room.for_student(students[1].sid)["mine"] == {"stop 6": 1}
    rooms.reveal(code, key, "stop 6")
    assert room.for_student(students[1].sid)["revealed"]["stop 6"]["counts"] == [3, 2, 0, 0]
    refused(rooms.answer, code, students[0].sid, "stop 6", 7, 4, words="option from 0 to 3")
    refused(rooms.answer, code, students[0].sid, "stop 6", True, 4, words="option")
    refused(rooms.answer, code, students[0].sid, "&quot;);alert(1)//", 0, 4, words="only letters")
    # an answer refused for its question's ids (no list of names) is refused whole: never counted
    late = rooms.join(code, "", "1.2.3.5")[1]
    for ids in ({"a": 1}, ["a"], "abcd"):
        refused(rooms.answer, code, late.sid, "stop 7", 1, 2, ids, words="options")
    assert "stop 7" not in room.for_teacher()["tallies"] and room.for_student(late.sid)["mine"] == {}


def test_a_shown_view_reaches_every_follower_and_a_student_exploring_alone_is_not_moved():
    rooms = Rooms()
    code, key = rooms.open()
    _, a = rooms.join(code, "A")
    _, b = rooms.join(code, "<b>B</b>")
    rooms.follow(code, b.sid, False)  # exploring on their own
    room = rooms.share(code, a.sid, "text=A%20cat&tab=experiments&heads=cross%20L0%20H0", "heads off!")
    share = room.for_teacher()["shares"][-1]
    assert share["nick"] == "A" and share["note"] == "heads off!"
    version = room.version  # the same view and note sent again: nothing new, nobody woken (helper 71)
    rooms.share(code, a.sid, "text=A%20cat&tab=experiments&heads=cross%20L0%20H0", "heads off!")
    assert room.version == version and room.for_teacher()["shares"][-1]["id"] == share["id"]
    rooms.show(code, key, share["id"])
    assert room.for_student(a.sid)["state"].startswith("text=A%20cat")
    assert room.for_student(b.sid)["following"] is False  # their page decides not to move: the room says so
    # the open question waits while the view is shown: no answer is taken, from a follower or from one exploring
    # (helper 67: the exploring student's counted beside the panel's "this question waits")
    for who in (a, b):
        refused(rooms.answer, code, who.sid, "stop 5", 1, 4, status=409, words="waits")
    assert room.answers.get("stop 5", {}) == {}
    rooms.bring_back(code, key)
    assert room.for_student(b.sid)["following"] is True
    assert room.for_teacher()["students"] == 2
    rooms.answer(code, b.sid, "stop 5", 1, 4)  # brought back: the question is open again
    assert room.answers["stop 5"] == {b.sid: 1}


def test_the_teachers_panel_hears_each_students_newest_view_in_a_few_bytes_not_every_view_whole():
    """A student who sends view after view (a removed one rejoining, a script) kept the teacher's stream busy: every
    panel news carried the last 20 views whole, up to 8,000 characters each (attacker helper 22: 3.2 MB/s down the
    teacher's stream). The panel now hears each student's newest view only, as its sentence (cut) and tab."""
    rooms = Rooms()
    code, key = rooms.open()
    students = [rooms.join(code, f"S{i}", f"10.0.0.{i}")[1] for i in range(20)]
    big = "text=" + "a%20" * 100 + "&tab=inside&" + "&".join(f"k{i}=" + "x" * 40 for i in range(150))
    for _ in range(5):
        for s in students:
            room = rooms.share(code, s.sid, big, "look")
    panel = room.for_teacher()["shares"]
    assert len(panel) == 20 and sorted(x["nick"] for x in panel) == sorted(f"S{i}" for i in range(20))
    assert {x["tab"] for x in panel} == {"inside"} and all(x["text"].startswith("a a a") for x in panel)
    assert len(json.dumps(panel)) < 20 * 300, len(json.dumps(panel))
    rooms.share(code, students[1].sid, "a&" * 3000, "")  # (no view a page sends: the panel still answers)
    assert room.for_teacher()["shares"][-1]["text"] == ""
    # Show to everyone still shows the whole view
    rooms.show(code, key, panel[0]["id"])
    assert room.for_student(students[0].sid)["state"].endswith("x" * 40)


def url_search_params_get(query: str, name: str) -> str | None:
    """What a page's ``new URLSearchParams(query).get(name)`` gives (a leading "?" dropped, the first value, "+" a
    space, percent-decoding): the reference the panel is checked against."""
    import urllib.parse

    for part in query.removeprefix("?").split("&"):
        k, _, v = part.partition("=")
        if urllib.parse.unquote_plus(k) == name:
            return urllib.parse.unquote_plus(v)
    return None


def test_the_sentence_the_panel_quotes_is_the_one_show_to_everyone_puts_on_every_screen():
    """Attacker helper 33 sent "?text=You+are+all+stupid.&text=A+dog+runs+in+the+park.": the panel quoted the dog, and
    Show to everyone put the other sentence on every screen. A view is now kept as the page reads it; an encoded NUL
    or bidi override in it is cleaned as typed text is."""
    rooms = Rooms()
    code, key = rooms.open()
    _, s = rooms.join(code, "S", "10.0.0.1")
    for view in ("?text=You+are+all+stupid.&text=A+dog+runs+in+the+park.&tab=attend",
                 "text=A+dog+runs.&%3Ftext=Rude+words.&tab=attend", "tab=steps&text=Der%20Hund%00l%C3%A4uft%E2%80%AE.",
                 "text=a%26b%3Dc+%2B+d&text=x&tab=steps&step=2"):
        room = rooms.share(code, s.sid, view, "")
        quoted = room.for_teacher()["shares"][-1]
        rooms.show(code, key, quoted["id"])
        shown = room.for_student(s.sid)["state"]
        assert quoted["text"] == url_search_params_get(shown, "text"), (view, quoted, shown)
        # the sentence the student's own page showed (the first), cleaned as typed text is
        assert quoted["text"] == url_search_params_get(view, "text").replace("\0", " ").replace("\u202e", ""), view
        assert quoted["tab"] == url_search_params_get(view, "tab")
        rooms.bring_back(code, key)


def test_each_bound_is_refused_with_its_message(monkeypatch):
    rooms = Rooms()
    code, key = rooms.open()
    refused(rooms.join, code, "x" * (r.NICK_CHARS + 1), words=f"{r.NICK_CHARS} characters")
    _, s = rooms.join(code, "")
    assert s.nick == "Student 1"
    refused(rooms.share, code, s.sid, "text=a", "n" * (r.NOTE_CHARS + 1), words=f"{r.NOTE_CHARS} characters")
    refused(rooms.set_state, code, key, "s" * (r.STATE_CHARS + 1), words="characters")
    rooms.resize(code, key, 2)  # the room's size, the teacher's (at most MAX_STUDENTS)
    rooms.join(code, "")
    refused(rooms.join, code, "", status=403, words="full (2 students)")
    refused(rooms.resize, code, key, r.MAX_STUDENTS + 1, words=f"from 1 to {r.MAX_STUDENTS}")
    rooms.resize(code, key, r.MAX_STUDENTS)
    for _ in range(r.MESSAGES_PER_MIN - 1):  # the refused share above was one message
        rooms.follow(code, s.sid, True)
    refused(rooms.follow, code, s.sid, True, status=429, words="too many messages")
    monkeypatch.setattr(r, "JOINS_PER_MIN", 5)
    joins = Rooms()
    c2, _ = joins.open()
    for _ in range(r.JOINS_PER_MIN):
        joins.join(c2, "", "9.9.9.9")
    refused(joins.join, c2, "", "9.9.9.9", status=429, words="too many joins")
    opens = Rooms()
    for _ in range(r.ROOMS_PER_HOUR):
        opens.open("8.8.8.8")
    refused(opens.open, "8.8.8.8", status=429, words="the next can be opened in about 60 min")  # when, in words
    monkeypatch.setattr(r, "MAX_ROOMS", len(opens.rooms))
    # rooms nobody joined go after EMPTY_S: that is when to try again
    refused(opens.open, "7.7.7.7", status=503, words=f"try again in about {r.EMPTY_S // 60} min")
    sid = opens.join(next(iter(opens.rooms)), "", "6.6.6.6")[1].sid  # every room taken and watched: IDLE_S
    for i, (code, room) in enumerate(opens.rooms.items()):
        if not room.students:
            opens.join(code, "", f"6.6.7.{i}")
    with opens.streaming(opens.rooms[next(iter(opens.rooms))], "s:" + sid, "6.6.6.6"):
        assert round(opens.next_free()) in range(r.UNWATCHED_S - 5, r.UNWATCHED_S + 1)  # the unwatched go first


def test_a_room_nobody_used_for_three_hours_ends():
    rooms = Rooms()
    code, _ = rooms.open()
    rooms.sweep(time.monotonic() + r.IDLE_S + 1)
    refused(rooms.join, code, "", status=404)


# -- over HTTP, with the app's own server ------------------------------------------------------------------------
@pytest.fixture(scope="module")
def server():
    from app_server import served

    with served() as (_, url):
        yield url.rstrip("/")


def post(url, path, **body):
    return httpx.post(url + path, json=body, timeout=30)


def listen(url, path, into: list, stop: threading.Event):
    """Read server-sent events into ``into`` (each: (time received, data)) until ``stop``."""
    with httpx.stream("GET", url + path, timeout=60) as s:
        for line in s.iter_lines():
            if line.startswith("data:"):
                into.append((time.perf_counter(), json.loads(line[5:])))
                if into[-1][1].get("ended") or stop.is_set():
                    return


def test_followers_hear_each_change_over_server_sent_events_and_a_student_cannot_control(server):
    room = post(server, "/class/new").json()
    code, key = room["code"], room["key"]
    joined = [post(server, f"/class/{code}/join", nick=f"<i>s{i}</i>").json() for i in range(2)]
    assert all(j["nick"].startswith("<i>") for j in joined)  # kept as text: the page escapes it where shown
    heard = [[] for _ in joined]
    stop = threading.Event()
    threads = [threading.Thread(target=listen, args=(server, f"/class/{code}/events?sid={j['sid']}", h, stop))
               for j, h in zip(joined, heard)]
    for t in threads:
        t.start()
    time.sleep(0.5)
    for i in range(3):
        assert post(server, f"/class/{code}/state", key=key, state=f"text=change{i}&tab=steps").status_code == 200
        time.sleep(0.2)
    no = post(server, f"/class/{code}/state", key=joined[0]["sid"], state="text=mine")
    assert no.status_code == 404 and "no class with the code" in no.json()["error"].lower()
    assert post(server, f"/class/{code}/end", key=key).status_code == 200
    for t in threads:
        t.join(timeout=10)
    for h in heard:
        states = [d["state"] for _, d in h]
        assert [s for s in states if s.startswith("text=change")][-1] == "text=change2&tab=steps"
        assert "text=mine" not in states and h[-1][1]["ended"] == "The teacher ended the class."
    gone = post(server, f"/class/{code}/join")
    assert gone.status_code == 404 and "no class with the code" in gone.json()["error"].lower()


def test_the_join_link_comes_as_a_qr_code_only_for_this_servers_address(server):
    code = post(server, "/class/new").json()["code"]
    svg = httpx.get(f"{server}/class/{code}/qr.svg", params={"origin": server}, timeout=30)
    assert svg.status_code == 200 and svg.headers["content-type"] == "image/svg+xml"
    assert svg.text.startswith("<svg") and "Join the class" in svg.text
    other = httpx.get(f"{server}/class/{code}/qr.svg", params={"origin": "https://evil.example"}, timeout=30)
    assert other.status_code == 400
    as_json = {"content-type": "application/json"}
    assert httpx.post(f"{server}/class/{code}/join", content=b"x" * 20_000, headers=as_json,
                      timeout=30).status_code == 413
    assert httpx.post(f"{server}/class/{code}/join", content=b"[1]", headers=as_json, timeout=30).status_code == 400


def test_the_teacher_leads_the_lesson_and_the_right_answer_shows_only_after_reveal():
    rooms = Rooms()
    code, key = rooms.open()
    _, s = rooms.join(code, "Ana")
    room = rooms.lesson_at(code, key, 1, ["-1", "0", "0.5", "1"], 3)
    assert room.for_student(s.sid)["lesson"] == 1
    # (its ids too, the options' own words where the page sent none: the panel names earlier stops in its language)
    assert room.for_teacher()["questions"]["stop 2"] == {"options": ["-1", "0", "0.5", "1"],
                                                         "ids": ["-1", "0", "0.5", "1"], "answer": None}
    assert "questions" not in room.for_student(s.sid)
    rooms.answer(code, s.sid, "stop 2", 2, 4, ["-1", "0", "0.5", "1"])  # a page without ids: their text
    rooms.reveal(code, key, "stop 2")
    assert room.for_teacher()["questions"]["stop 2"]["answer"] == 3
    version = room.version
    rooms.lesson_at(code, key, 1, ["-1", "0", "0.5", "1"], 3)
    assert room.version == version  # nothing changed: nobody woken
    refused(rooms.lesson_at, code, key, 9, words="from -1 to 8")
    refused(rooms.lesson_at, code, key, 2, ["a"] * 9, 0, words="1 to 8 options")
    refused(rooms.lesson_at, code, key, 2, ["a", "b"], 2, words="right answer")
    refused(rooms.lesson_at, code, key, 2, ["x" * 161, "b"], 0, words="160 characters")
    refused(rooms.lesson_at, code, s.sid, 2, status=404)


def test_a_stop_asked_again_on_another_sentence_counts_afresh_and_a_language_only_renames_it():
    rooms = Rooms()
    code, key = rooms.open()
    a, b = (rooms.join(code, name)[1] for name in ("Ana", "Ben"))
    first = ["by (#6)", "girl (#4)", "the (#3)", "window (#8)"]
    rooms.lesson_at(code, key, 5, first, 3, ids=first)
    rooms.answer(code, a.sid, "stop 6", 0, 4, first)
    rooms.reveal(code, key, "stop 6")
    room = rooms.lesson_at(code, key, 5, ["von (#6)", "Mädchen (#4)", "das (#3)", "Fenster (#8)"], 3, ids=first)
    assert room.for_teacher()["tallies"]["stop 6"]["counts"] == [1, 0, 0, 0]  # renamed: the same question
    assert room.for_teacher()["questions"]["stop 6"]["options"][3] == "Fenster (#8)"
    shown = ["ball (#5)", "boy (#2)", "kicks (#3)"]  # Show to everyone: the stop asked on another sentence
    room = rooms.lesson_at(code, key, 5, shown, 1, ids=shown)
    seen = room.for_teacher()
    assert seen["tallies"].get("stop 6", {"answered": 0})["answered"] == 0 and "stop 6" not in seen["revealed"]
    assert room.for_student(a.sid)["mine"] == {} and room.for_student(a.sid)["revealed"] == {}
    refused(rooms.answer, code, b.sid, "stop 6", 0, 4, first, status=409, words="another one")  # the old question
    refused(rooms.answer, code, b.sid, "stop 6", 0, 4, status=409)  # its number of options
    rooms.answer(code, a.sid, "stop 6", 2, 3, shown)  # the new one counts, the first answer of each student
    rooms.answer(code, b.sid, "stop 6", 1, 3, shown)
    assert room.for_teacher()["tallies"]["stop 6"]["counts"] == [0, 1, 1]
    rooms.reveal(code, key, "stop 6")  # a student's page shows the counts only under the question they answer
    assert room.for_student(a.sid)["revealed"]["stop 6"]["ids"] == shown
    refused(rooms.answer, code, b.sid, "stop 6", 0, 3, status=409)  # no ids: no answer to the teacher's question
    # answers given before the teacher's page said its question there (a student's own sentence, a guess at a stop
    # ahead): none refuses another, even with another number of options; the teacher's question drops those to
    # another question and keeps those to the same one (a student who ran ahead cannot answer again once told)
    rooms.answer(code, a.sid, "stop 7", 7, 8, ["w"] * 8)
    rooms.answer(code, b.sid, "stop 7", 1, 4, ["a", "b", "c", "d"])
    assert room.for_teacher()["tallies"]["stop 7"]["counts"] == [0, 1, 0, 0, 0, 0, 0, 1]
    assert Room.load(room.dump(), 0).early == room.early  # kept across a restart
    rooms.lesson_at(code, key, 6, ["a", "b", "c", "d"], 0, ids=["a", "b", "c", "d"])
    assert room.for_teacher()["tallies"]["stop 7"]["counts"] == [0, 1, 0, 0]
    assert room.for_student(a.sid)["mine"] == {"stop 6": 2}  # their answer there can be given again
    assert room.for_student(b.sid)["mine"]["stop 7"] == 1
    rooms.answer(code, a.sid, "stop 7", 2, 4, ["a", "b", "c", "d"])
    rooms.answer(code, b.sid, "stop 7", 0, 4, ["a", "b", "c", "d"])  # the right one, once told: not counted
    assert room.for_teacher()["tallies"]["stop 7"]["counts"] == [0, 1, 1, 0]
    rooms.lesson_at(code, key, 7, ["0", "1", "2"], 2, ids=["0", "1", "2"])
    refused(lambda: rooms.lesson_at(code, key, 7, ["0", "1"], 1, ids=["0"]), words="options")  # one id an option
    del room.questions["stop 8"]["ids"]  # a room kept from before ids: its options' text is its question
    rooms.lesson_at(code, key, 7, ["0", "1", "2"], 2)
    assert room.questions["stop 8"]["ids"] == ["0", "1", "2"]


def test_a_lesson_started_anew_counts_its_answers_afresh_and_survives_a_restart(tmp_path):
    from explorer.classroom.store import RoomStore
    rooms = Rooms(RoomStore(tmp_path / "rooms.sqlite3"))
    code, key = rooms.open()
    _, s = rooms.join(code, "Ana")
    rooms.lesson_at(code, key, 0, ["9", "10", "11", "12"], 1)
    rooms.answer(code, s.sid, "stop 1", 1, 4, ["9", "10", "11", "12"])
    rooms.reveal(code, key, "stop 1")
    room = rooms.lesson_at(code, key, 0, ["6", "7", "8", "9"], 2, fresh=True)  # another sentence, from its start
    seen = room.for_teacher()
    assert (seen["tallies"], seen["revealed"], seen["questions"]["stop 1"]["answer"], seen["run"]) == ({}, [], None, 1)
    assert room.for_student(s.sid)["run"] == 1 and room.for_student(s.sid)["mine"] == {}
    rooms.answer(code, s.sid, "stop 1", 3, 4, ["6", "7", "8", "9"])  # counted in the new run
    assert room.for_teacher()["tallies"]["stop 1"]["counts"] == [0, 0, 0, 1]
    again = Rooms(RoomStore(tmp_path / "rooms.sqlite3")).rooms[code]  # a restart keeps the run
    assert again.run == 1 and again.for_teacher()["tallies"]["stop 1"]["counts"] == [0, 0, 0, 1]
    version = room.version
    rooms.lesson_at(code, key, 0, ["6", "7", "8", "9"], 2, fresh="yes")  # only true starts anew
    assert room.version == version and room.run == 1


def test_a_student_is_told_which_question_their_answers_answer():
    """The question the teacher asked at a stop goes to each student with their answers (its ids, no answer): a page
    that already shows a new question there (a view shown to everyone) can tell an answer to the old one apart."""
    rooms = Rooms()
    code, key = rooms.open()
    _, s = rooms.join(code, "Ana")
    rooms.lesson_at(code, key, 5, ["The (#0)", "dogs (#1)"], 1, True, ["The (#0)", "dogs (#1)"])
    rooms.answer(code, s.sid, "stop 6", 1, 2, ["The (#0)", "dogs (#1)"])
    mine = rooms.rooms[code].for_student(s.sid)
    assert mine["mine"] == {"stop 6": 1} and mine["asked"] == {"stop 6": ["The (#0)", "dogs (#1)"]}


def test_a_room_stays_small_whatever_its_students_answer_ahead(monkeypatch):
    """Helper 30: 60 fakes answering every stop ahead of the teacher with 8 ids of 160 emoji each made a room of ~6 MB,
    written whole at every change (honest Translate 10 s). An answer ahead keeps which question it answers as a
    digest: the room's kept form stays a few kilobytes a student, and an answer to the question the teacher then asks
    is still counted."""
    monkeypatch.setattr(r, "JOINS_PER_MIN", 10**6)
    monkeypatch.setattr(r, "ROOM_JOINS_PER_MIN", 10**6)
    rooms = Rooms()
    code, key = rooms.open()
    long_ids = ["😀" * r.OPTION_CHARS] * 8
    sids = [rooms.join(code, f"fake {i}")[1].sid for i in range(60)]
    for sid in sids:
        for stop in r.STOPS:
            rooms.answer(code, sid, stop, 0, 8, long_ids)
    room = rooms.room(code)
    kept = len(json.dumps(room.dump()))
    assert kept < 60 * 1_500, f"{kept} characters kept for 60 students"
    # the teacher asks at stop 1 the question a fake answered ahead: that answer counts; other stops' stay apart
    rooms.lesson_at(code, key, 0, [f"o{i}" for i in range(8)], 0, ids=long_ids)
    assert rooms.room(code).tally("stop 1")["answered"] == 60
    rooms.lesson_at(code, key, 1, [f"o{i}" for i in range(8)], 0, ids=[f"x{i}" for i in range(8)])
    assert rooms.room(code).tally("stop 2")["answered"] == 0


def test_a_shown_view_asks_no_page_to_compute_and_keeps_the_teachers_language():
    """Helper 30: a view sent with run=attribute (integrated gradients, 128 steps) made every following page run it
    when the teacher showed it, and its lang=de switched every page's language. The room's view after Show keeps the
    view, without the runs, in the teacher's language."""
    rooms = Rooms()
    code, key = rooms.open()
    rooms.set_state(code, key, "text=A+dog.&tab=attend&lang=en")
    sid = rooms.join(code, "Ana")[1].sid
    sent = "text=Two+cats+sleep.&tab=beyond&attr_method=integrated_gradients&attr_steps=128&run=attribute&lang=de"
    rooms.share(code, sid, sent, "look")
    shown = rooms.show(code, key, rooms.room(code).shares[-1]["id"]).state
    assert dict(urllib.parse.parse_qsl(shown)) == {"text": "Two cats sleep.", "tab": "beyond", "attr_steps": "128",
                                                   "attr_method": "integrated_gradients", "lang": "en"}
