// A checkpoint folder's three files (config.json, model.safetensors, spm.model) -> { cfg, model, tokenizer }.
// ``read(name)`` gives a file's bytes (fetch in the browser, fs in Node); each file's SHA-256 is checked against
// config.json's "files" before it is used.

import { dequantize, readSafetensors } from "./safetensors.js";
import { sha256Hex } from "./sha256.js";
import { readSpm } from "./tokenizer.js";
import { Transformer } from "./transformer.js";

async function sha256(bytes) {
  const subtle = globalThis.crypto && globalThis.crypto.subtle;  // none over plain HTTP, nor in Node.js 18
  if (!subtle) return sha256Hex(bytes);
  const digest = await subtle.digest("SHA-256", bytes);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

export async function loadCheckpoint(read) {
  const config = JSON.parse(new TextDecoder().decode(await read("config.json")));
  const files = {};
  for (const name of ["model.safetensors", "spm.model"]) {
    const bytes = await read(name);
    const want = config.files && config.files[name] && config.files[name].sha256;
    if (!want) throw new Error(`config.json gives no SHA-256 for ${name}`);
    const got = await sha256(bytes);
    if (got !== want) throw new Error(`${name}: SHA-256 ${got.slice(0, 12)}… is not the checkpoint's ${want.slice(0, 12)}…`);
    files[name] = bytes;
  }
  const model = new Transformer(config.model, dequantize(readSafetensors(files["model.safetensors"])));
  return { cfg: config.model, task: config.task, files: config.files, model, tokenizer: readSpm(files["spm.model"]) };
}

// a sentence -> the translator's source ids (single spaces, cut to max_len - 1, EOS last), as model/translator.py
export function sourceIds(tokenizer, cfg, text) {
  return tokenizer.encode(tokenizer.constructor.clean(text)).slice(0, cfg.max_len - 1).concat([cfg.eos_id]);
}
