// Every student can use the page (WCAG 2.1 AA): with a keyboard only, with a screen reader, at any zoom. What Gradio's
// components do not give is added here, once and again whenever the page changes (a debounced MutationObserver):
// a skip link and headings, the live regions (the status line, one announcer for the translation and the lesson's
// feedback), the translation as a readable output marked lang="de", radios grouped, plot toolbars out of the tab
// order, and focus kept where a rebuilt part (the lesson, the class banner, the teacher's panel) was used.
// Figures (their names, summaries and tables) are in figures.js. Loaded after views.js, before the others.
// Its words come from the page's catalogue (AE.t, "views.a11y." keys). Text in another language than the page's is
// marked with its own lang: the translation and its pieces (the task's target), and on a page that is not in the
// task's source language the sentence box and the source pieces (document.documentElement.lang: the page's, i18n.js).
(function () {
  const AE = window.AE;
  const t = AE.t;

  // how the page scrolls by itself: at once for a reader who asked their system for less motion (WCAG 2.3.3)
  AE.motion = () => (window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches ? "instant" : "smooth");
  // ... and Gradio's own animations, which its framework runs with element.animate() (no style.css rule reaches them:
  // a dropdown's list slid and faded for 200 ms, helper 39) take no time for that reader either
  const animate = Element.prototype.animate;
  if (animate) {
    Element.prototype.animate = function (keyframes, options) {
      if (AE.motion() !== "instant") return animate.call(this, keyframes, options);
      const still = typeof options === "number" || !options ? { duration: 0 } : Object.assign({}, options, { duration: 0, delay: 0 });
      return animate.call(this, keyframes, still);
    };
  }

  // -- one announcer: polite, read once, for what changed somewhere the reader is not ----------------------------
  function announcer() {
    let el = document.getElementById("ae-said");
    if (!el) {
      el = document.createElement("div");
      el.id = "ae-said"; el.className = "ae-sr"; el.setAttribute("role", "status"); el.setAttribute("aria-live", "polite");
      el.setAttribute("aria-atomic", "false"); el.setAttribute("aria-relevant", "additions text");
      document.body.appendChild(el);
    }
    return el;
  }

  // text, and optionally a part of it in another language: [before, foreign, lang]; ``add``: said after what was said
  // in the last 2 s instead of over it (a following student's new stop and the tab the teacher opened come together:
  // the tab's news replaced the stop's question, helper 39)
  // ``keep``: what is said next in the next 2 s is said after it (the new question of a stop, which the new sentence's
  // translation, said in the same moment, replaced)
  // (words added to what the region shows already are appended alone: the region is not atomic, so a screen reader
  // says only them; helper 44 heard each new stop's question twice, again with "The teacher opened …")
  let saying = null, last = { at: 0, nodes: [], shown: false }, keptAt = 0;
  function say(text, foreign, lang, add, keep) {
    const el = announcer();
    const after = (add || Date.now() - keptAt < 2000) && Date.now() - last.at < 2000;
    if (keep) keptAt = Date.now();
    const fresh = [document.createTextNode(text)];
    if (foreign) {
      const span = document.createElement("span");
      span.lang = lang || "de"; span.textContent = foreign;
      fresh.push(span);
    }
    if (after && last.shown) {
      const part = document.createElement("span");
      part.append(" ", ...fresh.map((n) => n.cloneNode(true)));
      el.append(part);
      last = { at: Date.now(), nodes: [...last.nodes, document.createTextNode(" "), ...fresh], shown: true };
      return;
    }
    const nodes = after ? [...last.nodes, document.createTextNode(" "), ...fresh] : fresh;
    const now = { at: Date.now(), nodes, shown: false };  // (what is said in 30 ms: a message not yet said is kept by ``add`` too)
    last = now;
    el.textContent = "";
    clearTimeout(saying);  // a newer message replaces one not yet said
    saying = setTimeout(() => {  // emptied first, so the same words said twice are announced twice
      el.append(...nodes.map((n) => n.cloneNode(true)));
      now.shown = true;
    }, 30);
  }

  // the task's languages (viz/page_data.py: "German", "English") -> BCP 47, or null (the toy model's letters)
  function taskLang(which) {
    const b = AE.current && AE.current(), task = (b && b.task) || { source: "English", target: "German" };
    return AE.langOf(task[which]);
  }
  const targetLang = () => taskLang("target");
  const pageLang = () => document.documentElement.lang || AE.lang || "en";

  // -- the page's structure ---------------------------------------------------------------------------------------
  function skipLink() {
    if (document.getElementById("ae-skip")) return;
    const a = document.createElement("a");
    a.id = "ae-skip"; a.className = "ae-skip"; a.href = "#tabs"; a.textContent = t("views.a11y.skip");
    a.addEventListener("click", (e) => {
      e.preventDefault();
      const tab = document.querySelector("#tabs button[role='tab'][aria-selected='true']") || document.getElementById("tabs");
      if (tab) { tab.focus(); tab.scrollIntoView({ block: "start" }); }
    });
    document.body.insertBefore(a, document.body.firstChild);
  }

  function headings() {
    const app = document.querySelector(".gradio-container");
    if (app && !document.getElementById("ae-h1")) {
      const h1 = document.createElement("h1");
      h1.id = "ae-h1"; h1.className = "ae-sr"; h1.textContent = t("views.a11y.title");
      const main = app.querySelector("main") || app;
      main.insertBefore(h1, main.firstChild);
    }
    // each tab's panel opens with its name as a heading (a screen reader's list of headings is a table of contents)
    // (Gradio renders a panel when its tab first opens, and links neither way: the one shown is the selected tab's)
    document.querySelectorAll("#tabs [role='tabpanel']").forEach((panel) => {
      if (panel.querySelector(":scope > .ae-tab-h") || panel.style.display === "none" || !panel.offsetParent) return;
      const tab = document.querySelector("#tabs button[role='tab'][aria-selected='true']");
      const name = tab ? tab.textContent.trim() : "";
      if (!name) return;
      if (!tab.id) tab.id = "ae-tab-" + (tab.dataset.tabId || name.replace(/\W+/g, "-"));
      panel.setAttribute("aria-labelledby", tab.id);
      const h2 = document.createElement("h2");
      h2.className = "ae-sr ae-tab-h"; h2.textContent = name;
      panel.insertBefore(h2, panel.firstChild);
    });
  }

  // the class banner where a student meets it first: at the top of the page (class.js fills it in; it is drawn
  // fixed at the top, so its place in the document is only its place in the tab order)
  function classBanner() {
    if (document.getElementById("class-banner")) return;
    const el = document.createElement("div");
    el.id = "class-banner";
    const skip = document.getElementById("ae-skip");
    document.body.insertBefore(el, skip ? skip.nextSibling : document.body.firstChild);
  }

  // -- live regions and the translation -------------------------------------------------------------------------
  function liveRegions() {
    const status = document.getElementById("status");
    if (status && status.getAttribute("role") !== "status") {
      status.setAttribute("role", "status"); status.setAttribute("aria-live", "polite");
    }
    // Gradio's own announcer reads the untranslated key "common.complete" after every event: ours say what changed
    document.querySelectorAll("div.sr-only[role='status'][aria-atomic='true']").forEach((el) => {
      if (el.id === "ae-said") return;
      el.removeAttribute("role"); el.setAttribute("aria-live", "off"); el.setAttribute("aria-hidden", "true");
    });
    // the translation, in the target language (read-only, not disabled, as every output box: states)
    const out = document.querySelector("#translation textarea");
    if (out) {
      const lang = targetLang();
      if (lang && out.lang !== lang) out.lang = lang;
      if (!lang && out.lang) out.removeAttribute("lang");
      // the output pieces (chips) are words of the target language too
      const [source, chips] = pieceRows();
      if (chips && lang) chips.querySelectorAll(":scope > span").forEach((c) => { if (c.lang !== lang) c.lang = lang; });
      // a field emptied for a moment while an event runs is no new translation: only a new text is said
      if (lastTranslation === null) lastTranslation = out.value;
      else if (out.value && out.value !== lastTranslation) {
        lastTranslation = out.value;
        say(t("views.a11y.translation"), out.value, lang);
      }
      sourceLang(source);
    }
  }

  // The pieces' rows (explorer/api/handlers.py tokens_html): after the warnings (.ae-advice), the source pieces,
  // then the output pieces; found by their place, never by their words. -> [source row, output row]
  function pieceRows() {
    const rows = [...document.querySelectorAll("#pieces .ae-pieces > div")].filter((d) => !d.classList.contains("ae-advice"));
    return [rows[0] || null, rows[1] || null];
  }

  // the sentence (the text box) and its pieces: the task's source language, marked where the page speaks another
  function sourceLang(row) {
    const code = taskLang("source"), lang = code && code !== pageLang() ? code : null;
    const box = document.querySelector("#sentence textarea");
    const chips = row ? [...row.querySelectorAll(":scope > span")] : [];
    const examples = document.querySelector("#examples");  // the example sentences: the model's input language too
    [box, examples, ...chips].forEach((el) => {
      if (!el) return;
      if (lang && el.lang !== lang) el.lang = lang;
      else if (!lang && el.hasAttribute("lang")) el.removeAttribute("lang");
    });
  }
  let lastTranslation = null;

  // -- keyboard -------------------------------------------------------------------------------------------------
  let groups = 0;
  // an arrow key in a radio group: its radios one group again before the browser moves within it (a rename Gradio
  // made since the page's last fix would leave the arrow on one radio)
  document.addEventListener("keydown", (e) => {
    if (/^Arrow/.test(e.key) && e.target && e.target.type === "radio") radioGroups();
  }, true);
  function radioGroups() {
    // Gradio's radios: one name per group, so that the arrow keys move within it; the group named by its label
    document.querySelectorAll(".block .wrap").forEach((wrap) => {
      const radios = wrap.querySelectorAll(":scope > label > input[type='radio']");
      // (every radio: Gradio names some of them apart again as the choice changes, audit 58: after "Decoder
      // self-attention" was chosen the other two were "radio-7" and "radio-6" and the arrows stayed on it)
      if (!radios.length || (wrap.dataset.aeGroup && [...radios].every((r) => r.name === wrap.dataset.aeGroup))) return;
      const name = wrap.dataset.aeGroup || "ae-radio-" + (++groups);
      wrap.dataset.aeGroup = name;
      radios.forEach((r) => { r.name = name; });  // Gradio names each radio apart: the arrows then stay on one
      wrap.setAttribute("role", "radiogroup");
      const label = wrap.closest(".block") && wrap.closest(".block").querySelector("[data-testid='block-info']");
      if (label && label.textContent.trim()) wrap.setAttribute("aria-label", label.textContent.trim());
    });
  }

  // the tab bar: ← → (Home, End) move to the previous or next tab and open it, as a tab list should
  function tabArrows() {
    const list = document.querySelector("#tabs [role='tablist']");
    if (!list || list.dataset.aeArrows) return;
    list.dataset.aeArrows = "1";
    list.addEventListener("keydown", (e) => {
      const tabs = [...list.querySelectorAll("button[role='tab']")].filter((b) => b.offsetParent !== null);
      const i = tabs.indexOf(document.activeElement);
      if (i < 0 || e.altKey || e.ctrlKey || e.metaKey) return;
      const next = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: tabs.length - 1 }[e.key];
      if (next === undefined) return;
      e.preventDefault();
      const tab = tabs[(next + tabs.length) % tabs.length];
      tab.focus();
      tab.click();
    });
  }

  // a table that scrolls sideways on a phone (style.css) and a figure's table: reachable by Tab, so the arrow keys
  // scroll them (WCAG 2.1.1; axe's scrollable-region-focusable)
  function scrollables() {
    document.querySelectorAll(".prose table:not([tabindex]), .ae-fig-table:not([tabindex])").forEach((el) => {
      el.setAttribute("tabindex", "0");
    });
  }

  function plotToolbars() {
    // a plot's toolbar (zoom, pan, download as PNG: mouse tools) is no stop for the keyboard; "Show as table" is
    document.querySelectorAll(".modebar-btn:not([tabindex='-1'])").forEach((a) => a.setAttribute("tabindex", "-1"));
    // Gradio's placeholder of an empty plot carries an aria-label without a role, and says "Empty value" (audit 65:
    // the beam tree's panels before a search read img "Empty value"): a figure with nothing drawn yet, in words
    document.querySelectorAll(".empty.unpadded_box[aria-label]").forEach((el) => {
      if (!el.getAttribute("role")) el.setAttribute("role", "img");
      if (el.getAttribute("aria-label") !== t("views.a11y.empty_plot")) el.setAttribute("aria-label", t("views.a11y.empty_plot"));
    });
  }

  // Parts redrawn from scratch (innerHTML) when used: focus stays on the control that was used, or its successor
  // (the same action, else the same place), or the part's heading; never falls to the page's body.
  const KEPT = ["ae-lesson", "class-banner", "class-panel"];
  let used = null;  // {id: the part, key: the control's action, index: its place among the part's buttons}
  const key = (el) => el.getAttribute("onclick") || el.id || el.dataset.i || "";
  document.addEventListener("focusin", (e) => {
    const part = e.target.closest && KEPT.map((id) => document.getElementById(id)).find((p) => p && p.contains(e.target));
    if (!part) { used = null; return; }
    const buttons = [...part.querySelectorAll("button, a[href], input")];
    used = { id: part.id, key: key(e.target), index: buttons.indexOf(e.target) };
  });

  function keepFocus(part) {
    if (!used || used.id !== part.id) return;
    const active = document.activeElement;
    if (active && active !== document.body && active.isConnected) return;  // focus is somewhere: leave it there
    const all = [...part.querySelectorAll("button, a[href], input")], buttons = all.filter((b) => !b.disabled);
    let same = used.key && buttons.find((b) => key(b) === used.key);
    // the button used, drawn disabled (Reveal, once pressed): the focus goes on to the next (Next), not to the button
    // at its old place in the list (helper 42: to "Bring everyone back")
    const was = !same && used.key ? all.find((b) => key(b) === used.key) : null;
    if (was) same = all.slice(all.indexOf(was) + 1).find((b) => !b.disabled) || null;
    const heading = part.querySelector("h3");
    let target = same || null;
    // a new stop: read from its title; on a short screen from its question, which is what the sheet shows there
    // (the title was focused 87-229 px above the screen: helper 37)
    // (and after an answer, its feedback, which the sheet scrolls to: the question focused there was 66 px above the
    // screen: helper 38)
    const ask = window.innerHeight <= 420 ? part.querySelector(".ae-reveal") || part.querySelector(".ae-ask") : null;
    if (!target && ask && used.id === "ae-lesson") target = ask;
    if (!target && heading && used.id === "ae-lesson") target = heading;
    if (!target) target = buttons[Math.min(Math.max(used.index, 0), buttons.length - 1)] || part;
    if (!target.matches("button, a[href], input")) target.setAttribute("tabindex", "-1");
    target.focus({ preventScroll: true });
    // (in sight, not under the docked lesson: the teacher's Next, given the focus by Reveal, lay under the sheet at
    // 1280x800: helper 43)
    if (!target.closest("#ae-lesson")) inSight(target);
  }

  // A Gradio dropdown lets go of the focus once a choice is made with Enter (it blurs its input: the Head, Step head
  // and Ablation preset dropdowns sent the focus to the page's body, issue 49): it goes back to the dropdown, its
  // list shut (Gradio opens the list on focus; an Escape that goes no higher than Gradio shuts it, changing nothing)
  let chose = null;  // {input, at}: the dropdown Enter was pressed in
  let escaped = null;  // the dropdown whose list Escape shut, until another key (or the focus coming back) opens it
  document.addEventListener("focusin", (e) => { if (e.target === escaped) escaped = null; });
  document.addEventListener("keydown", (e) => {
    if (!e.target || !e.target.matches || !e.target.matches("input[role='combobox']")) return;
    if (e.key === "Escape") escaped = e.target;
    else if (e.key !== "Enter" && !["Shift", "Tab", "Control", "Alt", "Meta"].includes(e.key)) escaped = null;
    if (e.key !== "Enter") return;
    // its list shut (Escape, or never opened): Enter chooses nothing. Gradio kept the option the arrows were on
    // after Escape and took it on Enter (audit 54: ↓, Escape, Enter in Model switched to toy-reverse and threw the
    // typed sentence away; Escape had cancelled the choice); the list's going is drawn a moment after Escape
    const block = e.target.closest(".block");
    if (escaped === e.target || (block && !block.querySelector("[role='listbox']"))) {
      e.preventDefault();
      e.stopImmediatePropagation();
      return;
    }
    chose = { input: e.target, at: performance.now() };
  }, true);
  document.addEventListener("focusout", (e) => {
    if (!chose || e.target !== chose.input || e.relatedTarget || performance.now() - chose.at > 1000) return;
    const input = chose.input;
    chose = null;
    setTimeout(() => {
      const active = document.activeElement;
      if ((active && active !== document.body) || !input.isConnected || !input.offsetParent) return;
      input.focus({ preventScroll: true });
      shutList(input);
    }, 0);
  });
  // a dropdown's list shut: an Escape to its input (Gradio hears keys at its root, so it bubbles) ...
  function shutList(input) {
    const shut = new KeyboardEvent("keydown", { key: "Escape", bubbles: true });
    shut.aeShut = true;
    input.dispatchEvent(shut);
  }
  // ... and no further: the page's own Escape (leaving presentation mode, the lesson's keys) never hears it
  document.body.addEventListener("keydown", (e) => { if (e.aeShut) e.stopPropagation(); });
  // Tab out of a dropdown whose long list scrolls: Chromium gives the focus to the list, which then shuts and goes,
  // and the focus fell to the page's body (helper 38: Query token, the ablation's heads, at 390 and 320 px): it goes
  // on to the next control (or the one before, with Shift+Tab)
  let backwards = false;
  document.addEventListener("keydown", (e) => { if (e.key === "Tab") backwards = e.shiftKey; }, true);
  document.addEventListener("focusout", (e) => {
    const input = e.target, to = e.relatedTarget, block = input.closest && input.closest(".block");
    if (!input.matches || !input.matches("input[role='combobox']") || !to || !block || !block.contains(to) || to === input) return;
    const back = backwards, until = performance.now() + 400;
    // (at once: while the list goes, at each frame; helper 38's 90 ms between Tabs found the body focused)
    const check = () => {
      const active = document.activeElement;
      if (active && active !== document.body) { if (block.contains(active) && active !== input && performance.now() < until) requestAnimationFrame(check); return; }
      const all = [...document.querySelectorAll("a[href], button, input, textarea, select, [tabindex]")]
        .filter((x) => x.tabIndex >= 0 && !x.disabled && x.offsetParent && (!block.contains(x) || x === input));
      const at = all.indexOf(input), next = at < 0 ? null : all[at + (back ? -1 : 1)];
      if (next) next.focus();
    };
    requestAnimationFrame(check);
  });

  // A dropdown left with Tab shuts its list (the Model dropdown's stayed open over the examples through a whole
  // lesson: helper 37; its list is drawn again as the page answers the blur), and the list is out of sight at once
  // (Gradio fades it for 150 ms, over Translate, the control focused next: helper 38)
  document.addEventListener("focusout", (e) => {
    const input = e.target;
    if (!input.matches || !input.matches("input[role='combobox']")) return;
    const block = input.closest(".block"), to = e.relatedTarget;
    if (block && (!to || !block.contains(to))) {
      const lists = [...block.querySelectorAll(".options")];
      lists.forEach((ul) => { ul.style.visibility = "hidden"; });
      setTimeout(() => lists.forEach((ul) => { ul.style.visibility = ""; }), 400);  // (a list drawn again shows)
    }
    setTimeout(() => {
      const block = input.closest(".block");
      if (!input.isConnected || input.getAttribute("aria-expanded") !== "true" || (block && block.contains(document.activeElement))) return;
      shutList(input);
    }, 250);
  });

  // A tab the page opens itself (the teacher's, for a following student; a link; the lesson) hides the panel the
  // focus was in, and the focus fell to the page's body (issue 49: at every tab change the teacher made): it goes to
  // the tab now open (a screen reader says which tab it is; Enter or the arrows go on from there)
  document.addEventListener("focusout", (e) => {
    const left = e.target;
    if (e.relatedTarget || !left.closest || !left.closest("[role='tabpanel']")) return;
    if (left.closest("ul, [role='listbox']")) return;  // (a dropdown's list, going as it shuts: below)
    // (a figure drawn again, a new sentence's: Gradio puts a new element in its place)
    const block = left.matches && left.matches("[role='figure']") ? left.closest(".block[id]") : null;
    setTimeout(() => {
      const active = document.activeElement;
      if ((active && active !== document.body) || (left.isConnected && left.offsetParent)) return;
      const tab = document.querySelector("button[role='tab'][aria-selected='true']");
      if (tab && tab.offsetParent) tab.focus({ preventScroll: true });
      if (block) backToFigure(block.id, tab);
    }, 0);
  });
  // ... and from the tab to the figure's new drawing once it is on the page, where the focus was (audit 58: a
  // following phone's focus on the heatmap went to the tab as the teacher translated, and the page, scrolling to the
  // view, left it 484 px above the screen with no ring in sight, 4 of 4 sentences); not once the focus has moved on
  function backToFigure(id, tab) {
    const until = performance.now() + 10000;
    const step = () => {
      const a = document.activeElement;
      if (a !== tab && a !== document.body) return;
      const box = document.getElementById(id), fig = box && box.querySelector("[role='figure']");
      if (fig && fig.offsetParent) {
        if (!fig.hasAttribute("tabindex")) fig.setAttribute("tabindex", "-1");
        fig.focus({ preventScroll: true });
        // in sight, where the page moved it while the focus waited on the tab (the tab, off the screen, scrolled to
        // the top as the page's own buttons were pressed for the new sentence, left the new figure 560 px down a
        // phone's screen: CI, twice); a figure mostly in sight stays where it is
        const sight = AE.sight;
        if (sight && sight.inSight(fig) < 0.6) sight.bring(box);
      } else if (performance.now() < until) setTimeout(step, 100);
    };
    setTimeout(step, 100);
  }

  // how far a control's focus ring reaches outside it: 3 px, 2 px off it (style.css), none where it is drawn inside
  const ringOf = (el) => (el.matches && el.matches(".ae-ring-in") ? 0 : 5);

  // Whatever takes the focus is in sight (WCAG 2.4.11, issue 49): not cut by the scroller it is in (an example was
  // 76 of its 291 px in its row), and not under the docked lesson (at 1280x800 the translation, Start over, Teach a
  // class, DE, EN and Guided lesson were focused under it): the page scrolls it above the lesson
  function inSight(el) {
    // (what the page focuses itself, out of the tab order, a new stop's title, stays where the page put it)
    if (!el.getBoundingClientRect || el === document.body || el.getAttribute("tabindex") === "-1") return;
    for (let a = el.parentElement; a && a !== document.body && a !== document.documentElement; a = a.parentElement) {
      if (a.scrollWidth <= a.clientWidth + 1 && a.scrollHeight <= a.clientHeight + 1) continue;
      const s = getComputedStyle(a);
      if (!/(auto|scroll)/.test(s.overflowX + s.overflowY)) continue;
      // (the box inside its border, and the focus ring with the control: audit 52, Next's ring 1 of 3 px in sight
      // at 320x256; style.css gives a focused control the scroll-margin that brings its ring in too)
      const r = el.getBoundingClientRect(), box = a.getBoundingClientRect(), ring = ringOf(el);
      const left = box.left + a.clientLeft, top = box.top + a.clientTop;
      if (r.left - ring < left - 1 || r.right + ring > left + a.clientWidth + 1 || r.top - ring < top - 1 ||
          r.bottom + ring > top + a.clientHeight + 1)
        el.scrollIntoView({ block: "nearest", inline: "nearest", behavior: "instant" });
      break;
    }
    // partly off the screen (the translation box, 31 of its 41 px above the bottom at 1280x800: the browser scrolls
    // only what is wholly out of sight): brought whole into sight
    // (at the page's end with no room left to scroll, room is made: helper 43, a button 2 px on a projector's screen)
    const whole = el.getBoundingClientRect();
    if (whole.height < innerHeight && (whole.top < 0 || whole.bottom > innerHeight)) {
      el.scrollIntoView({ block: "nearest", behavior: "instant" });
      const over = el.getBoundingClientRect().bottom - innerHeight;
      if (over > 1) scrollRoom(over + 8);
    }
    const dock = document.querySelector("#lesson-box .ae-docked");
    if (dock && dock.contains(el)) {  // in the lesson: not under its own title or Back / Next, which stay (sticky)
      // (helper 37: at stops 5 and 6 at 1280x800 options C and D, one the right answer, were under Back / Next)
      intoSheet(dock, el);
      return;
    }
    if (!dock || getComputedStyle(dock).position !== "fixed") return;
    let r = el.getBoundingClientRect();
    if (r.bottom > innerHeight || r.top < 0) {  // (out of the screen: the browser did not bring it, or brought it under)
      el.scrollIntoView({ block: "nearest", behavior: "instant" });
      r = el.getBoundingClientRect();
    }
    if (!lessonOver(el)) return;
    // too tall for the room above the lesson: the lesson folds to its title (Show brings it back, answers kept)
    if (r.height + 8 > dock.getBoundingClientRect().top && AE.lesson && AE.lesson.tuck && AE.lesson.tuck() && !lessonOver(el)) return;
    // above the lesson if it fits there, else its top at the screen's top; the page's end leaves room to scroll
    const d = dock.getBoundingClientRect();
    const by = r.height + 16 <= d.top ? r.bottom - d.top + 8 : r.top - 8;
    scrollRoom(by);
  }
  // The band of the screen a control in the lesson's sheet ``el`` is seen in: inside the sheet's scrolled box, below
  // its sticky title and above its sticky Back / Next, on the screen (lesson.js uses it too)
  function sheetBand(el, a) {
    const box = el.getBoundingClientRect();
    let top = box.top + el.clientTop, bottom = Math.min(top + el.clientHeight, window.innerHeight);
    top = Math.max(top, 0);
    for (const bar of el.querySelectorAll(".ae-head, .ae-nav")) {
      if (bar.contains(a) || getComputedStyle(bar).position !== "sticky") continue;
      const b = bar.getBoundingClientRect();
      if (bar.classList.contains("ae-head")) top = Math.max(top, b.bottom); else bottom = Math.min(bottom, b.top);
    }
    return { top, bottom };
  }
  // the sheet scrolled so that ``a`` is whole in that band, its ring too (its top where it is taller than the band):
  // the browser's own scrolling knows nothing of the sticky bars (audit 56: the focused feedback's last 57 px under
  // Back / Next at 1280x800 with the text doubled)
  // (Back / Next first, then the title, each measured after the scroll before it: the title wins where both cannot
  // be met; review: one measure for both let the two corrections cancel)
  function intoSheet(el, a) {
    a.scrollIntoView({ block: "nearest", behavior: "instant" });
    const RING = ringOf(a);
    let { top, bottom } = sheetBand(el, a), r = a.getBoundingClientRect();
    if (r.bottom + RING > bottom) el.scrollTop += r.bottom + RING - bottom + 1;
    ({ top, bottom } = sheetBand(el, a));
    r = a.getBoundingClientRect();
    if (r.top - RING < top) el.scrollTop -= top - (r.top - RING) + 1;
  }
  // the docked lesson, fixed over the page, where it covers part of ``el`` (not in it); else null (sight.js too)
  function lessonOver(el) {
    const dock = document.querySelector("#lesson-box .ae-docked");
    if (!dock || dock.contains(el) || getComputedStyle(dock).position !== "fixed") return null;
    // (its focus ring too, 5 px around it where it is drawn outside: audit 54, DE's ring's bottom under the sheet)
    const r = el.getBoundingClientRect(), d = dock.getBoundingClientRect();
    const m = el.matches && el.matches(".js-plotly-plot, figure") ? 0 : ringOf(el);
    return r.right + m > d.left && r.left - m < d.right && r.bottom + m > d.top && r.top - m < d.bottom ? dock : null;
  }
  // the page scrolled down by ``by`` px, the room made at its end where it has less than that left
  function scrollRoom(by) {
    const room = document.documentElement.scrollHeight - innerHeight - scrollY;
    if (by > room) document.body.style.paddingBottom = Math.ceil(by - room + 8 + parseFloat(getComputedStyle(document.body).paddingBottom || 0)) + "px";
    window.scrollBy({ top: by, behavior: "instant" });
  }
  // A focus ring (3 px, 2 px out, a 5 px white halo) that a box around the control would cut, its overflow not
  // visible, or the screen's edge, is drawn inside the control instead (helper 42: a tab's intro line, a number box
  // and its ↺, the folds' titles showed a sliver of the ring or none)
  // (and again when the page scrolls under a focused control: the skip link's tab, or an arrow key in the tab bar,
  // brought to the screen's top edge after it was focused, showed three sides: helper 46)
  function ringIn(el) {
    if (!el || !el.getBoundingClientRect || !el.classList || el === document.body) return;
    const r = el.getBoundingClientRect(), out = 6;
    let cut = r.top < out || r.left < out || r.right > innerWidth - out || r.bottom > innerHeight - out;
    for (let a = el.parentElement; a && a !== document.body && !cut; a = a.parentElement) {
      const s = getComputedStyle(a);
      if (s.overflowX === "visible" && s.overflowY === "visible") continue;
      const b = a.getBoundingClientRect();
      cut = r.top - out < b.top || r.left - out < b.left || r.right + out > b.right || r.bottom + out > b.bottom;
    }
    if (el.classList.contains("ae-ring-in") !== cut) el.classList.toggle("ae-ring-in", cut);
  }
  document.addEventListener("focusin", (e) => ringIn(e.target));
  let ringSoon = false;
  document.addEventListener("scroll", () => {
    if (ringSoon) return;
    ringSoon = true;
    requestAnimationFrame(() => { ringSoon = false; ringIn(document.activeElement); });
  }, { capture: true, passive: true });
  // Gradio's notices (a warning, an error) sit in a corner over the page: one over the focused control goes to the
  // other end of the screen (helper 38: the warning for an empty sentence hid Experiments, Beyond attention and
  // Compare in the tab bar while Tab went through it)
  document.addEventListener("focusin", (e) => {
    const wrap = document.querySelector(".toast-wrap"), el = e.target;
    if (!wrap || !el.getBoundingClientRect || !wrap.childElementCount) return;
    const r = el.getBoundingClientRect(), w = wrap.getBoundingClientRect();
    if (r.right > w.left && r.left < w.right && r.bottom > w.top && r.top < w.bottom) wrap.classList.toggle("ae-toast-low");
  });
  // (for a focus Tab moved: one the page gives back itself, to an answer as the class's answers arrive, stays where
  // the page put it; CI: a phone's sheet scrolled from the class's answers to the answer refocused)
  // (and not a focus a press of the pointer gave, even just after a Tab: the sheet scrolled to the question on the
  // press of answer A, the release came down on the question and the answer was never given; CI, 1 walk in 2 at
  // 320x640 with the text doubled and the machine busy)
  let tabbed = -1e9;
  document.addEventListener("keydown", (e) => { if (e.key === "Tab") tabbed = performance.now(); }, true);
  document.addEventListener("pointerdown", () => { tabbed = -1e9; }, true);
  document.addEventListener("focusin", (e) => {
    // (still focused a frame later: a control the page gave the focus to and then took it from, answer A kept by
    // keepFocus at a new stop and the stop's title then focused, was scrolled to: audit 54's fix)
    if (performance.now() - tabbed < 600) requestAnimationFrame(() => { if (document.activeElement === e.target) inSight(e.target); });
  });
  // ... and after a press that moved it (Enter on "Guided lesson" at 320x256 opened the lesson above it, the button
  // went to y 509 of 256: helper 37), once the page has drawn what the press changed
  const pressed = () => setTimeout(() => requestAnimationFrame(() => {
    const el = document.activeElement, r = el && el !== document.body && el.getBoundingClientRect();
    // (wholly: the opened fold, wrapped to a line of its own at 320 px, left its title 2 px on the screen)
    if (r && (r.top < 0 || r.bottom > innerHeight + 1)) { el.scrollIntoView({ block: "nearest", behavior: "instant" }); inSight(el); }
  }), 150);
  document.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") pressed(); });
  // (not the page's own hidden buttons, pressed by its scripts: one pressed while the focus waited on a tab above the
  // screen scrolled that tab to the top and the followed figure down)
  // (and only a press on the focused control or around it: a tap on a figure, which plotly answers with a click of its
  // own, brought the Translate button pressed before it back over the figure: a phone's swipe past a heatmap jumped
  // 1,700 px up to it)
  document.addEventListener("click", (e) => {
    const a = document.activeElement, el = e.target;
    if (el.closest && el.closest(".ae-hidden")) return;
    // (a radio's words: its label; not any [role]: a tab panel holds its controls and the text between them)
    const control = (el.closest && el.closest("label, button, a, summary, input, select, textarea, [role=button], [role=tab], " +
      "[role=option], [role=radio], [role=checkbox], [role=switch], [role=slider], [role=menuitem]")) || el;
    if (a && a !== document.body && control.contains && (a.contains(el) || control.contains(a))) pressed();
  });

  // the lesson's feedback (right or not, and why) said when it appears, and a new stop's title and question
  let lastReveal = "", lastStop = "", lastAsk = "", tallied = "";
  function lessonNews(part) {
    const reveal = part.querySelector(".ae-reveal"), title = part.querySelector("h3");
    const text = reveal ? reveal.textContent.trim() : "", stop = title ? title.textContent.trim() : "";
    // the question: marked .ae-ask, else the paragraph right before the options' buttons (lesson.js)
    const paragraphs = [...part.querySelectorAll(".ae-stop p")];
    // (the lesson's end: its score, helper 39 heard only "Lesson done.")
    const ask = paragraphs.find((p) => p.classList.contains("ae-ask") || p.classList.contains("ae-score")) || paragraphs.find((p) => {
      const next = p.nextElementSibling;
      return next && next.tagName === "DIV" && next.querySelector("button");
    });
    const asked = ask ? ask.textContent.trim() : "";
    if (stop && stop !== lastStop) {
      say(stop + ". " + asked, null, null, !!(AE.room && AE.room.state && AE.room.state.role === "student"));
    } else if (stop && asked && lastAsk && asked !== lastAsk && !text) {
      // the same stop asking of a new sentence (stop 6 names a row of the heatmap): its new question said (it
      // changed on the sheet alone)
      say(t("views.a11y.new_question", { text: asked }), null, null, false, true);
    } else if (text && text !== lastReveal) say(text);
    // the class's answers, revealed by the teacher: said once a stop, as they appear (helper 39: a student's page said
    // nothing at Reveal)
    const tally = part.querySelector(".ae-class-tally");
    if (tally && stop && tallied !== stop) say(tallyWords(tally), null, null, true);
    tallied = tally ? stop : tallied === stop ? "" : tallied;
    lastReveal = text; lastStop = stop; lastAsk = asked;
  }

  // "The class (3 answered): A … — 1; B … — 2 (the right answer); …" (helper 40: the options ran together and "✓" was
  // said as a sign)
  function tallyWords(tally) {
    const words = (n) => n.textContent.replace(/\s+/g, " ").trim();
    const head = [...tally.childNodes].filter((n) => n.nodeName !== "UL").map(words).join(" ").trim();
    const items = [...tally.querySelectorAll("li")].map((li) => words(li).replace(/\s*✓$/, "") +
      (li.classList.contains("ae-right") ? " " + t("views.a11y.right_answer") : ""));
    return head + " " + items.join("; ") + ".";
  }

  // runs at every change of the page, at once (a key pressed next must find the focus where it was left)
  function afterChange() {
    plotToolbars();  // (a figure drawn as it comes into sight: its toolbar out of the Tab order before the next Tab)
    if (used && (!document.activeElement || document.activeElement === document.body)) {
      const part = document.getElementById(used.id);
      if (part) keepFocus(part);
    }
    const lesson = document.getElementById("ae-lesson");
    if (lesson) lessonNews(lesson);
  }

  // What Gradio's parts do not say of their state (helper 37): an output box is read-only, not disabled ("Translations"
  // and "Agreement" were read as unavailable and Tab skipped them); an accordion's header says whether it is open (its
  // name ends in "▼" either way); "Where am I" says which parts the open view shows (a class alone said it)
  function states() {
    document.querySelectorAll("textarea[disabled], input[type='text'][disabled]").forEach((box) => {
      if (box.closest(".block")) { box.disabled = false; box.readOnly = true; }
    });
    document.querySelectorAll("button.label-wrap").forEach((head) => {
      const open = String(head.classList.contains("open"));
      if (head.getAttribute("aria-expanded") !== open) head.setAttribute("aria-expanded", open);
      head.querySelectorAll(".icon").forEach((i) => i.setAttribute("aria-hidden", "true"));
    });
    // a dropdown's ▾ is drawn, not said, and plotly's svg for measuring text is off the screen (audit 53: each read
    // as a nameless image)
    document.querySelectorAll("svg.dropdown-arrow:not([aria-hidden]), body > svg#js-plotly-tester:not([aria-hidden])")
      .forEach((s) => s.setAttribute("aria-hidden", "true"));
    document.querySelectorAll(".ae-part").forEach((part) => {
      const on = part.classList.contains("ae-on");
      if (on && part.getAttribute("aria-current") !== "true") part.setAttribute("aria-current", "true");
      if (!on && part.hasAttribute("aria-current")) part.removeAttribute("aria-current");
    });
  }

  // The result of a button that computes (Run beam search, Run with these heads off, Attribute, ...) is said when it
  // arrives, from the output box or figure summary that changed (helper 37: the focus stayed on the button, rightly,
  // and nothing was said)
  let running = null;  // {panel, before: what each result said when the button was pressed, at}
  const results = (panel) => new Map([...panel.querySelectorAll(".ae-fig-summary, .block textarea")]
    .map((e) => [e, e.tagName === "TEXTAREA" ? e.value : e.textContent]));
  document.addEventListener("click", (e) => {
    const button = e.target && e.target.closest && e.target.closest("button[id^='run-']");
    if (!button) return;
    const panel = button.closest("[role='tabpanel']") || document.body;
    running = { panel, before: results(panel), at: Date.now() };
  }, true);
  function resultNews() {
    if (!running) return;
    if (Date.now() - running.at > 300000) { running = null; return; }
    // a box's new text whole (an ablation's "Original: … With 4 head(s) off: …", not its first sentence), a figure's
    // first line; the box first (helper 38: "Ready: Translations: Original: …" said nothing of the heads off), its
    // opening "How to read it" sentence left out (the Agreement box said only that)
    const changed = [...results(running.panel)].filter(([el, text]) => text && running.before.get(el) !== text)
      .map(([el, text]) => [el, text.trim().replace(/^(How to read it|So liest du es):[^.]*\.\s*/, "")]).filter(([, text]) => text);
    if (!changed.length) return;
    const [el, text] = changed.find(([e]) => e.tagName === "TEXTAREA") || changed[0];
    const block = el.closest(".block"), label = block && block.querySelector("[data-testid='block-label'], label > span");
    const words = el.tagName === "TEXTAREA" ? text.replace(/\s+/g, " ").trim().slice(0, 400) : text.split("\n")[0].slice(0, 300);
    say(t("views.a11y.result", { what: label ? label.textContent.trim() : "", text: words }));
    running = null;
  }

  // Gradio's own names for a slider's parts are English in every locale: said in the page's language
  const GRADIO_NAMES = [[/^number input for (.*)$/, "views.a11y.number_for"], [/^range slider for (.*)$/, "views.a11y.slider_for"],
    [/^Reset to default value$/, "views.a11y.reset"]];
  function gradioNames() {
    if (AE.lang === "en") return;
    document.querySelectorAll("input[aria-label], button[aria-label]").forEach((el) => {
      const name = el.getAttribute("aria-label");
      for (const [pattern, key] of GRADIO_NAMES) {
        const m = name.match(pattern);
        if (m) { el.setAttribute("aria-label", t(key, { name: m[1] || "" })); break; }
      }
    });
  }

  // the width of an input's text in its own font (its scrollWidth is the box's while the text is shorter than it)
  let measure = null;
  function textWidth(input) {
    measure = measure || document.createElement("canvas").getContext("2d");
    const cs = getComputedStyle(input);
    measure.font = cs.font;
    return measure.measureText(input.value).width + parseFloat(cs.paddingLeft || 0);
  }
  // A dropdown's value longer than its box is drawn whole, wrapped, over the box (style.css: .ae-cut); the input keeps
  // the value for a screen reader and takes the clicks and the typing of a filter (helper 40, WCAG 1.4.4 and 1.4.10:
  // "all heads (" at twice the text size; the ablation preset's "every cross-attention head of" at 320 px)
  function wholeValues() {
    // (a dropdown's, a slider's or a radio group's block, marked for its least width in rem: style.css .ae-widen; a
    // `:has()` there would restyle the page at every change, issue 50; helper 44: at twice the text size the sliders
    // beside Attribution's methods squeezed them to 150 px, "attenti / on")
    document.querySelectorAll("input[role='combobox'], .block > .wrap input[type='range'], fieldset.block input[type='radio']").forEach((input) => {
      const block = input.closest(".block");
      if (block && !block.classList.contains("ae-widen")) block.classList.add("ae-widen");
    });
    document.querySelectorAll(".secondary-wrap > input[role='combobox']").forEach((input) => {
      const wrap = input.parentElement;
      let whole = wrap.querySelector(":scope > .ae-whole");
      // (measured against the room the value had in the row: over the box, the input spans the caret's room too;
      // in it, the room left of Gradio's ▾, which sits over the input's end: helper 46, "all heads (mean)" under it)
      const icon = wrap.querySelector(":scope > .icon-wrap"), ir = icon && icon.getBoundingClientRect();
      const r = input.getBoundingClientRect();
      const under = ir && ir.width && ir.left < r.right ? r.right - ir.left : 0;
      const room = wrap.classList.contains("ae-cut") && whole ? whole.clientWidth : input.clientWidth - under;
      // (its scrollWidth is its box's while the text is shorter: then the text's own width)
      const need = input.scrollWidth > input.clientWidth + 1 ? input.scrollWidth : textWidth(input);
      const cut = Boolean(input.value) && input.offsetParent !== null && need > room + 1;
      if (cut && !whole) {
        whole = document.createElement("span");
        whole.className = "ae-whole";
        whole.setAttribute("aria-hidden", "true");  // (the input says it)
        wrap.insertBefore(whole, input.nextSibling);  // (after it: hidden while it has the focus, style.css)
      }
      if (whole && whole.textContent !== input.value) whole.textContent = input.value;
      if (wrap.classList.contains("ae-cut") !== cut && (cut || !wrap.contains(document.activeElement))) wrap.classList.toggle("ae-cut", cut);
    });
  }
  window.addEventListener("resize", () => soon());
  // a filter typed in a dropdown whose value is drawn whole: the input's own text shows until the focus leaves it
  // (style.css .ae-typing)
  document.addEventListener("input", (e) => {
    const wrap = e.target.matches && e.target.matches("input[role='combobox']") && e.target.parentElement;
    if (wrap && wrap.classList.contains("secondary-wrap")) wrap.classList.add("ae-typing");
  }, true);
  document.addEventListener("focusout", (e) => {
    const wrap = e.target.parentElement;
    if (wrap && wrap.classList) wrap.classList.remove("ae-typing");
    setTimeout(soon, 0);
  });

  // -- every change of the page: the same fixes again (idempotent), at most every 100 ms --------------------------
  let pending = false;
  function fix() {
    pending = false;
    announcer(); skipLink(); classBanner(); headings(); liveRegions(); radioGroups(); plotToolbars(); scrollables(); tabArrows(); gradioNames();
    states(); resultNews(); wholeValues();
    const lesson = document.getElementById("ae-lesson");
    if (lesson && !lesson.getAttribute("role")) { lesson.setAttribute("role", "region"); lesson.setAttribute("aria-label", t("views.a11y.lesson")); }
    if (AE.figures) AE.figures.describe();
  }
  function soon() { if (!pending) { pending = true; setTimeout(fix, 100); } }
  // The browser's text size changed on an open page (nothing says so: a box 1rem wide is watched): Gradio set each
  // text box's height to its text once, in px; each is sized to its text again (helper 42: a box 38 px tall for 59 px
  // of text, its foot cut)
  function remWatch() {
    if (!window.ResizeObserver) return;
    const probe = document.createElement("div");
    probe.setAttribute("aria-hidden", "true");
    probe.style.cssText = "position:absolute;left:-9999px;top:0;width:1rem;height:1rem;visibility:hidden;pointer-events:none";
    document.body.appendChild(probe);
    let size = 0;
    new ResizeObserver(() => {
      const now = probe.getBoundingClientRect().width;
      if (size && now !== size) document.querySelectorAll(".block textarea").forEach((box) => {
        if (!box.offsetParent || !box.style.height) return;
        const border = box.offsetHeight - box.clientHeight, line = parseFloat(getComputedStyle(box).lineHeight) || now * 1.5;
        box.style.height = "0px";
        box.style.height = Math.min(box.scrollHeight, 12 * line) + border + "px";
      });
      size = now;
    }).observe(probe);
  }
  function begin() {
    remWatch();
    fix();
    new MutationObserver(() => { afterChange(); soon(); }).observe(document.body, { childList: true, subtree: true });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", begin); else begin();
  // a translation's text is set as a value (no mutation): the status line is drawn after every translation
  const status = AE.status;
  AE.status = (...args) => { setTimeout(soon, 0); return status(...args); };

  // whether the focus was just moved with Tab (lesson.js: an answer Tabbed to brings its question into sight)
  const tabbedNow = () => performance.now() - tabbed < 600;
  AE.a11y = { say, fix, inSight, lessonOver, tabbedNow, ringOf, sheetBand, intoSheet };
})();
