"""The JavaScript model (explorer/browser_model/static) gives PyTorch's answers on the shipped en-de: the same source
pieces, the same greedy translation, the same attention weights and step probabilities, run in Node.js on the
checkpoint's own int8 files. 200 Tatoeba val sentences where the data is beside the project, else 200 made-up ones
(a user's clone); the tokenizer on 1,000 made-up strings (accents, emoji, odd spaces, long words, empty)."""

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from explorer.browser_model import parity
from model.translator import load_pretrained
from training.data import CORPORA, read_split

HERE = Path(__file__).resolve().parent
EN_DE = HERE.parent / "checkpoints" / "en-de"

pytestmark = pytest.mark.skipif(parity.node() is None, reason="Node.js is not installed (the JS model runs in node)")


@pytest.fixture(scope="module")
def translator():
    return load_pretrained("en-de")


def sentences(n: int) -> list[str]:
    if CORPORA["tatoeba"].default_dir.is_dir():
        return read_split(None, "val", corpus="tatoeba")[0][:n]
    typed = [s["text"] for s in json.loads((HERE / "typed_sentences.json").read_text())]
    return (typed + parity.made_up_sentences(n))[:n]


def test_the_js_model_translates_as_pytorch_does_with_the_same_attention(translator):
    texts = sentences(200)
    rows = parity.compare(translator, EN_DE, texts)
    assert len(rows) == 200
    assert [r.text for r in rows if not r.same_pieces] == []
    differ = [(r.text, r.js, r.torch) for r in rows if not r.same_output]
    assert len(differ) <= 1, differ  # the goal: >= 99.5% the same
    assert max(r.attention_diff for r in rows) <= 1e-3
    assert max(r.prob_diff for r in rows) <= 1e-3
    # not a vacuous pass: real translations, several words long
    assert sum(len(r.js.split()) >= 3 for r in rows) >= 150


def test_the_js_tokenizer_cuts_every_made_up_string_as_sentencepiece_does(translator):
    texts = parity.made_up_strings(1000)
    assert any("😀" in t for t in texts) and "" in texts and any("\u3000" in t for t in texts)
    assert parity.token_parity(translator, EN_DE, texts) == []


def test_the_pages_copy_made_in_js_is_the_servers(translator):
    """What the browser's views draw (viz/page_data.py), made from the JS model: labels, per-mille weights, head
    statistics, steps, logit lens, positional sizes. With a sentence long enough to stop at the length limit, one
    with emoji (byte pieces) and one with markup to escape."""
    loop = "la la " * 20  # 41 source ids: its translation repeats to the length limit (2 x 41 + 10) with no EOS
    texts = sentences(12) + ["Café 😀 naïve <b>résumé</b> & co", loop]
    assert parity.page_parity(translator, EN_DE, texts) == []
    run = parity.run_js(EN_DE, [loop], "--page")[0]
    assert len(run["steps"]) == 2 * 41 + 10 and len(run["tgt"]) == 93
    assert "[EOS]" not in [step["chosen"] for step in run["steps"]]


def test_the_may_be_wrong_estimate_made_in_js_is_the_servers(translator):
    """The warning's estimate (quality.js with the reverse model run in JS) against model/quality.py's: the same
    flag, the same words named, the probability and every signal within float error. With a question the model
    turns into another ("Why is the sky blue?": flagged, "blue" missing), a sentence that stops at the length
    limit with no EOS, and byte pieces."""
    texts = sentences(100) + ["Why is the sky blue?", "la la " * 20, "Café 😀 naïve <b>résumé</b> & co"]
    rows = parity.estimate_parity(translator, EN_DE, texts)
    assert len(rows) == len(texts)
    compared = [r for r in rows if r.same_output]
    assert len(compared) >= len(texts) - 1
    assert [r.text for r in compared if not r.same_flag or not r.same_words] == []
    assert max(r.prob_diff for r in compared) <= 1e-4
    assert max(r.feature_diff for r in compared) <= 1e-3
    # not a vacuous pass: some flagged, some not, the question among the flagged
    flagged = [r.text for r in compared if r.flagged]
    assert "Why is the sky blue?" in flagged and 0 < len(flagged) < len(compared)


