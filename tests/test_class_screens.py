"""What each screen of a class shows as the lesson runs (the class room's own acceptance test is
test_lesson_journey.py): the projector's buttons at 1366x768, the phones' view kept in sight. A module of its own: each
module's app is a new server to the rooms' per-address limits (conftest.py), and test_class_lesson.py opens 20."""

from contextlib import ExitStack

import httpx
import pytest
from app_server import MODEL
from test_browser import browser, open_tab, server, settled  # noqa: F401
from test_class_lesson import LINES_HIDDEN, STEP, at_stop, banner, panel, start_class
from test_class_room import shows, translate
from test_every_screen import LAPTOP, PHONE, opened, wait_tab

pytestmark = pytest.mark.skipif(MODEL != "en-de", reason="English sentences on the shipped en-de model")


def test_a_view_sent_in_can_be_shown_from_a_1366x768_projector_without_scrolling(browser, server):  # noqa: F811
    """Helpers 26-28: on a 1366x768 projector the views sent in sat below the panel's fold. The newest one's Show
    is among the buttons kept on the screen, and it shows that view to everyone."""
    with ExitStack() as stack:
        teacher, _, (a, b) = start_class(stack, browser, server)
        teacher.set_viewport_size({"width": 1366, "height": 768})
        teacher.locator("#present").click()
        teacher.locator("#class-lesson-start").click()
        for n in range(2, 5):
            teacher.locator("#class-next").click()
            at_stop(teacher, n)
        b.evaluate("() => { window.prompt = () => 'look at this'; }")  # the note the student types
        b.locator("#class-banner button", has_text="Send my view").click()
        panel(teacher, "look at this")
        show = teacher.locator("#class-show-newest")
        assert "Student" in show.inner_text()
        on_screen = """() => { const e = document.querySelector('#class-show-newest'), r = e.getBoundingClientRect();
          const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
          return r.top >= 0 && r.bottom <= innerHeight && !!hit && e.contains(hit); }"""
        assert teacher.evaluate(on_screen), teacher.evaluate("() => document.querySelector('#class-show-newest')"
                                                             ".getBoundingClientRect().toJSON()")
        show.click()
        for s in (a, b):
            banner(s, "Shown:")
        panel(teacher, "Everyone sees")


def test_the_step_view_stays_in_sight_on_the_phones_as_the_teacher_walks_the_steps(browser, server):  # noqa: F811
    """Helper 29: at stop 7, two steps 400 ms apart left both phones scrolled 1,100 px down to the empty beam-search
    boxes, the step view above the screen, until Bring everyone back. Whatever moves a following page while a view
    the student was looking at is drawn again (here: the page scrolled by something other than the student's hand,
    as the browser's scroll anchoring did), that view is brought back into sight."""
    figure = """() => { const r = document.querySelector('#step-plot .js-plotly-plot').getBoundingClientRect();
      return {top: Math.round(r.top), bottom: Math.round(r.bottom)}; }"""
    with ExitStack() as stack:
        teacher, _, (a, b) = start_class(stack, browser, server)
        teacher.locator("#present").click()
        teacher.locator("#class-lesson-start").click()
        for n in range(2, 8):
            teacher.locator("#class-next").click()
            at_stop(teacher, n)
        for s in (a, b):  # the step view, in sight above the sheet
            s.wait_for_function(f"() => {{ const f = ({figure})(); return f.top >= 0 && f.top < 300; }}", timeout=20_000)
        teacher.wait_for_timeout(13_000)  # the stop's own bringing into sight is over (12 s at most)
        slider = teacher.locator("#step input[type=range]")
        slider.click()  # (the step it lands on, then two more with the arrow keys)
        for _ in range(2):
            teacher.keyboard.press("ArrowRight")
            teacher.wait_for_timeout(400)
        want = teacher.locator("#step input[type=number]").input_value()
        for s in (a, b):
            s.wait_for_function("(w) => document.querySelector('#step input[type=number]').value === w", arg=want,
                                timeout=20_000)
            s.evaluate("() => window.scrollBy(0, 1100)")  # carried down a screen, as scroll anchoring did
        for s in (a, b):
            s.wait_for_function(f"() => {{ const f = ({figure})(); return f.top >= 0 && f.top < 300; }}", timeout=5_000)


