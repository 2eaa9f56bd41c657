"""A real class on every screen, in Debian's Chromium: a phone (390x844, touch) and a laptop (1280x800).

The lesson, the diagram and links open their tab whatever Gradio does with the tab bar at that width; the first
screen shows the first heatmap; a link keeps what a student found (heads off, Beyond attention's inputs, Compare's
sentence, the positional controls) and runs it again; warnings belong to the sentence shown.
"""

from contextlib import contextmanager
from urllib.parse import quote

import pytest
from app_server import LOOPING_SENTENCE, MODEL, SENTENCE
from closing import close_within
from test_browser import browser, idle, open_tab, rendered_plot, server, settled, still, translation  # noqa: F401
from touch import swipe_up

PHONE = dict(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True, has_touch=True)
LAPTOP = dict(viewport={"width": 1280, "height": 800})
en_de = pytest.mark.skipif(MODEL != "en-de", reason="English sentences on the shipped en-de model")


@contextmanager
def opened(browser, url, **context):  # noqa: F811
    """A fresh browser context on ``url``: the page, with its script errors collected (``pg.errors``)."""
    ctx = browser.new_context(**context)
    try:
        pg = ctx.new_page()
        errors = []
        pg.on("pageerror", lambda e: errors.append(str(e)))
        pg.on("dialog", lambda d: d.accept())
        pg.errors = errors
        pg.goto(url, wait_until="domcontentloaded")
        yield pg
    finally:
        close_within(ctx)


def selected_tab(pg) -> str:
    return pg.evaluate("() => [...document.querySelectorAll(\"button[role='tab']\")]"
                       ".find((b) => b.getAttribute('aria-selected') === 'true')?.textContent.trim()")


def in_sight(pg, selector: str) -> bool:
    """The element's top is inside the viewport (not above it, not below the fold)."""
    return pg.evaluate("(s) => { const e = document.querySelector(s); if (!e || !e.offsetParent) return false;"
                       " const r = e.getBoundingClientRect(); return r.top >= -2 && r.top < window.innerHeight; }",
                       selector)


def wait_tab(pg, name: str) -> None:
    pg.wait_for_function("(n) => [...document.querySelectorAll(\"button[role='tab']\")].some("
                         "(b) => b.textContent.trim() === n && b.getAttribute('aria-selected') === 'true')",
                         arg=name, timeout=10_000)


