"""Benchmark: the JavaScript model (explorer/browser_model/static, run in Node.js) against PyTorch on the shipped
en-de: parity on Tatoeba val (pieces, greedy output, attention weights, step probabilities), the tokenizer on
made-up strings, and the time of one Translate (greedy with every attention map kept) in each, medians.

    python bench/browser_model.py [--sentences 2000] [--strings 1000] [--threads 1]
    python bench/browser_model.py --browser [--repeats 20]   # in Chromium's Web Worker instead

Lists every sentence whose output differs, with both outputs. ``--browser`` starts the app in this process and, in
headless Chromium at 1280x800 and at 390x844 with the page's CPU throttled 4x (DevTools; the worker is not slowed by
it: its times come out the same), loads the worker from /browser-model/ (first visit: bytes over the network and time
to ready; a second visit from the browser's cache) and times --repeats translations to the page's copy inside the
worker (medians; the page does not draw from it yet).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from explorer.browser_model import parity  # noqa: E402
from model.translator import DecodeOptions, load_pretrained  # noqa: E402
from training.data import read_split  # noqa: E402

EN_DE = Path(__file__).resolve().parent.parent / "checkpoints" / "en-de"


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--sentences", type=int, default=2000)
    p.add_argument("--strings", type=int, default=1000)
    p.add_argument("--threads", type=int, default=1, help="PyTorch's threads (the JS model runs on one)")
    p.add_argument("--tatoeba-dir", default=None)
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    tr = load_pretrained("en-de")
    texts = read_split(args.tatoeba_dir, "val", corpus="tatoeba")[0][: args.sentences]

    t0 = time.perf_counter()
    rows = parity.compare(tr, EN_DE, texts)
    print(f"parity on {len(rows)} Tatoeba val sentences ({time.perf_counter() - t0:.0f} s)")
    same_pieces = sum(r.same_pieces for r in rows)
    same_out = sum(r.same_output for r in rows)
    print(f"  source pieces identical: {same_pieces}/{len(rows)}")
    print(f"  greedy output identical: {same_out}/{len(rows)} ({100 * same_out / len(rows):.2f}%, goal >= 99.5%)")
    print(f"  attention weights, largest |JS - PyTorch|: {max(r.attention_diff for r in rows):.2e} (goal <= 1e-3)")
    print(f"  chosen probability, largest |JS - PyTorch|: {max(r.prob_diff for r in rows):.2e}")
    for r in rows:
        if not r.same_output:
            print(f"  differs: {r.text!r}\n    JS:      {r.js!r}\n    PyTorch: {r.torch!r}")

    # the "may be wrong" estimate in JS (quality.js, the reverse model run in JS) against model/quality.py's
    t0 = time.perf_counter()
    est = parity.estimate_parity(tr, EN_DE, texts)
    compared = [r for r in est if r.same_output]
    print(f"the may-be-wrong estimate on {len(est)} sentences ({time.perf_counter() - t0:.0f} s), "
          f"{len(compared)} with the same output:")
    print(f"  flag identical: {sum(r.same_flag for r in compared)}/{len(compared)} "
          f"(flagged by PyTorch: {sum(r.flagged for r in compared)})")
    print(f"  words named identical: {sum(r.same_words for r in compared)}/{len(compared)}")
    print(f"  probability, largest |JS - PyTorch|: {max(r.prob_diff for r in compared):.2e}; "
          f"a feature's: {max(r.feature_diff for r in compared):.2e}")
    for r in compared:
        if not (r.same_flag and r.same_words):
            print(f"  differs: {r.text!r} (probability off by {r.prob_diff:.2e})")

    strings = parity.made_up_strings(args.strings)
    bad = parity.token_parity(tr, EN_DE, strings)
    print(f"tokenizer on {len(strings)} made-up strings: {len(strings) - len(bad)} identical")
    for text, js, py in bad:
        print(f"  differs: {text!r}\n    JS: {js}\n    SentencePiece: {py}")

    # one Translate each: JS greedy keeping every map (Node's own clock) vs the server's greedy + capture pass
    sample = texts[:100]
    js_ms = [r["ms"] for r in parity.run_js(EN_DE, sample, "--no-attention")]
    torch_ms = []
    for text in sample:
        t = time.perf_counter()
        out, _ = tr._decode(tr._src_ids(text), DecodeOptions())
        tr._forced_ids(tr._src_ids(text), out)
        torch_ms.append(1000 * (time.perf_counter() - t))
    est_ms = [r["ms"] for r in parity.run_js(EN_DE, sample, "--estimate")]  # greedy + maps + the reverse pass
    js_med, torch_med = statistics.median(js_ms), statistics.median(torch_ms)
    print(f"one Translate, median of {len(sample)} (Node.js {sys.platform}, one thread; PyTorch {args.threads} thread):")
    print(f"  JS model:  {js_med:.1f} ms   PyTorch greedy + capture: {torch_med:.1f} ms   ratio {js_med / torch_med:.2f}")
    print(f"  JS model with the may-be-wrong estimate: {statistics.median(est_ms):.1f} ms")


WORKER = """async ([texts]) => {
  const w = new Worker("/browser-model/worker.js", { type: "module" });
  // (the estimator's message comes after ready, on its own: waited for, so each Translate carries its estimate)
  const ask = (m, kinds) => new Promise((done) => {
    w.onmessage = (e) => { if (kinds.includes(e.data.kind)) done(e.data); };
    if (m) w.postMessage(m);
  });
  const t0 = performance.now();
  const ready = await ask({ id: 1, kind: "load", base: "/browser-model/en-de/" }, ["ready", "error"]);
  ready.wall = performance.now() - t0;
  const estimator = await ask(null, ["estimator"]);  // (set up in the same task as ready's: none is missed)
  ready.estimator = { ready: estimator.ready, bytes: estimator.bytes, wall: performance.now() - t0 };
  const ms = [], estimated = [];
  for (const text of texts) {
    const t = performance.now(), r = await ask({ id: 2, kind: "translate", text }, ["result", "error"]);
    if (r.kind !== "result") throw new Error(r.message);
    ms.push(performance.now() - t);  // the page's clock: the message there and back included
    const est = await ask(null, ["estimate"]);  // (set up in the same task as the result's)
    if (!est.estimate) throw new Error("no estimate");
    estimated.push(performance.now() - t);
  }
  w.terminate();
  return { ready, ms, estimated };
}"""


def in_browser(repeats: int) -> None:
    from playwright.sync_api import sync_playwright

    sys.path[:0] = [str(EN_DE.parent.parent / "tests"), str(EN_DE.parent.parent / "bench")]
    from app_server import served
    from page_cost import SCREENS, SENTENCES
    from test_browser import CHROMIUM

    texts = (SENTENCES * (repeats // len(SENTENCES) + 1))[:repeats]
    with served() as (_, url), sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        for name, screen in SCREENS.items():
            ctx = browser.new_context(**{k: v for k, v in screen.items() if k != "throttle"})
            for visit in ("first visit", "second visit"):
                page = ctx.new_page()
                page.goto(url + "browser-model/worker.js")
                cdp = ctx.new_cdp_session(page)
                cdp.send("Emulation.setCPUThrottlingRate", {"rate": screen["throttle"]})
                r = page.evaluate(WORKER, [texts])
                print(f"{name}, {visit}: ready in {r['ready']['wall']:.0f} ms, "
                      f"{r['ready']['transferred'] / 1e6:.2f} MB over the network; the estimate's reverse model "
                      f"{r['ready']['estimator']['bytes'] / 1e6:.2f} MB, ready at {r['ready']['estimator']['wall']:.0f} "
                      f"ms; translate to the page's copy: median {statistics.median(r['ms']):.1f} ms "
                      f"(min {min(r['ms']):.1f}, max {max(r['ms']):.1f}) of {len(r['ms'])}, its estimate "
                      f"{statistics.median(r['estimated']):.1f} ms")
                page.close()
            ctx.close()
        browser.close()


if __name__ == "__main__":
    if "--browser" in sys.argv:
        q = argparse.ArgumentParser()
        q.add_argument("--browser", action="store_true")
        q.add_argument("--repeats", type=int, default=20)
        in_browser(q.parse_args().repeats)
    else:
        main()
