// The guided lesson: eight stops in teaching order, each on the student's own translation. Each stop opens the
// right view, asks a question *before* showing the answer (predict, then reveal), checks the answer against the
// model's own numbers in the page's copy of the analysis (the bank), and explains; after the last stop, the score
// and what each stop showed. Answers are A-D (keys A-D or 1-4), → / ← move (only while the focus is in the lesson:
// a letter typed anywhere else is no answer).
// Loaded after views.js and links.js; draws into #ae-lesson, docked over the page while the lesson runs.
(function () {
  const AE = window.AE;
  const lesson = { stop: -1, answered: null, first: [], restart: false };

  const argmax = (xs) => xs.reduce((best, x, i) => (x > xs[best] ? i : best), 0);
  const mean = (heads, i) => heads[0][i].map((_, j) => heads.reduce((s, h) => s + h[i][j], 0) / heads.length);

  // Options: the right one among distinct others, in a fixed order (no randomness: the same sentence, the same stop):
  // numbers in numeric order, anything else alphabetically. They are labelled A-D (a number is never mistaken for
  // an option's number).
  const LETTERS = "ABCD";
  const isNumber = (o) => /^-?\d+(\.\d+)?$/.test(o);
  function options(right, others) {
    const all = [right];
    for (const o of others) if (!all.includes(o) && all.length < 4) all.push(o);
    const order = all.every(isNumber) ? all.slice().sort((a, b) => Number(a) - Number(b))
      : all.slice().sort((a, b) => a.localeCompare(b));
    return { options: order, answer: order.indexOf(right) };
  }

  const STOPS = [
    { title: "1. Tokens and embeddings", view: { tab: "attend" }, focus: "#pieces",
      recap: "Your sentence is cut into pieces, each a vector.",
      look: "Above the tabs, <i>Source pieces</i> shows how your sentence was cut into pieces: each piece becomes a " +
        "vector of numbers (its embedding) before anything else happens.",
      ask: (b) => {
        const n = b.src.length;
        return Object.assign(options(String(n), [String(n - 1), String(n + 1), String(n + 2)]), {
          prompt: "Without looking: into how many pieces (counting [EOS]) was your sentence cut?",
          explain: "The tokenizer made " + n + " pieces: " + b.src.join(" ") + ". Rare words split into several " +
            "pieces (·en continues the piece before it); [EOS] marks the end." });
      } },
    { title: "2. Positional encoding", view: { tab: "pe" }, focus: "#pe-table",
      recap: "Each position adds its own waves: that is how word order gets in.",
      look: "Attention alone does not know word order. The model adds to each embedding a vector that depends only on " +
        "the position: sines and cosines of different frequencies (PE(pos, 2i+1) = cos(pos / 10000^(2i/d))).",
      ask: () => Object.assign(options("1", ["0", "-1", "0.5"]), {
        prompt: "What is the value at position 0 in dimension 1 (a cosine)?",
        explain: "cos(0) = 1: every odd dimension starts at 1 and every even one (a sine) at 0. Look at the top " +
          "row of the PE matrix." }) },
    { title: "3. One head: q, k, scores, softmax, v", view: { tab: "inside" }, focus: "#inside-plot",
      recap: "A head: q·k scores, a softmax that sums to 1, a weighted mix of values.",
      look: "Inside one head, the query vector q of one token is compared with every key vector k (a dot product, " +
        "divided by √d_k); a softmax turns the scores into weights; the output is the weighted sum of the values v.",
      ask: () => Object.assign(options("1", ["the number of keys", "0", "d_k"]), {
        prompt: "After the softmax, the weights of one query add up to…",
        explain: "1: the softmax makes a probability distribution over the keys, so the output is a weighted " +
          "average of the value vectors (panel 4)." }) },
    { title: "4. Many heads and W_O", view: { tab: "attend" }, focus: "#model-view",
      recap: "Several heads per layer look in different ways; W_O combines them.",
      look: "Each layer runs several heads side by side, each with its own W_Q, W_K, W_V; their outputs are " +
        "concatenated and mixed by W_O. The model view shows every layer and head.",
      ask: (b) => Object.assign(options(String(b.heads), [String(b.heads * 2), "1", String(b.heads + 2)]), {
        prompt: "How many heads does each layer of this model have?",
        explain: b.heads + " heads: the model view has " + b.heads + " columns. Each head looks at the sentence " +
          "in its own way; W_O combines what they found." }) },
    { title: "5. Residual, LayerNorm, feed-forward", view: { tab: "attend" }, focus: "#tabs",
      recap: "Only attention mixes positions; the feed-forward works on each alone.",
      look: "Around every sub-layer the input is added back (the residual connection) and normalised (LayerNorm); " +
        "after attention comes a feed-forward network of two linear layers with a ReLU.",
      ask: () => Object.assign(options("each position on its own", ["all positions together", "only the first token",
        "only the last token"]), {
        prompt: "Attention mixes information between positions. The feed-forward network works on…",
        explain: "Each position on its own, with the same weights: FFN(x) = max(0, xW₁ + b₁)W₂ + b₂. Only attention " +
          "moves information between tokens." }) },
    { title: "6. Cross-attention: where the decoder looks", view: { tab: "attend", kind: "Cross-attention" }, focus: "#heatmap",
      recap: "Each German position looks at the English word it translates.",
      look: "In cross-attention each row is a German decoder position and each column an English source token. " +
        "The row is where the model picks its next word.",
      ask: (b) => {
        const heads = b.att.cross[b.att.cross.length - 1];
        let row = 1, best = -1;  // the row (not [BOS]) whose strongest weight is strongest, EOS excluded
        for (let i = 1; i < b.tgt.length; i++) {
          const w = mean(heads, i).slice(0, b.src.length - 1);
          if (w.length && Math.max(...w) > best) { best = Math.max(...w); row = i; }
        }
        const w = mean(heads, row), right = argmax(w.slice(0, b.src.length - 1));
        const order = w.map((x, j) => j).filter((j) => j !== right).sort((a, c) => w[c] - w[a]);
        const picked = [right, ...order.slice(0, 3)].map((j) => b.src[j] + " (#" + j + ")");
        return Object.assign(options(picked[0], picked.slice(1)), {
          prompt: "The row “" + b.tgt[row] + "” (where the model chose “" + b.out[row] + "”): which source token " +
            "does it look at most, in the last layer, all heads averaged?",
          explain: "“" + b.src[right] + "”, with weight " + (w[right] / 1000).toFixed(2) + ": the decoder looks at the " +
            "English word it is about to translate. Find the row in the heatmap." });
      } },
    { title: "7. Decoding, one token at a time", view: { tab: "steps" }, focus: "#step-plot",
      recap: "The decoder writes one piece per step, from a probability distribution.",
      look: "The decoder writes one token per step: at each step a probability distribution over every piece it knows, " +
        "and greedy decoding takes the most likely one. Beam search keeps several prefixes instead.",
      ask: (b) => {
        // a step whose piece starts a word (not punctuation, not [EOS]), the first after the first if there is one
        const starts = (x) => x && !x.startsWith("·") && /[\p{L}\p{N}]/u.test(x) && !/^\[[A-Z]+\]$/.test(x);
        const candidates = b.steps.map((_, i) => i).filter((i) => i < b.out.length && starts(b.out[i]));
        const t = candidates.find((i) => i >= 1) ?? candidates[0] ?? 0, st = b.steps[t];
        // the model's word: its chosen piece and the pieces that continued it
        let end = t + 1;
        while (end < b.out.length && b.out[end].startsWith("·")) end++;
        const word = b.out.slice(t, end).map((x, j) => (j ? x.slice(1) : x)).join("");
        // the others: what else it considered at that step, as words (a piece that begins the model's own word, or
        // continues another, is no other answer)
        const others = st.top.filter((x) => starts(x) && !word.startsWith(x) && x !== st.chosen);
        const prefix = b.tgt.slice(0, t + 1).join(" ");
        return Object.assign(options(word, others), {
          prompt: "At step " + t + " the decoder had “" + prefix + "”. Which word did it write next?",
          explain: "“" + word + "”" + (end - t > 1 ? " (in " + (end - t) + " pieces: first “" + st.chosen + "”, p = " :
            " (p = ") + (st.pick >= 0 ? st.p[st.pick].toFixed(2) : st.chosen_p.toFixed(2)) +
            "). Move the step slider to see every step." });
      } },
    { title: "8. What heads do: the logit lens", view: { tab: "experiments" }, focus: "#lens-plot",
      recap: "The right word comes out on top only after some layers.",
      look: "The logit lens applies the output projection after every decoder layer, not only the last: where " +
        "does the right word first appear? (Head ablation, on the same tab, switches heads off.)",
      ask: (b) => {
        const L = b.lens.words.length, T = b.lens.words[0].length;
        let t = 0, first = 0;  // the position whose final word appears latest
        for (let i = 0; i < T; i++) {
          let f = L - 1;
          while (f > 0 && b.lens.words[f - 1][i] === b.lens.words[L - 1][i]) f--;
          if (f > first) { first = f; t = i; }
        }
        const layers = [...Array(L).keys()].map((l) => "after layer " + l);
        return Object.assign(options(layers[first], layers), {
          prompt: "At position " + t + " (“" + b.tgt[t] + "”) the model finally predicts “" + b.lens.words[L - 1][t] +
            "”. After which layer does that word first appear on top?",
          explain: "After layer " + first + ": the earlier layers still predict something else. Find column " + t +
            " in the logit lens." });
      } },
  ];

  function body() { return document.getElementById("ae-lesson"); }
  const stopKey = () => "stop " + (lesson.stop + 1);  // a class room's name for this stop
  const touch = () => window.matchMedia && window.matchMedia("(hover: none)").matches;

  function render() {
    const el = body(), b = AE.current();
    if (!el) return;
    el.classList.add("ae-docked");  // over the page, beside the view it asks about (app.py's CSS)
    el.scrollTop = 0;
    const close = "<button class='ae-close' onclick='AE.lesson.end()' aria-label='Close the lesson'>✕</button>";
    if (!b || !b.att) { el.innerHTML = close + "<p>Translate a sentence first: the lesson asks about your translation.</p>"; return; }
    if (lesson.stop >= STOPS.length) { el.innerHTML = close + ending(); led(); return; }
    const stop = STOPS[lesson.stop], q = stop.ask(b);
    lesson.q = q;
    lesson.asked = b;
    led(q);
    const buttons = q.options.map((o, i) => "<button class='ae-answer' data-i='" + i + "' onclick='AE.lesson.answer(" + i +
      ")'><b>" + LETTERS[i] + "</b> " + o + "</button>").join(" ");
    let reveal = "";
    if (lesson.answered !== null) {
      const right = lesson.answered === q.answer;
      reveal = "<div class='ae-reveal " + (right ? "ae-right" : "ae-wrong") + "'>" +
        (right ? "<b>Right.</b> " : "<b>Not quite</b>: you chose “" + q.options[lesson.answered] + "”. The model's answer: ") +
        q.explain + "</div>";
    }
    const tally = AE.room && AE.room.revealed(stopKey());  // the class's answers, once the teacher reveals them
    if (tally) {
      reveal += "<div class='ae-class-tally'><b>The class</b> (" + tally.answered + " answered): " + tally.counts.map((n, i) =>
        LETTERS[i] + " " + n + (i === q.answer ? " ✓" : "")).join(" · ") + "</div>";
    }
    const keys = touch() ? "" : " <small>keys: A-" + LETTERS[q.options.length - 1] + " (or 1-" + q.options.length +
      ") answer, ← → move</small>";
    const moved = lesson.moved ? "<p class='ae-status ae-stale ae-class-moved'>" + AE.esc(lesson.moved) + "</p>" : "";
    el.innerHTML = close + "<div class='ae-stop'><h3>" + stop.title + " <small>(stop " + (lesson.stop + 1) + " of " +
      STOPS.length + ")</small></h3>" + moved + "<p>" + stop.look + "</p><p><b>Predict:</b> " + q.prompt + "</p><div>" + buttons +
      "</div>" + reveal + "<p class='ae-nav'><button onclick='AE.lesson.go(-1)'" + (lesson.stop ? "" : " disabled") +
      ">← Back</button> <button onclick='AE.lesson.go(1)'>" + (lesson.stop === STOPS.length - 1 ? "Finish →" : "Next →") +
      "</button>" + keys + "</p></div>";
  }

  // After the last stop: the score (first answers), what each stop showed, and where to go next.
  function ending() {
    const answered = lesson.first.filter((r) => r !== undefined).length;
    const right = lesson.first.filter((r) => r === true).length;
    const rows = STOPS.map((st, i) => "<li>" + (lesson.first[i] === true ? "✓" : lesson.first[i] === false ? "✗" : "–") +
      " <b>" + st.title.replace(/^\d+\. /, "") + "</b>: " + st.recap + "</li>").join("");
    return "<div class='ae-stop ae-end'><h3>Lesson done</h3><p class='ae-score'><b>Score: " + right + " of " +
      STOPS.length + "</b> predictions right the first time" + (answered < STOPS.length ? " (" + (STOPS.length - answered) +
      " not answered)" : "") + ".</p><ol class='ae-recap'>" + rows + "</ol><p class='ae-nav'>" +
      "<button onclick='AE.lesson.go(-1)'>← Back</button> <button onclick='AE.lesson.again()'>Try another sentence</button> " +
      "<button onclick='AE.lesson.start()'>Start again</button></p></div>";
  }

  // The stop's view: its tab (and attention type), then the part the question is about scrolled into sight
  function show(stop) {
    AE.showView(stop.view);
    setTimeout(() => {
      const el = document.querySelector(stop.focus);
      if (el && el.scrollIntoView) el.scrollIntoView({ behavior: "smooth", block: "start" });
    }, 120);
  }

  function go(delta) {
    lesson.moved = "";
    lesson.stop = Math.max(0, Math.min(STOPS.length, lesson.stop + delta));
    lesson.answered = null;
    if (lesson.stop < STOPS.length) show(STOPS[lesson.stop]);
    render();
  }

  function start() {
    lesson.stop = 0; lesson.answered = null; lesson.first = [];
    show(STOPS[0]);
    render();
  }

  // "Try another sentence": the sentence box in sight and focused; the lesson starts again on the next translation
  function again() {
    end();
    const box = document.querySelector("#sentence textarea");
    if (box) { box.scrollIntoView({ behavior: "smooth", block: "center" }); box.focus(); box.select(); }
    lesson.restart = true;
  }

  function end() {
    lesson.stop = -1;
    led();
    const el = body();
    if (!el) return;
    el.classList.remove("ae-docked");
    el.innerHTML = "<p>Lesson closed.</p><button id='ae-lesson-start' onclick='AE.lesson.start()'>Start the lesson</button>";
  }

  function answer(i) {
    if (!lesson.q || lesson.stop < 0 || lesson.stop >= STOPS.length || i < 0 || i >= lesson.q.options.length) return;
    if (lesson.first[lesson.stop] === undefined) {
      lesson.first[lesson.stop] = i === lesson.q.answer;
      if (AE.room) AE.room.answer(stopKey(), i, lesson.q.options.length);  // in a class: into its tally, once
    }
    lesson.answered = i;
    render();
  }

  // a new translation while the lesson runs: the same stop asks again about the new sentence
  function refresh() {
    if (lesson.restart) { lesson.restart = false; start(); return; }
    if (lesson.stop >= 0 && lesson.stop < STOPS.length && body() && body().classList.contains("ae-docked")) {
      // a new analysis asks the stop again; the same one (a view's chain ending after the student answered) keeps
      // the answer and its feedback (views.js parses each analysis once: the same analysis is the same object)
      if (!AE.current || AE.current() !== lesson.asked) lesson.answered = null;
      render();
    }
  }

  document.addEventListener("keydown", (e) => {
    if (lesson.stop < 0 || !body()) return;
    if (AE.state.present && AE.state.tab === "steps") return;  // there the arrows move the decoding step
    const target = e.target || {};
    if (["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName) || target.isContentEditable) return;
    if (!target.closest || !target.closest("#ae-lesson")) return;  // single keys act only inside the lesson (WCAG 2.1.4)
    if (e.key === "ArrowRight") go(1);
    else if (e.key === "ArrowLeft") go(-1);
    else if (/^[1-9]$/.test(e.key)) answer(Number(e.key) - 1);
    else if (/^[a-dA-D]$/.test(e.key) && !e.ctrlKey && !e.metaKey && !e.altKey) answer(LETTERS.indexOf(e.key.toUpperCase()));
  });

  // a class room's news (a tally revealed): the stop shown again with it
  function refreshClass() {
    if (lesson.stop >= 0 && lesson.stop < STOPS.length && body() && body().classList.contains("ae-docked")) render();
  }

  // A class the teacher leads: the teacher's lesson tells the room where it is (class.js posts it only for a teacher,
  // with the question's options for the panel's tally); a following student's lesson goes there (at), and each
  // answers on their own page. A student exploring on their own is never moved (class.js does not call at).
  function led(q) {
    if (AE.room && AE.room.lessonAt) AE.room.lessonAt(lesson.stop, q);
  }

  function at(stop, tries) {
    if (!body()) {  // Gradio draws the fold's content when it opens: open it, then go on
      const fold = document.querySelector("#lesson-box .label-wrap, #lesson-box > button");
      if (fold && !tries) fold.click();
      if ((tries || 0) < 50) setTimeout(() => at(stop, (tries || 0) + 1), 100);
      return;
    }
    if (stop < 0 || stop === lesson.stop) return;
    lesson.stop = Math.min(stop, STOPS.length);
    lesson.answered = null;
    lesson.moved = "";
    if (lesson.stop < STOPS.length) show(STOPS[lesson.stop]);
    render();
  }

  // Following moved the page while a question is open: the question stays, and says so. -> whether it did (a
  // following page about to show ``tab`` with the lesson going to ``stop``)
  function moving(tab, stop) {
    const open = body() && body().classList.contains("ae-docked");
    const at = stop >= 0 ? stop : lesson.stop;
    if (!open || !tab || at < 0 || at >= STOPS.length || STOPS[at].view.tab === tab) return false;
    lesson.moved = "The teacher moved the class to another view. Your question stays here: “" +
      STOPS[at].title.replace(/^\d+\. /, "") + "” is on the tab the lesson opened (← Back / Next → go on as before).";
    if (at === lesson.stop) render();
    return true;
  }

  AE.lesson = { start, go, answer, end, again, refresh, refreshClass, at, moving, state: lesson, stops: STOPS.length };
})();
