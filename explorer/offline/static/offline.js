// The offline bundle's page: translates in this browser with the JS model (model.js, given its files by files.js) and
// draws the served page's own figures from the page's copy (views.js, inside.js), with no server and no network.
// The model runs in a Web Worker made from AE_OFFLINE_WORKER's own text (a blob: URL works from file://); where no
// worker starts, in place. Every word comes from the catalogue (AE.t, i18n.js); user text only ever reaches the page
// as text, or escaped by page_data.js / advice.js as on the served page.
(function () {
  const AE = window.AE, t = AE.t, S = window.AE_OFFLINE, FILES = window.AE_OFFLINE_FILES;
  const $ = (id) => document.getElementById(id);
  const AVERAGE = "all heads (mean)";  // views.js's value for the heads' mean (its label: page.head.mean)
  const KINDS = ["cross", "encoder", "decoder"];
  const TABS = [["attend", "page.attend.tab"], ["steps", "page.steps.tab"], ["pe", "page.pe.tab"],
    ["inside", "page.inside.tab"], ["lens", "page.experiments.lens"]];
  // pending: the newest press while one translates or before the model is ready (translated then)
  let bank = null, current = "attend", busy = false, ready = false, pending = null;

  // the catalogue's own light markdown (**bold**, *italic*); its text is ours, never the user's
  const md = (s) => String(s).replace(/\*\*([^*]+)\*\*/g, "<strong>$1</strong>").replace(/\*([^*]+)\*/g, "<em>$1</em>");
  function status(text, state) {
    $("status-text").textContent = text;
    $("bar").hidden = state !== "loading";
    $("status").classList.toggle("failed", state === "failed");
  }

  // ---- the model: a worker where one starts, else in place
  let send = null, nextId = 1;
  const waiting = new Map();
  function answer(m) {
    const w = waiting.get(m.id);
    if (!w) return;
    waiting.delete(m.id);
    if (m.kind === "error") w.reject(new Error(m.message)); else w.resolve(m);
  }
  const ask = (msg, transfer) => new Promise((resolve, reject) => {
    const id = nextId++;
    waiting.set(id, { resolve, reject });
    send(Object.assign({ id }, msg), transfer || []);
  });
  function bytes(b64) {
    const bin = atob(b64), out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  }
  function inPlace() {
    window.AE_OFFLINE_WORKER();
    const handle = window.AE_OFFLINE_HANDLE;
    send = (m) => setTimeout(() => handle(m, answer), 0);
  }
  function startWorker() {
    try {
      const url = URL.createObjectURL(new Blob(["(" + window.AE_OFFLINE_WORKER.toString() + ")();"], { type: "text/javascript" }));
      const worker = new Worker(url);
      worker.onmessage = (e) => answer(e.data);
      send = (m, transfer) => worker.postMessage(m, transfer);
      return worker;
    } catch (e) {
      return null;
    }
  }
  function loadMessage() {
    const files = {};
    Object.keys(FILES).forEach((name) => { files[name] = bytes(FILES[name]); });
    return [{ kind: "load", files, model: S.model, catalogue: (window.AE_I18N || {})[AE.lang] || {}, english: (window.AE_I18N || {}).en || {} },
      Object.values(files).map((b) => b.buffer)];
  }
  async function load() {
    status(t("offline.loading"), "loading");
    const worker = startWorker();
    try {
      if (!worker) throw new Error("no worker");
      // a worker that cannot start says so in an error event, not in a message: that too falls back
      const failed = new Promise((resolve, reject) => { worker.onerror = () => reject(new Error("worker")); });
      await Promise.race([ask(...loadMessage()), failed]);
    } catch (e) {
      if (worker) worker.terminate();
      waiting.forEach((w) => w.reject(new Error("worker")));  // (none but the load: presses wait for ready)
      waiting.clear();
      inPlace();
      await ask(...loadMessage());
    }
  }

  // ---- drawing: only the open tab's figures, each in a figure region named by its title
  function draw(id, value) {
    const el = $(id);
    if (!value) { if (window.Plotly) window.Plotly.purge(el); el.textContent = ""; el.removeAttribute("aria-label"); return; }
    const fig = JSON.parse(value.plot), title = fig.layout && fig.layout.title;
    el.setAttribute("role", "figure");
    el.setAttribute("aria-label", AE.plainText(typeof title === "string" ? title : (title && title.text) || ""));  // (views.js)
    const [layout, config] = AE.forTouch(fig.layout, { responsive: true, displaylogo: false, displayModeBar: true });  // (views.js)
    window.Plotly.react(el, fig.data, layout, config)
      .then(() => el.querySelectorAll(".modebar-btn").forEach((b) => b.setAttribute("tabindex", "-1")));  // (mouse tools)
  }
  const val = (id) => $(id).value;
  const painted = () => new Promise((done) => requestAnimationFrame(() => setTimeout(done, 0)));
  async function redraw() {
    if (!bank) return;
    if (current === "attend") {
      draw("fig-heatmap", AE.heatmap(bank, val("attend-kind"), val("attend-layer"), val("attend-head")));
      // the model view (every layer and head) and the statistics after the heatmap has been painted: on a phone's
      // CPU they took most of a Translate's 3 s before the heatmap showed
      const shown = bank, kind = val("attend-kind");
      await painted();
      if (shown !== bank || current !== "attend" || kind !== val("attend-kind")) return;
      draw("fig-model", AE.modelView(bank, kind));
      draw("fig-stats", AE.stats(bank, kind));
    } else if (current === "steps") {
      $("steps-at-value").textContent = val("steps-at") + " / " + (bank.steps.length - 1);
      draw("fig-step", AE.step(bank, val("steps-at"), val("steps-layer"), val("steps-head")));
    } else if (current === "pe") {
      const [table, waves, sim] = AE.positional(bank, Number(val("pe-len")), val("pe-dims"));
      draw("pe-table", table); draw("pe-waves", waves); draw("pe-sim", sim);
      draw("pe-sentence", AE.peSentence(bank));
    } else if (current === "inside") {
      const kind = val("inside-kind"), layer = Number(val("inside-layer")), head = Number(val("inside-head"));
      const query = Number(val("inside-query")), shown = bank;
      try {
        const a = (await ask({ kind: "inside", attention: kind, layer, head, query })).numbers;
        if (shown === bank) draw("fig-inside", AE.inside.figure(bank, a, kind, layer, head, query));
      } catch (e) {
        status(t("offline.failed", { why: e.message }), "failed");
      }
    } else if (current === "lens") {
      draw("fig-lens", AE.lens(bank));
    }
  }

  // ---- controls, made once the first translation gives the model's size
  function select(id, label, options, value) {
    const box = document.createElement("div");
    box.innerHTML = "<label for='" + id + "'></label><select id='" + id + "'></select>";
    box.querySelector("label").textContent = label;
    const el = box.querySelector("select");
    options.forEach(([v, text]) => { const o = document.createElement("option"); o.value = v; o.textContent = text; el.appendChild(o); });
    el.value = value;
    el.addEventListener("change", redraw);
    return box;
  }
  const kinds = () => KINDS.map((k) => [k, t("page.kind." + k)]);
  const layers = (n) => [...Array(n).keys()].map((l) => [String(l), String(l)]);
  const heads = (mean) => (mean ? [[AVERAGE, t("page.head.mean")]] : []).concat(
    [...Array(bank.heads).keys()].map((h) => [mean ? "head " + h : String(h), t("page.head.n", { n: h })]));
  function queries(keep) {
    const el = $("inside-query"), list = AE.inside.choices(bank, val("inside-kind"));
    el.textContent = "";
    list.forEach((c, i) => { const o = document.createElement("option"); o.value = String(i); o.textContent = c; el.appendChild(o); });
    el.value = String(keep !== undefined && keep < list.length ? keep : Math.min(1, list.length - 1));
  }
  function controls() {
    const L = bank.att.cross.length;
    const attend = $("attend-controls"), steps = $("steps-controls"), pe = $("pe-controls"), inside = $("inside-controls");
    const keep = (id, fallback) => ($(id) ? $(id).value : fallback);
    const was = { ak: keep("attend-kind", "cross"), al: keep("attend-layer", String(L - 1)), ah: keep("attend-head", AVERAGE),
      sl: keep("steps-layer", String(L - 1)), sh: keep("steps-head", AVERAGE), ik: keep("inside-kind", "cross"),
      il: keep("inside-layer", "0"), ih: keep("inside-head", "0"), len: keep("pe-len", "50"), dims: keep("pe-dims", "0, 1, 10, 11, 60, 61") };
    attend.textContent = ""; steps.textContent = ""; inside.textContent = "";
    attend.append(select("attend-kind", t("page.kind"), kinds(), was.ak), select("attend-layer", t("page.layer"), layers(L), was.al),
      select("attend-head", t("page.head"), heads(true), was.ah));
    const range = document.createElement("div");
    range.innerHTML = "<label for='steps-at'></label><input id='steps-at' type='range' min='0' step='1' value='0'> <output id='steps-at-value' for='steps-at'></output>";
    range.querySelector("label").textContent = t("page.steps.step");
    range.querySelector("input").max = String(bank.steps.length - 1);
    range.querySelector("input").addEventListener("input", redraw);
    steps.append(range, select("steps-layer", t("page.cross_layer"), layers(L), was.sl), select("steps-head", t("page.head"), heads(true), was.sh));
    inside.append(select("inside-kind", t("page.kind"), kinds(), was.ik), select("inside-layer", t("page.layer"), layers(L), was.il),
      select("inside-head", t("page.head"), heads(false), was.ih), select("inside-query", t("page.inside.query"), [], ""));
    $("inside-kind").addEventListener("change", () => queries(), { capture: true });
    queries();
    if (!pe.children.length) {
      pe.innerHTML = "<div><label for='pe-len'></label><input id='pe-len' type='number' min='2' step='1'></div>" +
        "<div><label for='pe-dims'></label><input id='pe-dims' type='text' inputmode='numeric'></div>";
      pe.querySelector("[for=pe-len]").textContent = t("page.pe.positions") + " (2-" + S.pe.max_len + ")";
      pe.querySelector("[for=pe-dims]").textContent = t("page.pe.dims");
      $("pe-len").max = String(S.pe.max_len);
      $("pe-len").value = was.len;
      $("pe-dims").value = was.dims;
      $("pe-len").addEventListener("change", redraw);
      $("pe-dims").addEventListener("change", redraw);
    }
  }


  // ---- the guided lesson, alone (lesson_stops.js: the served page's stops and questions); no class, no tally
  const lesson = { stop: -1, answered: null, first: [] };
  const STOP_TAB = { attend: "attend", steps: "steps", pe: "pe", inside: "inside", experiments: "lens" };
  function setValue(id, value) {
    const el = $(id);
    if (el && value !== undefined && value !== null && [...(el.options || [])].some((o) => o.value === String(value))) el.value = String(value);
    else if (el && el.type === "range") el.value = String(value);
  }
  function question() {
    const st = AE.lessonStops.STOPS[lesson.stop];
    try { return st.ask(bank); } catch (e) { return null; }
  }
  // the stop's view: its tab, and the kind, layer, head or step its question is about
  function stopView(st, q, quiet) {
    const v = Object.assign({}, st.view, (q && q.view) || {});
    if (v.kind) setValue("attend-kind", AE.kindOf(v.kind));
    if (v.layer !== undefined) setValue("attend-layer", v.layer);
    if (v.head !== undefined) setValue("attend-head", v.head);
    if (v.step !== undefined) setValue("steps-at", v.step);
    openTab(STOP_TAB[v.tab] || current, false, quiet);
  }
  function lessonHtml() {
    const { STOPS, LETTERS, option } = AE.lessonStops, n = STOPS.length;
    if (lesson.stop >= n) {
      const right = lesson.first.filter((r) => r === true).length, answered = lesson.first.filter((r) => r !== undefined).length;
      const score = answered < n ? t("lesson.score_missing", { right, total: n, n: n - answered }) : t("lesson.score", { right, total: n });
      return ["<h2 id='lesson-title' tabindex='-1'>" + t("lesson.done") + "</h2>",
        "<p>" + score + "</p><ol>" + STOPS.map((st, i) => "<li>" + (lesson.first[i] === true ? "✓" : lesson.first[i] === false ? "✗" : "–") +
          " <b>" + st.title.replace(/^\d+\. /, "") + "</b>: " + st.recap + "</li>").join("") + "</ol>", "",
        "<p class='nav'><button type='button' data-go='-1'>" + t("lesson.back") + "</button><button type='button' data-again='1'>" +
        t("lesson.restart") + "</button></p>"];
    }
    const st = STOPS[lesson.stop], q = question();
    const title = st.title + " <small>" + t("lesson.of", { n: lesson.stop + 1, total: n }) + "</small>";
    if (!q) return [title, "<p>" + st.look + "</p>", "", nav(n)];
    // once answered: the answer given marked ✓ where right and ✗ where not, and the right one ✓ (style: offline.css)
    const mark = (i) => (lesson.answered !== null && i === q.answer ? "is-right" : "");
    const options = q.options.map((_, i) => "<button type='button' class='" + mark(i) + "' data-answer='" + i + "' aria-pressed='" + (lesson.answered === i) + "'><b>" +
      LETTERS[i] + "</b> " + option(q, i) + "</button>").join("");
    const said = lesson.answered === null ? "" : "<p class='" + (lesson.answered === q.answer ? "right" : "") + "'>" +
      (lesson.answered === q.answer ? t("lesson.right") : t("lesson.wrong", { choice: option(q, lesson.answered) })) + " " + q.explain + "</p>";
    return [title, "<p>" + st.look + "</p><p>" + t("lesson.predict") + " " + q.prompt + "</p><div class='options' role='group' aria-label='" +
      AE.esc(t("lesson.predict").replace(/<[^>]*>/g, "")) + "'>" + options + "</div>", said, nav(n)];
  }
  const nav = (n) => "<p class='nav'>" + (lesson.stop > 0 ? "<button type='button' data-go='-1'>" + t("lesson.back") + "</button>" : "") +
    "<button type='button' data-go='1'>" + t(lesson.stop === n - 1 ? "lesson.finish" : "lesson.next") + "</button></p>";
  function renderLesson(focusTitle) {
    const box = $("lesson");
    box.hidden = lesson.stop < 0;
    $("pieces").classList.toggle("ae-covered", lesson.stop === 0 && lesson.answered === null);
    if (lesson.stop < 0) return;
    const [title, body, said, navHtml] = lessonHtml();
    // (the catalogue's words, and the sentence's labels escaped by page_data.js)
    $("lesson-title").innerHTML = title.replace(/^<h2[^>]*>|<\/h2>$/g, "");
    $("lesson-body").innerHTML = body;
    $("lesson-feedback").innerHTML = said;
    $("lesson-nav").innerHTML = navHtml;
    if (focusTitle) { $("lesson-title").focus({ preventScroll: true }); box.scrollIntoView({ block: "start" }); }
  }
  function goStop(to) {
    const n = AE.lessonStops.STOPS.length;
    lesson.stop = Math.max(0, Math.min(n, to));
    lesson.answered = null;
    if (lesson.stop < n) { const st = AE.lessonStops.STOPS[lesson.stop]; stopView(st, question()); }
    renderLesson(true);
  }
  function choose(i) {
    const q = question();
    if (!q || i >= q.options.length || lesson.stop >= AE.lessonStops.STOPS.length) return;
    lesson.answered = i;
    if (lesson.first[lesson.stop] === undefined) lesson.first[lesson.stop] = i === q.answer;
    renderLesson(false);
    const pressed = $("lesson-body").querySelector("[data-answer='" + i + "']");
    if (pressed) pressed.focus();
  }
  function lessonControls() {
    $("lesson-start").textContent = t("page.lesson");
    $("lesson-close").textContent = "✕";
    $("lesson-close").setAttribute("aria-label", t("lesson.close"));
    $("lesson-start").addEventListener("click", () => { lesson.first = []; goStop(0); });
    $("lesson-close").addEventListener("click", () => { lesson.stop = -1; renderLesson(false); status(t("lesson.closed"), "done"); $("lesson-start").focus(); });
    $("lesson").addEventListener("click", (e) => {
      const b = e.target.closest("button");
      if (!b) return;
      if (b.dataset.answer !== undefined) choose(Number(b.dataset.answer));
      else if (b.dataset.go) goStop(lesson.stop + Number(b.dataset.go));
      else if (b.dataset.again) { lesson.first = []; goStop(0); }
    });
    // A-D (or 1-4) answer, ← → move, only while the focus is in the lesson
    $("lesson").addEventListener("keydown", (e) => {
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      const letter = "ABCD".indexOf(e.key.toUpperCase()), digit = "1234".indexOf(e.key);
      if (e.key.length === 1 && (letter >= 0 || digit >= 0)) { e.preventDefault(); choose(letter >= 0 ? letter : digit); }
      else if (e.key === "ArrowRight" && lesson.stop < AE.lessonStops.STOPS.length) { e.preventDefault(); goStop(lesson.stop + 1); }
      else if (e.key === "ArrowLeft" && lesson.stop > 0) { e.preventDefault(); goStop(lesson.stop - 1); }
    });
  }

  // ---- tabs (the ARIA pattern: arrows, Home and End move between them)
  function openTab(name, focus, quiet) {
    current = name;
    TABS.forEach(([id]) => {
      const tab = $("tab-" + id), on = id === name;
      tab.setAttribute("aria-selected", String(on));
      tab.tabIndex = on ? 0 : -1;
      $("panel-" + id).hidden = !on;
    });
    if (focus) $("tab-" + name).focus();
    if (!quiet) redraw();
  }
  function tabs() {
    const list = $("tablist");
    list.setAttribute("aria-label", t("offline.views"));
    TABS.forEach(([id, key]) => {
      const b = document.createElement("button");
      b.type = "button"; b.id = "tab-" + id; b.setAttribute("role", "tab"); b.setAttribute("aria-controls", "panel-" + id);
      b.textContent = t(key);
      b.addEventListener("click", () => openTab(id));
      list.appendChild(b);
    });
    list.addEventListener("keydown", (e) => {
      const at = TABS.findIndex(([id]) => id === current);
      const to = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: TABS.length - 1 }[e.key];
      if (to === undefined) return;
      e.preventDefault();
      openTab(TABS[(to + TABS.length) % TABS.length][0], true);
    });
    openTab("attend");
  }

  // ---- Translate
  async function translate(text, fromExample) {
    const sentence = String(text).replace(/\s+/g, " ").trim();
    if (!sentence) { status(t("offline.empty"), "failed"); $("sentence").focus(); return; }
    if (sentence.length > S.max_chars) { status(t("offline.too_long", { n: S.max_chars }), "failed"); return; }
    if (busy || !ready) { pending = [sentence, fromExample]; return; }  // (translated after: the box and the German agree)
    busy = true;
    $("translate").disabled = true;
    status(t("offline.translating"), "loading");
    try {
      const r = await ask({ kind: "translate", text: sentence, maxLen: 60, maxSource: S.max_source });
      bank = Object.assign({}, r.data, { pe: S.pe, request: JSON.stringify({ model: S.model }) });
      $("german").textContent = r.translation;
      $("pieces").innerHTML = r.pieces;  // (advice.js: catalogue words, the pieces escaped, as the served page shows them)
      $("result").hidden = false;
      $("tabs").hidden = false;
      controls();
      if (lesson.stop >= 0) {  // the stop asked again on this sentence, its view aimed at what it asks now
        lesson.answered = null;
        if (lesson.stop < AE.lessonStops.STOPS.length) stopView(AE.lessonStops.STOPS[lesson.stop], question(), true);
        renderLesson(false);
      }
      status(t("offline.done", { ms: AE.num(r.ms, 0) }), "done");
      await redraw();
      // (an example tapped on a phone: the German is below the examples, so it is brought up into sight; a sentence
      // typed keeps its box where it is)
      const box = $("german").getBoundingClientRect();
      if (fromExample && (box.top < 0 || box.bottom > window.innerHeight)) $("result").scrollIntoView({ block: "start" });
    } catch (e) {
      const pieces = /^pieces (\d+)$/.exec(e.message);
      status(pieces ? t("offline.too_many_pieces", { n: pieces[1], max: S.max_source }) : t("offline.failed", { why: e.message }), "failed");
    } finally {
      busy = false;
      $("translate").disabled = false;
      if (pending) { const next = pending; pending = null; translate(...next); }
    }
  }

  function words() {
    document.title = t("offline.title");
    $("title").textContent = t("offline.title");
    $("lead").innerHTML = md(t("offline.lead"));
    $("skip").textContent = t("offline.skip");
    $("sentence-label").textContent = t("page.task.english_sentence");
    $("translate").textContent = t("page.translate");
    $("german-label").textContent = t("offline.german");
    $("no-check").textContent = t("offline.no_check");
    document.querySelectorAll("[data-md]").forEach((el) => { el.innerHTML = md(t(el.dataset.md)); });
    const ex = $("examples");
    ex.setAttribute("aria-label", t("page.examples"));
    ((S.task && S.task.examples) || []).forEach((s) => {
      const b = document.createElement("button");
      b.type = "button"; b.textContent = s; b.lang = "en";
      b.addEventListener("click", () => { $("sentence").value = s; translate(s, true); });
      ex.appendChild(b);
    });
    $("sentence").value = ((S.task && S.task.examples) || [""])[1] || "";
    $("sentence").maxLength = S.max_chars;
  }

  // the language switch (i18n.js setLang presses #ae-lang-state): the page reopens in the other language with its
  // sentence, its tab and its lesson's stop, translated again there, the focus back on the switch
  const carried = new URLSearchParams(window.location.search);
  $("ae-lang-state").addEventListener("click", () => {
    const state = new URLSearchParams({ focus: "lang", tab: current });
    if (bank) state.set("text", bank.text);
    if (lesson.stop >= 0) {
      state.set("stop", String(lesson.stop));
      state.set("first", lesson.first.map((r) => (r === true ? "1" : r === false ? "0" : "-")).join(""));
    }
    AE.langGo(state.toString());
  });

  words();
  tabs();
  lessonControls();
  if (carried.get("text")) $("sentence").value = carried.get("text");
  $("translate").addEventListener("click", () => translate($("sentence").value));
  $("sentence").addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey) { e.preventDefault(); translate($("sentence").value); }
  });
  // (Translate once the model is loaded and the views' scripts after this one have been read)
  const read = new Promise((done) => (document.readyState === "loading" ? document.addEventListener("DOMContentLoaded", done) : done()));
  Promise.all([load(), read]).then(async () => {
    status(t("offline.ready"), "done");
    $("translate").disabled = false;
    ready = true;
    if (pending && !carried.get("text")) { const next = pending; pending = null; await translate(...next); }
    if (carried.get("text")) {
      await translate(carried.get("text"));
      const tab = TABS.find(([id]) => id === carried.get("tab"));
      if (tab) openTab(tab[0]);
      const stop = parseInt(carried.get("stop"), 10);
      if (stop >= 0 && stop <= AE.lessonStops.STOPS.length) {
        lesson.first = [...(carried.get("first") || "")].map((c) => (c === "1" ? true : c === "0" ? false : undefined));
        goStop(stop);
      }
    }
    const own = carried.get("focus") === "lang" && document.querySelector("#ae-langs [data-lang='" + AE.lang + "']");
    if (own) own.focus();
  }).catch((e) => status(t("offline.failed", { why: e.message }), "failed"));
})();
