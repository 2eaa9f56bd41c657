// Attention Explorer's client-side views: drawn in the browser from the page's copy of one analysis
// (viz/page_data.py), so switching attention type, layer, head or decoding step asks the server nothing.
// Every function returns a gr.Plot value ({type: "plotly", plot: "<figure JSON>"}); Gradio draws it.
// Layout and wording follow viz/attention.py and viz/decoding.py, which draw the same figures on the server.
// Every word comes from the page's catalogue (AE.t, i18n.js: the "views." keys); numbers as the page's language writes
// them (AE.num, and plotly's own "separators" for hover and tick numbers).
(function () {
  const AE = window.AE;
  const t = AE.t;
  // the attention type radio's values (the same in every language) -> the kind
  const KIND = { "Cross-attention": "cross", "Encoder self-attention": "encoder", "Decoder self-attention": "decoder" };
  const TITLE = { encoder: t("views.kind.encoder"), decoder: t("views.kind.decoder_masked"), cross: t("views.kind.cross") };
  // the page's decimal mark; a number with a fixed number of digits and no grouping (0.420 / 0,420)
  const DECIMAL = t("_meta.decimal");
  const fixed = (x, d) => Number(x).toFixed(d).replace(".", DECIMAL);
  // A task's language ("English", "German": the model's own words, viz/page_data.py) named in the page's language;
  // the value itself stays data. A name without a catalogue entry (another model's task) is shown as it is.
  function taskName(name) {
    const key = "views.task." + String(name).toLowerCase().replace(/\W+/g, "_");
    const said = t(key);
    return said === key ? String(name) : said;
  }
  // the task's language names -> BCP 47 (null: not a language, e.g. the toy model's letters)
  const LANG_CODES = { German: "de", English: "en" };
  const langOf = (name) => LANG_CODES[name] || null;
  const task = (bank) => (bank && bank.task) || { source: "English", target: "German" };
  // text in the task's language, inside text in the page's language: marked with its own lang where they differ
  function foreign(html, name) {
    const code = langOf(name);
    return code && code !== AE.lang ? "<span lang='" + code + "'>" + html + "</span>" : html;
  }
  // what the rows and columns are, in the model's own terms (its task: viz/attention.py subtitle)
  function sub(bank, kind) {
    const k = task(bank), names = { source: esc(taskName(k.source)), target: esc(taskName(k.target)) };
    return t({ cross: "views.sub.cross", encoder: "views.sub.encoder", decoder: "views.sub.decoder" }[kind], names);
  }
  const BLUES = [[0, "rgb(247,251,255)"], [0.125, "rgb(222,235,247)"], [0.25, "rgb(198,219,239)"], [0.375, "rgb(158,202,225)"], [0.5, "rgb(107,174,214)"], [0.625, "rgb(66,146,198)"], [0.75, "rgb(33,113,181)"], [0.875, "rgb(8,81,156)"], [1, "rgb(8,48,107)"]];  // plotly.py's "Blues" (ColorBrewer); plotly.js names a different scale so
  const FONT = { family: "Inter, Helvetica, Arial, sans-serif", size: 12 };
  const AVERAGE = "all heads (mean)";
  // ticklabeloverflow "allow": automargin already makes room for every label, and Plotly's default ("hide past div")
  // measured each label once more to hide the ones past the edge (bBox: a forced layout each, 0.1 s a Translate)
  const AXIS = { automargin: true, gridcolor: "#EBF0F8", linecolor: "#EBF0F8", ticks: "", title: { standoff: 15 },
    zerolinecolor: "#EBF0F8", zerolinewidth: 2, ticklabeloverflow: "allow" };
  const LEAN_WHITE = { layout: { font: { color: "#2a3f5f" }, paper_bgcolor: "white", plot_bgcolor: "white",  // viz/style.py
    hovermode: "closest", hoverlabel: { align: "left" }, xaxis: AXIS, yaxis: AXIS } };

  const kindOf = (k) => KIND[k] || k;
  const headOf = (h) => (h === null || h === undefined || h === "" || h === AVERAGE ? null : parseInt(String(h).replace("head ", ""), 10));
  const plot = (fig) => ({ type: "plotly", plot: JSON.stringify(fig) });

  // The page holds its copy of the analysis as JSON text (a hidden Textbox): parsed once per analysis.
  let lastText = null, lastBank = null;
  function parsed(bank) {
    if (typeof bank !== "string") return bank;
    if (bank !== lastText) {
      try { lastBank = bank ? JSON.parse(bank) : null; } catch (e) { lastBank = null; }
      lastText = bank;
    }
    return lastBank;
  }
  const fromBank = (f) => (bank, ...rest) => f(parsed(bank), ...rest);
  const empty = () => null;

  function base(fig, title, height, fill, least) {
    const big = state.present;  // presentation mode (present.js): larger type
    fig.layout = Object.assign(fig.layout || {}, {
      separators: DECIMAL + (DECIMAL === "," ? "." : ","),  // hover and tick numbers: 0.42 / 0,42
      title: { text: title, x: 0.01, xanchor: "left", font: { size: big ? 30 : 17 } },
      font: Object.assign({}, FONT, { size: big ? 20 : FONT.size }), template: LEAN_WHITE,
      margin: { l: 80, r: 30, t: big ? 110 : 70, b: 80 }, autosize: true, height: big ? (fill ? Math.max(least || 0, screenHeight(fill)) : Math.round(height * 1.7)) : height,
    });
    // (a main view as tall as the screen: present.js fits it again when what is above it grows, or the window changes)
    if (big && fill) fig.layout.meta = Object.assign({}, fig.layout.meta, { aeFill: Math.max(400, least || 0) });
    return narrow() && !big ? forPhone(fig) : fig;
  }

  // Presentation mode: a tab's main view (``fill``: its element's id) as tall as the screen below the tab bar and its
  // controls (as they lay out now: a narrower page, beside the class panel, wraps them onto more lines); "screen": a
  // view the lesson scrolls to the screen's top (the model view at stop 4) fills the screen.
  function screenHeight(fill) {
    let above = fill === "screen" ? 16 : 190;  // the tab bar and one row of controls, while they cannot be measured
    const el = typeof fill === "string" && document.getElementById(fill), tabs = document.getElementById("tabs");
    if (el && tabs && el.getClientRects().length && fill !== "screen") {
      const d = el.getBoundingClientRect().top - tabs.getBoundingClientRect().top;
      if (d > 0 && d < 600) above = d + 44;  // and the axis title under the words
    }
    return Math.max(400, (window.innerHeight || 1080) - above);
  }

  // the width a tab's figures have (the tab bar's, as laid out now: narrower beside the class panel)
  const tabsWidth = () => { const tabs = document.getElementById("tabs"); return (tabs && tabs.getBoundingClientRect().width) || 1280; };

  // A phone's width (the page's own, as Gradio lays it out): titles broken onto lines and smaller, margins narrow,
  // colour bars thin (and left out where a figure has several: each panel prints or names its values on a tap).
  const narrow = () => (window.innerWidth || 1280) < 600;
  function forPhone(fig) {
    const L = fig.layout;
    L.title.text = String(L.title.text).replace(" — ", "<br>").replace(/<br><sup>/, "<br><sup>");
    L.title.font = { size: 13 };
    L.font = Object.assign({}, L.font, { size: 10 });
    L.margin = Object.assign({}, L.margin, { l: 50, r: 8, t: 92 });
    L.meta = Object.assign({}, L.meta, { aePhone: true });  // laid out for a phone here: phoneServerFigures leaves it
    const axes = Object.keys(L).filter((k) => k.startsWith("coloraxis"));
    axes.forEach((k) => {
      if (axes.length > 1) L[k].showscale = false;
      else L[k].colorbar = Object.assign({}, L[k].colorbar, { thickness: 8, tickfont: { size: 9 }, title: { text: "" } });
    });
    (fig.data || []).forEach((t) => {
      if (t.colorbar) t.colorbar = Object.assign({}, t.colorbar, { thickness: 8, tickfont: { size: 9 }, title: { text: "" } });
    });
    (L.annotations || []).forEach((a) => {
      a.font = Object.assign({}, a.font, { size: Math.min((a.font || {}).size || 11, 10) });
      if (typeof a.text === "string") a.text = a.text.split("<br>").map((line) => wrapLine(line, 60)).join("<br>");
    });
    return fig;
  }

  // A line of an annotation broken at spaces into lines of at most n visible characters (tags are not counted).
  function wrapLine(line, n) {
    const out = [];
    let cur = "", seen = 0;
    line.split(" ").forEach((word) => {
      const len = word.replace(/<[^>]*>/g, "").length;
      if (seen && seen + 1 + len > n) { out.push(cur); cur = word; seen = len; } else { cur = seen ? cur + " " + word : word; seen += (seen ? 1 : 0) + len; }
    });
    out.push(cur);
    return out.join("<br>");
  }

  function ticks(bank, which) {
    const special = new Set(bank[which + "_special"] || []);
    return bank[which].map((t, i) => (special.has(i) ? "<i>" + t + "</i>" : t));
  }

  function tokenAxis(labels, title, size) {
    const n = labels.length;
    return {
      title: { text: title }, tickmode: "array", tickvals: [...Array(n).keys()], ticktext: labels,
      tickfont: { size: state.present ? 24 : (size || (n <= 20 ? 12 : n <= 32 ? 10 : 8)) }, showgrid: false,
      zeroline: false,
    };
  }

  function queriesKeys(bank, kind) {
    if (kind === "encoder") return ["src", "src"];
    if (kind === "decoder") return ["tgt", "tgt"];
    return ["tgt", "src"];
  }

  const numbered = (token, i) => token + " (#" + i + ")";
  function hover(bank, kind, withPrediction) {
    const [q, k] = queriesKeys(bank, kind);
    const ql = bank[q].map((w, i) => (withPrediction && kind !== "encoder"
      ? t("views.hover.predicting", { token: numbered(w, i), next: bank.out[i] }) : numbered(w, i)));
    const kl = bank[k].map(numbered);
    return ql.map((qi) => kl.map((kj) => t("views.hover.query_key", { query: qi, key: kj })));
  }
  // a heatmap whose rows are decoder positions: the word chosen at each row, for its text alternative (figures.js
  // names a row "[BOS] (choosing “Ein”)": the lesson asks about the row where the model chose a word)
  const chosenAt = (bank, kind) => (kind === "encoder" ? undefined : { aeNext: bank.out.slice(0, bank.tgt.length) });
  // hover lines with a plotly number in them ("weight: %{z:.3f}"): the catalogue's words around plotly's value
  const WEIGHT = t("views.hover.weight", { v: "%{z:.3f}" });

  // (Tq, Tk) weights of one head, or the mean over heads; per-mille integers -> floats
  function weights(bank, kind, layer, head) {
    const heads = bank.att[kind][layer];
    if (head !== null) return heads[head].map((row) => row.map((v) => v / 1000));
    return heads[0].map((row, i) => row.map((_, j) => {
      let s = 0;
      for (const h of heads) s += h[i][j];
      return Math.round(s / heads.length) / 1000;
    }));
  }

  // Decoder self-attention is causal: a query may not look at later positions. Those cells are gaps in the weights
  // and a grey trace over them names them in the hover, never white like a weight of 0 (viz/attention.py too).
  const MASKED = "#c8c8c8";
  const MASKED_HOVER = t("views.hover.masked");
  const MASK = "ae-mask";  // the grey trace's meta: figures.js leaves it out of summaries and tables, in any language
  const isMasked = (kind, i, j) => kind === "decoder" && j > i;
  const unmasked = (kind, z) => z.map((row, i) => row.map((v, j) => (isMasked(kind, i, j) ? null : v)));

  function maskedTrace(z, where) {
    return Object.assign({ type: "heatmap", z: z.map((row, i) => row.map((_, j) => (j > i ? 1 : null))),
      x: [...Array(z[0].length).keys()], y: [...Array(z.length).keys()], zmin: 0, zmax: 1,
      colorscale: [[0, MASKED], [1, MASKED]], showscale: false, hoverongaps: false, meta: MASK,
      hovertemplate: t("views.hover.masked_cell", { query: "%{y}", key: "%{x}" }) + "<br>" + MASKED_HOVER + "<extra></extra>" }, where || {});
  }

  function caption(bank) {
    return t("views.quote", { text: bank.title_html });
  }

  function heatmap(bank, kindLabel, layer, headLabel) {
    if (!bank || !bank.att) return empty();
    const kind = kindOf(kindLabel), head = headOf(headLabel);
    layer = Math.min(parseInt(layer, 10) || 0, bank.att[kind].length - 1);
    const [q, k] = queriesKeys(bank, kind);
    const z = weights(bank, kind, layer, head);
    const which = head === null ? t("views.heads.mean_of", { n: bank.heads }) : t("views.heads.one", { head: head });
    const fig = {
      data: [{
        type: "heatmap", z: unmasked(kind, z), x: [...Array(bank[k].length).keys()], y: [...Array(bank[q].length).keys()],
        zmin: 0, zmax: 1, colorscale: BLUES, customdata: hover(bank, kind, true), hoverongaps: false,
        hovertemplate: "%{customdata}<br>" + WEIGHT + "<extra></extra>", colorbar: { title: { text: t("views.weight") } },
        meta: chosenAt(bank, kind),
      }],
      layout: {},
    };
    if (kind === "decoder") fig.data.push(maskedTrace(z));
    const qTitle = kind === "encoder" ? t("views.axis.query_source") : t("views.axis.query_decoder");
    const kTitle = kind === "decoder" ? t("views.axis.key_decoder") : t("views.axis.key_source");
    fig.layout.xaxis = Object.assign(tokenAxis(ticks(bank, k), kTitle), { tickangle: -60, side: "bottom", constrain: "domain" });
    fig.layout.yaxis = Object.assign(tokenAxis(ticks(bank, q), qTitle), { autorange: "reversed", scaleanchor: "x", constrain: "domain" });
    // a phone's long sentence: cells as tall as their words need, not square (square, 20 columns in its 390 px left
    // rows 8 px apart for 10-12 px words, written over each other, in a figure mostly empty: helper 16)
    if (narrow() && !state.present && (tabsWidth() - 130) / bank[k].length < 18) delete fig.layout.yaxis.scaleanchor;
    if (state.present) {  // the cells fill the screen (square cells would leave most of it empty) and the labels stand upright
      delete fig.layout.yaxis.scaleanchor;
      // upright while the words fit their columns (24 px type: ~13 px a character), slanted where they would touch
      const width = tabsWidth();
      const longest = Math.max(...bank[k].map((w) => String(w).length));
      fig.layout.xaxis.tickangle = kind === "decoder" || (width - 220) / bank[k].length < 13 * longest + 8 ? -45 : 0;
    }
    const n = Math.max(bank[q].length, bank[k].length);
    const size = Math.round(Math.min(900, Math.max(420, 22 * n + 160)));
    // on the projector at least tall enough for 24 px row words (title, margins and column words take 300 px), up to
    // the screen: a short screen (1366x768, the controls wrapped beside the class panel) scrolls the controls away
    // instead (the lesson's stop 6 brings the heatmap to the screen's top), rather than squeezing its rows
    const least = Math.min((window.innerHeight || 1080) - 20, 300 + 26 * bank[q].length);
    const out = base(fig, t("views.heatmap.title", { kind: TITLE[kind], layer: layer, which: which }) + " — " + caption(bank) +
      "<br><sup>" + sub(bank, kind) + "</sup>", size, "heatmap", least);
    if (state.present) {  // a short screen (1366x768 beside the class panel): the rows' words as large as their rows
      const rows = out.layout.height - 300, room = Math.floor(rows / bank[q].length) - 2;  // title, margins, column words
      if (room < 24) out.layout.yaxis.tickfont = { size: Math.max(12, room) };
      if (rows < 11 * qTitle.length) out.layout.yaxis.title = { text: "" };  // the subtitle says what the rows are
    }
    return plot(out);
  }

  function grid(rows, cols, titles, hgap, vgap) {
    const layout = { annotations: [] };
    const w = (1 - hgap * (cols - 1)) / cols, h = (1 - vgap * (rows - 1)) / rows;
    const clip = (v) => Math.min(1, Math.max(0, Math.round(v * 1e6) / 1e6));
    for (let i = 0; i < rows * cols; i++) {
      const r = Math.floor(i / cols), c = i % cols, x0 = c * (w + hgap), y1 = 1 - r * (h + vgap), a = i === 0 ? "" : String(i + 1);
      layout["xaxis" + a] = { domain: [clip(x0), clip(x0 + w)], anchor: "y" + a };
      layout["yaxis" + a] = { domain: [clip(y1 - h), clip(y1)], anchor: "x" + a };
      if (i < titles.length) layout.annotations.push({ text: titles[i], x: x0 + w / 2, y: y1, xref: "paper", yref: "paper",
        xanchor: "center", yanchor: "bottom", showarrow: false, font: { size: state.present ? 18 : 11 } });
    }
    return layout;
  }

  // at most PANEL_LABELS token labels along a small panel's axis (viz/attention.py thinned): more overlap; the hover
  // names every token
  const PANEL_LABELS = 20;
  function thinned(axis) {
    const k = Math.ceil(axis.ticktext.length / PANEL_LABELS);
    // (every word kept as aeWords, which plotly ignores: a text alternative names the row or column in words)
    return Object.assign(axis, { aeWords: axis.ticktext, ticktext: axis.ticktext.map((t, i) => (i % k === 0 ? t : "")) });
  }

  function modelView(bank, kindLabel) {
    if (!bank || !bank.att) return empty();
    const kind = kindOf(kindLabel), [q, k] = queriesKeys(bank, kind);
    const layers = bank.att[kind], nL = layers.length, nH = bank.heads;
    const titles = [];
    for (let l = 0; l < nL; l++) for (let h = 0; h < nH; h++) titles.push(t("views.model.panel", { layer: l, head: h }));  // fits a phone
    const layout = grid(nL, nH, titles, 0.02, 0.06);
    const cd = hover(bank, kind, false), long = Math.max(bank[q].length, bank[k].length) > 24, small = long ? 7 : 9;
    const data = [];
    for (let i = 0; i < nL * nH; i++) {
      const l = Math.floor(i / nH), h = i % nH, a = i === 0 ? "" : String(i + 1);
      const z = layers[l][h].map((row) => row.map((v) => v / 1000));
      data.push({ type: "heatmap", z: unmasked(kind, z), coloraxis: "coloraxis", customdata: cd, xaxis: "x" + a, yaxis: "y" + a,
        meta: chosenAt(bank, kind), name: t("views.hover.layer_head", { layer: l, head: h }), hoverongaps: false, hovertemplate: t("views.hover.layer_head", { layer: l, head: h }) + "<br>%{customdata}<br>" + WEIGHT + "<extra></extra>" });
      if (kind === "decoder") data.push(maskedTrace(z, { xaxis: "x" + a, yaxis: "y" + a }));
      Object.assign(layout["xaxis" + a], thinned(tokenAxis(ticks(bank, k), l === nL - 1 ? t("views.axis.key") : "", small)), { showticklabels: l === nL - 1, tickangle: -90 });
      Object.assign(layout["yaxis" + a], thinned(tokenAxis(ticks(bank, q), h === 0 ? t("views.axis.query") : "", small)), { showticklabels: h === 0, autorange: "reversed" });
    }
    layout.coloraxis = { colorscale: BLUES, cmin: 0, cmax: 1, colorbar: { title: { text: t("views.weight") } } };
    const panel = long ? 260 : 210;
    const out = base({ data: data, layout: layout }, t("views.model.title", { kind: TITLE[kind] }) + " — " + caption(bank) + "<br><sup>" +
      t("views.model.sub") + (Math.max(bank[q].length, bank[k].length) > PANEL_LABELS ? t("views.model.long") : "") +
      "</sup>", panel * nL + 160, "screen");
    if (state.present) {  // the token words as large as a panel's rows and columns hold (1366x768: 13 px rows), or none
      const rowPx = (out.layout.height - 330) * (1 - 0.06 * (nL - 1)) / nL / bank[q].length;
      const colPx = (tabsWidth() - 260) * (1 - 0.02 * (nH - 1)) / nH / bank[k].length;
      for (let i = 0; i < nL * nH; i++) {
        const a = i === 0 ? "" : String(i + 1);
        [["yaxis" + a, rowPx], ["xaxis" + a, colPx]].forEach(([axis, px]) => {
          const size = Math.min(24, Math.floor(px) - 2);
          if (size >= 10) out.layout[axis].tickfont = { size };
          else Object.assign(out.layout[axis], { showticklabels: false, title: { text: "" } });  // the panels' titles still count the heads
        });
      }
    }
    return plot(out);
  }

  // Head statistics (viz/attention.py head_statistics_figure): the statistics that mean something for this kind,
  // each on its own scale with its own colour bar (weights share 0..1), a line of text for each under the grids.
  function statRange(scale, nKeys) {
    return scale === "weight" ? 1 : scale === "entropy" ? Math.log(Math.max(nKeys, 2)) : Math.max(nKeys - 1, 1);
  }

  // a statistic's panel title and its line of text in the page's language (the bank's own, English, for one the
  // catalogue does not name)
  function statWords(info, name) {
    const title = t("views.stat." + name), text = t("views.stat." + name + ".text");
    return [title === "views.stat." + name ? info[name][0] : title, text === "views.stat." + name + ".text" ? info[name][1] : text, info[name][2]];
  }

  function stats(bank, kindLabel) {
    if (!bank || !bank.stats) return empty();
    const kind = kindOf(kindLabel), s = bank.stats[kind], names = Object.keys(s), info = {};
    names.forEach((n) => { info[n] = statWords(bank.stat_info, n); });
    const nKeys = bank[queriesKeys(bank, kind)[1]].length, cols = Math.ceil(names.length / 2);
    const layout = grid(2, cols, names.map((n) => info[n][0]), 0.11, 0.3);
    const data = names.map((name, i) => {
      const a = i === 0 ? "" : String(i + 1), v = s[name];
      const [x0, x1] = layout["xaxis" + a].domain, [y0, y1] = layout["yaxis" + a].domain;
      layout["coloraxis" + a] = { colorscale: VIRIDIS_LIGHT, cmin: 0, cmax: statRange(info[name][2], nKeys),
        colorbar: { x: x1 + 0.005, xanchor: "left", y: (y0 + y1) / 2, len: y1 - y0, thickness: 10, tickfont: { size: 9 } } };
      layout["xaxis" + a].title = { text: t("views.axis.head") };
      Object.assign(layout["yaxis" + a], { title: { text: i % cols === 0 ? t("views.axis.layer") : "" }, autorange: "reversed" });
      return { type: "heatmap", z: v, x: v[0].map((_, h) => "h" + h), y: v.map((_, l) => "L" + l), xaxis: "x" + a, yaxis: "y" + a,
        coloraxis: "coloraxis" + a, text: v.map((r) => r.map((x) => fixed(x, 2))), texttemplate: "%{text}", textfont: { color: "#000" },
        hovertemplate: info[name][0] + "<br>" + t("views.hover.layer_head", { layer: "%{y}", head: "%{x}" }) + "<br>" +
          t("views.hover.value", { v: "%{z:.3f}" }) + "<extra></extra>" };
    });
    layout.annotations.push({ text: names.map((n) => "<b>" + info[n][0] + "</b>: " + info[n][1]).join("<br>"), x: 0, y: -0.12,
      xref: "paper", yref: "paper", xanchor: "left", yanchor: "top", align: "left", showarrow: false, font: { size: 11 } });
    const fig = base({ data: data, layout: layout }, t("views.stats.title", { kind: TITLE[kind] }) + " — " + caption(bank) +
      "<br><sup>" + t("views.stats.sub") + "</sup>", 620 + 18 * names.length);
    const notes = fig.layout.annotations[fig.layout.annotations.length - 1].text.split("<br>").length;  // wrapped on a phone
    fig.layout.margin = Object.assign({}, fig.layout.margin, { b: 80 + 16 * notes });
    fig.layout.height += Math.max(0, 16 * (notes - names.length));
    return plot(fig);
  }

  function step(bank, at, layer, headLabel) {
    if (!bank || !bank.steps || !bank.steps.length) return empty();
    const steps = bank.steps;
    const n = Math.max(0, Math.min(parseInt(at, 10) || 0, steps.length - 1));
    layer = Math.min(parseInt(layer, 10) || 0, bank.att.cross.length - 1);
    const head = headOf(headLabel), st = steps[n];
    const which = head === null ? t("views.heads.mean") : t("views.heads.one", { head: head });
    const cross = weights(bank, "cross", layer, head)[n];
    const self = weights(bank, "decoder", layer, head)[n].slice(0, n + 1);
    const prefix = bank.tgt.slice(0, n + 1);
    const bars = st.top.map((_, i) => i);
    const layout = {
      xaxis: { domain: [0, 1], anchor: "y", tickmode: "array", tickvals: bars, ticktext: st.top },
      yaxis: { domain: [0.736, 1], anchor: "x", title: { text: t("views.axis.probability") }, range: [0, 1.18] },
      xaxis2: Object.assign(tokenAxis(ticks(bank, "src"), ""), { domain: [0, 1], anchor: "y2", tickangle: -45 }),
      yaxis2: { domain: [0.368, 0.536], anchor: "x2", showticklabels: false },
      xaxis3: Object.assign(tokenAxis(ticks(bank, "tgt").slice(0, n + 1), ""), { domain: [0, 1], anchor: "y3", tickangle: -45 }),
      yaxis3: { domain: [0, 0.168], anchor: "x3", showticklabels: false },
      annotations: [
        [t("views.step.bars", { step: n, top: st.top.length }), 1],
        [t("views.step.cross", { layer: layer, which: which }), 0.536],
        [t("views.step.self"), 0.168],
      ].map(([text, y]) => ({ text: text, x: 0.5, y: y, xref: "paper", yref: "paper", xanchor: "center", yanchor: "bottom",
        showarrow: false, font: { size: 16 } })),
    };
    const data = [
      { type: "bar", x: bars, y: st.p, marker: { color: bars.map((i) => (i === st.pick ? "#d62728" : "#1f77b4")) },
        text: st.p.map((p) => fixed(p, 3)), textposition: "outside", customdata: st.top,
        hovertemplate: "%{customdata}<br>p = %{y:.4f}<extra></extra>", showlegend: false, xaxis: "x", yaxis: "y" },
      { type: "heatmap", z: [cross], x: cross.map((_, i) => i), zmin: 0, zmax: 1, colorscale: BLUES, showscale: true,
        customdata: [bank.src.map(numbered)], colorbar: { title: { text: t("views.weight") }, len: 0.5, y: 0.3 },
        hovertemplate: t("views.hover.key", { key: "%{customdata}" }) + "<br>" + WEIGHT + "<extra></extra>", xaxis: "x2", yaxis: "y2" },
      { type: "heatmap", z: [self], x: self.map((_, i) => i), zmin: 0, zmax: 1, colorscale: BLUES, showscale: false,
        customdata: [prefix.map(numbered)],
        hovertemplate: t("views.hover.key", { key: "%{customdata}" }) + "<br>" + WEIGHT + "<extra></extra>", xaxis: "x3", yaxis: "y3" },
    ];
    if (st.pick < 0) {
      // sampling can choose a token outside the top-k bars: show it as its own red bar
      data[0].x.push(bars.length); data[0].y.push(st.chosen_p); data[0].marker.color.push("#d62728");
      data[0].text.push(fixed(st.chosen_p, 3)); data[0].customdata.push(t("views.step.chosen_outside", { token: st.chosen, top: bars.length }));
      layout.xaxis.tickvals = bars.concat([bars.length]); layout.xaxis.ticktext = st.top.concat([t("views.step.chosen", { token: st.chosen })]);
    }
    if (state.present) {  // the projector: the token words of the two strips at 18 px (24 px, slanted, ran into the
      // row below's title on a 1366x768 screen), and no probability axis title (the row's own title says it)
      layout.xaxis2.tickfont = { size: 18 };
      layout.xaxis3.tickfont = { size: 18 };
      layout.yaxis.title = { text: "" };
    }
    const words = prefix.join(" ");
    return plot(base({ data: data, layout: layout }, t("views.step.title", { step: n, words: words, token: st.chosen }) + " — " + caption(bank), 760, "step-plot",
      700));  // (on a 768 px projector at least 700 px: its three rows squeezed into 500 ran into each other, stop 7)
  }

  // The "not translated yet" line: compares the text box, the model and the decoding options that matter for the
  // chosen method with the request of what the views show.
  const OPTIONS = ["method", "beam_size", "length_penalty", "max_len", "temperature", "top_k", "top_p", "seed",
    "no_repeat_ngram_size", "repetition_penalty"];
  const REPEATS = ["no_repeat_ngram_size", "repetition_penalty"];  // matter for every method
  const MATTERS = { greedy: ["method", "max_len", ...REPEATS], beam: ["method", "beam_size", "length_penalty", "max_len",
    ...REPEATS], sample: ["method", "max_len", "temperature", "top_k", "top_p", "seed", ...REPEATS] };

  function changedOptions(req, values) {
    if (!req || !values.length) return [];
    const now = {};
    OPTIONS.forEach((k, i) => { now[k] = values[i]; });
    const same = (a, b) => (typeof a === "number" || typeof b === "number" ? Number(a) === Number(b) : String(a) === String(b));
    return (MATTERS[now.method] || OPTIONS).filter((k) => now[k] !== undefined && now[k] !== null && !same(now[k], req[k]));
  }

  function status(bank, text, model, ...options) {
    const going = inFlight(bank);
    if (!going) busy(false);
    return (AE.linkNote ? AE.linkNote() : "") + tooLong(text) + (going ? "<div class='ae-status ae-coming'>" +
      t("views.status.translating") + "</div>" : statusLine(bank, text, model, ...options));
  }
  // A Translate pressed on this sentence less than 4 s ago whose views have not come yet (helper 39: the typing's
  // own status, 99 ms after Enter, said "Not translated yet … press Translate" between "Translating…" and the
  // result); a failed one is said by its error, and the line is right again at the next change
  let pressed = null;  // {text, at}
  const norm = (s) => String(s || "").replace(/[\u0000-\u001f\u007f]/g, " ").replace(/\s+/g, " ").trim();
  // (the box as it is now, not ``text``: the typing's own status events, queued, come after Enter with a part of it)
  const pressedNow = () => !!pressed && Date.now() - pressed.at <= 4000 && norm(sentence()) === pressed.text;
  function inFlight(bank) {
    return pressedNow() && (!bank || norm(bank.text) !== pressed.text);
  }
  // ... and a line the typing computed before Enter, put on the page after it, says so too (Gradio sets a result's
  // value when it comes: the test found "Not translated yet" after "Translating…" one run in three)
  new MutationObserver(() => {
    if (!pressedNow()) return;
    document.querySelectorAll("#status .ae-changed").forEach((line) => {
      if (document.querySelector("#status .ae-busy")) { line.remove(); return; }
      line.className = "ae-status ae-coming"; line.textContent = t("views.status.translating");
    });
  }).observe(document.documentElement, { childList: true, subtree: true });

  // Translate pressed (its button, or Enter in the sentence box): the status line says so at once, until the views
  // are drawn again (status(), in the chain that follows a Translate, also after a failed one). It said "Not
  // translated yet ... press Translate" while the request ran, and the only sign of progress was on the German box,
  // at the foot of a laptop's first screen (helper 16).
  // (the sentence itself is said when its views come: "Every view below shows ...")
  function busy(on, text) {  // (text: the sentence pressed, where it is not yet in the box: an example)
    pressed = on ? { text: norm(text === undefined ? sentence() : text), at: Date.now() } : null;
    const box = document.getElementById("status");  // (its class, not <html>'s: that restyled the whole page twice)
    if (box) box.classList.toggle("ae-translating", on);
    document.querySelectorAll("#status .ae-busy").forEach((el) => el.remove());
    const line = on && document.querySelector("#status .ae-status");
    if (!line) return;
    const note = document.createElement("div");
    note.className = "ae-status ae-busy";
    note.textContent = t("views.status.translating");
    line.before(note);
  }
  const sentence = () => (document.querySelector("#sentence textarea") || {}).value || "";
  document.addEventListener("click", (e) => {
    if (e.target.closest && e.target.closest("#translate") && sentence().trim()) busy(true);
  }, true);
  document.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing && e.target.closest && e.target.closest("#sentence") &&
        sentence().trim()) busy(true);
  }, true);
  // an example pressed translates it too (helper 40: "Not translated yet … press Translate" was said first)
  document.addEventListener("click", (e) => {
    const example = e.target.closest && e.target.closest("#examples .gallery-item");
    if (!example || norm(example.textContent) === norm(sentence())) return;
    busy(true, example.textContent);
  }, true);

  // The text box holds at most AE_MAX_CHARS characters; the browser cuts a longer paste without a word: say so.
  function tooLong(text) {
    const max = window.AE_MAX_CHARS;
    if (!max || String(text || "").length < max) return "";
    return "<div class='ae-status ae-stale'>" + t("views.status.too_long", { max: max }) + "</div>";
  }

  // a decoding method as the status line names it ("greedy", "beam 4", "sample"); the value itself stays data
  function methodName(req) {
    const key = "views.method." + req.method, said = t(key, { n: req.beam_size });
    return said === key ? String(req.method) : said;
  }
  // a decoding option's name (a Request field: "beam_size")
  function optionName(k) {
    const key = "views.option." + k, said = t(key);
    return said === key ? k.replace("_", " ") : said;
  }

  function statusLine(bank, text, model, ...options) {
    if (!bank || !bank.text) return "<div class='ae-status ae-stale'>" + t("views.status.none") + "</div>";
    const req = bank.request ? JSON.parse(bank.request) : null;
    const shownModel = req ? req.model : model;
    const changed = changedOptions(req, options);
    const what = req ? methodName(req) : "";
    const shown = { text: foreign(bank.text_html, task(bank).source), model: esc(shownModel), method: esc(what) };
    if (norm(text) === norm(bank.text) && (!model || model === shownModel) && !changed.length) {
      // a translation flagged as maybe wrong: the line is rose, not the green of "all is well" (amber is "stale")
      const warn = bank.may_be_wrong && bank.may_be_wrong.flagged ? " ae-status-warn" : "";
      return "<div class='ae-status" + warn + "'>" + t("views.status.shows", shown) + leastSure(bank) + "</div>";
    }
    // a follower's page given the teacher's new sentence: it is being translated (a screen reader heard "Not
    // translated yet. You changed the sentence" at each of the teacher's sentences: issue 49)
    // (and a view of the sentence before, drawn meanwhile, does not say that sentence is shown: helper 39)
    const coming = AE.followedWithin && AE.followedWithin(4000) ? norm(AE.followedText()) : null;
    if (coming !== null && (norm(text) !== norm(bank.text) || (coming && coming !== norm(bank.text)))) {
      return "<div class='ae-status ae-coming'>" + t("views.status.translating") + "</div>";
    }
    const reasons = [];
    if (norm(text) !== norm(bank.text)) reasons.push(t("views.status.changed_sentence"));
    if (model && model !== shownModel) reasons.push(t("views.status.changed_model", { model: esc(model) }));
    if (changed.length) reasons.push(t("views.status.changed_options", { options: changed.map(optionName).join(", ") }));
    return "<div class='ae-status ae-stale ae-changed'>" + t("views.status.stale", Object.assign({ reasons: reasons.join(t("views.status.and")) }, shown)) +
      "</div>";
  }

  // The words the model chose with a low probability (the unsure shade of the output chips), named even when the
  // sentence as a whole is not flagged: a fluent translation can hide one guessed word. The server names them
  // (bank.unsure, least sure first: whole words by the warning's own rule, punctuation never; user-derived text,
  // escaped here).
  function leastSure(bank) {
    const weak = bank.unsure || [];
    const mbw = bank.may_be_wrong, flagged = mbw && mbw.flagged, lost = (flagged && mbw.missing) || [];
    // the source words the reverse model finds missing from the output (user text: escaped)
    const source = task(bank).source;
    // flagged for a word it seems to have lost, not by the whole sentence's probability: no "p likely" beside it
    const verdict = (flagged ? ((mbw.dropped || []).length ? t("views.status.may_be_wrong_dropped") : t("views.status.may_be_wrong", { p: AE.pct(mbw.p) })) : "") + (lost.length
      ? t("views.status.missing", { words: lost.map((w) => t("views.status.missing_word", { word: foreign(esc(w), source) })).join(", ") }) : "");
    if (!weak.length) return verdict;
    const target = task(bank).target;
    const named = weak.slice(0, 3).map((w) => t("views.status.unsure_word", { word: foreign(esc(w.word), target), p: fixed(w.p, 2) })).join(", ");
    return verdict + t(weak.length > 1 ? "views.status.unsure_many" : "views.status.unsure_one",
      { words: named, more: weak.length > 3 ? t("views.status.and_more") : "" });
  }

  function esc(s) {
    return String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
  }

  // Lazy parts: the server draws "inside" (a head's arithmetic) when its tab opens and "bertviz" when its panel
  // opens, once per analysis. Opening one clicks its hidden button (#ae-run-<name>), whose event reads the shown
  // request; nothing is asked on page load, nor when a part is reopened for the same analysis.
  const LAZY = ["inside", "bertviz"];
  const state = { tab: "attend", bertviz: false, done: {}, present: false };

  function run(name, shown) {
    if (!shown || state.done[name] === shown) return;
    // a link's (or a followed view's) other inputs are still to be set (links.js linkExtras): the part is run once
    // they are (linkRun), with them, not now with the values the page had (Inside a head's query token)
    const waited = Date.now() - ((AE.link && AE.link.extrasSince) || 0);
    if (name === "inside" && AE.link && AE.link.extrasPending && waited < 20000) {
      state.deferred = name;
      // and run then at the latest, if those inputs never come (their chain broken off: a restart mid-way), with
      // the analysis shown then, while the tab is still open
      setTimeout(() => {
        if (state.deferred !== name || state.tab !== name) return;
        state.deferred = null;
        AE.link.extrasPending = false;
        run(name, shown);  // (its event reads the shown request the page holds then)
      }, 20000 - waited + 50);
      return;
    }
    const button = document.getElementById("ae-run-" + name);
    if (!button) return;
    state.done[name] = shown;
    button.click();
  }

  function openTab(name, shown) {
    if (name === "bertviz") state.bertviz = true; else state.tab = name;
    if (LAZY.includes(name)) run(name, shown);
  }

  function closeTab(name) {
    if (name === "bertviz") state.bertviz = false;
  }

  function refreshOpen(shown) {
    // after a translation: redraw the open lazy tab (and the bertviz panel if open); the others wait until opened
    if (LAZY.includes(state.tab)) run(state.tab, shown);
    if (state.bertviz) run("bertviz", shown);
  }

  function download(file) {
    // a hidden gr.File received the export: hand it to the browser as a download, once
    if (!file || !file.url) return;
    const a = document.createElement("a");
    a.href = file.url; a.download = file.orig_name || "";
    document.body.appendChild(a); a.click(); a.remove();
  }

  // -- model-only and sentence figures of the Positional and Experiments tabs (viz/positional.py, viz/logit_lens.py)
  const RDBU = [[0, "rgb(103,0,31)"], [0.1, "rgb(178,24,43)"], [0.2, "rgb(214,96,77)"], [0.3, "rgb(244,165,130)"], [0.4, "rgb(253,219,199)"], [0.5, "rgb(247,247,247)"], [0.6, "rgb(209,229,240)"], [0.7, "rgb(146,197,222)"], [0.8, "rgb(67,147,195)"], [0.9, "rgb(33,102,172)"], [1, "rgb(5,48,97)"]];  // plotly.py's "RdBu"
  // Scales whose every shade holds black cell text at >= 4.5:1 (WCAG 1.4.3): Viridis from its middle on, plotly's Greens
  // to three quarters. Plotly colours a heatmap's text by the cell's brightness (#444 or white), which left 9 of 81
  // cell texts under 4.5:1 (3.13:1 in the head statistics, 3.45:1 in the lens: issue 49); black on these is >= 4.7:1
  const VIRIDIS_LIGHT = [[0, "rgb(38,131,142)"], [0.125, "rgb(33,149,139)"], [0.25, "rgb(37,165,132)"], [0.375, "rgb(51,181,122)"], [0.5, "rgb(83,195,104)"], [0.625, "rgb(120,208,82)"], [0.75, "rgb(164,218,54)"], [0.875, "rgb(208,225,41)"], [1, "rgb(253,231,37)"]];
  const GREENS_LIGHT = [[0, "rgb(247,252,245)"], [0.125, "rgb(234,247,229)"], [0.25, "rgb(214,239,208)"], [0.375, "rgb(190,229,183)"], [0.5, "rgb(161,217,155)"], [0.625, "rgb(127,201,127)"], [0.75, "rgb(90,184,106)"], [0.875, "rgb(57,163,87)"], [1, "rgb(35,139,69)"]];
  // each wave its own dash too: colour is never the only cue (two of COLOURS look alike to many colour-blind students)
  const DASHES = ["solid", "dash", "dot", "dashdot", "longdash", "longdashdot"];
  const COLOURS = ["#636efa", "#EF553B", "#00cc96", "#ab63fa", "#FFA15A", "#19d3f3", "#FF6692", "#B6E880", "#FF97FF", "#FECB52"];

  function message(text) {
    // a figure that only says something (a bad control value): ordinary axes, so the next figure redraws cleanly
    const blank = { range: [0, 1], showgrid: false, zeroline: false, showticklabels: false };
    return plot(base({ data: [{ type: "scatter", x: [0.5], y: [0.5], mode: "markers", marker: { opacity: 0 }, hoverinfo: "skip" }],
      layout: { xaxis: blank, yaxis: Object.assign({}, blank) } }, esc(text), 420));
  }

  // The model's PE rows 0..n-1: the paper's sinusoids computed here exactly as model/layers.py sinusoidal_table
  // does (PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(...)); a learned table came with the page.
  function peRows(info, n) {
    if (info.kind === "learned") return ((window.AE_PE_TABLES || {})[info.model] || []).slice(0, n);
    const d = info.d_model, rows = [];
    for (let p = 0; p < n; p++) {
      const row = new Array(d);
      for (let i = 0; i < d; i += 2) {
        const angle = p / Math.pow(10000, i / d);
        row[i] = Math.sin(angle);
        if (i + 1 < d) row[i + 1] = Math.cos(angle);
      }
      rows.push(row);
    }
    return rows;
  }

  // the Positions slider and the Dimensions box, checked as explorer/api/handlers.py pe_settings checks them
  function peSettings(info, length, dims) {
    const n = Number(length), d = info.d_model;
    if (!Number.isInteger(n) || n < 2 || n > info.max_len) return { error: t("views.pe.bad_positions", { max: info.max_len }) };
    const text = String(dims === null || dims === undefined ? "" : dims).replace(/,/g, " ").trim();
    const parts = text ? text.split(/\s+/) : ["0", "1", "10", "11"];
    if (parts.some((x) => !/^[+-]?\d+$/.test(x))) return { error: t("views.pe.bad_dims") };
    const chosen = parts.map(Number);
    if (chosen.length > 12 || chosen.some((x) => x < 0 || x >= d)) return { error: t("views.pe.dims_range", { max: d - 1 }) };
    return { n: n, dims: chosen };
  }

  // [PE matrix, chosen dimensions as waves, similarity of positions]: they depend on the model and the two
  // controls only, so a new translation with the same model gets the same figures back without recomputing
  let peKey = null, peFigures = null;
  function positional(bank, length, dims) {
    if (!bank || !bank.pe) return [empty(), empty(), empty()];
    const key = JSON.stringify([bank.pe, length, dims, state.present, narrow()]);
    if (key !== peKey) { peFigures = positionalFigures(bank, length, dims); peKey = key; }
    return peFigures;
  }

  function positionalFigures(bank, length, dims) {
    const info = bank.pe, s = peSettings(info, length, dims);
    if (s.error) return [message(s.error), message(s.error), message(s.error)];
    const rows = peRows(info, s.n), d = info.d_model, model = " — " + t("views.pe.model", { model: esc(info.model) });
    const formula = info.kind === "learned" ? t("views.pe.learned") : "PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(...)";
    const table = base({
      data: [{ type: "heatmap", z: rows, colorscale: RDBU, zmid: 0, colorbar: { title: { text: t("views.pe.value") } },
        hovertemplate: t("views.pe.hover_table", { position: "%{y}", dim: "%{x}" }) + "<br>PE = %{z:.4f}<extra></extra>" }],
      layout: { xaxis: { title: { text: t("views.pe.axis_dim") } }, yaxis: { title: { text: t("views.pe.axis_position_index") }, autorange: "reversed" } },
    }, t("views.pe.title_table", { formula: formula, n: s.n, d: d }) + model, 520, "pe-table");
    const pos = [...Array(s.n).keys()];
    const waves = base({
      data: s.dims.map((k, i) => ({ type: "scatter", mode: "lines", x: pos, y: rows.map((r) => r[k]), line: { color: COLOURS[i % COLOURS.length], dash: DASHES[i % DASHES.length] },
        name: t("views.pe.wave", { dim: k, fn: k % 2 === 0 ? "sin" : "cos" }),
        hovertemplate: t("views.pe.hover_wave", { dim: k, position: "%{x}", value: "%{y:.4f}" }) + "<extra></extra>" })),
      layout: { xaxis: { title: { text: t("views.pe.axis_position") } }, yaxis: Object.assign({ title: { text: t("views.pe.axis_value") } }, info.kind === "learned" ? {} : { range: [-1.1, 1.1] }) },
    }, t("views.pe.title_waves") + model, 420);
    const sim = rows.map((a) => rows.map((b) => { let dot = 0; for (let k = 0; k < d; k++) dot += a[k] * b[k]; return dot; }));  // (n, d) x (d, n)
    const similarity = base({
      data: [{ type: "heatmap", z: sim, colorscale: "Viridis", colorbar: { title: { text: t("views.pe.dot") } },
        hovertemplate: t("views.pe.hover_similarity", { p: "%{y}", q: "%{x}", dot: "%{z:.3f}" }) + "<extra></extra>" }],
      layout: { xaxis: { title: { text: t("views.pe.axis_q") } }, yaxis: { title: { text: t("views.pe.axis_p") }, autorange: "reversed" } },
    }, t("views.pe.title_similarity") + model, 520);
    return [plot(table), plot(waves), plot(similarity)];
  }

  // the user's sentence: |token embedding x sqrt(d_model)| next to |PE row added to it|
  function peSentence(bank) {
    if (!bank || !bank.pe_sentence) return empty();
    const s = bank.pe_sentence, x = bank.src.map((_, i) => i), hov = bank.src.map(numbered);
    const fig = {
      data: [
        { type: "bar", x: x, y: s.emb, name: t("views.pe.emb_bar"), customdata: hov, marker: { color: COLOURS[0] },
          hovertemplate: "%{customdata}<br>" + t("views.pe.emb_hover", { v: "%{y:.3f}" }) + "<extra></extra>" },
        { type: "bar", x: x, y: s.pe, name: t("views.pe.pe_bar"), customdata: hov, marker: { color: COLOURS[1] },
          hovertemplate: "%{customdata}<br>|PE| = %{y:.3f}<extra></extra>" },
      ],
      layout: { barmode: "group", legend: { orientation: "h", y: 1.02, yanchor: "bottom", x: 0 },
        xaxis: Object.assign(tokenAxis(ticks(bank, "src"), t("views.axis.source_token")), { tickangle: -45 }), yaxis: { title: { text: t("views.pe.norm") } } },
    };
    const out = base(fig, t("views.pe.title_sentence") + " — " + caption(bank), 440);
    // a phone's title takes more lines: its legend, above the bars on two lines there, gets room (it lay over the sentence)
    if (narrow() && !state.present) out.layout.margin = Object.assign({}, out.layout.margin, { t: (out.layout.margin.t || 92) + 62 });
    return plot(out);
  }

  // On the projector a cell's word as large as its column holds, up to 20 px (~0.6 of the size a character; the
  // plot's width is the tab's, less ~300 px of axis title, labels and colour bar): wider words ran into each other,
  // so where they would be under 18 px the lens turns on its side (a column per layer) as on a phone
  function cellFont(words, columns) {
    const width = tabsWidth();
    const longest = Math.max(1, ...words.flat().map((w) => String(w).length));
    return Math.max(10, Math.min(20, Math.floor((width - 300) / columns / (0.6 * longest + 0.5))));
  }

  // Logit lens: the output projection after every decoder layer; cell = top next token and its probability. On a
  // phone it is turned on its side (a row per position, a column per layer: words of ~11 positions side by side
  // would run into each other at 390 px); on the projector its words are large (on its side too, where the screen
  // is too narrow for them).
  function lens(bank) {
    if (!bank || !bank.lens) return empty();
    const L = bank.lens.p.length, T = bank.tgt.length;
    const side = state.present ? cellFont(bank.lens.words, T) < 18 : narrow();  // on its side where words would not fit
    const hov = bank.lens.words.map((row, l) => row.map((w, i) => t("views.lens.hover", { layer: l, position: i, token: bank.tgt[i], top: w })));
    const flip = (m) => m[0].map((_, i) => m.map((row) => row[i]));  // [L][T] -> [T][L]
    const layers = { tickmode: "array", tickvals: [...Array(L).keys()], ticktext: [...Array(L).keys()].map((l) => t("views.lens.after", { layer: l })),
      title: { text: t("views.lens.axis_y") } };
    // (each position named with its number in the text alternative, as the lesson's stop 8 asks: "at position 3")
    const positions = Object.assign(tokenAxis(ticks(bank, "tgt"), t("views.lens.axis_x")), { aeWords: bank.tgt.map(numbered) });
    const fig = {
      data: [{ type: "heatmap", z: side ? flip(bank.lens.p) : bank.lens.p, x: [...Array(side ? L : T).keys()], y: [...Array(side ? T : L).keys()],
        zmin: 0, zmax: 1, colorscale: GREENS_LIGHT, text: side ? flip(bank.lens.words) : bank.lens.words, texttemplate: "%{text}",
        textfont: { color: "#000", size: state.present ? (side ? 20 : cellFont(bank.lens.words, T)) : side ? 12 : 10 }, customdata: side ? flip(hov) : hov, colorbar: { title: { text: "p(top)" } },
        hovertemplate: "%{customdata}<br>p = %{z:.3f}<extra></extra>" }],
      // (on its side the rows' title is short: turned upright beside 10 rows the long one ran into the figure's title)
      layout: side ? { xaxis: layers, yaxis: Object.assign(positions, { autorange: "reversed", title: { text: t("views.lens.rows") } }) } : {
        xaxis: Object.assign(positions, { tickangle: -45 }), yaxis: Object.assign(layers, { autorange: "reversed" }) },
    };
    return plot(base(fig, t("views.lens.title") + " — " + caption(bank), side ? 150 + 34 * T : 200 + 70 * L,
      side && state.present ? "screen" : undefined));  // (on its side on the projector: a screen's height, not 1.7x)
  }

  // The server's figures (beam tree, comparison, attribution, patching, what-if, inside a head, training) on a
  // phone: the same title and margin rules as the browser's own (forPhone), applied once to each figure as it is
  // drawn (Plotly.relayout changes its layout in place, so a figure is never adjusted twice).
  function phoneServerFigures() {
    if (!narrow() || !window.MutationObserver) return;
    const adjust = () => document.querySelectorAll(".js-plotly-plot").forEach((el) => {
      if (!el.layout || el.__aePhone === el.layout || state.present || !window.Plotly) return;
      el.__aePhone = el.layout;
      if ((el.layout.meta || {}).aePhone) return;  // one of this page's own, made for a phone (forPhone)
      const t = el.layout.title || {}, text = typeof t === "string" ? t : t.text || "";
      try {
        const update = { "title.text": String(text).replace(" — ", "<br>").split("<br>").map((line) =>
          (line.startsWith("<sup>") ? line : wrapLine(line, 46))).join("<br>"), "title.font.size": 13,
          "margin.l": Math.min((el.layout.margin || {}).l || 80, 50), "margin.r": Math.min((el.layout.margin || {}).r || 30, 10) };
        (el.layout.annotations || []).forEach((a, i) => { update["annotations[" + i + "].font.size"] = 9; });
        Object.keys(el.layout).filter((k) => k.startsWith("coloraxis")).forEach((k) => { update[k + ".colorbar.thickness"] = 8; });
        window.Plotly.relayout(el, update);
      } catch (e) { /* a figure not drawn yet: the next mutation tries again */ el.__aePhone = null; }
    });
    new MutationObserver(adjust).observe(document.body, { childList: true, subtree: true });
  }
  // a plotly label (HTML: <i>, <br>, <sup>, escaped entities) as plain text, parsed in an inert document (a line
  // break is a space: sight.js breaks long titles mid-phrase, where " · " read "head · 0": helper 17); the figures'
  // names and text alternatives (figures.js, the offline bundle's page)
  function plainText(s) {
    const html = String(s === null || s === undefined ? "" : s).replace(/<br\s*\/?>/gi, " ");
    return new DOMParser().parseFromString("<body>" + html + "</body>", "text/html").body.textContent
      .replace(/\s+/g, " ").trim();
  }
  // On a touch screen a figure takes no drag and shows no toolbar: plotly's drag took a swipe over a figure and zoomed
  // it, the page stayed where it was (a phone's student could not scroll past a heatmap), and the toolbar sat over
  // the title; a tap still shows a cell's numbers. Both pages draw through it (draw_once.js, the offline bundle's).
  function forTouch(layout, config) {
    const touch = !!(window.matchMedia && window.matchMedia("(pointer: coarse)").matches);
    if (!touch) return [layout, config];
    // (nor the axes' ends: a tap or a swipe beside a model view's row labels opened plotly's box for typing an axis's
    // range, focused, so a phone's keyboard came up and the page moved to it: helper 76)
    return [Object.assign({}, layout, { dragmode: false }),
            Object.assign({}, config, { displayModeBar: false, showAxisDragHandles: false, showAxisRangeEntryBoxes: false })];
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", phoneServerFigures);
  else phoneServerFigures();

  window.AE = Object.assign(window.AE || {}, { heatmap: fromBank(heatmap), modelView: fromBank(modelView), stats: fromBank(stats), step: fromBank(step),
    status: fromBank(status), positional: fromBank(positional), peSentence: fromBank(peSentence), lens: fromBank(lens),
    download, openTab, closeTab, refreshOpen, kindOf, headOf, state, parsed, esc, current: () => lastBank, taskName, langOf, fixed, weights, forTouch, plainText });
})();
