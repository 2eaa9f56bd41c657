"""What one Translate makes the browser do, counted, not timed (issue 50; the timings are bench/page_cost.py's): each
of the open tab's figures drawn once (draw_once.js: Gradio's gr.Plot used to draw every new value twice), no figure of
a hidden tab drawn, and the elements Chromium restyles, summed over the Translate's style recalculations of a
DevTools trace, a few thousand (a `:has()` rule over the whole page made each of Plotly's label measurements restyle
~2,500 elements: about 35,000 a Translate).
"""

import json
import re
from pathlib import Path

from closing import close_within
from test_browser import browser, idle, open_tab, page, server, settled  # noqa: F401

STYLE = Path(__file__).resolve().parent.parent / "explorer" / "page" / "static" / "style.css"
# the figures of each tab that a Translate redraws at once (views.js); the others are drawn when asked for
OPEN_TAB_FIGURES = {"heatmap", "model-view", "head-stats"}
RESTYLED_AT_MOST = 6_000  # elements restyled during one Translate (about 3,400 measured; 35,000 with the :has rules;
# 7,300 with a class toggled on <html> at the click and again when the views came)


def translate(pg, sentence: str) -> None:
    pg.evaluate("() => { AE_DRAWS.drawn = 0; AE_DRAWS.skipped = 0; AE_DRAWS.parked = 0; AE_DRAWS.by = {}; "
                "for (const k in AE.figures.built) delete AE.figures.built[k]; }")
    pg.locator("#sentence textarea").fill(sentence)
    pg.locator("#translate").click()
    pg.wait_for_function("(s) => [...document.querySelectorAll('#heatmap .gtitle')].some((t) => t.textContent"
                         ".includes(s))", arg=sentence[:15], timeout=60_000)
    idle(pg)
    pg.wait_for_timeout(1_500)  # the page settles: what the Translate set off is counted


def scrolled_down(pg) -> None:
    """The whole page scrolled through with the mouse wheel, as a person reads down it (figures nearing the screen
    are drawn as they come: draw_once.js)."""
    for _ in range(12):
        pg.mouse.wheel(0, 600)
        pg.wait_for_timeout(150)
    pg.wait_for_timeout(1_000)


def test_a_translate_draws_each_figure_of_the_open_tab_once_and_no_hidden_one(page):  # noqa: F811
    settled(page)
    translate(page, "The dog runs in the park.")
    drawn = page.evaluate("() => AE_DRAWS")
    assert drawn["by"].get("heatmap") == 1 and set(drawn["by"]) <= OPEN_TAB_FIGURES, drawn  # nothing hidden
    assert drawn["skipped"] >= 1, drawn  # Gradio's thrown-away drawings were asked for, and not made
    # each drawn figure's text alternative built once, no other (a figure not drawn has nothing to describe yet)
    assert page.evaluate("() => AE.figures.built") == drawn["by"]
    # the heatmap drawn in a task of its own: the model view, its top just in sight below it, a frame later (drawn
    # with it, it was 70 ms of the 0.47 s from Translate to a painted heatmap)
    assert drawn["withMain"] == ["heatmap"], drawn
    scrolled_down(page)  # the figures further down, each drawn once as it nears the screen
    drawn = page.evaluate("() => AE_DRAWS")
    assert drawn["by"] == {name: 1 for name in OPEN_TAB_FIGURES}, drawn  # once each, and nothing else
    assert page.evaluate("() => AE.figures.built") == drawn["by"]
    # another tab opened: its figure drawn once; going back redraws nothing that did not change
    page.evaluate("() => { AE_DRAWS.by = {}; }")
    open_tab(page, "Step by step")
    page.wait_for_function("() => !!document.querySelector('#step-plot .js-plotly-plot')?.layout", timeout=30_000)
    page.wait_for_timeout(1_000)
    assert page.evaluate("() => AE_DRAWS.by")["step-plot"] == 1


def test_a_phone_draws_the_figures_far_below_only_when_the_student_scrolls_to_them(browser, server):  # noqa: F811
    """On a phone the model view and the head statistics lie two and three screens below the heatmap: a Translate
    draws neither (they cost a throttled phone most of a second: bench/page_cost.py); scrolling down draws each once,
    with the new sentence, and its text alternative says so."""
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    pg = ctx.new_page()
    pg.goto(server)
    settled(pg)
    translate(pg, "Two children play football.")
    drawn = pg.evaluate("() => AE_DRAWS")
    assert "model-view" not in drawn["by"] and "head-stats" not in drawn["by"], drawn
    assert drawn["parked"] >= 2, drawn
    for _ in range(14):
        pg.mouse.wheel(0, 600)
        pg.wait_for_timeout(150)
    for name in ("model-view", "head-stats"):
        pg.wait_for_function("(n) => (AE_DRAWS.by[n] || 0) >= 1", arg=name, timeout=10_000)
    pg.wait_for_timeout(1_000)
    drawn = pg.evaluate("() => AE_DRAWS")
    assert drawn["by"]["model-view"] == 1 and drawn["by"]["head-stats"] == 1, drawn
    title = pg.evaluate("() => document.querySelector('#model-view .js-plotly-plot').layout.title.text")
    assert "Two children play football." in title, title
    pg.wait_for_function("() => (document.querySelector('#model-view .ae-fig-summary')?.textContent || '').length > 20",
                         timeout=10_000)
    close_within(ctx)


