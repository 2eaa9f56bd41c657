"""The offline bundle (explorer/offline): ``python -m explorer.offline OUT/`` writes a folder that translates and draws
its views with no server. Its model is the served page's JS model turned into one classic script (held to the ES
modules' own answers in Node.js), and a person uses it from ``file://`` in real Chromium with every network request
refused: keys and clicks only, at a laptop's, a phone's and a projector's size."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from closing import close_within
from test_browser import browser  # noqa: F401  (Chromium; the module is skipped where it is not installed)
from touch import swipe_up

from explorer.browser_model import parity
from explorer.offline.bundle import SIZE_GOAL, BundleError, classic_script, write_bundle

ROOT = Path(__file__).resolve().parents[1]
FOLDER = ROOT / "checkpoints" / "en-de"
SENTENCES = ["A dog is running in the snow.", "Two children are playing football on the beach.",
             "Do you know the girl standing by the window?", "My brother's café opens at 7 o'clock.", "Hi"]
needs_node = pytest.mark.skipif(parity.node() is None, reason="Node.js is not installed (the JS model runs in node)")

# runs model.js as the page does (its one function, then its handler) on files.js's base64 files, in Node.js
BUNDLED = r"""
import { readFileSync } from "node:fs";
import vm from "node:vm";
const dir = process.argv[2], texts = JSON.parse(process.argv[3]);
const ctx = { performance, TextDecoder, TextEncoder, crypto: globalThis.crypto, atob, window: {} };
ctx.globalThis = ctx;
vm.createContext(ctx);
vm.runInContext(readFileSync(dir + "/files.js", "utf8") + readFileSync(dir + "/model.js", "utf8") + "AE_OFFLINE_WORKER();", ctx);
const files = Object.fromEntries(Object.entries(ctx.window.AE_OFFLINE_FILES)
  .map(([k, v]) => [k, new Uint8Array(Buffer.from(v, "base64"))]));
