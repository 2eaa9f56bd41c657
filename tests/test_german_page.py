"""The page in German (issue 37), in Debian's Chromium: a German browser sees no English in any tab (and axe finds no
WCAG A or AA violation there), the lesson or the class panel (outside the sentence being translated and technical
names), read against the English catalogue and against English function words; a link with ``lang`` opens in its
language; the switch reopens the page in the other language with the same state; a class follows the teacher's
language, and a student may switch their own.
"""

import re
from contextlib import ExitStack

import i18n_scan
import pytest
from app_server import MODEL
from test_browser import browser, idle, rendered_plot, server, settled  # noqa: F401
from test_every_screen import LAPTOP, PHONE, opened

import i18n

try:  # axe-core through axe-playwright-python, as tests/test_accessibility.py runs it
    from test_accessibility import violations
except (ImportError, pytest.skip.Exception):
    def violations(pg) -> list[str]:
        return []

pytestmark = pytest.mark.skipif(MODEL != "en-de", reason="English sentences on the shipped en-de model")

SENTENCE = "Two dogs play in snow."  # no English function word of its own: any one on the page is interface text
SECOND = "Two cats play in snow."  # the Compare tab's second sentence, the same way
GERMAN = dict(locale="de-DE")
TAB_IDS = ["attend", "steps", "pe", "inside", "experiments", "beyond", "compare", "model"]

# Every text a person sees or hears: visible text nodes (SVG text of figures too) and the names a screen reader reads
# (aria-label, title, placeholder, alt) of visible elements; text marked as English (lang="en": the sentence, its
# pieces) and the page's hidden copies are not interface text.
SEEN = """() => {
  const out = [];
  const shown = (el) => { const s = getComputedStyle(el);
    return s.display !== 'none' && s.visibility !== 'hidden' && el.getClientRects().length > 0; };
  const skip = (el) => el.closest('[lang="en"], #bank, #shown, script, style, noscript, .ae-hidden');
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walk.nextNode()) {
    const el = walk.currentNode.parentElement, s = walk.currentNode.textContent.trim();
    if (s && el && !skip(el) && shown(el)) out.push(s);
  }
  document.querySelectorAll('[aria-label], [title], [placeholder], [alt]').forEach((el) => {
    if (skip(el) || !shown(el)) return;
    for (const a of ['aria-label', 'title', 'placeholder', 'alt']) {
      const v = el.getAttribute(a);
      if (v && v.trim()) out.push(v.trim());
    }
  });
  const said = document.getElementById('ae-said');  // what the announcer says
  if (said && said.textContent.trim()) out.push(said.textContent.trim());
  return out;
}"""


def english_phrases() -> list[re.Pattern]:
    """The English catalogue's texts that German writes differently, as whole-word patterns (markup and
    placeholders out; each piece between placeholders a phrase of its own; a word German uses too, such as
    "optional", is no sign of English)."""
    en, de = i18n.CATALOGUES["en"], i18n.CATALOGUES["de"]
    german_words = {w.lower() for v in de.values() for w in i18n_scan.WORD.findall(i18n_scan.plain(v))}
    out = set()
    for key, text in en.items():
        if key.startswith(("==", "_meta")) or text == de.get(key):
            continue
        german = i18n_scan.plain(de.get(key, ""))
        for piece in re.split(r"\s{2,}|[\n:;()“”\"]", i18n_scan.plain(text)):
            piece = piece.strip(" .,!?·—-")
            words = i18n_scan.WORD.findall(piece)
            if len(words) == 1 and (len(words[0]) < 6 or words[0].lower() in german_words):
                continue
            if words and piece not in german:
                out.add(piece)
    return [re.compile(r"(?<![\w-])" + re.escape(p) + r"(?![\w-])") for p in sorted(out)]


PHRASES = english_phrases() if MODEL == "en-de" else []
SENTENCE_WORDS = {w.lower() for w in i18n_scan.WORD.findall(SENTENCE + " " + SECOND)}