def test_remove_is_pressed_whole_while_the_class_redraws_the_panel(browser, server):  # noqa: F811
    """Helper 30: while 60 students' news redrew the teacher's panel every second, 4 of 10 presses on Remove were
    lost (the button pressed was drawn anew before it was let go, and no click came). A press on the panel holds its
    drawing until it is let go."""
    with ExitStack() as stack:
        teacher = stack.enter_context(opened(browser, server, **LAPTOP))
        settled(teacher)
        teacher.locator("#teach").click()
        code = teacher.locator("#class-code").inner_text(timeout=10_000)
        fake = httpx.post(f"{server}class/{code}/join", json={"nick": "Fake"}, timeout=30).json()["sid"]
        teacher.locator("#class-panel", has_text="1 student").wait_for(timeout=10_000)
        teacher.locator("#class-roster summary").click()
        remove = teacher.locator("#class-roster-list li").first.get_by_role("button", name="Remove")
        remove.wait_for(timeout=10_000)  # (drawn as the roster opens: read at once, a loaded machine had no box yet)
        box, boxes = None, []
        for _ in range(50):  # pressed where it has come to rest: the roster may still be opening or drawing anew
            boxes = (boxes + [remove.bounding_box()])[-3:]
            if len(boxes) == 3 and boxes[0] == boxes[1] == boxes[2] and boxes[0]:
                box = boxes[0]
                break
            teacher.wait_for_timeout(150)
        assert box, boxes
        teacher.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        teacher.mouse.down()
        for following in (False, True, False):  # the class's news while the button is held: the panel is redrawn
            httpx.post(f"{server}class/{code}/follow", json={"sid": fake, "following": following}, timeout=30)
        teacher.wait_for_timeout(1_000)
        teacher.mouse.up()  # (the page asks first: accepted)
        teacher.locator("#class-panel", has_text="0 students").wait_for(timeout=10_000)


def test_bring_everyone_back_from_another_tab_during_the_lesson_brings_every_screen_to_the_stop(browser, server):  # noqa: F811
    """Helper 31: during the lesson, with the class moved to another tab (the Model tab at stop 2), Bring everyone
    back left every screen there and took the phones' note away, the question over an unrelated view. It brings every
    screen back to the stop's own tab, the note gone with the reason for it."""
    with ExitStack() as stack:
        teacher, _, (a, b) = start_class(stack, browser, server)
        teacher.locator("#class-lesson-start").click()
        teacher.locator("#class-next").click()
        at_stop(teacher, 2)
        for s in (a, b):
            wait_tab(s, "Positional encoding")
        open_tab(teacher, "Model")
        for s in (a, b):
            wait_tab(s, "Model")
            s.locator("#ae-lesson .ae-class-moved").wait_for(timeout=20_000)
        teacher.locator("#class-bring-back").click()
        wait_tab(teacher, "Positional encoding")
        for s in (a, b):
            wait_tab(s, "Positional encoding")
            s.wait_for_function("() => !document.querySelector('#ae-lesson .ae-class-moved')", timeout=20_000)


def test_another_attention_type_at_stop_6_is_said_on_the_phones_and_their_heatmap_stays_in_place(browser, server):  # noqa: F811
    """Helper 31: at stop 6 (a question about cross-attention in the last layer), the teacher's switch to decoder
    self-attention said nothing on the phones, and a switch at stop 5 carried their heatmap 145 px down under the
    sheet. The phones' heatmap stays where it was, and their sheet says the view is not the question's until the
    class is back at it."""
    top = "() => Math.round(document.querySelector('#heatmap .js-plotly-plot').getBoundingClientRect().top)"
    with ExitStack() as stack:
        teacher, _, (a, b) = start_class(stack, browser, server)
        teacher.locator("#class-lesson-start").click()
        for n in range(2, 7):
            teacher.locator("#class-next").click()
            at_stop(teacher, n)
        teacher.wait_for_timeout(13_000)  # the stop's own bringing into sight is over (12 s at most)
        before = [s.evaluate(top) for s in (a, b)]
        teacher.locator("#kind label", has_text="Decoder self-attention").click()
        for s, was in zip((a, b), before):
            s.wait_for_function("() => document.querySelector('#kind input:checked')?.value === 'Decoder self-attention'",
                                timeout=20_000)
            s.locator("#ae-lesson .ae-class-moved", has_text="another attention type").wait_for(timeout=10_000)
            s.wait_for_timeout(2_000)
            assert abs(s.evaluate(top) - was) <= 24, (was, s.evaluate(top))
        teacher.locator("#kind label", has_text="Cross-attention").click()
        for s in (a, b):
            s.wait_for_function("() => !document.querySelector('#ae-lesson .ae-class-moved')", timeout=20_000)


