// The model in this browser: explorer/browser_model/static/worker.js in a Web Worker, loaded once the page is up
// (its download shown in #ae-local), then Translate asks the server nothing where the browser does all the server's
// Translate does (explorer/page/ui.py translate): the model the page shows, greedy decoding with no departures from
// the paper, the warnings' estimate loaded. It gives what the server gives, made the same way (advice.js, page_data.js:
// held equal by tests/test_browser_model.py): the German, the pieces with their warnings, the page's copy of the
// analysis, its request, the step slider sized, the old sentence's button views cleared, the patching tab's suggested
// sentence. Everything else (another model, beam or sampling, a sentence the server would refuse, a browser without
// module workers, a model loading or failed) goes to the server as before: translate() changes nothing and after()
// presses the hidden #ae-server-translate; a local result presses #ae-local-done, which runs the views' chain.
(function () {
  const AE = window.AE;
  let conf = null;  // window.AE_LOCAL (app.py, explorer/page/local.py; set after this script): { model, base, swaps,
  // cleared, sized, outputs, limits }
  const SKIP = { __type__: "update" };  // (a Gradio update that changes nothing)
  const SPACE = "[\\t\\n\\x0b\\x0c\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]";  // str.isspace
  const EDGES = new RegExp(`^${SPACE}+|${SPACE}+$`, "g");
  let worker = null, state = "off", estimator = false, next = 0, shownAt = 0;
  const waiting = new Map();  // message id -> { resolve, reject }

  function box() { return document.getElementById("ae-local"); }
  // what the line under the controls says: the download (a bar and its MB), then that Translate runs here
  function say(kind, loaded, total) {
    const el = box();
    if (!el) return;
    const mb = (x) => AE.num(x / 1e6, 1);
    if (kind === "loading") {
      if (Date.now() - shownAt < 250 && loaded < total) return;  // (a few redraws a second, not one a chunk)
      shownAt = Date.now();
      const text = total ? AE.t("page.local.loading", { got: mb(loaded), total: mb(total) }) : AE.t("page.local.starting");
      let bar = el.querySelector("progress");
      if (!bar) {
        el.innerHTML = "<span class='ae-local-text'></span> <progress></progress>";
        bar = el.querySelector("progress");
      }
      el.querySelector(".ae-local-text").textContent = text;
      bar.setAttribute("aria-label", text);
      if (total) { bar.max = total; bar.value = loaded; }
      return;
    }
    el.innerHTML = "";
    const line = document.createElement("span");
    line.className = "ae-local-text";
    line.setAttribute("role", "status");
    line.textContent = AE.t(kind === "ready" ? "page.local.ready" : "page.local.failed");
    el.appendChild(line);
  }

  function ask(message, ms) {
    const id = ++next;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => { waiting.delete(id); reject(new Error("timeout")); }, ms);
      waiting.set(id, { resolve: (v) => { clearTimeout(timer); resolve(v); }, reject: (e) => { clearTimeout(timer); reject(e); } });
      worker.postMessage({ id, ...message });
    });
  }

  function start() {
    conf = window.AE_LOCAL || null;
    if (!conf || !conf.model || worker || typeof Worker !== "function") return;
    if (navigator.connection && navigator.connection.saveData) return;  // a metered phone: the server, as before
    try {
      worker = new Worker(conf.base + "worker.js", { type: "module" });
    } catch (e) {
      return;  // no module workers: the server, as before
    }
    state = "loading";
    say("loading", 0, 0);
    worker.onmessage = (e) => {
      const m = e.data;
      if (m.kind === "progress") return say("loading", m.loaded, m.total);
      if (m.kind === "ready") state = "ready";
      // what came over the network (0 for a file the browser kept), for bench/page_cost.py: the model, then the estimate's
      if ((m.kind === "ready" || m.kind === "estimator") && box()) box().dataset[m.kind] = JSON.stringify({ bytes: m.bytes, transferred: m.transferred, ms: m.ms });
      if (m.kind === "estimator") {
        estimator = !!m.ready;
        return say(estimator ? "ready" : "failed");
      }
      if (m.kind === "page") slow = false;  // (a late answer too: the worker has caught up)
      const w = waiting.get(m.id);
      if (!w) return;
      waiting.delete(m.id);
      if (m.kind === "error") w.reject(new Error(m.message)); else w.resolve(m);
    };
    worker.onerror = () => {
      state = "failed";
      say("failed");
      for (const w of waiting.values()) w.reject(new Error("failed"));  // (each to the server at once, not in 10 s)
      waiting.clear();
    };
    const words = (window.AE_I18N || {})[AE.lang] || {}, english = (window.AE_I18N || {}).en || words;
    ask({ kind: "load", base: conf.base + conf.model + "/", catalogue: words, english }, 120000)
      .catch(() => { state = "failed"; say("failed"); });
  }

  // Python's repr of a float where it is plain (0.6, 1.0), else null; str of an int
  function pyFloat(x) {
    const a = Math.abs(x);
    if (!isFinite(x) || (a !== 0 && (a < 1e-4 || a >= 1e16))) return null;
    return Number.isInteger(x) ? x.toFixed(1) : String(x);
  }
  // a value as explorer/serving/request.py number() takes it, or null where the server should say what is wrong
  function number(v, lo, hi, integer, loOpen) {
    if (typeof v !== "number" && typeof v !== "string") return null;
    const x = Number(v);
    if (String(v).trim() === "" || Number.isNaN(x) || (loOpen ? x <= lo : x < lo) || x > hi) return null;
    if (integer && !Number.isInteger(x)) return null;
    return x;
  }

  // the request the server would make of these values (Request.to_json: sorted keys, Python's separators and
  // numbers), or null where only the server can translate them
  function request(text, model, o) {
    const L = conf.limits;
    const f = {
      beam_size: number(o[1], 1, L.max_beam, true), length_penalty: number(o[2], 0, 2), max_len: number(o[3], 1, L.max_output, true),
      temperature: number(o[4], 0, L.max_temperature, false, true), top_k: number(o[5], 0, L.max_top_k, true),
      top_p: number(o[6], 0, 1, false, true), seed: number(o[7], 0, 2 ** 31 - 1, true),
      no_repeat_ngram_size: number(o[8], 0, 0, true), repetition_penalty: number(o[9], 1, 1),
    };
    if (String(o[0]).trim().toLowerCase() !== "greedy" || Object.values(f).some((v) => v === null)) return null;
    const floats = ["length_penalty", "repetition_penalty", "temperature", "top_p"].map((k) => pyFloat(f[k]));
    if (floats.some((v) => v === null)) return null;
    const [lp, rp, temp, tp] = floats;
    const json = `{"ablated": [], "beam_size": ${f.beam_size}, "length_penalty": ${lp}, "max_len": ${f.max_len}, `
      + `"method": "greedy", "model": ${JSON.stringify(model)}, "no_repeat_ngram_size": 0, "repetition_penalty": ${rp}, `
      + `"seed": ${f.seed}, "temperature": ${temp}, "text": ${JSON.stringify(text)}, "top_k": ${f.top_k}, "top_p": ${tp}}`;
    return { json, maxLen: f.max_len };
  }

  // explorer/serving/request.py clean_text, or null where the server should say what is wrong
  function clean(text) {
    if (typeof text !== "string" || [...text].length > conf.limits.max_chars || /\p{Cs}/u.test(text)) return null;
    const out = text.replace(/\p{Cc}/gu, " ").replace(EDGES, "");
    return out || null;
  }

  // Translate (its button, Enter, an example): inputs as ui.translate's and the page's copy; outputs as its. Each
  // press decides, in order, what after() does next: "browser" (its outputs given), "server", or "none" (a newer press
  // came while the worker worked: that one's result is shown, this one's is dropped). Gradio runs a press of a
  // browser-only event at once, however many are in flight, so the order is kept here: a newer press makes an older
  // result stale, and while the server works on a Translate (until its chain ends: serverDone) the next goes there
  // too, behind it (its button's always_last), so an older answer never lands over a newer one
  let calls = 0, serverUntil = 0, slow = false;
  const decided = [];
  async function translate(text, model, ...rest) {
    const call = ++calls;
    const skip = Array((window.AE_LOCAL || {}).outputs || 0).fill(SKIP);
    const server = () => { decided.push(call === calls ? "server" : "none"); return skip; };
    try {
      const bankText = rest.pop(), shown = rest.pop(), options = rest;
      if (state !== "ready" || !estimator || !conf || model !== conf.model || slow || Date.now() < serverUntil) return server();
      const old = JSON.parse(bankText);
      if (JSON.parse(shown).model !== model || !old || !old.pe) return server();
      const sentence = clean(text), req = sentence && request(sentence, model, options);
      if (!req) return server();
      let r;
      try {
        r = await ask({ kind: "page", text: sentence, maxLen: req.maxLen, maxSource: conf.limits.max_source,
                        swaps: conf.swaps, key: req.json }, 10000);
      } catch (e) {
        if (e && e.message === "timeout") slow = true;  // (the worker is behind: the server, until it answers)
        return server();  // (the server translates it, and says what is wrong if anything is)
      }
      if (call !== calls) { decided.push("none"); return skip; }
      const bank = { ...r.data, request: req.json, pe: old.pe };
      decided.push("browser");
      return [r.translation, r.pieces, JSON.stringify(bank), req.json,
              { __type__: "update", maximum: Math.max(r.steps, 1) - 1, value: 0 },
              ...conf.cleared, ...Array(conf.sized).fill(SKIP), r.corrupt];
    } catch (e) {
      return server();  // (anything unforeseen: the server, as before)
    }
  }

  // after Translate's outputs are on the page: the views' chain (a result from the browser) or the server's Translate
  function after() {
    const what = decided.shift() || "server";
    if (what === "none") return;
    if (what === "server") serverUntil = Date.now() + 15000;  // (until its chain ends; at most this long)
    const button = document.getElementById(what === "browser" ? "ae-local-done" : "ae-server-translate");
    if (button) button.click();
  }
  // the server's Translate and its views' chain have ended
  function serverDone() { serverUntil = 0; }

  // Inside a head's numbers (transformer.js inside) for the translation the page shows, where this browser made it
  // (``shown``: its request, as Translate gave it) and the worker still holds it; else null (the server draws it)
  async function inside(shown, attention, layer, head, query) {
    if (state !== "ready" || !worker || typeof shown !== "string") return null;
    try {
      return (await ask({ kind: "inside", key: shown, attention, layer, head, query }, 5000)).numbers;
    } catch (e) {
      return null;
    }
  }

  // (called once the page is up, app.py's load chain: after its first views, when the browser is idle)
  const soon = () => (window.requestIdleCallback ? requestIdleCallback(start, { timeout: 3000 }) : setTimeout(start, 1000));
  AE.local = { translate, after, serverDone, start: soon, inside };
})();
