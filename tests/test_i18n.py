"""The catalogues (i18n/): every key in every language with the same placeholders, every key the code asks
for present, no English a person reads written outside them (tests/i18n_scan.py), German that is German, numbers
written as each language writes them, and the language taken from the page's cookie, then the browser's."""

import json
import re
import string
from pathlib import Path
from types import SimpleNamespace

import i18n_scan
import pytest

import i18n

ROOT = Path(__file__).resolve().parent.parent

# Findings of the scan that are not interface text, each with why (file, start of the text) -> why
NOT_INTERFACE = {
    ("explorer/api/examples.py", ""): "the example sentences are English input for the model, not interface text",
    ("explorer/page/texts.py", "The animal didn't cross"): "an English sentence to translate (Compare's second)",
    ("app.py", "a click copies its sentence"): "why an input is left out of the link state: read by tests",
    ("viz/bertviz_view.py", ""): "bertviz's own page (an English third-party view in a frame), its fallback note",
    ("explorer/api/handlers.py", "every cross-attention head"): "an ablation preset's value (links and the API hold "
                                                                 "it); the page shows it by key (server.preset.*)",
    ("viz/attribution.py", "occlusion (erase"): "a method's value (the API takes it); shown as server.method.*",
    **{("viz/attention.py", start): "the English statistics in the page's data copy, a fallback: the page shows them "
                                    "by name (views.stat.*)" for start in (
        "how spread out", "the weight of the key", "how many positions", "how much a query", "weight on ",
        "the first token", "the English end-of-sentence")},
    ("explorer/classroom/rooms.py", "the teacher"): "a nickname a student may not take (in every language)",
    ("explorer/classroom/rooms.py", "LATIN (?:SMALL"): "a pattern over Unicode's own names of letters, never shown",
    **{("app.py", start): "the command line's usage, read by whoever starts the server (like the log), not on the page"
       for start in ("Attention Explorer (GRADIO", "the port (default", "the address to listen on")},
    **{("explorer/offline/static/offline_worker.js", start): "a broken bundle's error (no such file, a message out of "
                                                             "order), as worker.js's: said inside offline.failed"
       for start in ("the bundle has no", "the model is not loaded", "nothing translated yet", "no message")},
    ("explorer/classroom/redis_store.py", "The class ended."): "the room's stored end, which every page shows by its "
                                                                "key (class.ended.gone) in its own language",
}


def entries(code: str) -> dict[str, str]:
    return {k: v for k, v in i18n.CATALOGUES[code].items() if not k.startswith("==")}


def fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def test_every_key_is_in_every_language_with_the_same_placeholders():
    english = entries("en")
    assert len(english) > 300  # the whole interface, not a start
    for code in i18n.LANGUAGES:
        other = entries(code)
        assert sorted(set(english) - set(other)) == [], f"{code} lacks these keys"
        assert sorted(set(other) - set(english)) == [], f"{code} has keys English lacks"
        wrong = {k: (fields(english[k]), fields(other[k])) for k in english if fields(english[k]) != fields(other[k])}
        assert wrong == {}, f"{code}: placeholders differ"
        empty = [k for k, v in other.items() if not v.strip() and english[k].strip()]
        assert empty == [], f"{code}: empty texts"


def test_the_catalogues_are_valid_json_in_one_file_per_language():
    files = sorted(p.name for p in (ROOT / "i18n").glob("*.json"))
    assert files == [f"{code}.json" for code in sorted(i18n.LANGUAGES)]
    for name in files:
        json.loads((ROOT / "i18n" / name).read_text(encoding="utf-8"))


KEY_USE = re.compile(r"""(?:\bt|\blabel|AE\.t|\bt_)\(\s*["']([a-z_]+\.[A-Za-z0-9_.\-]+)["']""")


def test_every_key_the_code_asks_for_is_in_the_catalogue():
    used = {}
    for path in [*ROOT.glob("app.py"), *(ROOT / "explorer").rglob("*.py"), *(ROOT / "viz").rglob("*.py"),
                 *(ROOT / "explorer").rglob("*.js")]:
        for key in KEY_USE.findall(path.read_text(encoding="utf-8")):
            used.setdefault(key, str(path.relative_to(ROOT)))
    assert len(used) > 100
    english = entries("en")
    missing = {k: where for k, where in used.items() if k not in english and not k.endswith(".")}  # "x." + name: a prefix
    assert missing == {}


def test_no_english_a_person_reads_is_written_outside_the_catalogue():
    def excused(name, text):
        return any(name == f and text.startswith(start) for f, start in NOT_INTERFACE)
    found = [f"{name}:{line}: {text[:80]!r}" for name, line, text in i18n_scan.findings() if not excused(name, text)]
    assert found == [], f"{len(found)} English strings outside the catalogue"


