"""Screenshot every tab of the running explorer at desktop (1280x800) and phone (390x844) width, the first screen
at 1366x768 and 320x640 too, presentation mode at 1920x1080, and a class (a teacher and following phones).

    python scripts/screenshots.py --out docs/screenshots     # starts the app itself on a free port
    python scripts/screenshots.py --german                   # only the German first screens, lesson and class

Uses Debian's Chromium through Playwright; bertviz's CDN is routed to tests/browser/node_modules.
"""

from __future__ import annotations

import argparse
import sys
from contextlib import ExitStack
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from app_server import served  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402
from test_browser import CHROMIUM, TABS, idle, open_tab, serve_cdn, settled  # noqa: E402

SLUG = {"Translate & attend": "attend", "Step by step": "steps", "Positional encoding": "positional",
        "Inside a head": "inside", "Experiments": "experiments", "Beyond attention": "beyond", "Compare": "compare",
        "Model": "model"}


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--out", default="docs/screenshots")
    p.add_argument("--sentence", default="A little girl is climbing into a wooden playhouse.")
    p.add_argument("--only-training", action="store_true", help="only the through-training view")
    p.add_argument("--german", action="store_true", help="only the German page: first screens, lesson, class (*-de.png)")
    args = p.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    server = ExitStack()  # tests/app_server.py's served(): the app as `python app.py` serves it
    _, url = server.enter_context(served())
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=[
                "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-site-isolation-trials",
                "--disable-features=IsolateOrigins,site-per-process"])
            if args.german:
                german(browser, url, args.sentence, out)
                return
            through_training(browser, url, out)
            through_training(browser, url, out, "A dog is running in the snow.", "en-de", "1000", "training-en-de.png")
            for label, viewport in (() if args.only_training else
                                    (("desktop", {"width": 1280, "height": 800}), ("phone", {"width": 390, "height": 844}))):
                ctx = browser.new_context(viewport=viewport, device_scale_factor=1)
                ctx.route("**/cdnjs.cloudflare.com/**", serve_cdn)
                page = ctx.new_page()
                page.goto(url)
                settled(page)
                path = out / f"first-{label}.png"  # the first screen, as a visitor sees it
                page.screenshot(path=str(path))
                print("wrote", path)
                page.locator("#sentence textarea").fill(args.sentence)
                page.locator("#translate").click()
                page.wait_for_timeout(500)
                idle(page)
                for tab in TABS:
                    open_tab(page, tab)
                    page.wait_for_timeout(1000)
                    button = {"Step by step": "#run-beam", "Experiments": "#run-ablation",
                              "Beyond attention": "#run-attribute", "Compare": "#run-compare"}.get(tab)
                    if button:  # what these tabs show once their button has run the model again
                        page.locator(button).click()
                        page.wait_for_timeout(500)
                        idle(page)
                        if tab == "Beyond attention":  # integrated gradients: about a second or two of model work
                            page.locator("#attr-plot .js-plotly-plot .main-svg").first.wait_for(timeout=60_000)
                    path = out / f"{SLUG[tab]}-{label}.png"
                    page.screenshot(path=str(path), full_page=label == "desktop")
                    print("wrote", path)
                lesson(page, out, label)
                ctx.close()
            if not args.only_training:
                first_screens(browser, url, out)
                presentation(browser, url, args.sentence, out)
                class_room(browser, url, args.sentence, out)
            browser.close()
    finally:
        server.close()


