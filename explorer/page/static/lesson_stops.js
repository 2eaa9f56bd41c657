// The guided lesson's eight stops (lesson.js runs them; the offline bundle's page too, explorer/offline/static):
// each names its view, and its question is made from the page's copy of one translation (the bank) and checked
// against the model's own numbers there. Each option has a language-free id, so that a class's answers count the
// same option whatever language each page reads. AE.lessonStops: { STOPS (their words in the page's language),
// LETTERS, option (an option's HTML, its sentence's language marked) }.
// Loaded after views.js (AE.weights) and figures.js where the page has it (AE.figures.num: a weight as its summary
// writes it).
(function () {
  const AE = window.AE;
  // (figures.js's number where the page has it: the heatmap's summary says the same; else two decimals)
  const weightText = (x) => (AE.figures && AE.figures.num ? AE.figures.num(x) : AE.num(x, 2));
  const argmax = (xs) => xs.reduce((best, x, i) => (x > xs[best] ? i : best), 0);

  // Options: the right one among distinct others, in a fixed order (no randomness: the same sentence, the same stop,
  // the same order in every language, so that a class's answers count the same option whatever each page speaks):
  // numbers in numeric order, anything else by its language-free id (a token, or the option's English text). Each
  // option is {id, text, lang?} (text: what the page shows, plain; lang: the sentence's language of a token) or a
  // token string (its own id and text). They are labelled A-D (a number is never mistaken for an option's number).
  const LETTERS = "ABCD";
  const english = (key) => ((window.AE_I18N || {}).en || {})[key] || key;
  const said = (key) => ({ id: english(key), text: AE.t(key) });  // an option in words: sorted by its English text
  const number = (x) => {  // a number as an option: its value sorts, the language writes it (0.5 / 0,5)
    const decimals = (String(x).split(".")[1] || "").length;
    return { id: x, text: AE.num(x, decimals) };
  };
  const item = (o) => (typeof o === "object" ? o : { id: o, text: o });
  const isNumber = (id) => typeof id === "number" || /^-?\d+(\.\d+)?$/.test(id);
  function options(right, others) {
    const all = [item(right)];
    for (const o of others.map(item)) if (!all.some((a) => a.id === o.id) && all.length < 4) all.push(o);
    const order = all.every((o) => o.at !== undefined) ? all.slice().sort((a, b) => a.at - b.at)  // positions: in order
      : all.every((o) => isNumber(o.id)) ? all.slice().sort((a, b) => Number(a.id) - Number(b.id))
      : all.slice().sort((a, b) => String(a.id).localeCompare(String(b.id), "en"));
    return { options: order.map((o) => o.text), langs: order.map((o) => o.lang || ""), answer: order.indexOf(all[0]),
      ids: order.map((o) => String(o.id)) };  // the same in every language: a class room tells one question from another
  }

  // the sentence's own words inside the lesson's text carry their language (en-de: English source, German output)
  const langs = (b) => {
    try { return JSON.parse(b.request || "{}").model === "en-de" ? ["en", "de"] : null; } catch (e) { return null; }
  };
  const inLang = (b, side) => (x) => { const l = langs(b); return l ? "<span lang='" + l[side] + "'>" + x + "</span>" : x; };
  const langOf = (b, side) => (langs(b) || [])[side] || "";
  const option = (q, i) => (q.langs[i] ? "<span lang='" + q.langs[i] + "'>" + q.options[i] + "</span>" : q.options[i]);

  const STOPS = [
    { title: "lesson.s1.title", look: "lesson.s1.look", recap: "lesson.s1.recap",
      // the heatmap, whose columns the class counts: the source pieces above it are covered until the question is
      // answered, and so is the count of output pieces, which is not the answer (helper 31: a phone showed the
      // pieces' line with "Output pieces (10)", one of the options, and the heatmap wholly under the sheet)
      view: { tab: "attend" }, focus: "#heatmap", present: "#heatmap",
      ask: (b) => {
        const n = b.src.length;
        return Object.assign(options(number(n), [n - 1, n + 1, n + 2].map(number)), {
          prompt: AE.t("lesson.s1.prompt"),
          explain: AE.t("lesson.s1.explain", { n, pieces: inLang(b, 0)(b.src.join(" ")) }) });
      } },
    { title: "lesson.s2.title", look: "lesson.s2.look", recap: "lesson.s2.recap",
      view: { tab: "pe" }, focus: "#pe-table",
      ask: () => Object.assign(options(number(1), [0, -1, 0.5].map(number)), {
        prompt: AE.t("lesson.s2.prompt"), explain: AE.t("lesson.s2.explain") }) },
    { title: "lesson.s3.title", look: "lesson.s3.look", recap: "lesson.s3.recap",
      // (its question is on panel 4, the weights: on a phone that panel's row is brought above the sheet)
      view: { tab: "inside" }, focus: "#inside-plot", panel: 4,
      ask: () => Object.assign(options({ id: "1", text: "1" }, [said("lesson.s3.keys"), { id: "0", text: "0" }, { id: "d_k", text: "d_k" }]), {
        prompt: AE.t("lesson.s3.prompt"), explain: AE.t("lesson.s3.explain") }) },
    { title: "lesson.s4.title", look: "lesson.s4.look", recap: "lesson.s4.recap",
      view: { tab: "attend" }, focus: "#model-view",
      ask: (b) => Object.assign(options(number(b.heads), [b.heads * 2, 1, b.heads + 2].map(number)), {
        prompt: AE.t("lesson.s4.prompt"), explain: AE.t("lesson.s4.explain", { n: b.heads }) }) },
    { title: "lesson.s5.title", look: "lesson.s5.look", recap: "lesson.s5.recap",
      // (the heatmap: attention, which mixes positions; and "Where am I" open with the feed-forward parts marked and
      // their note, where the page has it (helper 81: the question on the feed-forward network was asked over a
      // heatmap alone); the tab bar it showed before left a phone's sheet over everything but the tabs. The focus:
      // the drawing, else (the offline page) the heatmap: querySelector takes the first in the page's order)
      view: { tab: "attend", parts: ["enc_ffn", "dec_ffn"] }, focus: "#ae-figure1, #heatmap",
      ask: () => Object.assign(options(said("lesson.s5.each"), [said("lesson.s5.all"), said("lesson.s5.first"), said("lesson.s5.last")]), {
        prompt: AE.t("lesson.s5.prompt"), explain: AE.t("lesson.s5.explain") }) },
    { title: "lesson.s6.title", look: "lesson.s6.look", recap: "lesson.s6.recap",
      view: { tab: "attend", kind: "Cross-attention" }, focus: "#heatmap",
      ask: (b) => {
        // (Tq, Tk) the heatmap's own cells: the heads' mean in per mille (views.js), so the answer and its weight are
        // what the figure and its summary show (audit 56 read 0.99 here and 0.98 in the summary for the same cell)
        const layer = b.att.cross.length - 1, cells = AE.weights(b, "cross", layer, null);
        let row = 1, best = -1;  // the row (not [BOS]) whose strongest weight is strongest, EOS excluded
        for (let i = 1; i < b.tgt.length; i++) {
          const w = cells[i].slice(0, b.src.length - 1);
          if (w.length && Math.max(...w) > best) { best = Math.max(...w); row = i; }
        }
        const w = cells[row], right = argmax(w.slice(0, b.src.length - 1));
        const order = w.map((x, j) => j).filter((j) => j !== right).sort((a, c) => w[c] - w[a]);
        const src = inLang(b, 0), tgt = inLang(b, 1);
        const picked = [right, ...order.slice(0, 3)].map((j) => ({ id: b.src[j] + " (#" + j + ")", text: b.src[j] + " (#" + j + ")",
          at: j, lang: langOf(b, 0) }));
        return Object.assign(options(picked[0], picked.slice(1)), {
          view: { kind: "Cross-attention", layer, head: "all heads (mean)" },  // what it asks about
          prompt: AE.t("lesson.s6.prompt", { row: tgt(b.tgt[row]), word: tgt(b.out[row]) }),
          explain: AE.t("lesson.s6.explain", { token: src(b.src[right]), weight: weightText(w[right]) }) });
      } },
    { title: "lesson.s7.title", look: "lesson.s7.look", recap: "lesson.s7.recap",
      view: { tab: "steps" }, focus: "#step-plot",
      ask: (b) => {
        // a step whose piece starts a word (not punctuation, not [EOS]), the first after the first if there is one
        const starts = (x) => x && !x.startsWith("·") && /[\p{L}\p{N}]/u.test(x) && !/^\[[A-Z]+\]$/.test(x);
        const candidates = b.steps.map((_, i) => i).filter((i) => i < b.out.length && starts(b.out[i]));
        const at = candidates.find((i) => i >= 1) ?? candidates[0] ?? 0, st = b.steps[at];
        // the model's word: its chosen piece and the pieces that continued it
        let end = at + 1;
        while (end < b.out.length && b.out[end].startsWith("·")) end++;
        const word = b.out.slice(at, end).map((x, j) => (j ? x.slice(1) : x)).join("");
        // the others: what else it considered at that step, as words (a piece that begins the model's own word, or
        // continues another, is no other answer)
        const others = st.top.filter((x) => starts(x) && !word.startsWith(x) && x !== st.chosen);
        const tgt = inLang(b, 1), shown = (x) => ({ id: x, text: x, lang: langOf(b, 1) });
        const prefix = b.tgt.slice(0, at + 1).join(" ");
        const p = AE.num(st.pick >= 0 ? st.p[st.pick] : st.chosen_p, 2);
        return Object.assign(options(shown(word), others.map(shown)), {
          view: { step: at },  // the step plot at the step it asks about
          prompt: AE.t("lesson.s7.prompt", { step: at, prefix: tgt(prefix) }),
          explain: end - at > 1 ? AE.t("lesson.s7.explain_pieces", { word: tgt(word), n: end - at, first: tgt(st.chosen), p }) :
            AE.t("lesson.s7.explain", { word: tgt(word), p }) });
      } },
    { title: "lesson.s8.title", look: "lesson.s8.look", recap: "lesson.s8.recap",
      view: { tab: "experiments" }, focus: "#lens-plot",
      ask: (b) => {
        const L = b.lens.words.length, T = b.lens.words[0].length;
        let at = 0, first = 0;  // the position whose final word appears latest
        for (let i = 0; i < T; i++) {
          let f = L - 1;
          while (f > 0 && b.lens.words[f - 1][i] === b.lens.words[L - 1][i]) f--;
          if (f > first) { first = f; at = i; }
        }
        const layers = [...Array(L).keys()].map((l) => ({ id: l, text: AE.t("lesson.s8.option", { layer: l }) }));
        const tgt = inLang(b, 1);
        return Object.assign(options(layers[first], layers), {
          prompt: AE.t("lesson.s8.prompt", { position: at, token: tgt(b.tgt[at]), word: tgt(b.lens.words[L - 1][at]) }),
          explain: AE.t("lesson.s8.explain", { layer: first, position: at }) });
      } },
  ];
  // each stop's words, named above by their catalogue keys: its title ("1. Tokens and embeddings"), what to look at,
  // and its line in the recap
  for (const stop of STOPS) for (const part of ["title", "look", "recap"]) stop[part] = AE.t(stop[part]);

  AE.lessonStops = { STOPS, LETTERS, option };
})();
