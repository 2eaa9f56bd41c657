// Shareable links: the page's whole state lives in its URL's query string, never on the server, so a link
// survives a server restart. "?text=Two%20dogs%20play.&tab=steps&step=2" translates on opening, with no click,
// then restores the tab, attention type, layer, head and step. "Copy link" writes the current state.
// Loaded after views.js; extends window.AE. Its words come from the page's catalogue (AE.t, "views.link." keys); it
// finds tabs by their ids (Gradio's data-tab-id), never by their words.
(function () {
  const AE = window.AE;
  const t = AE.t;
  // URL key -> Request field (the decoding options), in the order app.py passes them
  const REQUEST = [["text", "text"], ["model", "model"], ["method", "method"], ["beam", "beam_size"],
    ["alpha", "length_penalty"], ["max_len", "max_len"], ["temperature", "temperature"], ["top_k", "top_k"],
    ["top_p", "top_p"], ["seed", "seed"], ["no_repeat", "no_repeat_ngram_size"], ["rep_penalty", "repetition_penalty"]];
  const VIEW = ["kind", "layer", "head", "step", "step_layer", "step_head"];  // URL keys of what is shown, in order
  const DEFAULTS = { method: "greedy", beam_size: 4, length_penalty: 0.6, max_len: 60, temperature: 1, top_k: 0,
    top_p: 1, seed: 0, no_repeat_ngram_size: 0, repetition_penalty: 1 };
  // the tabs' ids (gr.Tab(id=...)), in the tab bar's order
  const TABS = ["attend", "steps", "pe", "inside", "experiments", "beyond", "compare", "model"];
  const isTab = (tab) => TABS.includes(tab);
  const KINDS = { cross: "Cross-attention", encoder: "Encoder self-attention", decoder: "Decoder self-attention" };
  const link = { pending: null, go: false, ignored: [], seen: false };
  // What a link may hold, from the page's own components (app.py: window.AE_LINK_RULES): models and methods by
  // name, each number's range and whether it is whole. A value outside them never reaches a component (Gradio would
  // answer with a toast that quotes it, markup included): it is dropped, the default kept, and the status line says so.
  const rules = () => window.AE_LINK_RULES || { models: [], methods: [], numbers: {} };  // set after this file runs
  // Every other input a student can set (Experiments, Beyond attention, Compare, Positional): URL key -> its rule
  // (app.extra_rules); and the results a link can ask to run again: URL name -> [button, the output that shows it,
  // the accordion it is in]
  const extraRules = () => ((rules().extras || {}).fields || {});
  // the accordion it is in; a run shows when its output holds text and, for a button that empties its figure when it
  // did not run (a Beyond-attention button: "Not run: ..." in any language), that figure is drawn]
  const RUNS = { ablation: ["run-ablation", "#ablation-text textarea"], attribute: ["run-attribute", "#attr-text textarea", "attr-box", "attr-plot"],
    patch: ["run-patch", "#patch-text textarea", "patch-box", "patch-plot"], prefix: ["run-prefix", "#prefix-text textarea", "whatif-box", "prefix-bars"],
    edit: ["run-edit", "#edit-text textarea", "whatif-box", "edit-bars"], compare: ["run-compare", "#compare-view .js-plotly-plot"] };
  const KNOWN = new Set([...REQUEST.map(([key]) => key), ...VIEW, "tab", "run", "class", "lang"]);  // lang: i18n.js
  const isExtra = (key) => Object.prototype.hasOwnProperty.call(extraRules(), key);
  const quote = (v) => { const s = String(v); return t("views.quote", { text: esc(s.length > 30 ? s.slice(0, 30) + "…" : s) }); };
  const esc = AE.esc;  // views.js's
  const ignore = (key, value, takes) => { link.ignored.push(esc(key) + " " + quote(value) + " (" + takes + ")"); };
  // a rule's bound as the page's language writes a number (0.5 / 0,5)
  const bound = (x) => String(x).replace(".", t("_meta.decimal"));
  const range = (whole, lo, hi) => t(whole ? "views.link.whole_range" : "views.link.number_range", { lo: bound(lo), hi: bound(hi) });
  const oneOf = (names) => t("views.link.one_of", { list: names.join(", ") });

  // -> the value to use, or undefined (and a line in link.ignored) when the page has no such value
  function checked(field, key, raw) {
    if (field === "text") return raw;
    if (field === "model" || field === "method") {
      const names = field === "model" ? rules().models : rules().methods;
      if (names.includes(raw)) return raw;
      return ignore(key, raw, oneOf(names.map(esc)));
    }
    const rule = rules().numbers[field];
    if (!rule) return raw;
    const [lo, hi, whole] = rule;
    const x = /^\s*[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?\s*$/i.test(raw) ? Number(raw) : NaN;
    if (Number.isFinite(x) && x >= lo && x <= hi && (!whole || Number.isInteger(x))) return x;
    return ignore(key, raw, range(whole, lo, hi));
  }

  // The status line's note on what the link held that the page could not take (empty when nothing was ignored).
  function linkNote() {
    if (!link.ignored.length) return "";
    return "<div class='ae-status ae-stale'>" + t("views.link.ignored", { list: link.ignored.join("; ") }) + "</div>";
  }

  const headLabel = (h) => (h === "mean" ? "all heads (mean)" : /^\d+$/.test(h) ? "head " + h : h);
  const headKey = (h) => (AE.headOf(h) === null ? "mean" : String(AE.headOf(h)));

  // On page load: the request's values from the URL (the text box and decoding options), the rest kept for after
  // the translation. -> values for [text, model, ...options], as they were when the URL names none.
  function linkIn(...values) {
    const out = take(new URLSearchParams(window.location.search), values);
    link.asked = out;  // (what linkGo translates)
    return out;
  }

  // A link's state taken in (on page load, or when a class room's view arrives): the request's values (returned,
  // for [text, model, ...options]), and the view, other inputs and results kept for after the translation.
  function take(params, values) {
    const out = values.slice();
    link.ignored = [];
    REQUEST.forEach(([key, field], i) => {
      if (!params.has(key)) return;
      const value = checked(field, key, params.get(key));
      if (value !== undefined) out[i] = value;
    });
    link.extras = {};
    link.run = [];
    Object.keys(extraRules()).forEach((key) => { if (params.has(key)) link.extras[key] = params.get(key); });
    (params.get("run") || "").split(",").filter((r) => r).forEach((r) => {
      if (RUNS[r] && !link.run.includes(r)) link.run.push(r); else ignore("run", r, oneOf(Object.keys(RUNS)));
    });
    [...new Set(params.keys())].filter((key) => !KNOWN.has(key) && !isExtra(key)).forEach((key) => {
      link.ignored.push(t("views.link.unknown_key", { key: esc(key.slice(0, 30)) }));
    });
    if (params.has("tab") && !isTab(params.get("tab"))) ignore("tab", params.get("tab"), oneOf(TABS));
    const view = {};
    VIEW.forEach((key) => { if (params.has(key)) view[key] = params.get(key); });
    if (params.has("tab") && isTab(params.get("tab"))) view.tab = params.get("tab");
    link.go = params.has("text") && params.get("text").trim() !== "";
    link.pending = link.go ? view : null;
    link.extrasPending = link.go && (Object.keys(link.extras).length > 0 || link.run.length > 0);
    link.extrasSince = Date.now();
    link.seen = !link.go;  // the note stays until the student translates something the link did not ask for
    if (!link.go && view.tab) openTabButton(view.tab);  // a link to a tab of the default sentence
    return out;
  }

  // After linkIn has set the text box and options: translate, as a click on Translate would.
  function linkGo() {
    if (!link.go) return;
    link.go = false;
    translateNow(link.asked);
  }

  // Translate pressed by the page itself (a link, a followed view), counted until its answer: a followed view that
  // arrives meanwhile waits for the answer on its way, and is not translated twice when it asks for that same
  // request. Applied at once to the sentence shown before (the replay path), it was undone by the answer's own
  // reset (step 0): a reopened page at stop 7 showed step 0 while the question asked about step 1 (helpers 23, 24).
  const FLIGHT_MS = 30000;  // an answer that never came (the server down) holds nothing longer than this
  function flying() {
    if (link.flying && Date.now() - link.flyingAt > FLIGHT_MS) link.flying = 0;
    return link.flying || 0;
  }
  // ``request``: [text, model, ...options], as the text box and options now hold them
  function translateNow(request) {
    const button = document.getElementById("translate");
    if (!button) return;
    link.flying = flying() + 1;
    link.flyingAt = Date.now();
    link.flight = JSON.stringify((request || []).map(String));
    link.flightText = String((request || [])[0]);
    button.click();
  }
  // a Translate's answer (the page's own or the person's): the newest request's answer is the last on its way
  // (Gradio runs only the newest of those waiting: always_last)
  function landed(bank) {
    if (!flying()) return;
    link.flying = bank && bank.text === link.flightText ? 0 : link.flying - 1;
  }
  // the hidden #ae-follow-view's own event: the after-chain that follows runs for the shown sentence, no answer
  function replay() { link.replay = true; }

  // After a translation (before the views draw): the link's view state, once; else the values as they are.
  // values: [kind, layer, head, step, step_layer, step_head]
  // values: [kind, layer, head, step, step_layer, step_head, bank]
  function linkView(...values) {
    const bank = AE.parsed(values.pop());
    const view = link.pending;
    if (!link.replay) landed(bank);
    link.replay = false;
    if (view && flying()) return values;  // the view is for the answer still on its way
    if (!view) {
      if (link.seen) link.ignored = [];
      link.seen = true;
      return values;
    }
    link.pending = null;
    link.seen = true;
    // what this analysis has: layers of each attention kind, heads, decoding steps
    const att = (bank && bank.att) || {};
    const layers = (k) => (att[k] || []).length;
    const heads = ((att.cross || [])[0] || []).length;
    const steps = ((bank && bank.steps) || []).length;
    const kind = view.kind === undefined ? undefined : KINDS[view.kind] ? view.kind : undefined;
    const shownKind = kind || AE.kindOf(values[0]);
    // a value the page cannot show (a layer "abc", a head 9 of 4) is dropped, the shown one kept, and said
    // takes: the catalogue key of what the field takes ("a layer from 0 to {max}")
    const int = (key, n, takes) => {
      const v = view[key];
      if (v === undefined) return undefined;
      if (/^\d{1,3}$/.test(v) && Number(v) < n) return Number(v);
      return ignore(key, v, n ? t(takes, { max: n - 1 }) : t("views.link.nothing"));
    };
    const head = (key) => {
      const v = view[key];
      if (v === undefined) return undefined;
      if (v === "mean") return headLabel(v);
      return int(key, heads, "views.link.head_range") === undefined ? undefined : headLabel(v);
    };
    if (view.kind !== undefined && !kind) ignore("kind", view.kind, oneOf(Object.keys(KINDS)));
    const wanted = [KINDS[kind], int("layer", layers(shownKind), "views.link.layer_range"), head("head"),
      int("step", steps, "views.link.step_range"), int("step_layer", layers("cross"), "views.link.layer_range"), head("step_head")];
    const out = values.map((v, i) => (wanted[i] === undefined ? v : wanted[i]));
    if (view.tab) setTimeout(() => openTabButton(view.tab), 0);
    return out;
  }

  // After a link's translation (after linkView): every other input the link holds, once, each checked first against
  // what the page can take (a model's own heads and presets, the analysis's layers and heads); else the values as they
  // are. values: the extra components in app.py's order (extras), then the bank.
  function linkExtras(...values) {
    const bank = AE.parsed(values.pop());
    if (!link.extrasPending || flying()) return values;  // (as linkView: kept for the answer on its way)
    link.extrasPending = false;
    const ignoredBefore = link.ignored.length;
    const fields = extraRules(), keys = Object.keys(fields), out = values.slice();
    const req = bank && bank.request ? JSON.parse(bank.request) : {};
    const own = ((rules().extras || {}).by_model || {})[req.model] || {};
    const att = (bank && bank.att) || {}, layers = (att.cross || []).length, heads = ((att.cross || [])[0] || []).length;
    keys.forEach((key, i) => {
      if (!(key in link.extras)) return;
      const raw = link.extras[key], rule = fields[key];
      if ((link.resets || []).includes(key) && String(values[i] === null ? "" : values[i]) === raw) return;
      let value;
      if (rule.type === "text") {
        value = raw.length <= (window.AE_MAX_CHARS || 300) ? raw : ignore(key, raw, t("views.link.max_chars", { n: window.AE_MAX_CHARS }));
      } else if (rule.type === "number") {
        const hi = rule.sized === "layer" ? layers - 1 : rule.max;
        const x = /^\s*[-+]?(\d+\.?\d*|\.\d+)\s*$/.test(raw) ? Number(raw) : NaN;
        value = Number.isFinite(x) && x >= rule.min && x <= hi && (!rule.whole || Number.isInteger(x)) ? x
          : ignore(key, raw, range(rule.whole, rule.min, hi));
      } else if (rule.type === "choices") {  // the heads switched off: names of this model's heads, comma-separated
        const names = raw.split(",").map((n) => n.trim()).filter((n) => n);
        const bad = names.filter((n) => !(own.heads || []).includes(n));
        value = bad.length ? ignore(key, bad[0], req.model ? t("views.link.head_of", { model: esc(req.model) }) : t("views.link.head_of_this")) : names;
      } else {
        const choices = rule.sized === "preset" ? own.preset || [] : rule.sized === "head"
          ? ["all heads (mean)", ...[...Array(heads).keys()].map((h) => "head " + h)] : rule.choices;
        value = choices.includes(raw) ? raw : ignore(key, raw, oneOf(choices.slice(0, 6).map(esc).concat(choices.length > 6 ? ["…"] : [])));
      }
      if (value !== undefined) out[i] = value;
      if (value !== undefined && key.startsWith("in_") && String(value) !== String(values[i])) link.insideSet = true;
    });
    link.runPending = link.run.slice();
    if (link.ignored.length > ignoredBefore) {  // the status line says so: every view drawn again, with the note
      setTimeout(() => { const redraw = document.getElementById("ae-redraw"); if (redraw) redraw.click(); }, 0);
    }
    return out;
  }

  // Then the results the link showed, each asked for again by its own button (one model call each, bounded as any
  // click is), its accordion opened so that it is in sight.
  function linkRun() {
    const runs = link.runPending || [];
    link.runPending = [];
    if (AE.state.deferred === "inside") link.insideSet = true;  // opened while the inputs were being set (views.js)
    AE.state.deferred = null;
    if (link.insideSet) {  // Inside a head's pickers changed: its view again (now if open, else when opened)
      link.insideSet = false;
      AE.state.done.inside = null;
      const inside = document.getElementById("ae-run-inside");
      if (inside && AE.state.tab === "inside") { AE.state.done.inside = ""; inside.click(); }
    }
    if (link.followed) { link.followed = false; if (link.onFollowed) setTimeout(link.onFollowed, 0); }
    runs.forEach((name) => {
      const [button, , box] = RUNS[name];
      // Gradio puts a tab's content on the page when the tab is first opened: wait for the button (at most 20 s)
      let tries = 0;
      const press = () => {
        const el = document.getElementById(button);
        if (!el) { if (++tries < 200) setTimeout(press, 100); return; }
        if (box) openAccordion(box);
        el.click();
      };
      press();
    });
  }

  function openAccordion(id) {
    const label = document.querySelector("#" + id + " > .label-wrap, #" + id + " .label-wrap");
    if (label && !label.classList.contains("open")) label.click();
  }

  // A view opened as the student would open it: its tab's button, then its attention type's radio (lesson.js and
  // figure1.js). view: {tab, kind (a radio label), parts (of "Where am I" to point at: figure1.js point)}
  function showView(view) {
    if (view.tab) openTabButton(view.tab);
    if (AE.figure1 && AE.figure1.point) AE.figure1.point(view.parts || []);
    if (view.kind) {
      const radio = document.querySelector("#kind input[value='" + view.kind + "']");
      if (radio && !radio.checked) radio.click();
    }
  }

  // A tab opened as a hand would open it, whatever Gradio does with the tab bar at this width: its button in the
  // bar (Gradio gives it data-tab-id, the Tab's id), or (where Gradio moved it behind the "•••" menu, which a click
  // from a script on the hidden button ignores) the menu opened and the tab's item in it clicked: the menu's items
  // carry only their label, the one Gradio's hidden copy of the tab bar (every tab, in order) shows for this tab.
  // Then its view is scrolled into sight.
  function openTabButton(tab) {
    if (!isTab(tab)) return;
    const visible = (el) => el && el.offsetParent !== null && el.getClientRects().length > 0;
    const button = [...document.querySelectorAll("#tabs button[role='tab']")].find((b) => b.dataset.tabId === tab && visible(b));
    if (button) {
      if (button.getAttribute("aria-selected") !== "true") button.click();
    } else {
      const menu = document.querySelector(".overflow-menu > button, .overflow-menu button");
      const copy = document.querySelectorAll("#tabs .tab-container.visually-hidden button")[TABS.indexOf(tab)];
      const label = copy ? copy.textContent.trim() : null;
      if (menu && label) {
        menu.click();
        const item = [...document.querySelectorAll(".overflow-dropdown button")].find((el) => el.textContent.trim() === label);
        if (item) item.click(); else menu.click();
      }
    }
    AE.state.tab = tab;
  }

  // The open tab's content brought into sight (the lesson, the diagram, a link): its top below the tab bar.
  function scrollToView(tab) {
    const tabs = document.getElementById("tabs");
    if (!tabs || !tabs.scrollIntoView) return;
    setTimeout(() => tabs.scrollIntoView({ behavior: AE.motion ? AE.motion() : "smooth", block: "start" }), 60);
  }

  // The address bar set to ``url`` (a link copied, a class named or left). Behind Gradio's <base> element Plotly
  // points each colour bar's gradient at the page's full address as it was when drawn: once the address changes
  // the gradient is looked up in another document and the bar goes blank (helper 24: the heatmap's scale, empty
  // from Teach a class on): those references follow the new address.
  function setAddress(url) {
    const was = window.location.href.split("#")[0];
    try { window.history.replaceState(null, "", url); } catch (e) { return; /* a sandboxed frame */ }
    const now = window.location.href.split("#")[0];
    if (was === now) return;
    document.querySelectorAll(".js-plotly-plot [style*='url(']").forEach((el) => {
      ["fill", "stroke"].forEach((prop) => {
        const v = el.style[prop];
        if (v && v.includes(was + "#")) el.style[prop] = v.split(was + "#").join(now + "#");
      });
    });
  }

  // "Copy link": the shown request (not the text box: a link names what the views show) and the view state.
  // -> the URL (also put in the address bar and, where the browser allows, on the clipboard).
  function linkOut(...values) {
    const url = window.location.origin + window.location.pathname + "?" + linkQuery(...values);
    setAddress(url);  // (a sandboxed frame: the box still has it)
    const box = document.getElementById("link");  // hidden until there is a link to show
    if (box) box.classList.remove("ae-hidden");
    // said to a screen reader, as it went (the link box appearing below says nothing by itself: issue 49)
    const said = (key) => { if (AE.a11y && AE.a11y.say) AE.a11y.say(AE.t(key)); };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(url).then(() => said("views.a11y.link_copied"), () => said("views.a11y.link_made"));
    } else said("views.a11y.link_made");
    return url;
  }

  // The page's state as a link's query string (Copy link, and the view a teacher's room sends its followers).
  // A last argument NO_RUNS leaves out the results on screen (a follower would ask the model for each again).
  function linkQuery(shown, kind, layer, head, step, stepLayer, stepHead, ...extras) {
    const withRuns = !(extras.length && extras[extras.length - 1] === NO_RUNS && extras.pop());
    let req = {};
    try { req = JSON.parse(shown || "{}"); } catch (e) { req = {}; }
    const params = new URLSearchParams();
    if (req.text) params.set("text", req.text);
    if (req.model) params.set("model", req.model);
    REQUEST.slice(2).forEach(([key, field]) => {
      if (req[field] !== undefined && String(req[field]) !== String(DEFAULTS[field])) params.set(key, req[field]);
    });
    params.set("tab", AE.state.tab || "attend");
    const kindKey = Object.keys(KINDS).find((k) => KINDS[k] === kind) || AE.kindOf(kind);
    params.set("kind", kindKey);
    params.set("layer", layer);
    params.set("head", headKey(head));
    params.set("step", step);
    params.set("step_layer", stepLayer);
    params.set("step_head", headKey(stepHead));
    // every other input that differs from its default, and the results on screen (asked for again on opening)
    const fields = extraRules();
    Object.keys(fields).forEach((key, i) => {
      let v = extras[i];
      if (v === undefined || v === null) return;
      if (Array.isArray(v)) v = v.join(",");
      const d = Array.isArray(fields[key].default) ? fields[key].default.join(",") : fields[key].default;
      if (String(v) !== String(d === null || d === undefined ? "" : d)) params.set(key, v);
    });
    const shownRuns = Object.keys(RUNS).filter((name) => {
      const el = document.querySelector(RUNS[name][1]), figure = RUNS[name][3];
      if (!el) return false;
      if (el.tagName !== "TEXTAREA") return true;
      return el.value.trim() !== "" && (!figure || !!document.querySelector("#" + figure + " .js-plotly-plot"));
    });
    if (shownRuns.length && withRuns) params.set("run", shownRuns.join(","));
    params.set("lang", AE.lang);  // a link opens in the language it was copied in; a room's view carries the teacher's
    return params.toString();
  }
  const NO_RUNS = "\u0000no-runs";

  // Following a class room: the teacher's view arrives as a query string and is shown as a link opened now would
  // be: its request set (a hidden button's event, followIn), then translated if it differs from the one shown, or
  // else only its view, inputs and results applied (the hidden #ae-follow-view runs Translate's after-chain).
  function follow(query) {
    link.follow = new URLSearchParams(query);
    link.followedAt = Date.now();  // (views.js: the sentence the teacher's view brings is being translated, not "changed")
    link.followedText = link.follow.get("text");  // (... and until it is shown, no other sentence is said as shown)
    // a student's page takes the class's language when the teacher changes it (the page reopens in it); the
    // teacher's own page never follows the room's: the teacher's choice is the class's
    const student = AE.room && AE.room.state && AE.room.state.role === "student";
    if (student && AE.langFollow(link.follow.get("lang"))) return;
    const button = document.getElementById("ae-follow-in");
    if (button) button.click();
  }

  function followIn(...values) {
    const params = link.follow;
    link.follow = null;
    if (!params) { link.go = false; return values; }
    const out = take(params, values);
    link.resets = [];
    Object.entries(extraRules()).forEach(([key, rule]) => {
      if (key in link.extras || rule.default === null || rule.default === undefined || key === "in_query") return;
      link.extras[key] = Array.isArray(rule.default) ? rule.default.join(",") : String(rule.default);
      link.resets.push(key);
    });
    link.extrasPending = link.go;
    link.extrasSince = Date.now();
    link.followed = link.go;
    if (!link.go && link.onFollowed) setTimeout(link.onFollowed, 0);
    const bank = AE.current();
    link.same = out.every((v, i) => String(v) === String(values[i])) && !!bank && bank.text === out[0];
    // the request on its way already (a reopened page's own link, the class's view arriving meanwhile): its answer
    // takes this view, and nothing is asked twice
    link.riding = link.go && flying() > 0 && link.flight === JSON.stringify(out.map(String));
    link.asked = out;
    return out;
  }

  function followGo() {
    if (!link.go) return;
    link.go = false;
    if (link.riding) return;
    if (!link.same) { translateNow(link.asked); return; }
    const button = document.getElementById("ae-follow-view");
    if (button) button.click();
  }

  // The Model dropdown's input (app.py): another model than the page's switches to it (the hidden button); the same
  // one (focus leaving the dropdown, or the model chosen again) changes nothing. The page's model: the shown
  // analysis's, or the one just switched to while its first translation is still on its way.
  let switched = null, switchedAt = 0;
  function modelPicked(model, shown) {
    let was = null;
    try { was = JSON.parse(shown).model || null; } catch (e) { was = null; }
    const current = switched && was !== switched && Date.now() - switchedAt < 30000 ? switched : was;
    if (!model || model === current) return;
    switched = model;
    switchedAt = Date.now();
    const button = document.getElementById("ae-switch-model");
    if (button) button.click();
  }

  // "Start over": the page without any link state, as a first visit opens it (the student is asked first).
  function startOver() {
    if (window.confirm && !window.confirm(t("views.link.start_over"))) return;
    window.location.href = window.location.pathname;
  }

  // whether a followed view arrived in the last ``ms`` (its sentence is set, then translated)
  const followedWithin = (ms) => !!link.followedAt && Date.now() - link.followedAt < ms;
  const followedText = () => link.followedText;
  // whether a view the teacher sent is still on its way: its request being set, its translation flying, or the
  // after-chain that applies it not yet run (sight.js keeps the followed view in place until it has arrived)
  const followArriving = () => !!link.follow || !!link.followed || flying() > 0;
  Object.assign(AE, { headKey, replay, setAddress, followedWithin, followedText, followArriving, modelPicked, startOver, scrollToView, linkExtras, linkRun, linkQuery, follow, followIn, followGo, NO_RUNS, linkIn, linkGo, linkView, linkOut, linkNote, link, openTabButton, showView });
})();