const en = JSON.parse(readFileSync(process.argv[4], "utf8")), out = [];
const post = (m) => out.push(m);
await ctx.AE_OFFLINE_HANDLE({ id: 0, kind: "load", files, catalogue: en, english: en, model: "en-de" }, post);
for (const text of texts) await ctx.AE_OFFLINE_HANDLE({ id: 1, kind: "translate", text, maxLen: 60 }, post);
await ctx.AE_OFFLINE_HANDLE({ id: 2, kind: "inside", attention: "cross", layer: 1, head: 2, query: 1 }, post);
console.log(JSON.stringify(out));
"""


@pytest.fixture(scope="module")
def bundle(tmp_path_factory):
    out = tmp_path_factory.mktemp("offline")
    sizes = write_bundle(out, "en-de")
    return out, sizes


def test_the_bundle_is_a_folder_of_static_files_within_its_size_goal(bundle):
    out, sizes = bundle
    assert sorted(p.name for p in out.iterdir()) == sorted(sizes)
    assert "index.html" in sizes and "plotly.min.js" in sizes
    total = sum(sizes.values())
    assert 5_000_000 < total <= SIZE_GOAL, f"{total / 1e6:.2f} MB"
    html = (out / "index.html").read_text(encoding="utf-8")
    # nothing fetched, nothing imported: classic scripts of the folder only (a file:// page may do nothing else)
    assert "type=\"module\"" not in html and "http" not in html.replace("http-equiv", "")
    files = json.loads((out / "files.js").read_text(encoding="ascii").split("=", 1)[1].rstrip(";\n"))
    assert sorted(files) == ["config.json", "model.safetensors", "spm.model"]


def test_the_command_writes_the_bundle_and_refuses_a_model_in_words(tmp_path):
    done = subprocess.run([sys.executable, "-m", "explorer.offline", str(tmp_path / "b"), "--model", "no-such"],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 2 and "no shipped model 'no-such'" in done.stderr and "en-de" in done.stderr
    assert not (tmp_path / "b").exists()
    done = subprocess.run([sys.executable, "-m", "explorer.offline", str(tmp_path / "b")], capture_output=True,
                          text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "in all: open" in done.stdout and (tmp_path / "b" / "index.html").is_file()


def test_the_classic_script_refuses_what_it_cannot_rewrite(tmp_path):
    (tmp_path / "a.js").write_text('import { b, c as d } from "./b.js";\nexport const e = b + d;\n')
    (tmp_path / "b.js").write_text("export const b = 1, c = 2;\nexport function f() { return 3; }\n")
    script = classic_script(tmp_path / "a.js")
    assert "import" not in script and "export" not in script
    assert "return { b, f, c };" in script and "const { b, c: d } = __m0;" in script
    (tmp_path / "a.js").write_text('import { g } from "./b.js";\n')
    with pytest.raises(BundleError, match="imports g that b.js does not export"):
        classic_script(tmp_path / "a.js")
    for form in ("export default 1;\n", "export let n = 1;\n", 'export { f } from "./b.js";\n'):
        (tmp_path / "a.js").write_text(form)
        with pytest.raises(BundleError, match="cannot rewrite"):
            classic_script(tmp_path / "a.js")


@needs_node
def test_the_bundled_model_answers_as_the_served_pages_modules(bundle, tmp_path):
    """model.js (one classic script) on files.js's base64 files against cli.js (the ES modules the served page's worker
    runs) on the checkpoint's own files: the same German, pieces, attention, steps and logit lens."""
    out, _ = bundle
    script = tmp_path / "bundled.mjs"
    script.write_text(BUNDLED)
    done = subprocess.run([parity.node(), str(script), str(out), json.dumps(SENTENCES), str(ROOT / "i18n" / "en.json")],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    answers = json.loads(done.stdout)
    assert [m["kind"] for m in answers] == ["ready", *["translation"] * len(SENTENCES), "inside"]
    reference = parity.run_js(FOLDER, SENTENCES, "--page")
    for got, want in zip(answers[1:-1], reference):
        data = got["data"]
        assert got["translation"] == want["translation"] and want["translation"]
        for key in ("src", "tgt", "out", "att", "steps", "lens", "pe_sentence", "stats"):
            assert data[key] == want[key], key
        assert data["may_be_wrong"] is None  # (no reverse model in the bundle: the page says the check is not here)
        assert "Output pieces" in got["pieces"]
    inside = answers[-1]["numbers"]
    assert abs(sum(inside["weights"]) - 1) < 1e-5 and len(inside["q"]) == 256 // 4


# ---- a person with the bundle on a tablet, a laptop or a projector: file://, the network refused

SIZES = {"laptop": (1280, 800), "phone": (390, 844), "projector": (1920, 1080), "touch phone": (390, 844, "touch")}


@pytest.fixture
def opened(browser, bundle, request):  # noqa: F811
    """The bundle's page from file:// with every request that is not the folder's own file refused (and listed)."""
    out, _ = bundle
    w, h, *touch = SIZES[getattr(request, "param", "laptop")]
    ctx = browser.new_context(viewport={"width": w, "height": h}, offline=True, has_touch=bool(touch), is_mobile=bool(touch))
    refused, errors = [], []

    def guard(route):
        url = route.request.url
        if url.startswith(("file:", "blob:", "data:")):
            return route.continue_()
        refused.append(url)
        return route.abort()

    ctx.route("**/*", guard)
    pg = ctx.new_page()
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.goto((out / "index.html").as_uri())
    pg.wait_for_function("!document.getElementById('translate').disabled", timeout=90_000)
    yield pg, refused, errors
    close_within(ctx)


def in_sight(pg, selector: str) -> bool:
    box = pg.locator(selector).bounding_box()
    size = pg.viewport_size
    seen = box is not None and box["y"] >= 0 and box["y"] + min(box["height"], 60) <= size["height"] + 1 and \
        box["x"] >= 0 and box["x"] + min(box["width"], 60) <= size["width"]
    assert seen, f"{selector} at {box} in {size}"
    return seen


def label(pg, selector: str) -> str:
    return pg.get_attribute(selector, "aria-label") or ""


def drawn(pg, selector: str, text: str, timeout: float = 20_000) -> None:
    """Waits until the figure is drawn (plotly's svg) and named by a title that says ``text``."""
    pg.wait_for_function("([s, t]) => { const e = document.querySelector(s); return e && e.querySelector('.main-svg')"
                         " && (e.getAttribute('aria-label') || '').includes(t); }", arg=[selector, text], timeout=timeout)


@needs_node
@pytest.mark.parametrize("opened", ["laptop", "phone", "projector"], indirect=True)
def test_a_person_translates_and_opens_every_view_with_the_network_refused(opened):
    pg, refused, errors = opened
    assert "with no network" in pg.inner_text("#status")
    sentence = "The cat sleeps on the sofa."
    want = parity.run_js(FOLDER, [sentence], "--page")[0]["translation"]
    pg.click("#sentence")
    pg.keyboard.press("Control+A")
    pg.keyboard.type(sentence)
    pg.keyboard.press("Enter")
    pg.wait_for_function("document.getElementById('german').textContent.length > 0", timeout=30_000)
    assert pg.inner_text("#german") == want
    assert "Translated in this browser" in pg.inner_text("#status")
    assert "Output pieces" in pg.inner_text("#pieces")
    drawn(pg, "#fig-heatmap", "layer 2")
    assert f"“{sentence}” decoder positions" in label(pg, "#fig-heatmap")
    if pg.viewport_size["width"] >= 1100:  # beside the sentence and its German: whole on the first screen
        box = pg.locator("#fig-heatmap .main-svg").first.bounding_box()
        assert pg.evaluate("scrollY") == 0 and box["y"] >= 0 and box["y"] + box["height"] <= pg.viewport_size["height"], box
    drawn(pg, "#fig-model", sentence)  # (after the heatmap)
    drawn(pg, "#fig-stats", sentence)

    # the plots' toolbars are mouse tools, out of the tab order
    tools = pg.eval_on_selector_all("#panel-attend .modebar-btn", "els => els.map(e => e.getAttribute('tabindex'))")
    assert tools and set(tools) == {"-1"}
    # the heatmap's layer, by keys: the tab, then Tab to the Layer box, then an arrow
    pg.click("#tab-attend")
    pg.keyboard.press("Tab")
    pg.keyboard.press("Tab")
    assert pg.evaluate("document.activeElement.id") == "attend-layer" and in_sight(pg, "#attend-layer")
    pg.keyboard.press("ArrowUp")
    drawn(pg, "#fig-heatmap", "layer 1")

    # Step by step: an arrow on the tab list opens the next tab; the slider moves by keys
    pg.click("#tab-attend")
    pg.keyboard.press("ArrowRight")
    assert pg.evaluate("document.activeElement.id") == "tab-steps" and in_sight(pg, "#tab-steps")
    drawn(pg, "#fig-step", "step 0")
    pg.keyboard.press("Tab")
    assert pg.evaluate("document.activeElement.id") == "steps-at" and in_sight(pg, "#steps-at")
    pg.keyboard.press("ArrowRight")
    drawn(pg, "#fig-step", "step 1")
    assert pg.inner_text("#steps-at-value").startswith("1 / ")

    # Positional encoding: the four figures; the positions typed
    pg.click("#tab-steps")
    pg.keyboard.press("ArrowRight")
    for fig in ("#pe-table", "#pe-waves", "#pe-sim"):
        drawn(pg, fig, "model en-de")
    drawn(pg, "#pe-sentence", sentence)
    assert "50 positions" in label(pg, "#pe-table")
    pg.keyboard.press("Tab")
    assert pg.evaluate("document.activeElement.id") == "pe-len" and in_sight(pg, "#pe-len")
    pg.keyboard.press("Control+A")
    pg.keyboard.type("20")
    pg.keyboard.press("Tab")
    drawn(pg, "#pe-table", "20 positions")

    # Inside a head: one query of one head; another query by keys
    pg.click("#tab-pe")
    pg.keyboard.press("ArrowRight")
    drawn(pg, "#fig-inside", "query #1")
    for _ in range(4):
        pg.keyboard.press("Tab")
    assert pg.evaluate("document.activeElement.id") == "inside-query" and in_sight(pg, "#inside-query")
    pg.keyboard.press("ArrowDown")
    drawn(pg, "#fig-inside", "query #2")

    # the logit lens, then round to the first tab again
    pg.click("#tab-inside")
    pg.keyboard.press("ArrowRight")
    drawn(pg, "#fig-lens", "Logit lens")
    pg.keyboard.press("ArrowRight")
    assert pg.evaluate("document.activeElement.id") == "tab-attend"
    assert not pg.locator("#panel-attend").is_hidden()

    # an example: one tap translates it
    pg.click("#examples button >> nth=0")
    pg.wait_for_function(f"document.getElementById('german').textContent !== {json.dumps(want)}", timeout=30_000)
    drawn(pg, "#fig-heatmap", "Do you know the girl")
    assert in_sight(pg, "#german")  # (below the examples on a phone: brought up)
    assert refused == [] and errors == []


@needs_node
def test_bad_input_is_said_in_words_and_text_stays_text(opened):
    pg, refused, errors = opened
    pg.click("#sentence")
    pg.keyboard.press("Control+A")
    pg.keyboard.press("Delete")
    pg.keyboard.press("Enter")
    assert pg.inner_text("#status") == "Type a sentence first."
    evil = "</script><script>alert(1)</script> <img src=x onerror=alert(2)> dog"
    pg.keyboard.type(evil)
    pg.click("#translate")
    pg.wait_for_function("document.getElementById('german').textContent.length > 0", timeout=30_000)
    assert pg.locator("#result img, #result script, #tabs img").count() == 0
    drawn(pg, "#fig-heatmap", "onerror")  # (the figure's title names the sentence as text)
    pg.click("#sentence")
    pg.keyboard.press("Control+A")
    pg.keyboard.type("Cats sleep. " * 20)  # (239 characters, more pieces than the model is given)
    pg.keyboard.press("Enter")
    pg.wait_for_function("document.getElementById('status').textContent.includes('too long')", timeout=30_000)
    assert pg.inner_text("#status").startswith("That is too long for the model: 81 pieces, at most ")
    pg.keyboard.press("Control+A")
    pg.keyboard.type("a" * 400)
    assert len(pg.input_value("#sentence")) == 300  # (the box takes what the model may be given)
    pg.keyboard.press("Control+A")
    pg.keyboard.type("I love 🍕 and 🐶! 👍🏽")
    pg.keyboard.press("Enter")
    pg.wait_for_function("document.querySelector('#pieces .ae-advice')", timeout=30_000)
    note = pg.inner_text("#pieces .ae-advice")
    assert "repetition loop" in note and "beam search in the full app" in note and "Decoding options" not in note
    pg.keyboard.press("Control+A")
    pg.keyboard.type("I like apples.")
    pg.keyboard.press("Enter")
    pg.wait_for_function("document.getElementById('status').textContent.includes('Translated')", timeout=30_000)
    assert refused == [] and errors == []


@needs_node
def test_the_language_switch_reopens_the_bundle_in_german_with_its_sentence_and_tab(opened):
    pg, refused, errors = opened
    sentence = "Where is the train station?"
    pg.fill("#sentence", sentence)
    pg.click("#translate")
    pg.wait_for_function("document.getElementById('german').textContent.length > 0", timeout=30_000)
    german = pg.inner_text("#german")
    pg.click("#tab-steps")
    pg.click("button[data-lang='de']")
    pg.wait_for_function("document.documentElement.lang === 'de' && document.getElementById('german')"
                         " && document.getElementById('german').textContent.length > 0", timeout=90_000)
    assert pg.inner_text("#title") == "Attention Explorer (ohne Netz)" and pg.inner_text("#translate") == "Übersetzen"
    assert pg.input_value("#sentence") == sentence and pg.inner_text("#german") == german
    assert pg.get_attribute("#tab-steps", "aria-selected") == "true"
    drawn(pg, "#fig-step", "Decodierschritt 0")
    pg.wait_for_function("document.activeElement && document.activeElement.dataset.lang === 'de'", timeout=10_000)
    assert in_sight(pg, "button[data-lang='de']")
    assert refused == [] and errors == []


@needs_node
def test_presses_while_it_translates_end_on_the_sentence_in_the_box(opened):
    pg, refused, errors = opened
    pg.fill("#sentence", "The old man who sells newspapers at the corner near the station told me a long story about his "
                         "grandson, who moved to Berlin last year to study music and now plays the violin every evening.")
    pg.click("#translate")
    assert pg.is_disabled("#translate")  # the first still translating
    pg.click("#examples button >> nth=4")
    example = pg.inner_text("#examples button >> nth=4")
    want = parity.run_js(FOLDER, [example], "--page")[0]["translation"]
    pg.wait_for_function(f"document.getElementById('german').textContent === {json.dumps(want)}", timeout=60_000)
    drawn(pg, "#fig-heatmap", example)
    assert pg.input_value("#sentence") == example
    assert refused == [] and errors == []


@pytest.mark.parametrize("opened", ["touch phone"], indirect=True)
def test_a_swipe_over_a_figure_scrolls_the_page_on_a_touch_screen(opened):
    pg, refused, errors = opened
    pg.tap("#translate")
    drawn(pg, "#fig-heatmap", "layer 2")
    assert pg.locator("#fig-heatmap .modebar").count() == 0  # (no toolbar over the title on a touch screen)
    pg.locator("#fig-heatmap").scroll_into_view_if_needed()
    box = pg.locator("#fig-heatmap").bounding_box()
    x, y = box["x"] + box["width"] / 2, max(box["y"] + 150, 300)
    before = pg.evaluate("scrollY")
    swipe_up(pg, x, y)
    assert pg.evaluate("scrollY") > before + 50  # the page scrolled: the figure neither zoomed nor took the swipe
    assert pg.locator(".notifier-note").count() == 0 and refused == [] and errors == []


@pytest.mark.parametrize("opened", ["laptop", "phone"], indirect=True)
def test_axe_finds_nothing_on_the_bundle(opened):
    axe_sync = pytest.importorskip("axe_playwright_python.sync_playwright")
    pg, _, _ = opened
    pg.click("#translate")
    drawn(pg, "#fig-heatmap", "layer")
    result = axe_sync.Axe().run(pg, options={"runOnly": {"type": "tag", "values": [
        "wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]}})
    assert [f"{v['id']}: {n['target']}" for v in result.response["violations"] for n in v["nodes"]] == []


STOP_TABS = ["attend", "pe", "inside", "attend", "attend", "attend", "steps", "lens"]  # lesson_stops.js's views here
STOP_FIGURES = {"attend": "#fig-heatmap", "pe": "#pe-table", "inside": "#fig-inside", "steps": "#fig-step", "lens": "#fig-lens"}


@needs_node
@pytest.mark.parametrize("opened", ["laptop", "phone"], indirect=True)
def test_a_student_runs_the_guided_lesson_to_its_end_with_no_network(opened):
    """The lesson alone, from the bundle: each stop opens its view, asks before it explains, and the score counts the
    first answers; by keys on a laptop (letters, arrows), by taps on a phone."""
    pg, refused, errors = opened
    phone = pg.viewport_size["width"] < 600
    sentence = pg.input_value("#sentence")
    pg.click("#translate")
    pg.wait_for_function("document.getElementById('german').textContent.length > 0", timeout=30_000)
    pg.click("#lesson-start")
    rights = 0
    for k, tab in enumerate(STOP_TABS):
        pg.wait_for_function("(k) => document.getElementById('lesson-title').textContent.includes(`(stop ${k} of 8)`)",
                             arg=k + 1, timeout=10_000)
        assert pg.evaluate("document.activeElement.id") == "lesson-title" and in_sight(pg, "#lesson-title")
        assert pg.get_attribute(f"#tab-{tab}", "aria-selected") == "true", (k, tab)
        drawn(pg, STOP_FIGURES[tab], "model en-de" if tab == "pe" else sentence)  # (this stop's drawing of it)
        # stop 1 asks how many pieces: they are covered until it is answered
        covered = pg.evaluate("getComputedStyle(document.querySelector('#pieces .ae-src-line')).visibility") == "hidden"
        assert covered == (k == 0)
        assert pg.inner_text("#lesson-feedback") == ""  # asked before it explains
        if k == 6:  # stop 7 asks about one step: the step plot shows it, and again for a new sentence
            for _ in range(2):
                step = re.search(r"At step (\d+) ", pg.inner_text("#lesson-body")).group(1)
                drawn(pg, "#fig-step", f"Decoding step {step}:")
                if sentence.startswith("Two"):
                    break
                sentence = "Two children are playing football on the beach."
                pg.fill("#sentence", sentence)
                pg.press("#sentence", "Enter")
                drawn(pg, "#fig-step", sentence)
            pg.click("#lesson-title")  # (back into the lesson, where its keys act)
        choice = k % 2
        if phone:
            pg.click(f"#lesson-body [data-answer='{choice}']")
        else:
            pg.keyboard.press("AB"[choice])
        said = pg.inner_text("#lesson-feedback")
        assert said.startswith(("Right.", "Not quite")), said
        rights += said.startswith("Right.")
        assert pg.get_attribute(f"#lesson-body [data-answer='{choice}']", "aria-pressed") == "true"
        # ✗ on the answer given where it is wrong, ✓ on the right one (helper 76 saw a wrong answer marked like a right)
        marks = pg.evaluate("[...document.querySelectorAll('#lesson-body [data-answer]')]"
                            ".map((b) => getComputedStyle(b, '::after').content)")
        right = [i for i, m in enumerate(marks) if "✓" in m]
        assert len(right) == 1 and said.startswith("Right.") == (right == [choice]), (marks, said)
        assert [("✗" in m) for m in marks] == [i == choice and right != [choice] for i in range(len(marks))], marks
        if k == 5:  # stop 6 asks about the last layer's mean: the heatmap shows it
            drawn(pg, "#fig-heatmap", "layer 2, mean of 4 heads")
        if phone:
            pg.click("#lesson-nav [data-go='1']")
        else:
            pg.keyboard.press("ArrowRight")
    pg.wait_for_function("document.getElementById('lesson-title').textContent === 'Lesson done'", timeout=10_000)
    assert f"Score: {rights} of 8" in pg.inner_text("#lesson-body")
    assert pg.inner_text("#lesson-body").count("✓") == rights
    pg.click("#lesson-close")
    assert pg.locator("#lesson").is_hidden() and pg.evaluate("document.activeElement.id") == "lesson-start"
    assert refused == [] and errors == []


@needs_node
def test_the_language_switch_keeps_the_lessons_stop_and_answers(opened):
    pg, refused, errors = opened
    pg.click("#translate")
    pg.wait_for_function("document.getElementById('german').textContent.length > 0", timeout=30_000)
    pg.click("#lesson-start")
    pg.keyboard.press("A")
    first = pg.inner_text("#lesson-feedback")
    pg.keyboard.press("ArrowRight")
    pg.wait_for_function("document.getElementById('lesson-title').textContent.includes('(stop 2 of 8)')", timeout=10_000)
    pg.click("button[data-lang='de']")
    pg.wait_for_function("document.documentElement.lang === 'de' && document.getElementById('lesson-title')"
                         " && document.getElementById('lesson-title').textContent.includes('(Station 2 von 8)')",
                         timeout=90_000)
    assert pg.get_attribute("#tab-pe", "aria-selected") == "true"  # (stop 2's view)
    pg.click("#lesson-title")
    for _ in range(7):
        pg.keyboard.press("ArrowRight")
    pg.wait_for_function("document.getElementById('lesson-title').textContent === 'Lektion geschafft'", timeout=10_000)
    recap = pg.inner_text("#lesson-body")
    assert recap.count("✓") + recap.count("✗") == 1  # stop 1's answer, carried over the switch
    assert recap.count("✓") == (1 if first.startswith("Right.") else 0)
    assert refused == [] and errors == []
