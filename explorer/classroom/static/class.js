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
    room.retryMs = Math.min(60000, (room.retryMs || 2500) * 2);
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
    document.querySelectorAll(".ae-class-retry").forEach((el) => el.remove());
  }

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
      if (room.data.ended) ended(room.data.ended); else render();
    });
    es.onerror = async () => {
      if (es.readyState !== 2 || room.leaving || room.source !== es) return;
      if (await gone({ key: room.key })) ended("This class is no longer on the server (it ended, or the server restarted).");
      else if (room.role === "teacher" && !room.leaving) retry(listenTeacher, "The class's panel could not be reached.");
    };
    // the teacher's view, sent when it changes: a hidden button's event reads it from the page (no server request)
    room.timer = setInterval(() => { const b = document.getElementById("ae-room-state"); if (b) b.click(); }, 400);
  }

  function push(query) {
    if (room.role !== "teacher" || query === room.pushed) return;
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
    return t.counts.map((n, i) => "<b>" + "ABCDEFGH"[i] + "</b> " + n).join(" · ");
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
      "</a></p><p><button onclick='AE.room.back()'>Bring everyone back</button> <button onclick='AE.room.end()'>End the class</button></p>" +
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
      if (d.following && !room.following) room.last = null;  // brought back: catch up
      room.following = d.following;
      banner();
      if (room.following && d.state && d.state !== room.last) { room.last = d.state; AE.follow(d.state); }
      if (AE.lesson && AE.lesson.refreshClass) AE.lesson.refreshClass();
    });
    es.onerror = async () => {
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
        " <span class='ae-shown'></span>";
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
  }

  function setFollowing(on) {
    api(room.code + "/follow", { sid: room.sid, following: on }).then((d) => {
      if (on) room.last = null;
      room.data = d;
      room.following = d.following;
      banner();
      if (on && d.state) { room.last = d.state; AE.follow(d.state); }
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
    if (params.has("class")) return join(params.get("class").trim().toUpperCase());
    let saved = null;
    try { saved = JSON.parse(localStorage.getItem("ae-teach") || "null"); } catch (e) { saved = null; }
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

  AE.room = { teach, push, joinCode, share, shareView, answer, revealed, leave, start, state: room,
    reveal: (stop) => teacherDo("reveal", { stop }), show: (id) => teacherDo("show", { share: id }),
    remove: (id) => teacherDo("remove", { share: id }),
    back: () => teacherDo("back"), end: () => teacherDo("end").then(() => ended("You ended the class.")),
    explore: () => setFollowing(false), followAgain: () => setFollowing(true),
    toggleFollow: () => setFollowing(!room.following) };
})();