def pieces_problems(translator, folder: Path, texts: list[str], lang: str) -> list[str]:
    """What the JS says beside a translation (advice.js: the warnings, the pieces' HTML, the page copy's fields
    handlers.py adds) against the server's, in the language ``lang``, on the same sentences (non-empty ones, whose
    greedy outputs agree): every difference, named. Probabilities are compared to within the rounding they are shown
    with."""
    from explorer.api.advice import advice, may_be_wrong, unsure
    from explorer.api.handlers import tokens_html
    from explorer.api.task_words import FIELDS, task_key
    from i18n import speaking

    name, problems = Path(folder).name, []
    for text, js in zip(texts, parity.run_js(folder, texts, f"--pieces {lang}")):
        a = translator.analyze(text)
        if js is None or js.get("extras") is None:
            problems.append(f"{text!r}: no answer from JS")
            continue
        with speaking(lang):
            notes, html_, est, uns = advice(a), tokens_html(a), may_be_wrong(a), unsure(a)
        if js["notes"] != notes:
            problems.append(f"{text!r}: warnings {js['notes']!r} != {notes!r}")
        if js["pieces"] != html_:
            at = next((i for i, (x, y) in enumerate(zip(js["pieces"], html_)) if x != y), min(len(html_), len(js["pieces"])))
            problems.append(f"{text!r}: pieces differ at {at}: {js['pieces'][at - 40:at + 40]!r} != {html_[at - 40:at + 40]!r}")
        x = js["extras"]
        m = x["may_be_wrong"]
        if m is None or est is None or (m["flagged"], m["words"], m["missing"], m["dropped"]) != (
                est.flagged, list(est.words), list(est.missing), list(est.dropped)) or abs(m["p"] - est.probability) > 1.5e-3:
            problems.append(f"{text!r}: may_be_wrong {m!r} != {est!r}")
        if [u["word"] for u in x["unsure"]] != [u["word"] for u in uns] or any(
                abs(u["p"] - v["p"]) > 1e-5 for u, v in zip(x["unsure"], uns)):
            problems.append(f"{text!r}: unsure {x['unsure']!r} != {uns!r}")
        task = translator.task
        keys = {f: task_key(name, f, getattr(task, f)) for f in FIELDS}
        if (x["note"], x["task"], x["task_keys"]) != (a.note, {"source": task.source, "target": task.target}, keys):
            problems.append(f"{text!r}: note, task or task_keys {x['note']!r} {x['task']!r} {x['task_keys']!r}")
    return problems


@pytest.mark.parametrize("lang", ["en", "de"])
def test_what_the_js_says_beside_a_translation_is_the_servers(translator, lang):
    """advice.js against the server, string for string in each language: the warnings (a loop, "may be wrong" with
    the words named), the pieces' HTML (chips shaded, the named words outlined, markup escaped) and the page copy's
    fields handlers.py adds (the estimate, the unsure words, the task's names)."""
    special = ["Why is the sky blue?", "The the the the the the the the the the.", "Café 😀 naïve <b>résumé</b> & co",
               "la la " * 20]
    assert pieces_problems(translator, EN_DE, sentences(20) + special, lang) == []
    # not a vacuous pass: the question flagged with its words, the repetition named as a loop, markup escaped
    quantum = "Quantum chromodynamics describes the strong interaction between quarks."
    why, loop, markup, far = parity.run_js(EN_DE, special[:3] + [quantum], f"--pieces {lang}")
    assert why["extras"]["may_be_wrong"]["flagged"] and len(why["notes"]) == 1 and "blue" in why["notes"][0]
    assert far["extras"]["may_be_wrong"]["words"] and "outline:2px solid" in far["pieces"]
    assert len(loop["notes"]) == 2 and "ae-advice" in loop["pieces"]
    assert "&lt;b&gt;" in markup["pieces"] and "<b>résumé" not in markup["pieces"]


