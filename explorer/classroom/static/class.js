// Class rooms (explorer/classroom/rooms.py, explorer/classroom/routes.py): a teacher opens a room ("Teach a class"); students
// join by its link (/?class=CODE) and follow the teacher's view, answer the lesson's questions into a class tally,
// and send their own view to the teacher, who can show it to everyone. One server-sent-events stream per page.
// The teacher's key stays in this browser (localStorage): a reload keeps control; it is never in the join link.
// Loaded after links.js and lesson.js; draws #class-panel (teacher) and #class-banner (student).
(function () {
  const AE = window.AE;
  const esc = AE.esc;
  const room = { role: null, code: "", key: "", sid: "", source: null, following: true, last: null, pushed: "",
    data: null, timer: null, note: "", unsent: {} };

  // A random name for this browser, sent with every class request (a cookie): wrong codes are counted per browser,
  // so one student's typos or guesses do not hold back the joins of a whole school behind one address (routes.py)
  if (!/(^|;\s*)ae_browser=[A-Za-z0-9_-]{8,40}/.test(document.cookie || "") && window.crypto && crypto.getRandomValues) {
    const bytes = crypto.getRandomValues(new Uint8Array(12));
    const name = Array.from(bytes, (b) => "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_"[b & 63]).join("");
    document.cookie = "ae_browser=" + name + "; path=/; max-age=31536000; SameSite=Lax";
  }

  async function api(path, body) {
    let r;
    try {
      r = await fetch("/class/" + path, { method: "POST", headers: { "content-type": "application/json" },
        body: JSON.stringify(body || {}) });
    } catch (e) {
      throw new Error(AE.t("class.unreachable"));
    }
    const answer = await r.json().catch(() => ({}));
    if (!r.ok) {
      const e = new Error(answer.error || AE.t("class.answered", { status: r.status }));
      e.status = r.status;
      throw e;
    }
    return answer;
  }

  // After a stream failed for good: is the class still there for this page? Only the server's answer that it is not
  // (404: no such class, or not ours) ends it here; a refusal (too many pages, a busy server) or no answer is a
  // moment to wait and try again, keeping the teacher's key.
  async function gone(who) {
    try { await api(encodeURIComponent(room.code) + "/check", who); return false; } catch (e) { return e.status === 404; }
  }

  // The banner (a student) or the panel (a teacher) on or off, and said on <html> (ae-following, ae-teaching) for the
  // page's styles: a `:has()` rule over the whole page made every figure drawn restyle all of it (issue 50)
  function shown(el, on) {
    const which = el.id === "class-panel" ? "ae-teaching" : "ae-following";
    if (on) { el.classList.add("ae-class-on"); document.documentElement.classList.add(which); }
    else { el.classList.remove("ae-class-on"); document.documentElement.classList.remove(which); }
  }

  function retry(listen, message) {  // a failed stream that is no end of the class: say so, try again
    close();
    room.retryMs = Math.min(RETRY_MAX_MS, (room.retryMs || 500) * 2) * (0.75 + Math.random() / 2);
    const el = box(room.role === "teacher" ? "class-panel" : "class-banner");
    shown(el, true);
    if (!el.querySelector(".ae-class-retry")) {
      el.insertAdjacentHTML("afterbegin", "<div class='ae-status ae-stale ae-class-retry'></div>");
    }
    el.querySelector(".ae-class-retry").textContent = AE.t("class.retry_in", { message, s: Math.round(room.retryMs / 1000) });
    room.retry = setTimeout(() => { room.retry = null; listen(); }, room.retryMs);
  }

  function heard() {  // a state arrived: the stream works again
    room.retryMs = 0;
    const was = document.querySelectorAll(".ae-class-retry").length > 0 || room.reconnecting;
    room.reconnecting = false;
    document.querySelectorAll(".ae-class-retry").forEach((el) => el.remove());
    if (was) {  // the banner or panel says "back" for a few seconds, then no more (helper 20: it stayed 25 s and on)
      room.backNote = Date.now();
      setTimeout(() => { if (room.role === "teacher") render(); else if (room.role === "student") banner(); }, BACK_NOTE_MS + 100);
    }
    if (room.role === "teacher") resend();
    const kept = room.unanswered;  // a student's answer given while the server was away
    if (kept && room.role === "student") { room.unanswered = null; answer(kept.stop, kept.option, kept.options, kept.ids); }
  }

  const RETRY_MAX_MS = 4000;  // a page tries again at most this long after the last try (with jitter)
  const BACK_NOTE_MS = 6000;
  function backNote() {
    return room.backNote && Date.now() - room.backNote < BACK_NOTE_MS ?
      " <span class='ae-class-back'>" + AE.t("class.back_again") + "</span>" : "";
  }

  // the server cannot be reached for now (a restart, a dropped connection): the browser tries again by itself
  function reconnecting() {
    room.reconnecting = true;
    const el = box(room.role === "teacher" ? "class-panel" : "class-banner");
    if (!el.querySelector(".ae-class-retry")) {
      el.insertAdjacentHTML("afterbegin", "<div class='ae-status ae-stale ae-class-retry'></div>");
    }
    el.querySelector(".ae-class-retry").textContent = AE.t("class.reconnecting");
  }

  // a page out of its room (ended, or left): the address no longer names it, and a teacher's names the view they
  // last showed (a reload after End opened a student's "There is no class with the code…" and the default sentence,
  // the teacher's own lost: helper 21)
  function unnameRoom() {
    let url;
    try { url = new URL(window.location.href); } catch (e) { return; }  // (no address: a test harness)
    if (!url.searchParams.has("class")) return;
    // (a follower's address held an older view than it showed: helper 23's reload after End opened stop 7's)
    const last = room.role === "teacher" ? room.pushed : room.following ? room.last : "";
    const mine = last ? new URLSearchParams(last) : url.searchParams;
    mine.delete("class");
    url.search = mine.toString() ? "?" + mine.toString() : "";
    AE.setAddress(url.toString());  // (links.js: the figures' colour bars follow it)
  }

  // the address bar names the room this page is in (a reload stays in it)
  function nameRoom(code) {
    const url = new URL(window.location.href);
    if (url.searchParams.get("class") === code) return;
    url.search = "?class=" + encodeURIComponent(code);
    AE.setAddress(url.toString());  // (links.js: the figures' colour bars follow it)
  }

  // this page shows a view that came from the room (a shown view on the teacher's page, or the teacher's own view
  // after a reload): the view is applied as a link opened now would be, and the teacher's page posts nothing until
  // it is (then what the page shows is the room's view, and only the teacher's next change is posted)
  function adopt(state, reloaded) {
    room.adopting = Date.now();
    room.adopted = false;
    room.adoptedLang = new URLSearchParams(state || "").get("lang");  // the class's language until the teacher's is sent
    AE.follow(state);
    // the teacher's page reopened in another language than the room's view (the teacher chose it with the switch):
    // the class takes it at once (a shown student's view keeps its own until the teacher changes something)
    if (reloaded && room.role === "teacher" && AE.lang && room.adoptedLang && room.adoptedLang !== AE.lang) {
      const params = new URLSearchParams(state);
      params.set("lang", AE.lang);
      room.adoptedLang = AE.lang;
      room.pushed = params.toString();
      send("state", { state: room.pushed }, "state");
    }
  }
  // a view the page settles into after adopting the room's: the page's own, except its language (a teacher who
  // reopened their page in another language changed the class's)
  function absorbed(query) {
    if (!room.adoptedLang) return query;
    const params = new URLSearchParams(query);
    params.set("lang", room.adoptedLang);
    return params.toString();
  }
  if (AE.link) AE.link.onFollowed = () => { if (room.adopting) room.adopted = true; };

  function box(id) {
    let el = document.getElementById(id);
    if (!el) { el = document.createElement("div"); el.id = id; document.body.appendChild(el); }
    return el;
  }

  function say(message, refused) {  // a refusal or an ended room, in words, where the class controls are
    const el = box(room.role === "teacher" ? "class-panel" : "class-banner");
    shown(el, true);
    // (a code refused: the field to type another marked and described by the words; Enter in it joins)
    const invalid = refused ? " aria-invalid='true' aria-describedby='class-said'" : "";
    el.innerHTML = "<div class='ae-status ae-stale' id='class-said'>" + esc(message) + "</div>" + (room.role === "teacher" ?
      "<button onclick='AE.room.teach(true)'>" + AE.t("class.new_class") + "</button>" :
      "<form onsubmit='AE.room.joinCode(); return false;' class='ae-class-rejoin'><label>" + AE.t("class.join_label") +
      " <input id='class-join-code' maxlength='12' size='7' autocomplete='off' autocapitalize='characters' spellcheck='false'" + invalid +
      "></label> <button type='submit'>" + AE.t("class.join") + "</button> <button type='button' onclick='AE.room.leave()'>" +
      AE.t("class.close") + "</button></form>");
  }
  // a join refused (a wrong code, a locked or full class): said, and the focus in the field to type the code again
  // (helper 44: the focus fell to the page's body as the "Join a class" field went, and nothing was said); the field
  // holds the code tried, selected: typed over at once, or mended where one letter was wrong
  function refused(message, tried) {
    say(message, true);
    if (AE.a11y && AE.a11y.say) AE.a11y.say(message);
    const field = document.getElementById("class-join-code"), a = document.activeElement;
    if (field && tried) field.value = tried;
    if (field && (!a || a === document.body || a.closest("#join-box, #ae-join, #class-banner"))) { field.focus(); field.select(); }
  }

  // why the room ended, in this page's language: the server sends the English words and their catalogue key
  const why = (d) => (d.ended_key ? AE.t(d.ended_key) : d.ended);
  // a lesson stop as the room names it ("stop 3"), in this page's words
  const stopName = (stop) => {
    const n = /^stop (\d+)$/.exec(String(stop));
    return n ? AE.t("class.stop", { n: n[1] }) : String(stop);
  };

  function close() {
    if (room.source) room.source.close();
    room.source = null;
    if (room.timer) clearInterval(room.timer);
    room.timer = null;
    if (room.retry) clearTimeout(room.retry);
    room.retry = null;
  }

  function ended(message) {
    close();
    unnameRoom();
    // the teacher's own lesson ran the class's: it ends with it (a reload after End put the teacher's own empty
    // "Score: 0 of 8" on the projector: helper 23)
    if (room.role === "teacher") room.over = true;  // (and nothing posted for it: lessonAt)
    if (room.role === "teacher" && AE.lesson && AE.lesson.state.stop >= 0 && AE.lesson.end) AE.lesson.end();
    if (room.role === "teacher") localStorage.removeItem("ae-teach");
    const words = room.role === "student" ? AE.t("class.ended_student", { message }) : message;
    say(words);
    // said too (helper 48: the banner's live line went with the old banner, and a blind student heard nothing)
    if (room.role === "student" && AE.a11y && AE.a11y.say) AE.a11y.say(words);
  }

  // -- the teacher ---------------------------------------------------------------------------------------------
  async function teach(fresh) {
    if (room.role === "teacher" && !fresh && room.source) return render();
    if (room.role === "student" && room.code && room.source) {  // one class at a time: leave this one first (asked)
      if (window.confirm && !window.confirm(AE.t("class.leave_to_teach", { code: room.code }))) return null;
      leave();
    }
    try {
      const r = await api("new");
      close();
      Object.assign(room, { role: "teacher", code: r.code, key: r.key, pushed: "", over: false, opened: true });
      localStorage.setItem("ae-teach", JSON.stringify({ code: r.code, key: r.key }));
      listenTeacher();
    } catch (e) { room.role = "teacher"; say(e.message); }
  }

  function listenTeacher() {
    const es = new EventSource("/class/" + room.code + "/teacher?key=" + encodeURIComponent(room.key));
    room.source = es;
    es.addEventListener("room", (e) => {
      if (!room.restored) room.unsent = Object.assign(keptUnsent(), room.unsent);  // a reload's changes not sent yet
      if (!room.restored && !room.lost) room.lost = keptLost();  // and one it could not read (lostEdit)
      heard();
      room.data = JSON.parse(e.data);
      if (room.data.ended) { ended(why(room.data)); return; }
      nameRoom(room.data.code);
      // a class just opened is said with its code (helper 41: "Teach a class" said nothing to a screen reader)
      if (room.opened && AE.a11y) { room.opened = false; AE.a11y.say(AE.t("class.opened_said", { code: room.data.code })); }
      const shownId = room.data.shown ? room.data.shown.id : null;
      const mine = room.unsent.state ? room.unsent.state[1].state : "";  // the teacher's view the room has not heard yet
      if (!room.restored && mine) { adopt(mine, true); room.pushed = mine; }
      // the teacher's own view when a student's is first shown: Bring everyone back returns to it
      if (room.restored && shownId && !room.shownId) room.ownView = room.pushed;
      if (!room.restored || (shownId && shownId !== room.shownId)) {  // a reload, or Show to everyone
        if (room.data.state && (shownId || !room.pushed)) adopt(room.data.state, !room.restored);
      }
      // (the lesson's stop comes back with the room's view, adopted above: not set again to the question's own)
      if (!room.restored && room.data.lesson >= 0 && AE.lesson && AE.lesson.state.stop < 0) {
        AE.lesson.at(room.data.lesson, !!room.data.state);
      }
      // Bring everyone back after Show to everyone: the shown view ends, and the teacher's page goes back to its
      // lesson stop's view (posted as its own change, so the class follows it; helper 19: the phones' lessons went to
      // stop 6's view, the projector stayed on the shown one and every banner still named it)
      // The room holds the shown view now: the page's next view is posted whatever it was posted as before (CI:
      // the stop's view was the one pushed before Show to everyone, so going back to it posted nothing when no
      // 400 ms tick had absorbed the shown view in between, and the phones stayed on it)
      // During the lesson, Bring everyone back does the same from another tab the teacher opened: every screen goes
      // back to the stop's view (helper 31: at stops 2, 7 and 8 the class stayed on the Model tab, Inside a head or
      // Positional encoding, the phones' note that the view was another gone, the question over an unrelated figure);
      // on the stop's own tab the teacher's view stays (a step moved to at stop 7 is the one every screen shows)
      const lessonOn = AE.lesson && AE.lesson.state.stop >= 0 && AE.lesson.state.stop < AE.lesson.stops &&
        AE.lesson.tabOf(AE.lesson.state.stop) !== AE.state.tab;
      const endsShowing = !!room.shownId && !shownId;
      if (room.restored && (endsShowing || lessonOn) && room.data.back !== room.backSeen) {
        Object.assign(room, { adopting: 0, pushed: room.data.state || "" });
        const stop = AE.lesson ? AE.lesson.state.stop : -1, since = Date.now();
        if (stop >= 0 && stop < AE.lesson.stops) {
          // the stop names its tab (and some an attention type), not every control: the teacher's own view from
          // before the showing comes back first (helper 23: at stop 4, which names only its tab, every screen
          // stayed on the student's encoder self-attention, layer 2, head 1)
          if (endsShowing && room.ownView) AE.follow(room.ownView);
          AE.lesson.rejoin(stop);
          // (that view arrives through the server's answers, after the stop's own tab and attention type were set:
          // those are set again once it has, unless the teacher moved on by hand meanwhile)
          [1500, 4000].forEach((ms) => setTimeout(() => {
            if (hand.started <= since && AE.lesson.state.stop === stop && !room.shownId) AE.lesson.rejoin(stop);
          }, ms));
        }
      }
      if (shownId && shownId !== room.shownId && AE.lesson && AE.lesson.shownNote) AE.lesson.shownNote(nickOf(room.data.shown.nick));
      room.backSeen = room.data.back;
      room.restored = true;
      room.shownId = shownId;
      render();
      if (AE.lesson && AE.lesson.cover) AE.lesson.cover();  // a stop revealed: what its question covered, shown
    });
    es.onerror = async () => {
      if (es.readyState === 0 && !room.leaving && room.source === es) reconnecting();
      if (es.readyState !== 2 || room.leaving || room.source !== es) return;
      if (await gone({ key: room.key })) ended(AE.t("class.gone_teacher"));
      else if (room.role === "teacher" && !room.leaving) retry(listenTeacher, AE.t("class.panel_unreachable"));
    };
    // the teacher's view, sent when it changes: a hidden button's event reads it from the page (no server request)
    room.timer = setInterval(() => { const b = document.getElementById("ae-room-state"); if (b) b.click(); }, 400);
  }

  function push(query) {
    if (room.lessonLater && showsRoomSentence()) lessonAt(...room.lessonLater);  // held while another sentence showed
    // the page's events still run: a change made while the server was away is in this view (kept and sent below)
    if (room.lost && !room.lost.reloaded && Date.now() - room.lost.at > LOST_READ_MS) lostAbsorbed();
    if (room.role !== "teacher" || query === room.pushed) return;
    if (!room.restored) return;  // the room's view first: a reloaded page's defaults are no change of the teacher's
    if (room.adopting) {  // the room's view is being applied here: what the page shows then is no change of ours
      // until the teacher's own hand (a pointer or a key: events no script makes trusted) touches the page after the
      // view arrived, every change is the page settling into it (a lazy view's answer, a query token renamed for
      // the analysis, however long the server takes): absorbed, never posted
      if (hand.started <= room.adopting) {
        if (room.adopted) room.pushed = absorbed(query);
        return;
      }
      room.adopting = 0;
      if (room.adopted && query === room.pushed) return;
    }
    room.pushed = query;
    if (room.lost && room.lost.reloaded) lostAbsorbed();  // the teacher's next change after the reload: said no more
    send("state", { state: query }, "state");
  }

  // A change Gradio never lets the page read: a page whose request found no server (Inside a head's figure asks for
  // one at every pick) runs no event of its own from then on, the hidden button that reads the teacher's view
  // included, and reloads when the server is back. Such a change is said on the panel at once, and again after that
  // reload, by its control's name, so the teacher makes it again (helper 28: it was lost without a word). A change
  // the page could still read is kept with the other unsent ones and sent when the server is back.
  const LOST_READ_MS = 300;  // a change is read at the hidden button's next tick (400 ms) at the latest
  function lostEdit(e) {
    if (room.role !== "teacher" || !room.code || !room.reconnecting) return;
    const t = e.target;
    if (e.type === "pointerdown" || e.type === "keydown") {
      // a dropdown's option is picked by a pointer on it (its click lands elsewhere: the list is gone by then) or Enter
      const picked = e.isTrusted && !!t && !!t.closest && !t.closest(CLASS_PARTS) &&
        ((e.type === "pointerdown" && !!t.closest("[role='option'], ul.options li")) ||
         (e.type === "keydown" && e.key === "Enter" && !!t.closest("[role='combobox']")));
      if (!picked) return;
    } else if (!ownEdit(e)) return;
    const block = control(t);
    const info = block && block.querySelector ? block.querySelector("[data-testid='block-info']") : null;
    const name = ((info || block || t).textContent || "").trim().replace(/\s+/g, " ").slice(0, 40);
    const names = room.lost && !room.lost.reloaded ? room.lost.what.split(", ").filter((n) => n && n !== name) : [];
    room.lost = { at: Date.now(), what: [...names, name].slice(-3).join(", ") };
    keepLost();
    setTimeout(unsentNote, LOST_READ_MS + 500);  // (said unless the page read it meanwhile)
  }
  function lostAbsorbed() { room.lost = null; keepLost(); unsentNote(); }
  function keepLost() {
    try {
      if (room.lost && !room.lost.reloaded) sessionStorage.setItem("ae-lost-" + room.code, JSON.stringify(room.lost));
      else sessionStorage.removeItem("ae-lost-" + room.code);
    } catch (e) { /* storage refused */ }
  }
  function keptLost() {  // a reloaded page: the change lost in the reload, said once here
    let lost = null;
    try { lost = JSON.parse(sessionStorage.getItem("ae-lost-" + room.code) || "null"); } catch (e) { lost = null; }
    try { sessionStorage.removeItem("ae-lost-" + room.code); } catch (e) { /* storage refused */ }
    return lost && typeof lost.what === "string" ? { at: 0, what: lost.what.slice(0, 130), reloaded: true } : null;
  }

  // A teacher's change the server did not take because it could not be reached (a restart, a dropped network) is
  // kept, one per kind (the newest view, the lesson's stop), said on the panel, and sent again when the stream is
  // back; a refusal in words (4xx) is shown as before.
  const unreachable = (e) => !e.status || e.status >= 500;
  function send(action, extra, keep) {
    return api(room.code + "/" + action, Object.assign({ key: room.key }, extra || {})).then((r) => {
      if (keep) { delete room.unsent[keep]; keepUnsent(); }
      unsentNote();
      return r;
    }).catch((e) => {
      if (keep && unreachable(e)) { room.unsent[keep] = [action, extra]; keepUnsent(); unsentNote(); return null; }
      if (unreachable(e)) { notice(e.message); return null; }
      say(e.message);
      return null;
    });
  }
  // kept in this tab too: a reload while the server is away (Gradio reloads a page whose server came back) sends them
  function keepUnsent() {
    try {
      if (Object.keys(room.unsent).length) sessionStorage.setItem("ae-unsent-" + room.code, JSON.stringify(room.unsent));
      else sessionStorage.removeItem("ae-unsent-" + room.code);
    } catch (e) { /* storage refused */ }
  }
  function keptUnsent() {
    try { return JSON.parse(sessionStorage.getItem("ae-unsent-" + room.code) || "{}") || {}; } catch (e) { return {}; }
  }
  function resend() {
    Object.entries(room.unsent).forEach(([keep, [action, extra]]) => send(action, extra, keep));
  }
  function unsentNote() {
    const el = document.getElementById("class-panel");
    if (!el) return;
    let note = el.querySelector(".ae-class-unsent");
    const lost = room.lost && (room.lost.reloaded || Date.now() - room.lost.at > LOST_READ_MS) ?
      AE.t(room.lost.reloaded ? "class.lost" : "class.lost_now", { what: room.lost.what || "?" }) : "";
    const words = [Object.keys(room.unsent).length ? AE.t("class.unsent") : "", lost].filter(Boolean).join(" ");
    if (!words) { if (note) note.remove(); return; }
    if (!note) { el.insertAdjacentHTML("afterbegin", "<div class='ae-status ae-stale ae-class-unsent' role='status'></div>"); note = el.querySelector(".ae-class-unsent"); }
    if (note.textContent !== words) note.textContent = words;
  }
  function notice(message) {  // a button's request that found no server: said, the panel kept
    const el = box("class-panel");
    el.querySelectorAll(".ae-class-notice").forEach((n) => n.remove());
    el.insertAdjacentHTML("afterbegin", "<div class='ae-status ae-stale ae-class-notice' role='status'>" + esc(message) + "</div>");
  }

  // a value as a JS string literal inside a single-quoted onclick attribute: JSON, then every character HTML gives a
  // meaning there escaped (so that no entity can close the string or the attribute)
  // a name the room gave (kept in English, "Student 3", or "Student 3 (2)" told apart): in this page's language
  const nickOf = (nick) => {
    const m = /^Student (\d+)( \(\d+\))?$/.exec(String(nick || ""));
    return m ? AE.t("class.student_nick", { n: m[1] }) + (m[2] || "") : String(nick || "");
  };
  const attr = (v) => esc(JSON.stringify(String(v))).replace(/'/g, "&#39;");
  const LETTERS = "ABCDEFGH";

  // one stop's answers: each option on its own line (its letter, its text, its count), the right one marked after
  // Reveal; bars: the counts drawn as bars (the projector's current stop)
  function tallyLine(tally, bars) {
    const q = room.data && room.data.questions ? room.data.questions[tally.stop] : null;
    const most = Math.max(1, ...tally.counts);
    const named = q && q.options.length === tally.counts.length;
    // the options in this page's language where its lesson asks the same question there (the room keeps the words the
    // teacher's page had when it asked: helper 19 saw a German panel's earlier stops in English)
    const n = /^stop (\d+)$/.exec(tally.stop), here = n && named && AE.lesson && AE.lesson.question ? AE.lesson.question(Number(n[1]) - 1) : null;
    const words = here && q.ids && JSON.stringify(here.ids) === JSON.stringify(q.ids) ?
      here.options.map((o) => String(o).replace(/<[^>]*>/g, "")) : named ? q.options : null;
    return "<ul class='ae-class-options'>" + tally.counts.map((n, i) => {
      const right = named && q.answer === i;
      return "<li" + (right ? " class='ae-right'" : "") + ">" + (bars ? "<span class='ae-bar' style='width:" +
        Math.round(100 * n / most) + "%'></span>" : "") + "<b class='ae-letter'>" + LETTERS[i] + "</b> " +
        (named ? "<span class='ae-option'>" + esc(words[i]) + "</span> " : "") + "<span class='ae-count'>— <b>" + n + "</b></span>" +
        (right ? " <span class='ae-mark'>✓ " + AE.t("class.models_answer") + "</span>" : "") + "</li>";
    }).join("") + "</ul>";
  }

  // the stop the teacher's lesson is at: its question, and the class's answers there, large (the projector's view)
  function nowPart(d) {
    const L = AE.lesson ? AE.lesson.state : null;
    // the newest view sent in, its Show among the buttons kept on the projector's screen (the list of views sent in
    // is below the fold of a 1366x768 one: helper 28); hidden outside presentation mode, where the list is in sight
    const newest = d.shares.length ? d.shares[d.shares.length - 1] : null;
    const showNewest = newest ? " <button id='class-show-newest' onclick='AE.room.show(" + attr(newest.id) + ")'>" +
      esc(AE.t("class.show_newest", { nick: nickOf(newest.nick) })) + "</button>" : "";
    if (!L || L.stop < 0 || L.stop >= AE.lesson.stops || !L.q) {
      return "<div class='ae-class-actions'><button id='class-lesson-start' onclick='AE.room.lesson(0)'>" + AE.t("class.lesson_start") +
        "</button> <button id='class-bring-back' onclick='AE.room.back()'>" + AE.t("class.bring_back") + "</button>" + showNewest + "</div>";
    }
    const name = "stop " + (L.stop + 1);
    const tally = d.tallies[name] || { stop: name, answered: 0, counts: L.q.options.map(() => 0) };
    const revealed = d.revealed.includes(name);
    // the question's words without their markup (an inert document: nothing in it loads or runs), escaped again below
    const plain = (html) => new DOMParser().parseFromString(String(html), "text/html").body.textContent;
    return "<section id='class-now' aria-label='" + esc(AE.t("class.now")) + "'><h3>" + esc(AE.lesson.title(L.stop)) + " <small>" +
      AE.t("lesson.of", { n: L.stop + 1, total: AE.lesson.stops }) + "</small></h3><p id='class-now-question'>" + esc(plain(L.q.prompt)) +
      "</p>" + (d.shown ? "<p class='ae-status ae-stale' id='class-now-waits'>" + esc(AE.t("class.question_waits", { nick: nickOf(d.shown.nick) })) + "</p>" : "") +
      "<div id='class-now-tally'>" + tallyLine(tally, true) + "</div><p class='ae-class-answered'>" +
      AE.t("class.answered_count", { n: tally.answered }) + (revealed ? " <i>" + AE.t("class.revealed") + "</i>" : "") + "</p></section>" +
      "<div class='ae-class-actions'><button id='class-prev' onclick='AE.room.lesson(-1)'" + (L.stop ? "" : " disabled") + ">" +
      AE.t("lesson.back") + "</button> <button id='class-reveal' onclick='AE.room.reveal(" + attr(name) + ")'" + (revealed ? " disabled" : "") +
      ">" + AE.t("class.reveal") + "</button> <button id='class-next' onclick='AE.room.lesson(1)'>" +
      (L.stop === AE.lesson.stops - 1 ? AE.t("lesson.finish") : AE.t("lesson.next")) + "</button> <button id='class-bring-back' " +
      "onclick='AE.room.back()'>" + AE.t("class.bring_back") + "</button>" + showNewest + "</div>";
  }

  // The lesson's question is the class's only when this page shows the room's sentence: a reloaded page (or one
  // reopened in another language) first translates its own example, and its lesson asks about that until the room's
  // view has arrived here (posted, that question would drop the class's answers at the stop)
  function showsRoomSentence() {
    if (!room.restored) return false;
    // the teacher's own hand since the room's view came: what the page shows is the teacher's (a sentence retyped)
    if (!room.adopting || hand.started > room.adopting || !room.data || !room.data.state) return true;
    const want = new URLSearchParams(room.data.state).get("text") || "";
    const b = AE.current && AE.current();
    let have = "";
    try { have = b && b.request ? JSON.parse(b.request).text || "" : ""; } catch (e) { have = ""; }
    return !want || want === have;
  }

  // the teacher's lesson: where it is, and the question there (for the tally), posted when it changed
  function lessonAt(stop, q, fresh) {
    if (room.role !== "teacher" || !room.code || room.over) return;
    if (!showsRoomSentence()) { room.lessonLater = [stop, q, fresh]; return; }  // posted once it is (push)
    room.lessonLater = null;
    const body = { stop };
    if (q && stop >= 0) {
      body.options = q.options.map((o) => String(o).replace(/<[^>]*>/g, ""));
      body.answer = q.answer;
      body.ids = q.ids;  // the question in words no language changes: the same question in German is no new one
    }
    if (fresh) body.fresh = true;  // the lesson started anew: the room counts this run's answers afresh
    const sent = JSON.stringify(body);
    if (sent === room.lessonSent) return;
    room.lessonSent = sent;
    send("lesson", body, "lesson");
    render();
  }

  // The teacher's panel: the class code and counts; the lesson's current stop (its question and the class's answers,
  // large) with Back / Reveal / Next / Bring everyone back; the other stops' answers folded (open outside
  // presentation mode); views sent in; the join link and QR code (on demand in presentation mode); End the class.
  function render() {
    const d = room.data;
    if (!d) return;
    const el = box("class-panel");
    // a button of the panel pressed and not yet let go: the panel is drawn anew once it is (drawn between the press
    // and the release, the button pressed is gone and no click comes: helper 30 lost 4 of 10 Removes while 60
    // students' news redrew the panel every second)
    if (hand.down && hand.target && el.contains(hand.target) && Date.now() - hand.started < HELD_MS) {
      if (!room.renderLater) setTimeout(() => { if (room.renderLater) render(); }, HELD_MS);  // (a release never heard)
      room.renderLater = true;
      return;
    }
    room.renderLater = false;
    shown(el, true);
    const origin = window.location.origin;
    const join = origin + window.location.pathname + "?class=" + d.code;
    const L = AE.lesson ? AE.lesson.state : null;
    const current = L && L.stop >= 0 ? "stop " + (L.stop + 1) : "";
    const others = Object.values(d.tallies).filter((n) => n.stop !== current);
    const stops = others.map((n) => "<li>" + esc(stopName(n.stop)) + ": " +
      AE.t("class.answered_count", { n: n.answered }) + tallyLine(n) + (d.revealed.includes(n.stop) ?
        " <i>" + AE.t("class.revealed") + "</i>" : " <button onclick='AE.room.reveal(" + attr(n.stop) + ")'>" + AE.t("class.reveal") +
        "</button>") + "</li>").join("");
    // each view sent in says its sentence (what Show to everyone would put on every screen), not only who and a note
    const sentence = (s) => String(s.text || "");  // (the room sends a view sent as its sentence and tab: rooms.brief)
    const quoted = (text) => (text ? " <q lang='en'>" + esc(text.slice(0, 80)) + (text.length > 80 ? "…" : "") + "</q>" : "");
    // the view's tab, by its name in the teacher's language (a student's view is data: only a tab id is looked up)
    const tabOf = (s) => {
      const tab = String(s.tab || "");
      const name = /^[a-z]{2,12}$/.test(tab) ? AE.t("page." + tab + ".tab") : "";
      return name && name !== "page." + tab + ".tab" ? " <small class='ae-share-tab'>(" + esc(name) + ")</small>" : "";
    };
    const shares = d.shares.slice().reverse().map((s) => "<li><b>" + esc(nickOf(s.nick)) + "</b>" + (s.note ? ": " + esc(s.note) : "") +
      quoted(sentence(s)) + tabOf(s) +
      " <button onclick='AE.room.show(" + attr(s.id) + ")'>" + AE.t("class.show") + "</button>" +
      " <button onclick='AE.room.remove(" + attr(s.id) + ")'>" + AE.t("class.remove") + "</button></li>").join("");
    const counts = { n: d.students, following: d.following, exploring: d.exploring };
    // every student, each removable (a fake, a nickname that should not be there), and the lock against new joins:
    // folded until the teacher opens it
    // ... and several at once (a room filled with fakes: "Select all", untick the class, "Remove selected"); the
    // ticks kept across the panel's redrawing, for students still in the room
    const inRoom = new Set((d.roster || []).map((s) => s.id));
    room.picked = new Set([...(room.picked || [])].filter((id) => inRoom.has(id)));
    const roster = (d.roster || []).map((s) => "<li><label><input type='checkbox' class='ae-roster-pick' id='class-pick-" +
      esc(s.id) + "'" + (room.picked.has(s.id) ? " checked" : "") + " onchange='AE.room.pick(" + attr(s.id) + ", this.checked)'> <b>" +
      esc(nickOf(s.nick)) + "</b></label> <small>" +
      AE.t(s.following ? "class.mark_following" : "class.mark_exploring") + "</small> <button class='ae-roster-remove' " +
      "aria-label='" + esc(AE.t("class.remove_label", { nick: nickOf(s.nick) })) + "' onclick='AE.room.removeStudent(" + attr(s.id) + ", " +
      attr(nickOf(s.nick)) + ")'>" + AE.t("class.remove_student") + "</button></li>").join("");
    const students = "<details id='class-roster'" + (room.rosterOpen ? " open" : "") + " ontoggle='AE.room.rosterOpen(this.open)'>" +
      "<summary>" + AE.t("class.roster", { n: d.students }) + (d.locked ? " · " + AE.t("class.locked_note") : "") + "</summary>" +
      "<p><button id='class-lock' aria-pressed='" + !!d.locked + "' onclick='AE.room.lock()'>" +
      AE.t(d.locked ? "class.unlock" : "class.lock") + "</button></p>" + sizePart(d) +
      (roster ? "<p class='ae-roster-bulk'><button id='class-pick-all' onclick='AE.room.pickAll(true)'>" + AE.t("class.pick_all") +
        "</button> <button id='class-pick-none' onclick='AE.room.pickAll(false)'>" + AE.t("class.pick_none") + "</button> " +
        "<button id='class-remove-picked' onclick='AE.room.removePicked()'>" + AE.t("class.remove_picked", { n: room.picked.size }) +
        "</button></p><ul id='class-roster-list'>" + roster + "</ul>" : "<p class='ae-join'>" + AE.t("class.roster_empty") + "</p>") +
      "</details>";
    const present = !!(AE.state && AE.state.present);
    const retry = el.querySelector(".ae-class-retry");
    el.classList.toggle("ae-qr-open", !!room.qrOpen);
    // the control the teacher is on now, if it is in the panel: drawn anew, it keeps the focus (an answer to an earlier
    // press, slow under load, took it from the class size the teacher had moved to, to Lock)
    const active = document.activeElement, was = active && active !== document.body && el.contains(active) ? active.id : "";
    const list = el.querySelector("#class-roster-list"), scrolled = list ? list.scrollTop : 0;  // (kept: a long roster)
    el.innerHTML = "<div class='ae-class-head'><span>" + AE.t("class.code") + "</span> <b id='class-code'>" + esc(d.code) + "</b>" +
      " <span class='ae-class-count'>" + (d.students === 1 ? AE.t("class.count_one", counts) : AE.t("class.count_many", counts)) +
      "</span> <button id='class-qr-toggle' aria-expanded='" + !!room.qrOpen + "' onclick='AE.room.qr()'>" +
      AE.t(room.qrOpen ? "class.qr_hide" : "class.qr_show") + "</button></div>" +
      "<div class='ae-class-join'><img class='ae-qr' alt='" + esc(AE.t("class.qr_alt")) + "' src='/class/" + encodeURIComponent(d.code) +
      "/qr.svg?origin=" + encodeURIComponent(origin) + "&amp;key=" + encodeURIComponent(room.key) + "'><p class='ae-join'>" + AE.t("class.join_link") + " <a href='" + esc(join) +
      "' target='_blank'>" + esc(join) + "</a></p><p class='ae-join-code'>" + AE.t("class.join_by_code", { code: esc(d.code) }) + "</p></div>" +
      (d.shown ? "<p class='ae-shown' id='class-showing'>" + (d.shown.note ?
        AE.t("class.everyone_sees_note", { nick: esc(nickOf(d.shown.nick)), note: esc(d.shown.note) }) :
        AE.t("class.everyone_sees", { nick: esc(nickOf(d.shown.nick)) })) + "</p>" :
        "<p class='ae-join' id='class-showing'>" + AE.t("class.your_view") + "</p>") + backNote() +
      nowPart(d) +
      // views sent in: above the other stops' answers (open after the last stop, they pushed a new view off the screen)
      (shares ? "<p><b>" + AE.t("class.shares") + "</b></p><ul id='class-shares'>" + shares + "</ul>" : "") +
      // folded on the projector while a stop runs; open after the last (the class's answers at every stop)
      (stops ? "<details id='class-earlier'" + (present && L.stop < AE.lesson.stops && current ? "" : " open") + "><summary>" + AE.t(current ? "class.answers_other" : "class.answers") +
        " (" + others.length + ")</summary><ul id='class-tally'>" + stops + "</ul></details>" :
        current ? "" : "<p class='ae-join'>" + AE.t("class.answers_empty") + "</p>") +
      students +
      "<p class='ae-class-end'><button id='class-end' onclick='AE.room.end()'>" + AE.t("class.end") + "</button></p>";
    if (retry) el.prepend(retry);
    if (scrolled && el.querySelector("#class-roster-list")) el.querySelector("#class-roster-list").scrollTop = scrolled;
    // a button the teacher pressed is drawn anew: the focus stays on it (not the page's body); only a focus this
    // drawing took away is given back (one on the rest of the page stays where it is)
    const lost = !document.activeElement || document.activeElement === document.body;
    const target = was || room.refocus;
    room.refocus = null;
    if (target && lost) {
      // (a button the drawing took away, Finish after the last stop, gives way to the panel's first action, Start the
      // lesson; helper 48: the focus fell to the page's body)
      const again = document.getElementById(target) || el.querySelector(".ae-class-actions button:not([disabled])");
      if (again) again.focus();
    }
    unsentNote();
  }

  // the room's size, chosen from a few and the number in it now (a list, not a box: the panel is drawn anew at every news of the room, which
  // would wipe a number half typed)
  function sizePart(d) {
    const now = Number(d.size) || 0, most = Number(d.max_size) || now;
    const sizes = [...new Set([d.students, 10, 20, 30, 40, 60, 90, 120, most, now])].filter((n) => n > 0 && n <= most).sort((a, b) => a - b);
    return "<p><label for='class-size'>" + AE.t("class.size_label") + "</label> <select id='class-size' " +
      "onchange='AE.room.size(this.value)'>" + sizes.map((n) => "<option value='" + n + "'" + (n === now ? " selected" : "") + ">" +
      n + "</option>").join("") + "</select> <small>" + AE.t("class.size_note", { n: d.students }) + "</small></p>";
  }

  // the lesson run from the panel (presentation mode hides the lesson's own box on the teacher's page): start it,
  // or move it a stop back or on
  function lessonMove(delta) {
    if (!AE.lesson) return;
    const stop = AE.lesson.state.stop;
    if (stop < 0 || stop >= AE.lesson.stops) {  // from its start (again: its answers afresh)
      room.qrOpen = false;  // the class has joined: the join link and QR code fold away, the question takes their room
      AE.lesson.start();
    }
    else AE.lesson.go(delta);
  }

  // the teacher removes a student (from the roster) or locks the class against new joins
  // the panel as the room answered the teacher's change, drawn at once, the focus kept in the roster
  const answered = (d, focus) => { if (d) { room.data = d; room.refocus = focus || "class-lock"; render(); } };
  function removeStudent(id, nick) {
    if (window.confirm && !window.confirm(AE.t("class.remove_confirm", { nick }))) return null;
    return send("remove", { student: id }).then(answered);
  }
  // ticks in the roster: kept in the page (no room news), the count on "Remove selected" told at once
  function pick(id, on) {
    if (!room.picked) room.picked = new Set();
    if (on) room.picked.add(id); else room.picked.delete(id);
    const button = document.getElementById("class-remove-picked");
    if (button) button.textContent = AE.t("class.remove_picked", { n: room.picked.size });
  }
  function pickAll(on) {
    room.picked = new Set(on && room.data ? (room.data.roster || []).map((s) => s.id) : []);
    room.refocus = on ? "class-pick-all" : "class-pick-none";
    render();
  }
  function removePicked() {
    const ids = [...(room.picked || [])];
    if (!ids.length) { notice(AE.t("class.remove_picked_none")); return null; }
    if (window.confirm && !window.confirm(AE.t("class.remove_picked_confirm", { n: ids.length }))) return null;
    return send("remove", { students: ids }).then((d) => { if (d) room.picked = new Set(); answered(d, "class-lock"); });
  }
  function lock() {
    return send("lock", { locked: !(room.data && room.data.locked) }).then(answered);
  }
  // how many students the room takes (new joins refused in words beyond it; nobody in it removed)
  function size(n) {
    return send("size", { size: Number(n) }).then((d) => answered(d, "class-size"));
  }

  function endClass() {
    if (window.confirm && !window.confirm(AE.t("class.end_confirm"))) return null;
    return send("end").then((r) => { if (r) ended(AE.t("class.you_ended")); });
  }

  // -- students ------------------------------------------------------------------------------------------------
  // a student the teacher removed: this browser does not join that class again by itself (its link, a reload, the
  // code typed) for REMOVED_MS; the teacher's lock keeps out anyone else
  const REMOVED_MS = 6 * 3600 * 1000;
  function removedFrom(code, mark) {
    const name = "ae-removed-" + String(code).toUpperCase();
    try {
      if (mark) { localStorage.setItem(name, String(Date.now())); return true; }
      return Date.now() - Number(localStorage.getItem(name) || 0) < REMOVED_MS;
    } catch (e) { return false; }
  }

  async function join(code) {
    room.role = "student";
    const saved = sessionStorage.getItem("ae-class-" + code);  // a reload keeps the same place in the class
    if (saved) { Object.assign(room, { code, sid: saved }); listenStudent(true); return; }
    if (removedFrom(code)) { refused(AE.t("class.ended.removed")); return; }
    try {
      const nick = window.prompt ? window.prompt(AE.t("class.nick_prompt"), "") : "";
      // at most the room's 24 characters, cut here (helper 31: a 25-character one was refused, its student left out)
      const r = await api(encodeURIComponent(code) + "/join", { nick: [...String(nick || "")].slice(0, NICK_CHARS).join("").trim() });
      Object.assign(room, { code: r.code, sid: r.sid, following: true });
      nameRoom(r.code);
      sessionStorage.setItem("ae-class-" + r.code, r.sid);
      listenStudent(false);
    } catch (e) { refused(e.message, code); }
  }

  function listenStudent(resumed) {
    const es = new EventSource("/class/" + encodeURIComponent(room.code) + "/events?sid=" + encodeURIComponent(room.sid));
    room.source = es;
    es.addEventListener("room", (e) => {
      heard();
      const d = JSON.parse(e.data);
      room.data = d;
      room.answering = "";  // the room's news says which answers it holds (mine)
      if (d.ended) {
        if (d.ended_key === "class.ended.removed") removedFrom(d.code || room.code, true);
        ended(why(d));
        if (AE.lesson && AE.lesson.refreshClass) AE.lesson.refreshClass();  // the class's answers leave the sheet
        return;
      }
      nameRoom(d.code);
      if (room.back === undefined) room.back = d.back;
      // brought back, or following again: the teacher's view and the teacher's stop of the lesson, both taken anew
      // (a student whose own Next had moved their lesson stayed at their stop under the teacher's view)
      if (d.back !== room.back) {
        Object.assign(room, { back: d.back, following: true, last: null, editNote: false, lessonSeen: null, rejoin: true });
      } else if (!room.editedAt || Date.now() - room.editedAt > 5000) {
        if (d.following && !room.following) Object.assign(room, { last: null, lessonSeen: null, rejoin: true });  // follow again (this page or another of mine)
        room.following = d.following;
      }
      banner();
      if (room.following && d.state && d.state !== room.last) {
        room.last = d.state;
        if (AE.lesson && AE.lesson.moving) AE.lesson.moving(new URLSearchParams(d.state).get("tab"), d.lesson, d.state);
        if (room.rejoin) followAnew(d.state); else AE.follow(d.state);
      }
      // a view shown to everyone: the lesson's question says the screen shows that view, not its stop's (once a showing)
      const shownNow = room.following && d.shown ? d.shown.id : null;
      if (shownNow !== room.shownSeen && AE.lesson && AE.lesson.shownNote) {
        if (shownNow || room.shownSeen) AE.lesson.shownNote(shownNow ? nickOf(d.shown.nick) : "");
        room.shownSeen = shownNow;
      }
      // ... and the class's question waits while a view is shown, for every student: also one exploring on their
      // own, whose screen stays theirs (helper 67: their answer was taken while the panel said the question waits)
      const waitsNow = d.shown ? d.shown.id : null;
      if (waitsNow !== room.waitSeen && AE.lesson && AE.lesson.classWaits) {
        AE.lesson.classWaits(waitsNow ? nickOf(d.shown.nick) : "");
        room.waitSeen = waitsNow;
      }
      if (room.run === undefined) room.run = d.run;
      else if (d.run !== room.run) { room.run = d.run; if (AE.lesson && AE.lesson.newRun) AE.lesson.newRun(); }  // started anew
      if (room.following && d.lesson >= 0 && d.lesson !== room.lessonSeen && AE.lesson && AE.lesson.at) {
        room.lessonSeen = d.lesson;
        // brought back: the stop shown anew (unfolded, its view in sight), even the one this page is at already
        if (room.rejoin && AE.lesson.rejoin) AE.lesson.rejoin(d.lesson); else AE.lesson.at(d.lesson);
      }
      room.rejoin = false;
      if (AE.lesson && AE.lesson.refreshClass) AE.lesson.refreshClass();
    });
    es.onerror = async () => {
      if (es.readyState === 0 && !room.leaving && room.source === es) reconnecting();
      if (es.readyState !== 2 || room.leaving || room.source !== es) return;
      if (!(await gone({ sid: room.sid }))) {
        if (room.role === "student" && !room.leaving) retry(() => listenStudent(resumed), AE.t("class.class_unreachable"));
        return;
      }
      if (resumed) { sessionStorage.removeItem("ae-class-" + room.code); close(); resumed = false; join(room.code); return; }
      ended(AE.t("class.gone_student"));
    };
  }

  // The banner is built once and then only its words change: its first line is a live region (polite), and a
  // student's focus on its button survives every state the teacher sends (WCAG 4.1.3, 2.4.3).
  function banner() {
    const d = room.data, el = box("class-banner");
    shown(el, true);
    if (!room.bannerWatched && window.ResizeObserver) {  // the page is pushed below the banner, however tall it wraps
      room.bannerWatched = true;
      new ResizeObserver(() => document.documentElement.style.setProperty("--ae-banner-h",
        (el.classList.contains("ae-class-on") ? Math.ceil(el.getBoundingClientRect().height) + 2 : 0) + "px")).observe(el);
    }
    if (!el.querySelector(".ae-class-says")) {
      el.innerHTML = "<span class='ae-class-says' role='status' aria-live='polite'></span> <button class='ae-class-follow' " +
        "onclick='AE.room.toggleFollow()'></button> <button onclick='AE.room.shareView()'>" + AE.t("class.send_view") + "</button>" +
        " <span class='ae-shown'></span> <span class='ae-class-notes' aria-live='polite'></span>";
    }
    const doing = room.following ? AE.t("class.following") : AE.t("class.exploring"), which = AE.t("class.in_class", { code: d.code });
    const line = el.querySelector(".ae-class-says");
    if (line.textContent !== doing + " · " + which) line.innerHTML = "<b>" + esc(doing) + "</b> · " + esc(which);
    el.querySelector(".ae-class-follow").textContent = room.following ? AE.t("class.explore") : AE.t("class.follow_again");
    el.querySelectorAll(".ae-sent").forEach((sent) => sent.remove());  // "Sent." belongs to the state before
    el.querySelector(".ae-shown").textContent = d.shown ? (d.shown.note ?
      AE.t("class.shown_note", { nick: nickOf(d.shown.nick), note: d.shown.note }) : AE.t("class.shown", { nick: nickOf(d.shown.nick) })) : "";
    // notes (edited while following, connected again): rewritten only when their words change, so nothing is re-read
    const notes = (room.editNote && !room.following ? "<span class='ae-class-edited'>" + AE.t("class.edited") + "</span>" : "") +
      backNote();
    const noteEl = el.querySelector(".ae-class-notes");
    if (noteEl.dataset.notes !== notes) { noteEl.dataset.notes = notes; noteEl.innerHTML = notes; }
  }

  // A following student who edits any input of the page is exploring on their own from then on: nothing the teacher
  // does overwrites it (the banner and the teacher's counts say so); "Follow again" catches up. Only the student's
  // own hand counts: text typed into the focused box, or an input, change or click when a pointer or key of theirs
  // (events no script can make trusted) reached the same control just before. What the page or the lesson changes by itself (a radio the lesson
  // clicks, a view the room applies) fires the same events, often marked trusted too, with no such gesture.
  const GESTURE_MS = 1500;
  const NICK_CHARS = 24;  // a nickname's characters (explorer/classroom/rooms.py NICK_CHARS)
  const HELD_MS = 3000;  // the panel waits at most this long for a press on it to be let go
  // a click that changes the view by itself: a tab, a dropdown's option, an example (it translates at once)
  const CHANGING_CLICKS = "button[role='tab'], [role='option'], ul.options li, .overflow-dropdown button, " +
    "#examples button, #examples .gallery-item";
  const CLASS_PARTS = "#class-banner, #class-panel, #ae-lesson, #lesson-box, #where, #ae-join";  // not the view's inputs
  const hand = { at: 0, target: null, down: false, started: 0 };
  function gesture(e) {
    if (!e.isTrusted) return;
    if (e.type === "pointerdown" || e.type === "keydown" || e.type === "touchstart") { hand.target = e.target; hand.started = Date.now(); }
    hand.down = e.type === "pointerdown" || (hand.down && e.type !== "pointerup");
    hand.at = Date.now();
    if (e.type === "pointerup" && room.renderLater) setTimeout(render, 0);  // (after its click)
  }
  // the control an event belongs to: a Gradio component's block, or the tab bar (with its "•••" menu)
  const control = (el) => (el && el.closest ? el.closest("#tabs .tab-wrapper, #tabs [role='tablist'], .overflow-dropdown, .block") : null);
  function byHand(target) {
    if (!hand.target || (!hand.down && Date.now() - hand.at > GESTURE_MS)) return false;
    const mine = control(hand.target);
    return !!mine && mine === control(target);
  }
  // an input, change or click that is the person's own edit of the page's view (a student's, or a teacher's while the
  // server is away: lostEdit)
  function ownEdit(e) {
    const t = e.target;
    if (!t || !t.closest || !t.closest(".gradio-container") || t.closest(CLASS_PARTS)) return false;
    if (e.type === "click" && !t.closest(CHANGING_CLICKS)) return false;
    // typed, pasted, dictated or dropped text: an editing InputEvent (inputType) in the focused box, which no script
    // of the page makes trusted
    const typed = e.type === "input" && e.isTrusted && !!e.inputType && document.activeElement === t;
    return typed || byHand(t);
  }
  function edited(e) {
    if (room.role !== "student" || !room.sid || !room.following || !ownEdit(e)) return;
    room.following = false;
    room.editedAt = Date.now();
    room.editNote = true;
    banner();
    setFollowing(false);
  }
  if (document.addEventListener) {
    ["pointerdown", "pointerup", "keydown", "touchstart"].forEach((type) => document.addEventListener(type, gesture, true));
    ["input", "change", "click"].forEach((type) => document.addEventListener(type, edited, true));
    ["input", "change", "click", "pointerdown", "keydown"].forEach((type) => document.addEventListener(type, lostEdit, true));
  }

  // brought back or following again: the teacher's view, brought into sight even on the tab this page shows (helper
  // 19: a student who typed at the page's top and pressed Follow again stayed there, the view 1,784 px down)
  function followAnew(state) {
    if (AE.sight && AE.sight.again) AE.sight.again();
    AE.follow(state);
  }

  function setFollowing(on) {
    if (on) room.editNote = false;
    api(room.code + "/follow", { sid: room.sid, following: on }).then((d) => {
      if (on) room.last = null;
      room.data = d;
      room.following = d.following;
      room.back = d.back;
      banner();
      if (on && d.state) { room.last = d.state; followAnew(d.state); }
      if (on && d.lesson >= 0 && AE.lesson && AE.lesson.at) { room.lessonSeen = d.lesson; AE.lesson.at(d.lesson); }
    }).catch((e) => say(e.message));
  }

  function shareView() {
    const note = window.prompt ? window.prompt(AE.t("class.note_prompt"), "") : "";
    if (note === null) { sentNote("class.not_sent"); return; }  // (Cancel said nothing: helper 23)
    room.note = note;
    const b = document.getElementById("ae-room-share");
    if (b) b.click();
  }

  // what became of "Send my view", said in the banner (its notes are read out: aria-live)
  function sentNote(key) {
    const el = box("class-banner"), notes = el.querySelector(".ae-class-notes");
    el.querySelectorAll(".ae-sent").forEach((s) => s.remove());
    (notes || el).insertAdjacentHTML("beforeend", " <span class='ae-sent'>" + AE.t(key) + "</span>");
  }

  function share(query) {
    api(room.code + "/share", { sid: room.sid, state: query, note: room.note || "" })
      .then(() => sentNote("class.sent"))
      .catch((e) => say(e.message));
  }

  // the lesson: a student's answer at a stop, counted once; the class's tally once the teacher reveals it
  function answer(stop, option, options, ids) {
    if (room.role !== "student" || !room.sid) return;
    const sent = JSON.stringify([stop, ids]);
    if (room.answering === sent) return;  // sent already, its news not heard yet (a second tap changes nothing)
    room.answering = sent;
    const body = { sid: room.sid, stop, option, options, ids };
    api(room.code + "/answer", body).then(() => { if (room.unanswered === body) room.unanswered = null; })
      .catch((e) => {
        room.answering = "";
        // no server (a restart, a dropped network): kept, and sent when the class's stream is back (heard)
        if (!e.status || e.status >= 500) { room.unanswered = body; return; }
        // 409 while a view is shown to everyone: the question waits (an answer sent as the showing began): kept, and
        // sent again with the class's next news, counted once the teacher brings everyone back
        if (e.status === 409 && room.data && room.data.shown) { room.unanswered = body; return; }
        // 409: an answer to another question than the class's there (a sentence of one's own): the lesson's sheet says
        // so under the answer (lesson.js); say() would put the words in place of the banner and its Follow again
        if (e.status === 409) return;
        say(e.message);
      });
  }

  // this student's answer at a stop as the room keeps it (their page may have been reloaded since)
  function mine(stop) {
    const d = room.data;
    return room.role === "student" && d && d.mine && Number.isInteger(d.mine[stop]) ? d.mine[stop] : null;
  }

  // the question the room holds this student's answers at a stop for (its ids), or null where the teacher asked none
  function asked(stop) {
    const d = room.data;
    return room.role === "student" && d && d.asked && Array.isArray(d.asked[stop]) ? d.asked[stop] : null;
  }

  function revealed(stop) {  // (none once the class ended: its answers are deleted, as End says)
    const d = room.data;
    return room.role === "student" && d && !d.ended && d.revealed ? d.revealed[stop] || null : null;
  }

  // whether the class has been shown a stop's answers, on either page (the teacher's holds the names revealed)
  function told(stop) {
    const d = room.data;
    return room.role === "teacher" ? !!(d && d.revealed && d.revealed.includes(stop)) : !!revealed(stop);
  }

  function leave() {
    close();
    unnameRoom();
    if (room.role === "student") sessionStorage.removeItem("ae-class-" + room.code);
    room.role = null;
    ["class-banner", "class-panel"].forEach((id) => { const el = document.getElementById(id); if (el) { el.innerHTML = ""; shown(el, false); } });
  }

  // page load: a join link joins; a teacher's reload keeps the room it holds the key of
  function start() {
    joinField();
    const params = new URLSearchParams(window.location.search);
    let saved = null;
    try { saved = JSON.parse(localStorage.getItem("ae-teach") || "null"); } catch (e) { saved = null; }
    const named = params.has("class") ? params.get("class").trim().toUpperCase() : "";
    if (named && !(saved && saved.code === named)) return join(named);
    if (saved && saved.code && saved.key) { Object.assign(room, { role: "teacher", code: saved.code, key: saved.key }); listenTeacher(); }
  }

  function joinCode(id) {  // a code typed: into the page's "Join a class" field, or after a class ended (or a wrong one)
    const input = document.getElementById(id || "class-join-code");
    const code = input ? input.value.replace(/[^A-Za-z0-9]/g, "").toUpperCase() : "";  // "abc 123", "ABC-123": ABC123
    if (!code) { if (input) input.focus(); return; }
    close();
    if (room.code) sessionStorage.removeItem("ae-class-" + room.code);
    // the field goes as the page joins (style.css): the focus goes to the banner's first button, not the page's body
    // (helper 39: the next Tab went on past the banner from the field's old place)
    join(code).then(() => focusBanner(0));
  }
  function focusBanner(tries) {
    const b = document.querySelector("#class-banner .ae-class-follow"), a = document.activeElement;
    if (!b || !b.offsetParent) { if (tries < 50 && room.role === "student") setTimeout(() => focusBanner(tries + 1), 100); return; }
    if (!a || a === document.body || a.closest("#join-box")) b.focus();
  }

  // "Join a class" on every page: a short field for the code a teacher shows (the link and QR code are the other ways
  // in); style.css hides it while this page is in a class
  function joinField() {
    const el = document.getElementById("ae-join");
    if (!el || el.querySelector("form")) return;
    el.innerHTML = "<form onsubmit='AE.room.joinCode(\"ae-join-code\"); return false;'><label for='ae-join-code'>" + AE.t("class.join_field") +
      "</label> <input id='ae-join-code' maxlength='12' size='8' autocomplete='off' autocapitalize='characters' spellcheck='false' " +
      "placeholder='" + esc(AE.t("class.join_placeholder")) + "'> <button id='ae-join-go' type='submit'>" + AE.t("class.join") + "</button></form>";
  }

  // a reload or a closed tab closes the stream too: that is no end of the class (the key stays for the reload)
  ["pagehide", "beforeunload"].forEach((type) => window.addEventListener(type, () => { room.leaving = true; close(); }));

  AE.room = { teach, push, lessonAt, joinCode, share, shareView, answer, revealed, told, mine, asked, leave, start, state: room,
    // (a Reveal or Bring everyone back while the server is away is kept and sent when it is back, as a view is:
    // helper 36's Reveal at stop 5 during a restart was lost without a word)
    // (said on the teacher's page too: helper 42 heard nothing)
    reveal: (stop) => send("reveal", { stop }, "reveal:" + stop).then((d) => {
      if (d && AE.a11y) AE.a11y.say(AE.t("class.revealed_said"));
      return d;
    }), show: (id) => send("show", { share: id }),
    remove: (id) => send("remove", { share: id }), lesson: lessonMove, removeStudent, pick, pickAll, removePicked, lock, size,
    rosterOpen: (open) => { room.rosterOpen = open; },
    qr: () => { room.qrOpen = !room.qrOpen; render(); const b = document.getElementById("class-qr-toggle"); if (b) b.focus(); },
    back: () => send("back", {}, "back"), end: endClass,
    explore: () => setFollowing(false), followAgain: () => setFollowing(true),
    toggleFollow: () => setFollowing(!room.following) };
})();
