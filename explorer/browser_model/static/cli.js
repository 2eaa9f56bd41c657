// Node: node cli.js CHECKPOINT_DIR [--no-attention | --tokens | --page] < sentences (one JSON string a line) -> one JSON object a line:
// { ids (source, EOS last), out (greedy, no BOS/EOS), text, p (each step's chosen probability),
//   encoder / self / cross: each layer's weights (H, rows, cols) as flat lists, ms (the decode's time) }.
// Used by tests/test_browser_model.py and bench/browser_model.py to compare with PyTorch.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { loadCheckpoint, sourceIds } from "./load.js";
import { pageData } from "./page_data.js";

const folder = process.argv[2];
const attentions = !process.argv.includes("--no-attention");
const tokensOnly = process.argv.includes("--tokens");  // the source ids alone: the tokenizer's parity
const page = process.argv.includes("--page");  // the page's copy of each translation (page_data.js)
const { cfg, model, tokenizer } = await loadCheckpoint(async (name) => new Uint8Array(readFileSync(join(folder, name))));
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
  const row = { ids, out: r ? r.ids : [], text: r ? tokenizer.decode(r.ids) : "", ms,
                p: r ? r.steps.map((s) => s.p) : [] };
  if (attentions && r) {
    row.encoder = r.encoder.map((l) => round(l.weights));
    row.self = r.self.map(round);
    row.cross = r.cross.map(round);
  }
  process.stdout.write(JSON.stringify(row) + "\n");
}
