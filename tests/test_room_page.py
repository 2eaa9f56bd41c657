"""explorer/classroom/static/class.js under Node with a stub page (issue 33): the teacher's key is dropped only when
the server says the class is gone (404 from /check), never on a stream that failed for another reason (a refused
stream, a busy server, no network)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

CLASS_JS = Path(__file__).resolve().parent.parent / "explorer" / "classroom" / "static" / "class.js"

HARNESS = r"""
const fs = require("fs");
const store = (init) => { const m = new Map(Object.entries(init)); return {
  getItem: (k) => (m.has(k) ? m.get(k) : null), setItem: (k, v) => m.set(k, String(v)), removeItem: (k) => m.delete(k) }; };
function element() {
  const kids = [];
  return { innerHTML: "", textContent: "", classList: { add() {}, remove() {} }, insertAdjacentHTML() {},
    querySelector: () => element(), remove() {}, appendChild: (c) => kids.push(c), click() {} };
}
const elements = {};
global.document = { getElementById: (id) => elements[id] || null, createElement: () => element(), documentElement: element(),
  body: { appendChild: (el) => { elements[el.id] = el; } }, querySelectorAll: () => [] };
const sources = [];
global.EventSource = class { constructor(url) { this.url = url; this.readyState = 0; sources.push(this); }
  addEventListener() {} close() { this.readyState = 2; } };
const answers = JSON.parse(process.argv[3]);  // the statuses /check answers, in turn
const asked = [];
global.fetch = async (url, opts) => { asked.push(url); const status = answers.shift();
  if (status === 0) throw new TypeError("network");
  return { ok: status === 200, status, json: async () => (status === 200 ? { open: true } : { error: "no" }) }; };
global.localStorage = store({ "ae-teach": JSON.stringify({ code: "ABCDEF", key: "secret-key" }) });
global.sessionStorage = store({});
global.window = { AE: { esc: (s) => String(s), t: (key) => key }, location: { search: "", origin: "http://x", pathname: "/" },
  addEventListener() {}, prompt: null };
global.AE = window.AE;
const realTimeout = setTimeout;
global.setTimeout = (fn, ms) => realTimeout(fn, 1);  // retries at once: the test counts them
eval(fs.readFileSync(process.argv[2], "utf8"));
window.AE.room.start();
(async () => {
  const seen = [];
  for (let round = 0; round < JSON.parse(process.argv[3]).length; round++) {
    const es = sources[sources.length - 1];
    es.readyState = 2;  // the stream failed for good (a non-200 answer)
    await es.onerror();
    await new Promise((r) => realTimeout(r, 20));
    seen.push(localStorage.getItem("ae-teach") !== null);
  }
  console.log(JSON.stringify({ kept: seen, asked, streams: sources.length }));
})();
"""


def run(tmp_path, statuses: list[int]) -> dict:
    harness = tmp_path / "harness.js"
    harness.write_text(HARNESS)
    out = subprocess.run(["node", str(harness), str(CLASS_JS), json.dumps(statuses)], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(shutil.which("node") is None, reason="needs Node")
def test_the_teachers_key_survives_a_failed_stream_until_the_server_says_the_class_is_gone(tmp_path):
    got = run(tmp_path, [429, 503, 0, 200, 404])
    # refused, busy, unreachable, there: the key is kept and the stream opened again; gone: the key goes
    assert got["kept"] == [True, True, True, True, False]
    assert all(u.endswith("/ABCDEF/check") for u in got["asked"]) and len(got["asked"]) == 5
    assert got["streams"] == 5  # the first, then one again after each failure that was no end
