"""A lesson a teacher runs from start to end (issue 34), in real Chromium: a teacher (laptop) and two students
(phones). Inside a head is followed; Show to everyone reaches the teacher's page too; a following student who edits
is switched to exploring and keeps their text; Bring everyone back returns them at once; a teacher's reload keeps the
teacher's view and the address bar names the room."""

from contextlib import ExitStack

import pytest
from app_server import MODEL
from test_accessibility import FOCUSED, tab_to
from test_browser import browser, open_tab, server, settled  # noqa: F401
from test_class_room import shows, translate
from test_every_screen import LAPTOP, PHONE, opened, wait_tab
from test_focus_never_hidden import IN_SIGHT

pytestmark = pytest.mark.skipif(MODEL != "en-de", reason="English sentences on the shipped en-de model")


# the elements (the stop's options, the class's answers) not wholly on the screen, or whose top or bottom edge is
# under something else (Back / Next): their texts
LINES_HIDDEN = """(s) => [...document.querySelectorAll(s)].filter((e) => {
  const r = e.getBoundingClientRect(), x = r.left + Math.min(r.width / 2, 40), mine = (y) => {
    const hit = document.elementFromPoint(x, y); return !!hit && (hit === e || e.contains(hit)); };
  return !r.height || r.top < 0 || r.bottom > window.innerHeight || !mine(r.top + 3) || !mine(r.bottom - 3);
}).map((e) => e.innerText)"""


def banner(pg, text, timeout=20_000):
    pg.locator("#class-banner", has_text=text).wait_for(timeout=timeout)


def panel(pg, text, timeout=20_000):
    pg.wait_for_function("(t) => document.querySelector('#class-panel')?.innerText.includes(t)", arg=text,
                         timeout=timeout)


def inside(pg) -> dict:
    return pg.evaluate("""() => ({
      kind: document.querySelector('#in-kind input:checked')?.value,
      layer: document.querySelector('#in-layer input[type=number]')?.value,
      head: document.querySelector('#in-head input')?.value})""")


def pick(pg, elem_id, option):
    pg.locator(f"#{elem_id} input").first.click()
    pg.get_by_role("option", name=option).click()


def lesson_to(teacher, stop: int) -> None:
    """The teacher starts the guided lesson and presses Next to ``stop``, a stop at a time."""
    teacher.get_by_text("Guided lesson").first.click()
    teacher.locator("#ae-lesson-start").click()
    for n in range(2, stop + 1):
        teacher.locator("#ae-lesson .ae-nav button", has_text="Next").click()
        at_stop(teacher, n)


def send_and_show(teacher, student, note: str) -> None:
    """The student sends their view with ``note`` (the page asks for it in a prompt); the teacher shows it."""
    student.evaluate("(n) => { window.prompt = () => n; }", note)
    student.locator("#class-banner button", has_text="Send my view").click()
    teacher.locator("#class-shares button", has_text="Show to everyone").first.click()


def start_class(stack, browser, server):  # noqa: F811
    teacher = stack.enter_context(opened(browser, server, **LAPTOP))
    settled(teacher)
    teacher.locator("#teach").click()
    teacher.locator("#class-code").wait_for(timeout=10_000)
    code = teacher.locator("#class-code").inner_text()
    students = [stack.enter_context(opened(browser, f"{server}?class={code}", **PHONE)) for _ in range(2)]
    for s in students:
        banner(s, "Following the teacher", 60_000)
    panel(teacher, "2 students")
    return teacher, code, students


def begin_lesson(teacher, nexts: int, gap_ms: int = 0) -> None:
    """The teacher starts the guided lesson and presses Next ``nexts`` times (``gap_ms`` apart)."""
    teacher.get_by_text("Guided lesson").first.click()
    teacher.locator("#ae-lesson-start").click()
    for _ in range(nexts):
        teacher.locator("#ae-lesson .ae-nav button", has_text="Next").click()
        if gap_ms:
            teacher.wait_for_timeout(gap_ms)


def test_show_follow_explore_and_bring_back(browser, server):  # noqa: F811
    with ExitStack() as stack:
        teacher, code, (a, b) = start_class(stack, browser, server)
        assert f"class={code}" in teacher.url  # the address bar names the room

        # Inside a head: kind, layer and head are followed
        translate(teacher, "The old man reads a newspaper.")
        open_tab(teacher, "Inside a head")
        teacher.locator("#in-kind label", has_text="Cross-attention").click()
        teacher.locator("#in-layer input[type=number]").fill("2")
        teacher.locator("#in-layer input[type=number]").press("Enter")
        pick(teacher, "in-head", "head 3")
        want = {"kind": "Cross-attention", "layer": "2", "head": "head 3"}
        teacher.wait_for_function("() => document.querySelector('#in-head input')?.value === 'head 3'")
        for s in (a, b):
            shows(s, "The old man reads a newspaper.", 60_000)
            wait_tab(s, "Inside a head")
            s.wait_for_function("(w) => document.querySelector('#in-layer input[type=number]')?.value === w.layer &&"
                                " document.querySelector('#in-head input')?.value === w.head &&"
                                " document.querySelector('#in-kind input:checked')?.value === w.kind",
                                arg=want, timeout=30_000)
        assert inside(a) == want

        # Show to everyone: the shown view is the teacher's page's view too
        a.locator("#class-banner button", has_text="Explore on my own").click()
        banner(a, "Exploring")
        translate(a, "A cat sleeps on the sofa.")
        a.evaluate("() => { window.prompt = () => null; }")  # Cancel in the note's prompt: nothing sent, and said
        a.locator("#class-banner button", has_text="Send my view").click()
        banner(a, "Not sent")
        assert teacher.locator("#class-shares button", has_text="Show to everyone").count() == 0
        send_and_show(teacher, a, "the cat")
        assert "(Inside a head)" in teacher.locator("#class-shares").inner_text()  # the shared view's tab, named
        shows(teacher, "A cat sleeps on the sofa.", 60_000)
        shows(b, "A cat sleeps on the sofa.", 60_000)
        banner(b, "Shown:")
        panel(teacher, "Everyone sees")
        teacher.wait_for_timeout(2500)  # the teacher's page posts nothing of its own: the shown view stays shown
        panel(teacher, "Everyone sees")
        banner(b, "Shown:")

        # a following student who types is exploring on their own, and keeps their text
        b.locator("#sentence textarea").fill("My own sentence about a horse.")
        banner(b, "Exploring on your own")
        panel(teacher, "0 following, 2 exploring")  # a chose to explore; b typed
        translate(teacher, "Two children play football.")
        shows(a, "A cat sleeps on the sofa.")  # a explores: not moved
        b.wait_for_timeout(2500)
        assert b.locator("#sentence textarea").input_value() == "My own sentence about a horse."
        assert "Shown:" not in teacher.locator("#class-panel").inner_text()

        # Bring everyone back: both at once on the teacher's current view, banners say so
        teacher.locator("#class-panel button", has_text="Bring everyone back").click()
        for s in (a, b):
            shows(s, "Two children play football.", 60_000)
            banner(s, "Following the teacher")
        panel(teacher, "2 following, 0 exploring")

        # a teacher's reload keeps the teacher's view (and the room)
        open_tab(teacher, "Step by step")
        wait_tab(a, "Step by step")
        teacher.reload()
        teacher.locator("#class-code", has_text=code).wait_for(timeout=60_000)
        shows(teacher, "Two children play football.", 60_000)
        wait_tab(teacher, "Step by step")
        assert f"class={code}" in teacher.url
        teacher.wait_for_timeout(1500)
        shows(a, "Two children play football.")
        wait_tab(a, "Step by step")
        for pg in (teacher, a, b):
            assert pg.errors == []


