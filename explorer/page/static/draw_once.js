// One drawing per figure change. Gradio's gr.Plot re-creates its Plotly component whenever its value changes (a
// keyed block): the old component first draws the new value into its own element, which is then thrown away, and the
// new one draws it again (docs/performance.md, "The page in the browser"). Here Plotly.react waits until the
// framework's update has run (a microtask: within the same task, so no frame is painted without the figure, and a
// script reading the page never finds it gone) and then draws only into elements still on the page, the newest figure
// of each: the thrown-away drawing is never made. A resize asked for before that drawing is left to it.
(function () {
  const pending = new Map();  // element -> [data, layout, config, resolve] of its newest figure
  // what it did, for the tests that count a Translate's work (tests/test_page_work.py): drawings made, and skipped
  const counts = (window.AE_DRAWS = { drawn: 0, skipped: 0, by: {} });
  let timer = false;

  function wrap(P) {
    if (!P || P.__aeOnce) return;
    P.__aeOnce = true;
    const react = P.react.bind(P), resize = P.Plots && P.Plots.resize ? P.Plots.resize.bind(P.Plots) : null;
    function flush() {
      timer = false;
      const jobs = [...pending];
      pending.clear();
      jobs.forEach(([gd, [data, layout, config, resolve]]) => {
        if (!gd.isConnected) { counts.skipped++; resolve(gd); return; }  // thrown away before it was drawn
        const id = (gd.closest && gd.closest("[id]") || {}).id || "?";
        counts.drawn++;
        counts.by[id] = (counts.by[id] || 0) + 1;
        Promise.resolve(react(gd, data, layout, config)).then(() => resolve(gd), () => resolve(gd));
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
    if (resize) P.Plots.resize = (gd) => (pending.has(gd) ? Promise.resolve(gd) : resize(gd));
  }

  // Gradio's Plotly module sets window.Plotly when the first figure loads it: wrapped as it arrives
  let plotly = window.Plotly;
  if (plotly) wrap(plotly);
  else {
    Object.defineProperty(window, "Plotly", { configurable: true, enumerable: true,
      get: () => plotly, set: (P) => { plotly = P; wrap(P); } });
  }
})();