def through_training(browser, url: str, out: Path, text: str = "t r a n s f o r m e r", model: str = "toy-reverse",
                     step: str = "400", name: str = "training-desktop.png") -> None:
    """The Model tab's "Attention through training" with the slider at ``step``: on toy-reverse at step 400 the
    anti-diagonal is half formed; on en-de at step 1000 the alignment is there and the translation right."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 1000}, device_scale_factor=1)
    page = ctx.new_page()
    page.goto(url + "?text=" + text.replace(" ", "%20") + "&model=" + model)
    page.wait_for_function("(s) => document.querySelector('#status')?.innerText.includes(s)", arg=text, timeout=90_000)
    idle(page)
    open_tab(page, "Model")
    page.locator("#run-training").click()
    page.locator("#training-plot .js-plotly-plot .main-svg").first.wait_for(timeout=60_000)
    idle(page)
    label = page.locator("#training-plot g.slider-group text", has_text=step).first
    label.scroll_into_view_if_needed()
    box = label.bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.wait_for_timeout(800)
    path = out / name
    page.locator("#training-plot").screenshot(path=str(path))
    print("wrote", path)
    ctx.close()


def lesson(page, out: Path, label: str) -> None:
    """The guided lesson at its cross-attention stop after a wrong prediction (docked over its view), and its end."""
    open_tab(page, "Translate & attend")
    page.get_by_text("Guided lesson").first.click()
    page.locator("#ae-lesson-start").click()
    for _ in range(5):
        page.locator(".ae-nav button", has_text="Next").click()
    page.locator(".ae-answer").first.click()
    page.wait_for_timeout(1200)
    path = out / f"lesson-{label}.png"
    page.screenshot(path=str(path))
    print("wrote", path)
    for _ in range(3):
        page.locator(".ae-answer").first.click()
        page.locator(".ae-nav button", has_text="Next" if "stop 8" not in page.locator("#ae-lesson").inner_text()
                     else "Finish").click()
    page.locator("#ae-lesson .ae-end").wait_for(timeout=5_000)
    path = out / f"lesson-end-{label}.png"
    page.locator("#ae-lesson").screenshot(path=str(path))
    print("wrote", path)
    page.locator(".ae-close").click()


def first_screens(browser, url: str, out: Path) -> None:
    """The first screen on a smaller laptop (1366x768) and a small phone (320x640), as a visitor sees it."""
    for name, context in (("first-1366.png", dict(viewport={"width": 1366, "height": 768})),
                          ("first-320.png", dict(viewport={"width": 320, "height": 640}, is_mobile=True,
                                                 has_touch=True))):
        ctx = browser.new_context(device_scale_factor=1, **context)
        page = ctx.new_page()
        page.goto(url)
        settled(page)
        page.screenshot(path=str(out / name))
        print("wrote", out / name)
        ctx.close()


def presentation(browser, url: str, sentence: str, out: Path) -> None:
    """Presentation mode on a 1920x1080 projector: the attention tab and the step view."""
    from urllib.parse import quote

    ctx = browser.new_context(viewport={"width": 1920, "height": 1080}, device_scale_factor=1)
    page = ctx.new_page()
    page.goto(url + "?text=" + quote(sentence))
    settled(page)
    idle(page)
    page.locator("#present").click()
    page.wait_for_timeout(1500)
    path = out / "present-first.png"  # what the projector shows at once: the view, large
    page.screenshot(path=str(path))
    print("wrote", path)
    for tab, elem in (("Translate & attend", "#heatmap"), ("Step by step", "#step-plot")):
        open_tab(page, tab)
        page.wait_for_timeout(1000)
        page.locator(elem).scroll_into_view_if_needed()
        path = out / f"present-{SLUG[tab]}.png"
        page.screenshot(path=str(path))
        print("wrote", path)
    ctx.close()


def open_class(browser, url: str, **context) -> tuple:
    """A teacher (1280x800) who opened a class on ``url``, and two phones (390x844) that joined it, each with
    ``context`` (a locale). -> (the teacher's page, [the phones' pages])"""
    teacher = browser.new_context(viewport={"width": 1280, "height": 800}, **context).new_page()
    teacher.goto(url)
    settled(teacher)
    teacher.locator("#teach").click()
    teacher.locator("#class-code").wait_for(timeout=30_000)
    code = teacher.locator("#class-code").inner_text()
    root = url.split("?", 1)[0]
    phones = []
    for nick in ("Mia", "Jonas"):
        pg = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True,
                                 has_touch=True, **context).new_page()
        pg.on("dialog", lambda d, n=nick: d.accept(n))
        pg.goto(f"{root}?class={code}")
        pg.wait_for_function("() => window.AE && AE.room.state.role === 'student' && AE.room.state.following",
                             timeout=60_000)  # following the teacher, in any language
        phones.append(pg)
    return teacher, phones


def class_room(browser, url: str, sentence: str, out: Path) -> None:
    """A class: the teacher's panel (code, QR, tallies, a view sent) and a student's phone following."""
    teacher, phones = open_class(browser, url)
    teacher.locator("#sentence textarea").fill(sentence)
    teacher.locator("#translate").click()
    for pg in phones:
        pg.wait_for_function("(s) => document.querySelector('#status')?.innerText.includes(s)", arg=sentence,
                             timeout=60_000)
    open_tab(teacher, "Step by step")  # a following phone is shown the teacher's new view, under its banner
    phones[0].wait_for_timeout(3000)
    phones[0].screenshot(path=str(out / "follow-phone.png"))
    print("wrote", out / "follow-phone.png")
    open_tab(teacher, "Translate & attend")
    for pg, pick in zip(phones, (0, 1)):
        pg.get_by_text("Guided lesson").first.click()
        pg.locator("#ae-lesson-start").click()
        pg.locator(".ae-answer").nth(pick).click()
    phones[0].evaluate("() => { window.prompt = () => 'the heads of layer 2 matter'; }")
    phones[0].locator("#class-banner button", has_text="Send my view").click()
    teacher.locator("#class-shares").wait_for(timeout=10_000)
    teacher.locator("#class-tally button", has_text="Reveal").first.click()
    phones[1].locator(".ae-class-tally").wait_for(timeout=10_000)
    teacher.wait_for_timeout(800)
    teacher.locator("#class-panel").screenshot(path=str(out / "class-teacher.png"))
    phones[1].wait_for_timeout(800)
    phones[1].screenshot(path=str(out / "class-phone.png"))
    print("wrote", out / "class-teacher.png", out / "class-phone.png")
    teacher.locator("#class-panel button", has_text="End the class").click()


def german(browser, url: str, sentence: str, out: Path) -> None:
    """The page as a German browser opens it: the first screen on a laptop and a phone, the lesson at its
    cross-attention stop after an answer, and a class (the teacher's panel after a reveal, a following phone).
    Everything is found by id: no label is English."""
    from urllib.parse import quote

    for label, context in (("desktop", dict(viewport={"width": 1280, "height": 800})),
                           ("phone", dict(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True))):
        ctx = browser.new_context(locale="de-DE", device_scale_factor=1, **context)
        page = ctx.new_page()
        page.goto(url)
        settled(page)
        page.screenshot(path=str(out / f"first-{label}-de.png"))
        print("wrote", out / f"first-{label}-de.png")
        ctx.close()
    ctx = browser.new_context(locale="de-DE", viewport={"width": 1280, "height": 800}, device_scale_factor=1)
    page = ctx.new_page()
    page.goto(url + "?text=" + quote(sentence))
    settled(page)
    page.locator("#lesson-box button").first.click()
    page.locator("#ae-lesson-start").click()
    for _ in range(5):
        page.locator(".ae-nav button").last.click()
    page.locator(".ae-answer").first.click()
    page.wait_for_timeout(1200)
    page.screenshot(path=str(out / "lesson-de.png"))
    print("wrote", out / "lesson-de.png")
    ctx.close()

    teacher, phones = open_class(browser, url + "?text=" + quote(sentence), locale="de-DE")
    for pg in phones:
        pg.wait_for_function("(s) => window.AE && AE.current && AE.current() && AE.current().text === s", arg=sentence,
                             timeout=60_000)
    for pg, pick in zip(phones, (0, 1)):
        pg.locator("#lesson-box button").first.click()
        pg.locator("#ae-lesson-start").click()
        pg.locator(".ae-answer").nth(pick).click()
    teacher.locator("#class-tally button").first.click()
    phones[1].locator(".ae-class-tally").wait_for(timeout=10_000)
    teacher.wait_for_timeout(800)
    teacher.locator("#class-panel").screenshot(path=str(out / "class-teacher-de.png"))
    phones[1].wait_for_timeout(800)
    phones[1].screenshot(path=str(out / "class-phone-de.png"))
    print("wrote", out / "class-teacher-de.png", out / "class-phone-de.png")


if __name__ == "__main__":
    main()
