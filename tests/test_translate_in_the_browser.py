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
    # Inside a head too: drawn by the server (the browser has no model to draw it with)
    before = len(sent)
    page.get_by_role("tab", name="Inside a head").click()
    assert wait_until(page, lambda: text[:20] in text_of(page, "#inside-plot .gtitle"), 30000), text_of(page, "#inside-plot")
    assert len(sent) > before
    page.close()


# the drawn Inside a head figure as the page holds it (read only: what plotly was given)
INSIDE = """() => { const el = document.querySelector('#inside-plot .js-plotly-plot'); if (!el || !el.data) return null;
  const L = el.layout, list = (a) => (a == null ? null : Array.from(a, (r) => (r && typeof r === 'object' ? Array.from(r) : r)));
  return { title: L.title.text, annotations: L.annotations.map((a) => a.text), meta: L.meta || {},
    ticks: ['yaxis2', 'xaxis3', 'xaxis4', 'yaxis5'].map((k) => list(L[k].ticktext)),
    data: el.data.map((d) => ({ type: d.type, z: list(d.z), y: list(d.y), hovertext: list(d.hovertext), text: list(d.text),
      color: d.marker ? list(d.marker.color) : null, pattern: d.marker && d.marker.pattern ? list(d.marker.pattern.shape) : null,
      colorscale: d.colorscale ? list(d.colorscale) : null })) }; }"""


def same_inside(drawn: dict, server: dict) -> list[str]:
    """What differs between the page's Inside a head figure and the server's for the same values ([] when none):
    words, ticks, colours and the mask exactly; numbers within their 4 significant digits (the two models' float
    error may move the last one), hover numbers within 2e-4."""
    import re

    import numpy as np

    problems = []
    L = server["layout"]
    if drawn["title"].replace("<br>", " ") != L["title"]["text"].replace("<br>", " "):  # (sight.js breaks long titles)
        problems.append(f"title {drawn['title']!r} != {L['title']['text']!r}")
    if drawn["annotations"] != [a["text"] for a in L["annotations"]]:
        problems.append("panel titles")
    if drawn["ticks"] != [L[k].get("ticktext") for k in ("yaxis2", "xaxis3", "xaxis4", "yaxis5")]:
        problems.append(f"ticks {drawn['ticks']} != server's")
    if drawn["meta"].get("aeWords") != L.get("meta", {}).get("aeWords"):
        problems.append("the words of the K and V rows")
    numbers = re.compile(r"-?\d+\.\d+")
    for i, (d, s) in enumerate(zip(drawn["data"], server["data"])):
        values = "z" if s["type"] == "heatmap" else "y"
        got, want = np.asarray(d[values], dtype=float), np.asarray(s[values], dtype=float)
        if got.shape != want.shape or not np.allclose(got, want, rtol=2e-3, atol=1e-6):
            problems.append(f"trace {i} {values}")
        if s["type"] == "heatmap" and [list(c) for c in s["colorscale"]] != d["colorscale"]:
            problems.append(f"trace {i} colours")
        if s["type"] == "bar":
            marker = s["marker"]
            if (d["color"], d["pattern"], d["text"]) != (marker["color"], marker["pattern"]["shape"], s["text"]):
                problems.append(f"trace {i} colours, mask or its words")
            for a, b in zip(d["hovertext"], s["hovertext"]):
                if numbers.sub("#", a) != numbers.sub("#", b) or any(
                        abs(float(x) - float(y)) > 2e-4 for x, y in zip(numbers.findall(a), numbers.findall(b))):
                    problems.append(f"trace {i} hover {a!r} != {b!r}")
    return problems


