// What the page shows beside a translation that the page's copy (page_data.js) does not hold, from the JS model's
// greedy result and its estimate (quality.js), as the server makes it: the pieces with their warnings first
// (explorer/api/handlers.py tokens_html, explorer/api/advice.py advice and confidence_chips) and the fields
// handlers.py's page adds to the copy (the request, the estimate, the unsure words, the task's names). Words come from
// the catalogue (i18n/*.json) through speaker(), numbers as i18n's num writes them, so each string is the server's.

import { escapeHtml, readable } from "./page_data.js";
import { unsureWords, wordSpans } from "./quality.js";

// the output chips' shades, surest first: [lowest probability, colour]; and the line under each (not shade alone)
export const CHIP_SHADES = [[0.7, "#c8ecd2"], [0.3, "#fbe3b5"], [0.0, "#f7c4b0"]];
export const CHIP_MARKS = ["border-bottom:2px solid transparent", "border-bottom:2px dotted #6b4e16",
                           "border-bottom:2px dashed #8f2d0d"];
export const band = (p) => CHIP_SHADES.findIndex(([floor]) => p >= floor);
const SOURCE = ["\x02", "\x03"];  // around a source-language word inside a warning (advice.py SOURCE)
const LANGUAGE_CODES = { English: "en", German: "de" };
const TASK_FIELDS = ["source", "target", "input", "hint"];

// |x| to ``digits`` decimals as Python rounds a float (f"{x:.2f}", round(x, 2)): the nearest, from the double's exact
// value, and an exact half to the even digit (toFixed takes it up: 0.125 -> "0.13", Python's "0.12")
function fixedAbs(x, digits) {
  const a = Math.abs(x), near = a.toFixed(digits);
  if (a >= 1e21) return near;
  const [whole, frac] = a.toFixed(100).split(".");  // (the exact decimal of any double above 1e-47)
  const rest = frac.slice(digits);
  if (rest[0] !== "5" || /[^0]/.test(rest.slice(1))) return near;
  const kept = whole + (digits ? "." + frac.slice(0, digits) : "");
  return Number(kept.slice(-1)) % 2 === 0 ? kept : near;  // a tie: down to an even last digit, else up
}
// Python's round(x, n) of a float
export const pyRound = (x, n) => (x < 0 ? -1 : 1) * Number(fixedAbs(x, n));

// the catalogue's words in one language (English where it lacks a key), filled in as i18n's t; numbers as its num
export function speaker(catalogue, english) {
  const t = (key, values) => {
    const template = key in catalogue ? catalogue[key] : english[key];
    if (template === undefined) throw new Error(`no catalogue entry ${key}`);
    return values ? template.replace(/\{(\w+)\}/g, (m, name) => (name in values ? String(values[name]) : m)) : template;
  };
  const decimal = t("_meta.decimal");
  // Python's f"{x:,.{digits}f}", then "," and "." swapped where the language writes 0,93
  const num = (x, digits = 2) => {
    const [whole, part] = fixedAbs(x, digits).split(".");
    const text = (x < 0 || Object.is(x, -0) ? "-" : "") + whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",") + (part ? "." + part : "");
    return decimal === "," ? text.replace(/[,.]/g, (c) => (c === "," ? "." : ",")) : text;
  };
  const pct = (x, digits = 0) => t("_meta.percent", { n: num(100 * x, digits) });
  const quoted = (words) => words.map((w) => t("server.quoted", { text: w })).join(", ");
  return { t, num, pct, quoted, english };
}

// model/loops.py is_punctuation and find_loop: the longest run of a unit of 1-6 ids repeated 3+ times in a row, a unit
// of punctuation and digits alone ("...", "2000") never one
export const isPunctuation = (piece) => {
  const text = piece.replaceAll("\u2581", "");
  return text.length > 0 && !/\p{L}/u.test(text);
};
export function findLoop(tokens, quiet, minRepeats = 3, maxPeriod = 6) {
  let best = null;
  const n = tokens.length;
  const same = (a, b, len) => { for (let k = 0; k < len; k++) if (tokens[a + k] !== tokens[b + k]) return false; return true; };
  for (let period = 1; period <= maxPeriod; period++) {
    let i = 0;
    while (i + period * minRepeats <= n) {
      let reps = 1;
      while (i + (reps + 1) * period <= n && same(i + reps * period, i, period)) reps++;
      if (reps >= minRepeats && tokens.slice(i, i + period).every((x) => quiet.has(x))) reps = 1;
      if (reps >= minRepeats && (best === null || period * reps > best.period * best.repeats)) best = { start: i, period, repeats: reps };
      i += reps >= minRepeats ? Math.max(1, (reps - 1) * period) : 1;
    }
  }
  return best;
}

