// Presentation mode for a projector: large fonts, thick lines, high contrast, one view at a time (the text blocks,
// examples, model view and head statistics step aside), and the arrow keys move the decoding step on the Step tab.
// Loaded after views.js; views.js's figures read AE.state.present for their font sizes. Words: AE.t ("views.present.").
(function () {
  const AE = window.AE;
  const t = AE.t;
  // type sizes, and how much taller a figure grows so that its larger labels keep their room
  const SIZES = { true: { font: 20, title: 30, tall: 1.7 }, false: { font: 12, title: 17, tall: 1 } };

  // Figures already drawn (by the browser or the server) take the new sizes at once; new ones are drawn with them.
  function restyle() {
    const s = SIZES[!!AE.state.present], was = SIZES[!AE.state.present];
    if (!window.Plotly) return;
    document.querySelectorAll(".js-plotly-plot").forEach((el) => {
      const update = { "font.size": s.font, "title.font.size": s.title };
      // (a height alone would pin the width the figure has now: autosize kept for the class panel opened later)
      if (el.layout && el.layout.height) Object.assign(update, { height: Math.round(el.layout.height / was.tall * s.tall), autosize: true, width: null });
      try { window.Plotly.relayout(el, update); } catch (e) { /* not drawn yet */ }
    });
  }

  // Figures the server draws (Inside a head, the beam tree, attribution...) set their own small tick and subplot
  // title sizes: on the projector each is raised to what the back of a room reads, once for each drawing (a figure
  // already large enough is left alone: no second drawing).
  const LEAST = { tick: 16, note: 18 };
  function enlarge() {
    if (!AE.state.present || !window.Plotly) return;
    document.querySelectorAll(".js-plotly-plot").forEach((el) => {
      const L = el.layout;
      if (!L || el.__aePresent === L) return;
      el.__aePresent = L;
      const update = {}, font = SIZES.true.font;
      if (!L.font || !L.font.size || L.font.size < font) {  // drawn for a laptop: larger, and taller to hold it
        update["font.size"] = font;
        // (at most the screen's height: the lesson and the tab bar bring a view to the screen's top; Inside a head's
        // 1000 px ran 232 px past a 1366x768 projector)
        // (autosize kept and no width fixed: Plotly.relayout of a height alone pins the width it has now, and the
        // figure never narrowed beside the class panel opened later: helper 21, a heatmap 1854 px in a 1251 px box)
        if (L.height) Object.assign(update, { height: Math.min(Math.round(L.height * SIZES.true.tall), (window.innerHeight || 1080) - 24), autosize: true, width: null });
      }
      // a vertical axis of words gets the size its rows leave (larger words would run into each other)
      const height = update.height || L.height || (el._fullLayout || {}).height || 450, m = L.margin || {}, inner = height - (m.t || 80) - (m.b || 80);
      Object.keys(L).filter((k) => /^[xy]axis\d*$/.test(k)).forEach((k) => {
        const axis = L[k] || {}, size = (axis.tickfont || {}).size, n = (axis.ticktext || []).length;
        const room = k[0] === "y" && n ? Math.floor(((axis.domain || [0, 1])[1] - (axis.domain || [0, 1])[0]) * inner / n) - 2 : LEAST.tick;
        const fits = Math.min(LEAST.tick, room);
        if (size && size < fits) update[k + ".tickfont.size"] = fits;
      });
      (L.annotations || []).forEach((a, i) => {
        if (a.font && a.font.size && a.font.size < LEAST.note) update["annotations[" + i + "].font.size"] = LEAST.note;
      });
      if (!Object.keys(update).length) return;
      try { window.Plotly.relayout(el, update); el.__aePresent = el.layout; } catch (e) { el.__aePresent = null; }
    });
  }
  let watching = null;
  function watch(on) {
    if (!window.MutationObserver) return;
    if (on && !watching) {
      watching = new MutationObserver(() => { clearTimeout(watch.soon); watch.soon = setTimeout(() => { enlarge(); fitScreen(); }, 50); });
      watching.observe(document.body, { childList: true, subtree: true });
    } else if (!on && watching) { watching.disconnect(); watching = null; }
  }

  function toggle() {
    AE.state.present = !AE.state.present;
    document.body.classList.toggle("ae-present", AE.state.present);
    restyle();
    watch(AE.state.present);
    enlarge();
    const redraw = document.getElementById("ae-redraw");  // views.js figures drawn again, with their tick sizes
    if (redraw) redraw.click();
    if (AE.state.present) place();  // the first screen: the view, large
    // the focus on the button, now above the screen, goes to the open tab at the screen's top (helper 42: y -398);
    // leaving, the button is brought back into sight
    const button = document.getElementById("present"), active = document.activeElement;
    if (active && button && button.contains(active)) {
      if (AE.state.present) {
        const tab = document.querySelector("#tabs [role=tab][aria-selected=true]");
        if (tab) tab.focus({ preventScroll: true });
      } else requestAnimationFrame(() => button.scrollIntoView({ block: "nearest", behavior: "instant" }));
    }
    try { if (AE.state.present) sessionStorage.setItem("ae-present", "1"); else sessionStorage.removeItem("ae-present"); } catch (e) { /* refused */ }
    return AE.state.present ? t("views.present.leave") : t("views.present.enter");
  }

  // A reload (or the page reopened in another language) keeps presentation mode: this tab remembers it
  function resume() {
    let on = false;
    try { on = sessionStorage.getItem("ae-present") === "1"; } catch (e) { on = false; }
    if (!on || AE.state.present) return;
    const label = toggle();
    const button = document.getElementById("present");
    if (button) button.textContent = label;
  }

  // The side column (the teacher's panel, the lesson) takes its width from the view: figures are fitted to the
  // width they now have (each plotly figure answers a window resize), once the column settled
  let width = 0, fit = null;
  function fitFigures() {
    const tabs = document.getElementById("tabs");
    const w = tabs ? Math.round(tabs.getBoundingClientRect().width) : 0;
    if (!w || w === width) return;
    const first = !width;
    width = w;
    if (first) return;
    clearTimeout(fit);
    fit = setTimeout(() => window.dispatchEvent(new Event("resize")), 150);
  }
  if (window.ResizeObserver) {
    const watch = () => {
      const tabs = document.getElementById("tabs");
      if (!tabs) { setTimeout(watch, 500); return; }
      new ResizeObserver(fitFigures).observe(tabs);
    };
    watch();
  }

  // One view per screen: the tab bar at the top of the screen, the tab's main view filling the rest (its figure is
  // drawn as tall as the screen, views.js). Again after a tab switch, which would otherwise leave the page where the
  // browser put it when the tab's content changed height (at the top of the page).
  function place() {
    const tabs = document.getElementById("tabs");
    if (tabs) window.scrollTo({ top: tabs.getBoundingClientRect().top + window.scrollY, behavior: "instant" });
  }
  // A main view drawn as tall as the screen below its controls, whose controls then took more room (a title or a
  // shown student's note wrapped onto a second line: helper 20, a figure at 213-1103 px on a 1080 px projector), or
  // whose window changed (1920x1080 to 1366x768 mid-lesson): fitted again to what the screen leaves below its top.
  // (Only this page's own figures: a server figure of several rows made shorter put its axis titles over the next
  // row's titles: helper 21, Inside a head at stop 3.)
  function fitScreen() {
    if (!AE.state.present || !window.Plotly) return;
    const h = window.innerHeight || 1080;
    const main = [...document.querySelectorAll(".js-plotly-plot")].find((el) => {
      if (!el.layout || !el.offsetParent) return false;
      const r = el.getBoundingClientRect();
      return r.height > 0 && r.top >= 0 && r.top < h / 2;
    });
    if (!main) return;
    // (the height drawn: a window's resize makes Plotly drop a figure's layout height when its width is free, as
    // ours is, and it keeps what it had: helper 24's step figure stayed 1060 px tall on a 768 px screen)
    const L = main.layout, fill = (L.meta || {}).aeFill, top = main.getBoundingClientRect().top;
    const have = L.height || (main._fullLayout || {}).height;
    if (!fill || !have) return;
    const want = Math.max(fill, Math.floor(h - top - 12));
    if (Math.abs(want - have) < 8) return;
    const update = { height: want, autosize: true, width: null };
    // a row title longer than the rows now are tall is dropped (views.js's rule when it draws: the subtitle says
    // what the rows are), as it would run into the subtitle (helper 25: stop 6 at 1366x768)
    const m = L.margin || {}, rows = want - (m.t || 80) - (m.b || 80), y = ((L.yaxis || {}).title || {}).text;
    if (y && rows < 11 * String(y).length) update["yaxis.title.text"] = "";
    try { window.Plotly.relayout(main, update); } catch (e) { /* not drawn yet */ }
  }
  let resized = null, screen = window.innerWidth + "x" + window.innerHeight;
  window.addEventListener("resize", () => {
    if (!AE.state.present) return;
    clearTimeout(resized);
    resized = setTimeout(() => {  // the stop's view (or the tab's) at the screen's top again, then fitted to it
      // another screen (1920x1080 to 1366x768): the page's own figures drawn again for it, as a reload would (which
      // words fit, the lens on its side: helper 28, the model view's rows written over each other until a reload)
      const now = window.innerWidth + "x" + window.innerHeight, redraw = document.getElementById("ae-redraw");
      const another = now !== screen;
      if (another && redraw) redraw.click();
      screen = now;
      // (the tab bar brought up for another window only: the side column's width changing, fitFigures' resize, left
      // the page where it was; helper 85: Finish after the last stop redrew the teacher's panel, and the projector
      // jumped from the lens to the Experiments tab's checkboxes)
      if (!(AE.lesson && AE.lesson.reaim && AE.lesson.reaim()) && another) place();
      // (and again after the lesson's own scrolls, at 1 s and 2.5 s: helper 23's step figure was fitted before the
      // stop brought it to the top, and ran 56 px under a 768 px screen)
      [150, 1300, 2800].forEach((ms) => setTimeout(fitScreen, ms));
    }, 300);
  });

  document.addEventListener("click", (e) => {
    if (!AE.state.present || !e.target.closest || !e.target.closest("#tabs button[role=tab], .overflow-dropdown button")) return;
    [0, 80, 300, 800].forEach((ms) => setTimeout(place, ms));
    setTimeout(fitScreen, 1000);
  }, true);

  // The decoding step slider, moved as a hand would move it (Gradio hears the input and views.js redraws).
  function stepBy(delta) {
    const range = document.querySelector("#step input[type=range]");
    if (!range) return;
    const value = Math.max(Number(range.min), Math.min(Number(range.max), Number(range.value) + delta));
    if (value === Number(range.value)) return;
    range.value = value;
    for (const type of ["input", "change"]) range.dispatchEvent(new Event(type, { bubbles: true }));
    range.dispatchEvent(new PointerEvent("pointerup", { bubbles: true }));
  }

  // (caught before the tab bar hears it: a focused tab button's arrow also switched the tab, taking the class along)
  document.addEventListener("keydown", (e) => {
    if (!AE.state.present || AE.state.tab !== "steps") return;
    if (e.key !== "ArrowRight" && e.key !== "ArrowLeft") return;
    const target = e.target || {};
    if (["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName) || target.isContentEditable) return;
    if (target.getAttribute && target.getAttribute("role") === "tab") { e.preventDefault(); e.stopPropagation(); }
    stepBy(e.key === "ArrowRight" ? 1 : -1);
    sayStep();
  }, true);
  // ... and the new step said once its figure is drawn: the step, the chosen word and the runner-up, the first line
  // of the figure's summary (helper 43: the presenter's arrows changed the step and nothing was said)
  let stepWatch = null;
  function sayStep() {
    const summary = () => (document.querySelector("#step-plot .ae-fig-summary") || {}).textContent || "";
    const before = summary(), until = performance.now() + 5000;
    clearInterval(stepWatch);
    stepWatch = setInterval(() => {
      const now = summary();
      if (now === before && performance.now() < until) return;
      clearInterval(stepWatch);
      const line = now.split("\n")[0], first = (line.match(/^.*?\)\./) || [line])[0];
      if (now !== before && first && AE.a11y && AE.a11y.say) AE.a11y.say(first);
    }, 100);
  }

  AE.present = { toggle, resume, stepBy, fit: fitScreen, sizes: () => SIZES[!!AE.state.present] };
})();
