// The "may be wrong" estimate (model/quality.py) from the JS model's own greedy pass and the reverse model's reading
// of its output: the same signals, the same fitted logistic model (metrics.json's "quality"), the same flag and the
// same named words. Python's isalnum is read as "a letter or a number" (\p{L}, \p{N}).

import { UNK } from "./tokenizer.js";

const LOW_P = 0.3;  // a piece chosen below this is "unsure"
const UNREAD = 0.2;  // a source piece read less than this share of an even spread counts as left out
const MISSING_P = 0.01;  // a source word less likely than this to the reverse model may be missing
const SPECIAL_PIECES = new Set(["<pad>", "<unk>", "<s>", "</s>"]);
export const FEATURES = [
  "mean_logprob", "min_logprob", "low_share", "mean_entropy", "mean_margin", "unread_share", "attention_spread",
  "length_ratio", "length_ratio_sq", "repeated_share", "unknown_share", "pieces_per_word", "log_source_len",
  "very_low_count", "worst_window", "eos_logprob", "cross_entropy", "eos_attention", "split_words", "reverse_mean",
  "reverse_min", "reverse_low_share", "reverse_worst_window",
];

const ALNUM = /[\p{L}\p{N}]/u;
const hasAlnum = (s) => ALNUM.test(s);
const mean = (a) => a.reduce((t, x) => t + x, 0) / a.length;

// a word's pieces -> its text: "▁" a space, byte pieces (<0xC3><0xAB>) the characters they encode
export function wordText(pieces) {
  const out = [];
  let raw = [];
  const flush = () => { if (raw.length) { out.push(new TextDecoder().decode(new Uint8Array(raw))); raw = []; } };
  for (const p of pieces) {
    if (p.length === 6 && p.startsWith("<0x") && p.endsWith(">") && /^[0-9A-Fa-f]{2}$/.test(p.slice(3, 5))) {
      raw.push(parseInt(p.slice(3, 5), 16));
      continue;
    }
    flush();
    out.push(p);
  }
  flush();
  return out.join("").replaceAll("\u2581", " ").trim();
}

// [start, end) piece ranges of the words: a piece starting with "▁" (or with no letter or number) starts one
export function wordSpans(pieces) {
  const starts = [];
  pieces.forEach((p, i) => { if (i === 0 || p.startsWith("\u2581") || !hasAlnum(p)) starts.push(i); });
  return starts.map((s, k) => [s, k + 1 < starts.length ? starts[k + 1] : pieces.length]);
}

// the lowest mean of three values in a row (the mean of all when fewer)
function worstWindow(a) {
  if (a.length < 3) return mean(a);
  let worst = Infinity;
  for (let i = 0; i + 3 <= a.length; i++) worst = Math.min(worst, (a[i] + a[i + 1] + a[i + 2]) / 3);
  return worst;
}

// the FEATURES of one translation. sig: { chosen, other, entropy (T), cross: per decoder layer (H, T, S) flat,
// heads, srcIds, srcPieces (S, EOS last), outIds (T: the output + EOS), reverse (S) }
export function features(sig, unkId) {
  const { chosen, heads, srcIds, srcPieces, outIds, reverse } = sig;
  const t = outIds.length, s = srcIds.length, layers = sig.cross.length;
  const mass = new Float64Array(s), perPiece = new Float64Array(t * s);  // (S,) and (T, S): means over layers and heads
  for (const w of sig.cross) {
    for (let h = 0; h < heads; h++) {
      for (let i = 0; i < t; i++) {
        for (let j = 0; j < s; j++) {
          const x = w[(h * t + i) * s + j];
          mass[j] += x;
          perPiece[i * s + j] += x / (layers * heads);
        }
      }
    }
  }
  const massMean = mean(Array.from(mass));
  for (let j = 0; j < s; j++) mass[j] /= massMean;  // 1.0 = an even spread
  const words = srcPieces.slice(0, -1).flatMap((p, i) => (hasAlnum(p) ? [i] : []));
  const unread = words.length ? mean(words.map((i) => (mass[i] < UNREAD ? 1 : 0))) : 0;
  const body = mass.slice(0, -1), bodyMean = mean(Array.from(body));
  const spread = s > 2 ? Math.sqrt(mean(Array.from(body, (x) => (x - bodyMean) ** 2))) : 0;
  const ratio = Math.log(t / Math.max(1, s - 1));
  const out = outIds.slice(0, -1);
  let repeats = 0;
  for (let i = 1; i < out.length; i++) {
    if (out[i] === out[i - 1] || (i >= 3 && out[i - 1] === out[i - 3] && out[i] === out[i - 2])) repeats++;
  }
  const srcBody = srcIds.slice(0, -1);
  const wordLengths = wordSpans(srcPieces.slice(0, -1)).map(([a, b]) => b - a);
  const nWords = Math.max(1, wordLengths.length);
  const crossEntropy = [];
  for (let i = 0; i < t; i++) {
    let e = 0;
    for (let j = 0; j < s; j++) { const p = perPiece[i * s + j]; e -= p * Math.log(Math.max(p, 1e-12)); }
    crossEntropy.push(e / Math.log(Math.max(2, s)));
  }
  const eosAttention = mean(Array.from({ length: t }, (_, i) => perPiece[i * s + s - 1]));
  return [
    mean(chosen),
    Math.min(...chosen),
    mean(chosen.map((c) => (Math.exp(c) < LOW_P ? 1 : 0))),
    mean(sig.entropy),
    mean(chosen.map((c, i) => c - sig.other[i])),
    unread,
    spread,
    ratio,
    ratio * ratio,
    repeats / Math.max(1, out.length),
    srcBody.filter((id) => id === unkId).length / Math.max(1, srcBody.length),
    srcBody.length / nWords,
    Math.log(Math.max(1, srcBody.length)),
    chosen.filter((c) => c < Math.log(0.1)).length,
    worstWindow(chosen),
    chosen[chosen.length - 1],
    s > 1 ? mean(crossEntropy) : 0,
    eosAttention,
    wordLengths.filter((n) => n >= 3).length / Math.max(1, wordLengths.length),
    mean(reverse),
    Math.min(...reverse),
    mean(reverse.map((r) => (r < Math.log(0.1) ? 1 : 0))),
    worstWindow(reverse),
  ];
}

