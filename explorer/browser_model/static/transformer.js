// The encoder-decoder of "Attention Is All You Need" as model/transformer.py configures it (post-LN, sinusoidal
// positions, one tied embedding matrix), forward only, in float32 arrays. Everything the page draws is kept:
// every attention map (kind, layer, head), each step's top-k, the decoder's layer outputs (the logit lens) and
// Inside a head's q and k. Matrices are row-major Float32Arrays; shapes are in the comments.

import { BOS, EOS, PAD } from "./tokenizer.js";

// y (n, out) = x (n, in) W^T (out, in) + b (out): nn.Linear
function linear(x, n, W, b, inDim, outDim) {
  const y = new Float32Array(n * outDim);
  for (let i = 0; i < n; i++) {
    const xo = i * inDim;
    for (let o = 0; o < outDim; o++) {
      const wo = o * inDim;
      let s0 = 0, s1 = 0, s2 = 0, s3 = 0, k = 0;  // four sums: V8 keeps them in registers, twice as fast
      for (; k + 3 < inDim; k += 4) {
        s0 += x[xo + k] * W[wo + k];
        s1 += x[xo + k + 1] * W[wo + k + 1];
        s2 += x[xo + k + 2] * W[wo + k + 2];
        s3 += x[xo + k + 3] * W[wo + k + 3];
      }
      for (; k < inDim; k++) s0 += x[xo + k] * W[wo + k];
      const s = (s0 + s1) + (s2 + s3);
      y[i * outDim + o] = b ? s + b[o] : s;
    }
  }
  return y;
}

// LayerNorm over the last dim (d), eps 1e-5 as nn.LayerNorm, in place on x (n, d)
function layerNorm(x, n, d, g, b) {
  for (let i = 0; i < n; i++) {
    const o = i * d;
    let mean = 0;
    for (let k = 0; k < d; k++) mean += x[o + k];
    mean /= d;
    let v = 0;
    for (let k = 0; k < d; k++) v += (x[o + k] - mean) ** 2;
    const inv = 1 / Math.sqrt(v / d + 1e-5);
    for (let k = 0; k < d; k++) x[o + k] = (x[o + k] - mean) * inv * g[k] + b[k];
  }
  return x;
}

function softmaxInPlace(a, start, n) {
  let m = -Infinity;
  for (let i = 0; i < n; i++) m = Math.max(m, a[start + i]);
  let s = 0;
  for (let i = 0; i < n; i++) { const e = Math.exp(a[start + i] - m); a[start + i] = e; s += e; }
  for (let i = 0; i < n; i++) a[start + i] /= s;
}

// PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(...): (maxLen, d), computed in float64 as the server
export function sinusoidalTable(maxLen, d) {
  const pe = new Float32Array(maxLen * d);
  for (let pos = 0; pos < maxLen; pos++) {
    for (let i = 0; i < d; i += 2) {
      const angle = pos / Math.pow(10000, i / d);
      pe[pos * d + i] = Math.sin(angle);
      if (i + 1 < d) pe[pos * d + i + 1] = Math.cos(angle);
    }
  }
  return pe;
}