// i18n from_english for a whole entry (no numbers in a task's words): the key under prefix...suffix whose English is text
function fromEnglish(w, text, prefix, suffix) {
  const key = text ? Object.keys(w.english).find((k) => k.startsWith(prefix) && k.endsWith(suffix) && w.english[k] === text) : undefined;
  return key ? w.t(key) : text;
}

// advice.py advice for a greedy translation with its estimate (est: quality.js's): the warnings a learner reads first,
// each a sentence or a few, its first sentence the headline. (advice.py's fallback for a model without an estimate,
// the rougher calibrated floor, is not here: the page Translates in the browser only once the estimate is loaded.)
// the output's repetition loop, if it has one, said with ``key`` -> [] or [the line]: the served page's points to the
// decoding options that break it; the offline bundle's ("offline.loop"), which has none, to the full app
export function loopAdvice(w, outIds, outPieces, key = "server.advice.loop") {
  const quiet = new Set(outIds.filter((id, i) => isPunctuation(outPieces[i])));
  const loop = findLoop(outIds.slice(0, -1), quiet);
  if (!loop) return [];
  const unit = outPieces.slice(loop.start, loop.start + loop.period).join("").replaceAll("\u2581", " ").trim();
  return [w.t(key, { unit: w.t("server.quoted", { text: unit }), n: loop.repeats,
                     options: w.t("server.field.decoding_options"), no_repeat: w.t("server.field.no_repeat"),
                     penalty: w.t("server.field.repetition_penalty"), value: w.num(1.5, 1) })];
}

export function advice(w, outIds, outPieces, est, hint) {
  const out = loopAdvice(w, outIds, outPieces);
  if (!est || !est.flagged) return out;
  const domain = fromEnglish(w, hint, "server.task.", ".hint");
  const why = (domain ? `${domain.replace(/\.+$/, "")}. ` : "") + w.t("server.advice.far");
  const plain = (s) => s.replaceAll(SOURCE[0], "").replaceAll(SOURCE[1], "");
  const source = (words) => w.quoted(words.map((x) => SOURCE[0] + plain(x) + SOURCE[1]));
  const parts = est.dropped.length ? [w.t("server.advice.dropped", { words: source(est.dropped) })]
    : [w.t("server.advice.may_be_wrong", { p: w.pct(est.probability) })];
  if (est.words.length) parts.push(w.t("server.advice.least_sure", { words: w.quoted(est.words) }));
  const others = est.missing.filter((x) => !est.dropped.includes(x));
  if (others.length) parts.push(w.t("server.advice.missing", { words: source(others) }));
  out.push(parts.join("; ") + ". " + (est.dropped.length ? "" : why));
  return out;
}

const lang = (language) => (LANGUAGE_CODES[language] ? ` lang="${LANGUAGE_CODES[language]}"` : "");

// a warning as HTML, its first sentence in bold; the source's words marked with its language
function headlined(note, source) {
  const esc = (s) => escapeHtml(s).replaceAll(SOURCE[0], `<span${source}>`).replaceAll(SOURCE[1], "</span>");
  const at = note.indexOf(". ");
  return at < 0 ? `<b>${esc(note)}</b>` : `<b>${esc(note.slice(0, at) + ".")}</b> ${esc(note.slice(at + 2))}`;
}

// advice.py confidence_chips: each output piece shaded (and underlined) by the probability it was chosen with; the
// pieces of the words a flagged estimate names outlined
function confidenceChips(w, outPieces, probs, est, target) {
  const named = new Set();
  if (est && est.flagged) {
    const spans = wordSpans(outPieces.slice(0, -1));
    for (const k of est.word_indices) for (let i = spans[k][0]; i < spans[k][1]; i++) named.add(i);
  }
  return outPieces.map((tok, i) => {
    const p = i < probs.length ? probs[i] : null;
    let shade = "#eeeeee", mark = CHIP_MARKS[0], title = w.t("server.chip.not_decoded");
    if (p !== null) {
      shade = CHIP_SHADES[band(p)][1];
      mark = CHIP_MARKS[band(p)];
      title = w.t("server.chip.title", { p: w.num(p, 2) }) + (named.has(i) ? w.t("server.chip.may_be_wrong") : "");
    }
    const outline = named.has(i) ? "outline:2px solid #b42318;" : "";
    return `<span${target} title="${escapeHtml(title)}" style="background:${shade};${mark};${outline}border-radius:4px;`
      + `padding:1px 5px;margin:1px;display:inline-block;font-family:monospace">${escapeHtml(readable(tok))}`
      + `<sub style="font-size:0.625rem;color:#555;margin-left:2px">${p === null ? "" : w.num(p, 2)}</sub></span>`;
  }).join(" ");
}

