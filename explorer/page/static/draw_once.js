// One drawing per figure change. Gradio's gr.Plot re-creates its Plotly component whenever its value changes (a
// keyed block): the old component first draws the new value into its own element, which is then thrown away, and the
// new one draws it again (docs/performance.md, "The page in the browser"). Here Plotly.react waits until the
// framework's update has run (a microtask: within the same task, so no frame is painted without the figure, and a
// script reading the page never finds it gone) and then draws only into elements still on the page, the newest figure
// of each: the thrown-away drawing is never made. A resize asked for before that drawing is left to it.
//
// And the main view first, the rest only near the screen: a tab's main view is drawn at once, and so is a figure
// within a window's height of the window when it changes alone (a Dimensions value typed). When a main view is
// drawn with it (a Translate, a view changed), another figure is drawn at once only if a third of it is in the
// window; the rest are parked and an IntersectionObserver draws each once it is that near: a task after the frame
// that shows the main view (a laptop's model view, just in sight below its heatmap), or when the student scrolls to
// it (a phone's model view and head statistics, two and three screens down), or never if nobody looks (a closed
// tab, a view presentation mode hides).
(function () {
  const pending = new Map();  // element -> [data, layout, config, resolve] of its newest figure
  const parked = new Map();  // element -> [data, layout, config] of its newest figure, drawn when it nears the screen
  const MARGIN = "100% 0px 100% 0px";  // "near": within a window's height above or below the window
  let watcher = null;
  // what it did, for the tests that count a Translate's work (tests/test_page_work.py): drawings made, and skipped
  // and the main thread's time each figure's drawing took, in ms (bench/page_cost.py prints it)
  // (withMain: the figures drawn in the same task as the last main view, the main view included)
  const counts = (window.AE_DRAWS = { drawn: 0, skipped: 0, parked: 0, by: {}, ms: {}, withMain: [] });
  let timer = false;

  function wrap(P) {
    if (!P || P.__aeOnce) return;
    P.__aeOnce = true;
    const react = P.react.bind(P), resize = P.Plots && P.Plots.resize ? P.Plots.resize.bind(P.Plots) : null;
    const idOf = (gd) => ((gd.closest && gd.closest("[id]")) || {}).id || "?";  // its block's id
    function draw(gd, data, layout, config) {
      const id = idOf(gd);
      counts.drawn++;
      counts.by[id] = (counts.by[id] || 0) + 1;
      gd.style.minHeight = "";  // (held while it was parked)
      const A = window.AE || {};
      if (A.forTouch) [layout, config] = A.forTouch(layout, config);  // (views.js: no drag on a touch screen)
      const t0 = performance.now(), done = react(gd, data, layout, config);
      const F = (window.AE || {}).figures;
      if (F && F.keep) F.keep(gd);  // the block's text alternative right after it, kept
      counts.ms[id] = (counts.ms[id] || 0) + performance.now() - t0;
      return done;
    }
    // each tab's main view (sight.js VIEWS): drawn wherever it is, as soon as it is laid out (a 320 px phone's
    // heatmap lies more than two screens below the sentence box; a student looks for it right after Translate)
    const MAIN = new Set(["heatmap", "step-plot", "pe-table", "inside-plot", "compare-view"]);
    // drawn at once: a tab's main view; a figure near the screen (as MARGIN says) when no main view is drawn with
    // it; and one a third of which is in the window either way. Drawn with a main view (a Translate, a view changed),
    // a figure less in sight is parked and the observer draws it in a task after the frame that shows the main view:
    // a laptop's model view, its top 68 px in sight below the heatmap, cost 70 ms of the 0.47 s from Translate to a
    // painted heatmap
    const laidOut = (gd) => gd.getClientRects().length > 0;  // not in a closed tab or panel
    const isMain = (gd) => MAIN.has(idOf(gd)) && laidOut(gd);
    function near(gd) {
      if (!laidOut(gd)) return false;
      const r = gd.getBoundingClientRect(), h = window.innerHeight || 800;
      return r.bottom >= -h && r.top <= 2 * h;
    }
    function inSight(gd, layout) {  // its height is the new figure's: the element is empty until it is drawn
      if (!laidOut(gd)) return false;
      const top = gd.getBoundingClientRect().top, h = window.innerHeight || 800;
      const height = Math.max((layout && layout.height) || gd.offsetHeight || 1, 1);
      return Math.min(h, top + height) - Math.max(0, top) >= Math.min(height, h) / 3;
    }
    function park(gd, job) {
      counts.parked++;
      parked.set(gd, job);
      gd.classList.add("ae-parked");  // a figure waiting to be drawn is not an empty box (style.css hides those)
      // and it keeps the height it will have: the page below does not jump up and back (a laptop's download
      // buttons rose to the heatmap for 0.3 s while the model view waited for its frame: helper 16)
      const height = (job[1] || {}).height;
      if (height) gd.style.minHeight = height + "px";
      const F = (window.AE || {}).figures;
      if (F && F.keep) F.keep(gd);  // and the block's text alternative after it, saying what the figure will show
      if (F && F.describeParked) F.describeParked(gd, job[0], job[1]);
      if (!watcher) {
        watcher = new IntersectionObserver((entries) => entries.forEach((e) => {
          const job = parked.get(e.target);
          if (!e.isIntersecting || !job) return;
          parked.delete(e.target);
          watcher.unobserve(e.target);
          e.target.classList.remove("ae-parked");
          if (e.target.isConnected) draw(e.target, ...job); else counts.skipped++;
        }), { rootMargin: MARGIN });
      }
      watcher.observe(gd);
    }
    function flush() {
      timer = false;
      const jobs = [...pending];
      pending.clear();
      const withMain = jobs.some(([gd]) => gd.isConnected && isMain(gd));
      if (withMain) counts.withMain = [];
      jobs.forEach(([gd, [data, layout, config, resolve]]) => {
        if (!gd.isConnected) { counts.skipped++; resolve(gd); return; }  // thrown away before it was drawn
        if (!window.IntersectionObserver || isMain(gd) || (withMain ? inSight(gd, layout) : near(gd))) {
          parked.delete(gd);
          gd.classList.remove("ae-parked");
          if (withMain) counts.withMain.push(idOf(gd));
          Promise.resolve(draw(gd, data, layout, config)).then(() => resolve(gd), () => resolve(gd));
        } else {
          park(gd, [data, layout, config]);  // its newest figure, drawn when it nears the screen
          resolve(gd);
        }
      });
    }
    P.react = function (gd, data, layout, config) {
      if (!gd || typeof gd === "string" || !gd.isConnected) return react(gd, data, layout, config);
      const before = pending.get(gd);
      return new Promise((resolve) => {
        if (before) before[3](gd);  // superseded by this newer figure
        pending.set(gd, [data, layout, config, resolve]);
        if (!timer) { timer = true; queueMicrotask(flush); }
      });
    };
    if (resize) P.Plots.resize = (gd) => (pending.has(gd) || parked.has(gd) ? Promise.resolve(gd) : resize(gd));
  }

  // Gradio's Plotly module sets window.Plotly when the first figure loads it: wrapped as it arrives
  let plotly = window.Plotly;
  if (plotly) wrap(plotly);
  else {
    Object.defineProperty(window, "Plotly", { configurable: true, enumerable: true,
      get: () => plotly, set: (P) => { plotly = P; wrap(P); } });
  }
})();