@pytest.mark.parametrize("size", ["phone", "laptop"])
def test_the_lesson_walks_every_stop_shows_its_view_and_ends_with_a_score(browser, server, size):  # noqa: F811
    with opened(browser, server, **(PHONE if size == "phone" else LAPTOP)) as pg:
        settled(pg)
        pg.get_by_text("Guided lesson").first.click()
        pg.locator("#ae-lesson-start").click()
        views = {1: ("Translate & attend", "#heatmap"), 2: ("Positional encoding", "#pe-table"),
                 3: ("Inside a head", "#inside-plot"), 4: ("Translate & attend", "#model-view"),
                 5: ("Translate & attend", "#ae-figure1"), 6: ("Translate & attend", "#heatmap"),
                 7: ("Step by step", "#step-plot"), 8: ("Experiments", "#lens-plot")}
        right_first = 0
        for stop in range(1, 9):
            pg.wait_for_function(f"() => document.querySelector('#ae-lesson')?.innerText.includes('stop {stop} of 8')",
                                 timeout=10_000)
            tab, focus = views[stop]
            wait_tab(pg, tab)
            # scrolled into sight: its top on the screen, above a phone's lesson sheet (with 40 px of it to see); on a
            # phone, stop 3's is the panel its question is about (Inside a head's 4, the weights: lesson.js)
            if stop == 3 and size == "phone":
                focus = "#inside-plot .annotation-text[data-unformatted^='4.']"
            pg.wait_for_function("(s) => { const e = document.querySelector(s); if (!e) return false;"
                                 " const r = e.getBoundingClientRect(), d = document.querySelector('#lesson-box .ae-docked');"
                                 " const sheet = d ? d.getBoundingClientRect().top : innerHeight;"
                                 " const below = sheet > innerHeight / 3 ? sheet : innerHeight;"
                                 " return r.top >= -2 && r.top < below - 40; }", arg=focus, timeout=5_000)
            # stop 5 asks about the feed-forward network: "Where am I" shows it, marked, with its note; the next stop
            # folds it again (helper 81: the question was asked over a heatmap that shows no feed-forward network)
            marked = pg.evaluate("() => [...document.querySelectorAll('#ae-figure1 .ae-part.ae-on')].map((g) => g.dataset.part)")
            note = pg.locator("#ae-figure1-point")
            if stop == 5:
                assert {"enc_ffn", "dec_ffn"} <= set(marked), marked
                assert note.is_visible() and "each position alone" in note.inner_text()
            else:
                assert not {"enc_ffn", "dec_ffn"} & set(marked) and note.count() == 0, (stop, marked)
            options = pg.locator(".ae-answer").all_inner_texts()
            assert [o.split(None, 1)[0] for o in options] == list("ABCD")[:len(options)]  # lettered, not numbered
            values = [o.split(None, 1)[1] for o in options]
            if all(v.lstrip("-").replace(".", "", 1).isdigit() for v in values):
                assert [float(v) for v in values] == sorted(float(v) for v in values)  # numbers in numeric order
            if stop == 1:  # the counts of pieces covered until it is answered: the source's (the answer) and the
                # output's, which is not the answer (helper 31: "Output pieces (10)" beside the options 10-13)
                assert pg.locator("#pieces .ae-out-line").is_hidden() and pg.locator("#pieces .ae-src-count").is_hidden()
            answer = pg.evaluate("() => AE.lesson.state.q.answer")
            pick = answer if stop % 2 else (answer + 1) % len(options)  # odd stops right, even stops wrong
            right_first += pick == answer
            pg.locator(".ae-answer").nth(pick).click()  # a tap on a phone: large buttons, no keys needed
            if stop == 1:
                assert pg.locator("#pieces .ae-out-line").is_visible()
            reveal = pg.locator(".ae-reveal").inner_text()
            assert reveal.startswith("Right") == (pick == answer)
            # the options marked: ✗ on a wrong answer given, ✓ on the right one (helper 76: a wrong answer bore a ✓)
            marks = pg.evaluate("() => [...document.querySelectorAll('#ae-lesson .ae-answer')].map((b) =>"
                                " getComputedStyle(b, '::after').content)")
            assert [("✓" in m) for m in marks] == [i == answer for i in range(len(options))], marks
            assert [("✗" in m) for m in marks] == [i == pick != answer for i in range(len(options))], marks
            pg.locator(".ae-nav button", has_text="Next" if stop < 8 else "Finish").click()
        end = pg.locator("#ae-lesson .ae-end")
        end.wait_for(timeout=5_000)
        assert f"Score: {right_first} of 8" in end.inner_text()
        assert end.locator(".ae-recap li").count() == 8
        assert pg.errors == []


@en_de
def test_the_decoding_stop_asks_for_whole_words_and_counts_the_models_word(browser, server):  # noqa: F811
    """Stop 7 on a sentence whose chosen word takes several pieces: the right option is the whole word."""
    with opened(browser, server + "?text=" + quote("The teacher reads a book."), **LAPTOP) as pg:
        pg.wait_for_function("() => document.querySelector('#translation textarea')?.value.startsWith('Der')",
                             timeout=60_000)
        idle(pg)
        pg.get_by_text("Guided lesson").first.click()
        pg.locator("#ae-lesson-start").click()
        for _ in range(6):
            pg.locator(".ae-nav button", has_text="Next").click()
        pg.wait_for_function("() => document.querySelector('#ae-lesson').innerText.includes('stop 7 of 8')")
        q = pg.evaluate("() => AE.lesson.state.q")
        german = translation(pg).replace(".", " ").replace(",", " ").split()
        assert q["options"][q["answer"]] in german  # the model's word as written, not its first piece
        assert all(not o.startswith("·") for o in q["options"])