def test_a_nickname_longer_than_the_rooms_is_cut_not_refused(browser, server):  # noqa: F811
    """Helper 31: a 25-character nickname was refused ("keep the nickname to 24 characters") and its student left
    outside the class. The page cuts it to the room's 24 characters and joins."""
    with ExitStack() as stack:
        teacher = stack.enter_context(opened(browser, server, **LAPTOP))
        settled(teacher)
        teacher.locator("#teach").click()
        code = teacher.locator("#class-code").inner_text(timeout=10_000)
        ctx = browser.new_context(**PHONE)
        stack.callback(ctx.close)
        phone = ctx.new_page()
        name = "Alexandra-Konstantinopoulou"  # 27 characters
        phone.on("dialog", lambda d: d.accept(name) if d.type == "prompt" else d.accept())
        phone.goto(f"{server}?class={code}", wait_until="domcontentloaded")
        banner(phone, "Following the teacher", 60_000)
        teacher.locator("#class-panel", has_text="1 student").wait_for(timeout=10_000)
        teacher.locator("#class-roster summary").click()
        assert teacher.locator("#class-roster-list li b").inner_text() == name[:24]


def class_opened(stack, browser, server, teacher_size, *phones):  # noqa: F811
    """A teacher's page at ``teacher_size`` opens a class; a page per phone size joins by the link and follows.
    -> (teacher, [phone pages])"""
    teacher = stack.enter_context(opened(browser, server, **teacher_size))
    settled(teacher)
    teacher.locator("#teach").click()
    teacher.locator("#class-code").wait_for(timeout=10_000)
    code = teacher.locator("#class-code").inner_text()
    pages = [stack.enter_context(opened(browser, f"{server}?class={code}", **size)) for size in phones]
    for s in pages:
        banner(s, "Following the teacher", 60_000)
    return teacher, pages


def lesson_on(teacher, stop: int) -> None:
    """The teacher starts the lesson from the class panel and presses its Next up to ``stop``."""
    teacher.locator("#class-lesson-start").click()
    for n in range(2, stop + 1):
        teacher.locator("#class-next").click()
        at_stop(teacher, n)


SMALL_PHONE = dict(PHONE, viewport={"width": 360, "height": 640})
# the shown heatmap's row words and its plot area: the part of each under the class banner (px; 0 = all in sight)
UNDER_BANNER = """() => { const b = document.querySelector('#class-banner').getBoundingClientRect().bottom;
  const fig = document.querySelector('#heatmap .js-plotly-plot'), plot = fig?.querySelector('.nsewdrag');
  const rows = [...(fig?.querySelectorAll('.yaxislayer-above .ytick text') || [])].map((t) => t.getBoundingClientRect());
  return { rows: Math.max(0, ...rows.map((r) => b - r.top)), plot: plot ? Math.max(0, b - plot.getBoundingClientRect().top) : -1,
           n: rows.length }; }"""


def test_a_view_shown_at_a_stop_and_brought_back_on_a_360_by_640_phone(browser, server):  # noqa: F811
    """Helper 67, a projector in presentation mode and a 360x640 phone at stop 5: Show to everyone put the shown
    heatmap's first two rows under the class banner (grown to three lines with the view's note), and Bring everyone
    back reopened the stop's sheet at its top with options C and D under its Back / Next. The shown figure's plot and
    row words are below the banner; the stop brought back has all its answers in sight, as a stop opened with Next."""
    with ExitStack() as stack:
        teacher, (a, b) = class_opened(stack, browser, server, {"viewport": {"width": 1920, "height": 1080}},
                                       PHONE, SMALL_PHONE)
        teacher.locator("#present").click()
        translate(teacher, "My little sister found an old key under the stairs.")  # (the helper's: a tall figure)
        for s in (a, b):
            shows(s, "My little sister found an old key under the stairs.", 60_000)
        lesson_on(teacher, 5)
        at_stop(b, 5)
        a.locator("#class-banner button", has_text="Explore on my own").click()
        banner(a, "Exploring")
        a.locator("#kind label", has_text="Encoder self-attention").click()
        a.evaluate("(n) => { window.prompt = () => n; }", "encoder layer 2: the stairs look at under")
        a.locator("#class-banner button", has_text="Send my view").click()
        teacher.locator("#class-shares button", has_text="Show to everyone").first.click()
        banner(b, "Shown:")
        b.wait_for_function("() => document.querySelector('#kind input:checked')?.value === 'Encoder self-attention'",
                            timeout=20_000)
        b.wait_for_timeout(4_000)  # (the shown view brought to the screen's top: at 0.3, 1.5 and 3 s)
        under = b.evaluate(UNDER_BANNER)
        assert under["n"] > 0 and under["rows"] <= 0 and under["plot"] <= 0, under
        teacher.locator("#class-panel button", has_text="Bring everyone back").first.click()
        banner(b, "Following the teacher")
        b.wait_for_function("() => document.querySelector('#kind input:checked')?.value === 'Cross-attention'",
                            timeout=20_000)
        b.wait_for_timeout(2_000)
        hidden = b.evaluate(LINES_HIDDEN, "#ae-lesson .ae-answer")
        assert hidden == [], hidden
        for pg in (teacher, a, b):
            assert pg.errors == []


