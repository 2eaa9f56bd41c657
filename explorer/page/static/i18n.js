// The page's language: every word a person reads comes from one catalogue per language (i18n/*.json,
// inlined by app.py as window.AE_I18N), here as AE.t(key, values) for the page's own scripts, and for Gradio's
// labels through its i18n (gr.I18n keys), whose locale is set to the same language.
// Which language: a link's "lang", else the reader's own choice (the switch, kept in this browser), else the
// browser's languages, else English. The server reads it from the ae_lang cookie (i18n/__init__.py).
// Switching reloads the page with its whole state in the link (links.js), so every view, including those made on
// the server, is drawn again in the new language; in a class the student keeps their place (?class=).
// Loaded first: it creates window.AE.
(function () {
  const AE = (window.AE = window.AE || {});
  const CATALOGUES = window.AE_I18N || { en: {} };
  const codes = Object.keys(CATALOGUES);
  const known = (code) => {
    const c = String(code || "").trim().toLowerCase().slice(0, 2);
    return codes.includes(c) ? c : null;
  };
  let stored = null;
  try { stored = localStorage.getItem("ae-lang"); } catch (e) { stored = null; }
  const fromLink = known(new URLSearchParams(window.location.search).get("lang"));
  const fromBrowser = (navigator.languages || [navigator.language]).map(known).find(Boolean);
  const lang = fromLink || known(stored) || fromBrowser || "en";
  const words = CATALOGUES[lang] || CATALOGUES.en || {};

  // AE.t("lang.switching", {name: "Deutsch"}): the text in the page's language, "{name}" filled in; a key missing from the
  // catalogue shows as itself (a test keeps every key in every language)
  function t(key, values) {
    const template = key in words ? words[key] : (CATALOGUES.en || {})[key];
    if (template === undefined) return key;
    if (!values) return template;
    return template.replace(/\{(\w+)\}/g, (m, name) => (name in values ? String(values[name]) : m));
  }
  // numbers as the language writes them: 0.93 / 0,93
  function num(x, digits) {
    const d = digits === undefined ? 2 : digits;
    if (typeof x !== "number" || !isFinite(x)) return String(x);
    return x.toLocaleString(lang, { minimumFractionDigits: d, maximumFractionDigits: d });
  }
  const pct = (x, digits) => t("_meta.percent", { n: num(100 * x, digits || 0) });

  // the server's events read the language from this cookie (Gradio passes each event its request)
  document.cookie = "ae_lang=" + lang + "; path=/; max-age=31536000; SameSite=Lax";
  document.documentElement.lang = lang;

  // Gradio's own labels: its i18n locale, set through the module that holds it (its file name is given by the
  // server, window.AE_GRADIO_CORE, next to the page's own index script)
  async function gradioLocale() {
    const name = window.AE_GRADIO_CORE;
    if (!name) return false;
    const index = document.querySelector('script[type="module"][src*="/assets/index-"], script[type="module"][src*="assets/index-"]');
    const url = index ? new URL(name, index.src).href : new URL("assets/" + name, document.baseURI).href;
    try {
      const core = await import(url);
      if (!core.changeLocale) return false;
      core.changeLocale(lang);
      return true;
    } catch (e) {
      return false;
    }
  }
  const ready = gradioLocale();

  // The switch: one button per language, each named in its own language. Choosing one keeps it in this browser
  // and reopens the page in it with the state it shows (a hidden button hands links.js the page's inputs).
  function switchHtml() {
    return codes.map((code) => {
      const name = (CATALOGUES[code] || {})["_meta.name"] || code;
      return '<button type="button" class="ae-lang" lang="' + code + '" data-lang="' + code + '" aria-pressed="' +
        (code === lang) + '" title="' + AE.esc(name) + '" onclick="AE.setLang(\'' + code + '\')">' +
        code.toUpperCase() + "</button>";
    }).join("");
  }
  function drawSwitch() {
    const box = document.getElementById("ae-langs");
    if (box && !box.dataset.drawn) {
      box.dataset.drawn = "1";
      box.setAttribute("role", "group");
      box.setAttribute("aria-label", t("lang.switch"));
      box.innerHTML = switchHtml();
    }
  }

  // Gradio's tab bar keeps the names it took before the locale was set here (a link's or the switch's language on a
  // browser of another): each tab button named again by its id (the tabs' keys: page.<id>.tab)
  function tabNames() {
    document.querySelectorAll("button[role='tab'][data-tab-id]").forEach((b) => {
      const key = "page." + b.dataset.tabId + ".tab";
      if (!(key in words)) return;
      const walk = document.createTreeWalker(b, NodeFilter.SHOW_TEXT);
      while (walk.nextNode()) {
        const node = walk.currentNode;
        if (!node.data.trim()) continue;
        if (node.data.trim() !== words[key]) node.data = words[key];
        break;
      }
    });
  }

  let next = null;
  function setLang(code, own) {
    code = known(code);
    if (!code) return;
    if (own !== false) { try { localStorage.setItem("ae-lang", code); } catch (e) { /* private mode: the link has it */ } }
    if (code === lang) return;
    next = code;
    const button = document.getElementById("ae-lang-state");
    if (button) button.click(); else go(null);
  }
  // -> reopen the page in the chosen language; ``query``: the page's state as a link's query string (links.js)
  function go(query) {
    const params = new URLSearchParams(query || "");
    params.set("lang", next || lang);
    const room = AE.room && AE.room.state;
    if (room && room.code && room.role === "student") params.set("class", room.code);
    window.location.href = window.location.pathname + "?" + params.toString();
  }

  // A class: the teacher's language is the class's. A student takes it on joining and whenever the teacher changes
  // it; between those, a student who switched their own page keeps their choice. -> true when the page reopens.
  function follow(code) {
    code = known(code);
    if (!code) return false;
    // the class's language last taken, per class: a tab that joins another class (a new lesson in the same browser
    // tab) takes that class's language, even one this tab took before (it stayed English for a German teacher)
    const room = AE.room && AE.room.state, key = "ae-room-lang-" + ((room && room.code) || "");
    let last = null;
    try { last = sessionStorage.getItem(key); sessionStorage.setItem(key, code); } catch (e) { last = null; }
    if (code === last || code === lang) return false;
    setLang(code, false);
    return true;
  }

  Object.assign(AE, { t, num, pct, lang, setLang, langGo: go, langFollow: follow, langReady: ready,
    esc: AE.esc || ((s) => String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c])) });
  // after the page changed: once per frame at most (a figure drawn is thousands of mutations)
  let queued = false;
  const redo = () => { queued = false; drawSwitch(); tabNames(); };
  new MutationObserver(() => { if (!queued) { queued = true; requestAnimationFrame(redo); } })
    .observe(document.documentElement, { childList: true, subtree: true, characterData: true });
  redo();
})();