def english_left(texts: list[str]) -> list[str]:
    """The texts that are English: an English function word, or an English catalogue phrase German says otherwise."""
    left = []
    for text in dict.fromkeys(texts):
        words = [w for w in i18n_scan.WORD.findall(text)
                 if w.lower() not in SENTENCE_WORDS and "_" not in w and not w.isupper()]  # not "CC BY"
        if i18n_scan.ENGLISH.search(" ".join(words)):
            left.append(text[:120])
            continue
        hit = next((p.pattern for p in PHRASES if p.search(text)), None)
        if hit:
            left.append(f"{text[:120]}  [catalogue: {hit}]")
    return left


def seen(pg) -> list[str]:
    return pg.evaluate(SEEN)


def tab(pg, name: str) -> None:
    """Open a tab by its place (its label is in the page's language)."""
    pg.locator("#tabs button[role='tab']").nth(TAB_IDS.index(name)).click()
    pg.wait_for_timeout(600)


def translate(pg, text: str) -> None:
    pg.locator("#sentence textarea").fill(text)
    pg.locator("#translate").click()
    pg.wait_for_function("(s) => { const b = window.AE && AE.current(); return b && b.text === s; }", arg=text,
                         timeout=60_000)
    idle(pg)


def run(pg, button: str, output: str) -> None:
    """Press a tab's button and wait for its output figure (in block `output`), scrolled to if it lies far below."""
    pg.locator(f"#{button}").scroll_into_view_if_needed()
    pg.locator(f"#{button}").click()
    rendered_plot(pg, output)
    idle(pg)


@pytest.mark.parametrize("screen", ["laptop", "phone"])
def test_a_german_browser_sees_no_english_in_any_tab(browser, server, screen):  # noqa: F811
    with opened(browser, server, **GERMAN, **(LAPTOP if screen == "laptop" else PHONE)) as pg:
        settled(pg)
        assert pg.evaluate("[AE.lang, document.documentElement.lang]") == ["de", "de"]
        translate(pg, SENTENCE)  # the first example's words would be English on every figure
        left = {"first screen": english_left(seen(pg))}
        for name in TAB_IDS:
            tab(pg, name)
            idle(pg)
            if name == "steps":
                run(pg, "run-beam", "beam-plot")
            if name == "experiments":
                run(pg, "run-ablation", "ablation-effect")
            if name == "compare":
                pg.locator("#sentence-b textarea").fill(SECOND)
                run(pg, "run-compare", "compare-view")
            pg.evaluate("document.querySelectorAll('details:not([open]) > summary').forEach((s) => s.click())")
            pg.wait_for_timeout(300)
            left[name] = english_left(seen(pg))
            if screen == "laptop":  # the German page is as accessible as the English one (axe, WCAG A and AA)
                left[name] += violations(pg)
        assert {k: v for k, v in left.items() if v} == {}
        assert pg.errors == []


def test_the_lesson_in_german_asks_and_checks_the_same_answers_as_in_english(browser, server):  # noqa: F811
    """The lesson's words change, not its answers: answering the first option at every stop is right or wrong at
    the same stops in both languages (the answers come from the model's numbers), and nothing in it is English."""
    verdicts = {}
    for lang in ("en", "de"):
        with opened(browser, f"{server}?lang={lang}&text={SENTENCE.replace(' ', '%20')}", **LAPTOP) as pg:
            settled(pg)
            pg.locator("#lesson-box button").first.click()
            pg.locator("#ae-lesson-start").click()
            marks, left = [], []
            for stop in range(8):
                pg.locator("#ae-lesson .ae-stop").first.wait_for(timeout=20_000)
                idle(pg)
                options = pg.locator("#ae-lesson .ae-answer")
                if options.count():
                    options.first.click()
                    pg.locator("#ae-lesson .ae-reveal").wait_for(timeout=20_000)
                    marks.append((stop, options.count(), pg.locator("#ae-lesson .ae-reveal.ae-right").count() == 1))
                if lang == "de":
                    left += english_left(seen(pg))
                pg.locator("#ae-lesson .ae-nav button").last.click()
            verdicts[lang] = marks
            assert left == []
            pg.locator("#ae-lesson .ae-end").wait_for(timeout=20_000)
    assert verdicts["en"] == verdicts["de"] and len(verdicts["en"]) >= 6