// handlers.py chips_key: what the shades mean
function chipsKey(w) {
  const [sure, unsure] = [w.num(CHIP_SHADES[0][0], 1), w.num(CHIP_SHADES[1][0], 1)];
  const words = [w.t("server.pieces.sure", { p: sure }), `${unsure} \u2264 p < ${sure}`, w.t("server.pieces.unsure", { p: unsure })]
    .map((x) => escapeHtml(x));
  return w.t("server.pieces.shade")
    + words.map((x, i) => `<span style='background:${CHIP_SHADES[i][1]};${CHIP_MARKS[i]};border-radius:3px;padding:0 5px;margin:0 3px'>${x}</span>`).join(";")
    + w.t("server.pieces.shade_note");
}

// handlers.py tokens_html: the warnings, the source pieces, the output pieces shaded, the keys. t: the translation's
// { srcPieces, outPieces (EOS last), probs (each chosen piece's), notes (advice()), est, vocab, languages: [source, target] }
export function piecesHtml(w, t) {
  const [source, target] = t.languages.map(lang);
  const chips = (tokens, colour) => tokens.map((tok) => `<span${source} style="background:${colour};border-radius:4px;`
    + `padding:1px 5px;margin:1px;display:inline-block;font-family:monospace">${escapeHtml(readable(tok))}</span>`).join(" ");
  const warnings = t.notes.map((n) => "<div class='ae-advice' role='status' style='margin-bottom:6px;padding:6px 10px;"
    + `background:#fff4e5;border-left:4px solid #b45309;font-size:0.9375rem'>\u26a0 ${headlined(n, source)}</div>`).join("");
  return `<div class='ae-pieces'>${warnings}<div class='ae-src-line'><span class='ae-src-count'>`
    + `${w.t("server.pieces.source", { n: t.srcPieces.length })} ${chips(t.srcPieces, "#e8f0fe")}</span>`
    + `<span class='ae-src-later'>${w.t("server.pieces.later")}</span></div>`
    + `<div class='ae-out-line' style='margin-top:4px'>${w.t("server.pieces.output", { n: t.outPieces.length })} `
    + `${confidenceChips(w, t.outPieces, t.probs, t.est, target)}</div>`
    + `<div style='margin-top:2px;font-size:0.8125rem;color:#555'>${chipsKey(w)}</div>`
    + `<details style='font-size:0.8125rem;color:#555'><summary>${w.t("server.pieces.what")}</summary>`
    + `${w.t("server.pieces.key", { n: w.num(t.vocab, 0) })}</details></div>`;
}

// task_words.py task_keys: each field of the model's task card -> its catalogue key while the English is the card's own
export function taskKeys(english, model, task) {
  return Object.fromEntries(TASK_FIELDS.map((f) => {
    const key = `server.task.${model}.${f}`;
    return [f, task[f] && english[key] === task[f] ? key : null];
  }));
}

// what handlers.py page adds to page_data (the request and the positional table's facts are the caller's)
export function extras(outPieces, probs, est, model, task, english) {
  return {
    note: "",
    may_be_wrong: est ? { flagged: est.flagged, p: pyRound(est.probability, 3), words: est.words, missing: est.missing,
                          dropped: est.dropped } : null,
    unsure: unsureWords(outPieces.slice(0, -1), probs, CHIP_SHADES[1][0]).map(([word, p]) => ({ word, p: pyRound(p, 6) })),
    task: { source: task.source, target: task.target },
    task_keys: taskKeys(english, model, task),
  };
}

// What is said beside one greedy translation, as the server says it: the lines under it (a repetition loop, said with
// ``loopKey`` where given, the offline bundle's; else advice() with what the estimate flagged), the extras of the
// page's copy and the pieces' HTML. m: a loaded checkpoint ({ cfg, tokenizer, task }); ids: the source's; r: greedy's.
// (worker.js, cli.js --pieces and the offline bundle's worker: one copy)
export function beside(w, m, name, ids, r, est, loopKey) {
  const { cfg, tokenizer } = m, card = m.task || {};
  const outIds = r.ids.concat([cfg.eos_id]), outPieces = outIds.map((i) => tokenizer.piece(i));
  const probs = r.steps.map((st) => st.p);
  const notes = loopKey ? loopAdvice(w, outIds, outPieces, loopKey) : advice(w, outIds, outPieces, est, card.hint || "");
  return { notes, extras: extras(outPieces, probs, est, name, card, w.english),
           pieces: piecesHtml(w, { srcPieces: ids.map((i) => tokenizer.piece(i)), outPieces, probs, notes, est,
                                   vocab: cfg.vocab_size, languages: [card.source || "", card.target || ""] }) };
}
