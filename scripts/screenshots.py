"""Screenshot every tab of the running explorer at desktop (1280x800) and phone (390x844) width.

    python scripts/screenshots.py --out docs/screenshots     # starts the app itself on a free port

Uses Debian's Chromium through Playwright; bertviz's CDN is routed to tests/browser/node_modules.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from app_server import launch  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402
from test_browser import CHROMIUM, TABS, idle, open_tab, serve_cdn, settled  # noqa: E402

SLUG = {"Translate & attend": "attend", "Step by step": "steps", "Positional encoding": "positional",
        "Inside a head": "inside", "Experiments": "experiments", "Model": "model"}


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--out", default="docs/screenshots")
    p.add_argument("--sentence", default="A little girl is climbing into a wooden playhouse.")
    args = p.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    demo, url = launch()
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=[
                "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-site-isolation-trials",
                "--disable-features=IsolateOrigins,site-per-process"])
            for label, viewport in (("desktop", {"width": 1280, "height": 800}), ("phone", {"width": 390, "height": 844})):
                ctx = browser.new_context(viewport=viewport, device_scale_factor=1)
                ctx.route("**/cdnjs.cloudflare.com/**", serve_cdn)
                page = ctx.new_page()
                page.goto(url)
                settled(page)
                page.locator("#sentence textarea").fill(args.sentence)
                page.locator("#translate").click()
                page.wait_for_timeout(500)
                idle(page)
                for tab in TABS:
                    open_tab(page, tab)
                    page.wait_for_timeout(1000)
                    button = {"Step by step": "#run-beam", "Experiments": "#run-ablation"}.get(tab)
                    if button:  # what these tabs show once their button has run the model again
                        page.locator(button).click()
                        page.wait_for_timeout(500)
                        idle(page)
                    path = out / f"{SLUG[tab]}-{label}.png"
                    page.screenshot(path=str(path), full_page=label == "desktop")
                    print("wrote", path)
                ctx.close()
            browser.close()
    finally:
        demo.close()


if __name__ == "__main__":
    main()
