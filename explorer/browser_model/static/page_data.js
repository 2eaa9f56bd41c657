// The page's copy of one translation (viz/page_data.py's page_data, field for field) from the JS model's greedy
// result: what the browser's views (explorer/page/static/views.js) draw. Weights travel in per-mille as there.

const SPECIAL = { "<pad>": "[PAD]", "<unk>": "[UNK]", "<s>": "[BOS]", "</s>": "[EOS]" };
const WORD_START = "\u2581";

// viz/tokens.py readable: "▁Hund" -> "Hund", "en" -> "·en", "</s>" -> "[EOS]", "<0xE2>" -> "byte E2"
export function readable(piece) {
  if (piece in SPECIAL) return SPECIAL[piece];
  const m = /^<0x([0-9A-Fa-f]{2})>$/.exec(piece);
  if (m) return `byte ${m[1].toUpperCase()}`;
  if (piece.startsWith(WORD_START)) return piece.slice(1) || "\u2423";
  return "\u00b7" + piece;
}

export const escapeHtml = (s, quote = true) => {
  const out = s.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
  return quote ? out.replaceAll('"', "&quot;").replaceAll("'", "&#x27;") : out;
};
export const labels = (pieces) => pieces.map((p) => escapeHtml(readable(p), false));
const round = (x, n) => Math.round(x * 10 ** n) / 10 ** n;
const short = (text, n = 70) => (text.length <= n ? text : text.slice(0, n - 1).trimEnd() + "\u2026");

// viz/attention.py: what each statistic means, and which mean something for each kind, in panel order (a copy:
// tests/test_browser_model.py holds the page copies equal, these included)
export const STAT_INFO = {
  entropy: ["entropy (nats)", "how spread out a query's attention is: 0 = all on one key, ln(number of keys) = evenly on all", "entropy"],
  focus: ["largest weight", "the weight of the key each query looks at most: near 1 = one key at a time", "weight"],
  distance: ["mean distance |query \u2212 key|", "how many positions away a query looks, on average: 0 = at itself", "distance"],
  previous: ["weight on the previous position", "how much a query looks at the position just before its own", "weight"],
  same: ["weight on its own position", "how much a query looks at itself", "weight"],
  first: ["weight on the first key", "the first token ([BOS] for the decoder): heads with nothing to do often rest their attention there", "weight"],
  last: ["weight on the source's EOS", "the English end-of-sentence token: another common resting place", "weight"],
};
const KIND_STATS = {
  encoder: ["entropy", "distance", "previous", "same", "first", "last"],
  decoder: ["entropy", "distance", "previous", "same", "first", "focus"],
  cross: ["entropy", "focus", "first", "last"],
};

// one head's (Tq, Tk) map -> every statistic, averaged over its queries (viz/attention.py head_statistics)
function statistics(w, tq, tk) {
  let entropy = 0, distance = 0, previous = 0, same = 0, first = 0, last = 0, focus = 0;
  for (let i = 0; i < tq; i++) {
    let e = 0, dist = 0, max = 0;
    for (let j = 0; j < tk; j++) {
      const x = w[i * tk + j];
      if (x > 0) e -= x * Math.log(x);
      dist += x * Math.abs(i - j);
      if (x > max) max = x;
    }
    entropy += e; distance += dist; focus += max;
    first += w[i * tk]; last += w[i * tk + tk - 1];
    if (i < tk) same += w[i * tk + i];
    if (i >= 1 && i - 1 < tk) previous += w[i * tk + i - 1];
  }
  const rows = Math.min(tq, tk + 1) - 1;  // queries 1.. that have a previous key
  return { entropy: entropy / tq, distance: distance / tq, previous: tq > 1 && tk > 1 ? previous / rows : 0,
           same: same / tq, first: first / tq, last: last / tq, focus: focus / tq };
}

// maps (per layer, a flat (H, Tq, Tk)) -> { att: [L][H][Tq][Tk] per-mille, stats: { name: [L][H] } }
function kindData(maps, h, tq, tk, names) {
  const att = [], stats = Object.fromEntries(names.map((n) => [n, []]));
  for (const flat of maps) {
    const layer = [], perStat = Object.fromEntries(names.map((n) => [n, []]));
    for (let head = 0; head < h; head++) {
      const w = flat.subarray(head * tq * tk, (head + 1) * tq * tk);  // (Tq, Tk)
      const rows = [];
      for (let i = 0; i < tq; i++) rows.push(Array.from(w.subarray(i * tk, (i + 1) * tk), (x) => Math.round(x * 1000)));
      layer.push(rows);
      const s = statistics(w, tq, tk);
      for (const n of names) perStat[n].push(round(s[n], 3));
    }
    att.push(layer);
    for (const n of names) stats[n].push(perStat[n]);
  }
  return { att, stats };
}

// the greedy result of Transformer.greedy (with its model and tokenizer) -> the page's copy, as page_data(a, heads)
export function pageData(model, tokenizer, text, r) {
  const h = model.h, s = r.src.length, piece = (i) => tokenizer.piece(i);
  const outIds = r.ids.concat([model.cfg.eos_id]);
  const tgtIds = [model.cfg.bos_id].concat(r.ids);
  const srcTokens = r.src.map(piece), tgtTokens = tgtIds.map(piece), outTokens = outIds.map(piece);
  const t = tgtIds.length;
  const kinds = {
    encoder: kindData(r.encoder.map((l) => l.weights), h, s, s, KIND_STATS.encoder),
    decoder: kindData(r.self, h, t, t, KIND_STATS.decoder),
    cross: kindData(r.cross, h, t, s, KIND_STATS.cross),
  };
  const steps = r.steps.map((st) => {
    const top = st.top.map(([id]) => id);
    return { top: labels(top.map(piece)), p: st.top.map(([, p]) => round(p, 4)), pick: top.indexOf(st.chosen),
             chosen: labels([piece(st.chosen)])[0], chosen_p: round(st.p, 4) };
  });
  const lensTop = r.hidden.map((rows) => model.lens(rows, t, 1).map((top) => top[0]));  // (L, T) of [id, p]
  const translation = tokenizer.decode(r.ids);
  return {
    text, text_html: escapeHtml(text), title_html: escapeHtml(short(text)), translation, method: "greedy", heads: h,
    src: labels(srcTokens), tgt: labels(tgtTokens), out: labels(outTokens),
    src_special: srcTokens.flatMap((p, i) => (p in SPECIAL ? [i] : [])),
    tgt_special: tgtTokens.flatMap((p, i) => (p in SPECIAL ? [i] : [])),
    att: Object.fromEntries(Object.entries(kinds).map(([k, v]) => [k, v.att])),
    stats: Object.fromEntries(Object.entries(kinds).map(([k, v]) => [k, v.stats])),
    stat_info: STAT_INFO,
    steps,
    lens: { words: lensTop.map((row) => labels(row.map(([id]) => piece(id)))), p: lensTop.map((row) => row.map(([, p]) => round(p, 3))) },
    pe_sentence: model.sizes(r.src),
  };
}
