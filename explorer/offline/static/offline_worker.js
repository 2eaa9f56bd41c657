// The offline bundle's model: the same modules as the served page's worker (explorer/browser_model/static), given its
// files by the page instead of fetching them (a page opened from file:// may not fetch). The bundler (bundle.py)
// turns this module and its imports into one classic script, AE_OFFLINE_WORKER, that the page runs as a Web Worker
// (or, where no worker can start, in place: then ``handle`` is the page's to call).
// Messages in:  { id, kind: "load", files: { "config.json": Uint8Array, "model.safetensors": ..., "spm.model": ... },
//                 catalogue, english }
//               { id, kind: "translate", text, maxLen, maxSource }
//               { id, kind: "inside", attention, layer, head, query }   (of the last translation)
// Messages out: { id, kind: "ready", ms } | { id, kind: "translation", translation, data, pieces, steps, ms }
//               | { id, kind: "inside", numbers } | { id, kind: "error", message }
// ``data`` is the page's copy (page_data.js) with what handlers.py adds (advice.js extras) and no estimate: the
// "may be wrong" check needs the reverse model, which the bundle leaves out. A sentence of more pieces than the
// server takes is an error "pieces N".

import { loadCheckpoint, sourceIds } from "../../browser_model/static/load.js";
import { pageData } from "../../browser_model/static/page_data.js";
import { beside, speaker } from "../../browser_model/static/advice.js";

let loaded = null, words = null, kept = null;

function translate(m, text, maxLen, maxSource) {
  const { cfg, model, tokenizer } = m;
  const ids = sourceIds(tokenizer, cfg, text);
  if (maxSource && ids.length > maxSource) throw new Error(`pieces ${ids.length}`);  // (the page says it in words)
  const r = model.greedy(ids, { maxLen });
  kept = r;
  // no estimate; a repetition loop said for this copy, which has no decoding options to point to
  const said = beside(words, m, m.name, ids, r, null, "offline.loop");
  const data = { ...pageData(model, tokenizer, text, r), ...said.extras };
  return { translation: data.translation, data, steps: r.steps.length, pieces: said.pieces };
}

async function handle(msg, post) {
  const { id, kind } = msg;
  try {
    if (kind === "load") {
      const t0 = performance.now();
      words = speaker(msg.catalogue, msg.english || msg.catalogue);
      const m = await loadCheckpoint(async (name) => {
        if (!msg.files[name]) throw new Error(`the bundle has no ${name}`);
        return msg.files[name];
      });
      loaded = { ...m, name: msg.model || "" };
      post({ id, kind: "ready", ms: performance.now() - t0 });
    } else if (kind === "translate") {
      if (!loaded) throw new Error("the model is not loaded");
      const t0 = performance.now();
      post({ id, kind: "translation", ...translate(loaded, String(msg.text), msg.maxLen, msg.maxSource), ms: performance.now() - t0 });
    } else if (kind === "inside") {
      if (!loaded || !kept) throw new Error("nothing translated yet");
      post({ id, kind: "inside", numbers: loaded.model.inside(kept, msg.attention, msg.layer, msg.head, msg.query) });
    } else {
      throw new Error(`no message ${kind}`);
    }
  } catch (err) {
    post({ id, kind: "error", message: String((err && err.message) || err) });
  }
}

// a worker answers its page; in place, the page calls handle itself
if (typeof WorkerGlobalScope !== "undefined" && self instanceof WorkerGlobalScope) {
  self.onmessage = (e) => handle(e.data, (m) => self.postMessage(m));
} else {
  globalThis.AE_OFFLINE_HANDLE = handle;
}