def test_a_tap_on_the_diagram_opens_its_view_on_a_phone(browser, server):  # noqa: F811
    with opened(browser, server, **PHONE) as pg:
        settled(pg)
        pg.get_by_text("Where am I").first.tap()
        pg.locator(".ae-part[data-part='output']").tap()
        wait_tab(pg, "Step by step")
        pg.wait_for_function("() => { const r = document.querySelector('#tabs').getBoundingClientRect();"
                             " return r.top >= -2 && r.top < innerHeight; }", timeout=5_000)
        still(pg)  # (each tap on what is at rest: CI, two workers on two cores, tapped the next part as the page moved)
        pg.locator(".ae-part[data-part='enc_self']").tap()
        wait_tab(pg, "Translate & attend")
        assert pg.locator("#kind input[value='Encoder self-attention']").is_checked()
        still(pg)
        pg.locator(".ae-part[data-part='dec_ffn']").tap()  # no view of its own: it says so, and opens the lens
        wait_tab(pg, "Experiments")
        assert "no view of its own" in pg.locator("#ae-figure1-note").inner_text()
        assert pg.errors == []


def test_a_link_to_a_step_opens_the_step_plot_on_a_phone(browser, server):  # noqa: F811
    with opened(browser, f"{server}?text={quote(SENTENCE)}&tab=steps&step=2", **PHONE) as pg:
        rendered_plot(pg, "step-plot")
        wait_tab(pg, "Step by step")
        pg.wait_for_function("() => document.querySelector('#step input[type=number]')?.value === '2'",
                             timeout=10_000)
        title = pg.evaluate("() => document.querySelector('#step-plot .js-plotly-plot').layout.title.text")
        assert "2" in title
        assert pg.locator("#step-plot").is_visible()
        assert pg.errors == []


def test_the_first_heatmap_is_above_the_fold_on_a_laptop(browser, server):  # noqa: F811
    with opened(browser, server, **LAPTOP) as pg:
        settled(pg)
        assert pg.evaluate("() => window.scrollY") == 0
        top = pg.evaluate("() => document.querySelector('#heatmap').getBoundingClientRect().top")
        assert 0 < top < 800, top
        for part in ("#sentence", "#translation"):
            assert in_sight(pg, part), part


@en_de
@pytest.mark.parametrize("size", ["phone", "laptop"])
def test_the_german_is_on_the_first_screen_after_translate(browser, server, size):  # noqa: F811
    """Type a sentence and press Translate: its German is in sight without a scroll (the examples above the result
    once put it at y=1026 of a 390x844 phone and y=743 of a 1280x800 laptop)."""
    with opened(browser, server, **(PHONE if size == "phone" else LAPTOP)) as pg:
        settled(pg)
        before = translation(pg)
        box = pg.locator("#sentence textarea")
        box.click()
        box.fill("")
        pg.keyboard.type("The old man reads a book in the park.")
        pg.locator("#translate").click()
        pg.wait_for_function("(b) => { const t = document.querySelector('#translation textarea');"
                             " return t && t.value && t.value !== b; }", arg=before, timeout=60_000)
        idle(pg)
        assert pg.evaluate("() => window.scrollY") == 0
        bottom = pg.evaluate("() => document.querySelector('#translation textarea').getBoundingClientRect().bottom")
        assert 0 < bottom <= pg.viewport_size["height"], bottom
        for part in ("#sentence", "#translate", "#translation"):
            assert in_sight(pg, part), part
        assert pg.errors == []


