// The JS model in a Web Worker, so the page never freezes while it loads or translates. Messages in:
//   { id, kind: "load", base }   base: the model's folder URL ("/browser-model/en-de/")
//   { id, kind: "translate", text }
// Messages out: { id, kind: "progress", loaded, total } while the weights download, then { id, kind: "ready", bytes,
// transferred, ms } (transferred: the bytes that came over the network, 0 when the browser had kept them); { id, kind: "result", page, ms } (page: the page's copy, page_data.js); { id, kind: "error", message }.

import { loadCheckpoint, sourceIds } from "./load.js";
import { pageData } from "./page_data.js";

let loading = null;

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

async function load(id, base) {
  const t0 = performance.now();
  let bytes = 0, config = null;
  const read = async (name) => {
    if (name === "config.json") {
      const b = await fetchBytes(base + name);
      config = JSON.parse(new TextDecoder().decode(b));
      return b;
    }
    const sha = config && config.files && config.files[name] && config.files[name].sha256;
    const progress = name === "model.safetensors" ? (loaded, total) => postMessage({ id, kind: "progress", loaded, total }) : null;
    const b = await fetchBytes(base + name + (sha ? `?v=${sha}` : ""), progress);
    bytes += b.length;
    return b;
  };
  const m = await loadCheckpoint(read);
  // bytes that came over the network (0 for a file the browser had kept: a later visit)
  const folder = new URL(base, location.href).href;
  const transferred = performance.getEntriesByType("resource").filter((r) => r.name.startsWith(folder))
    .reduce((sum, r) => sum + r.transferSize, 0);
  postMessage({ id, kind: "ready", bytes, transferred, ms: performance.now() - t0 });
  return m;
}

onmessage = async (e) => {
  const { id, kind } = e.data;
  try {
    if (kind === "load") {
      loading = loading || load(id, e.data.base);
      await loading;
    } else if (kind === "translate") {
      if (!loading) throw new Error("the model is not loaded");
      const { cfg, model, tokenizer } = await loading;
      const t0 = performance.now();
      const text = String(e.data.text);
      const ids = sourceIds(tokenizer, cfg, text);
      const page = text.trim() ? pageData(model, tokenizer, text, model.greedy(ids)) : null;
      postMessage({ id, kind: "result", page, ms: performance.now() - t0 });
    }
  } catch (err) {
    if (kind === "load") loading = null;  // a failed load may be tried again
    postMessage({ id, kind: "error", message: String((err && err.message) || err) });
  }
};
