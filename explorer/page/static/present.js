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
      if (el.layout && el.layout.height) update.height = Math.round(el.layout.height / was.tall * s.tall);
      try { window.Plotly.relayout(el, update); } catch (e) { /* not drawn yet */ }
    });
  }

  function toggle() {
    AE.state.present = !AE.state.present;
    document.body.classList.toggle("ae-present", AE.state.present);
    restyle();
    const redraw = document.getElementById("ae-redraw");  // views.js figures drawn again, with their tick sizes
    if (redraw) redraw.click();
    if (AE.state.present) place();  // the first screen: the view, large
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
  document.addEventListener("click", (e) => {
    if (!AE.state.present || !e.target.closest || !e.target.closest("#tabs button[role=tab], .overflow-dropdown button")) return;
    [0, 80, 300, 800].forEach((ms) => setTimeout(place, ms));
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

  document.addEventListener("keydown", (e) => {
    if (!AE.state.present || AE.state.tab !== "steps") return;
    const target = e.target || {};
    if (["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName) || target.isContentEditable) return;
    if (e.key === "ArrowRight") stepBy(1);
    else if (e.key === "ArrowLeft") stepBy(-1);
  });

  AE.present = { toggle, resume, stepBy, sizes: () => SIZES[!!AE.state.present] };
})();