def at_stop(pg, n, timeout=30_000):
    pg.wait_for_function("(n) => document.querySelector('#ae-lesson h3')?.innerText.includes('stop ' + n + ' of 8')",
                         arg=n, timeout=timeout)


def test_the_teacher_paces_the_lesson_and_the_tally_names_the_options(browser, server):  # noqa: F811
    with ExitStack() as stack:
        teacher, code, (a, b) = start_class(stack, browser, server)
        teacher.get_by_text("Guided lesson").first.click()
        teacher.locator("#ae-lesson-start").click()
        for s in (a, b):
            at_stop(s, 1)  # their lessons opened at the teacher's stop, no click of theirs
        teacher.locator("#ae-lesson .ae-nav button", has_text="Next").click()
        for s in (a, b):
            at_stop(s, 2)
            wait_tab(s, "Positional encoding")
        # each answers on their own page (stop 2: the options are -1, 0, 0.5, 1; the model's answer is 1)
        a.locator(".ae-answer", has_text="0.5").click()
        b.locator(".ae-answer").nth(3).click()
        # the teacher's panel: the current stop's question and answers, each option's letter, text and count
        teacher.wait_for_function("() => document.querySelector('#class-now')?.innerText.includes('2 answered')",
                                  timeout=20_000)
        assert "cosine" in teacher.locator("#class-now-question").inner_text()  # stop 2's question
        tally = [li.inner_text() for li in teacher.locator("#class-now-tally li").all()]
        assert tally == ["A -1 — 0", "B 0 — 0", "C 0.5 — 1", "D 1 — 1"], tally
        assert teacher.locator("#class-now-tally .ae-right").count() == 0  # the right one is marked only after Reveal
        tab_to(teacher, "e.id === 'class-reveal'", limit=200)  # with the keyboard
        teacher.keyboard.press("Enter")
        teacher.locator("#class-now-tally .ae-right", has_text="the model's answer").wait_for(timeout=20_000)
        assert teacher.locator("#class-now-tally .ae-right").inner_text().startswith("D 1")
        assert teacher.locator("#class-reveal").is_disabled()
        # Reveal, pressed and drawn disabled, hands the focus on to Next, and says what it did (helpers 40 and 42:
        # the focus fell to "Bring everyone back", and nothing was said)
        teacher.wait_for_function("() => document.activeElement.id === 'class-next'", timeout=5_000)
        teacher.wait_for_function("() => (document.getElementById('ae-said')?.textContent || '').startsWith('Revealed')",
                                  timeout=5_000)
        # ... in sight, not under the teacher's docked lesson (helper 43: 0 of its points reachable at 1280x800)
        assert teacher.evaluate(IN_SIGHT) == 1.0, teacher.evaluate(FOCUSED)
        for s in (a, b):
            s.locator(".ae-class-tally", has_text="2 answered").wait_for(timeout=20_000)

        # a student who answers alone is never moved
        b.locator("#class-banner button", has_text="Explore on my own").click()
        banner(b, "Exploring on your own")
        teacher.locator("#ae-lesson .ae-nav button", has_text="Next").click()
        at_stop(a, 3)
        b.wait_for_timeout(2500)
        at_stop(b, 2, 1000)
        b.locator("#class-banner button", has_text="Follow again").click()
        at_stop(b, 3)  # and catches up when following again
        # a following student who moves their own lesson ahead explores from then on (not "following" at another
        # stop); Bring everyone back brings their lesson back to the teacher's stop, with the teacher's view
        a.locator("#ae-lesson .ae-nav button", has_text="Next").click()
        banner(a, "Exploring on your own")
        at_stop(a, 4)
        teacher.locator("#class-panel button", has_text="Bring everyone back").first.click()
        banner(a, "Following the teacher")
        at_stop(a, 3)
        # a student at the teacher's stop who looked elsewhere (explored, scrolled to the page's top): brought back,
        # the stop's view (Inside a head's figure) is in sight again, not only the banner changed
        b.locator("#class-banner button", has_text="Explore on my own").click()
        banner(b, "Exploring on your own")
        b.mouse.wheel(0, -20_000)
        b.wait_for_function("() => scrollY === 0", timeout=5_000)
        teacher.locator("#class-panel button", has_text="Bring everyone back").first.click()
        banner(b, "Following the teacher")
        # (on a phone: the panel stop 3 asks about, Inside a head's 4, the weights, at the top of the room: lesson.js)
        b.wait_for_function("() => { const a = document.querySelector(\"#inside-plot .annotation-text[data-unformatted^='4.']\");"
                            " const r = a && a.getBoundingClientRect(); return !!r && r.top >= -2 && r.top < innerHeight / 2; }",
                            timeout=10_000)
        at_stop(b, 3, 1000)

        # following moves no one away from an open question without saying so
        open_tab(teacher, "Compare")
        for s in (a, b):
            wait_tab(s, "Compare")
            s.locator("#ae-lesson .ae-class-moved", has_text="The teacher moved the class").wait_for(timeout=20_000)
            at_stop(s, 3, 1000)
        for pg in (teacher, a, b):
            assert pg.errors == []


