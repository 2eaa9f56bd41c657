// The guided lesson: eight stops in teaching order, each on the student's own translation. Each stop opens the
// right view, asks a question *before* showing the answer (predict, then reveal), checks the answer against the
// model's own numbers in the page's copy of the analysis (the bank), and explains; after the last stop, the score
// and what each stop showed. Answers are A-D (keys A-D or 1-4), → / ← move (only while the focus is in the lesson:
// a letter typed anywhere else is no answer).
// Loaded after views.js and links.js; draws into #ae-lesson, docked over the page while the lesson runs.
(function () {
  const AE = window.AE;
  // (chose: this page's answer at each stop, by its question's ids, for a stop gone back to alone; a class's is the room's)
  const lesson = { stop: -1, answered: null, first: [], firstOf: [], chose: [], restart: false };

  const { STOPS, LETTERS, option } = AE.lessonStops;  // (lesson_stops.js: the stops and their questions)

  function body() { return document.getElementById("ae-lesson"); }
  const stopKey = () => "stop " + (lesson.stop + 1);  // a class room's name for this stop
  const touch = () => window.matchMedia && window.matchMedia("(hover: none)").matches;

  function render() {
    const el = body(), b = AE.current();
    if (!el) return;
    el.classList.add("ae-docked");  // over the page, beside the view it asks about (style.css)
    document.documentElement.classList.add("ae-lesson-docked");  // (said on <html>: no `:has()` over the page)
    const fresh = lesson.drawn !== lesson.stop;
    if (fresh) el.scrollTop = 0;  // a new stop from its top; an answer keeps the place
    lesson.drawn = lesson.stop;
    marked();
    const close = "<button class='ae-close' onclick='AE.lesson.end()' aria-label='" + AE.esc(AE.t("lesson.close")) + "'>✕</button>";
    // out of the way without ending the lesson (a phone's sheet over the view its question is about): folded to its
    // title, the answers kept; a new stop opens unfolded
    const folded = lesson.folded === lesson.stop;
    el.classList.toggle("ae-folded", folded);
    // ▾ Hide / ▴ Show: a stop's, or the end's (an action of its own, "fold('end')": a focus on a stop's Hide, where →
    // brought the lesson to its end, goes to the end's title, as it did before the end could fold: a11y.js keeps a
    // focus only on the same action)
    const foldButton = (action, label, unfold) => "<button class='ae-fold' onclick='AE.lesson.fold(" + action +
      ")' aria-expanded='" + !folded + "'" + (folded ? "" : " aria-label='" + AE.esc(AE.t(label)) + "'") + ">" +
      (folded ? AE.t(unfold) : foldWords(AE.t("lesson.fold"))) + "</button>";
    const fold = foldButton("", "lesson.fold_label", "lesson.unfold");
    if (!b || !b.att) { el.innerHTML = close + "<p>" + AE.t("lesson.translate_first") + "</p>"; return; }
    // the end folds too (its score and recap out of the way: audit 61, at 320x640 with the text doubled the sheet
    // left 77 px above it and Tab out of it to Presentation mode, 96 px tall, put that under it, 7 of 7)
    if (lesson.stop >= STOPS.length) {
      const foldEnd = foldButton('\"end\"', "lesson.fold_end_label", "lesson.unfold_end");
      el.innerHTML = "<span class='ae-head-buttons'>" + foldEnd + close + "</span>" + ending();
      led();
      return;
    }
    // while a student's view is shown to everyone, and until the question's own sentence is back, the question stays
    // the one the class was answering, waiting (helper 26: at stop 6 a shown layer-1 view of another sentence made a
    // new question about the last layer of that sentence, which no screen showed; Bring everyone back then asked the
    // first again from nobody, its answers gone)
    const held = lesson.held && (lesson.showing || b !== lesson.held.bank) ? lesson.held : null;
    const stop = STOPS[lesson.stop], q = held ? held.q : about(stop.ask(b), b);
    lesson.q = q;
    // in a class, an answer this student gave before a reload (or a language switch, or a new analysis of the same
    // sentence, or the teacher going Back to a stop) is theirs still: taken from the room whenever the page shows the
    // room's sentence (a page that first showed another sentence, its own example or a view of its own, asked another
    // question: it marked that one)
    const heard = roomSentence(b);
    // (and only an answer to this question: a view shown to everyone is a new one, whose answers start afresh, and
    // this page may have it before the room does: then the room's answer is to the old one, and no answer here)
    const room = heard && AE.room.asked ? AE.room.asked(stopKey()) : null;
    const same = !room || !q.ids || JSON.stringify(room) === JSON.stringify(q.ids);
    // (not once per analysis: a student whose teacher went Back to a stop saw their answer there unmarked, with no
    // feedback, and could answer again on their page only: helper 20)
    // (alone, the answer this page gave at the stop, for the same question: a stop gone back to shows it, marked,
    // with its feedback; audit 55: unmarked, as if lost, while the score kept it)
    const mine = lesson.chose[lesson.stop];
    const kept = heard ? (same ? AE.room.mine(stopKey()) : null) :
      q && q.ids && mine && mine.ids === JSON.stringify(q.ids) ? mine.i : null;
    if (lesson.answered === null && kept !== null && kept < q.options.length) {
      lesson.answered = kept;
      firstAnswer(lesson.stop, q, kept);
    }
    if (!held) lesson.asked = b;
    // a question not answered yet (nor revealed to the class): what would give its answer away stays covered
    // (stop 1: the count of source pieces above the tabs; style.css)
    cover();
    led(q);
    // once answered: the answer given marked ✓ where right and ✗ where not, and the right one ✓ (helper 76: a wrong
    // answer bore the same ✓ as a right one, and the right one was never shown among the options)
    const mark = (i) => (lesson.answered === i ? " ae-chosen" : "") + (lesson.answered !== null && i === q.answer ? " ae-is-right" : "");
    const buttons = q.options.map((_, i) => "<button class='ae-answer" + mark(i) +
      "' data-i='" + i + "' aria-pressed='" + (lesson.answered === i) + "'" + (held || lesson.waits ? " disabled" : "") +
      " onclick='AE.lesson.answer(" + i + ")'><b>" + LETTERS[i] + "</b> " + option(q, i) + "</button>").join(" ");
    let reveal = "";
    if (lesson.answered !== null) {
      const right = lesson.answered === q.answer;
      reveal = "<div class='ae-reveal " + (right ? "ae-right" : "ae-wrong") + "'>" +
        (right ? AE.t("lesson.right") : AE.t("lesson.wrong", { choice: option(q, lesson.answered) })) + " " + q.explain +
        "</div>";
      // another answer tried after the first: the score and the class's count keep the first, said under it (helper
      // 87: a phone tapped A after its B was counted, saw "Not quite: you chose 10" and could not tell which counted)
      const first = lesson.firstOf[lesson.stop];
      if (first && first.ids === JSON.stringify(q.ids || null) && first.i !== lesson.answered && first.i < q.options.length) {
        reveal += "<p class='ae-status ae-first-counts'>" + AE.esc(AE.t("lesson.first_counts", { letter: LETTERS[first.i] })) + "</p>";
      }
    }
    // a student's answer to a question of their own (their own sentence) at a stop where the class has another: said
    // under the feedback that the class's count does not take it (helper 19: only "Not quite ..." was said)
    const classQ = AE.room && AE.room.asked ? AE.room.asked(stopKey()) : null;
    if (lesson.answered !== null && classQ && q.ids && JSON.stringify(classQ) !== JSON.stringify(q.ids)) {
      reveal += "<p class='ae-status ae-not-counted'>" + AE.esc(AE.t("class.err.other_question")) + "</p>";
    }
    // the class's answers, once the teacher reveals them, under the question they answer (not under a question on a
    // sentence of this student's own at the same stop)
    const told = AE.room && AE.room.revealed(stopKey());
    const tally = told && (!told.ids || JSON.stringify(told.ids) === JSON.stringify(q.ids)) ? told : null;
    if (tally) {
      reveal += "<div class='ae-class-tally'>" + AE.t("lesson.class_tally", { n: tally.answered }) + "<ul>" + tally.counts.map((n, i) =>
        "<li" + (i === q.answer ? " class='ae-right'" : "") + "><b>" + LETTERS[i] + "</b> " + (q.options[i] !== undefined ? option(q, i) : "") +
        " — " + n + (i === q.answer ? " ✓" : "") + "</li>").join("") + "</ul></div>";
    }
    const keys = touch() ? "" : " <small>" + AE.t("lesson.keys", { last: LETTERS[q.options.length - 1], n: q.options.length }) +
      "</small>";
    lesson.tallied = tally ? (lesson.tallied === stopKey() ? lesson.tallied : "new") : "";
    // (the class's question waiting while a student's view is shown, said to one exploring: classWaits)
    const said = lesson.moved || (lesson.waits && !lesson.showing ? AE.t("lesson.class_waits", { nick: lesson.waits }) : "");
    const moved = said ? "<p class='ae-status ae-stale ae-class-moved'>" + AE.esc(said) + "</p>" : "";
    // its title and the buttons beside it stay at the sheet's top as its text scrolls (style.css: an answer, or the
    // class's answers revealed, scrolled a phone's sheet to them, and the title, Hide and ✕ out of it)
    // (Hide, then ✕: the order they are drawn in, left to right, is the order Tab takes them: helper 39)
    el.innerHTML = "<div class='ae-head'><span class='ae-head-buttons'>" + fold + close + "</span><h3>" + stop.title + " <small>" + AE.t("lesson.of", {
      n: lesson.stop + 1, total: STOPS.length }) + "</small></h3></div><div class='ae-stop'>" + moved + "<p>" + stop.look + "</p><p class='ae-ask'>" + AE.t("lesson.predict") + " " + q.prompt +
      "</p><div class='ae-options'>" + buttons + "</div>" + reveal + "<p class='ae-nav'><button onclick='AE.lesson.go(-1)'" +
      (lesson.stop ? "" : " disabled") + ">" + AE.t("lesson.back") + "</button> <button onclick='AE.lesson.go(1)'>" +
      (lesson.stop === STOPS.length - 1 ? AE.t("lesson.finish") : AE.t("lesson.next")) + "</button>" + keys + "</p></div>";
    // a short screen (320x256, 400% zoom): a new stop's sheet opens at its question, the answers under it (its title
    // and the text before, read by a screen reader as the stop begins, are a scroll up; issue 49)
    // (after the focus has moved to the stop's title, which scrolls the sheet back to it)
    // (the control used, Next or Back, left out of the sheet's sight by that: the focus goes to the question, as
    // "Show the question" puts it; helper 46: after → at stop 4, 5 px of the focused Next were on the screen)
    // (and once more a frame later: the stop's view, drawn meanwhile, can shift the sheet's text; at stop 6 the question
    // came to rest 25 px above the sheet's top)
    const atAsk = () => {
      const ask = el.querySelector(".ae-ask");
      if (ask) el.scrollTop += ask.getBoundingClientRect().top - el.getBoundingClientRect().top - 4;
      return ask;
    };
    // (whole, ring and all, after each scroll: audit 53 found the focused Next's ring cut by the sheet's edge, 1-3 px,
    // after Next from stops 1, 3 and 6, the second scroll moving it after the first had left it whole)
    const askHasIt = (ask) => {
      const a = document.activeElement;
      if (!a || !el.contains(a) || a === el || a === ask || wholeInSheet(el, a)) return;
      ask.setAttribute("tabindex", "-1");
      ask.focus({ preventScroll: true });
    };
    // (a taller screen: the control used, kept by a11y.js at its place in the new stop (an answer, after → on an
    // answer), not whole in the sheet opened at its top: the focus goes to the stop's title; audit 54: at 320x640
    // with the text doubled, → from stop 4's answer A left the focus on stop 5's A, below the sheet)
    if (fresh && window.innerHeight > 420 && el.classList.contains("ae-docked")) requestAnimationFrame(() => {
      const a = document.activeElement, title = el.querySelector(".ae-head h3");
      if (!title || !a || a === el || a === title || !el.contains(a) || wholeInSheet(el, a)) return;
      title.setAttribute("tabindex", "-1");
      title.focus({ preventScroll: true });
      el.scrollTop = 0;  // (the stop from its top, where its title is, scrolled with the stop on such a screen)
    });
    // (and its answers all in sight, where the question stays so: below)
    if (fresh && window.innerHeight > 420 && el.classList.contains("ae-docked")) requestAnimationFrame(() => {
      answersUp(el);
      requestAnimationFrame(() => { if (lesson.drawn === lesson.stop) answersUp(el); });  // (the view drawn meanwhile)
    });
    if (fresh && window.innerHeight <= 420) requestAnimationFrame(() => {
      const ask = atAsk();
      if (!ask) return;
      askHasIt(ask);
      requestAnimationFrame(() => {
        const again = lesson.drawn === lesson.stop && atAsk();
        if (again) askHasIt(again);
      });
    });
    // a new note that the screen shows another view than the question's (the teacher moved the class, a student's
    // view shown): in sight at the top of a sheet scrolled down to an answer's feedback (helper 27: it sat above the
    // sheet's scrolled area while the question in sight named the last layer and the screen showed layer 1)
    const note = el.querySelector(".ae-class-moved");
    const sheet = AE.sight && AE.sight.sheetTop && AE.sight.sheetTop() < window.innerHeight;  // (a phone's bottom sheet)
    if (note && sheet && said !== lesson.movedSeen && lesson.tallied !== "new") noteInSight(el, note);
    // (and a note come or gone, the answers brought up again as when the stop opened, the note kept in sight: helper
    // 70, at stop 7 the teacher's step 2 and back to 1 left a 360x640 phone's C and D under Back / Next)
    if (sheet && !fresh && said !== lesson.movedSeen && lesson.tallied !== "new" && el.classList.contains("ae-docked")) {
      requestAnimationFrame(() => answersUp(el, el.querySelector(".ae-class-moved")));
    }
    lesson.movedSeen = said;
    if (lesson.tallied === "new") {  // the class's answers just revealed: in sight inside the sheet (a phone's is short)
      lesson.tallied = stopKey();
      const t = el.querySelector(".ae-class-tally");
      if (t && t.scrollIntoView) t.scrollIntoView({ block: "nearest" });
      // (the student's answer, focused, scrolled under the sheet's title by it: the focus goes to the feedback, as
      // for an answer given: helper 44, a phone at stop 5)
      if (t) feedbackFocus(el, t);
      if (t) setTimeout(() => { if (t.isConnected) feedbackFocus(el, t); }, 0);  // (after a11y.js gives the focus back)
    }
  }

  // The focused answer scrolled out of the sheet, or under its sticky title, by its feedback, even in part: the focus
  // goes to the feedback (the right answer and why, then the class's answers), in sight
  // (in part too: audit 52 found an answer half above the sheet at 320x640 with the text doubled, its ring's top and
  // letter hidden, and a following phone's answer's ring under the sheet's title after the teacher's Reveal; half in
  // sight was taken as in sight)
  // (any focus in the sheet, not only an answer's: the stop's title, focused as the stop opened, was left 300-850 px
  // above the sheet after a key answer with the text doubled, audit 55, 14 of 14)
  function feedbackFocus(el, fb) {
    const a = document.activeElement;
    if (!fb || !a || !el.contains(a)) return;
    if (wholeInSheet(el, a)) return;
    // (a student still choosing, not yet answered, as the teacher reveals: the answer is brought back whole, the
    // focus kept on it; review: the focus was taken from an answer being chosen)
    if (lesson.answered === null && a.classList.contains("ae-answer")) {
      intoSheet(el, a);
      if (wholeInSheet(el, a)) return;
    }
    // the feedback, where it is whole in the sheet; else what the sheet was scrolled to (the class's answers), and
    // that brought whole into it where it can be (review: the feedback above the tally was focused half out of sight)
    let to = el.querySelector(".ae-reveal");
    if (!to || (to !== fb && !wholeInSheet(el, to))) to = fb;
    to.setAttribute("tabindex", "-1");
    to.focus({ preventScroll: true });
    if (!wholeInSheet(el, to)) intoSheet(el, to);
  }

  // A new stop's sheet scrolled down just so far that its last answer is whole in sight, never past the question's
  // top: the text before the question is a scroll up (helper 62: on a 360x640 phone C and D were under Back / Next as
  // each stop opened, at 7 of 8 stops; a student had to find half the answers by scrolling the sheet)
  function answersUp(el, keep) {  // (``keep``: an element above the question that stays in sight too, or none)
    const ask = el.querySelector(".ae-ask"), all = el.querySelectorAll(".ae-options .ae-answer");
    const last = all[all.length - 1];
    if (!ask || !last || !last.offsetParent) return;
    const { top, bottom } = sheetBand(el, last), r = last.getBoundingClientRect();
    const need = r.bottom + ringOf(last) - bottom + 1;
    let room = (keep || ask).getBoundingClientRect().top - top - 4;
    // (nor a focus in the sheet's text out of sight: the stop's title where it scrolls with the text, a short screen's
    // or one with the text doubled, focused as the stop opened)
    const a = document.activeElement, bar = a && a.closest && a.closest(".ae-head, .ae-nav");
    if (a && a !== el && el.contains(a) && !(bar && getComputedStyle(bar).position === "sticky")) {
      room = Math.min(room, a.getBoundingClientRect().top - ringOf(a) - top);
    }
    if (need > 0 && room > 0) el.scrollTop += Math.min(need, room);
  }

  // Whether a control in the sheet is whole in sight, its focus ring (a11y.js ringOf) and all: inside the sheet's
  // scrolled box, below its sticky title and above its sticky Back / Next, on the screen
  function wholeInSheet(el, a) {
    const { top, bottom } = sheetBand(el, a), RING = ringOf(a), r = a.getBoundingClientRect();
    return r.top - RING >= top - 0.5 && r.bottom + RING <= bottom + 0.5;
  }
  // (a11y.js: the one rule for the ring and the band a control in the sheet is seen in, for the page and the lesson)
  const ringOf = (a) => AE.a11y.ringOf(a), sheetBand = (el, a) => AE.a11y.sheetBand(el, a);
  const intoSheet = (el, a) => AE.a11y.intoSheet(el, a);

  // An answer focused in the docked sheet (Tab, Shift+Tab from Back / Next) with its question's start scrolled above
  // the sheet's top, or under its sticky title: the sheet scrolls up to the question where both fit in it, so the
  // question is read whole above the answer (helper 46: at 320x640 with the text at twice its size, Shift+Tab up
  // from Next left 0-55% of the question in sight)
  // (only a focus the student moved with Tab: an answer the page focuses again as it redraws the stop, the class's
  // answers revealed, stays where the page scrolled the sheet: to those answers)
  document.addEventListener("focusin", (e) => {
    const a = e.target, el = body();
    if (!el || !a.classList || !a.classList.contains("ae-answer") || !el.contains(a) ||
        !el.classList.contains("ae-docked") || !(AE.a11y && AE.a11y.tabbedNow && AE.a11y.tabbedNow())) return;
    requestAnimationFrame(() => {
      const ask = el.querySelector(".ae-ask");
      if (!ask || document.activeElement !== a) return;
      const { top, bottom } = sheetBand(el, a), q = ask.getBoundingClientRect(), r = a.getBoundingClientRect();
      // (in sight already, or both do not fit: the question from its top, the answer to its ring's foot, which a
      // ring drawn inside it does not pass; audit 59: 4 px of margin over that left the question of stop 5 cut at
      // 320x640 with the text doubled, Shift+Tab from Back to D, where the two fit with 3 px to spare)
      if (q.top >= top - 0.5 || r.bottom + ringOf(a) - q.top > bottom - top) return;
      el.scrollTop -= top - q.top;
    });
  });

  // ``note`` below the sheet's sticky title (Hide and ✕ beside it): the sheet scrolled up to it where it was above
  function noteInSight(el, note) {
    let box = note.parentElement;
    while (box && box !== document.body && !(box.scrollHeight > box.clientHeight + 1 && /auto|scroll/.test(getComputedStyle(box).overflowY))) box = box.parentElement;
    if (!box || box === document.body) return;
    const head = el.querySelector(".ae-head"), below = head ? head.getBoundingClientRect().bottom : box.getBoundingClientRect().top;
    const up = below + 4 - note.getBoundingClientRect().top;
    if (up > 0) box.scrollTop = Math.max(0, box.scrollTop - up);
  }

  // "▾ Hide": on a phone only its arrow shows (style.css), so the stop's title keeps the sheet's width (a German
  // title broke into four lines beside the whole word, pushing the last option under Back / Next)
  function foldWords(text) {
    const cut = text.indexOf(" ");
    return cut < 0 ? text : text.slice(0, cut) + "<span class='ae-fold-word'>" + text.slice(cut) + "</span>";
  }

  // A question not answered yet (nor revealed to the class): what would give its answer away stays covered (stop 1:
  // the count of source pieces above the tabs; style.css). Again at a class's news: the teacher revealed it.
  function cover() {
    const on = lesson.stop >= 0 && lesson.stop < STOPS.length && lesson.answered === null &&
      !(AE.room && AE.room.told && AE.room.told(stopKey()));
    document.body.classList.toggle("ae-lesson-asking", on);
  }

  // whether the room's answers are about this analysis: it is of the sentence the class's view shows
  function roomSentence(b) {
    const d = AE.room && AE.room.mine && AE.room.state ? AE.room.state.data : null;
    if (!d || !d.state || !b) return false;
    try { return new URLSearchParams(d.state).get("text") === b.text; } catch (e) { return false; }
  }

  // The score: each stop's first answer to the question it asks now. A stop asked again about a new sentence is a new
  // question, as the class's count takes it (helper 87: a phone's score kept its wrong answer to the first sentence's
  // stop 8 after a right one to the new sentence's, which the class's count had taken)
  function firstAnswer(stop, q, i) {
    const ids = JSON.stringify(q.ids || null), was = lesson.firstOf[stop];
    if (was && was.ids === ids) return;
    lesson.firstOf[stop] = { ids, i };
    lesson.first[stop] = i === q.answer;
  }

  // After the last stop: the score (first answers), what each stop showed, and where to go next.
  function ending() {
    // in a class, the answers the room holds for stops this page forgot (a reload, a language switch) count too,
    // where they answer this sentence's question there
    const b = AE.current();
    STOPS.forEach((st, i) => {
      const mine = AE.room && AE.room.mine ? AE.room.mine("stop " + (i + 1)) : null;
      if (mine === null || !b || !b.att || !roomSentence(b)) return;
      try { const q = about(st.ask(b), b); if (mine < q.options.length) firstAnswer(i, q, mine); } catch (e) { /* no question */ }
    });
    const answered = lesson.first.filter((r) => r !== undefined).length;
    const right = lesson.first.filter((r) => r === true).length;
    const rows = STOPS.map((st, i) => "<li>" + (lesson.first[i] === true ? "✓" : lesson.first[i] === false ? "✗" : "–") +
      " <b>" + st.title.replace(/^\d+\. /, "") + "</b>: " + st.recap + "</li>").join("");
    const score = answered < STOPS.length ? AE.t("lesson.score_missing", { right, total: STOPS.length, n: STOPS.length - answered }) :
      AE.t("lesson.score", { right, total: STOPS.length });
    return "<div class='ae-stop ae-end'><h3>" + AE.t("lesson.done") + "</h3><p class='ae-score'>" + score + "</p><ol class='ae-recap'>" +
      rows + "</ol><p class='ae-nav'><button onclick='AE.lesson.go(-1)'>" + AE.t("lesson.back") + "</button> " +
      "<button onclick='AE.lesson.again()'>" + AE.t("lesson.again") + "</button> <button onclick='AE.lesson.start()'>" +
      AE.t("lesson.restart") + "</button></p></div>";
  }

  // A question's options as a class room tells them apart: their ids (words no language changes) marked with the
  // sentence it is asked about. A stop asked again on another sentence is a new question, its count started from
  // nobody (docs/teaching.md), even where its options read the same (stop 8: "after layer 0, 1, 2" about another
  // word kept the old answers, shown to each student as their answer to the new question); the same sentence in
  // another language is the same question.
  function about(q, b) {
    if (!q || !q.ids) return q;
    const text = String((b && b.text) || "");
    let h = 5381;
    for (let i = 0; i < text.length; i++) h = ((h * 33) ^ text.charCodeAt(i)) >>> 0;
    return Object.assign({}, q, { ids: q.ids.map((id) => h.toString(36) + "|" + id) });
  }

  // The values the stop's question is about in the shown analysis (stop 7's decoding step, stop 6's layer), set by
  // the hidden button's event (values() reads lesson.view): when the stop opens, and again for a new sentence there
  // A following student's page shows the room's view: the teacher's page sets each stop's view and the class takes it
  // from there, so a follower never sets one itself (helper 27: Bring everyone back at stop 7, and a reopened page
  // after the language switch, set the stop's own step 1 on the phones while the teacher's page showed step 2 or 5)
  const following = () => { const r = AE.room && AE.room.state; return !!(r && r.role === "student" && r.code && r.following); };

  function aim(stop) {
    if (following()) { lesson.view = null; return; }
    const b = AE.current();
    let q = null;
    try { q = b && b.att ? stop.ask(b) : null; } catch (e) { q = null; }
    lesson.view = q && q.view ? q.view : null;
    const set = document.getElementById("ae-lesson-view");
    if (lesson.view && set) setTimeout(() => set.click(), 0);
  }

  // The stop's view: its tab (and attention type), then the part the question is about scrolled into sight
  function show(stop) {
    AE.showView(stop.view);
    aim(stop);
    dockBeside(document.querySelector(focusOf(stop)));
    inSight(stop);
  }

  // A stop whose view is in the page's left column, where a laptop's lesson docks (style.css, 1000 px wide and more):
  // the lesson docks on the right while it runs (helper 85's leftover: at 1280x800 stop 5's lesson covered the lower
  // half of "Where am I", the encoder's feed-forward part its question is about)
  function dockBeside(el) {
    const dock = body();
    if (!dock) return;
    const r = el && el.getBoundingClientRect ? el.getBoundingClientRect() : null;
    const left = !!(r && r.width && window.innerWidth >= 1000 && !(AE.state && AE.state.present) &&
      r.left < 12 + dock.getBoundingClientRect().width);
    dock.classList.toggle("ae-dock-right", left);
  }

  const focusOf = (stop) => (AE.state && AE.state.present && stop.present) || stop.focus;

  // the part the question is about, in sight (below a student's class banner: sight.js bring), and again while the
  // page settles (presentation mode puts the page at the tab bar after a tab switch, until 800 ms after it; a lazy
  // view is drawn late; text above it changes height), until the person's own hand scrolls or taps
  function inSight(stop) {
    const since = Date.now();
    [120, 1000, 2500, 5000].forEach((ms) => setTimeout(() => {  // (Inside a head is drawn by the server)
      if (lesson.stop < 0 || STOPS[lesson.stop] !== stop || lesson.showing) return;
      if (AE.sight && AE.sight.touchedSince && AE.sight.touchedSince(since + 300)) return;  // (not the key or tap that moved it)
      const el = document.querySelector(focusOf(stop));
      if (!el) return;
      dockBeside(el);  // (a view opened late: its place known now)
      if (stop.panel && panelAbove(el, stop.panel)) return;
      if (AE.sight && AE.sight.bring) AE.sight.bring(el); else if (el.scrollIntoView) el.scrollIntoView({ block: "start" });
      // the control used (an example, the sentence box with Enter) left above the screen: the focus goes to the view
      // (helper 41: the sentence box at y -138 at 1280x800, an example 1,338 px above a phone's screen)
      if (AE.sight && AE.sight.focusView) AE.sight.focusView(el);
    }, ms));
  }

  // A stop whose question is about one panel of its figure (its title numbered "4. ..."), under a phone's sheet (one
  // across the screen's width, its top below the upper third): that panel's row brought to the top of the room above
  // the sheet (under the class banner), unless it is there. False where there is no such sheet or panel.
  function panelAbove(el, n) {
    const S = AE.sight;  // (sight.js: the class banner's foot and the sheet's top, measured once for both files)
    if (!S || !S.sheetTop || S.sheetTop() >= window.innerHeight) return false;
    const title = [...el.querySelectorAll(".annotation-text")].find((a) => a.textContent.trim().startsWith(n + "."));
    if (!title) return false;
    const y = title.getBoundingClientRect().top - S.bannerBottom() - 8;
    if (y < 0 || y > 40) window.scrollTo({ top: Math.max(0, window.scrollY + y), behavior: "instant" });
    return true;
  }

  function go(delta) {
    // a following student who moves the lesson by hand leads their own from then on (the banner says exploring;
    // "Follow again" brings them back to the teacher's stop): it no longer says following while they run ahead
    const r = AE.room && AE.room.state;
    if (r && r.role === "student" && r.sid && r.following && AE.room.explore) AE.room.explore();
    lesson.moved = "";
    lesson.held = null;
    lesson.stop = Math.max(0, Math.min(STOPS.length, lesson.stop + delta));
    lesson.answered = null;
    if (lesson.stop < STOPS.length) show(STOPS[lesson.stop]);
    render();
  }

  function start() {
    lesson.fresh = true;  // a class counts this run's answers afresh (led)
    if (!body()) { lesson.stop = -1; at(0); return; }  // its fold opened first (at)
    lesson.stop = 0; lesson.answered = null; lesson.first = []; lesson.firstOf = []; lesson.chose = []; lesson.held = null;
    show(STOPS[0]);
    render();
  }

  // "Try another sentence": the sentence box in sight and focused; the lesson starts again on the next translation
  function again() {
    end();
    const box = document.querySelector("#sentence textarea");
    if (box) { box.scrollIntoView({ behavior: AE.motion ? AE.motion() : "smooth", block: "center" }); box.focus(); box.select(); }
    lesson.restart = true;
  }

  function fold() {
    lesson.folded = lesson.folded === lesson.stop ? null : lesson.stop;
    render();
    // shown again on a short screen (320x256): at its question, where the focus goes, as a new stop opens (helper
    // 41: it came back at its title, 7 px of the question in sight, the answers below the screen)
    const el = body(), ask = el && lesson.folded === null && window.innerHeight <= 420 && el.querySelector(".ae-ask");
    if (ask) {
      ask.setAttribute("tabindex", "-1");
      ask.focus({ preventScroll: true });
      el.scrollTop += ask.getBoundingClientRect().top - el.getBoundingClientRect().top - 4;
      return;
    }
    const b = el && el.querySelector(".ae-fold");
    if (b) b.focus();
  }

  // folded for a control the page focused that cannot be whole above the docked lesson (a11y.js, helper 38: at
  // 320x256 a text box and two summaries were 60-80% in sight): the focus stays where it is. -> whether it folded
  function tuck() {
    const el = body();
    if (!el || lesson.stop < 0 || lesson.stop > STOPS.length || lesson.folded === lesson.stop ||
        !el.classList.contains("ae-docked")) return false;
    lesson.folded = lesson.stop;
    render();
    return true;
  }

  function end() {
    lesson.stop = -1;
    marked();
    led();
    const el = body();
    if (!el) return;
    el.classList.remove("ae-docked", "ae-folded");
    document.documentElement.classList.remove("ae-lesson-docked");
    el.innerHTML = "<p>" + AE.t("lesson.closed") + "</p><button id='ae-lesson-start' onclick='AE.lesson.start()'>" + AE.t("lesson.start_button") +
      "</button>";
  }

  function answer(i) {
    if (lesson.showing || lesson.waits) return;  // (the question waits while a student's view is shown: render)
    if (!lesson.q || lesson.stop < 0 || lesson.stop >= STOPS.length || i < 0 || i >= lesson.q.options.length) return;
    firstAnswer(lesson.stop, lesson.q, i);  // the score
    // in a class: into its tally, once for each question the room asks there (the stop asked again on another
    // sentence counts afresh: the room no longer holds this page's answer)
    if (AE.room && AE.room.mine(stopKey()) === null) AE.room.answer(stopKey(), i, lesson.q.options.length, lesson.q.ids);
    lesson.answered = i;
    lesson.chose[lesson.stop] = { i, ids: JSON.stringify(lesson.q.ids || null) };
    render();
    // the feedback in sight, and the class's answers under it where the teacher revealed them already (a late answer:
    // its counts lay behind Back / Next)
    const el = body(), fb = el && (el.querySelector(".ae-class-tally") || el.querySelector(".ae-reveal"));
    if (fb && fb.scrollIntoView) fb.scrollIntoView({ block: "nearest" });
    // the answer focused, scrolled out of the sheet by its feedback (a key pressed on another answer at 320x256:
    // helper 40): the focus goes to the feedback, in sight
    // (and once a11y.js has given the focus back to the answer the redraw took it from, which it does after this:
    // audit 51, 13 of 18 answers at 320x256 left it on an answer above the sheet's top)
    const a = document.activeElement;
    if (el) feedbackFocus(el, fb);
    setTimeout(() => {
      const now = body(), to = now && (now.querySelector(".ae-class-tally") || now.querySelector(".ae-reveal"));
      if (now) feedbackFocus(now, to);
    }, 0);
    // (a control of the page the focus is on, outside the lesson, that the sheet grew over: brought above it)
    if (a && el && !el.contains(a) && AE.a11y && AE.a11y.inSight) AE.a11y.inSight(a);
  }

  // a new translation while the lesson runs: the same stop asks again about the new sentence
  function refresh() {
    if (lesson.restart) { lesson.restart = false; start(); return; }
    if (lesson.stop >= 0 && lesson.stop < STOPS.length && body() && body().classList.contains("ae-docked")) {
      // a shown view's analysis: the question waits as it was (render); the first analysis after the showing ended is
      // the class's own sentence back (the room kept its answers) or a new one: asked as usual, not aimed anew
      const back = !!lesson.held && !lesson.showing;
      if (back) lesson.held = null;
      if (lesson.held) { render(); return; }
      // a new analysis asks the stop again; the same one (a view's chain ending after the student answered) keeps
      // the answer and its feedback (views.js parses each analysis once: the same analysis is the same object)
      // a new sentence: its question's view set, and brought into sight (the teacher typed it at the page's top)
      if (!AE.current || AE.current() !== lesson.asked) {
        lesson.answered = null;
        // (a sentence of the student's own: "the teacher moved the class" is old news; a view shown to everyone
        // keeps saying so: helper 25, the phones' question at stop 4 lost it once the shown sentence arrived)
        if (!lesson.showing) lesson.moved = "";
        // (a stop that came back with the room's view, at a teacher's reload: the page's own example and then the
        // room's sentence are analysed anew, and the view stays the room's; a sentence typed after that is aimed)
        const b = AE.current && AE.current();
        // (a shown view is the student's as they sent it: the stop's layer, head or step not set over it)
        if (lesson.kept === lesson.stop) { if (roomSentence(b)) lesson.kept = null; } else if (!lesson.showing && !back) aim(STOPS[lesson.stop]);
        inSight(STOPS[lesson.stop]);
      }
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
    if (lesson.folded === lesson.stop) return;  // (folded: its question is out of sight, no answer by a key: helper 39)
    else if (/^[1-9]$/.test(e.key)) answer(Number(e.key) - 1);
    else if (/^[a-dA-D]$/.test(e.key) && !e.ctrlKey && !e.metaKey && !e.altKey) answer(LETTERS.indexOf(e.key.toUpperCase()));
  });

  // a class room's news (a tally revealed): the stop shown again with it
  function refreshClass() {
    if (lesson.stop < 0 || !body() || !body().classList.contains("ae-docked")) return;
    // (the sheet grown by the class's answers over the student's focused control: brought above it, helper 40)
    const mine = document.activeElement, clear = () => {
      if (mine && mine !== document.body && !body().contains(mine) && AE.a11y && AE.a11y.inSight) AE.a11y.inSight(mine);
    };
    if (lesson.stop < STOPS.length) { render(); clear(); return; }
    // the lesson's end: drawn again only when the room holds an answer its score lacks (a page reopened in another
    // language drew its end before the room's news came: "0 of 8, 8 not answered"); otherwise left alone (focus)
    const b = AE.current();
    if (b && b.att && roomSentence(b) && STOPS.some((_, i) => lesson.first[i] === undefined &&
        AE.room.mine("stop " + (i + 1)) !== null)) render();
  }

  // A class the teacher leads: the teacher's lesson tells the room where it is (class.js posts it only for a teacher,
  // with the question's options for the panel's tally); a following student's lesson goes there (at), and each
  // answers on their own page. A student exploring on their own is never moved (class.js does not call at).
  function led(q) {
    if (AE.room && AE.room.lessonAt) AE.room.lessonAt(lesson.stop, q, !!(lesson.fresh && q));
    if (q) lesson.fresh = false;
  }

  // the teacher started the lesson anew (class.js hears the room's run change): this page's first answers count again
  function newRun() {
    lesson.held = null;
    lesson.first = [];
    lesson.chose = [];
    lesson.answered = null;
    refreshClass();
  }

  // ``kept``: the page's view is the room's already (a teacher's reload took it from the room): the stop comes back
  // without setting its view again (stop 7's step would go back to the question's, while the class stays on the
  // step the teacher had moved to)
  function at(stop, kept) {
    if (!body()) {  // Gradio draws the fold's content when it opens: open it, then go on at the newest stop asked for
      // (one wait, not one per call: the teacher's quick Next, Next... sent stops 2 to 8 before the fold was drawn,
      // and each call's own wait went to its stop when it next looked, in no order: a phone stayed at stop 6)
      // (kept stays kept for the same stop: the room's news asked for it while a reload's own resume waited)
      lesson.pending = [stop, kept || (!!lesson.pending && lesson.pending[0] === stop && lesson.pending[1])];
      if (lesson.waiting) return;
      lesson.waiting = true;
      const fold = document.querySelector("#lesson-box .label-wrap, #lesson-box > button");
      // (open already: a second click would close it: the lesson went on at the right stop, hidden)
      if (fold && !fold.classList.contains("open")) fold.click();
      const wait = (n) => {
        if (!body() && n < 50) { setTimeout(() => wait(n + 1), 100); return; }
        const asked = lesson.pending;  // (null: a stop was gone to meanwhile, by a call that found the fold drawn)
        lesson.waiting = false;
        lesson.pending = null;
        if (asked && body()) at(asked[0], asked[1]);
      };
      setTimeout(() => wait(1), 100);
      return;
    }
    lesson.pending = null;  // (a stop asked for while the fold opened is older than this one)
    if (stop < 0 || stop === lesson.stop) return;
    lesson.stop = Math.min(stop, STOPS.length);
    lesson.showing = false;  // (a new stop's own view)
    lesson.held = null;
    lesson.answered = null;
    lesson.moved = "";
    lesson.kept = kept ? lesson.stop : null;
    if (lesson.stop < STOPS.length) { if (kept) inSight(STOPS[lesson.stop]); else show(STOPS[lesson.stop]); }
    render();
  }

  // Brought back by the teacher (Bring everyone back, Follow again): the teacher's stop shown anew, unfolded, with
  // its view in sight, even where this page's lesson is at that stop already (a student who had scrolled away)
  function rejoin(stop) {
    lesson.showing = false;
    if (!body() || stop < 0) { at(stop); return; }
    lesson.folded = null;
    lesson.moved = "";  // (brought back to the stop's view: "the teacher moved the class" is old news: helper 20)
    lesson.movedStep = false;
    if (stop !== lesson.stop) { at(stop); return; }
    // (drawn as a stop opened: from its top, its answers then brought up into sight; helper 67: a 360x640 phone's
    // sheet came back at its top with options C and D under Back / Next)
    lesson.drawn = null;
    if (lesson.stop < STOPS.length) show(STOPS[lesson.stop]);
    // ... but where the teacher's view at the stop is still not the one the question asks about (another step at
    // stop 7, another layer or head at stop 6), the sheet says so again (helper 36: Bring everyone back took the note
    // away and left the question about layer 2 over layer 0, head 1)
    if (!(lesson.lastState && stepMoved(lesson.stop, lesson.lastState))) render();
  }

  // Following moved the page while a question is open: the question stays, and says so. -> whether it did (a
  // following page about to show ``tab`` with the lesson going to ``stop``)
  function moving(tab, stop, state) {
    lesson.lastState = state;
    const open = body() && body().classList.contains("ae-docked");
    const at = stop >= 0 ? stop : lesson.stop;
    if (!open || !tab || at < 0 || at >= STOPS.length) return false;
    if (STOPS[at].view.tab === tab) return stepMoved(at, state);
    lesson.moved = AE.t("lesson.moved", { title: STOPS[at].title.replace(/^\d+\. /, "") });
    lesson.movedStep = false;
    if (at === lesson.stop) render();
    return true;
  }

  // On the question's own tab, a view the teacher moved the class to that is not the one the question asks about is
  // said too, and unsaid when the class is back at it: a decoding step (stop 7; helper 28: the phones' question named
  // step 1 over the bars of step 3), an attention type, layer or head (stop 6; helper 31: a question about
  // cross-attention in the last layer over the masked decoder self-attention, with no word)
  function stepMoved(at, state) {
    const want = at === lesson.stop && lesson.q && lesson.q.view ? lesson.q.view : null;
    if (!want || !state || lesson.showing) return false;
    if (lesson.moved && !lesson.movedStep) return false;  // (another note stands: the view, a shown view)
    const p = new URLSearchParams(state), step = p.get("step");
    let note = "";
    if (want.step !== undefined && step !== null && /^\d{1,3}$/.test(step) && String(want.step) !== step) {
      note = AE.t("lesson.step_moved", { step, asked: want.step });
    } else if ((want.kind !== undefined && p.get("kind") && AE.kindOf(want.kind) !== p.get("kind")) ||
      (want.layer !== undefined && p.get("layer") !== null && String(want.layer) !== p.get("layer")) ||
      (want.head !== undefined && p.get("head") && AE.headKey(want.head) !== p.get("head"))) {
      note = AE.t("lesson.view_moved", { kind: AE.t("page.kind." + AE.kindOf(want.kind || "Cross-attention")).replace(/\u00ad/g, ""),
        layer: want.layer });
    }
    if (note === lesson.moved) return false;
    lesson.moved = note;
    lesson.movedStep = !!note;
    render();
    return !!note;
  }

  // The values a stop's question is about, for the hidden #ae-lesson-view's event (app.py): its inputs are the view's
  // controls [kind, layer, head, step, step_layer, step_head] and the bank; each value the stop names replaces one.
  function values(kind, layer, head, step, stepLayer, stepHead) {
    const v = lesson.view || {};
    lesson.view = null;
    return [v.kind ?? kind, v.layer ?? layer, v.head ?? head, v.step ?? step, stepLayer, stepHead];
  }

  // The page says which stop runs (a class on <body>: presentation mode shows that stop's view, which it hides
  // otherwise: the model view at stop 4, the logit lens at stop 8), and a reload comes back to it (sessionStorage:
  // this tab only; resume() after the page's first translation).
  function marked() {
    try {
      if (lesson.stop >= 0) sessionStorage.setItem("ae-lesson", String(lesson.stop)); else sessionStorage.removeItem("ae-lesson");
      // the first answers too: the score after a reload (helper 24: 8 of 8, then 0 of 8 once the class had ended and
      // the room no longer held them)
      sessionStorage.setItem("ae-lesson-first", JSON.stringify(lesson.first.map((r) => (r === undefined ? null : r))));
      // (and which answer to which question each is: a later answer to the same question does not take its place)
      sessionStorage.setItem("ae-lesson-first-of", JSON.stringify(lesson.firstOf.map((c) => c || null)));
      // and the answer given at each stop, marked again where the student goes back to it after a reload
      sessionStorage.setItem("ae-lesson-chose", JSON.stringify(lesson.chose.map((c) => c || null)));
    } catch (e) { /* storage refused */ }
    const on = lesson.stop >= 0 && lesson.stop < STOPS.length;
    const mark = on ? "ae-lesson-stop-" + (lesson.stop + 1) : lesson.stop >= STOPS.length ? "ae-lesson-end" : "";
    if (mark === lesson.mark) return;  // render() calls this at every answer and tally: only a new stop changes the page
    if (lesson.mark) document.body.classList.remove(lesson.mark);
    if (!on) document.body.classList.remove("ae-lesson-asking");
    if (mark) document.body.classList.add(mark);
    lesson.mark = mark;
    // presentation mode shows a stop's own view that it hides otherwise (the model view, the logit lens): drawn while
    // hidden, it takes the width it has now (every plotly figure answers a window resize)
    if (AE.state && AE.state.present) setTimeout(() => window.dispatchEvent(new Event("resize")), 300);
  }
  function resume() {
    let stop = null;
    try { stop = sessionStorage.getItem("ae-lesson"); } catch (e) { stop = null; }
    // a teacher's page in a class takes its view from the room (class.js adopts it): the stop comes back without
    // setting its own view again (kept), whichever of the two arrives first
    // (a following student's too: the page reopened in the class's language showed the stop's own step, not the one
    // the teacher had moved the class to: helper 26)
    const r = AE.room && AE.room.state, teaching = !!(r && r.code && r.role === "teacher") || following();
    if (stop === null || !/^\d+$/.test(stop) || lesson.stop >= 0) return;
    let first = [];
    try { first = JSON.parse(sessionStorage.getItem("ae-lesson-first") || "[]"); } catch (e) { first = []; }
    if (Array.isArray(first)) lesson.first = first.slice(0, STOPS.length).map((r) => (typeof r === "boolean" ? r : undefined));
    let chose = [];
    try { chose = JSON.parse(sessionStorage.getItem("ae-lesson-chose") || "[]"); } catch (e) { chose = []; }
    const choice = (c) => (c && Number.isInteger(c.i) && c.i >= 0 && typeof c.ids === "string" ? { i: c.i, ids: c.ids } : undefined);
    if (Array.isArray(chose)) lesson.chose = chose.slice(0, STOPS.length).map(choice);
    let firstOf = [];
    try { firstOf = JSON.parse(sessionStorage.getItem("ae-lesson-first-of") || "[]"); } catch (e) { firstOf = []; }
    if (Array.isArray(firstOf)) lesson.firstOf = firstOf.slice(0, STOPS.length).map(choice);
    at(Number(stop), teaching);
  }

  // A student's view shown to everyone while a question is open: the question stays, and says that the screen now
  // shows another view than the one it asks about (helper 21: stop 6 asked about the last layer's average while every
  // screen showed a student's head 3); Bring everyone back (rejoin) clears it. ``nick``: "" when the showing ended.
  function shownNote(nick) {
    lesson.showing = !!nick;
    // the question as it stands, kept while the shown view (perhaps another sentence) is on the screens
    if (nick && !lesson.held && lesson.q && lesson.stop >= 0 && lesson.stop < STOPS.length) lesson.held = { q: lesson.q, bank: lesson.asked };
    if (nick) shownInSight();
    if (lesson.stop < 0 || lesson.stop >= STOPS.length) return;
    lesson.moved = nick ? AE.t("lesson.shown", { nick }) : "";
    render();
  }

  // A view shown to everyone: the class's question waits (options greyed) until the teacher brings everyone back; a
  // page that shows the view says so with shownNote, one exploring on its own says it here. ``nick``: "" when over.
  function classWaits(nick) {
    lesson.waits = nick;
    if (lesson.stop >= 0 && lesson.stop < STOPS.length) render();
  }

  // The shown view's own figure brought to the screen's top (and the stop's view no longer brought back over it):
  // helper 24, Show to everyone at stop 4 drew the shown heatmap 830 px above a projector that kept the stop's model
  // view in sight. Again while the shown view arrives (it may be translated first), until a hand scrolls or taps.
  function shownInSight() {
    const since = Date.now();
    [300, 1500, 3000].forEach((ms) => setTimeout(() => {
      if (!lesson.showing || (AE.sight && AE.sight.touchedSince && AE.sight.touchedSince(since + 300))) return;
      const el = AE.sight && AE.sight.viewOf ? AE.sight.viewOf(AE.state.tab) : null;  // (the tab's main view)
      if (!el || !el.offsetParent) return;
      AE.sight.bring(el);
    }, ms));
  }

  // the running stop's view brought into sight again (presentation mode, the window resized) -> whether one runs
  function reaim() {
    if (lesson.showing) { shownInSight(); return true; }
    if (lesson.stop < 0 || lesson.stop >= STOPS.length) return false;
    inSight(STOPS[lesson.stop]);
    return true;
  }

  AE.lesson = { start, go, reaim, shownNote, classWaits, answer, fold, tuck, cover, end, again, refresh, refreshClass, at, rejoin, moving, values, resume, newRun, state: lesson, stops: STOPS.length,
    title: (i) => (STOPS[i] ? STOPS[i].title : ""),
    tabOf: (i) => (STOPS[i] ? STOPS[i].view.tab : null),  // the tab stop i opens
    // stop i's question on the sentence shown now (in the page's language; its ids as the room keeps them), or null
    question: (i) => {
      const b = AE.current && AE.current();
      if (!STOPS[i] || !b || !b.att) return null;
      try { return about(STOPS[i].ask(b), b); } catch (e) { return null; }
    },
    // the part the running stop asks about, when it is on ``tab`` (sight.js brings it into a follower's sight)
    // (none while a student's view is shown to everyone: that view's own figure is brought instead)
    partOf: (tab) => (!lesson.showing && lesson.stop >= 0 && lesson.stop < STOPS.length && STOPS[lesson.stop].view.tab === tab ? focusOf(STOPS[lesson.stop]) : null),
    // that part placed as its stop wants it, if it asks about one panel of it on a phone (sight.js asks first)
    place: (el) => !lesson.showing && lesson.stop >= 0 && lesson.stop < STOPS.length && !!STOPS[lesson.stop].panel &&
      el === document.querySelector(focusOf(STOPS[lesson.stop])) && panelAbove(el, STOPS[lesson.stop].panel) };
})();