def test_inside_a_head_is_drawn_in_the_browser_as_the_server_draws_it(server, browser):  # noqa: F811
    """Inside a head, where this browser translated the sentence: opening the tab and every control (attention type,
    layer, head, query token) draw the figure in the page with no request to the server, the same figure as the
    server's for those values (computed here from the same checkpoint), the masked keys of decoder self-attention
    too; a sentence with markup stays text in its title and rows."""
    from explorer.api import handlers
    from viz.compact import plot_value

    page = browser.new_page(viewport={"width": 1280, "height": 800})
    sent = []
    page.on("request", lambda r: sent.append(r.url) if "/gradio_api/" in r.url and r.method == "POST" else None)
    page.goto(server)
    assert wait_until(page, lambda: EN["page.local.ready"] in text_of(page, "#ae-local"), 60000), text_of(page, "#ae-local")
    text = "The <b>old</b> man is reading a newspaper on the bench."
    box = page.locator("#sentence textarea")
    box.click()
    page.keyboard.press("Control+a")
    page.keyboard.type(text)
    page.keyboard.press("Enter")
    req = Request.parse(text, MODEL)
    a = analysis(req)
    assert wait_until(page, lambda: page.locator("#translation textarea").input_value() == a.translation)
    before = len(sent)

    def check(kind: str, layer: int, head: str, query: str) -> dict:
        want = json.loads(plot_value(handlers.inside_head(req, kind, layer, head, query))["plot"])
        start = want["layout"]["title"]["text"][:40]
        # the figure for these values: two query tokens' titles can start alike, so a figure still on its way out
        # (another query's ticks, under a title like this one's) is waited past, not compared
        drawn = wait_until(page, lambda: (lambda d: d if d and d["title"].replace("<br>", " ")[:40] == start
                                          and same_inside(d, want) == [] else None)(page.evaluate(INSIDE)))
        drawn = drawn or page.evaluate(INSIDE)
        assert drawn, (start, drawn)
        assert drawn["title"].replace("<br>", " ")[:40] == start, (start, drawn["title"])
        assert same_inside(drawn, want) == [], (kind, layer, head, query)
        assert sent[before:] == [], sent[before:]  # the server was asked nothing
        assert page.locator("#inside-plot .gtitle").is_visible()
        return drawn

    listed = "(s) => [...document.querySelectorAll('[role=listbox] [role=option]')].filter((e) => e.offsetParent).length"

    def choose(box: str, downs: int) -> str:
        """A dropdown's option chosen with the keys: its list opened, ``downs`` arrows, Enter -> its new value."""
        field = page.locator(f"{box} input[role=combobox]")
        before = field.input_value()
        field.click()
        page.wait_for_function(listed, arg=box, timeout=5_000)
        for _ in range(downs):
            page.keyboard.press("ArrowDown")
        page.keyboard.press("Enter")
        assert wait_until(page, lambda: field.input_value() != before), (box, before)
        return field.input_value()

    page.get_by_role("tab", name="Inside a head").click()
    # the tab opens on the second query token, as the server's does
    second = handlers.query_choices(req, "Encoder self-attention")[1]
    assert second.startswith("1: "), second
    assert wait_until(page, lambda: page.locator("#query input").input_value() == second)
    drawn = check("Encoder self-attention", 0, "head 0", second)
    query = choose("#query", 3)
    drawn = check("Encoder self-attention", 0, "head 0", query)
    assert "<b>" not in drawn["title"] and "&lt;b&gt;old" in drawn["title"]  # (the typed markup, as text)
    # another attention type keeps the query's number, now a German word's (handlers.inside_tab)
    page.locator("#in-kind label", has_text="Decoder self-attention").click()
    n = int(query.split(":")[0])
    same = handlers.query_choices(req, "Decoder self-attention")[n]
    assert wait_until(page, lambda: page.locator("#query input").input_value() == same), same
    drawn = check("Decoder self-attention", 0, "head 0", same)
    masked = drawn["data"][2]["pattern"]  # the keys after the query masked, and only those
    assert masked == [""] * (n + 1) + ["/"] * (len(masked) - n - 1) and len(masked) > n + 1, masked
    layer = page.locator("#in-layer input[type=number]")
    layer.click()
    page.keyboard.press("Control+a")
    page.keyboard.type("2")
    page.keyboard.press("Enter")
    check("Decoder self-attention", 2, "head 0", page.locator("#query input").input_value())
    head = choose("#in-head", 3)
    check("Decoder self-attention", 2, head, page.locator("#query input").input_value())
    page.locator("#in-kind label", has_text="Cross-attention").click()
    assert wait_until(page, lambda: page.evaluate(INSIDE)["title"].startswith("Inside cross"))
    check("Cross-attention", 2, head, choose("#query", 4))
    page.close()


def test_a_following_phone_translates_the_teachers_sentence_itself(server, browser):  # noqa: F811
    """Issue 51: a class's following pages compute the teacher's sentence in their own browsers. A teacher's laptop
    and a student's phone, each with the model loaded, in one class: the teacher types a sentence and presses Enter;
    the phone shows its German, pieces and heatmap, and neither page sent that sentence to the server's queue (the
    room's own message carries the view, as a link would)."""
    pages, sent = [], {}
    try:
        for name, size in (("teacher", {"width": 1280, "height": 800}), ("phone", {"width": 390, "height": 844})):
            ctx = browser.new_context(viewport=size, is_mobile=name == "phone", has_touch=name == "phone")
            pg = ctx.new_page()
            pg.on("dialog", lambda d: d.accept())
            sent[name] = []
            pg.on("request", lambda r, n=name: sent[n].append(r.post_data or "")
                  if "/gradio_api/" in r.url and r.method == "POST" else None)
            pages.append(pg)
        teacher, phone = pages
        teacher.goto(server)
        assert wait_until(teacher, lambda: EN["page.local.ready"] in text_of(teacher, "#ae-local"), 60000)
        teacher.locator("#teach").click()
        code = teacher.locator("#class-code").inner_text(timeout=10_000)
        phone.goto(f"{server}?class={code}")
        phone.locator("#class-banner", has_text="Following the teacher").wait_for(timeout=30_000)
        assert wait_until(phone, lambda: EN["page.local.ready"] in text_of(phone, "#ae-local"), 60000)
        text = "The little girl plays with her red ball."
        a = analysis(Request.parse(text, MODEL))
        box = teacher.locator("#sentence textarea")
        box.click()
        teacher.keyboard.press("Control+a")
        teacher.keyboard.type(text)
        teacher.keyboard.press("Enter")
        assert wait_until(phone, lambda: phone.locator("#translation textarea").input_value() == a.translation and
                          text[:20] in text_of(phone, "#status .ae-status"), 30000), text_of(phone, "#status")
        assert wait_until(phone, lambda: text[:20] in text_of(phone, "#heatmap .gtitle"), 20000)
        html = phone.locator("#pieces .ae-pieces").evaluate("(el) => el.outerHTML")
        assert phone.evaluate(SAME_HTML, [tokens_html(a), html]), html[:300]
        for name in ("teacher", "phone"):  # nothing of the sentence asked of the server by either page
            assert not [b for b in sent[name] if json.dumps(text)[1:-1] in b or text in b], (name, sent[name][-3:])
        assert "Following the teacher" in phone.locator("#class-banner").inner_text()
    finally:
        for pg in pages:
            pg.context.close()