def test_a_new_sentence_at_a_stop_is_a_new_question_for_the_whole_class(browser, server):  # noqa: F811
    """Stop 8 asks "after which layer" about a word of the sentence: its options read the same on another sentence.
    The teacher translates another sentence there after the class answered and saw its answers: the panel counts
    from nobody, nothing revealed, and no phone shows its old answer as one to the new question."""
    with ExitStack() as stack:
        teacher, code, (a, b) = start_class(stack, browser, server)
        begin_lesson(teacher, 7)
        for s in (a, b):
            at_stop(s, 8)
        old = a.locator("#ae-lesson .ae-stop > p").nth(1).inner_text()
        a.locator("#ae-lesson .ae-answer").nth(0).click()
        b.locator("#ae-lesson .ae-answer").nth(1).click()
        teacher.wait_for_function("() => document.querySelector('#class-now')?.innerText.includes('2 answered')",
                                  timeout=20_000)
        teacher.locator("#class-reveal").click()
        for s in (a, b):
            s.locator(".ae-class-tally", has_text="2 answered").wait_for(timeout=20_000)
        translate(teacher, "My brother reads a book in the garden.")
        for s in (a, b):
            shows(s, "My brother reads a book in the garden.")
            s.wait_for_function("(t) => document.querySelector('#ae-lesson .ae-stop > p:nth-of-type(2)')?.innerText"
                                " !== t", arg=old, timeout=20_000)  # the question about the new sentence
            # ... and said (it changed on the sheet alone: accessibility.md's list of what was left)
            new = s.locator("#ae-lesson .ae-stop > p").nth(1).inner_text().strip()
            s.wait_for_function("(q) => (document.getElementById('ae-said')?.textContent || '').includes("
                                "'New question: ' + q)", arg=new, timeout=10_000)
        teacher.wait_for_function("() => document.querySelector('#class-now')?.innerText.includes('0 answered')",
                                  timeout=20_000)
        assert not teacher.locator("#class-reveal").is_disabled()  # nothing revealed of the new question
        for s in (a, b):
            s.wait_for_timeout(1_000)
            assert s.locator("#ae-lesson .ae-answer.ae-chosen").count() == 0
            assert s.locator("#ae-lesson .ae-reveal").count() == 0 and s.locator(".ae-class-tally").count() == 0
        a.locator("#ae-lesson .ae-answer").nth(2).click()  # and each answers anew, counted
        teacher.wait_for_function("() => document.querySelector('#class-now')?.innerText.includes('1 answered')",
                                  timeout=20_000)
        teacher.locator("#class-reveal").click()
        a.locator(".ae-class-tally", has_text="1 answered").wait_for(timeout=20_000)
        b.locator("#ae-lesson .ae-answer").nth(0).click()  # a late answer, after Reveal: its counts in sight too
        b.locator(".ae-class-tally", has_text="2 answered").wait_for(timeout=20_000)
        b.wait_for_timeout(500)
        assert b.evaluate(LINES_HIDDEN, "#ae-lesson .ae-class-tally li") == []
        # the class ends: its answers are deleted (End says so), and leave the phones' sheets too
        teacher.locator("#class-end").click()
        for s in (a, b):
            s.wait_for_function("() => document.body.innerText.includes('The teacher ended the class')", timeout=20_000)
            s.wait_for_function("() => !document.querySelector('.ae-class-tally')", timeout=10_000)
        for pg in (teacher, a, b):
            assert pg.errors == []


STEP = "() => document.querySelector('#step input[type=number]')?.value"


def class_at_stop_7(stack, browser, server):  # noqa: F811
    """A class whose teacher ran the lesson to stop 7 (a decoding step's question), each phone there on Step by step,
    the stop's own step set. -> (teacher, code, (phone A, phone B))"""
    teacher, code, (a, b) = start_class(stack, browser, server)
    lesson_to(teacher, 7)
    for s in (a, b):
        at_stop(s, 7)
        wait_tab(s, "Step by step")
    teacher.wait_for_timeout(2_000)  # the stop's own step set
    return teacher, code, (a, b)


def step_on(teacher, phones) -> str:
    """The teacher moves the class one decoding step on; each phone follows. -> the step now shown"""
    moved = str(int(teacher.evaluate(STEP)) + 1)
    step = teacher.locator("#step input[type=number]")
    step.fill(moved)
    step.press("Enter")
    for s in phones:
        s.wait_for_function(f"() => ({STEP})() === {moved!r}", timeout=20_000)
    return moved


def test_the_teachers_reload_keeps_the_step_the_class_is_on(browser, server):  # noqa: F811
    """At stop 7 (a decoding step's question) the teacher moves the step on; the phones follow. The teacher's reload
    brings back the lesson at stop 7 with the room's view: the step the class is on, not the question's own."""
    with ExitStack() as stack:
        teacher, code, (a, b) = class_at_stop_7(stack, browser, server)
        moved = step_on(teacher, (a, b))
        teacher.reload(wait_until="domcontentloaded")
        teacher.locator("#class-code", has_text=code).wait_for(state="attached", timeout=60_000)
        at_stop(teacher, 7, 60_000)
        teacher.wait_for_timeout(4_000)  # the reloaded page's own example translated, the room's view taken
        assert teacher.evaluate(STEP) == moved
        for s in (a, b):
            assert s.evaluate(STEP) == moved
        for pg in (teacher, a, b):
            assert pg.errors == []


def test_a_student_whose_link_holds_a_sentence_of_its_own_joins_on_the_teachers(browser, server):  # noqa: F811
    """A link with both a sentence and a class code (a student's own link, the code added): the page starts to
    translate its own sentence, the class's view arrives meanwhile, and the page ends on the teacher's sentence and
    its translation, not its own (a Translate while one ran was dropped: the box said the teacher's sentence while
    every view and the lesson's questions were about the link's)."""
    with ExitStack() as stack:
        teacher = stack.enter_context(opened(browser, server, **LAPTOP))
        settled(teacher)
        translate(teacher, "The children are playing football in the park.")
        teacher.locator("#teach").click()
        teacher.locator("#class-code").wait_for(timeout=10_000)
        code = teacher.locator("#class-code").inner_text()
        want = teacher.locator("#translation textarea").input_value()
        student = stack.enter_context(opened(browser, f"{server}?text=A%20cat%20sleeps%20on%20the%20sofa.&class={code}",
                                             **PHONE))
        banner(student, "Following the teacher", 60_000)
        shows(student, "The children are playing football in the park.", 60_000)
        student.wait_for_function("(w) => document.querySelector('#translation textarea').value === w", arg=want,
                                  timeout=30_000)
        student.wait_for_timeout(3_000)  # nothing running late puts the link's own sentence back
        assert student.locator("#translation textarea").input_value() == want
        assert "children" in student.locator("#status").inner_text()


# pairs of labels (the selector's elements, top to bottom) whose boxes run into each other by more than 2 px
OVERLAPS = """(s) => { const r = [...document.querySelectorAll(s)].filter((e) => e.textContent)
  .map((e) => [e.textContent, e.getBoundingClientRect()]).sort((a, b) => a[1].top - b[1].top);
  return r.slice(1).filter((x, i) => x[1].top < r[i][1].bottom - 2 && x[1].left < r[i][1].right &&
    r[i][1].left < x[1].right).map((x, i) => [r[i][0], x[0]]); }"""


