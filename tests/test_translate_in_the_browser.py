"""Translate in the browser, as a student meets it: the page loads the model into the browser while it is read (the
download shown), then Translate asks the server nothing and shows what the server's Translate would show: the German,
the pieces with their warnings (a loop, "may be wrong" with its words), the views, the step slider sized to the
decode, the patching tab's suggested sentence. What only the server can do (beam search) still goes to the server.
Where the model cannot load, the line says so and Translate goes to the server. Real clicks and keys in Chromium;
the server's answer is computed here, in this process, from the same checkpoint."""

import json
import os

import pytest
from app_server import LOOPING_SENTENCE, MODEL, served
from test_browser import browser  # noqa: F401

from explorer.api.beyond import suggested_corruption
from explorer.api.handlers import tokens_html
from explorer.serving.request import Request
from explorer.serving.store import analysis
from i18n import CATALOGUES

if MODEL != "en-de":
    pytest.skip("the shipped en-de is needed (the browser's model is the page's first)", allow_module_level=True)

EN = CATALOGUES["en"]


@pytest.fixture(scope="module")
def server():
    """The app with the browser's model on (ATTENTION_EXPLORER_BROWSER_MODEL=1: off by default for now)."""
    before = os.environ.get("ATTENTION_EXPLORER_BROWSER_MODEL")
    os.environ["ATTENTION_EXPLORER_BROWSER_MODEL"] = "1"
    try:
        with served() as (_, url):
            yield url
    finally:
        if before is None:
            del os.environ["ATTENTION_EXPLORER_BROWSER_MODEL"]
        else:
            os.environ["ATTENTION_EXPLORER_BROWSER_MODEL"] = before
SENTENCES = ["Why is the sky blue?", "Café 😀 <b>naïve</b> & co", LOOPING_SENTENCE, "A dog is running in the snow."]
# the server's own HTML against what the page shows, both as this browser reads them (quotes, entities; attributes in
# name order: the page's scripts may set one again after Gradio has put it there)
SAME_HTML = """([a, b]) => {
  const norm = (html) => {
    const t = document.createElement("template");
    t.innerHTML = html;
    const walk = (n) => n.nodeType !== 1 ? (n.nodeType === 3 ? n.textContent : "")
      : "<" + n.tagName + [...n.attributes].map((x) => " " + x.name + "=" + JSON.stringify(x.value)).sort().join("") + ">"
        + [...n.childNodes].map(walk).join("") + "</" + n.tagName + ">";
    return [...t.content.childNodes].map(walk).join("");
  };
  return norm(a) === norm(b);
}"""


def text_of(page, selector: str) -> str:
    return page.evaluate("(s) => (document.querySelector(s) || {}).textContent || ''", selector)


