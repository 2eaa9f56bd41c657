// One drawing per figure change. Gradio's gr.Plot re-creates its Plotly component whenever its value changes (a
// keyed block): the old component first draws the new value into its own element, which is then thrown away, and the
// new one draws it again (docs/performance.md, "The page in the browser"). Here Plotly.react waits until the
// framework's update has run (a microtask: within the same task, so no frame is painted without the figure, and a
// script reading the page never finds it gone) and then draws only into elements still on the page, the newest figure
// of each: the thrown-away drawing is never made. A resize asked for before that drawing is left to it.
//
// And only near the screen: a figure (but a tab's main view) more than a screen below the window or above it (a
// phone's model view and head statistics, a laptop's head statistics), or not laid out at all (a closed tab, a view presentation mode hides), is
// parked and drawn when it comes within that distance (an IntersectionObserver): a Translate on a phone draws the
// heatmap it shows, not the two figures two screens further down.
(function () {
  const pending = new Map();  // element -> [data, layout, config, resolve] of its newest figure
  const parked = new Map();  // element -> [data, layout, config] of its newest figure, drawn when it nears the screen
  const MARGIN = "100% 0px 100% 0px";  // "near": within a window's height above or below the window
  let watcher = null;
  // what it did, for the tests that count a Translate's work (tests/test_page_work.py): drawings made, and skipped
  // and the main thread's time each figure's drawing took, in ms (bench/page_cost.py prints it)
  const counts = (window.AE_DRAWS = { drawn: 0, skipped: 0, parked: 0, by: {}, ms: {} });
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
      const t0 = performance.now(), done = react(gd, data, layout, config);
      counts.ms[id] = (counts.ms[id] || 0) + performance.now() - t0;
      return done;
    }
    // each tab's main view (sight.js VIEWS): drawn wherever it is, as soon as it is laid out (a 320 px phone's
    // heatmap lies more than two screens below the sentence box; a student looks for it right after Translate)
    const MAIN = new Set(["heatmap", "step-plot", "pe-table", "inside-plot", "compare-view"]);
    function near(gd) {
      if (!gd.getClientRects().length) return false;  // not laid out: a closed tab or panel
      if (MAIN.has(idOf(gd))) return true;
      const r = gd.getBoundingClientRect(), h = window.innerHeight || 800;
      return r.bottom >= -h && r.top <= 2 * h;  // as MARGIN says
    }
    function park(gd, job) {
      counts.parked++;
      parked.set(gd, job);
      gd.classList.add("ae-parked");  // a figure waiting to be drawn is not an empty box (style.css hides those)
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
      jobs.forEach(([gd, [data, layout, config, resolve]]) => {
        if (!gd.isConnected) { counts.skipped++; resolve(gd); return; }  // thrown away before it was drawn
        if (!window.IntersectionObserver || near(gd)) {
          parked.delete(gd);
          gd.classList.remove("ae-parked");
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