export class Transformer {
  // cfg: config.json's "model"; w: dequantised tensors by their PyTorch names
  constructor(cfg, w) {
    if (cfg.norm_first) throw new Error("a pre-LN checkpoint is not run here yet");
    if (cfg.positional !== "sinusoidal") throw new Error(`positional ${cfg.positional} is not run here yet`);
    this.cfg = cfg;
    this.d = cfg.d_model;
    this.h = cfg.n_heads;
    this.dk = this.d / this.h;
    this.ff = cfg.d_ff;
    this.V = cfg.vocab_size;
    this.E = w["embedding.weight"].data;  // (V, D), also the output projection
    this.pe = sinusoidalTable(cfg.max_len, this.d);
    const get = (n) => { if (!w[n]) throw new Error(`checkpoint has no ${n}`); return w[n].data; };
    const mha = (p) => ({ q: [get(`${p}.w_q.weight`), get(`${p}.w_q.bias`)], k: [get(`${p}.w_k.weight`), get(`${p}.w_k.bias`)],
                          v: [get(`${p}.w_v.weight`), get(`${p}.w_v.bias`)], o: [get(`${p}.w_o.weight`), get(`${p}.w_o.bias`)] });
    const ffn = (p) => ({ w1: [get(`${p}.w_1.weight`), get(`${p}.w_1.bias`)], w2: [get(`${p}.w_2.weight`), get(`${p}.w_2.bias`)] });
    const norm = (p) => [get(`${p}.norm.weight`), get(`${p}.norm.bias`)];
    this.enc = [];
    for (let l = 0; l < cfg.n_encoder_layers; l++) {
      const p = `encoder.layers.${l}`;
      this.enc.push({ attn: mha(`${p}.self_attn`), ffn: ffn(`${p}.ffn`), n1: norm(`${p}.sub_attn`), n2: norm(`${p}.sub_ffn`) });
    }
    this.dec = [];
    for (let l = 0; l < cfg.n_decoder_layers; l++) {
      const p = `decoder.layers.${l}`;
      this.dec.push({ self: mha(`${p}.self_attn`), cross: mha(`${p}.cross_attn`), ffn: ffn(`${p}.ffn`),
                      n1: norm(`${p}.sub_self`), n2: norm(`${p}.sub_cross`), n3: norm(`${p}.sub_ffn`) });
    }
  }

  // ids (T) from position ``start`` -> x (T, D) = E[id] * sqrt(D) + PE[pos]
  embed(ids, start = 0) {
    const d = this.d, x = new Float32Array(ids.length * d), s = Math.sqrt(d);
    ids.forEach((id, i) => {
      for (let k = 0; k < d; k++) {
        const e = Math.fround(this.E[id * d + k] * s);  // the scaled embedding is a float32 tensor first
        x[i * d + k] = e + this.pe[(start + i) * d + k];
      }
    });
    return x;
  }

  // equation 1 for every head: q (Tq, D), k and v (Tk, D) split into heads of dk -> z (Tq, D), weights (H, Tq, Tk)
  heads(q, tq, k, v, tk) {
    const { h, dk, d } = this, scale = Math.sqrt(dk);
    const weights = new Float32Array(h * tq * tk), z = new Float32Array(tq * d);
    for (let head = 0; head < h; head++) {
      const off = head * dk;
      for (let i = 0; i < tq; i++) {
        const row = (head * tq + i) * tk;
        for (let j = 0; j < tk; j++) {
          let s = 0;
          for (let c = 0; c < dk; c++) s += q[i * d + off + c] * k[j * d + off + c];
          weights[row + j] = s / scale;
        }
        softmaxInPlace(weights, row, tk);
        for (let c = 0; c < dk; c++) {
          let s = 0;
          for (let j = 0; j < tk; j++) s += weights[row + j] * v[j * d + off + c];
          z[i * d + off + c] = s;
        }
      }
    }
    return { z, weights };
  }

  ffnForward(f, x, n) {
    const hid = linear(x, n, f.w1[0], f.w1[1], this.d, this.ff);
    for (let i = 0; i < hid.length; i++) if (hid[i] < 0) hid[i] = 0;  // ReLU
    return linear(hid, n, f.w2[0], f.w2[1], this.ff, this.d);
  }

  // post-LN: LayerNorm(x + f(x)), in place of a new array
  static residualNorm(x, fx, n, d, [g, b]) {
    const y = new Float32Array(n * d);
    for (let i = 0; i < y.length; i++) y[i] = x[i] + fx[i];
    return layerNorm(y, n, d, g, b);
  }

