// "Where am I": the paper's Figure 1 (the encoder and decoder stacks) as a small drawing beside the views. The part
// the open view shows is highlighted; clicking a part opens its view. Loaded after views.js and links.js; draws
// into #ae-figure1 and follows AE.openTab / the attention-type radio. Words: AE.t ("views.figure1." keys).
(function () {
  const AE = window.AE;
  const t = AE.t, esc = (s) => AE.esc(s).replace(/'/g, "&#39;");  // into attributes quoted with '…' too
  // The feed-forward layers have no view of their own: what they add shows, layer by layer, in the logit lens.
  const FFN = t("views.figure1.ffn_note");
  // part -> [label, x, y, width, height, the view it opens ({tab, kind (the radio's value), note: said under the drawing})]
  const PARTS = {
    embed: [t("views.figure1.embed"), 10, 300, 190, 34, { tab: "pe" }],
    enc_self: [t("views.figure1.enc_self"), 10, 230, 190, 34, { tab: "attend", kind: "Encoder self-attention" }],
    enc_ffn: [t("views.figure1.ffn"), 10, 180, 190, 34, { tab: "experiments", note: FFN }],
    out_embed: [t("views.figure1.out_embed"), 240, 300, 210, 34, { tab: "pe" }],
    dec_self: [t("views.figure1.dec_self"), 240, 240, 210, 34, { tab: "attend", kind: "Decoder self-attention" }],
    cross: [t("views.figure1.cross"), 240, 185, 210, 34, { tab: "attend", kind: "Cross-attention" }],
    dec_ffn: [t("views.figure1.ffn"), 240, 130, 210, 34, { tab: "experiments", note: FFN }],
    output: [t("views.figure1.output"), 240, 60, 210, 34, { tab: "steps" }],
  };
  // A narrow place (a phone, the column beside a docked lesson: narrower than the wide drawing's 540 px, below which
  // its text would be under 12 px) draws the two stacks one above the other, the decoder's on top as its output is,
  // read bottom up as in the paper (helper 83: at 390x844 and 1280x800 the wide drawing scrolled sideways, the
  // decoder's feed-forward part cut off at stop 5): part -> [x, y, width, height]
  const NARROW = { output: [10, 8, 210, 34], dec_ffn: [10, 58, 210, 34], cross: [10, 100, 210, 34],
    dec_self: [10, 142, 210, 34], out_embed: [10, 226, 210, 34], enc_ffn: [10, 284, 210, 34],
    enc_self: [10, 326, 210, 34], embed: [10, 410, 210, 34] };
  // (the wide drawing's least width: 540 px, 860 in presentation mode, where its text is 20 px and more: style.css)
  const widePx = () => (document.querySelector(".ae-present") ? 860 : 540);
  const narrowIn = (el) => el.clientWidth > 0 && el.clientWidth < widePx();

  // the open view -> the parts it shows
  function shown(tab, kind) {
    if (tab === "attend" || tab === "compare") {
      return { "Encoder self-attention": ["enc_self"], "Decoder self-attention": ["dec_self"] }[kind] || ["cross"];
    }
    return { pe: ["embed", "out_embed"], inside: ["enc_self", "dec_self", "cross"], steps: ["output", "cross"],
      experiments: ["cross", "dec_self", "enc_self", "output"], beyond: ["cross", "embed", "out_embed", "output"],
      model: [] }[tab] || [];
  }

  function svg(narrow) {
    // (the two feed-forward parts are told apart by their stack in what is said: helper 40 heard two alike)
    const spoken = (id, label) => ({ enc_ffn: label + ", " + t("views.figure1.encoder_stack"),
      dec_ffn: label + ", " + t("views.figure1.decoder_stack") })[id] || label;
    const at = (id, wide) => (narrow ? NARROW[id] : wide);
    const boxes = Object.entries(PARTS).map(([id, [label, ...wide]]) => [id, label, ...at(id, wide.slice(0, 4))]).map(([id, label, x, y, w, h]) =>
      "<g class='ae-part' data-part='" + id + "' onclick='AE.figure1.open(\"" + id + "\")' role='button' tabindex='0' " +
      "aria-label='" + esc(t("views.figure1.open", { part: spoken(id, label) })) + "'><title>" +
      esc(t("views.figure1.click", { part: spoken(id, label) })) +
      "</title><rect x='" + x + "' y='" + y + "' width='" + w + "' height='" + h +
      "' rx='6'/><text x='" + (x + w / 2) + "' y='" + (y + h / 2 + 4) + "' text-anchor='middle'>" + esc(label) + "</text></g>").join("");
    // (a named figure: the lesson's stop 5 gives it the focus of a student whose own control it scrolled away,
    // as every view's figure: sight.js focusView)
    const name = "role='figure' aria-label='" + esc(t("views.figure1.name")) + "'";
    const stack = (x, y, w, h, tx, ty, key) => "<rect class='ae-stack' x='" + x + "' y='" + y + "' width='" + w +
      "' height='" + h + "' rx='10'/><text class='ae-note' x='" + tx + "' y='" + ty + "' text-anchor='middle'>" +
      esc(t(key)) + "</text>";
    if (narrow) {
      return "<svg class='ae-narrow' viewBox='0 0 250 452' " + name + ">" +
        stack(4, 50, 222, 160, 115, 200, "views.figure1.decoder_stack") +
        stack(4, 276, 222, 116, 115, 384, "views.figure1.encoder_stack") +
        "<path class='ae-arrow' d='M220 301 C 246 301, 246 117, 220 117'/>" + boxes + "</svg>";
    }
    return "<svg viewBox='0 0 460 350' " + name + ">" +
      stack(4, 172, 202, 100, 105, 288, "views.figure1.encoder_stack") +
      stack(234, 122, 222, 160, 345, 296, "views.figure1.decoder_stack") +
      "<path class='ae-arrow' d='M206 200 C 222 200, 222 202, 240 202'/>" + boxes + "</svg>";
  }

  // Parts a lesson stop points at beside the open view's (stop 5: the feed-forward parts, which have no view of their
  // own: helper 81 found its question on the feed-forward network asked over a heatmap that shows none). point(parts)
  // opens "Where am I" with them marked and their note said above the drawing (below it, a phone's docked lesson
  // covered it); point([]) (any other view) unmarks them, takes the note away and folds "Where am I" again if
  // pointing opened it.
  let pointed = [], opened = false;
  const fold = () => document.querySelector("#where > .label-wrap, #where .label-wrap");
  function point(parts) {
    const was = pointed.length > 0;
    pointed = parts || [];
    const old = document.getElementById("ae-figure1-point");
    if (!pointed.length) {
      if (!was) return;
      if (old) old.remove();
      const f = fold();
      if (opened && f && f.classList.contains("open")) {
        // (the focus on the drawing, given it at stop 5, goes to the fold, not to the page's body as the drawing
        // hides; the next view, brought into sight, takes it from there: sight.js focusView)
        const inside = f.parentElement && f.parentElement.contains(document.activeElement);
        f.click();
        if (inside) f.focus({ preventScroll: true });
      }
      opened = false;
      highlight();
      return;
    }
    const f = fold();
    if (f && !f.classList.contains("open")) { f.click(); opened = true; }
    const text = pointed.some((id) => /_ffn$/.test(id)) ? FFN : "";
    const draw = (n) => {  // (the fold's content is drawn once it opens)
      const el = document.getElementById("ae-figure1");
      if (!el) { if (n < 30) setTimeout(() => draw(n + 1), 100); return; }
      highlight();
      if (!pointed.length || !text) return;
      const p = document.getElementById("ae-figure1-point") || document.createElement("p");
      p.id = "ae-figure1-point";
      p.className = "ae-figure-note";
      p.textContent = text;
      if (el.firstChild !== p) el.insertBefore(p, el.firstChild);
    };
    draw(0);
  }

  function highlight() {
    const el = document.getElementById("ae-figure1");
    if (!el) return;
    if (!el.querySelector("svg")) {
      el.innerHTML = svg(narrowIn(el)) + "<p id='ae-figure1-note' class='ae-figure-note'></p>";
      fit(el);
    }
    const kind = (document.querySelector("#kind input:checked") || {}).value;
    const on = shown(AE.state.tab, kind).concat(pointed);
    el.querySelectorAll(".ae-part").forEach((g) => g.classList.toggle("ae-on", on.includes(g.dataset.part)));
  }

  // The drawing redrawn in the other layout as its place crosses widePx() (the fold opened, a phone turned, the lesson
  // docked beside it), the focused part focused again
  let watched = null;
  function fit(el) {
    if (watched === el || !window.ResizeObserver) return;
    watched = el;
    new ResizeObserver(() => {
      const old = el.querySelector("svg");
      if (!old || !el.clientWidth || old.classList.contains("ae-narrow") === narrowIn(el)) return;
      const focused = document.activeElement && old.contains(document.activeElement) ? document.activeElement.dataset.part : null;
      const box = document.createElement("div");
      box.innerHTML = svg(narrowIn(el));
      old.replaceWith(box.firstChild);
      highlight();
      if (focused) { const g = el.querySelector(".ae-part[data-part='" + focused + "']"); if (g) g.focus({ preventScroll: true }); }
    }).observe(el);
  }

  // byKey: pressed with Enter or Space. Its view is said and the focus follows the view to its tab (below); a part
  // with a note (no view of its own) keeps the focus, unless the page scrolls it off the screen
  function open(part, byKey) {
    const view = PARTS[part][5];
    AE.showView(view);
    const note = document.getElementById("ae-figure1-note");
    if (note) note.textContent = view.note || "";
    setTimeout(highlight, 50);
    if (!view.note) AE.scrollToView(view.tab);  // the view brought into sight (a note is read here first)
    if (!byKey) return;
    const say = (text) => { if (AE.a11y && AE.a11y.say) AE.a11y.say(text); };
    const button = () => [...document.querySelectorAll("#tabs button[role='tab']")]
      .find((b) => b.dataset.tabId === view.tab && b.offsetParent !== null && b.getClientRects().length > 0);
    if (view.note) say(view.note);
    else {
      const tab = button() || document.querySelector("#tabs button[role='tab'][data-tab-id='" + view.tab + "']");
      say(t("views.figure1.opened", { tab: tab ? tab.textContent.trim() : "", part: PARTS[part][0] }));
    }
    // The focus follows the view to its tab: as soon as bringing the view into sight takes the part off the screen
    // (helper 38: the focus was left 180 px below it), else once the page has stopped scrolling (CI, a busy machine:
    // the part was still on the screen after 5 s of looks and the focus stayed on it). Looks every 400 ms from the
    // time smooth scrolling takes (about half a second); on a slow machine one look at 800 ms came too early (helper
    // 50, 1 press in 9)
    const g = document.querySelector(".ae-part[data-part='" + part + "']"), t0 = Date.now();
    let was = null;
    const look = () => {
      if (!g || document.activeElement !== g) return;  // (the person moved it, or it went to the tab)
      const r = g.getBoundingClientRect(), y = window.scrollY;
      const to = button() || document.querySelector(".overflow-menu > button, .overflow-menu button");
      if (!to) return;
      if (r.bottom > window.innerHeight || r.top < 0) to.focus({ preventScroll: true });
      // (a part with a note keeps the focus while it is in sight: presentation mode scrolls the page to the tabs as
      // a tab opens, and left a feed-forward part's focus 815 px above the screen: audit 65, 2 of 2)
      else if (view.note) { if (Date.now() - t0 < 5000) setTimeout(look, 400); }
      else if (y === was || Date.now() - t0 > 10000) to.focus();  // (settled with the part in sight: the tab is
      else { was = y; setTimeout(look, 400); }                     //  brought into sight as it takes the focus)
    };
    setTimeout(look, AE.motion && AE.motion() === "instant" ? 150 : 800);
  }

  // follow the page: a tab opened, an attention type chosen
  const openTab = AE.openTab;
  AE.openTab = (name, s) => { openTab(name, s); setTimeout(highlight, 0); };
  // a part is a button: Enter or Space opens its view, as a click does
  document.addEventListener("keydown", (e) => {
    const part = e.target && e.target.closest && e.target.closest(".ae-part");
    if (!part || (e.key !== "Enter" && e.key !== " ")) return;
    e.preventDefault();
    open(part.dataset.part, true);
  });
  document.addEventListener("change", (e) => { if (e.target && e.target.closest && e.target.closest("#kind")) highlight(); });

  AE.figure1 = { open, highlight, shown, point, parts: Object.keys(PARTS) };
})();