PANEL_PLACES = """() => { const b = (s) => document.querySelector(s).getBoundingClientRect();
  return { answered: b('#class-now .ae-class-answered').bottom, actions: b('.ae-class-actions').top,
           bottom: b('#class-bring-back').bottom }; }"""


# panel 4 of Inside a head (the softmax weights, which stop 3 asks about): its title's top, and the room between the
# class banner and the lesson's sheet, as the phone shows them
PANEL_4 = """() => { const f = document.querySelector('#inside-plot .js-plotly-plot'),
  sheet = document.querySelector('#lesson-box .ae-docked'), banner = document.getElementById('class-banner');
  const title = f && [...f.querySelectorAll('.annotation-text')].find((a) => a.textContent.trim().startsWith('4.'));
  if (!title || !sheet) return null;
  return { title: Math.round(title.getBoundingClientRect().top), room: [Math.round(banner.getBoundingClientRect().bottom),
    Math.round(sheet.getBoundingClientRect().top)] }; }"""
PANEL_HEIGHT = 240  # px of a phone's Inside a head panel below its title (its bars and their words: about 275)


def test_stop_3_shows_the_weights_its_question_is_about_above_a_phones_sheet(browser, server):  # noqa: F811
    """Stop 3 asks what the weights of one query add up to: panel 4 of Inside a head, which lay under the sheet of
    both phones (teacher helper 15). Its row is brought to the top of the room above the sheet, and kept there."""
    with ExitStack() as stack:
        teacher, code, students = start_class(stack, browser, server)
        teacher.get_by_text("Guided lesson").first.click()
        teacher.locator("#ae-lesson-start").click()
        for _ in range(2):
            teacher.locator("#ae-lesson .ae-nav button", has_text="Next").click()
        for s in students:
            at_stop(s, 3)
            wait_tab(s, "Inside a head")
            s.locator("#inside-plot .js-plotly-plot .main-svg").first.wait_for(timeout=60_000)
        teacher.wait_for_timeout(4_000)  # the page settles (the lesson and the follower place it until then)
        for s in students:
            at = s.evaluate(PANEL_4)
            assert at and at["room"][0] <= at["title"] and at["title"] + PANEL_HEIGHT <= at["room"][1], at


# the heatmap's row and column words not between a phone's class banner and its lesson sheet
WORDS_OUT = """() => { const b = document.querySelector('#class-banner').getBoundingClientRect().bottom;
  const sheet = document.querySelector('#lesson-box .ae-docked'), f = sheet ? sheet.getBoundingClientRect().top : innerHeight;
  const out = [...document.querySelectorAll('#heatmap .xtick text, #heatmap .ytick text')].filter((t) => {
    const r = t.getBoundingClientRect(); return r.top < b - 1 || r.bottom > f + 1; }).map((t) => t.textContent);
  return { out, n: document.querySelectorAll('#heatmap .xtick text').length, b, f }; }"""


def test_stop_6_is_readable_on_a_short_projector_beside_the_class_panel_in_german(browser, server):  # noqa: F811
    """1366x768 in presentation mode, the class panel beside the page, in German (the longest labels): at stop 4
    the model view's token words do not run into each other; at stop 6 the cross-attention heatmap is wholly on the
    screen with its row words at least 18 px (the wrapped controls had left it 400 px tall, its words 14 px), and
    the head control shows its whole value."""
    with ExitStack() as stack:
        teacher = stack.enter_context(opened(browser, f"{server}?lang=de", viewport={"width": 1366, "height": 768}))
        settled(teacher)
        translate(teacher, "The children are playing football in the park.")
        teacher.locator("#teach").click()
        teacher.locator("#class-code").wait_for(timeout=10_000)
        phone = stack.enter_context(opened(browser, f"{server}?class={teacher.locator('#class-code').inner_text()}",
                                           **PHONE))
        banner(phone, "Du folgst der Lehrkraft", 60_000)
        teacher.locator("#present").click()
        teacher.locator("#class-lesson-start").click()
        for n in range(2, 7):
            teacher.locator("#class-next").click()
            panel(teacher, f"(Station {n} von 8)")
            if n == 4:  # the model view: its token words never written over each other (24 px words in 13 px rows)
                teacher.wait_for_function("() => !!document.querySelector('#model-view .js-plotly-plot')?.layout",
                                          timeout=10_000)
                try:  # (its last drawing: the stop's own view settles within a few seconds)
                    teacher.wait_for_function(f"() => ({OVERLAPS})('#model-view .ytick text').length === 0",
                                              timeout=8_000)
                except Exception:
                    raise AssertionError(teacher.evaluate(OVERLAPS, "#model-view .ytick text")) from None
        teacher.wait_for_function("() => document.querySelector('#kind input:checked')?.value === 'Cross-attention' && "
                                  "document.querySelector('#layer input[type=number]')?.value === '2'", timeout=10_000)
        teacher.wait_for_timeout(1_500)  # the stop's scroll (at 120 ms and 1 s) and the heatmap drawn at its size
        got = teacher.evaluate("""() => { const r = document.querySelector('#heatmap .main-svg').getBoundingClientRect();
          const sizes = [...document.querySelectorAll('#heatmap .ytick text')]
            .map((t) => parseFloat(getComputedStyle(t).fontSize));
          const head = document.querySelector('#head input');
          return { top: r.top, bottom: r.bottom, rows: sizes.length, least: Math.min(...sizes),
                   cut: head.scrollWidth > head.clientWidth + 1 }; }""")
        assert got["rows"] >= 8 and got["least"] >= 18, got
        assert got["top"] >= 0 and got["bottom"] <= 768, got
        assert not got["cut"], got
        # the panel: after Reveal (the model's answer marked: a line more) the options and the count of answers stand
        # above Back / Reveal / Next / Bring everyone back, not under them
        teacher.locator("#class-reveal").click()
        teacher.locator("#class-now-tally li.ae-right").wait_for(timeout=10_000)
        place = teacher.evaluate(PANEL_PLACES)
        assert place["answered"] <= place["actions"] + 1 and place["bottom"] <= 768, place
        # the phone: the heatmap's row and column words between the (two-line German) banner and the lesson's sheet
        # (helper 24: the column words the question asks about were under the sheet)
        phone.locator("#ae-lesson h3", has_text="Station 6 von 8").wait_for(timeout=20_000)
        phone.wait_for_timeout(5_500)  # the stop's own bringing (at 120 ms, 1 s, 2.5 s and 5 s)
        words = phone.evaluate(WORDS_OUT)
        assert words["n"] >= 8 and not words["out"], words