def test_a_link_with_heads_off_restores_the_ablation_result_on_a_phone(browser, server):  # noqa: F811
    with opened(browser, server, **PHONE) as pg:
        settled(pg)
        open_tab(pg, "Experiments")
        heads = pg.evaluate("() => window.AE_LINK_RULES.extras.by_model[JSON.parse(AE.current().request).model].heads")
        chosen = [heads[0], heads[-1]]  # two heads no preset names together
        for box in pg.locator("#heads-off input[type=checkbox]").all():
            if box.is_checked():
                box.click()
        for name in chosen:
            pg.locator("#heads-off label", has_text=name).first.locator("input").click()
        pg.locator("#run-ablation").click()
        pg.wait_for_function("() => document.querySelector('#ablation-text textarea').value.length > 0",
                             timeout=60_000)
        found = pg.locator("#ablation-text textarea").input_value()
        pg.locator("#copy-link").click()
        pg.wait_for_function("() => document.querySelector('#link textarea, #link input')?.value.includes('run=')",
                             timeout=5_000)
        link = pg.locator("#link textarea, #link input").first.input_value()
    assert "heads=" in link and "tab=experiments" in link
    with opened(browser, link, **PHONE) as pg:  # a fresh browser: nothing but the link
        pg.wait_for_function("() => document.querySelector('#ablation-text textarea')?.value.length > 0",
                             timeout=60_000)
        wait_tab(pg, "Experiments")
        assert pg.locator("#ablation-text textarea").input_value() == found
        ticked = [b.evaluate("(e) => e.closest('label').textContent.trim()")
                  for b in pg.locator("#heads-off input[type=checkbox]").all() if b.is_checked()]
        assert sorted(ticked) == sorted(chosen)
        assert pg.errors == []


@en_de
def test_a_link_restores_beyond_compare_and_positional_inputs_and_runs_the_comparison(browser, server):  # noqa: F811
    second = "A cat is running in the snow."
    url = (f"{server}?text={quote(SENTENCE)}&tab=compare&text_b={quote(second)}&c_kind=cross&"
           f"corrupt={quote('A cat is running in the rain.')}&attr_target={quote('Ein Hund')}&pe_dims=2,3&pe_len=20"
           "&prefix=Ein&edit_word=dog&edit_new=cat&run=compare")
    url = url.replace("c_kind=cross", "c_kind=" + quote("Cross-attention"))
    with opened(browser, url, **LAPTOP) as pg:
        rendered_plot(pg, "compare-view")
        wait_tab(pg, "Compare")
        title = pg.evaluate("() => document.querySelector('#compare-view .js-plotly-plot').layout.title.text || ''")
        subplot = pg.evaluate("() => (document.querySelector('#compare-view .js-plotly-plot').layout.annotations"
                              " || []).map((a) => a.text).join(' ')")
        assert "cat" in (title + subplot)
        value = lambda elem: pg.locator(f"#{elem} textarea").input_value()  # noqa: E731
        assert value("sentence-b") == second
        open_tab(pg, "Beyond attention")  # Gradio puts a tab's controls on the page when it first opens
        pg.locator("#patch-box .label-wrap").first.click()
        pg.locator("#whatif-box .label-wrap").first.click()
        assert [value(e) for e in ("corrupt", "attr-target", "prefix", "edit-piece")] == [
            "A cat is running in the rain.", "Ein Hund", "Ein", "dog"]
        open_tab(pg, "Positional encoding")
        assert value("pe-dims") == "2,3"
        assert pg.errors == []


def test_a_link_value_the_page_cannot_take_is_named_and_the_default_kept(browser, server):  # noqa: F811
    url = f"{server}?text={quote(SENTENCE)}&heads={quote('cross L9 H9')}&pe_len=99999&run=nothing"
    with opened(browser, url, **LAPTOP) as pg:
        settled(pg)
        idle(pg)
        pg.wait_for_function("() => document.querySelector('#status').innerText.includes('pe_len')", timeout=10_000)
        note = pg.locator("#status").inner_text()
        assert "run" in note and "nothing" in note and "cross L9 H9" in note and "99999" in note
        open_tab(pg, "Experiments")
        assert pg.locator("#ablation-text textarea").input_value() == ""  # nothing ran
        assert pg.errors == []


