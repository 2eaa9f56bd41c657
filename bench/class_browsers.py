"""Benchmark: a class following its teacher in real browsers (Debian's Chromium, headless): one teacher page and
--students follower pages (each its own browser context, phone-sized), all on one server started in this process.

    python bench/class_browsers.py [--students 30] [--changes 3]

For each change the teacher makes (a new sentence translated, then the Step tab opened), prints p50/p95/max of the
time from the teacher's click to each follower's first heatmap of that sentence, and to each follower's Step tab.
On this machine the teacher, every follower page and the server share the same 2 cores.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from app_server import served  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402
from test_browser import CHROMIUM, open_tab, settled  # noqa: E402

SENTENCES = ["The old man reads a newspaper in the garden.", "Two girls are dancing at a wedding.",
             "My brother lives in a small house near the sea.", "The children are playing with a red ball."]
HEATMAP_OF = """(s) => { const p = document.querySelector('#heatmap .js-plotly-plot');
  return !!p && !!p.layout && String((p.layout.title || {}).text || '').includes(s); }"""
ANSWERED = """(s) => { const t = document.querySelector('#translation textarea');
  if (window.__was === undefined) window.__was = t.value;
  return t.value !== window.__was; }"""  # the follower's Translate answered: the German arrived (views not drawn yet)
STEP_TAB = """() => [...document.querySelectorAll("button[role='tab']")].some((b) =>
  b.textContent.trim() === 'Step by step' && b.getAttribute('aria-selected') === 'true')"""


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


WATCH = """([test, arg]) => { window.__arrived = null; const f = new Function('s', 'return (' + test + ')(s)');
  const t = setInterval(() => { if (f(arg)) { window.__arrived = Date.now(); clearInterval(t); } }, 20); }"""


def arrivals(teacher, pages, test: str, arg, act) -> list[float]:
    """Each follower page watches for ``test`` itself (every 20 ms, its own clock: one machine, one clock); the
    teacher acts; -> seconds from the teacher's action to each page's arrival."""
    for pg in pages:
        pg.evaluate(WATCH, [test, arg])
    t0 = teacher.evaluate("() => (window.__t0 = Date.now())")
    act()
    out = []
    for pg in pages:
        pg.wait_for_function("() => window.__arrived !== null", timeout=120_000)
        out.append((pg.evaluate("() => window.__arrived") - t0) / 1000)
    return out


def teacher_page(browser, url: str):
    """A teacher's laptop page (1280x800) that has opened a class: -> (page, class code)."""
    teacher = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    teacher.goto(url)
    settled(teacher)
    teacher.locator("#teach").click()
    teacher.locator("#class-code").wait_for(timeout=30_000)
    return teacher, teacher.locator("#class-code").inner_text()


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--students", type=int, default=30)
    p.add_argument("--changes", type=int, default=3)
    args = p.parse_args()
    with served() as (_, url):  # closed at the end, also when a step fails
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=[
                "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"])
            teacher, code = teacher_page(browser, url)
            pages = []
            for _ in range(args.students):
                ctx = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
                pg = ctx.new_page()
                pg.on("dialog", lambda d: d.accept())
                pg.goto(f"{url}?class={code}")
                pages.append(pg)
            for pg in pages:
                pg.locator("#class-banner", has_text="Following the teacher").wait_for(timeout=120_000)
            print(f"{len(pages)} follower pages joined class {code}")
            heat, tabs, answered = [], [], []
            for i in range(args.changes):
                sentence = SENTENCES[i % len(SENTENCES)]
                open_tab(teacher, "Translate & attend")
                teacher.locator("#sentence textarea").fill(sentence)
                for pg in pages:  # the status line: the follower's Translate answered (its bank arrived)
                    pg.evaluate("() => { window.__was = undefined; }")
                    pg.evaluate(WATCH.replace("__arrived", "__answered"), [ANSWERED, sentence])
                heat += arrivals(teacher, pages, HEATMAP_OF, sentence, lambda: teacher.locator("#translate").click())
                t0 = teacher.evaluate("() => window.__t0")
                answered += [(pg.evaluate("() => window.__answered") - t0) / 1000 for pg in pages]
                tabs += arrivals(teacher, pages, STEP_TAB, None, lambda: open_tab(teacher, "Step by step"))
                print(f"change {i + 1}: last follower's heatmap after {max(heat[-len(pages):]):.2f} s, "
                      f"last Step tab after {max(tabs[-len(pages):]):.2f} s")
            print(f"teacher's Translate -> each follower's first heatmap of that sentence: p50 {statistics.median(heat):.2f} s, "
                  f"p95 {pct(heat, 0.95):.2f} s, max {max(heat):.2f} s ({len(heat)} arrivals)")
            print(f"teacher's Translate -> each follower's translation (its Translate answered): p50 "
                  f"{statistics.median(answered):.2f} s, p95 {pct(answered, 0.95):.2f} s, max {max(answered):.2f} s")
            print(f"teacher's tab click -> each follower's tab: p50 {statistics.median(tabs):.2f} s, "
                  f"p95 {pct(tabs, 0.95):.2f} s, max {max(tabs):.2f} s")
            browser.close()


if __name__ == "__main__":
    main()