// P(bad) = sigmoid(bias + weights . (x - mean) / scale), as QualityModel.probability
export function probability(q, x) {
  let z = q.bias;
  x.forEach((v, i) => { z += q.weights[i] * (v - q.mean[i]) / q.scale[i]; });
  return 1 / (1 + Math.exp(-Math.max(-50, Math.min(50, z))));
}

// [probability, first piece, text] of each source word: the reverse model's probability of its least likely piece
function sourceWords(srcPieces, reverse) {
  const pieces = srcPieces.slice(0, -1), out = [];
  for (const [s, e] of wordSpans(pieces)) {
    const word = wordText(pieces.slice(s, e));
    if (hasAlnum(word)) out.push([Math.exp(Math.min(...reverse.slice(s, e))), s, word]);
  }
  return out;
}

// Python's sorted() of tuples: by probability, then first piece, then text
const byTuple = (a, b) => a[0] - b[0] || a[1] - b[1] || (a[2] < b[2] ? -1 : a[2] > b[2] ? 1 : 0);
const below = (scored, cut, most = 3) => scored.slice(0, most).filter(([p]) => p < cut).map(([, , w]) => w);

// every output word whose least sure piece was chosen below cut, least sure first -> [p, index in wordSpans, text]
// (model/quality.py _unsure: punctuation, byte-only symbols and special pieces never make one)
function scoredUnsure(pieces, probs, cut) {
  const scored = [];
  wordSpans(pieces).forEach(([s, e], k) => {
    const text = wordText(pieces.slice(s, e));
    let low = 1;
    for (let i = s; i < e && i < probs.length; i++) if (!SPECIAL_PIECES.has(pieces[i])) low = Math.min(low, probs[i]);
    if (low < cut && hasAlnum(text)) scored.push([low, k, text]);
  });
  return scored.sort(byTuple);
}

// the output words most likely wrong: the ``most`` whose least sure piece was chosen below LOW_P -> [index, text]
const suspectWords = (pieces, probs, most = 3) => scoredUnsure(pieces, probs, LOW_P).slice(0, most).map(([, k, text]) => [k, text]);

// model/quality.py unsure_words: [text, probability of its least sure piece] of each such word, least sure first
export const unsureWords = (pieces, probs, cut = LOW_P) => scoredUnsure(pieces, probs, cut).map(([p, , text]) => [text, p]);

// metrics.json's "quality", where it was fitted on these weights and this reverse model (read_quality), else null
export function usable(q, weightsSha256, reverseSha256) {
  if (!q || q.weights_sha256 !== weightsSha256 || !reverseSha256 || q.reverse_sha256 !== reverseSha256) return null;
  return q;
}

// the estimate of one translation, as model/quality.py's estimate: q is metrics.json's "quality"; sig as features';
// outPieces the output's pieces (no EOS) and probs the probability each was chosen with
export function estimate(q, sig, unkId, outPieces, probs) {
  const x = features(sig, unkId);
  if (x.length !== q.features.length || q.features.some((f, i) => f !== FEATURES[i])) {
    throw new Error("the quality estimate was fitted on other features than quality.js computes");
  }
  const p = probability(q, x);
  const suspects = suspectWords(outPieces, probs);
  const scored = sourceWords(sig.srcPieces, sig.reverse).sort(byTuple);
  const least = scored.length ? scored[0][0] : 1;
  const flagged = p >= q.threshold || least < (q.missing_below || 0);
  return {
    probability: p, flagged, features: x,
    words: suspects.map(([, w]) => w), word_indices: suspects.map(([k]) => k),
    missing: below(scored, MISSING_P), dropped: flagged && p < q.threshold ? below(scored, q.missing_below || 0) : [],
  };
}

// the estimate of a greedy result r of the JS model (transformer.js) on source ids src, the reverse model reading
// its output: what the worker and cli.js give with a translation
export function estimateGreedy(q, model, tokenizer, reverseModel, src, r) {
  const outIds = r.ids.concat([model.cfg.eos_id]);
  const sig = { ...r.signals, cross: r.cross, heads: model.h, srcIds: src, srcPieces: src.map((i) => tokenizer.piece(i)),
                outIds, reverse: Array.from(reverseModel.forced(outIds, src)) };
  return estimate(q, sig, UNK, r.ids.map((i) => tokenizer.piece(i)), r.steps.map((st) => st.p));
}
