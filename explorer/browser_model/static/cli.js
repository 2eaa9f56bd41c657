// Node: node cli.js CHECKPOINT_DIR [--no-attention | --tokens | --page | --inside | --estimate | --pieces LANG] < sentences (one JSON string a line) -> one JSON object a line:
// { ids (source, EOS last), out (greedy, no BOS/EOS), text, p (each step's chosen probability),
//   encoder / self / cross: each layer's weights (H, rows, cols) as flat lists, ms (the decode's time) };
// --estimate: { out, estimate (quality.js: probability, flagged, words, missing, dropped, features), ms } with the
// checkpoint's reverse model (CHECKPOINT_DIR/reverse) and metrics.json's "quality"; --pieces LANG: { notes, pieces,
// extras } (advice.js: the warnings, the pieces' HTML and the page copy's other fields, in i18n/LANG.json's words);
// --inside: { ids, out, heads: [{ kind, layer, head, query, q, k, v, raw, masked, weights, output }] } (Inside a head).
// Used by tests/test_browser_model.py and bench/browser_model.py to compare with PyTorch.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { loadCheckpoint, sourceIds } from "./load.js";
import { pageData } from "./page_data.js";
import { estimateGreedy, usable } from "./quality.js";
import { beside, speaker } from "./advice.js";

const folder = process.argv[2];
const attentions = !process.argv.includes("--no-attention");
const tokensOnly = process.argv.includes("--tokens");  // the source ids alone: the tokenizer's parity
const page = process.argv.includes("--page");  // the page's copy of each translation (page_data.js)
const insides = process.argv.includes("--inside");  // Inside a head: every kind, layer and head, at queries 0, middle, last
const speaking = process.argv.includes("--pieces") ? process.argv[process.argv.indexOf("--pieces") + 1] : null;
const estimating = process.argv.includes("--estimate") || speaking !== null;
const reader = (dir) => async (name) => new Uint8Array(readFileSync(join(dir, name)));
const { cfg, task: card, files, model, tokenizer } = await loadCheckpoint(reader(folder));
let quality = null, reverse = null;
if (estimating) {
  reverse = await loadCheckpoint(reader(join(folder, "reverse")));
  quality = usable(JSON.parse(readFileSync(join(folder, "metrics.json"), "utf8")).quality,
                   files["model.safetensors"].sha256, reverse.files["model.safetensors"].sha256);
  if (!quality) throw new Error("metrics.json has no quality estimate for these weights and this reverse model");
}
// --pieces: the catalogue's words, read once (not once a sentence)
const catalogue = (code) => JSON.parse(readFileSync(new URL(`../../../i18n/${code}.json`, import.meta.url), "utf8"));
const english = speaking ? catalogue("en") : null;
const w = speaking ? speaker(speaking === "en" ? english : catalogue(speaking), english) : null;
const round = (a) => Array.from(a, (x) => Math.round(x * 1e6) / 1e6);
for await (const line of createInterface({ input: process.stdin })) {
  if (!line.trim()) continue;
  const text = JSON.parse(line);
  const t0 = performance.now();
  const ids = sourceIds(tokenizer, cfg, text);
  if (tokensOnly) { process.stdout.write(JSON.stringify({ ids }) + "\n"); continue; }
  const r = text.trim() ? model.greedy(ids) : null;
  const ms = performance.now() - t0;
  if (page) { process.stdout.write(JSON.stringify(r ? pageData(model, tokenizer, text, r) : null) + "\n"); continue; }
  if (insides) {
    const heads = [];
    for (const [kind, layers] of [["encoder", r ? r.encoder : []], ["decoder", r ? r.self : []], ["cross", r ? r.cross : []]])
      layers.forEach((_, layer) => {
        const rows = r.vectors()[kind][layer].q.length / cfg.d_model;
        for (const query of new Set([0, rows >> 1, rows - 1]))
          for (let head = 0; head < cfg.n_heads; head++) heads.push({ kind, layer, head, query, ...model.inside(r, kind, layer, head, query) });
      });
    process.stdout.write(JSON.stringify({ ids, out: r ? r.ids : [], heads }) + "\n");
    continue;
  }
  if (speaking && r) {
    const e = estimateGreedy(quality, model, tokenizer, reverse.model, ids, r);
    const name = folder.replace(/\/+$/, "").split("/").pop();
    const { notes, pieces, extras } = beside(w, { cfg, tokenizer, task: card }, name, ids, r, e);
    process.stdout.write(JSON.stringify({ notes, pieces, extras }) + "\n");
    continue;
  }
  if (estimating) {
    const e = r ? estimateGreedy(quality, model, tokenizer, reverse.model, ids, r) : null;  // (an empty text: none)
    process.stdout.write(JSON.stringify({ out: r ? r.ids : [], estimate: e, ms: performance.now() - t0 }) + "\n");
    continue;
  }
  const row = { ids, out: r ? r.ids : [], text: r ? tokenizer.decode(r.ids) : "", ms,
                p: r ? r.steps.map((s) => s.p) : [] };
  if (attentions && r) {
    row.encoder = r.encoder.map((l) => round(l.weights));
    row.self = r.self.map(round);
    row.cross = r.cross.map(round);
  }
  process.stdout.write(JSON.stringify(row) + "\n");
}