def test_bring_everyone_back_after_a_shown_view_puts_every_screen_on_the_stops_view(browser, server):  # noqa: F811
    """Show to everyone at a lesson stop, then Bring everyone back (helper 19): the shown view ends on every screen
    (no "Shown:" banner, no "Everyone sees" on the panel) and the teacher's page and both phones are on the stop's
    view again, the same tab on all three (before: the phones went to the stop's view, the teacher's stayed on the
    shown one, and every banner still named it)."""
    with ExitStack() as stack:
        teacher, code, (a, b) = start_class(stack, browser, server)
        teacher.get_by_text("Guided lesson").first.click()
        teacher.locator("#ae-lesson-start").click()
        teacher.locator("#ae-lesson .ae-nav button", has_text="Next").click()
        for pg in (teacher, a, b):
            at_stop(pg, 2)
            wait_tab(pg, "Positional encoding")
        a.locator("#class-banner button", has_text="Explore on my own").click()
        banner(a, "Exploring")
        open_tab(a, "Step by step")
        send_and_show(teacher, a, "my steps")
        for pg in (teacher, b):
            wait_tab(pg, "Step by step")
        banner(b, "Shown:")
        panel(teacher, "Everyone sees")
        # the open question says the screen shows another view than the one it asks about (helper 21)
        b.wait_for_function("() => document.querySelector('#ae-lesson .ae-class-moved')?.innerText.includes("
                            "'not this stop')", timeout=10_000)
        teacher.locator("#class-panel button", has_text="Bring everyone back").first.click()
        for pg in (teacher, a, b):
            wait_tab(pg, "Positional encoding")
            at_stop(pg, 2, 5_000)
        for s in (a, b):
            banner(s, "Following the teacher")
        teacher.wait_for_timeout(2500)  # and it stays so: nothing sends the shown view again
        for pg in (teacher, a, b):
            wait_tab(pg, "Positional encoding")
        for s in (a, b):
            assert "Shown:" not in s.locator("#class-banner").inner_text()
            assert s.locator("#ae-lesson .ae-class-moved").count() == 0  # "the teacher moved the class": old news
        assert "Everyone sees" not in teacher.locator("#class-panel").inner_text()
        for pg in (teacher, a, b):
            assert pg.errors == []


def test_an_answer_to_ones_own_sentence_says_it_was_not_counted_and_follow_again_brings_the_view(browser, server):  # noqa: F811
    """At stop 6 a student explores a sentence of their own and answers the stop's question about it: the sheet says
    the class's count does not take it (the panel still counts nobody); Follow again brings the teacher's view
    (Inside a head) into sight, though the page shows the same tab (helper 19: only "Not quite ..." was said; the
    page stayed at its top where the student had typed, the view 1,784 px down)."""
    with ExitStack() as stack:
        teacher, code, (a, b) = start_class(stack, browser, server)
        lesson_to(teacher, 6)
        at_stop(b, 6)
        open_tab(teacher, "Inside a head")  # the teacher shows the class one head of it
        wait_tab(b, "Inside a head")
        b.locator("#class-banner button", has_text="Explore on my own").click()
        banner(b, "Exploring")
        translate(b, "My sister reads a book in the garden.")
        b.locator("#ae-lesson .ae-answer").nth(0).click()
        b.locator("#ae-lesson .ae-not-counted", has_text="Not counted").wait_for(timeout=10_000)
        teacher.wait_for_timeout(1500)
        assert "0 answered" in teacher.locator("#class-now").inner_text()
        b.mouse.move(195, 200)  # (over the page, not the lesson's sheet) up to the sentence the student typed
        b.mouse.wheel(0, -20_000)
        b.wait_for_function("() => scrollY === 0", timeout=5_000)
        b.locator("#class-banner button", has_text="Follow again").click()
        banner(b, "Following the teacher")
        shows(b, teacher.locator("#sentence textarea").input_value(), 30_000)
        wait_tab(b, "Inside a head")
        b.wait_for_function("() => { const r = document.querySelector('#inside-plot').getBoundingClientRect();"
                            " return r.top >= 0 && r.top < innerHeight / 2; }", timeout=10_000)
        assert b.locator("#ae-lesson .ae-not-counted").count() == 0  # the class's question again: no such note
        for pg in (teacher, a, b):
            assert pg.errors == []


def test_the_earlier_stops_answers_read_in_the_language_the_teacher_switches_to(browser, server):  # noqa: F811
    """A stop answered in English, the lesson moved on, the teacher's page switched to German: the panel's list of
    the earlier stops' answers names stop 3's options in German (helper 19 saw "D the number of keys" there)."""
    with ExitStack() as stack:
        teacher, code, (a, b) = start_class(stack, browser, server)
        lesson_to(teacher, 3)
        at_stop(a, 3)
        a.locator("#ae-lesson .ae-answer").nth(0).click()
        teacher.wait_for_function("() => document.querySelector('#class-now')?.innerText.includes('1 answered')",
                                  timeout=20_000)
        teacher.locator("#ae-lesson .ae-nav button", has_text="Next").click()
        at_stop(teacher, 4)
        teacher.wait_for_function("() => document.querySelector('#class-tally')?.textContent.includes('the number of keys')",
                                  timeout=20_000)
        teacher.locator("#ae-langs button[data-lang='de']").click()
        teacher.wait_for_function("() => document.documentElement.lang === 'de'", timeout=60_000)
        teacher.wait_for_function("() => document.querySelector('#class-tally')?.textContent.includes('die Anzahl der Keys')",
                                  timeout=30_000)
        assert "the number of keys" not in teacher.locator("#class-tally").text_content()
        for pg in (teacher, a, b):
            assert pg.errors == []


def test_a_students_answer_is_still_marked_when_the_teacher_goes_back_to_its_stop(browser, server):  # noqa: F811
    """The student answers stop 2; the teacher goes on to stop 3 and Back to 2: the student's choice is marked and its
    feedback shown again, and the options say it is answered (helper 20: unmarked, no feedback, answerable again on
    the student's page only, while the class's count kept the first answer)."""
    with ExitStack() as stack:
        teacher, code, (a, b) = start_class(stack, browser, server)
        lesson_to(teacher, 2)
        at_stop(a, 2)
        a.locator("#ae-lesson .ae-answer").nth(3).click()
        a.locator("#ae-lesson .ae-answer.ae-chosen").wait_for(timeout=10_000)
        teacher.wait_for_function("() => document.querySelector('#class-now')?.innerText.includes('1 answered')",
                                  timeout=20_000)
        teacher.locator("#ae-lesson .ae-nav button", has_text="Next").click()
        at_stop(a, 3)
        teacher.locator("#ae-lesson .ae-nav button", has_text="Back").click()
        at_stop(a, 2)
        a.locator("#ae-lesson .ae-answer.ae-chosen").wait_for(timeout=10_000)
        assert a.locator("#ae-lesson .ae-answer.ae-chosen").get_attribute("data-i") == "3"
        assert a.locator("#ae-lesson .ae-reveal").count() == 1
        for pg in (teacher, a, b):
            assert pg.errors == []