  // source ids (S, EOS last) -> memory (S, D) and each encoder layer's self-attention weights (H, S, S), q, k
  encode(src) {
    const { d } = this, s = src.length;
    let x = this.embed(src);
    const layers = [];
    for (const L of this.enc) {
      const a = L.attn;
      const q = linear(x, s, a.q[0], a.q[1], d, d), k = linear(x, s, a.k[0], a.k[1], d, d);
      const v = linear(x, s, a.v[0], a.v[1], d, d);
      const { z, weights } = this.heads(q, s, k, v, s);
      x = Transformer.residualNorm(x, linear(z, s, a.o[0], a.o[1], d, d), s, d, L.n1);
      x = Transformer.residualNorm(x, this.ffnForward(L.ffn, x, s), s, d, L.n2);
      layers.push({ weights, q, k, v });  // (H, S, S); q, k, v (S, D): Inside a head's vectors
    }
    return { memory: x, layers };
  }

  // the decoder over an encoded source, one position at a time with a key/value cache: ``position(id, t)`` runs token
  // ``id`` at position t through every layer, keeping its maps and outputs -> x (1, D)
  decoder(src) {
    const { d } = this, s = src.length;
    const enc = this.encode(src);
    const crossKV = this.dec.map((L) => [linear(enc.memory, s, L.cross.k[0], L.cross.k[1], d, d),
                                         linear(enc.memory, s, L.cross.v[0], L.cross.v[1], d, d)]);
    const cacheK = this.dec.map(() => []), cacheV = this.dec.map(() => []);  // per layer: one (D) row a position
    const selfW = this.dec.map(() => []), crossW = this.dec.map(() => []), hidden = this.dec.map(() => []);
    const selfQ = this.dec.map(() => []), crossQ = this.dec.map(() => []);  // per layer: one (D) query row a position
    const position = (id, t) => {
      let x = this.embed([id], t);  // (1, D) at position t
      this.dec.forEach((L, l) => {
        const q = linear(x, 1, L.self.q[0], L.self.q[1], d, d);
        selfQ[l].push(q);
        cacheK[l].push(linear(x, 1, L.self.k[0], L.self.k[1], d, d));
        cacheV[l].push(linear(x, 1, L.self.v[0], L.self.v[1], d, d));
        const K = concatRows(cacheK[l], d), Vv = concatRows(cacheV[l], d);  // (t+1, D)
        const sa = this.heads(q, 1, K, Vv, t + 1);
        x = Transformer.residualNorm(x, linear(sa.z, 1, L.self.o[0], L.self.o[1], d, d), 1, d, L.n1);
        const cq = linear(x, 1, L.cross.q[0], L.cross.q[1], d, d);
        crossQ[l].push(cq);
        const ca = this.heads(cq, 1, crossKV[l][0], crossKV[l][1], s);
        x = Transformer.residualNorm(x, linear(ca.z, 1, L.cross.o[0], L.cross.o[1], d, d), 1, d, L.n2);
        x = Transformer.residualNorm(x, this.ffnForward(L.ffn, x, 1), 1, d, L.n3);
        selfW[l].push(sa.weights);  // (H, 1, t+1)
        crossW[l].push(ca.weights);  // (H, 1, S)
        hidden[l].push(x);  // (1, D)
      });
      return x;
    };
    // q, k, v (rows, D) of every decoder layer's self- and cross-attention over the positions run so far
    const vectors = () => ({
      decoder: this.dec.map((_, l) => ({ q: concatRows(selfQ[l], d), k: concatRows(cacheK[l], d), v: concatRows(cacheV[l], d) })),
      cross: this.dec.map((_, l) => ({ q: concatRows(crossQ[l], d), k: crossKV[l][0], v: crossKV[l][1] })),
    });
    return { enc, position, selfW, crossW, hidden, vectors };
  }

  // x (1, D) through the tied embedding -> logits (V)
  logits(x) { return linear(x, 1, this.E, null, this.d, this.V); }