def test_the_scan_finds_english_prose_and_labels_and_leaves_code_alone(tmp_path):
    py = tmp_path / "x.py"
    py.write_text('"""A docstring is for programmers."""\nimport gradio as gr\nA = "Pick a head and see what it does."\n'
                  'B = gr.Slider(label="Layer")\nC = "elem-id"\nD = "SELECT code FROM rooms WHERE code = ?"\n'
                  'raise ValueError("this is for the log")\nE = gr.Button(t("page.go"))\n', encoding="utf-8")
    assert [line for line, _ in i18n_scan.scan_python(py)] == [3, 4]
    js = tmp_path / "x.js"
    js.write_text('// a comment with the words\nconst a = "Tap a cell to see its number";\n'
                  "const b = `Layer ${n} of the ${m}`;\nconst c = s.replace(/the and/g, 'x');\n"
                  'console.log("this is for the log");\nconst d = AE.t("views.title");\n', encoding="utf-8")
    assert [line for line, _ in i18n_scan.scan_js(js)] == [2, 3]


# German that is German: no English function word outside quoted examples and technical names
QUOTED = re.compile(r"“[^”]*”|„[^“]*“|\"[^\"]*\"|<span lang=['\"]?en['\"]?>.*?</span>|<i>.*?</i>|\*\*[^*]+\*\*|\*[^*]+\*|`[^`]*`")


def test_the_german_catalogue_has_no_english_sentences_left():
    german, english = entries("de"), entries("en")
    left = {}
    for key, text in german.items():
        if key.startswith("_meta."):
            continue
        plain = i18n_scan.plain(QUOTED.sub(" ", text))
        words = [w for w in i18n_scan.WORD.findall(plain) if "_" not in w and not w.isupper()]  # not "CC BY"
        if i18n_scan.ENGLISH.search(" ".join(words)):
            left[key] = text[:80]
    assert left == {}
    # a long text copied unchanged is an untranslated one (short names like "BLEU" or "Softmax" may stay)
    same = [k for k, v in german.items() if v == english[k] and len(i18n_scan.WORD.findall(i18n_scan.plain(v))) >= 3]
    assert same == []


def test_numbers_are_written_as_each_language_writes_them():
    with i18n.speaking("en"):
        assert (i18n.num(0.934), i18n.num(1234.5, 1), i18n.pct(0.34)) == ("0.93", "1,234.5", "34%")
    with i18n.speaking("de"):
        assert (i18n.num(0.934), i18n.num(1234.5, 1), i18n.pct(0.34)) == ("0,93", "1.234,5", "34\u00a0%")  # no-break space
    assert i18n.num(0.934) == "0.93"  # outside any page: English


def fake_request(cookie=None, accept=None):
    headers = {"accept-language": accept} if accept else {}
    return SimpleNamespace(cookies={i18n.COOKIE: cookie} if cookie else {}, headers=headers)


@pytest.mark.parametrize("cookie, accept, expected", [
    ("de", None, "de"), ("en", "de-DE,de;q=0.9", "en"), (None, "de-AT,en;q=0.5", "de"), (None, "fr-FR,fr", "en"),
    ("xx", "de", "de"), ("<script>", None, "en"), (None, None, "en")])
def test_an_events_language_is_its_pages_cookie_then_the_browsers(cookie, accept, expected):
    from gradio.context import LocalContext

    token = LocalContext.request.set(fake_request(cookie, accept))
    try:
        assert i18n.lang() == expected
        with i18n.speaking("de"):  # a caller that knows the language decides
            assert i18n.lang() == "de"
    finally:
        LocalContext.request.reset(token)


def test_a_template_fills_its_values_and_a_missing_key_is_a_bug():
    with i18n.speaking("de"):
        assert i18n.t("lang.switching", name="English") == "Wechsle zu English …"
    with pytest.raises(KeyError):
        i18n.t("no.such.key")


def test_a_third_language_is_one_more_file(tmp_path, monkeypatch):
    """Adding a language is adding its file: the loader takes every catalogue beside it, and a key the new file
    lacks falls back to English on the page and in t() (the parity test above names it)."""
    for name in ("en.json", "de.json"):
        (tmp_path / name).write_text((ROOT / "i18n" / name).read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "fr.json").write_text(json.dumps({"_meta.name": "Français", "_meta.decimal": ",",
                                                  "_meta.percent": "{n} %", "lang.switch": "Langue"}), encoding="utf-8")
    monkeypatch.setattr(i18n, "HERE", tmp_path)
    catalogues = i18n._load()
    monkeypatch.setattr(i18n, "CATALOGUES", catalogues)
    assert set(catalogues) == {"en", "de", "fr"}
    assert i18n.known("fr-CA") == "fr"
    with i18n.speaking("fr"):
        assert (i18n.t("lang.switch"), i18n.num(0.5), i18n.t("lang.switching", name="x")) == ("Langue", "0,50",
                                                                                             "Switching to x…")
    assert i18n.page_catalogues()["fr"]["lang.switching"] == "Switching to {name}…"
