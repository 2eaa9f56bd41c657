// "Where am I": the paper's Figure 1 (the encoder and decoder stacks) as a small drawing beside the views. The part
// the open view shows is highlighted; clicking a part opens its view. Loaded after views.js and links.js; draws
// into #ae-figure1 and follows AE.openTab / the attention-type radio.
(function () {
  const AE = window.AE;
  // part -> [label, x, y, width, height, the view it opens ({tab, kind})]
  const PARTS = {
    embed: ["Input embedding + PE", 10, 300, 190, 34, { tab: "pe" }],
    enc_self: ["Self-attention (multi-head)", 10, 230, 190, 34, { tab: "attend", kind: "Encoder self-attention" }],
    enc_ffn: ["Feed-forward (+ add & norm)", 10, 180, 190, 34, { tab: "inside" }],
    out_embed: ["Output embedding + PE", 240, 300, 210, 34, { tab: "pe" }],
    dec_self: ["Masked self-attention", 240, 240, 210, 34, { tab: "attend", kind: "Decoder self-attention" }],
    cross: ["Cross-attention (encoder → decoder)", 240, 185, 210, 34, { tab: "attend", kind: "Cross-attention" }],
    dec_ffn: ["Feed-forward (+ add & norm)", 240, 130, 210, 34, { tab: "inside" }],
    output: ["Linear + softmax → next token", 240, 60, 210, 34, { tab: "steps" }],
  };
  // the open view -> the parts it shows
  function shown(tab, kind) {
    if (tab === "attend" || tab === "compare") {
      return { "Encoder self-attention": ["enc_self"], "Decoder self-attention": ["dec_self"] }[kind] || ["cross"];
    }
    return { pe: ["embed", "out_embed"], inside: ["enc_self", "dec_self", "cross"], steps: ["output", "cross"],
      experiments: ["cross", "dec_self", "enc_self", "output"], beyond: ["cross", "embed", "out_embed", "output"],
      model: [] }[tab] || [];
  }

  function svg() {
    const boxes = Object.entries(PARTS).map(([id, [label, x, y, w, h]]) =>
      "<g class='ae-part' data-part='" + id + "' onclick='AE.figure1.open(\"" + id + "\")'><title>" + label +
      " (click to open its view)</title><rect x='" + x + "' y='" + y + "' width='" + w + "' height='" + h +
      "' rx='6'/><text x='" + (x + w / 2) + "' y='" + (y + h / 2 + 4) + "' text-anchor='middle'>" + label + "</text></g>").join("");
    return "<svg viewBox='0 0 460 350' role='img' aria-label='The Transformer: encoder (left) and decoder (right)'>" +
      "<rect class='ae-stack' x='4' y='172' width='202' height='100' rx='10'/><text class='ae-note' x='105' y='288' " +
      "text-anchor='middle'>encoder layer × N</text><rect class='ae-stack' x='234' y='122' width='222' height='160' " +
      "rx='10'/><text class='ae-note' x='345' y='296' text-anchor='middle'>decoder layer × N</text>" +
      "<path class='ae-arrow' d='M206 200 C 222 200, 222 202, 240 202'/>" + boxes + "</svg>";
  }

  function highlight() {
    const el = document.getElementById("ae-figure1");
    if (!el) return;
    if (!el.querySelector("svg")) el.innerHTML = svg();
    const kind = (document.querySelector("#kind input:checked") || {}).value;
    const on = shown(AE.state.tab, kind);
    el.querySelectorAll(".ae-part").forEach((g) => g.classList.toggle("ae-on", on.includes(g.dataset.part)));
  }

  function open(part) {
    AE.showView(PARTS[part][5]);
    setTimeout(highlight, 50);
  }

  // follow the page: a tab opened, an attention type chosen
  const openTab = AE.openTab;
  AE.openTab = (name, s) => { openTab(name, s); setTimeout(highlight, 0); };
  document.addEventListener("change", (e) => { if (e.target && e.target.closest && e.target.closest("#kind")) highlight(); });

  AE.figure1 = { open, highlight, shown, parts: Object.keys(PARTS) };
})();
