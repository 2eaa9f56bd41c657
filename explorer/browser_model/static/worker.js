// The JS model in a Web Worker, so the page never freezes while it loads or translates. Messages in:
//   { id, kind: "load", base }   base: the model's folder URL ("/browser-model/en-de/")
//   { id, kind: "translate", text }
// Messages out: { id, kind: "progress", loaded, total } while the weights download, then { id, kind: "ready", bytes,
// transferred, ms } (transferred: the bytes that came over the network, 0 when the browser had kept them); then,
// the translator usable meanwhile, the "may be wrong" estimate's reverse model and fitted numbers in the background:
// { id, kind: "estimator", ready (false where the model has none or it failed to load), bytes, transferred, ms };
// { id, kind: "result", page, ms } (page: the page's copy, page_data.js), then, the views drawn meanwhile,
// { id, kind: "estimate", estimate, ms } (quality.js's; null until the estimator is ready, or where there is none:
// a reverse pass costs about what the translation did); { id, kind: "error", message }.
// For the page (explorer/page/static/local.js): { id, kind: "load", base, catalogue, english } gives the words the
// warnings are made with (advice.js); { id, kind: "page", text, maxLen, maxSource, swaps } answers { id, kind: "page", translation,
// data (the page's copy and the fields handlers.py adds, the request and positional facts left to the page), pieces,
// steps, corrupt (the sentence with one word swapped for patching, explorer/api/beyond.py), ms }: all the server's
// Translate gives, or an error where the estimate is not ready or the output is empty (the server then translates).
// A "page" message may carry a ``key`` (the request the page shows it by): the worker keeps that translation, and
// { id, kind: "inside", key, attention, layer, head, query } answers { id, kind: "inside", numbers } (transformer.js
// inside: one query of one head) for it, or an error where its key is not the one kept (the server then draws it).

import { loadCheckpoint, sourceIds } from "./load.js";
import { pageData } from "./page_data.js";
import { estimateGreedy, usable } from "./quality.js";
import { beside, speaker } from "./advice.js";
import { PY_SPACE } from "./tokenizer.js";

let loading = null, estimator = null, words = null, name = "";  // estimator: { q, reverse } once loaded
let kept = null;  // { key, r }: the last translation a page message named, for Inside a head

// a file's bytes, with progress for the weights; asked for by its own hash (config.json's), so the browser may keep it
async function fetchBytes(url, onProgress) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  const total = Number(response.headers.get("content-length")) || 0;
  if (!response.body || !onProgress) return new Uint8Array(await response.arrayBuffer());
  const reader = response.body.getReader(), parts = [];
  let loaded = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
    loaded += value.length;
    onProgress(loaded, total);
  }
  const bytes = new Uint8Array(loaded);
  let at = 0;
  for (const p of parts) { bytes.set(p, at); at += p.length; }
  return bytes;
}

// a reader of one checkpoint folder's files for loadCheckpoint, counting their bytes (progress: the weights')
function reader(base, counted, progress) {
  let config = null;
  return async (name) => {
    if (name === "config.json") {
      const b = await fetchBytes(base + name);
      config = JSON.parse(new TextDecoder().decode(b));
      return b;
    }
    const sha = config && config.files && config.files[name] && config.files[name].sha256;
    const b = await fetchBytes(base + name + (sha ? `?v=${sha}` : ""), name === "model.safetensors" ? progress : null);
    counted.bytes += b.length;
    return b;
  };
}

// the estimate's reverse model (base + "reverse/") and fitted numbers (base + "quality.json"), checked against the
// weights they were fitted with; none (a model without them, or a failed load) leaves the estimate to the server
async function loadEstimator(id, base, m) {
  const t0 = performance.now(), counted = { bytes: 0 };
  try {
    const q = JSON.parse(new TextDecoder().decode(await fetchBytes(base + "quality.json")));
    const reverse = await loadCheckpoint(reader(base + "reverse/", counted, null));
    const fitted = usable(q, m.files["model.safetensors"].sha256, reverse.files["model.safetensors"].sha256);
    if (!fitted) throw new Error("the estimate was fitted on other weights");
    estimator = { q: fitted, reverse: reverse.model };
    const rev = new URL(base + "reverse/", location.href).href, fitUrl = new URL(base + "quality.json", location.href).href;
    const transferred = performance.getEntriesByType("resource").filter((r) => r.name.startsWith(rev) || r.name === fitUrl)
      .reduce((sum, r) => sum + r.transferSize, 0);
    postMessage({ id, kind: "estimator", ready: true, bytes: counted.bytes, transferred, ms: performance.now() - t0 });
  } catch (err) {
    postMessage({ id, kind: "estimator", ready: false, message: String((err && err.message) || err), bytes: counted.bytes,
                  ms: performance.now() - t0 });
  }
}

