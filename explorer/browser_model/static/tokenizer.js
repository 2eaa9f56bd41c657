// Our SentencePiece model (BPE, byte fallback, identity normaliser) read from its own spm.model and applied as
// SentencePiece's bpe_model.cc does, so the pieces are the server's, piece for piece:
//   text -> single spaces (the translator's " ".join(text.split())) -> "▁" for each space, one before the start
//   -> one symbol per character -> merge the adjacent pair whose joined piece scores highest (leftmost on a tie)
//   until none is in the vocabulary -> a piece still unknown becomes its UTF-8 bytes, "<0xE2>" ...

const NORMAL = 1, UNKNOWN = 2, CONTROL = 3, USER_DEFINED = 4, UNUSED = 5, BYTE = 6;
export const PAD = 0, UNK = 1, BOS = 2, EOS = 3;
const SPACE = "\u2581";

// -- the few protobuf fields of sentencepiece_model.proto read here ---------------------------------------------
function* fields(bytes, start = 0, end = bytes.length) {
  let i = start;
  const varint = () => {
    let r = 0, mul = 1, c;
    do { c = bytes[i++]; r += (c & 0x7f) * mul; mul *= 128; } while (c & 0x80);
    return r;
  };
  while (i < end) {
    const key = varint(), field = Math.floor(key / 8), wire = key & 7;
    if (wire === 0) yield [field, varint()];
    else if (wire === 2) { const n = varint(); yield [field, bytes.subarray(i, i + n)]; i += n; }
    else if (wire === 5) { yield [field, new DataView(bytes.buffer, bytes.byteOffset + i, 4).getFloat32(0, true)]; i += 4; }
    else if (wire === 1) { i += 8; yield [field, null]; }
    else throw new Error(`spm.model: wire type ${wire} not expected`);
  }
}

export function readSpm(buffer) {
  const bytes = buffer instanceof Uint8Array ? buffer : new Uint8Array(buffer);
  const utf8 = new TextDecoder();
  const pieces = [];
  let modelType = 1, byteFallback = false, normaliser = "nmt_nfkc", dummyPrefix = true, extraSpaces = true;
  for (const [f, v] of fields(bytes)) {
    if (f === 1) {  // SentencePiece { piece = 1, score = 2, type = 3 }
      const p = { piece: "", score: 0, type: NORMAL };
      for (const [g, w] of fields(v)) {
        if (g === 1) p.piece = utf8.decode(w);
        else if (g === 2) p.score = w;
        else if (g === 3) p.type = w;
      }
      pieces.push(p);
    } else if (f === 2) {  // TrainerSpec { model_type = 3, byte_fallback = 35 }
      for (const [g, w] of fields(v)) {
        if (g === 3) modelType = w;
        else if (g === 35) byteFallback = !!w;
      }
    } else if (f === 3) {  // NormalizerSpec { name = 1, add_dummy_prefix = 3, remove_extra_whitespaces = 4 }
      for (const [g, w] of fields(v)) {
        if (g === 1) normaliser = utf8.decode(w);
        else if (g === 3) dummyPrefix = !!w;
        else if (g === 4) extraSpaces = !!w;
      }
    }
  }
  if (modelType !== 2) throw new Error(`spm.model: a BPE model is read here, not model type ${modelType}`);
  if (normaliser !== "identity" || extraSpaces) throw new Error(`spm.model: normaliser ${normaliser} is not read here`);
  return new Tokenizer(pieces, byteFallback, dummyPrefix);
}