def test_presentation_mode_then_a_class_the_heatmap_narrows_beside_the_panel(browser, server):  # noqa: F811
    """Presentation mode first, then Teach a class (helper 21): the heatmap is drawn again at the width the class
    panel leaves it, every column in sight (before: presentation mode's relayout of its height pinned the width it had,
    1854 px in a 1251 px box, and the class counted 7 of 10 columns)."""
    with opened(browser, server, viewport={"width": 1920, "height": 1080}) as teacher:
        settled(teacher)
        translate(teacher, "The children are playing football in the park.")
        teacher.locator("#present").click()
        teacher.wait_for_timeout(3_000)  # (its figures drawn again, larger)
        teacher.locator("#teach").click()
        teacher.locator("#class-code").wait_for(timeout=10_000)
        fits = """() => { const svg = document.querySelector('#heatmap .main-svg'), box = document.querySelector('#heatmap');
          const panel = document.querySelector('#class-panel').getBoundingClientRect();
          const r = svg.getBoundingClientRect(), b = box.getBoundingClientRect();
          return r.right <= b.right + 1 && r.right <= panel.left + 1 ? true : [r.right, b.right, panel.left]; }"""
        try:
            teacher.wait_for_function(fits, timeout=5_000)
        except Exception:
            raise AssertionError(teacher.evaluate(fits)) from None
        assert teacher.evaluate("() => document.querySelectorAll('#heatmap .xtick').length") >= 8


VIEW = """() => ({ kind: document.querySelector('#kind input:checked')?.value,
  layer: document.querySelector('#layer input[type=number]')?.value,
  head: document.querySelector('#head input')?.value })"""


def test_bring_everyone_back_at_a_stop_that_names_only_its_tab_restores_the_teachers_view(browser, server):  # noqa: F811
    """Stop 4 names only its tab: a student's view on that same tab (encoder self-attention), shown to everyone and
    brought back, left every screen on the student's attention type, layer and head (helper 23). Bring everyone back
    puts the teacher's own view from before the showing back on all three pages, and it stays."""
    with ExitStack() as stack:
        teacher, code, (a, b) = start_class(stack, browser, server)
        begin_lesson(teacher, 3, gap_ms=400)
        for pg in (teacher, a, b):
            at_stop(pg, 4)
        teacher.wait_for_timeout(1_500)
        own = teacher.evaluate(VIEW)
        assert own["kind"] and own["kind"] != "Encoder self-attention", own
        a.locator("#class-banner button", has_text="Explore on my own").click()
        banner(a, "Exploring")
        a.locator("#kind label", has_text="Encoder self-attention").click()
        a.wait_for_function("() => document.querySelector('#kind input:checked')?.value === 'Encoder self-attention'",
                            timeout=10_000)
        send_and_show(teacher, a, "encoder")
        for pg in (teacher, b):
            pg.wait_for_function("() => document.querySelector('#kind input:checked')?.value === "
                                 "'Encoder self-attention'", timeout=20_000)
        teacher.locator("#class-panel button", has_text="Bring everyone back").first.click()
        same = (f"(want) => {{ const v = ({VIEW})(); "
                "return v.kind === want.kind && v.layer === want.layer && v.head === want.head; }")
        for name, pg in (("teacher", teacher), ("phone A", a), ("phone B", b)):
            try:
                pg.wait_for_function(same, arg=own, timeout=20_000)
            except Exception:
                raise AssertionError((name, pg.evaluate(VIEW), own)) from None
        teacher.wait_for_timeout(5_000)  # and it stays so (the stop's view set again at 1.5 s and 4 s agrees)
        for name, pg in (("teacher", teacher), ("phone A", a), ("phone B", b)):
            assert pg.evaluate(same, own), (name, pg.evaluate(VIEW), own)


def test_the_colour_bars_keep_their_colours_when_the_address_names_the_class(browser, server):  # noqa: F811
    """Behind Gradio's <base> element Plotly points a colour bar's gradient at the page's full address when drawn;
    Teach a class puts the class in the address, and the heatmap's scale went blank (helper 24). Every gradient the
    figures use points at the page's address as it is now."""
    with opened(browser, server, **LAPTOP) as teacher:
        settled(teacher)
        teacher.locator("#teach").click()
        teacher.locator("#class-code").wait_for(timeout=10_000)
        teacher.wait_for_function("() => location.search.includes('class=')", timeout=5_000)
        refs = teacher.evaluate("""() => [...document.querySelectorAll(".js-plotly-plot [style*='url(']")]
          .map((el) => el.style.fill || el.style.stroke).filter((v) => v && v.includes('#'))""")
        assert refs, "no gradient in the drawn figures"
        here = teacher.evaluate("() => location.href.split('#')[0]")
        stale = [r for r in refs if "http" in r and here + "#" not in r]
        assert not stale, (here, stale[:3])


def test_the_language_switch_at_stop_7_keeps_the_step_its_question_asks_about(browser, server):  # noqa: F811
    """At stop 7 (the step's question) the teacher moves the class a step on and switches to German: the teacher's page
    and each phone reopen in German, translate the class's sentence again, and show the step the class is on, not
    step 0 (helpers 23 and 24: every screen fell back to step 0 while the question and the addresses said step 1),
    nor the stop's own step (helper 26: the phones went back to it)."""
    with ExitStack() as stack:
        teacher, code, (a, b) = class_at_stop_7(stack, browser, server)
        assert teacher.evaluate(STEP) not in (None, "0")
        # the teacher moves the class on a step (helper 26: the phones then reopened at the stop's own step)
        asked = step_on(teacher, (a, b))
        teacher.locator("#ae-langs button[data-lang='de']").click()
        for pg in (teacher, a, b):
            pg.wait_for_function("() => document.documentElement.lang === 'de'", timeout=60_000)
        teacher.wait_for_function("() => document.querySelector('#ae-lesson h3')?.innerText.includes('Station 7 von 8')",
                                  timeout=60_000)
        teacher.wait_for_timeout(6_000)  # each page's own translation and the class's view both answered
        assert [pg.evaluate(STEP) for pg in (teacher, a, b)] == [asked] * 3
        for pg in (teacher, a, b):
            assert pg.errors == []