NO_WEB_CRYPTO = ["--import", "data:text/javascript,delete globalThis.crypto"]  # as Node.js 18, or a page over plain HTTP


@pytest.mark.parametrize("crypto", [[], NO_WEB_CRYPTO], ids=["web crypto", "its own SHA-256"])
def test_a_weights_file_not_the_checkpoints_own_is_refused(tmp_path, crypto):
    for name in ("config.json", "model.safetensors", "spm.model"):
        shutil.copy(EN_DE / name, tmp_path / name)
    run = [parity.node(), *crypto, str(parity.CLI), str(tmp_path)]
    intact = subprocess.run(run, input='"A dog."\n', capture_output=True, text=True, timeout=60)
    assert intact.returncode == 0 and json.loads(intact.stdout)["text"]  # the same files, untouched: it translates
    data = bytearray((tmp_path / "model.safetensors").read_bytes())
    data[-1] ^= 1  # one bit of the last weight
    (tmp_path / "model.safetensors").write_bytes(bytes(data))
    done = subprocess.run(run, input='"A dog."\n', capture_output=True, text=True, timeout=60)
    assert done.returncode != 0 and done.stdout == ""
    assert "model.safetensors: SHA-256" in done.stderr


def test_its_own_sha256_is_hashlibs(tmp_path):
    """sha256.js (where the browser has no crypto.subtle) against Python's hashlib: every length across the padding's
    edges (55, 56, 64 bytes...) and the real weights file."""
    import hashlib

    blobs = [bytes((i * 7 + n) % 256 for i in range(n)) for n in range(0, 140)]
    (tmp_path / "blobs.json").write_text(json.dumps([list(b) for b in blobs]))
    script = (f"import {{ sha256Hex }} from {json.dumps((parity.CLI.parent / 'sha256.js').as_uri())};"
              "import { readFileSync } from 'node:fs';"
              f"const blobs = JSON.parse(readFileSync({json.dumps(str(tmp_path / 'blobs.json'))}, 'utf8'));"
              "const out = blobs.map((b) => sha256Hex(new Uint8Array(b)));"
              f"out.push(sha256Hex(new Uint8Array(readFileSync({json.dumps(str(EN_DE / 'model.safetensors'))}))));"
              "console.log(JSON.stringify(out));")
    done = subprocess.run([parity.node(), "--input-type=module", "-e", script], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    want = [hashlib.sha256(b).hexdigest() for b in blobs] + [
        json.loads((EN_DE / "config.json").read_text())["files"]["model.safetensors"]["sha256"]]
    assert json.loads(done.stdout) == want


def test_inside_a_head_made_in_js_is_the_servers(translator):
    """Inside a head's numbers (q, k, v, the scores, the mask, the weights, the output) made by the JS model against
    viz/head.py's on the server's analysis: every kind, layer and head at the first, middle and last query, for
    sentences of the data, one with byte pieces and one that stops at the length limit with no EOS."""
    texts = sentences(16) + ["Café 😀 naïve <b>résumé</b> & co", "la la " * 20]
    assert parity.inside_parity(translator, EN_DE, texts, tol=1e-4) == []
    # not a vacuous pass: the decoder's mask is there (a later key masked) and the rows are the real ones
    run = parity.run_js(EN_DE, texts[:1], "--inside")[0]
    kinds = {h["kind"] for h in run["heads"]}
    assert kinds == {"encoder", "decoder", "cross"}
    first = [h for h in run["heads"] if h["kind"] == "decoder" and h["query"] == 0][0]
    assert first["masked"][0] is False and all(first["masked"][1:]) and len(first["masked"]) > 3
    assert abs(sum(first["weights"]) - 1) < 1e-5 and abs(first["weights"][0] - 1) < 1e-6
