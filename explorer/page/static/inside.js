// Inside a head drawn in the browser: where this browser's own model made the translation shown (local.js), the
// numbers of one query of one head come from it (transformer.js inside) and the figure is built here, the same figure
// as the server's (viz/head.py inside_head, titled by explorer/api/handlers.py), so that the tab and its controls ask
// the server nothing. Anything else (the server's translation, a follower's, the worker busy or gone) goes to the
// server as before: the functions below give nothing and press the hidden #ae-server-inside.
// The page's catalogue holds the server's words too (AE.t: "server.viz.inside." keys), numbers as the page writes them.
(function () {
  const AE = window.AE;
  const t = AE.t;
  const SKIP = { __type__: "update" };
  // plotly.py's "RdBu" written out (plotly.js names another scale so): viz/style.py DIVERGING_SCALE
  const RDBU = [[0, "rgb(103,0,31)"], [0.1, "rgb(178,24,43)"], [0.2, "rgb(214,96,77)"], [0.3, "rgb(244,165,130)"],
    [0.4, "rgb(253,219,199)"], [0.5, "rgb(247,247,247)"], [0.6, "rgb(209,229,240)"], [0.7, "rgb(146,197,222)"],
    [0.8, "rgb(67,147,195)"], [0.9, "rgb(33,102,172)"], [1, "rgb(5,48,97)"]];
  const MASKED = "#c8c8c8";  // viz/style.py MASKED
  const FONT = { family: "Inter, Helvetica, Arial, sans-serif", size: 12 };
  const AXIS = { automargin: true, gridcolor: "#EBF0F8", linecolor: "#EBF0F8", ticks: "", title: { standoff: 15 },
    zerolinecolor: "#EBF0F8", zerolinewidth: 2 };
  const LEAN_WHITE = { layout: { font: { color: "#2a3f5f" }, paper_bgcolor: "white", plot_bgcolor: "white",
    hovermode: "closest", hoverlabel: { align: "left" }, xaxis: AXIS, yaxis: AXIS } };
  // make_subplots(rows=3, cols=2, ...) as plain domains, as viz/head.py lays them out
  const COLS = [[0.0, 0.43], [0.57, 1.0]], ROWS = [[0.835, 1.0], [0.401, 0.665], [0.0, 0.231]], ROW_PX = 140;
  const axisId = (i) => (i === 0 ? "" : String(i + 1));
  // numbers to 4 significant digits, as the server sends its figures (viz/compact.py)
  const sig = (x) => (x === 0 || !isFinite(x) ? x : Number(x.toPrecision(4)));
  const sigs = (a) => a.map((x) => (Array.isArray(x) ? sigs(x) : sig(x)));

  // the query choices of an attention: "3: Hund", as handlers.query_choices (plain text: the page's copy escapes)
  function choices(bank, kind) {
    const plain = (s) => new DOMParser().parseFromString("<body>" + s + "</body>", "text/html").body.textContent;
    return (kind === "encoder" ? bank.src : bank.tgt).map((w, i) => i + ": " + plain(w));
  }
  // viz/style.py token_axis over the page copy's escaped labels, special pieces in italics
  function tokenAxis(bank, which, title) {
    const special = new Set(bank[which + "_special"] || []), n = bank[which].length;
    return { title: { text: title }, tickmode: "array", tickvals: [...Array(n).keys()],
      ticktext: bank[which].map((w, i) => (special.has(i) ? "<i>" + w + "</i>" : w)),
      tickfont: { size: n <= 20 ? 12 : n <= 32 ? 10 : 8 }, showgrid: false, zeroline: false };
  }

  // viz/head.py inside_head from the numbers ``a`` (transformer.js inside), with the sentence in its title
  function figure(bank, a, kind, layer, head, query) {
    const keysOf = kind === "decoder" ? "tgt" : "src";
    const queriesOf = kind === "encoder" ? "src" : "tgt";
    const dk = a.q.length, dims = [...Array(dk).keys()], keys = [...Array(bank[keysOf].length).keys()];
    const titles = [t("server.viz.inside.q", { n: dk }), t("server.viz.inside.k"), t("server.viz.inside.scores"),
      t("server.viz.inside.softmax"), t("server.viz.inside.v"), t("server.viz.inside.output")];
    const key = t("server.viz.inside.key"), maskedText = t("server.viz.masked_hover"), maskedWord = t("server.viz.inside.masked");
    const hoverK = bank[keysOf].map((w, j) => w + " (#" + j + ")");
    const perCell = hoverK.map((h) => Array(dk).fill(h));  // (Tk, dk) hover labels
    const heat = { type: "heatmap", colorscale: RDBU, zmid: 0, showscale: false };
    const m = a.masked, open = a.raw.filter((_, j) => !m[j]).map(Math.abs);
    const tallestScore = open.length ? Math.max(...open) : 1, tallestWeight = Math.max(...a.weights) || 1;
    const hatch = { shape: m.map((x) => (x ? "/" : "")), fgcolor: "#7f7f7f" };
    const marked = m.map((x) => (x ? maskedWord : ""));
    const num = (x) => AE.num(x, 4);
    const data = [
      Object.assign({}, heat, { z: [sigs(a.q)], x: dims, hovertemplate: "q[%{x}] = %{z:.4f}<extra></extra>" }),
      Object.assign({}, heat, { z: sigs(a.k), x: dims, y: keys, customdata: perCell,
        hovertemplate: key + " %{customdata}<br>k[%{x}] = %{z:.4f}<extra></extra>" }),
      { type: "bar", x: keys, y: sigs(a.raw.map((r, j) => (m[j] ? tallestScore : r))),
        marker: { color: m.map((x) => (x ? MASKED : "#1f77b4")), pattern: hatch }, text: marked,
        hovertext: hoverK.map((h, j) => key + " " + h + "<br>" + (m[j] ? maskedText : "q·k/√d_k = " + num(a.raw[j]))),
        hovertemplate: "%{hovertext}<extra></extra>" },
      { type: "bar", x: keys, y: sigs(a.weights.map((w, j) => (m[j] ? tallestWeight : w))),
        marker: { color: m.map((x) => (x ? MASKED : "#2ca02c")), pattern: hatch }, text: marked,
        hovertext: hoverK.map((h, j) => key + " " + h + "<br>" + (m[j] ? maskedText : t("server.viz.weight") + " = " + num(a.weights[j]))),
        hovertemplate: "%{hovertext}<extra></extra>" },
      Object.assign({}, heat, { z: sigs(a.v), x: dims, y: keys, customdata: perCell,
        hovertemplate: key + " %{customdata}<br>v[%{x}] = %{z:.4f}<extra></extra>" }),
      Object.assign({}, heat, { z: [sigs(a.output)], x: dims, hovertemplate: "output[%{x}] = %{z:.4f}<extra></extra>" }),
    ];
    const layout = { annotations: [], showlegend: false };
    const dimension = { title: { text: t("server.viz.inside.dimension") } }, keyToken = t("server.viz.inside.key_token");
    const keyRows = Object.assign(tokenAxis(bank, keysOf, keyToken), { autorange: "reversed" });
    // the K and V panels' rows: where a row is under 13 px only every k-th word is written (the text alternative,
    // figures.js, reads them all from meta)
    const every = Math.ceil(13 * keys.length / ROW_PX), words = keyRows.ticktext.slice();
    if (every > 1) {
      keyRows.ticktext = words.map((w, j) => (j % every === 0 ? w : ""));
      keyRows.tickfont = { size: 11 };
    }
    const slanted = () => Object.assign(tokenAxis(bank, keysOf, keyToken), { tickangle: -45 });
    const axes = [[dimension, { showticklabels: false }], [dimension, keyRows],
      [slanted(), { title: { text: t("server.viz.inside.score") } }], [slanted(), { title: { text: t("server.viz.weight") } }],
      [dimension, keyRows], [dimension, { showticklabels: false }]];
    data.forEach((trace, i) => {
      const [x0, x1] = COLS[i % 2], [y0, y1] = ROWS[Math.floor(i / 2)], id = axisId(i);
      trace.xaxis = "x" + id;
      trace.yaxis = "y" + id;
      layout["xaxis" + id] = Object.assign({}, axes[i][0], { domain: [x0, x1], anchor: "y" + id });
      layout["yaxis" + id] = Object.assign({}, axes[i][1], { domain: [y0, y1], anchor: "x" + id });
      layout.annotations.push({ text: titles[i], x: (x0 + x1) / 2, y: y1, xref: "paper", yref: "paper", xanchor: "center",
        yanchor: "bottom", showarrow: false, font: { size: 12 } });
    });
    const token = t("server.quoted", { text: bank[queriesOf][query] });
    const title = t("server.viz.inside.title", { kind: t("server.viz.inside.kind." + kind), layer, head, query, token }) +
      " — " + t("server.quoted", { text: bank.title_html });
    const decimal = t("_meta.decimal");
    Object.assign(layout, { title: { text: title, x: 0.01, xanchor: "left" }, font: FONT, template: LEAN_WHITE,
      margin: { l: 80, r: 30, t: 70, b: 80 }, height: 1000, autosize: true, meta: { export_width: 1100 } },
      decimal === "." ? {} : { separators: decimal + "." });
    if (every > 1) layout.meta.aeWords = { yaxis2: words, yaxis5: words };
    return { type: "plotly", plot: JSON.stringify({ data, layout }) };
  }

  // the controls' values as the server reads them (handlers.inside_head), or null where the server should say
  function values(bank, kindLabel, layer, headLabel, query) {
    const kind = AE.kindOf(kindLabel), head = AE.headOf(headLabel);  // (views.js; the mean: head 0, as the server)
    if (!bank || !bank.att || !bank.att[kind]) return null;
    const L = Number(layer), h = head === null ? 0 : head;
    const n = (kind === "encoder" ? bank.src : bank.tgt).length, q = Number(String(query).split(":")[0]);
    if (!Number.isInteger(L) || L < 0 || L >= bank.att[kind].length || !Number.isInteger(h) || h < 0 || h >= bank.heads) return null;
    return { kind, layer: L, head: h, query: Number.isInteger(q) && q >= 0 && q < n ? q : null };
  }

  // what each press decided: "browser" (drawn here) or "server" (after() presses the server's button)
  const decided = [];
  async function draw(tab, shown, kindLabel, layer, head, query, bankText) {
    const server = () => { decided.push("server"); return tab ? [SKIP, SKIP] : SKIP; };
    try {
      const bank = AE.parsed(bankText), v = values(bank, kindLabel, layer, head, query);
      if (!v || !bank || shown !== bank.request) return server();
      const list = choices(bank, v.kind);
      // opening the tab: the query kept where it is one of this attention's, else the second (handlers.inside_tab)
      const q = v.query !== null ? v.query : tab ? Math.min(1, list.length - 1) : null;
      if (q === null) return server();
      const a = await AE.local.inside(shown, v.kind, v.layer, v.head, q);
      if (!a) return server();
      decided.push("browser");
      const fig = figure(bank, a, v.kind, v.layer, v.head, q);
      if (!tab) return fig;
      // (a query that is one of the choices is left as it is, as the server leaves it)
      const pairs = list.map((c) => [c, c]);
      return [list.includes(query) ? { __type__: "update", choices: pairs } : { __type__: "update", choices: pairs, value: list[q] }, fig];
    } catch (e) {
      return server();
    }
  }
  function after() {
    if ((decided.shift() || "server") !== "server") return;
    const button = document.getElementById("ae-server-inside");
    if (button) button.click();
  }
  // (figure and choices: also the offline bundle's, explorer/offline/static/offline.js)
  AE.inside = { tab: (...v) => draw(true, ...v), view: (...v) => draw(false, ...v), after, figure, choices };
})();
