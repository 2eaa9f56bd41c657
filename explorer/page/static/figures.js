// Every figure says what it shows without sight or a mouse: an accessible name (its title: view, layer, head,
// sentence), a one- or two-sentence summary computed from its own numbers (a heatmap: where each row's weight mostly
// goes; bars: the largest and the runner-up; lines: where each is highest and lowest), and "Show as table", a real
// <table> with row and column headers. The same for the views the browser draws (views.js) and the server's figures:
// both are plotly figures, read from the drawn plot's own data (el.data, el.layout). a11y.js calls describe() after
// every change of the page. Text from a figure (tokens the student typed) is only ever set as textContent.
// Words from the page's catalogue (AE.t: "views.fig." keys), numbers with the page's decimal mark.
(function () {
  const AE = window.AE;
  const t = AE.t, DECIMAL = t("_meta.decimal");
  const fixed = (v, d) => v.toFixed(d).replace(".", DECIMAL);
  const seen = new WeakMap();  // plot -> the data it was described from
  let made = 0;
  // text alternatives built, by the figure's block id: once per drawing (tests/test_page_work.py counts them)
  const built = {};

  const plain = AE.plainText;  // (views.js)
  const num = (v) => (typeof v === "number" && isFinite(v) ? (Math.abs(v) >= 100 ? fixed(v, 0) : Math.abs(v) >= 10 ? fixed(v, 1) :
    fixed(v, Math.abs(v) < 0.01 && v !== 0 ? 4 : 2)) : v === null || v === undefined ? "–" : plain(v));

  // the labels of one axis of a trace: its tick texts where the axis names its ticks, else the trace's own values
  function axisLabels(el, trace, letter, n) {
    const name = letter + "axis" + (trace[letter + "axis"] || letter).slice(1), axis = (el.layout || {})[name] || {};
    const values = trace[letter] || [...Array(n).keys()];
    // (a small panel whose axis writes only some words keeps them all: views.js on the axis, the server in meta)
    const said = axis.aeWords || (((el.layout || {}).meta || {}).aeWords || {})[name] || axis.ticktext;
    const texts = said && axis.tickvals ? new Map(axis.tickvals.map((v, i) => [v, said[i]])) : null;
    return values.slice(0, n).map((v) => plain(texts && texts.has(v) ? texts.get(v) : v));
  }
  // an axis's title; a panel's axis without one takes that of another panel's axis of the same letter (the model
  // view names only its first panel's: its tables were headed "y \ x")
  const titleOf = (axis) => plain(axis && axis.title && (typeof axis.title === "string" ? axis.title : axis.title.text));
  const axisTitle = (el, trace, letter) => {
    const L = el.layout || {}, ref = trace[letter + "axis"] || letter, axis = L[letter + "axis" + ref.slice(1)] || {};
    const other = Object.keys(L).filter((k) => new RegExp("^" + letter + "axis\\d*$").test(k)).map((k) => titleOf(L[k])).find(Boolean);
    return titleOf(axis) || other || letter;
  };

  // the grey cells over the causal mask (views.js marks its trace with meta "ae-mask"; the server's say "masked out")
  const isMask = (tr) => tr.meta === "ae-mask" || /masked out/.test(tr.hovertemplate || "");
  function heatmaps(el) {
    return (el.data || []).filter((t) => t.type === "heatmap" && Array.isArray(t.z) && Array.isArray(t.z[0]) && !isMask(t));
  }
  // each panel's name: its trace's own (the model view's "layer 0, head 1", where its note says "L0 H1"), else the
  // note standing on top of its axes (a subplot's title), else "panel n" (the notes in order named Inside a head's V
  // panel by the scores' title: bars have notes of their own)
  function panelOf(el, tr) {
    const L = el.layout || {}, x = L["xaxis" + (tr.xaxis || "x").slice(1)] || {}, y = L["yaxis" + (tr.yaxis || "y").slice(1)] || {};
    const [x0, x1] = x.domain || [0, 1], top = (y.domain || [0, 1])[1];
    const note = (L.annotations || []).find((a) => a.xref === "paper" && a.yref === "paper" && typeof a.x === "number" &&
      a.x >= x0 - 0.01 && a.x <= x1 + 0.01 && Math.abs(a.y - top) < 0.03);
    return plain(tr.name) || (note ? plain(note.text) : "");
  }
  function panelNames(el, maps) {
    return maps.map((tr, i) => (maps.length > 1 ? panelOf(el, tr) || t("views.fig.panel", { n: i + 1 }) : ""));
  }

  function title(el) {
    const t = (el.layout || {}).title, text = plain(t && (typeof t === "string" ? t : t.text));
    if (text) return text;
    const block = el.closest(".block"), label = block && block.querySelector("[data-testid='block-label']");
    return label ? plain(label.textContent) : t("views.fig.figure");
  }

  // a heatmap's row labels; a row that is a decoder position also names the word the model chose there (its trace's
  // meta.aeNext, from views.js): the lesson asks about "the row where the model chose …", and the row's label is the
  // word before it (the decoder's input)
  function rowLabels(el, tr) {
    const rows = axisLabels(el, tr, "y", tr.z.length), next = (tr.meta && tr.meta.aeNext) || [];
    return rows.map((r, i) => (next[i] === undefined ? r : t("views.fig.choosing", { token: r, next: plain(next[i]) })));
  }

  const largestIn = (row) => {
    let j = -1;
    row.forEach((v, k) => { if (typeof v === "number" && (j < 0 || v > row[j])) j = k; });
    return j;
  };

  // -- the summary ---------------------------------------------------------------------------------------------
  // one heatmap: every row's largest value, each row named; several (the model view, a step's strips, Inside a
  // head): a line for each panel, in the panel's own words (one overall largest value was always panel 2's 1.00 at
  // step 0: issue 49)
  function panelLine(el, tr, name) {
    const cols = axisLabels(el, tr, "x", tr.z[0].length);
    if (tr.z.length === 1) {  // a strip (a step's attention): where it looks most
      const j = largestIn(tr.z[0]);
      return j < 0 ? t("views.fig.panel_empty", { panel: name }) : t("views.fig.panel_strip", { panel: name, col: cols[j], v: num(tr.z[0][j]) });
    }
    const rows = rowLabels(el, tr), sums = cols.map(() => 0), counts = cols.map(() => 0);
    let best = null, least = null;
    tr.z.forEach((row, i) => row.forEach((v, j) => {
      if (typeof v !== "number") return;
      sums[j] += v; counts[j] += 1;
      if (!best || v > best.v) best = { v, i, j };
      if (!least || v < least.v) least = { v, i, j };
    }));
    if (!best) return t("views.fig.panel_empty", { panel: name });
    // values of both signs (a difference, heads off minus intact; Inside a head's k and v): nothing changed, or the
    // largest and the smallest (helper 37: "largest in column The (0.00)" where every value was 0, no word of a fall)
    if (least.v < 0) {
      if (Math.max(best.v, -least.v) < 0.0005) return t("views.fig.panel_flat", { panel: name });
      return t("views.fig.panel_change", { panel: name, up: num(best.v), up_row: rows[best.i], up_col: cols[best.j],
        down: num(least.v), down_row: rows[least.i], down_col: cols[least.j] });
    }
    if (best.v < 0.0005) return t("views.fig.panel_flat", { panel: name });
    const means = sums.map((s, j) => (counts[j] ? s / tr.z.length : -1)), m = largestIn(means);
    return t("views.fig.panel_map", { panel: name, col: cols[m], mean: num(means[m]), v: num(best.v), row: rows[best.i], at: cols[best.j] });
  }

  function heatmapSummary(el, maps) {
    if (maps.length > 1) {
      const names = panelNames(el, maps);
      return t("views.fig.maps", { n: maps.length }) + "\n" + maps.map((tr, p) => panelLine(el, tr, names[p])).join("\n");
    }
    const tr = maps[0], rows = rowLabels(el, tr), cols = axisLabels(el, tr, "x", tr.z[0].length);
    if (words(tr)) {  // a word in each cell (the logit lens: the top word after each layer at each position): all of them
      const list = tr.z.map((row, i) => rows[i] + ": " + row.map((v, j) => cols[j] + " → " + plain(tr.text[i][j]) +
        " (" + num(v) + ")").join(", ")).join("; ");
      return t("views.fig.map_words", { rows: axisTitle(el, tr, "y"), cols: axisTitle(el, tr, "x"), list }) + ".";
    }
    // every row (a long sentence's too: the summary stopped at 12, and stop 6 may ask about a later row)
    const most = tr.z.map((row, i) => {
      const j = largestIn(row);
      return j < 0 ? null : rows[i] + " → " + cols[j] + " (" + num(row[j]) + ")";
    }).filter(Boolean);
    return t("views.fig.map", { rows: axisTitle(el, tr, "y"), cols: axisTitle(el, tr, "x"), list: most.join("; ") }) + ".";
  }

  // a heatmap whose cells each carry a word (its text, row by row, as its values)
  const words = (tr) => Array.isArray(tr.text) && tr.text.length === tr.z.length && Array.isArray(tr.text[0]) &&
    tr.text[0].length === tr.z[0].length;

  // the traces that hold values (not a heatmap, not lines drawn only to connect others: no hover, no value)
  const series = (el) => (el.data || []).filter((t) => t.type !== "heatmap" && t.hoverinfo !== "skip" &&
    (Array.isArray(t.x) || Array.isArray(t.y)));
  const labelled = (t) => /text/.test(t.mode || "") && Array.isArray(t.text) && t.type !== "bar";

  function seriesSummary(el) {
    const traces = series(el);
    const parts = traces.slice(0, 5).map((tr) => {
      const h = tr.orientation === "h", values = (h ? tr.x : tr.y) || [], n = values.length;
      const labels = axisLabels(el, tr, h ? "y" : "x", n);
      const order = [...values.keys()].filter((i) => typeof values[i] === "number").sort((a, b) => values[b] - values[a]);
      if (!order.length) return null;
      const called = panelOf(el, tr), name = called ? called + ": " : "";
      if (labelled(tr)) {  // points named by their text (the beam tree's candidates)
        const words = tr.text.map(plain);
        return name + t(words.length === 1 ? "views.fig.point" : "views.fig.points", { n: words.length }) +
          words.slice(0, 12).join(", ") + (words.length > 12 ? ", …" : "");
      }
      if (tr.type === "bar") {
        return name + t("views.fig.largest", { label: labels[order[0]], v: num(values[order[0]]) }) +
          (order.length > 1 ? t("views.fig.then", { label: labels[order[1]], v: num(values[order[1]]) }) : "");
      }
      const low = order[order.length - 1];
      return name + t("views.fig.range", { high: num(values[order[0]]), at_high: labels[order[0]], low: num(values[low]), at_low: labels[low] });
    }).filter(Boolean);
    if (!parts.length) return t("views.fig.no_values");
    return parts.join("; ") + (traces.length > 5 ? t(traces.length === 6 ? "views.fig.more_series_one" : "views.fig.more_series", { n: traces.length - 5 }) : ".");
  }

  function summary(el) {
    const said = ((el.layout || {}).meta || {}).aeSummary;  // the server's own words for what the figure is for
    if (typeof said === "string" && said) return said;
    // a step: its bars (the chosen piece and the runner-up) first, then where its attention goes
    const maps = heatmaps(el), bars = series(el).length ? seriesSummary(el) : "";
    return maps.length ? (bars ? bars + " " : "") + heatmapSummary(el, maps) : bars || t("views.fig.no_values");
  }

  // -- the table -------------------------------------------------------------------------------------------------
  const MAX_CELLS = 20000;
  function cell(tag, text, scope) {
    const c = document.createElement(tag);
    c.textContent = text;
    if (scope) c.scope = scope;
    return c;
  }

  function heatmapTable(el, trace, caption) {
    const rows = rowLabels(el, trace), cols = axisLabels(el, trace, "x", trace.z[0].length);
    const table = document.createElement("table");
    table.append(cell("caption", caption));
    const head = document.createElement("tr");
    head.append(cell("th", axisTitle(el, trace, "y") + " \\ " + axisTitle(el, trace, "x"), "col"));
    cols.forEach((c) => head.append(cell("th", c, "col")));
    table.createTHead().append(head);
    const body = table.createTBody();
    const named = words(trace);
    trace.z.forEach((row, i) => {
      const tr = document.createElement("tr");
      tr.append(cell("th", rows[i], "row"));
      row.forEach((v, j) => tr.append(cell("td", (named ? plain(trace.text[i][j]) + " " : "") +
        (v === null ? t("views.fig.masked") : typeof v === "number" ? (named ? "(" + fixed(v, 3) + ")" : fixed(v, 3)) : plain(v)))));
      body.append(tr);
    });
    return table;
  }

  function seriesTable(el, trace, caption) {
    const h = trace.orientation === "h", values = (h ? trace.x : trace.y) || [], labels = axisLabels(el, trace, h ? "y" : "x", values.length);
    const table = document.createElement("table");
    table.append(cell("caption", caption));
    const head = document.createElement("tr");
    head.append(cell("th", axisTitle(el, trace, h ? "y" : "x"), "col"), cell("th", axisTitle(el, trace, h ? "x" : "y"), "col"));
    const text = Array.isArray(trace.text) && trace.text.length === values.length;
    if (text) head.append(cell("th", t("views.fig.label"), "col"));
    table.createTHead().append(head);
    const body = table.createTBody();
    values.forEach((v, i) => {
      const tr = document.createElement("tr");
      tr.append(cell("th", labels[i], "row"), cell("td", num(v)));
      if (text) tr.append(cell("td", plain(trace.text[i])));
      body.append(tr);
    });
    return table;
  }

  // the server's own table (the beam tree: a row per candidate, its words, score and fate), its cells as text
  function givenTable(el, given) {
    const table = document.createElement("table");
    table.append(cell("caption", title(el)));
    const head = document.createElement("tr");
    given.head.forEach((h) => head.append(cell("th", String(h), "col")));
    table.createTHead().append(head);
    const body = table.createTBody();
    given.rows.forEach((row) => {
      const tr = document.createElement("tr");
      row.forEach((v, j) => tr.append(cell(j === 0 ? "th" : "td", String(v), j === 0 ? "row" : "")));
      body.append(tr);
    });
    return table;
  }

  function tables(el) {
    const out = document.createDocumentFragment();
    const given = ((el.layout || {}).meta || {}).aeTable;
    if (given && Array.isArray(given.head) && Array.isArray(given.rows)) {
      out.append(givenTable(el, given));
      return out;
    }
    const maps = heatmaps(el), names = panelNames(el, maps);
    let cells = 0;
    if (maps.length) {
      maps.forEach((tr, p) => {
        cells += tr.z.length * tr.z[0].length;
        if (cells > MAX_CELLS) return;
        out.append(heatmapTable(el, tr, names[p] || title(el)));
      });
    }
    if (series(el).length) {
      series(el).forEach((tr, i) => {
        out.append(seriesTable(el, tr, panelOf(el, tr) || t("views.fig.series", { n: i + 1 })));
      });
    }
    if (cells > MAX_CELLS) out.append(cell("p", t("views.fig.first_panels")));
    return out;
  }

  // -- each plot on the page ---------------------------------------------------------------------------------------
  // the text alternative of the figure a block showed before: Gradio makes a new element for each new figure, and
  // the block keeps its summary and table (their height too: the page below no longer jumped up and back for the
  // frames before the new one was described, helper 17), each put right after the newest figure
  // (Gradio's keyed block takes it out with the old figure's element: the block's last one is held here and put back,
  // in the same task, before anything is painted)
  const byBlock = new WeakMap();  // a figure's block -> its text alternative
  const kept = (el) => (el.parentElement && byBlock.get(el.parentElement)) || null;
  function keep(el) {
    const alt = kept(el);
    if (alt && el.nextElementSibling !== alt) putAfter(el, alt);
  }
  // put after the new figure with its focus kept: the old figure's removal takes the text alternative out with it,
  // and the focus on its "Show as table" fell to the page's body (CI: Tab out of Query token, whose blur draws
  // Inside a head's figure again, lands on that button just before)
  let lost = null;  // {el, at}: a control of a text alternative that lost the focus to nothing
  document.addEventListener("focusout", (e) => {
    const el = e.target;
    lost = !e.relatedTarget && el.closest && el.closest(".ae-fig-alt") ? { el, at: performance.now() } : null;
  });
  function putAfter(el, alt) {
    const had = alt.contains(document.activeElement) ? document.activeElement : null, out = !alt.isConnected;
    el.after(alt);
    const active = document.activeElement, free = !active || active === document.body;
    if (had && active !== had) had.focus({ preventScroll: true });
    // (taken out and put back: a click elsewhere, which also leaves the focus to nothing, moves no text alternative)
    else if (out && lost && free && alt.contains(lost.el) && performance.now() - lost.at < 5000) lost.el.focus({ preventScroll: true });
  }

  function altOf(el) {
    let alt = el.nextElementSibling;
    if (alt && alt.classList.contains("ae-fig-alt")) return alt;
    alt = kept(el);
    if (alt) { putAfter(el, alt); return alt; }
    const n = ++made;
    alt = document.createElement("div");
    alt.className = "ae-fig-alt";
    alt.innerHTML = "<p class='ae-fig-summary' id='ae-fig-summary-" + n + "'></p><button type='button' class='ae-table-toggle' " +
      "aria-expanded='false' aria-controls='ae-fig-table-" + n + "'>" + AE.esc(t("views.fig.show_table")) + "</button><div class='ae-fig-table' " +
      "id='ae-fig-table-" + n + "' hidden></div>";
    alt.querySelector("button").addEventListener("click", () => toggle(alt.previousElementSibling, alt));  // (the newest)
    el.after(alt);
    if (el.parentElement) byBlock.set(el.parentElement, alt);
    return alt;
  }

  function fillTable(el, alt) {
    const box = alt.querySelector(".ae-fig-table");
    box.replaceChildren(tables(el));
  }

  function toggle(el, alt) {
    const button = alt.querySelector(".ae-table-toggle"), box = alt.querySelector(".ae-fig-table");
    const open = box.hidden;
    if (open) fillTable(el, alt);
    box.hidden = !open;
    button.setAttribute("aria-expanded", String(open));
    button.textContent = open ? t("views.fig.hide_table") : t("views.fig.show_table");
  }

  function describeOne(el) {
    if (!el.data || seen.get(el) === el.data) return;
    seen.set(el, el.data);
    const id = ((el.closest && el.closest("[id]")) || {}).id || "?";
    built[id] = (built[id] || 0) + 1;
    const alt = altOf(el), name = title(el), text = summary(el);
    el.setAttribute("role", "figure");
    el.setAttribute("aria-label", name);
    const p = alt.querySelector(".ae-fig-summary");
    p.textContent = text;
    el.setAttribute("aria-describedby", p.id);
    const drawing = el.querySelector(".svg-container");
    if (drawing) drawing.setAttribute("aria-hidden", "true");  // its axis labels, one by one, say less than the above
    if (!alt.querySelector(".ae-fig-table").hidden) fillTable(el, alt);
  }

  function describe() {
    document.querySelectorAll(".js-plotly-plot").forEach((el) => { try { describeOne(el); } catch (e) { /* next change */ } });
    // a plot emptied (a new translation clears the button views): its summary and table go with it; a block's new
    // figure, waiting to be drawn (parked), keeps them after it
    document.querySelectorAll(".ae-fig-alt").forEach((alt) => {
      const block = alt.parentElement, plot = block && [...block.children].find((c) => c !== alt &&
        (c.classList.contains("js-plotly-plot") || c.classList.contains("ae-parked")));
      if (!plot) alt.remove(); else if (plot.nextElementSibling !== alt) putAfter(plot, alt);
    });
  }

  // A figure parked until it nears the screen (draw_once.js) is described from the figure it waits to draw: its old
  // words stayed, word for word the previous sentence's or attention type's, until it was scrolled in (helper 37),
  // and a tab's figures not drawn yet had none
  function describeParked(gd, data, layout) {
    try {
      const view = { data: data || [], layout: layout || {}, closest: (s) => gd.closest(s) };
      const alt = altOf(gd), p = alt.querySelector(".ae-fig-summary");
      p.textContent = summary(view);
      gd.setAttribute("role", "figure");
      gd.setAttribute("aria-label", title(view));
      gd.setAttribute("aria-describedby", p.id);
      const box = alt.querySelector(".ae-fig-table");
      if (!box.hidden) box.replaceChildren(tables(view));
    } catch (e) { /* described when drawn */ }
  }

  AE.figures = { describe, summary, title, built, keep, describeParked, num };
})();
