// Every figure says what it shows without sight or a mouse: an accessible name (its title: view, layer, head,
// sentence), a one- or two-sentence summary computed from its own numbers (a heatmap: where each row's weight mostly
// goes; bars: the largest and the runner-up; lines: where each is highest and lowest), and "Show as table", a real
// <table> with row and column headers. The same for the views the browser draws (views.js) and the server's figures:
// both are plotly figures, read from the drawn plot's own data (el.data, el.layout). a11y.js calls describe() after
// every change of the page. Text from a figure (tokens the student typed) is only ever set as textContent.
(function () {
  const AE = window.AE;
  const seen = new WeakMap();  // plot -> the data it was described from
  let made = 0;

  // a plotly label (HTML: <i>, <br>, <sup>, escaped entities) as plain text, parsed in an inert document
  function plain(s) {
    const html = String(s === null || s === undefined ? "" : s).replace(/<br\s*\/?>/gi, " · ");
    return new DOMParser().parseFromString("<body>" + html + "</body>", "text/html").body.textContent
      .replace(/\s+/g, " ").trim();
  }
  const num = (v) => (typeof v === "number" && isFinite(v) ? (Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 10 ? v.toFixed(1) :
    v.toFixed(Math.abs(v) < 0.01 && v !== 0 ? 4 : 2)) : v === null || v === undefined ? "–" : plain(v));

  // the labels of one axis of a trace: its tick texts where the axis names its ticks, else the trace's own values
  function axisLabels(el, trace, letter, n) {
    const ref = trace[letter + "axis"] || letter, axis = (el.layout || {})[letter + "axis" + ref.slice(1)] || {};
    const values = trace[letter] || [...Array(n).keys()];
    const texts = axis.ticktext && axis.tickvals ? new Map(axis.tickvals.map((v, i) => [v, axis.ticktext[i]])) : null;
    return values.slice(0, n).map((v) => plain(texts && texts.has(v) ? texts.get(v) : v));
  }
  const axisTitle = (el, trace, letter) => {
    const ref = trace[letter + "axis"] || letter, axis = (el.layout || {})[letter + "axis" + ref.slice(1)] || {};
    return plain(axis.title && (axis.title.text || axis.title)) || letter;
  };

  const isMask = (t) => /masked out/.test(t.hovertemplate || "");  // views.js's grey cells over the causal mask
  function heatmaps(el) {
    return (el.data || []).filter((t) => t.type === "heatmap" && Array.isArray(t.z) && Array.isArray(t.z[0]) && !isMask(t));
  }
  function panelNames(el, n) {
    const notes = ((el.layout || {}).annotations || []).map((a) => plain(a.text)).filter((t) => t && t.length < 40);
    return [...Array(n).keys()].map((i) => (n > 1 ? notes[i] || "panel " + (i + 1) : ""));
  }

  function title(el) {
    const t = (el.layout || {}).title, text = plain(t && (t.text || t));
    if (text) return text;
    const block = el.closest(".block"), label = block && block.querySelector("[data-testid='block-label']");
    return label ? plain(label.textContent) : "Figure";
  }

  // -- the summary ---------------------------------------------------------------------------------------------
  function heatmapSummary(el, maps) {
    if (maps.length > 1) {
      let best = null;
      const names = panelNames(el, maps.length);
      maps.forEach((t, p) => t.z.forEach((row, i) => row.forEach((v, j) => {
        if (typeof v === "number" && (!best || v > best.v)) best = { v, p, i, j };
      })));
      if (!best) return maps.length + " heatmaps, empty.";
      const t = maps[best.p], rows = axisLabels(el, t, "y", t.z.length), cols = axisLabels(el, t, "x", t.z[0].length);
      return maps.length + " heatmaps. The largest value, " + num(best.v) + ", is in " + names[best.p] + ", row " +
        rows[best.i] + ", column " + cols[best.j] + ". Show as table for every value.";
    }
    const t = maps[0], rows = axisLabels(el, t, "y", t.z.length), cols = axisLabels(el, t, "x", t.z[0].length);
    const most = t.z.map((row, i) => {
      let j = -1;
      row.forEach((v, k) => { if (typeof v === "number" && (j < 0 || v > row[j])) j = k; });
      return j < 0 ? null : rows[i] + " → " + cols[j] + " (" + num(row[j]) + ")";
    }).filter(Boolean);
    const shown = most.slice(0, 12).join("; ");
    return "Rows: " + axisTitle(el, t, "y") + "; columns: " + axisTitle(el, t, "x") + ". Where each row's value is " +
      "largest: " + shown + (most.length > 12 ? "; and " + (most.length - 12) + " more rows (see the table)." : ".");
  }

  // the traces that hold values (not a heatmap, not lines drawn only to connect others: no hover, no value)
  const series = (el) => (el.data || []).filter((t) => t.type !== "heatmap" && t.hoverinfo !== "skip" &&
    (Array.isArray(t.x) || Array.isArray(t.y)));
  const labelled = (t) => /text/.test(t.mode || "") && Array.isArray(t.text) && t.type !== "bar";

  function seriesSummary(el) {
    const traces = series(el);
    const parts = traces.slice(0, 5).map((t) => {
      const h = t.orientation === "h", values = (h ? t.x : t.y) || [], n = values.length;
      const labels = axisLabels(el, t, h ? "y" : "x", n);
      const order = [...values.keys()].filter((i) => typeof values[i] === "number").sort((a, b) => values[b] - values[a]);
      if (!order.length) return null;
      const name = plain(t.name) ? plain(t.name) + ": " : "";
      if (labelled(t)) {  // points named by their text (the beam tree's candidates)
        const words = t.text.map(plain);
        return name + words.length + (words.length === 1 ? " point, " : " points, ") + words.slice(0, 12).join(", ") + (words.length > 12 ? ", …" : "");
      }
      if (t.type === "bar") {
        return name + "largest " + labels[order[0]] + " (" + num(values[order[0]]) + ")" +
          (order.length > 1 ? ", then " + labels[order[1]] + " (" + num(values[order[1]]) + ")" : "");
      }
      const low = order[order.length - 1];
      return name + "highest " + num(values[order[0]]) + " at " + labels[order[0]] + ", lowest " + num(values[low]) + " at " + labels[low];
    }).filter(Boolean);
    if (!parts.length) return "No values.";
    return parts.join("; ") + (traces.length > 5 ? "; and " + (traces.length - 5) + " more series." : ".");
  }

  function summary(el) {
    // a step: its bars (the chosen piece and the runner-up) first, then where its attention goes
    const maps = heatmaps(el), bars = series(el).length ? seriesSummary(el) : "";
    return maps.length ? (bars ? bars + " " : "") + heatmapSummary(el, maps) : bars || "No values.";
  }

  // -- the table -------------------------------------------------------------------------------------------------
  const MAX_CELLS = 20000;
  function cell(tag, text, scope) {
    const c = document.createElement(tag);
    c.textContent = text;
    if (scope) c.scope = scope;
    return c;
  }

  function heatmapTable(el, t, caption) {
    const rows = axisLabels(el, t, "y", t.z.length), cols = axisLabels(el, t, "x", t.z[0].length);
    const table = document.createElement("table");
    table.append(cell("caption", caption));
    const head = document.createElement("tr");
    head.append(cell("th", axisTitle(el, t, "y") + " \\ " + axisTitle(el, t, "x"), "col"));
    cols.forEach((c) => head.append(cell("th", c, "col")));
    table.createTHead().append(head);
    const body = table.createTBody();
    t.z.forEach((row, i) => {
      const tr = document.createElement("tr");
      tr.append(cell("th", rows[i], "row"));
      row.forEach((v) => tr.append(cell("td", v === null ? "masked" : typeof v === "number" ? v.toFixed(3) : plain(v))));
      body.append(tr);
    });
    return table;
  }

  function seriesTable(el, t, caption) {
    const h = t.orientation === "h", values = (h ? t.x : t.y) || [], labels = axisLabels(el, t, h ? "y" : "x", values.length);
    const table = document.createElement("table");
    table.append(cell("caption", caption));
    const head = document.createElement("tr");
    head.append(cell("th", axisTitle(el, t, h ? "y" : "x"), "col"), cell("th", axisTitle(el, t, h ? "x" : "y"), "col"));
    const text = Array.isArray(t.text) && t.text.length === values.length;
    if (text) head.append(cell("th", "label", "col"));
    table.createTHead().append(head);
    const body = table.createTBody();
    values.forEach((v, i) => {
      const tr = document.createElement("tr");
      tr.append(cell("th", labels[i], "row"), cell("td", num(v)));
      if (text) tr.append(cell("td", plain(t.text[i])));
      body.append(tr);
    });
    return table;
  }

  function tables(el) {
    const out = document.createDocumentFragment();
    const maps = heatmaps(el), names = panelNames(el, maps.length);
    let cells = 0;
    if (maps.length) {
      maps.forEach((t, p) => {
        cells += t.z.length * t.z[0].length;
        if (cells > MAX_CELLS) return;
        out.append(heatmapTable(el, t, names[p] || title(el)));
      });
    }
    if (series(el).length) {
      series(el).forEach((t, i) => {
        out.append(seriesTable(el, t, plain(t.name) || "series " + (i + 1)));
      });
    }
    if (cells > MAX_CELLS) out.append(cell("p", "Only the first panels are listed: the figure has more values than fit a table."));
    return out;
  }

  // -- each plot on the page ---------------------------------------------------------------------------------------
  function altOf(el) {
    let alt = el.nextElementSibling;
    if (alt && alt.classList.contains("ae-fig-alt")) return alt;
    const n = ++made;
    alt = document.createElement("div");
    alt.className = "ae-fig-alt";
    alt.innerHTML = "<p class='ae-fig-summary' id='ae-fig-summary-" + n + "'></p><button type='button' class='ae-table-toggle' " +
      "aria-expanded='false' aria-controls='ae-fig-table-" + n + "'>Show as table</button><div class='ae-fig-table' " +
      "id='ae-fig-table-" + n + "' hidden></div>";
    alt.querySelector("button").addEventListener("click", () => toggle(el, alt));
    el.after(alt);
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
    button.textContent = open ? "Hide the table" : "Show as table";
  }

  function describeOne(el) {
    if (!el.data || seen.get(el) === el.data) return;
    seen.set(el, el.data);
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
    // a plot emptied (a new translation clears the button views): its summary and table go with it
    document.querySelectorAll(".ae-fig-alt").forEach((alt) => {
      const plot = alt.previousElementSibling;
      if (!plot || !plot.classList.contains("js-plotly-plot")) alt.remove();
    });
  }

  AE.figures = { describe, summary, title };
})();