// Python's str.split() whitespace (str.isspace), which the translator joins with single spaces
export const PY_SPACE = /[\t\n\x0b\x0c\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/;

export class Tokenizer {
  constructor(pieces, byteFallback, dummyPrefix) {
    this.pieces = pieces;
    this.byteFallback = byteFallback;
    this.dummyPrefix = dummyPrefix;
    this.mergeable = new Map();  // piece -> id, for the pieces a merge may make (normal, user-defined)
    this.byteId = new Array(256);
    pieces.forEach((p, id) => {
      if (p.type === NORMAL || p.type === USER_DEFINED) this.mergeable.set(p.piece, id);
      else if (p.type === BYTE) this.byteId[parseInt(p.piece.slice(3, 5), 16)] = id;
    });
  }

  get vocabSize() { return this.pieces.length; }

  // what the translator feeds the model: words joined by single spaces
  static clean(text) { return text.split(PY_SPACE).filter((w) => w).join(" "); }

  encode(text) {
    if (!text) return [];
    const normalised = (this.dummyPrefix ? SPACE : "") + text.replaceAll(" ", SPACE);
    // a doubly linked list of symbols, one per code point
    const chars = Array.from(normalised);  // code points
    const sym = chars.map((ch, i) => ({ piece: ch, prev: i - 1, next: i + 1 < chars.length ? i + 1 : -1 }));
    const heap = new PairHeap();
    const add = (l, r) => {
      if (l < 0 || r < 0) return;
      const piece = sym[l].piece + sym[r].piece, id = this.mergeable.get(piece);
      if (id === undefined) return;
      heap.push({ score: this.pieces[id].score, left: l, right: r, size: piece.length });
    };
    for (let i = 1; i < sym.length; i++) add(i - 1, i);
    while (heap.size) {
      const top = heap.pop();
      const l = sym[top.left], r = sym[top.right];
      if (!l.piece || !r.piece || l.piece.length + r.piece.length !== top.size) continue;  // stale pair
      l.piece += r.piece;
      r.piece = "";
      l.next = r.next;
      if (r.next >= 0) sym[r.next].prev = top.left;
      add(l.prev, top.left);
      add(top.left, l.next);
    }
    const ids = [];
    for (let i = 0; i !== -1 && i < sym.length; i = sym[i].next) {
      const id = this.mergeable.get(sym[i].piece);
      if (id !== undefined) ids.push(id);
      else if (this.byteFallback) for (const b of new TextEncoder().encode(sym[i].piece)) ids.push(this.byteId[b]);
      else ids.push(UNK);
    }
    return ids;
  }

  piece(id) { return this.pieces[id].piece; }

  // ids -> text, as SentencePiece's decode (pad, BOS and EOS dropped; bytes joined into UTF-8)
  decode(ids) {
    const bytes = [];
    const out = [];
    const flush = () => { if (bytes.length) { out.push(new TextDecoder().decode(new Uint8Array(bytes))); bytes.length = 0; } };
    for (const id of ids) {
      const p = this.pieces[id];
      if (!p || p.type === CONTROL) continue;
      if (p.type === BYTE) { bytes.push(parseInt(p.piece.slice(3, 5), 16)); continue; }
      flush();
      out.push(p.type === UNKNOWN ? " \u2047 " : p.piece);
    }
    flush();
    const text = out.join("").replaceAll(SPACE, " ");
    return this.dummyPrefix && text.startsWith(" ") ? text.slice(1) : text;
  }
}

// a binary max-heap of candidate merges: higher score first, then the leftmost (bpe_model.cc's SymbolPairComparator)
class PairHeap {
  constructor() { this.a = []; }
  get size() { return this.a.length; }
  before(x, y) { return x.score > y.score || (x.score === y.score && x.left < y.left); }
  push(x) {
    const a = this.a;
    a.push(x);
    for (let i = a.length - 1; i > 0;) {
      const p = (i - 1) >> 1;
      if (!this.before(a[i], a[p])) break;
      [a[i], a[p]] = [a[p], a[i]];
      i = p;
    }
  }
  pop() {
    const a = this.a, top = a[0], last = a.pop();
    if (a.length) {
      a[0] = last;
      for (let i = 0; ;) {
        const l = 2 * i + 1, r = l + 1;
        let m = i;
        if (l < a.length && this.before(a[l], a[m])) m = l;
        if (r < a.length && this.before(a[r], a[m])) m = r;
        if (m === i) break;
        [a[i], a[m]] = [a[m], a[i]];
        i = m;
      }
    }
    return top;
  }
}
