"""The offline bundle (python -m explorer.offline) in real Chromium from file://, the network refused.

    python bench/offline.py [--repeats 10]

Prints the bundle's size, the time from opening the page to Translate usable (the scripts parsed, the weights decoded
and checked, the model built in its worker), and Translate -> heatmap painted (the German set and the heatmap's svg
drawn, then two animation frames) as medians: at 1280x800, and at 390x844 with the CPU throttled 4x (DevTools' CPU
throttling, as a mid-range phone runs). Each Translate is a new sentence (the examples and a few more, in turn).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from explorer.offline.bundle import write_bundle  # noqa: E402

SENTENCES = ["A dog is running in the snow.", "We went to London last year.", "Tom fell and broke his arm.",
             "Two children are playing football on the beach.", "I like apples.", "The cat sleeps on the sofa.",
             "Where is the station?", "She reads a book in the garden."]
SCREENS = {"laptop": {"width": 1280, "height": 800, "throttle": 1},
           "phone, CPU 4x slower": {"width": 390, "height": 844, "throttle": 4}}
PAINTED = """(n) => new Promise((done) => {
  const ready = () => document.getElementById('status').textContent.includes('ms') &&
    document.getElementById('german').dataset.n === String(n) && document.querySelector('#fig-heatmap .main-svg');
  const painted = () => requestAnimationFrame(() => requestAnimationFrame(() => done(performance.now())));
  const wait = () => (ready() ? painted() : setTimeout(wait, 2));
  wait();
})"""
# each translation's German marked with the number of its Translate, so the bench knows the German is this one's
MARK = """() => { const g = document.getElementById('german');
  new MutationObserver(() => { if (g.textContent) g.dataset.n = String(window.benchN); })
    .observe(g, { childList: true, characterData: true, subtree: true }); }"""


def run(browser, url: str, screen: dict, repeats: int) -> tuple[float, list[float]]:
    ctx = browser.new_context(viewport={"width": screen["width"], "height": screen["height"]}, offline=True)
    ctx.route("**/*", lambda r: r.continue_() if r.request.url.startswith(("file:", "blob:", "data:")) else r.abort())
    page = ctx.new_page()
    cdp = ctx.new_cdp_session(page)
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": screen["throttle"]})
    t0 = time.perf_counter()
    page.goto(url)
    page.wait_for_function("!document.getElementById('translate').disabled", timeout=300_000)
    ready = time.perf_counter() - t0
    times = []
    page.evaluate(MARK)
    for i in range(repeats + 2):  # (the first two warm up)
        page.evaluate("(n) => { window.benchN = n; }", i)
        page.fill("#sentence", SENTENCES[i % len(SENTENCES)])
        start = page.evaluate("performance.now()")
        page.click("#translate")
        end = page.evaluate(PAINTED, i)
        if i >= 2:
            times.append((end - start) / 1000)
        page.evaluate("document.getElementById('german').textContent = ''")
    ctx.close()
    return ready, times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=10)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        sizes = write_bundle(Path(tmp), "en-de")
        print(f"bundle: {sum(sizes.values()) / 1e6:.2f} MB in {len(sizes)} files (weights {sizes['files.js'] / 1e6:.2f} MB "
              f"as base64, plotly {sizes['plotly.min.js'] / 1e6:.2f} MB)")
        url = (Path(tmp) / "index.html").as_uri()
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", headless=True)
            for name, screen in SCREENS.items():
                ready, times = run(browser, url, screen, args.repeats)
                print(f"{name}: page opened -> Translate usable {ready:.2f} s; Translate -> heatmap painted median "
                      f"{statistics.median(times) * 1000:.0f} ms (min {min(times) * 1000:.0f}, max {max(times) * 1000:.0f}, "
                      f"n={len(times)})")
            browser.close()


if __name__ == "__main__":
    main()
