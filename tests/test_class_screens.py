"""What each screen of a class shows as the lesson runs (the class room's own acceptance test is
test_lesson_journey.py): the projector's buttons at 1366x768, the phones' view kept in sight. A module of its own: each
module's app is a new server to the rooms' per-address limits (conftest.py), and test_class_lesson.py opens 20."""

from contextlib import ExitStack

import httpx
import pytest
from app_server import MODEL
from test_browser import browser, open_tab, server, settled  # noqa: F401
from test_class_lesson import at_stop, banner, panel, start_class
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
        box = remove.bounding_box()
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
