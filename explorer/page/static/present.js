// Presentation mode for a projector: large fonts, thick lines, high contrast, one view at a time (the text blocks,
// examples, model view and head statistics step aside), and the arrow keys move the decoding step on the Step tab.
// Loaded after views.js; views.js's figures read AE.state.present for their font sizes.
(function () {
  const AE = window.AE;
  // type sizes, and how much taller a figure grows so that its larger labels keep their room
  const SIZES = { true: { font: 16, title: 24, tall: 1.7 }, false: { font: 12, title: 17, tall: 1 } };

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
    if (AE.state.present && AE.scrollToView) AE.scrollToView();  // the first screen: the view, large
    return AE.state.present ? "Leave presentation mode" : "Presentation mode";
  }

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

  AE.present = { toggle, stepBy, sizes: () => SIZES[!!AE.state.present] };
})();
