"""The explorer in a real browser: Debian's Chromium driven by Playwright, headless, offline.

bertviz's CDN addresses are routed to local copies installed from npm (tests/browser, by .ci/run).
"""

import os
from pathlib import Path

import pytest
from app_server import MODEL, SENTENCE, launch

pw = pytest.importorskip("playwright.sync_api")
CHROMIUM = "/usr/bin/chromium"
ASSETS = Path(__file__).resolve().parent / "browser" / "node_modules"
CDN = {
    "require.min.js": ASSETS / "requirejs" / "require.js",
    "d3.min.js": ASSETS / "d3" / "dist" / "d3.min.js",
    "jquery.min.js": ASSETS / "jquery" / "dist" / "jquery.min.js",
}
TABS = ["Translate & attend", "Step by step", "Positional encoding", "Inside a head", "Experiments", "Model"]
EVIL = "</script><script>alert(1)</script> <img src=x onerror=alert(2)> dog"

if not Path(CHROMIUM).exists() or not all(p.exists() for p in CDN.values()):
    if os.environ.get("CI"):
        raise RuntimeError("browser tests need /usr/bin/chromium and tests/browser/node_modules (see .ci/run)")
    pytest.skip("Chromium or the npm test assets are not installed", allow_module_level=True)


@pytest.fixture(scope="module")
def server():
    demo, url = launch()
    yield url
    demo.close()


@pytest.fixture(scope="module")
def browser():
    with pw.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
            "--no-first-run", "--disable-sync",
            # bertviz runs in a sandboxed srcdoc iframe (an opaque origin, its own process under site
            # isolation); Playwright's routing of its CDN requests needs it in the page's process
            "--disable-site-isolation-trials", "--disable-features=IsolateOrigins,site-per-process"])
        yield b
        b.close()


def serve_cdn(route):
    name = route.request.url.rsplit("/", 1)[-1]
    for key, path in CDN.items():
        if name.startswith(key.split(".")[0]):
            return route.fulfill(path=str(path), content_type="application/javascript")
    return route.abort()


@pytest.fixture
def page(browser, server):
    ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    ctx.route("**/cdnjs.cloudflare.com/**", serve_cdn)
    pg = ctx.new_page()
    dialogs = []
    pg.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    pg.dialogs = dialogs
    errors = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.errors = errors
    pg.goto(server, wait_until="domcontentloaded")
    if MODEL != "en-de":
        pg.locator("#sentence textarea").fill(SENTENCE)
    yield pg
    ctx.close()


def open_tab(pg, name: str) -> None:
    """Click a tab; on a narrow screen Gradio folds tabs into a "More tabs" menu first."""
    tab = pg.get_by_role("tab", name=name)
    if tab.count() and tab.first.is_visible():
        tab.first.click()
        return
    pg.locator('button[aria-label="More tabs"]').click()
    pg.locator(".overflow-menu button", has_text=name).first.click()


def rendered_plot(pg, elem_id, timeout=60_000):
    pg.locator(f"#{elem_id} .js-plotly-plot .main-svg").first.wait_for(timeout=timeout)
    return pg.locator(f"#{elem_id} .js-plotly-plot")


def translation(pg) -> str:
    return pg.locator("#translation textarea").input_value()


IDLE = """() => {
  const busy = document.querySelectorAll('[data-testid=status-tracker]:not(.hide)').length > 0;
  if (busy || window.__idleSince === undefined) { window.__idleSince = busy ? undefined : Date.now(); return false; }
  return Date.now() - window.__idleSince > 1500;
}"""


def idle(pg) -> None:
    """Wait until no Gradio event has been running for 1.5 s (a chain of .then events has gaps)."""
    pg.evaluate("() => { window.__idleSince = undefined; }")
    pg.wait_for_function(IDLE, polling=200, timeout=90_000)


def settled(pg) -> None:
    """Wait until the page's own first-load chain (decode, then every tab) has finished."""
    pg.wait_for_function("() => document.querySelector('#translation textarea')?.value.length > 0", timeout=90_000)
    rendered_plot(pg, "heatmap")
    idle(pg)


def test_first_load_shows_a_heatmap_and_a_translation(page):
    rendered_plot(page, "heatmap")
    page.wait_for_function("() => document.querySelector('#translation textarea').value.length > 0", timeout=60_000)
    assert page.locator("#heatmap .heatmaplayer, #heatmap .hm").count() >= 1 or page.locator("#heatmap image").count() >= 1


def test_type_translate_slide_and_switch_tabs(page):
    settled(page)
    before = translation(page)
    sentence = "Two men are playing football in the park." if MODEL == "en-de" else "c a b"
    page.locator("#sentence textarea").fill(sentence)
    page.locator("#translate").click()
    expected = "c a b"[::-1] if MODEL != "en-de" else None
    page.wait_for_function(
        "(old) => { const v = document.querySelector('#translation textarea').value; return v && v !== old; }",
        arg=before, timeout=60_000)
    page.wait_for_timeout(500)
    out = translation(page)
    assert out and (expected is None or out == expected)
    if MODEL == "en-de":
        assert "Männer" in out or "Fußball" in out, out
    rendered_plot(page, "heatmap")
    # the step slider drives the step view
    open_tab(page, "Step by step")
    rendered_plot(page, "step-plot")
    number = page.locator("#step input[type=number]")
    number.fill("2")
    number.press("Enter")
    page.wait_for_function(
        "() => [...document.querySelectorAll('#step-plot .gtitle')].some(t => t.textContent.startsWith('Decoding step 2'))",
        timeout=30_000)
    for name in TABS:
        open_tab(page, name)
        page.wait_for_timeout(300)
        assert page.get_by_role("tab", name=name).get_attribute("aria-selected") == "true"
        assert page.locator(".js-plotly-plot:visible").count() >= 1, name
    assert page.errors == []


def test_bertviz_frame_renders(page):
    settled(page)
    page.get_by_text("bertviz views").click()
    frame = page.frame_locator("#bertviz-head iframe")
    frame.locator("svg").first.wait_for(timeout=60_000)
    frame.locator("svg text").nth(3).wait_for(timeout=30_000)  # token labels drawn by d3
    assert frame.locator("#cdn-fallback").count() == 0


def test_bertviz_frame_says_so_when_the_cdn_is_unreachable(browser, server):
    ctx = browser.new_context()
    ctx.route("**/cdnjs.cloudflare.com/**", lambda route: route.abort())
    pg = ctx.new_page()
    pg.goto(server)
    settled(pg)
    pg.get_by_text("bertviz views").click()
    frame = pg.frame_locator("#bertviz-head iframe")
    frame.locator("#cdn-fallback").wait_for(timeout=30_000)
    assert "could not be loaded" in frame.locator("#cdn-fallback").inner_text()
    ctx.close()


def test_script_tokens_fire_no_script_anywhere(page):
    settled(page)
    page.locator("#sentence textarea").fill(EVIL)
    page.locator("#translate").click()
    page.wait_for_function("() => document.querySelector('#translation textarea').value.includes('Hund')"
                           if MODEL == "en-de" else "() => true", timeout=60_000)
    idle(page)
    page.get_by_text("bertviz views").click()
    page.frame_locator("#bertviz-head iframe").locator("svg").first.wait_for(timeout=60_000)
    for name in TABS:
        open_tab(page, name)
        page.wait_for_timeout(400)
    page.wait_for_timeout(1000)
    assert page.dialogs == []
    assert page.evaluate("() => document.querySelectorAll('img[src=\"x\"]').length") == 0