async function load(id, base) {
  const t0 = performance.now(), counted = { bytes: 0 };
  const m = await loadCheckpoint(reader(base, counted, (loaded, total) => postMessage({ id, kind: "progress", loaded, total })));
  const bytes = counted.bytes;
  // bytes that came over the network (0 for a file the browser had kept: a later visit)
  const folder = new URL(base, location.href).href;
  const transferred = performance.getEntriesByType("resource").filter((r) => r.name.startsWith(folder))
    .reduce((sum, r) => sum + r.transferSize, 0);
  postMessage({ id, kind: "ready", bytes, transferred, ms: performance.now() - t0 });
  loadEstimator(id, base, m);  // (not awaited: Translate works meanwhile)
  return m;
}

// explorer/api/beyond.py suggested_corruption: the first swappable word swapped (dog -> cat) where that keeps the
// number of pieces, so patching can line the two runs up; else the sentence itself
function suggested(tokenizer, text, swaps) {
  const count = (s) => tokenizer.encode(tokenizer.constructor.clean(s)).length;
  const n = count(text), list = text.split(PY_SPACE).filter((w) => w);
  for (let i = 0; i < list.length; i++) {
    const w = list[i], core = w.replace(/^[.,;:!?"']+|[.,;:!?"']+$/g, "");
    const key = core.toLowerCase();
    let swap = Object.prototype.hasOwnProperty.call(swaps, key) ? swaps[key] : null;  // ("constructor": not a swap)
    if (!swap) continue;
    if (core[0] && core[0] !== core[0].toLowerCase() && core[0] === core[0].toUpperCase()) swap = swap[0].toUpperCase() + swap.slice(1).toLowerCase();
    const candidate = [...list.slice(0, i), w.replace(core, swap), ...list.slice(i + 1)].join(" ");
    if (count(candidate) === n) return candidate;
  }
  return text;
}

// all the page shows of one translation (see the top)
function page(m, text, maxLen, maxSource, swaps, key) {
  if (!estimator) throw new Error("the estimate is not ready");
  if (!words) throw new Error("no words to warn with");
  const { cfg, model, tokenizer } = m;
  const ids = sourceIds(tokenizer, cfg, text);
  if (maxSource && ids.length > maxSource) throw new Error("too many pieces for the server's limit");
  const r = model.greedy(ids, { maxLen });
  if (!r.ids.length) throw new Error("the translation is empty");
  kept = key ? { key, r } : null;
  const est = estimateGreedy(estimator.q, model, tokenizer, estimator.reverse, ids, r);
  const said = beside(words, m, name, ids, r, est);
  const data = { ...pageData(model, tokenizer, text, r), ...said.extras };
  return { translation: data.translation, data, steps: r.steps.length, corrupt: suggested(tokenizer, text, swaps),
           pieces: said.pieces };
}

onmessage = async (e) => {
  const { id, kind } = e.data;
  try {
    if (kind === "load") {
      if (e.data.catalogue) words = speaker(e.data.catalogue, e.data.english || e.data.catalogue);
      name = String(e.data.base).replace(/\/+$/, "").split("/").pop();
      loading = loading || load(id, e.data.base);
      await loading;
    } else if (kind === "page") {
      if (!loading) throw new Error("the model is not loaded");
      const m = await loading, t0 = performance.now();
      postMessage({ id, kind: "page", ...page(m, String(e.data.text), e.data.maxLen, e.data.maxSource, e.data.swaps || {}, e.data.key),
                    ms: performance.now() - t0 });
    } else if (kind === "inside") {
      if (!loading) throw new Error("the model is not loaded");
      const { model } = await loading;
      if (!kept || kept.key !== e.data.key) throw new Error("not this translation");
      postMessage({ id, kind: "inside", numbers: model.inside(kept.r, e.data.attention, e.data.layer, e.data.head, e.data.query) });
    } else if (kind === "translate") {
      if (!loading) throw new Error("the model is not loaded");
      const { cfg, model, tokenizer } = await loading;
      const t0 = performance.now();
      const text = String(e.data.text);
      const ids = sourceIds(tokenizer, cfg, text);
      const r = text.trim() ? model.greedy(ids) : null;
      postMessage({ id, kind: "result", page: r ? pageData(model, tokenizer, text, r) : null, ms: performance.now() - t0 });
      const t1 = performance.now();
      const estimate = r && estimator ? estimateGreedy(estimator.q, model, tokenizer, estimator.reverse, ids, r) : null;
      postMessage({ id, kind: "estimate", estimate, ms: performance.now() - t1 });
    }
  } catch (err) {
    if (kind === "load") loading = null;  // a failed load may be tried again
    postMessage({ id, kind: "error", message: String((err && err.message) || err) });
  }
};