def test_a_students_score_survives_the_end_of_the_class_and_a_reload(browser, server):  # noqa: F811
    """A student answers, the teacher finishes the lesson and ends the class; the student's reload still shows
    the score the page showed (helper 24: 8 of 8, then 0 of 8 once the room that held the answers was gone)."""
    with ExitStack() as stack:
        teacher, code, (a, b) = start_class(stack, browser, server)
        teacher.get_by_text("Guided lesson").first.click()
        teacher.locator("#ae-lesson-start").click()
        for n in range(1, 4):  # stops 1 to 3 answered by phone A, the rest not
            at_stop(a, n)
            a.locator("#ae-lesson .ae-answer").nth(0).click()
            a.locator("#ae-lesson .ae-answer.ae-chosen").wait_for(timeout=10_000)
            teacher.locator("#class-next").click()
        for _ in range(4, 9):
            teacher.locator("#class-next").click()
            teacher.wait_for_timeout(300)
        score = a.locator("#ae-lesson .ae-score")
        score.wait_for(timeout=30_000)
        before = score.inner_text()
        assert "5 not answered" in before, before  # three of eight answered
        teacher.locator("#class-end").click()
        banner(a, "ended", 20_000)
        a.reload(wait_until="domcontentloaded")
        score.wait_for(timeout=60_000)
        a.wait_for_timeout(3_000)  # the page's own translation answered (the lesson's end drawn again)
        assert score.inner_text() == before
        assert a.errors == []


HEATMAP_TOP = ("() => { const e = document.querySelector('#heatmap .js-plotly-plot'); if (!e || !e.offsetParent) return null;"
               " return Math.round(e.getBoundingClientRect().top); }")


def test_a_view_shown_to_everyone_at_stop_4_is_brought_to_every_screen(browser, server):  # noqa: F811
    """Stop 4 brings the model view to the screen's top. A student's view shown to everyone there is a heatmap:
    it is brought to the top of the projector and of each phone, not left above the screen (helper 24: 830 px up,
    while the class looked at the model view with the student's head as one panel of twelve)."""
    with ExitStack() as stack:
        teacher, code, (a, b) = start_class(stack, browser, server)
        teacher.locator("#present").click()
        teacher.get_by_text("Guided lesson").first.click()
        teacher.locator("#ae-lesson-start").click()
        for n in (2, 3, 4):
            teacher.locator("#class-next").click()
            at_stop(teacher, n)
        for pg in (a, b):
            at_stop(pg, 4)
        teacher.wait_for_timeout(2_500)  # the stop's model view brought to the top
        a.locator("#class-banner button", has_text="Explore on my own").click()
        banner(a, "Exploring")
        translate(a, "My brother reads a book.")
        send_and_show(teacher, a, "mine")
        for pg in (teacher, b):
            pg.wait_for_function("() => document.querySelector('#status')?.innerText.includes('My brother')",
                                 timeout=30_000)
        teacher.wait_for_timeout(4_000)
        top, h = teacher.evaluate(HEATMAP_TOP), teacher.evaluate("innerHeight")
        assert top is not None and -2 <= top < h / 2, (top, h)
        # (a phone: the figure's words between the banner and the sheet, its title perhaps under the banner)
        words = b.evaluate(WORDS_OUT)
        assert words["n"] >= 4 and not words["out"], words
        # and the open question says the screen shows a student's view, not its stop's (helper 25: the phones' said
        # nothing once the shown sentence had been translated)
        for pg in (teacher, b):
            assert "The screen now shows" in pg.locator("#ae-lesson").inner_text()


def test_a_view_shown_at_stop_6_leaves_the_question_waiting_and_its_answers_kept(browser, server):  # noqa: F811
    """Stop 6 asks about the last layer's average. A student's view of another sentence, at layer 1, shown to
    everyone: the question stays the one the class was answering, waiting (no answer taken), said on the phones and
    the teacher's panel; Bring everyone back brings it back with its answers (helper 26: the question was asked
    anew about the shown sentence's last layer, which no screen showed, and Bring back asked the first again from
    nobody)."""
    with ExitStack() as stack:
        teacher, code, (a, b) = start_class(stack, browser, server)
        lesson_to(teacher, 6)
        for s in (a, b):
            at_stop(s, 6)
        prompt = teacher.locator("#class-now-question").inner_text()
        a.locator("#ae-lesson .ae-answer").nth(0).click()
        panel(teacher, "1 answered")
        b.locator("#class-banner button", has_text="Explore on my own").click()
        banner(b, "Exploring")
        translate(b, "My brother reads a book.")
        b.locator("#layer input[type=number]").fill("1")
        b.locator("#layer input[type=number]").press("Enter")
        send_and_show(teacher, b, "layer 1")
        for pg in (teacher, a):
            pg.wait_for_function("() => document.querySelector('#status')?.innerText.includes('My brother')",
                                 timeout=30_000)
        teacher.wait_for_timeout(3_000)
        for pg in (teacher, a):  # the shown view as sent: layer 1
            assert pg.evaluate("() => document.querySelector('#layer input[type=number]').value") == "1"
        assert teacher.locator("#class-now-question").inner_text() == prompt  # the same question, waiting
        panel(teacher, "1 answered")
        teacher.locator("#class-now-waits").wait_for(timeout=5_000)
        assert "The screen now shows" in a.locator("#ae-lesson").inner_text()
        assert a.locator("#ae-lesson .ae-answer[disabled]").count() == a.locator("#ae-lesson .ae-answer").count() > 0
        assert a.locator("#ae-lesson .ae-answer.ae-chosen").get_attribute("data-i") == "0"
        # b, exploring on their own (their screen stays theirs), is told the class's question waits: no answer taken
        # (helper 67: an exploring student's answer counted while the panel said the question waits)
        b.wait_for_function("() => document.querySelector('#ae-lesson')?.innerText.includes('The class is looking at')",
                            timeout=10_000)
        assert b.locator("#ae-lesson .ae-answer[disabled]").count() == b.locator("#ae-lesson .ae-answer").count() > 0
        teacher.locator("#class-panel button", has_text="Bring everyone back").first.click()
        banner(b, "Following the teacher")
        teacher.wait_for_timeout(5_000)  # the class's sentence back on every page, the stop set again
        assert teacher.locator("#class-now-question").inner_text() == prompt
        panel(teacher, "1 answered")
        a.locator("#ae-lesson .ae-answer.ae-chosen[data-i='0']").wait_for(timeout=10_000)
        assert a.locator("#ae-lesson .ae-answer[disabled]").count() == 0
        assert "The class is looking at" not in b.locator("#ae-lesson").inner_text()
        b.locator("#ae-lesson .ae-answer").nth(1).click()  # open again: b's answer counts
        panel(teacher, "2 answered")
        for pg in (teacher, a, b):
            assert pg.errors == []