def wait_until(page, what, timeout_ms: int = 20000, step_ms: int = 100):
    for _ in range(timeout_ms // step_ms):
        value = what()
        if value:
            return value
        page.wait_for_timeout(step_ms)
    return what()


def test_translate_runs_in_the_browser_and_shows_what_the_server_would(server, browser):  # noqa: F811
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    sent = []  # every request the page makes of the server's event queue, with its body
    page.on("request", lambda r: sent.append(r.post_data or "") if "/gradio_api/" in r.url and r.method == "POST"
            else None)
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")  # a slow school line (2 MB/s): the download takes seconds, and is shown
    cdp.send("Network.emulateNetworkConditions", {"offline": False, "latency": 20, "downloadThroughput": 2e6,
                                                  "uploadThroughput": 1e6})
    page.goto(server)
    loading = wait_until(page, lambda: text_of(page, "#ae-local") if "MB" in text_of(page, "#ae-local") else "")
    assert loading.startswith("Loading the model into this browser:") and " MB" in loading, loading
    assert page.locator("#ae-local progress").is_visible()
    # (read together: the line and the bar's name move on as the bytes come)
    line, name = page.evaluate("() => [document.querySelector('#ae-local .ae-local-text').textContent,"
                               " document.querySelector('#ae-local progress').getAttribute('aria-label')]")
    assert name == line, (line, name)
    ready = wait_until(page, lambda: EN["page.local.ready"] in text_of(page, "#ae-local"), 60000)
    assert ready, text_of(page, "#ae-local")
    assert page.locator("#ae-local [role=status]").inner_text() == EN["page.local.ready"]
    cdp.send("Network.emulateNetworkConditions", {"offline": False, "latency": 0, "downloadThroughput": -1,
                                                  "uploadThroughput": -1})
    box, warnings = page.locator("#sentence textarea"), []
    for text in SENTENCES:
        before = len(sent)
        box.click()
        page.keyboard.press("Control+a")
        page.keyboard.type(text)
        page.keyboard.press("Enter")
        a = analysis(Request.parse(text, MODEL))
        # (until this sentence's German and its status line are on the page: not the sentence before's)
        assert wait_until(page, lambda: page.locator("#translation textarea").input_value() == a.translation and
                          text[:20] in text_of(page, "#status .ae-status") and "Translating" not in text_of(page, "#status"))
        shown = text_of(page, "#status .ae-status")
        assert shown.strip().startswith("Every view below shows"), shown
        # nothing of this sentence went to the server
        assert not [b for b in sent[before:] if json.dumps(text)[1:-1] in b or text in b], sent[before:]
        assert page.locator("#translation textarea").input_value() == a.translation
        html = page.locator("#pieces .ae-pieces").evaluate("(el) => el.outerHTML")
        assert page.evaluate(SAME_HTML, [tokens_html(a), html]), (text, html[:300])
        assert text[:20].replace("<", "") in text_of(page, "#heatmap .gtitle").replace("<", "")  # its views
        warnings.append(page.locator("#pieces .ae-advice").all_inner_texts())
    # not a vacuous comparison: the question and the markup flagged, the loop named and flagged, the dog not
    assert [len(w) for w in warnings] == [1, 1, 2, 0] and "repeats" in warnings[2][0], warnings
    # the last sentence's tabs: a stop of the step slider for each decode step, the patching's sentence swapped
    page.get_by_role("tab", name="Step by step").click()
    steps = wait_until(page, lambda: page.locator("#step input[type=range]").get_attribute("max"))
    assert steps == str(len(a.trace.steps) - 1)
    page.get_by_role("tab", name="Beyond attention").click()
    page.locator("#patch-box").get_by_text(EN["page.beyond.patch_box"]).click()
    swapped = suggested_corruption(SENTENCES[-1], MODEL)
    assert swapped == "A cat is running in the snow."
    assert wait_until(page, lambda: page.locator("#corrupt textarea").input_value() == swapped)

    # beam search is the server's: the same Translate asks it, and shows its answer (the looping sentence, whose beam
    # translation is not its greedy one)
    page.get_by_role("tab", name="Translate & attend").click()
    page.locator("#options").get_by_text("Decoding options").click()
    page.locator("#options").get_by_label("beam", exact=True).check()
    text = LOOPING_SENTENCE
    beam, greedy = (analysis(Request.parse(text, MODEL, m)).translation for m in ("beam", "greedy"))
    assert beam != greedy
    before = len(sent)
    box.click()
    page.keyboard.press("Control+a")
    page.keyboard.type(text)
    page.locator("#translate").click()
    assert wait_until(page, lambda: [b for b in sent[before:] if json.dumps(text)[1:-1] in b or text in b])
    assert wait_until(page, lambda: page.locator("#translation textarea").input_value() == beam and
                      "beam" in text_of(page, "#status .ae-status"))
    page.close()


def test_a_model_that_cannot_load_is_said_and_translate_goes_to_the_server(server, browser):  # noqa: F811
    """The fallback: the model's weights arrive changed (a broken proxy, a file changed on the server), so the worker
    refuses them (their SHA-256 is not the checkpoint's). The line under the controls says Translate uses the server,
    and a sentence typed and translated with Enter is sent to the server and shows its German, pieces and views."""
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    sent = []
    page.on("request", lambda r: sent.append(r.post_data or "") if "/gradio_api/" in r.url and r.method == "POST"
            else None)

    def changed(route):
        body = bytearray(route.fetch().body())
        body[-1] ^= 0xFF
        route.fulfill(status=200, body=bytes(body), headers={"content-type": "application/octet-stream"})
    page.route("**/browser-model/**/model.safetensors*", changed)
    page.goto(server)
    failed = wait_until(page, lambda: EN["page.local.failed"] in text_of(page, "#ae-local"), 60000)
    assert failed, text_of(page, "#ae-local")
    assert page.locator("#ae-local [role=status]").inner_text() == EN["page.local.failed"]
    assert page.locator("#ae-local progress").count() == 0
    text = "The old man feeds the birds in the park."
    a = analysis(Request.parse(text, MODEL))
    box = page.locator("#sentence textarea")
    box.click()
    page.keyboard.press("Control+a")
    page.keyboard.type(text)
    page.keyboard.press("Enter")
    assert wait_until(page, lambda: page.locator("#translation textarea").input_value() == a.translation and
                      text[:20] in text_of(page, "#status .ae-status") and "Translating" not in text_of(page, "#status"),
                      30000), (page.locator("#translation textarea").input_value(), text_of(page, "#status"))
    assert [b for b in sent if json.dumps(text)[1:-1] in b], "the sentence never went to the server"
    html = page.locator("#pieces .ae-pieces").evaluate("(el) => el.outerHTML")
    assert page.evaluate(SAME_HTML, [tokens_html(a), html]), html[:300]
    assert text[:20] in text_of(page, "#heatmap .gtitle")
    page.close()