@en_de
def test_warnings_and_the_status_belong_to_the_sentence_shown(browser, server):  # noqa: F811
    """A looping sentence's warning is said under its pieces; the next sentence's page names no other sentence,
    in a toast or in the status line."""
    with opened(browser, f"{server}?text={quote(LOOPING_SENTENCE)}", **LAPTOP) as pg:
        pg.wait_for_function("() => document.querySelector('#pieces')?.innerText.includes('repeats')",
                             timeout=60_000)
        assert pg.locator("[data-testid=toast-text]").count() == 0  # under the pieces, not a toast
        pg.locator("#sentence textarea").fill(SENTENCE)
        pg.locator("#translate").click()
        pg.wait_for_function("(s) => document.querySelector('#status')?.innerText.includes(s)", arg=SENTENCE,
                             timeout=60_000)
        idle(pg)
        shown = pg.locator("body").inner_text()
        assert LOOPING_SENTENCE not in shown and "repeats" not in pg.locator("#pieces").inner_text()
        assert pg.locator("[data-testid=toast-text]").count() == 0


@en_de
def test_a_swipe_over_a_figure_scrolls_a_phones_page(browser, server):  # noqa: F811
    """A student on a phone reads a figure, then swipes on up over it to the next one: the page scrolls. Found in the
    offline bundle (helper 74): plotly's drag took the touch and zoomed the figure, the page stayed where it was, and
    its toolbar sat over the title. On a touch screen the figures take no drag and show no toolbar (a tap still
    shows a cell's numbers)."""
    with opened(browser, server, **PHONE) as pg:
        settled(pg)
        pg.locator("#sentence textarea").tap()
        pg.locator("#sentence textarea").fill("The old man is reading a newspaper on the bench.")
        pg.locator("#translate").tap()
        pg.wait_for_function("() => document.querySelector('#status').innerText.includes('newspaper')", timeout=60_000)
        heat = pg.locator("#heatmap .js-plotly-plot")
        heat.scroll_into_view_if_needed()
        assert pg.locator("#heatmap .modebar").count() == 0  # (no toolbar over the title)
        box = heat.bounding_box()
        x, y = box["x"] + box["width"] / 2, min(box["y"] + box["height"] / 2, 700)
        before = pg.evaluate("scrollY")
        start = pg.evaluate("() => { const L = document.querySelector('#heatmap .js-plotly-plot')._fullLayout;"
                            " return [L.xaxis.range.slice(), L.yaxis.range.slice()]; }")
        swipe_up(pg, x, y)
        assert pg.evaluate("scrollY") > before + 50  # the page scrolled: the figure neither zoomed nor took the swipe
        ranges = pg.evaluate("() => { const L = document.querySelector('#heatmap .js-plotly-plot')._fullLayout;"
                             " return [L.xaxis.range.slice(), L.yaxis.range.slice()]; }")
        assert ranges == start, (start, ranges)  # (not zoomed: a vertical drag would zoom the rows)
        # no handles at the axes' ends, on the heatmap or the model view below it: a tap beside a model view's labels
        # opened plotly's box for typing a range, focused (helper 76)
        pg.locator("#model-view").scroll_into_view_if_needed()
        pg.locator("#model-view .nsewdrag").first.wait_for(timeout=20_000)
        for fig in ("#heatmap", "#model-view"):
            handles = pg.evaluate("(f) => [...new Set([...document.querySelectorAll(f + ' .drag')]"
                                  ".map((e) => e.getAttribute('class')))]", fig)
            assert handles == ["nsewdrag drag"], (fig, handles)
        # and a tap on a cell still shows its numbers
        heat.scroll_into_view_if_needed()
        box = heat.locator(".nsewdrag").first.bounding_box()
        pg.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        pg.locator("#heatmap .hoverlayer .hovertext").first.wait_for(timeout=5_000)
        assert "weight" in pg.locator("#heatmap .hoverlayer").text_content()
        assert pg.errors == []