def test_a_translate_restyles_a_few_thousand_elements_not_the_page_over_and_over(browser, server):  # noqa: F811
    ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    pg = ctx.new_page()
    pg.goto(server)
    settled(pg)
    pg.locator("#sentence textarea").fill("A man is reading a book.")
    browser.start_tracing(page=pg, categories=["devtools.timeline"])
    try:
        translate(pg, "A man is reading a book.")
    finally:
        trace = json.loads(browser.stop_tracing())
    close_within(ctx)
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    counts = [e["args"].get("elementCount", 0) for e in events
              if e.get("name") == "UpdateLayoutTree" and e.get("ph") == "X" and "args" in e]
    assert counts, "the trace holds no style recalculation: its events' names changed"
    assert sum(counts) <= RESTYLED_AT_MOST, (sum(counts), sorted(counts, reverse=True)[:10])


def top_level(text: str, sep: str) -> list[str]:
    """``text`` split at each ``sep`` outside brackets (a selector list: its :is(a, b) kept whole)."""
    parts, depth, start = [], 0, 0
    for i, c in enumerate(text):
        depth += c == "(" or -(c == ")")
        if c == sep and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    return [p.strip() for p in parts + [text[start:]] if p.strip()]


def test_no_style_rule_has_a_has_over_the_page():
    """A `:has()` is anchored at one element with an id, or at the children of one (a few nodes to watch), never at
    html, body or a class that every column or row carries."""
    css = re.sub(r"/\*.*?\*/", "", STYLE.read_text(encoding="utf-8"), flags=re.S)
    selectors = [s for block in re.findall(r"([^{}]+)\{", css) for s in top_level(block, ",") if ":has(" in s]
    assert selectors, "no :has() at all: this test guards nothing and can go"
    for s in selectors:
        before = top_level(s[:s.index(":has(")], " ")  # the compounds before it; the last one carries it
        anchor = before[-1] if before else ""
        child_of_id = len(before) >= 3 and before[-2] == ">" and "#" in before[-3]
        assert "#" in anchor or child_of_id, f"{s!r}: a :has() on {anchor or 'every element'!r}, not one element"


# the smallest height the model view's block had in any frame since it was called (a rAF loop, reading only)
LOWEST = """() => { window.__lowest = {}; const go = () => { for (const id of ['heatmap', 'model-view']) {
  const b = document.getElementById(id);
  if (b) window.__lowest[id] = Math.min(window.__lowest[id] ?? 1e9, b.getBoundingClientRect().height); }
  if (!window.__stop) requestAnimationFrame(go); }; window.__stop = false; requestAnimationFrame(go); }"""


def test_a_translate_says_so_at_once_and_nothing_below_the_heatmap_jumps(page):  # noqa: F811
    """The model view, its top in sight below the heatmap, is drawn a frame after it (above): meanwhile its block
    keeps its height, so the page below does not jump up and back (it fell to 2 px for 0.3 s: helper 16), and each
    block keeps its text alternative until the new figure's replaces it (the heatmap's went for 74 px: helper 17). And the
    status line says the sentence is being translated from the click on (it said "Not translated yet ... press
    Translate" during the request)."""
    settled(page)
    page.mouse.wheel(0, 150)  # the model view's top in sight
    page.wait_for_timeout(800)
    before = {b: page.locator(f"#{b}").bounding_box()["height"] for b in ("heatmap", "model-view")}
    page.locator("#sentence textarea").fill("Two old men are sitting on a bench in the sun.")
    page.evaluate(LOWEST)
    page.locator("#translate").click()
    said = page.locator("#status").inner_text()
    assert said.startswith("Translating the new sentence") and "Not translated yet" not in said, said
    page.wait_for_function("() => [...document.querySelectorAll('#model-view .gtitle')].some((t) => t.textContent"
                           ".includes('Two old men'))", timeout=60_000)
    page.wait_for_timeout(300)
    lowest = page.evaluate("() => { window.__stop = true; return window.__lowest; }")
    # (the blocks keep their figure's text alternative too: the heatmap's summary went for a frame or more, 74 px)
    assert all(lowest[b] >= before[b] - 20 for b in before), (lowest, before)
    assert page.locator("#status").inner_text().startswith("Every view below shows: “Two old men")