def test_bring_everyone_back_at_stop_7_brings_the_step_the_teacher_is_on(browser, server):  # noqa: F811
    """At stop 7 the teacher moves the class a step on; a student explores; Bring everyone back: every page shows the
    teacher's step, not the stop's own (helper 27: the phones went back to step 1 while the projector stayed at 2),
    and the phones' sheets still say that their question is about another step."""
    with ExitStack() as stack:
        teacher, code, (a, b) = class_at_stop_7(stack, browser, server)
        moved = step_on(teacher, (a, b))
        for s in (a, b):  # the phones' question names another step than the one shown: said (helper 28)
            s.locator("#ae-lesson .ae-class-moved", has_text=f"to step {moved}").wait_for(timeout=10_000)
        a.locator("#class-banner button", has_text="Explore on my own").click()
        banner(a, "Exploring")
        teacher.locator("#class-panel button", has_text="Bring everyone back").first.click()
        banner(a, "Following the teacher")
        teacher.wait_for_timeout(5_000)  # the stop's view set again at 1.5 s and 4 s on the teacher's page
        assert [pg.evaluate(STEP) for pg in (teacher, a, b)] == [moved] * 3
        # ... and each phone's sheet still says its question is about another step (helper 36: the note went, the
        # question about step 1 over step 2's bars)
        for s in (a, b):
            assert s.locator("#ae-lesson .ae-class-moved", has_text=f"to step {moved}").is_visible()


def test_the_note_that_the_teacher_moved_the_class_is_in_sight_on_a_phone_scrolled_to_its_feedback(browser, server):  # noqa: F811
    """A phone answers at stop 6 and the teacher reveals (the sheet scrolls down to the feedback and the class's
    answers); the teacher then opens another view: the note that says so is in sight in the sheet (helper 27: it sat
    above the sheet's scrolled part, the question in sight naming a layer the screen no longer showed)."""
    with ExitStack() as stack:
        teacher, code, (a, b) = start_class(stack, browser, server)
        lesson_to(teacher, 6)
        at_stop(a, 6)
        a.locator("#ae-lesson .ae-answer").nth(0).click()
        panel(teacher, "1 answered")
        teacher.locator("#class-reveal").click()
        a.locator("#ae-lesson .ae-class-tally").wait_for(timeout=20_000)
        open_tab(teacher, "Inside a head")
        wait_tab(a, "Inside a head")
        a.locator("#ae-lesson .ae-class-moved").wait_for(timeout=20_000)
        a.wait_for_timeout(500)
        assert a.evaluate(LINES_HIDDEN, "#ae-lesson .ae-class-moved") == []


def test_a_projector_resized_mid_stop_draws_its_views_again_for_the_new_size(browser, server):  # noqa: F811
    """Presentation mode at 1920x1080, the lesson at stop 4 (the model view); the window becomes 1366x768: the model
    view's row words are laid out for the smaller screen, none written over another (helper 28: they stayed 16 px on
    rows 9 px apart until a reload)."""
    with opened(browser, server, viewport={"width": 1920, "height": 1080}) as teacher:
        settled(teacher)
        translate(teacher, "We listened to music on the train to Berlin.")
        teacher.locator("#present").click()
        teacher.get_by_text("Guided lesson").first.click()
        teacher.locator("#ae-lesson-start").click()
        for n in (2, 3, 4):
            teacher.locator("#ae-lesson .ae-nav button", has_text="Next").click()
            at_stop(teacher, n)
        teacher.wait_for_function("() => !!document.querySelector('#model-view .js-plotly-plot')?.layout", timeout=10_000)
        teacher.wait_for_timeout(2_000)
        teacher.set_viewport_size({"width": 1366, "height": 768})
        try:
            teacher.wait_for_function(f"() => ({OVERLAPS})('#model-view .ytick text').length === 0", timeout=8_000)
        except Exception:
            raise AssertionError(teacher.evaluate(OVERLAPS, "#model-view .ytick text")) from None
        assert teacher.errors == []



def test_the_score_takes_the_first_answer_to_the_question_asked_now_and_says_which_answer_counts(browser, server):  # noqa: F811
    """Helper 87: a phone answered stop 8 wrong, the teacher translated a new sentence, the phone answered the stop's
    new question right and the class counted it, but the phone's score after Finish kept the old wrong answer; and a
    second tap after the first answer changed the feedback without a word that the first is the one counted. Alone
    here (the score is the page's own): the stop's first answer to the question it asks now is scored, and a second
    answer is told that the first counts."""
    with opened(browser, server, **LAPTOP) as pg:
        settled(pg)
        lesson_to(pg, 1)
        right = ("() => [...document.querySelectorAll('#ae-lesson .ae-answer')]"
                 ".findIndex((b) => b.classList.contains('ae-is-right'))")
        pg.locator("#ae-lesson .ae-answer").nth(0).click()
        old_right = pg.evaluate(right) == 0
        pg.locator("#ae-lesson .ae-answer").nth(1).click()
        note = pg.locator("#ae-lesson .ae-first-counts")
        note.wait_for(timeout=5_000)
        assert note.inner_text().strip() == "Your first answer, A, is the one counted."
        # the stop asked again about new sentences until one's first answer is scored otherwise than the old one
        for k, text in enumerate(("A cat sleeps on the sofa.", "Two men are fishing from a small boat on the lake.",
                                  "The girl in the red coat is reading a book.", "A dog runs on the beach."), 1):
            translate(pg, text)
            pg.wait_for_function("() => !document.querySelector('#ae-lesson .ae-reveal')", timeout=20_000)
            pg.locator("#ae-lesson .ae-answer").nth(k % 4).click()  # (another option each time)
            pg.locator("#ae-lesson .ae-reveal").wait_for(timeout=5_000)
            assert pg.locator("#ae-lesson .ae-first-counts").count() == 0  # (a new question: this answer is its first)
            new_right = pg.evaluate(right) == k % 4
            if new_right != old_right:
                break
        assert new_right != old_right, "no sentence's stop 1 scored otherwise than the first's: the test tells nothing"
        for n in range(2, 9):
            pg.locator("#ae-lesson .ae-nav button", has_text="Next").click()
            at_stop(pg, n)
        pg.locator("#ae-lesson .ae-nav button", has_text="Finish").click()
        pg.locator("#ae-lesson .ae-score").wait_for(timeout=5_000)
        assert pg.locator("#ae-lesson .ae-score").inner_text().startswith(f"Score: {int(new_right)} of 8")
        assert pg.locator("#ae-lesson .ae-recap li").first.inner_text().startswith("✓" if new_right else "✗")
        assert pg.errors == []