def test_a_link_opens_in_its_language_and_the_switch_keeps_the_view(browser, server):  # noqa: F811
    de = i18n.CATALOGUES["de"]
    with opened(browser, f"{server}?text={SENTENCE.replace(' ', '%20')}&tab=steps&lang=de", locale="en-US",
                **LAPTOP) as pg:
        pg.wait_for_function("(s) => { const b = window.AE && AE.current && AE.current(); return b && b.text === s; }",
                             arg=SENTENCE, timeout=60_000)
        idle(pg)
        assert pg.evaluate("[AE.lang, document.documentElement.lang, document.cookie.includes('ae_lang=de')]") == \
            ["de", "de", True]
        assert pg.locator("#translate").inner_text().strip() == de["page.translate"]
        assert english_left(seen(pg)) == []
        # the switch: English, the same sentence and tab, and the choice kept for the next visit
        pg.locator("#ae-langs button[data-lang='en']").click()
        pg.wait_for_function("() => window.AE && AE.lang === 'en' && AE.current && AE.current()", timeout=60_000)
        pg.wait_for_function("(s) => AE.current().text === s", arg=SENTENCE, timeout=60_000)
        idle(pg)
        assert pg.locator("#translate").inner_text().strip() == i18n.CATALOGUES["en"]["page.translate"]
        assert pg.evaluate("() => new URLSearchParams(location.search).get('tab')") == "steps"
        assert pg.evaluate("localStorage.getItem('ae-lang')") == "en"


def test_a_class_follows_the_teachers_language_and_a_student_may_switch_their_own(browser, server):  # noqa: F811
    with ExitStack() as stack:
        teacher = stack.enter_context(opened(browser, server, locale="en-US", **LAPTOP))
        settled(teacher)
        translate(teacher, SENTENCE)  # the first example's words would be English on every figure
        teacher.locator("#teach").click()
        teacher.locator("#class-code").wait_for(timeout=10_000)
        code = teacher.locator("#class-code").inner_text()
        student = stack.enter_context(opened(browser, f"{server}?class={code}", locale="en-US", **PHONE))
        student.locator("#class-banner").wait_for(timeout=30_000)
        assert student.evaluate("AE.lang") == "en"

        teacher.locator("#ae-langs button[data-lang='de']").click()  # the teacher's page reopens in German
        teacher.wait_for_function("() => window.AE && AE.lang === 'de'", timeout=60_000)
        teacher.locator("#class-code", has_text=code).wait_for(timeout=30_000)  # still the class's teacher
        student.wait_for_function("() => window.AE && AE.lang === 'de' && document.querySelector('#class-banner')",
                                  timeout=60_000)
        settled(student)
        assert english_left(seen(teacher)) == []
        assert english_left(seen(student)) == []

        student.locator("#ae-langs button[data-lang='en']").click()  # their own page only
        student.wait_for_function("() => window.AE && AE.lang === 'en' && document.querySelector('#class-banner')",
                                  timeout=60_000)
        teacher.locator("#tabs button[role='tab']").nth(1).click()  # the teacher goes on: a new view, same language
        student.wait_for_function("() => [...document.querySelectorAll(\"#tabs button[role='tab']\")].findIndex("
                                  "(b) => b.getAttribute('aria-selected') === 'true') === 1", timeout=30_000)
        assert student.evaluate("AE.lang") == "en"
        assert teacher.evaluate("AE.lang") == "de"
