"""Benchmark: what one Translate costs the browser (Debian's Chromium, headless), on a laptop and on a phone.

    python bench/page_cost.py [--url http://127.0.0.1:7860/] [--repeats 10] [--paths browser,server]

(with --url, the app must run with ATTENTION_EXPLORER_BROWSER_MODEL=1 for the browser's path)

Without --url it starts the app in this process (bench/app_server.py). For each screen (1280x800; 390x844 with the
CPU throttled 4x by DevTools, about a mid-range phone) and each path (the browser's own model, once the page says it
is loaded: explorer/page/static/local.js; the server, with the model's files refused to that browser so the page
goes on without it) it translates --repeats sentences one after another and prints the median time from the click
on Translate to the first heatmap whose title names the new sentence (read by the page itself every 20 ms, its own
clock), and the main thread's time per Translate by category (DevTools' Performance.getMetrics before and after,
with 2.5 s for the page to settle): style recalculation, script, layout. With the browser's model: the first visit's
bytes and time until Translate needs no server, and a second visit's (the browser's cache). Then a teacher's tab
change reaching a following phone (throttled 4x): click to that phone's painted Step tab.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "bench")]

from app_server import served  # noqa: E402
from class_browsers import teacher_page  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402
from test_browser import CHROMIUM, open_tab, settled  # noqa: E402

from i18n import CATALOGUES  # noqa: E402

SENTENCES = ["The dog runs in the park.", "A man is reading a book.", "Two children play football.",
             "She drinks coffee every morning.", "The old man reads a newspaper in the garden.",
             "We went to the beach yesterday.", "My sister likes green apples.", "The train leaves at noon.",
             "A woman is riding a bicycle.", "I lost my keys again."]
METRICS = ("RecalcStyleDuration", "ScriptDuration", "LayoutDuration", "TaskDuration")
SCREENS = {"laptop 1280x800": dict(viewport={"width": 1280, "height": 800}, throttle=1),
           "phone 390x844, CPU 4x slower": dict(viewport={"width": 390, "height": 844}, is_mobile=True,
                                                has_touch=True, throttle=4)}
# the page watches for its own heatmap of the sentence (every 20 ms) and notes the time it saw it
WATCH = """(s) => { window.__seen = null; const t0 = performance.now(); window.__t0 = t0;
  const id = setInterval(() => { const p = document.querySelector('#heatmap .js-plotly-plot');
    if (p && p.layout && String((p.layout.title || {}).text || '').includes(s)) {
      window.__seen = performance.now() - t0; clearInterval(id); } }, 20); }"""
# each figure's drawing time so far, ms (explorer/page/static/draw_once.js: the main thread inside Plotly.react)
DRAW_MS = "() => Object.assign({}, (window.AE_DRAWS || {}).ms)"
STEP_TAB = """() => { const b = [...document.querySelectorAll("button[role='tab']")].find((x) =>
  x.getAttribute('aria-selected') === 'true'); const p = document.querySelector('#step-plot .js-plotly-plot');
  return !!b && b.textContent.trim() === 'Step by step' && !!p && !!p.layout; }"""


def metrics(cdp) -> dict[str, float]:
    return {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}


READY = CATALOGUES["en"]["page.local.ready"]


def model_loaded(page, timeout_s: float = 120) -> float:
    """Seconds until the page says Translate runs in the browser (local.js), from now."""
    t0 = page.evaluate("() => performance.now()")
    page.wait_for_function("(s) => (document.getElementById('ae-local') || {}).textContent === s", arg=READY,
                           timeout=timeout_s * 1000, polling=50)
    return (page.evaluate("() => performance.now()") - t0) / 1000


def first_visits(browser, url: str) -> str:
    """A laptop's first visit and its second (the same browser profile): MB of the model's files that came over the
    network (the worker's own count, shown on #ae-local by local.js), and seconds from the page's start until
    Translate needs no server."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    out = []
    for visit in ("first", "second"):
        page = ctx.new_page()
        page.goto(url)
        page.wait_for_function("(s) => (document.getElementById('ae-local') || {}).textContent === s", arg=READY,
                               timeout=120_000, polling=50)
        at = page.evaluate("() => performance.now()") / 1000
        parts = page.evaluate("() => ['ready', 'estimator'].map((k) => JSON.parse(document.getElementById('ae-local')"
                              ".dataset[k] || '{}'))")
        moved = sum(x.get("transferred", 0) for x in parts) / 1e6
        out.append(f"{visit} visit: {moved:.1f} MB of the model's files over the network (of "
                   f"{sum(x.get('bytes', 0) for x in parts) / 1e6:.1f} MB), Translate in the browser {at:.2f} s "
                   f"after the page started")
        page.close()
    ctx.close()
    return "; ".join(out)


def translate_costs(browser, url: str, screen: dict, repeats: int, path: str) -> tuple[list[float], dict[str, list[float]]]:
    ctx = browser.new_context(**{k: v for k, v in screen.items() if k != "throttle"})
    if path == "server":  # the model's files refused: the page goes on with the server, as a browser that cannot
        ctx.route("**/browser-model/**", lambda route: route.abort())
    page = ctx.new_page()
    cdp = ctx.new_cdp_session(page)
    cdp.send("Performance.enable")
    page.goto(url)
    settled(page)
    if path == "browser":
        model_loaded(page)
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": screen["throttle"]})
    waits, spent, figures = [], {m: [] for m in METRICS}, {}
    for sentence in (SENTENCES * repeats)[:repeats]:
        page.locator("#sentence textarea").fill(sentence)
        page.wait_for_timeout(500)
        before, drawn = metrics(cdp), page.evaluate(DRAW_MS)
        page.evaluate(WATCH, sentence[:20])
        page.locator("#translate").click()
        page.wait_for_function("() => window.__seen !== null", timeout=120_000, polling=100)
        waits.append(page.evaluate("() => window.__seen") / 1000)
        page.wait_for_timeout(2500)  # the page settles: what the Translate set off is counted
        after = metrics(cdp)
        for m in METRICS:
            spent[m].append(after[m] - before[m])
        for fig, ms in page.evaluate(DRAW_MS).items():
            figures.setdefault(fig, []).append((ms - drawn.get(fig, 0)) / 1000)
    ctx.close()
    spent |= {f"figure {fig}": v + [0.0] * (repeats - len(v)) for fig, v in sorted(figures.items())}
    return waits, spent


def follow_cost(browser, url: str, repeats: int) -> list[float]:
    """A teacher's page opens the Step tab and Translate & attend in turn; the seconds until a following phone (CPU
    4x slower) shows the Step tab with its figure drawn."""
    teacher, code = teacher_page(browser, url)
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    phone = ctx.new_page()
    phone.goto(f"{url}?class={code}")
    phone.locator("#class-banner", has_text="Following the teacher").wait_for(timeout=120_000)
    settled(phone)
    ctx.new_cdp_session(phone).send("Emulation.setCPUThrottlingRate", {"rate": 4})
    out = []
    for _ in range(repeats):
        open_tab(teacher, "Translate & attend")
        phone.wait_for_function(STEP_TAB.replace("'Step by step'", "'Translate & attend'").replace(
            "#step-plot", "#heatmap"), timeout=120_000)
        phone.wait_for_timeout(1000)
        phone.evaluate("() => { window.__seen = null; }")
        t0 = teacher.evaluate("() => Date.now()")
        open_tab(teacher, "Step by step")
        phone.wait_for_function(STEP_TAB, timeout=120_000, polling=20)
        out.append((phone.evaluate("() => Date.now()") - t0) / 1000)
    return out


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--url", default=None, help="a running app (default: start one here)")
    p.add_argument("--repeats", type=int, default=10)
    p.add_argument("--paths", default="browser,server", help="browser (the page's own model), server, or both")
    args = p.parse_args()
    if "browser" in args.paths and not args.url:  # (off by default: the app started here turns it on)
        os.environ["ATTENTION_EXPLORER_BROWSER_MODEL"] = "1"
    with contextlib.ExitStack() as stack:
        url = args.url or stack.enter_context(served())[1]
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True)
            if "browser" in args.paths:
                print(first_visits(browser, url))
            for name, screen in SCREENS.items():
                for path in args.paths.split(","):
                    waits, spent = translate_costs(browser, url, screen, args.repeats, path)
                    parts = ", ".join(f"{m.removesuffix('Duration').lower()} {statistics.median(v):.3f} s"
                                      for m, v in spent.items() if not m.startswith("figure "))
                    figures = ", ".join(f"{m.removeprefix('figure ')} {statistics.median(v):.3f} s"
                                        for m, v in spent.items() if m.startswith("figure "))
                    print(f"{name}, {path}: Translate -> heatmap of the sentence: median {statistics.median(waits):.2f} s "
                          f"(min {min(waits):.2f}, max {max(waits):.2f}, {len(waits)} sentences); main thread per "
                          f"Translate (medians): {parts}; of it drawing figures (medians): {figures or 'none'}")
            follow = follow_cost(browser, url, max(3, args.repeats // 2))
            print(f"teacher's tab change -> a following phone's Step tab drawn (CPU 4x slower): median "
                  f"{statistics.median(follow):.2f} s (min {min(follow):.2f}, max {max(follow):.2f}, {len(follow)})")
            browser.close()


if __name__ == "__main__":
    main()