def test_scrolling_the_lessons_sheet_to_its_end_leaves_the_view_behind_it_in_place(browser, server):  # noqa: F811
    """Helper 85: on a 390x844 phone a wheel over the lesson's sheet, once the sheet had reached its end, scrolled the
    page behind it, and the view the question is about left the screen (stop 4's model view, stop 6's heatmap, the
    lens after Finish). The sheet keeps its scrolling to itself, at every stop where it scrolls."""
    checked = []
    with opened(browser, server, **PHONE) as pg:
        settled(pg)
        pg.get_by_text("Guided lesson").first.click()
        pg.locator("#ae-lesson-start").click()
        for stop in range(1, 9):
            pg.wait_for_function(f"() => document.querySelector('#ae-lesson')?.innerText.includes('stop {stop} of 8')",
                                 timeout=20_000)
            idle(pg)
            pg.locator("#ae-lesson .ae-answer").first.click()  # (its feedback makes the sheet longer than itself)
            pg.locator("#ae-lesson .ae-reveal").wait_for(timeout=10_000)
            if pg.evaluate("() => { const s = document.querySelector('#lesson-box .ae-docked');"
                           " return s.scrollHeight > s.clientHeight + 2; }"):
                box = pg.locator("#lesson-box .ae-docked").bounding_box()
                pg.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
                pg.mouse.wheel(0, -2000)  # the sheet from its top (its feedback scrolled it down)
                # (the page's own placing of the stop's view over: it keeps it above the sheet while it is drawn)
                still(pg, 2_500)
                assert pg.evaluate("() => document.querySelector('#lesson-box .ae-docked').scrollTop") == 0
                before = pg.evaluate("() => Math.round(window.scrollY)")
                for _ in range(5):  # well past the sheet's end
                    pg.mouse.wheel(0, 300)
                    pg.wait_for_timeout(150)
                pg.wait_for_timeout(500)
                at_end = pg.evaluate("() => { const s = document.querySelector('#lesson-box .ae-docked');"
                                     " return s.scrollTop + s.clientHeight >= s.scrollHeight - 2; }")
                assert at_end, f"stop {stop}: the sheet did not scroll to its end"
                assert pg.evaluate("() => Math.round(window.scrollY)") == before, f"stop {stop}: the page scrolled"
                checked.append(stop)
            nxt = pg.locator(".ae-nav button", has_text="Next")
            if stop == 8 or not nxt.count():
                break
            nxt.click()
        assert len(checked) >= 3, checked  # (stops whose answered sheet scrolls at this size: 8 of 8 here)
        assert pg.errors == []


def test_bold_text_is_drawn_in_the_pages_own_font_every_letter(browser, server):  # noqa: F811
    """Helper 85: answers A and B looked lighter and smaller than C and D. Gradio 6.31's SemiBold face of Source Sans
    Pro holds the glyphs "A" and "B" only, so every other bold letter was drawn in the system's DejaVu Sans Bold. Every
    letter of the lesson's bold text (its letters, title, question word) is now drawn in a font the page serves."""
    with opened(browser, server, **LAPTOP) as pg:
        settled(pg)
        pg.get_by_text("Guided lesson").first.click()
        pg.locator("#ae-lesson-start").click()
        pg.locator("#ae-lesson .ae-answer").first.wait_for(timeout=10_000)
        pg.evaluate("""() => { const d = document.createElement('p'); d.id = 'ae-test-letters';
          d.style.fontWeight = '600'; d.innerHTML = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789']
            .map((c) => '<span>' + c + '</span>').join(''); document.querySelector('#ae-lesson').appendChild(d); }""")
        pg.wait_for_timeout(1000)  # (its face loaded)
        cdp = pg.context.new_cdp_session(pg)
        cdp.send("DOM.enable")
        cdp.send("CSS.enable")
        root = cdp.send("DOM.getDocument", {"depth": -1})["root"]["nodeId"]
        system = []
        for selector in ("#ae-lesson .ae-answer b", "#ae-lesson h3", "#ae-test-letters span"):
            nodes = cdp.send("DOM.querySelectorAll", {"nodeId": root, "selector": selector})["nodeIds"]
            assert nodes, selector
            for node in nodes:
                fonts = cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]
                system += [(selector, f["familyName"]) for f in fonts if not f["isCustomFont"]]
        assert system == [], system[:5]