  // greedy decoding with a key/value cache, as model/decoding.py's greedy (pad and BOS never chosen):
  // -> { ids (no BOS/EOS), steps: [{ top: [[id, p]...], chosen, p }], self/cross weights per layer, hidden per layer,
  //      signals: what the "may be wrong" estimate reads of each position's distribution (quality.js) }
  greedy(src, { maxLen = 0, topK = 5 } = {}) {
    const { d, h } = this, s = src.length;
    const limit = Math.min(maxLen || 2 * s + 10, this.cfg.max_len - 1);
    const dec = this.decoder(src);
    const ys = [BOS], steps = [], signals = { chosen: [], other: [], entropy: [] };
    for (let t = 0; t < limit; t++) {
      const logits = this.logits(dec.position(ys[t], t));  // (V)
      logits[PAD] = -Infinity;
      logits[BOS] = -Infinity;
      let best = 0;
      for (let i = 1; i < logits.length; i++) if (logits[i] > logits[best]) best = i;  // first of equal maxima, as argmax
      addSignals(signals, logits, best);
      softmaxInPlace(logits, 0, logits.length);
      steps.push({ top: topk(logits, topK), chosen: best, p: logits[best] });
      ys.push(best);
      if (best === EOS) break;
    }
    // no EOS within the limit: the last word's own position too, as the server's pass over BOS + output has it
    // (the estimate reads there how sure the decoder was of an end it did not reach)
    if (ys[ys.length - 1] !== EOS) {
      const logits = this.logits(dec.position(ys[ys.length - 1], ys.length - 1));
      logits[PAD] = -Infinity;
      logits[BOS] = -Infinity;
      addSignals(signals, logits, EOS);
    }
    const n = dec.selfW[0].length;  // decoder positions run: BOS + the output
    let made = null;
    return {
      src, ids: ys.slice(1).filter((id) => id !== EOS), steps, encoder: dec.enc.layers, signals,
      // (H, T, T) with zeros above the diagonal, and (H, T, S), T = positions run (BOS + output, EOS not fed)
      self: dec.selfW.map((rows) => stackSteps(rows, h, n, (i) => i + 1, n)),
      cross: dec.crossW.map((rows) => stackSteps(rows, h, n, () => s, s)),
      hidden: dec.hidden.map((rows) => concatRows(rows, d)),  // (T, D) per decoder layer
      // q, k, v (rows, D) per kind and layer, for Inside a head (``inside``); the decoder's rows: the T positions
      // run, as ``self``'s and ``cross``'s. Put together when first asked for: a Translate does not pay for them
      vectors: () => (made = made || { encoder: dec.enc.layers.map(({ q, k, v }) => ({ q, k, v })), ...dec.vectors() }),
    };
  }

  // teacher forcing: log P(targets[t] | src, BOS + targets[:t]) for each t, nothing blocked, as model/quality.py's
  // reverse_logprobs -> Float64Array (len(targets))
  forced(src, targets) {
    const dec = this.decoder(src), out = new Float64Array(targets.length);
    targets.forEach((target, t) => {
      const logits = this.logits(dec.position(t === 0 ? BOS : targets[t - 1], t));
      out[t] = logits[target] - logSumExp(logits);
    });
    return out;
  }

  // the size (L2 norm) of each source token's embedding x sqrt(D) and of the PE row added to it (Positional encoding)
  sizes(src) {
    const d = this.d, norm = (a) => Math.sqrt(a.reduce((t, x) => t + x * x, 0));
    const emb = [], pe = [];
    src.forEach((id, i) => {
      const e = Array.from(this.E.subarray(id * d, (id + 1) * d), (x) => Math.fround(x * Math.sqrt(d)));
      emb.push(Math.round(norm(e) * 1000) / 1000);
      pe.push(Math.round(norm(this.pe.subarray(i * d, (i + 1) * d)) * 1000) / 1000);
    });
    return { emb, pe };
  }