def test_stop_7s_answers_stay_in_sight_on_a_360_by_640_phone_as_the_teacher_steps_away_and_back(browser, server):  # noqa: F811
    """Helper 70: at stop 7 the teacher moved the class to step 2 and back to 1; the note came and went, and the
    360x640 phone's sheet was left with options C and D under Back / Next (3 of 3). The note is in sight while it is
    there; back at the question's step, all four answers are."""
    with ExitStack() as stack:
        teacher, (b,) = class_opened(stack, browser, server, LAPTOP, SMALL_PHONE)
        lesson_on(teacher, 7)
        at_stop(b, 7)
        wait_tab(b, "Step by step")
        teacher.wait_for_timeout(2_000)  # the stop's own step set
        assert b.evaluate(LINES_HIDDEN, "#ae-lesson .ae-answer") == []
        first = teacher.evaluate(STEP)
        for step in (str(int(first) + 1), first):
            box = teacher.locator("#step input[type=number]")
            box.fill(step)
            box.press("Enter")
            b.wait_for_function(f"() => ({STEP})() === {step!r}", timeout=20_000)
            b.wait_for_timeout(1_500)
            # (moved: the note that says so in sight, the news; back: every answer, as when the stop opened)
            hidden = b.evaluate(LINES_HIDDEN, "#ae-lesson .ae-answer" if step == first else "#ae-lesson .ae-class-moved")
            assert hidden == [], (step, hidden)
        assert b.errors == []


# the projector's main view: the first figure whose top is in the screen's upper half (its box's id, top, bottom)
MAIN_VIEW = """() => { const e = [...document.querySelectorAll('.js-plotly-plot')].find((el) => { if (!el.offsetParent)
  return false; const r = el.getBoundingClientRect(); return r.height > 0 && r.top >= 0 && r.top < innerHeight / 2; });
  if (!e) return null; const r = e.getBoundingClientRect(); return [e.closest('[id]').id, Math.round(r.top)]; }"""


def test_finish_after_the_last_stop_leaves_the_projector_on_the_lens(browser, server):  # noqa: F811
    """Helper 85: on a 1920x1080 projector in presentation mode, Finish after stop 8 redrew the teacher's panel
    (shorter); the side column's new width moved the page to the tab bar, and the class saw the Experiments tab's
    checkboxes instead of the logit lens the last stop was about. The lens stays where it was."""
    with ExitStack() as stack:
        teacher, _ = class_opened(stack, browser, server, dict(viewport={"width": 1920, "height": 1080}))
        teacher.locator("#present").click()
        lesson_on(teacher, 8)
        teacher.wait_for_timeout(3_000)  # (the stop's own scrolls: lesson.js inSight, up to 2.5 s)
        before = teacher.evaluate(MAIN_VIEW)
        assert before and before[0] == "lens-plot", before
        teacher.locator("#class-next", has_text="Finish").click()
        teacher.locator("#class-lesson-start").wait_for(timeout=10_000)  # the lesson has ended on the panel
        teacher.wait_for_timeout(2_000)  # (present.js: a resize is answered 300 ms later, figures refit after)
        after = teacher.evaluate(MAIN_VIEW)
        assert after and after[0] == "lens-plot" and abs(after[1] - before[1]) < 40, (before, after)


# the heatmap's row words and column words that are not between the class banner and the lesson's sheet
WORDS_OUT_OF_SIGHT = """() => { const top = document.querySelector('#class-banner').getBoundingClientRect().bottom;
  const foot = document.querySelector('#lesson-box .ae-docked').getBoundingClientRect().top;
  return [...document.querySelectorAll("#heatmap .js-plotly-plot g[class*='tick'] text")].filter((w) => {
    const r = w.getBoundingClientRect(); return r.top < top - 1 || r.bottom > foot + 1; }).map((w) => w.textContent); }"""


def test_stop_6s_rows_and_columns_are_above_the_sheet_on_a_360_by_640_phone(browser, server):  # noqa: F811
    """Helper 87: on a 360x640 phone following stop 6 ("the row 'am': which source token does it look at most?") the
    sheet covered the last rows and every column's word; the plot and its words needed 4 px more than the screen
    left below the banner once the title was under it, and so the title was kept in sight instead. Now the title goes
    under the banner as far as the plot's own top allows: every row and column word of the heatmap is in sight."""
    with ExitStack() as stack:
        teacher, (phone,) = class_opened(stack, browser, server, LAPTOP, SMALL_PHONE)
        lesson_on(teacher, 6)
        at_stop(phone, 6)
        phone.wait_for_timeout(3_000)  # (the stop's view brought into sight, again as the page settles)
        assert phone.evaluate(WORDS_OUT_OF_SIGHT) == []
        under = phone.evaluate(UNDER_BANNER)
        assert under["rows"] == 0 and under["plot"] == 0 and under["n"] > 0, under
