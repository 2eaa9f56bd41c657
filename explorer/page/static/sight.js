// The view in sight (issue 35): a student following a class is shown the view the teacher opened, scrolled into
// sight under the class banner; and every figure's titles are fitted to its width, measured as drawn (a line that
// runs past the figure's edge is broken at spaces and the top margin grows to hold it): a phone's figures, and the
// half-width ones beside each other on a laptop.
// Loaded after views.js, links.js and present.js; wraps AE.follow (links.js), which class.js calls.
(function () {
  const AE = window.AE;
  // a tab's main view: what a follower is shown when the teacher opens the tab (the tab itself where it has none)
  const VIEWS = { attend: "heatmap", steps: "step-plot", pe: "pe-table", inside: "inside-plot", compare: "compare-view" };
  // (while a lesson stop on that tab runs: the part its question is about, e.g. the logit lens on Experiments)
  const viewOf = (tab) => {
    const part = AE.lesson && AE.lesson.partOf ? AE.lesson.partOf(tab) : null;
    return (part && document.querySelector(part)) || document.getElementById(VIEWS[tab] || "tabs");
  };

  // the class banner's bottom edge (0 without one): a view is placed below it, never under it
  function bannerBottom() {
    const b = document.getElementById("class-banner");
    return b && b.classList.contains("ae-class-on") ? Math.max(0, b.getBoundingClientRect().bottom) : 0;  // fixed: no offsetParent
  }

  // the top of a phone's lesson sheet (one across the screen's width, docked at its foot), else the screen's foot
  // (lesson.js places a stop's panel between bannerBottom and this)
  function sheetTop() {
    const sheet = document.querySelector("#lesson-box .ae-docked:not(.ae-folded)"), h = window.innerHeight;
    const s = sheet && sheet.getBoundingClientRect();
    return s && s.width >= 0.9 * window.innerWidth && s.top > h / 3 ? s.top : h;
  }

  // how much of the element is in sight: its visible height over the height it could show (the screen between the
  // banner and a phone's lesson sheet)
  function inSight(el) {
    const r = el.getBoundingClientRect(), top = bannerBottom(), foot = sheetTop(), room = foot - top;
    const seen = Math.min(r.bottom, foot) - Math.max(r.top, top);
    return Math.max(0, seen) / Math.max(1, Math.min(r.height, room));
  }

  const NEARLY = 24;  // px of a figure's lowest words that may stay under a phone's lesson sheet (bring)
  function bring(el) {
    const r = el.getBoundingClientRect(), top = bannerBottom(), foot = sheetTop(), room = foot - top - 6;
    let y = r.top + window.scrollY - top - 6;
    // a phone's lesson sheet leaves a little less room than the figure takes: its title goes under the banner
    // where that puts its whole plot and the words on its axes above the sheet (helper 24: stop 6's column words,
    // the answer's options, under the sheet below a German banner and sheet, each a line or two taller)
    if (foot < window.innerHeight && r.height > room) {
      const fig = el.classList.contains("js-plotly-plot") ? el : el.querySelector(".js-plotly-plot");
      // (the plot area's own top as drawn: the margin asked for is not the one laid out once the title has pushed
      // it, and helper 67's 360x640 phone had a shown heatmap's first two rows under the banner)
      const area = fig && fig.querySelector(".nsewdrag"), L = fig && fig._fullLayout;
      const plotTop = area ? area.getBoundingClientRect().top :
        L && L._size ? fig.getBoundingClientRect().top + L._size.t : r.top;
      const title = Math.max(0, plotTop - r.top - 4);
      // (the lowest words on its axes, once its top is under the banner: how far they would run under the sheet)
      const low = Math.max(0, ...[...(fig ? fig.querySelectorAll("g[class*='tick'] text") : [])].map((w) => w.getBoundingClientRect().bottom));
      // (and where a few px of its lowest words are still under the sheet even so, as far as the plot's own top stays
      // below the banner: helper 87's 360x640 phone at stop 6 had its column words 4 px too many for that, and so
      // kept the title in sight while the rows the question asks about and every column's word lay under the sheet;
      // a figure far taller than that keeps its top in sight)
      const under = low - (r.top - (top + 6)) - (foot - 4);
      if (under > 0 && under <= title + NEARLY) y += Math.min(under, title);
    }
    window.scrollTo({ top: Math.max(0, y), behavior: "instant" });
  }

  // the student's own hand on the page (a scroll, a key, a tap: the lesson, a tab) ends the bringing: a follower may
  // still look around (a script's click() sends no pointerdown)
  // (an answer tapped or keyed in the lesson is not a look around: the figure its question asks about is still being
  // drawn and placed; CI 64: a phone that answered stop 8 before the lens was drawn kept its words under the sheet)
  let touched = 0;
  const answering = (e) => !!(e.target && e.target.closest && e.target.closest("#ae-lesson .ae-options"));
  ["wheel", "touchmove", "keydown", "pointerdown"].forEach((type) => window.addEventListener(type, (e) => {
    if (!answering(e)) touched = Date.now();
  }, { passive: true }));

  // A followed view that opens another tab (or the first view a student is shown): its main view is brought into
  // sight, and kept there while the page settles (a new sentence is translated first; the figures above may change
  // height), for 12 s, or 5 s beyond the arrival of a view the teacher sent meanwhile (at most 30 s).
  // A clock for such keeping: -> whether it is over, ``least`` ms after ``start`` at the earliest, then once no view
  // the teacher sent has been on its way for 5 s, or at 30 s (a fixed time ran out on a loaded machine before the new
  // sentence's figure came, and it sat 560 px down a phone's screen: CI)
  function settleClock(start, least) {
    let since = start;
    return () => {
      const now = Date.now();
      if (AE.followArriving && AE.followArriving()) since = now;
      return now - start > least && (now - since > 5000 || now - start > 30000);
    };
  }
  let lastTab = null, poll = null;
  const follow = AE.follow;
  AE.follow = (query) => {
    const tab = new URLSearchParams(query).get("tab") || "attend";
    const fresh = tab !== lastTab;
    lastTab = tab;
    const shown = !fresh && AE.state.tab === tab ? viewOf(tab) : null;
    const wasInSight = !!shown && shown.offsetParent !== null && inSight(shown) >= 0.6;
    follow(query);
    if (!fresh) { if (wasInSight) keep(tab, shown.getBoundingClientRect().top); return; }
    // said to a screen reader: the tab the teacher opened (the page changed under the student's hands)
    const name = document.querySelector("#tabs button[role='tab'][data-tab-id='" + tab + "']");
    if (name && AE.a11y && AE.a11y.say && AE.room && AE.room.state && AE.room.state.role === "student") {
      AE.a11y.say(AE.t("class.teacher_tab", { tab: name.textContent.trim() }), null, null, true);
    }
    if (poll) clearInterval(poll);
    const start = Date.now();
    let placed = null;  // where its top was put under the banner, then kept there
    const over = settleClock(start, 12000);  // (keep() leaves a view sent meanwhile to this bringing)
    poll = setInterval(() => {
      if (touched > start || over()) { clearInterval(poll); poll = null; return; }
      const el = viewOf(tab);
      if (AE.state.tab !== tab || !el || el.offsetParent === null) return;
      // (a lesson stop that asks about one panel keeps it above a phone's sheet: the figure may still grow)
      if (AE.lesson && AE.lesson.place && AE.lesson.place(el)) { placed = 0; focusView(el); return; }
      // (brought again where the page above it moved it: figures drawn above it, the view's own figure drawn at last;
      // mostly in sight was taken as placed, and the lens's words stayed under a phone's sheet: CI 64, stop 8)
      if (placed === null || inSight(el) < 0.6 || Math.abs(el.getBoundingClientRect().top - placed) > 24) {
        bring(el);
        placed = el.getBoundingClientRect().top;
      }
      focusView(el);
    }, 400);
  };
  // The focus the page moved to the tab the teacher opened (a11y.js: the student's control was hidden with its tab)
  // is left above the screen once the view is brought under the banner (helper 39: y -390 at 390x844): it goes to
  // the view itself, in sight (a screen reader says the figure's name)
  // (as does any control of the page the student was on, left 1,100 px above as the page scrolled: helper 40; the
  // banner and the lesson keep their own focus)
  // a tall figure partly under the docked lesson is seen where its top part shows, above the sheet, under the banner
  // (a third of the room there, or 120 px)
  function seenAbove(a) {
    if (!a.matches || !a.matches("[role='figure']")) return false;
    const r = a.getBoundingClientRect(), room = sheetTop() - bannerBottom();
    return Math.min(r.bottom, sheetTop()) - Math.max(r.top, bannerBottom()) >= Math.min(room / 3, 120);
  }
  function focusView(el) {
    const a = document.activeElement, r = a && a.getBoundingClientRect();
    // the teacher's control on the class panel, on the screen but under their own docked lesson (Reveal after Start,
    // Next after Next: helper 44, at 1920x1080): the lesson folds to its title (Show brings it back, answers kept),
    // the stop's view staying where it was brought
    if (a && a.closest && a.closest("#class-panel") && r.top < window.innerHeight && AE.a11y && AE.a11y.lessonOver(a)) {
      if (AE.lesson && AE.lesson.tuck) AE.lesson.tuck();
      return;
    }
    // (the teacher's panel too: its Next, pressed, was left 185 px below the screen as the lesson brought the next
    // stop's view into sight: helper 43)
    // (nor under a phone's docked lesson: a student's own "Show as table", in sight at one stop, was under the
    // sheet's answers at the next, and the figure the page focused at stop 4 was under it by stop 6: helper 49)
    if (!a || a === document.body || a.closest("#class-banner, #ae-lesson")) return;
    const covered = !!(AE.a11y && AE.a11y.lessonOver && AE.a11y.lessonOver(a) && !seenAbove(a));
    if (!covered && (el.contains(a) || (r.bottom > bannerBottom() && r.top < window.innerHeight))) return;
    // the named figure (its text alternative's name), not Gradio's box around it, which has no role and no name and
    // whose ring the plot paints over (helper 49: stops 2, 3, 7, 8): a figure not yet drawn and named waits for the
    // next try (every 400 ms while the view is brought, and the lesson's own; every view is a figure, and Inside a
    // head's is drawn by the server, its box empty until then)
    const fig = el.querySelector("[role='figure']") || (el.id === "tabs" ? el : null);
    if (!fig || fig === a) return;
    if (!fig.hasAttribute("tabindex")) fig.setAttribute("tabindex", "-1");
    fig.focus({ preventScroll: true });
  }

  // Another view on the same tab (a step, a layer, an attention type): the main view the student was looking at stays
  // where it was on the screen while its figure is drawn again, until 5 s after it arrived (settleClock), unless the
  // student's own hand moves the page (helper 29: two steps 400 ms apart at stop 7 left both phones scrolled 1,100 px
  // down to the empty beam-search boxes, the step view above the screen, until Bring everyone back)
  let kept = null;
  function keep(tab, top) {
    if (poll) return;  // a tab's own bringing runs: it keeps the view in sight already
    if (kept) clearInterval(kept);
    const start = Date.now();
    const over = settleClock(start, 0);
    kept = setInterval(() => {
      // (nor while a student's view is shown to everyone: the lesson brings that view, placed anew, and keeping the old
      // top undid it, the shown heatmap's first rows under a 360x640 phone's banner: helper 67)
      const shown = !!(AE.lesson && AE.lesson.state && AE.lesson.state.showing);
      if (shown || touched > start || over() || AE.state.tab !== tab) {
        clearInterval(kept); kept = null; return;
      }
      const el = viewOf(tab);
      if (!el || el.offsetParent === null || (AE.lesson && AE.lesson.place && AE.lesson.place(el))) return;
      const moved = el.getBoundingClientRect().top - top;
      if (Math.abs(moved) > 24) window.scrollTo({ top: Math.max(0, window.scrollY + moved), behavior: "instant" });
    }, 250);
  }

  // -- titles fitted to their figure ---------------------------------------------------------------------------
  const visible = (s) => String(s).replace(/<[^>]*>/g, "");

  // A title's lines, each with its width in "main-title characters" (a <sup> line's type is about 0.7 as wide).
  function lines(text) {
    let inSup = false;
    return String(text).split("<br>").map((line) => {
      const sup = inSup || line.includes("<sup>");
      inSup = sup && !line.includes("</sup>");
      return { line, sup, len: visible(line).length * (sup ? 0.7 : 1) };
    });
  }

  // broken at spaces into lines of at most n visible characters, as many lines as filling each would take but
  // balanced: the narrowest width that needs no more lines (a filled first line left one word alone on the last)
  function wrapLine(line, n) {
    const words = line.split(" "), lens = words.map((w) => visible(w).length);
    const greedy = (m) => {
      const out = [];
      let cur = "", seen = 0;
      words.forEach((word, i) => {
        if (seen && seen + 1 + lens[i] > m) { out.push(cur); cur = word; seen = lens[i]; } else { cur = seen ? cur + " " + word : word; seen += (seen ? 1 : 0) + lens[i]; }
      });
      out.push(cur);
      return out;
    };
    let best = greedy(n);
    for (let m = n - 1; m >= Math.max(...lens, 1); m--) {
      const tried = greedy(m);
      if (tried.length > best.length) break;
      best = tried;
    }
    return best.join("<br>");
  }

  // -> the text rewrapped to fit ``room`` px, or null when it fits (or cannot be made to). Each line is measured as
  // drawn where plotly drew it as its own <tspan class="line"> (a <sup> line's type differs by font and language);
  // else the lines share the element's width by their length in main-title characters.
  function fitted(textEl, text, room) {
    const w = textEl.getBoundingClientRect().width;
    if (!text || w <= room || room < 40) return null;
    const all = lines(text), longest = Math.max(...all.map((l) => l.len));
    const drawn = [...textEl.querySelectorAll("tspan.line")];
    const n = Math.max(8, Math.floor(longest * room / w) - 1);  // main-title characters a line can hold
    const out = all.map((l, i) => {
      const px = drawn.length === all.length ? drawn[i].getBoundingClientRect().width : 0;
      const chars = visible(l.line).length;
      if (px) return px <= room ? l.line : wrapLine(l.line, Math.max(8, Math.floor(chars * room / px) - 1));
      return wrapLine(l.line, Math.floor(l.sup ? n / 0.7 : n));
    }).join("<br>");
    return out === text ? null : out;
  }

  const box = (el) => el.getBoundingClientRect();
  const meets = (a, b) => a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1;

  // What a narrow figure's own layout cannot keep apart (a phone): axis titles that run into another panel or past
  // their axis, tick labels written over each other, a title block that reaches the panels' titles. -> the relayout
  function untangled(el, L, present) {
    const update = {}, full = el._fullLayout || {};
    const panels = [...el.querySelectorAll(".nsewdrag")].map(box);  // each panel's plot area
    Object.keys(L).filter((k) => /^[xy]axis\d*$/.test(k) && !present).forEach((k) => {  // (presentation: its own sizes)
      const id = k.replace("axis", ""), axis = full[k] || {};
      const g = el.querySelector(".g-" + id + "title text");
      if (g && g.textContent) {
        const r = box(g), along = id[0] === "y" ? r.height : r.width;
        if (panels.some((p) => meets(r, p))) update[k + ".title.text"] = "";  // over a panel: the panels' titles name it
        else if (axis._length && along > axis._length + 8) {
          const size = ((axis.title || {}).font || {}).size || 12, smaller = Math.max(9, Math.floor(size * axis._length / along));
          if (smaller < size) update[k + ".title.font.size"] = smaller;
        }
      }
      // a y axis's words that run into the panel beside theirs (a phone's Inside a head: the keys' tokens over the
      // query strip): left out, the panel's title says what its rows are and a tap on a row names it
      if (id[0] === "y" && panels.length > 1 && axis.showticklabels !== false) {
        const words = [...el.querySelectorAll("g." + id + "tick text")].filter((t) => t.textContent).map(box);
        if (words.some((w) => panels.some((p) => meets(w, p)))) update[k + ".showticklabels"] = false;
      }
      // (only a figure of several panels side by side: a single axis's own ticks are plotly's to space, and every
      // token of the heatmap is named, whatever the width)
      if (id[0] !== "x" || Object.keys(L).filter((a) => /^xaxis\d*$/.test(a)).length < 2) return;
      // tick labels written over each other: every k-th shown (a category axis by its step; one with its own tick
      // values by every k-th of them, counted from the values it was drawn with first)
      const ticks = [...el.querySelectorAll("g." + id + "tick text")].filter((t) => t.textContent);
      if (ticks.length < 3) return;
      // glyphs, not their boxes: labels turned by an angle overlap when their distance across the turned line is less
      // than the type's height; level ones when one reaches the next
      const rs = ticks.map(box).sort((a, b) => a.left - b.left);
      const step = (rs[rs.length - 1].left - rs[0].left) / (rs.length - 1);
      const turn = /rotate\((-?[\d.]+)/.exec(ticks[0].getAttribute("transform") || "");
      const sin = Math.abs(Math.sin((turn ? Number(turn[1]) : 0) * Math.PI / 180));
      const font = parseFloat(getComputedStyle(ticks[0]).fontSize) || 12;
      const across = sin > 0.1 ? step * sin : step, thick = sin > 0.1 ? font : Math.max(...rs.map((r) => r.width));
      if (!(step > 0) || across >= thick * 0.95) return;
      const seen = el.aeTicks = el.aeTicks || {}, now = JSON.stringify((L[k] || {}).tickvals || null);
      if (!seen[k] || seen[k].set !== now) seen[k] = { every: 1, vals: (L[k] || {}).tickvals, text: (L[k] || {}).ticktext };  // a new drawing
      const first = seen[k];
      first.every *= Math.max(2, Math.ceil((thick + 2) / across));
      if (Array.isArray(first.vals)) {
        const kept = first.vals.filter((_, i) => i % first.every === 0);
        first.set = JSON.stringify(kept);
        update[k + ".tickvals"] = kept;  // (relayout takes an array as the value itself)
        if (Array.isArray(first.text)) update[k + ".ticktext"] = first.text.filter((_, i) => i % first.every === 0);
      } else if (axis.type === "category") {
        Object.assign(update, { [k + ".tickmode"]: "linear", [k + ".tick0"]: 0, [k + ".dtick"]: first.every });
      }
    });
    // the title block over the panels' own titles: the top margin grows by the overlap
    const title = el.querySelector(".gtitle");
    if (title) {
      const t = box(title);
      const under = [...el.querySelectorAll(".annotation, .colorbar, .nsewdrag")].map(box).filter((a) => meets(t, a) && a.top > t.top);
      if (under.length) update["margin.t"] = ((L.margin || {}).t || 80) + Math.ceil(t.bottom - Math.min(...under.map((a) => a.top))) + 6;
    }
    return update;
  }

  function fit(el) {
    const L = el.layout;
    if (!L || !window.Plotly) return;
    const box = el.getBoundingClientRect();
    if (!box.width) return;
    // a drawing found fitting at this width is not measured again (plotly makes a new _fullLayout at every drawing
    // and relayout): the page's other changes (a status line, a summary) set off this pass many times a Translate
    if (el.__aeFitted === el._fullLayout && el.__aeFittedWidth === box.width) return;
    // drawn at another width than it has now (its tab was hidden, or laid out anew, when its figure came): drawn
    // again at its own (a Step figure half the projector wide, or wider than a phone, until the step moved)
    const drawn = el._fullLayout && el._fullLayout.width;
    if (drawn && !L.width && Math.abs(drawn - box.width) > 4) {
      try { window.Plotly.Plots.resize(el); } catch (e) { /* not drawn yet */ }
      return;
    }
    const update = {};
    let added = 0;
    const title = el.querySelector(".gtitle"), text = typeof L.title === "string" ? L.title : (L.title || {}).text;
    if (title) {
      const t = title.getBoundingClientRect(), out = fitted(title, text, box.right - 4 - Math.max(t.left, box.left + 2));
      if (out) {
        update["title.text"] = out;
        added = out.split("<br>").length - String(text).split("<br>").length;
      }
    }
    (L.annotations || []).forEach((a, i) => {
      const g = el.querySelector(".annotation[data-index='" + i + "'] .annotation-text");
      if (!g || typeof a.text !== "string") return;
      const r = g.getBoundingClientRect(), mid = (r.left + r.right) / 2;
      const room = a.xanchor === "left" ? box.right - 4 - r.left : 2 * Math.min(mid - box.left, box.right - mid) - 8;
      const out = fitted(g, a.text, room);
      if (out) update["annotations[" + i + "].text"] = out;
    });
    Object.keys(L).filter((k) => /^xaxis\d*$/.test(k)).forEach((k) => {
      const g = el.querySelector(".g-" + k.replace("axis", "") + "title text"), t = ((L[k] || {}).title || {}).text;
      if (!g || !t) return;
      const r = g.getBoundingClientRect(), mid = (r.left + r.right) / 2;  // centred on its axis, not on the figure
      const out = fitted(g, t, 2 * Math.min(mid - box.left, box.right - mid) - 8);
      if (out) update[k + ".title.text"] = out;
    });
    // a line of title text and a little more (the title's own size: 30 px on the projector, where 24 px a line let
    // a three-line title run into the first row)
    const line = Math.ceil((((L.title || {}).font || {}).size || 17) * 1.3) + 2;
    if (added > 0) update["margin.t"] = ((L.margin || {}).t || 80) + added * Math.max(24, line);
    // once the titles fit (presentation mode lays out its own larger figures: only their titles are fitted there, and
    // given the room they need above the panels)
    if (!Object.keys(update).length) Object.assign(update, untangled(el, L, !!AE.state.present));
    if (!Object.keys(update).length) { el.__aeFitted = el._fullLayout; el.__aeFittedWidth = box.width; return; }
    try { window.Plotly.relayout(el, update); } catch (e) { /* not drawn yet: the next change tries again */ }
  }

  let pending = null;
  function fitAll() {  // at every width: a half-width figure beside another (Experiments) is narrow too
    pending = null;
    document.querySelectorAll(".js-plotly-plot").forEach((el) => { if (el.offsetParent !== null) fit(el); });
  }
  const later = () => { if (!pending) pending = setTimeout(fitAll, 250); };
  function start() {
    if (!window.MutationObserver) return;
    new MutationObserver(later).observe(document.body, { childList: true, subtree: true });
    document.addEventListener("click", later, true);  // a tab opened: its figures get their width
    window.addEventListener("resize", later);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start); else start();

  // (again: the next followed view is brought into sight even on the tab shown now)
  AE.sight = { inSight, bring, focusView, viewOf, fitAll, bannerBottom, sheetTop, touchedSince: (t) => touched > t, again: () => { lastTab = null; } };
})();