  // Inside a head (viz/head.py head_arithmetic): one query of one head of one attention, from a greedy result ``r``
  // -> { q (dk), k and v (Tk, dk), raw: q.k / sqrt(dk) (Tk), masked (Tk: a later position of decoder
  // self-attention), weights (Tk), output: sum_j weights_j v_j (dk) }, plain arrays
  inside(r, kind, layer, head, query) {
    const { d, dk } = this, vec = r.vectors(), parts = vec[kind] && vec[kind][layer];
    if (!parts || !(head >= 0 && head < this.h)) throw new Error(`no ${kind} layer ${layer} head ${head}`);
    const rows = parts.q.length / d, keys = parts.k.length / d;
    if (!(query >= 0 && query < rows)) throw new Error(`query ${query} out of range 0..${rows - 1}`);
    const off = head * dk, slice = (a, i) => Array.from(a.subarray(i * d + off, i * d + off + dk));
    const q = slice(parts.q, query), k = [], v = [], raw = [], masked = [];
    for (let j = 0; j < keys; j++) {
      k.push(slice(parts.k, j));
      v.push(slice(parts.v, j));
      let s = 0;
      for (let c = 0; c < dk; c++) s += q[c] * k[j][c];
      raw.push(s / Math.sqrt(dk));
      masked.push(kind === "decoder" && j > query);
    }
    // the weights as the forward pass made them (softmax of the unmasked scores), not recomputed
    const all = kind === "encoder" ? r.encoder[layer].weights : r[kind === "decoder" ? "self" : "cross"][layer];
    const weights = Array.from(all.subarray((head * rows + query) * keys, (head * rows + query + 1) * keys));
    const output = q.map((_, c) => weights.reduce((t, w, j) => t + w * v[j][c], 0));
    return { q, k, v, raw, masked, weights, output };
  }

  // the logit lens: a (T, D) layer output through the tied projection -> top-k (id, p) per position
  lens(hiddenRows, n, k = 1) {
    const out = [];
    for (let i = 0; i < n; i++) {
      const logits = linear(hiddenRows.subarray(i * this.d, (i + 1) * this.d), 1, this.E, null, this.d, this.V);
      logits[PAD] = -Infinity;
      logits[BOS] = -Infinity;
      softmaxInPlace(logits, 0, this.V);
      out.push(topk(logits, k));
    }
    return out;
  }
}

// log(sum(exp(a))) over the finite entries, in float64
function logSumExp(a) {
  let m = -Infinity;
  for (let i = 0; i < a.length; i++) if (a[i] > m) m = a[i];
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += Math.exp(a[i] - m);
  return m + Math.log(sum);
}

// one position's log-softmax (blocked ids at -inf) as model/quality.py's pass_signals reads it: the chosen piece's
// log-probability, the best other piece's, and the entropy (nats) of the distribution
function addSignals(signals, logits, chosen) {
  const lse = logSumExp(logits);
  let other = -Infinity, entropy = 0;
  for (let i = 0; i < logits.length; i++) {
    const lp = logits[i] - lse;
    if (lp === -Infinity) continue;
    entropy -= Math.exp(lp) * lp;
    if (i !== chosen && lp > other) other = lp;
  }
  signals.chosen.push(logits[chosen] - lse);
  signals.other.push(other);
  signals.entropy.push(entropy);
}

function concatRows(rows, d) {
  const out = new Float32Array(rows.length * d);
  rows.forEach((r, i) => out.set(r, i * d));
  return out;
}

// per step (H, 1, len(i)) -> (H, T, width), zero where a step had no key
function stackSteps(rows, h, n, len, width) {
  const out = new Float32Array(h * n * width);
  rows.forEach((w, i) => {
    const k = len(i);
    for (let head = 0; head < h; head++) out.set(w.subarray(head * k, (head + 1) * k), (head * n + i) * width);
  });
  return out;
}

// the k largest of p: [[index, value]...] in descending order, ties by index
function topk(p, k) {
  const best = [];
  for (let i = 0; i < p.length; i++) {
    if (best.length === k && p[i] <= best[k - 1][1]) continue;
    let j = best.length;
    while (j > 0 && best[j - 1][1] < p[i]) j--;
    best.splice(j, 0, [i, p[i]]);
    if (best.length > k) best.pop();
  }
  return best;
}
