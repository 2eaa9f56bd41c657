// Class rooms (explorer/classroom/rooms.py, explorer/classroom/routes.py): a teacher opens a room ("Teach a class"); students
// join by its link (/?class=CODE) and follow the teacher's view, answer the lesson's questions into a class tally,
// and send their own view to the teacher, who can show it to everyone. One server-sent-events stream per page.
// The teacher's key stays in this browser (localStorage): a reload keeps control; it is never in the join link.
// Loaded after links.js and lesson.js; draws #class-panel (teacher) and #class-banner (student).
(function () {
  const AE = window.AE;
  const esc = AE.esc;
  const room = { role: null, code: "", key: "", sid: "", source: null, following: true, last: null, pushed: "",
    data: null, timer: null, note: "" };

  async function api(path, body) {
    let r;
    try {
      r = await fetch("/class/" + path, { method: "POST", headers: { "content-type": "application/json" },
        body: JSON.stringify(body || {}) });
    } catch (e) {
      throw new Error("The server cannot be reached.");
    }
    const answer = await r.json().catch(() => ({}));
    if (!r.ok) {
      const e = new Error(answer.error || "The server answered " + r.status + ".");
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

  function retry(listen, message) {  // a failed stream that is no end of the class: say so, try again
    close();
    room.retryMs = Math.min(RETRY_MAX_MS, (room.retryMs || 500) * 2) * (0.75 + Math.random() / 2);
    const el = box(room.role === "teacher" ? "class-panel" : "class-banner");
    el.classList.add("ae-class-on");
    if (!el.querySelector(".ae-class-retry")) {
      el.insertAdjacentHTML("afterbegin", "<div class='ae-status ae-stale ae-class-retry'></div>");
    }
    el.querySelector(".ae-class-retry").textContent = message + " Trying again in " + Math.round(room.retryMs / 1000) + " s.";
    room.retry = setTimeout(() => { room.retry = null; listen(); }, room.retryMs);
  }

  function heard() {  // a state arrived: the stream works again
    room.retryMs = 0;
    const was = document.querySelectorAll(".ae-class-retry").length > 0 || room.reconnecting;
    room.reconnecting = false;
    document.querySelectorAll(".ae-class-retry").forEach((el) => el.remove());
    if (was) room.backNote = Date.now();  // the banner or panel says "back" for a few seconds
  }

  const SETTLE_MS = 1500;
  const RETRY_MAX_MS = 4000;  // a page tries again at most this long after the last try (with jitter)
  const BACK_NOTE_MS = 6000;
  function backNote() {
    return room.backNote && Date.now() - room.backNote < BACK_NOTE_MS ?
      " <span class='ae-class-back'>Connected again: the class goes on.</span>" : "";
  }

  // the server cannot be reached for now (a restart, a dropped connection): the browser tries again by itself
  function reconnecting() {
    room.reconnecting = true;
    const el = box(room.role === "teacher" ? "class-panel" : "class-banner");
    if (!el.querySelector(".ae-class-retry")) {
      el.insertAdjacentHTML("afterbegin", "<div class='ae-status ae-stale ae-class-retry'></div>");
    }
    el.querySelector(".ae-class-retry").textContent = "Reconnecting to the class… (the server cannot be reached; " +
      "this page tries again by itself)";
  }

  // the address bar names the room this page is in (a reload stays in it)
  function nameRoom(code) {
    const url = new URL(window.location.href);
    if (url.searchParams.get("class") === code) return;
    url.search = "?class=" + encodeURIComponent(code);
    try { window.history.replaceState(null, "", url.toString()); } catch (e) { /* a sandboxed frame */ }
  }

  // this page shows a view that came from the room (a shown view on the teacher's page, or the teacher's own view
  // after a reload): the view is applied as a link opened now would be, and the teacher's page posts nothing until
  // it is (then what the page shows is the room's view, and only the teacher's next change is posted)
  function adopt(state) {
    room.adopting = Date.now();
    room.adopted = false;
    AE.follow(state);
  }
  if (AE.link) AE.link.onFollowed = () => { if (room.adopting) room.adopted = true; };

  function box(id) {
    let el = document.getElementById(id);
    if (!el) { el = document.createElement("div"); el.id = id; document.body.appendChild(el); }
    return el;
  }

  function say(message) {  // a refusal or an ended room, in words, where the class controls are
    const el = box(room.role === "teacher" ? "class-panel" : "class-banner");
    el.classList.add("ae-class-on");
    el.innerHTML = "<div class='ae-status ae-stale'>" + esc(message) + "</div>" + (room.role === "teacher" ?
      "<button onclick='AE.room.teach(true)'>Start a new class</button>" :
      "<label>Join a class: <input id='class-join-code' maxlength='6' size='7' autocapitalize='characters'></label> " +
      "<button onclick='AE.room.joinCode()'>Join</button> <button onclick='AE.room.leave()'>Close</button>");
  }

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
    if (room.role === "teacher") localStorage.removeItem("ae-teach");
    say(message + (room.role === "student" ? " Your own view stays on this page (Copy link keeps it)." : ""));
  }

  // -- the teacher ---------------------------------------------------------------------------------------------
  async function teach(fresh) {
    if (room.role === "teacher" && !fresh && room.source) return render();
    try {
      const r = await api("new");
      close();
      Object.assign(room, { role: "teacher", code: r.code, key: r.key, pushed: "" });
      localStorage.setItem("ae-teach", JSON.stringify({ code: r.code, key: r.key }));
      listenTeacher();
    } catch (e) { room.role = "teacher"; say(e.message); }
  }

  function listenTeacher() {
    const es = new EventSource("/class/" + room.code + "/teacher?key=" + encodeURIComponent(room.key));
    room.source = es;
    es.addEventListener("room", (e) => {
      heard();
      room.data = JSON.parse(e.data);
      if (room.data.ended) { ended(room.data.ended); return; }
      nameRoom(room.data.code);
      const shownId = room.data.shown ? room.data.shown.id : null;
      if (!room.restored || (shownId && shownId !== room.shownId)) {  // a reload, or Show to everyone
        if (room.data.state && (shownId || !room.pushed)) adopt(room.data.state);
      }
      room.restored = true;
      room.shownId = shownId;
      render();
    });
    es.onerror = async () => {
      if (es.readyState === 0 && !room.leaving && room.source === es) reconnecting();
      if (es.readyState !== 2 || room.leaving || room.source !== es) return;
      if (await gone({ key: room.key })) ended("This class is no longer on the server (it ended, or the server restarted).");
      else if (room.role === "teacher" && !room.leaving) retry(listenTeacher, "The class's panel could not be reached.");
    };
    // the teacher's view, sent when it changes: a hidden button's event reads it from the page (no server request)
    room.timer = setInterval(() => { const b = document.getElementById("ae-room-state"); if (b) b.click(); }, 400);
  }

  function push(query) {
    if (room.role !== "teacher" || query === room.pushed) return;
    if (!room.restored) return;  // the room's view first: a reloaded page's defaults are no change of the teacher's
    if (room.adopting) {  // the room's view is being applied here: what the page shows then is no change of ours
      const now = Date.now();
      if (!room.adopted && now - room.adopting < 30000) return;
      // once applied, the page settles (a lazy view's answer sets its query token, ...): changes within
      // SETTLE_MS of the last are the page's own, absorbed (at most 10 s after the view was applied)
      if (room.adopted && (!room.settled || now - room.settled < SETTLE_MS) && now - room.adopting < 10000) {
        room.settled = now;
        room.pushed = query;
        return;
      }
      room.adopting = 0;
      room.settled = 0;
      if (room.adopted && query === room.pushed) return;
    }
    room.pushed = query;
    api(room.code + "/state", { key: room.key, state: query }).catch((e) => say(e.message));
  }

  function teacherDo(action, extra) {
    return api(room.code + "/" + action, Object.assign({ key: room.key }, extra || {})).catch((e) => say(e.message));
  }

  // a value as a JS string literal inside a single-quoted onclick attribute: JSON, then every character HTML gives a
  // meaning there escaped (so that no entity can close the string or the attribute)
  const attr = (v) => esc(JSON.stringify(String(v))).replace(/'/g, "&#39;");

  function tallyLine(t) {
    const q = room.data && room.data.questions ? room.data.questions[t.stop] : null;
    if (q && q.options.length === t.counts.length) {  // the options' text, the right one marked after Reveal
      return "<ol class='ae-class-options'>" + t.counts.map((n, i) => "<li" + (q.answer === i ? " class='ae-right'" : "") +
        "><b>" + "ABCDEFGH"[i] + "</b> " + esc(q.options[i]) + ": <b>" + n + "</b>" +
        (q.answer === i ? " ✓ the model's answer" : "") + "</li>").join("") + "</ol>";
    }
    return t.counts.map((n, i) => "<b>" + "ABCDEFGH"[i] + "</b> " + n).join(" · ");
  }

  // the teacher's lesson: where it is, and the question there (for the tally), posted when it changed
  function lessonAt(stop, q) {
    if (room.role !== "teacher" || !room.code) return;
    const body = { stop };
    if (q && stop >= 0) { body.options = q.options.map((o) => String(o).replace(/<[^>]*>/g, "")); body.answer = q.answer; }
    const sent = JSON.stringify(body);
    if (sent === room.lessonSent) return;
    room.lessonSent = sent;
    teacherDo("lesson", body);
  }

  function render() {
    const d = room.data;
    if (!d) return;
    const el = box("class-panel");
    el.classList.add("ae-class-on");
    const origin = window.location.origin;
    const join = origin + window.location.pathname + "?class=" + d.code;
    const stops = Object.values(d.tallies).map((t) => "<li>" + esc(t.stop) + ": " + t.answered + " answered — " +
      tallyLine(t) + (d.revealed.includes(t.stop) ? " <i>(shown to the class)</i>" :
        " <button onclick='AE.room.reveal(" + attr(t.stop) + ")'>Reveal to the class</button>") +
      "</li>").join("");
    const shares = d.shares.slice().reverse().map((s) => "<li><b>" + esc(s.nick) + "</b>" + (s.note ? ": " + esc(s.note) : "") +
      " <button onclick='AE.room.show(" + attr(s.id) + ")'>Show to everyone</button>" +
      " <button onclick='AE.room.remove(" + attr(s.id) + ")'>Remove this student</button></li>").join("");
    el.innerHTML = "<div class='ae-class-head'><span>Class code</span> <b id='class-code'>" + esc(d.code) + "</b>" +
      " <span class='ae-class-count'>" + d.students + " student" + (d.students === 1 ? "" : "s") + ": " + d.following +
      " following, " + d.exploring + " exploring on their own</span></div>" +
      "<img class='ae-qr' alt='QR code of the join link' src='/class/" + encodeURIComponent(d.code) + "/qr.svg?origin=" +
      encodeURIComponent(origin) + "'><p class='ae-join'>Join: <a href='" + esc(join) + "' target='_blank'>" + esc(join) +
      "</a></p>" + (d.shown ? "<p class='ae-shown' id='class-showing'>Everyone sees " + esc(d.shown.nick) + "'s view" +
        (d.shown.note ? " — " + esc(d.shown.note) : "") + " (your page shows it too; change anything to lead again)</p>" :
        "<p class='ae-join' id='class-showing'>Everyone following sees your view.</p>") + backNote() +
      "<p><button onclick='AE.room.back()'>Bring everyone back</button> <button onclick='AE.room.end()'>End the class</button></p>" +
      (stops ? "<p><b>Lesson answers</b></p><ul id='class-tally'>" + stops + "</ul>" : "<p class='ae-join'>Lesson answers appear here as students answer.</p>") +
      (shares ? "<p><b>Views sent to you</b></p><ul id='class-shares'>" + shares + "</ul>" : "");
  }

  // -- students ------------------------------------------------------------------------------------------------
  async function join(code) {
    room.role = "student";
    const saved = sessionStorage.getItem("ae-class-" + code);  // a reload keeps the same place in the class
    if (saved) { Object.assign(room, { code, sid: saved }); listenStudent(true); return; }
    try {
      const nick = window.prompt ? window.prompt("Your name for the class (optional; leave empty to stay anonymous):", "") : "";
      const r = await api(encodeURIComponent(code) + "/join", { nick: nick || "" });
      Object.assign(room, { code: r.code, sid: r.sid, following: true });
      nameRoom(r.code);
      sessionStorage.setItem("ae-class-" + r.code, r.sid);
      listenStudent(false);
    } catch (e) { say(e.message); }
  }

  function listenStudent(resumed) {
    const es = new EventSource("/class/" + encodeURIComponent(room.code) + "/events?sid=" + encodeURIComponent(room.sid));
    room.source = es;
    es.addEventListener("room", (e) => {
      heard();
      const d = JSON.parse(e.data);
      room.data = d;
      if (d.ended) { ended(d.ended); return; }
      nameRoom(d.code);
      if (room.back === undefined) room.back = d.back;
      if (d.back !== room.back) { room.back = d.back; room.following = true; room.last = null; room.editNote = false; }  // brought back
      else if (!room.editedAt || Date.now() - room.editedAt > 5000) {
        if (d.following && !room.following) room.last = null;  // follow again (this page or another of mine)
        room.following = d.following;
      }
      banner();
      if (room.following && d.state && d.state !== room.last) {
        room.last = d.state;
        if (AE.lesson && AE.lesson.moving) AE.lesson.moving(new URLSearchParams(d.state).get("tab"), d.lesson);
        AE.follow(d.state);
      }
      if (room.following && d.lesson >= 0 && d.lesson !== room.lessonSeen && AE.lesson && AE.lesson.at) {
        room.lessonSeen = d.lesson;
        AE.lesson.at(d.lesson);
      }
      if (AE.lesson && AE.lesson.refreshClass) AE.lesson.refreshClass();
    });
    es.onerror = async () => {
      if (es.readyState === 0 && !room.leaving && room.source === es) reconnecting();
      if (es.readyState !== 2 || room.leaving || room.source !== es) return;
      if (!(await gone({ sid: room.sid }))) {
        if (room.role === "student" && !room.leaving) retry(() => listenStudent(resumed), "The class could not be reached.");
        return;
      }
      if (resumed) { sessionStorage.removeItem("ae-class-" + room.code); close(); resumed = false; join(room.code); return; }
      ended("This class is no longer on the server (the teacher ended it, or the server restarted).");
    };
  }

  // The banner is built once and then only its words change: its first line is a live region (polite), and a
  // student's focus on its button survives every state the teacher sends (WCAG 4.1.3, 2.4.3).
  function banner() {
    const d = room.data, el = box("class-banner");
    el.classList.add("ae-class-on");
    if (!el.querySelector(".ae-class-says")) {
      el.innerHTML = "<span class='ae-class-says' role='status' aria-live='polite'></span> <button class='ae-class-follow' " +
        "onclick='AE.room.toggleFollow()'></button> <button onclick='AE.room.shareView()'>Send my view to the teacher</button>" +
        " <span class='ae-shown'></span> <span class='ae-class-notes' aria-live='polite'></span>";
    }
    const says = (room.following ? "Following the teacher" : "Exploring on your own") + " · class " + d.code;
    const line = el.querySelector(".ae-class-says");
    if (line.textContent !== says) {
      line.innerHTML = "<b>" + (room.following ? "Following the teacher" : "Exploring on your own") + "</b> · class " + esc(d.code);
    }
    el.querySelector(".ae-class-follow").textContent = room.following ? "Explore on my own" : "Follow again";
    el.querySelectorAll(".ae-sent").forEach((sent) => sent.remove());  // "Sent." belongs to the state before
    el.querySelector(".ae-shown").textContent = d.shown ? "Shown: " + d.shown.nick + "'s view" +
      (d.shown.note ? " — " + d.shown.note : "") : "";
    // notes (edited while following, connected again): rewritten only when their words change, so nothing is re-read
    const notes = (room.editNote && !room.following ? "<span class='ae-class-edited'>You changed the view, so you " +
      "explore on your own now (your work is kept). “Follow again” catches up with the teacher.</span>" : "") + backNote();
    const noteEl = el.querySelector(".ae-class-notes");
    if (noteEl.dataset.notes !== notes) { noteEl.dataset.notes = notes; noteEl.innerHTML = notes; }
  }

  // a following student who edits any input of the page is exploring on their own from then on: nothing the teacher
  // does overwrites it (the banner and the teacher's counts say so); "Follow again" catches up
  function edited(e) {
    if (!e.isTrusted || room.role !== "student" || !room.sid || !room.following) return;
    const t = e.target;
    if (!t || !t.closest || t.closest("#class-banner, #class-panel, #ae-lesson, #lesson-box, #where")) return;
    if (e.type === "click" && !t.closest("button[role='tab'], [role='option'], ul.options li, .overflow-dropdown button")) return;
    if (!t.closest(".gradio-container")) return;
    room.following = false;
    room.editedAt = Date.now();
    room.editNote = true;
    banner();
    setFollowing(false);
  }
  if (document.addEventListener) ["input", "change", "click"].forEach((type) => document.addEventListener(type, edited, true));

  function setFollowing(on) {
    if (on) room.editNote = false;
    api(room.code + "/follow", { sid: room.sid, following: on }).then((d) => {
      if (on) room.last = null;
      room.data = d;
      room.following = d.following;
      room.back = d.back;
      banner();
      if (on && d.state) { room.last = d.state; AE.follow(d.state); }
      if (on && d.lesson >= 0 && AE.lesson && AE.lesson.at) { room.lessonSeen = d.lesson; AE.lesson.at(d.lesson); }
    }).catch((e) => say(e.message));
  }

  function shareView() {
    const note = window.prompt ? window.prompt("A note for the teacher (optional, one line):", "") : "";
    if (note === null) return;
    room.note = note;
    const b = document.getElementById("ae-room-share");
    if (b) b.click();
  }

  function share(query) {
    api(room.code + "/share", { sid: room.sid, state: query, note: room.note || "" })
      .then(() => { const el = box("class-banner"); el.insertAdjacentHTML("beforeend", " <span class='ae-sent'>Sent.</span>"); })
      .catch((e) => say(e.message));
  }

  // the lesson: a student's answer at a stop, counted once; the class's tally once the teacher reveals it
  function answer(stop, option, options) {
    if (room.role !== "student" || !room.sid) return;
    api(room.code + "/answer", { sid: room.sid, stop, option, options }).catch((e) => say(e.message));
  }

  function revealed(stop) {
    const d = room.data;
    return room.role === "student" && d && d.revealed ? d.revealed[stop] || null : null;
  }

  function leave() {
    close();
    if (room.role === "student") sessionStorage.removeItem("ae-class-" + room.code);
    room.role = null;
    ["class-banner", "class-panel"].forEach((id) => { const el = document.getElementById(id); if (el) { el.innerHTML = ""; el.classList.remove("ae-class-on"); } });
  }

  // page load: a join link joins; a teacher's reload keeps the room it holds the key of
  function start() {
    const params = new URLSearchParams(window.location.search);
    let saved = null;
    try { saved = JSON.parse(localStorage.getItem("ae-teach") || "null"); } catch (e) { saved = null; }
    const named = params.has("class") ? params.get("class").trim().toUpperCase() : "";
    if (named && !(saved && saved.code === named)) return join(named);
    if (saved && saved.code && saved.key) { Object.assign(room, { role: "teacher", code: saved.code, key: saved.key }); listenTeacher(); }
  }

  function joinCode() {  // another code typed after a class ended (or a wrong one)
    const input = document.getElementById("class-join-code");
    const code = input ? input.value.trim().toUpperCase() : "";
    if (!code) return;
    close();
    sessionStorage.removeItem("ae-class-" + room.code);
    join(code);
  }

  // a reload or a closed tab closes the stream too: that is no end of the class (the key stays for the reload)
  ["pagehide", "beforeunload"].forEach((type) => window.addEventListener(type, () => { room.leaving = true; close(); }));

  AE.room = { teach, push, lessonAt, joinCode, share, shareView, answer, revealed, leave, start, state: room,
    reveal: (stop) => teacherDo("reveal", { stop }), show: (id) => teacherDo("show", { share: id }),
    remove: (id) => teacherDo("remove", { share: id }),
    back: () => teacherDo("back"), end: () => teacherDo("end").then(() => ended("You ended the class.")),
    explore: () => setFollowing(false), followAgain: () => setFollowing(true),
    toggleFollow: () => setFollowing(!room.following) };
})();
