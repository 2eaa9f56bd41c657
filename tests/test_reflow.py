"""Reflow and text size beyond axe (issue 49, helper 40), in Debian's Chromium: at 320 px wide (a 1280 px laptop at
400% zoom) and on a phone, the row of folds and buttons and the row of examples wrap, so that every control is on the
screen without a sideways scroll (WCAG 1.4.10); with the browser's text at twice its size, every dropdown shows its
whole value, no word runs past its box and no figure's name covers its title (WCAG 1.4.4; helpers 40 and 41)."""

from contextlib import contextmanager

import pytest
from test_accessibility import tab_to
from test_browser import TABS, browser, open_tab, server, settled  # noqa: F401
from test_every_screen import opened

NARROW = dict(viewport={"width": 320, "height": 256})
PHONE = dict(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True, has_touch=True)


@contextmanager
def page_at(browser, server, context: dict, text: int = 16, late: bool = False):  # noqa: F811
    """The page at ``context``'s size with the browser's default text size at ``text`` px (16 is the default), set
    before the page loads or, ``late``, once it has (a reader who enlarges the text of a page already open)."""
    with opened(browser, "about:blank", **context) as pg:
        cdp = pg.context.new_cdp_session(pg)
        cdp.send("Page.enable")

        def size() -> None:
            cdp.send("Page.setFontSizes", {"fontSizes": {"standard": text, "fixed": text * 13 // 16}})

        if text != 16 and not late:
            size()
        pg.goto(server)
        settled(pg)
        if text != 16 and late:
            size()
            pg.wait_for_timeout(500)
        yield pg


# each control of the two rows: its box, and how far its row hides it (the row's own box, as it clips)
ROWS = """() => {
  const rows = [...document.querySelectorAll('#folds, #examples .gallery')];
  const controls = [...document.querySelectorAll('#folds button, #folds input, #examples .gallery-item')]
    .filter((e) => e.offsetParent && e.getBoundingClientRect().width > 0);
  return {
    width: innerWidth, page: document.documentElement.scrollWidth,
    rows: rows.map((r) => ({ id: r.id || r.className, scroll: r.scrollWidth, client: r.clientWidth })),
    controls: controls.map((e) => { const r = e.getBoundingClientRect();
      const what = e.textContent || e.value || e.getAttribute('aria-label') || e.tagName;
      return { example: e.matches('.gallery-item'), what: what.trim().slice(0, 24),
               left: Math.round(r.left), right: Math.round(r.right) }; }) };
}"""


@pytest.mark.parametrize("context,text", [(NARROW, 16), (NARROW, 32), (PHONE, 16)],
                         ids=["320x256", "320x256-text-x2", "390x844"])
def test_the_rows_of_folds_and_examples_wrap_on_a_narrow_screen(browser, server, context, text):  # noqa: F811
    with page_at(browser, server, context, text) as pg:
        seen = pg.evaluate(ROWS)
        width = seen["width"]
        assert seen["page"] <= width, seen["page"]  # the page itself never scrolls sideways
        for row in seen["rows"]:  # nor does either row inside itself (helper 40: 1294 px of row in 256)
            assert row["scroll"] <= row["client"] + 1, row
        names = [c["what"] for c in seen["controls"]]
        for needed in ("Join", "Guided lesson", "Copy link", "Teach a class", "DE", "EN"):
            assert any(n.startswith(needed) for n in names), (needed, names)
        assert sum(c["example"] for c in seen["controls"]) >= 5
        off = [c for c in seen["controls"] if c["left"] < 0 or c["right"] > width]
        assert off == [], off  # each wholly on the screen, where a mouse reaches it
        # a mouse user reaches the last example by scrolling down only, and it translates
        last = pg.locator("#examples .gallery-item").last
        wanted = last.inner_text().strip()
        box = last.bounding_box()
        pg.mouse.wheel(0, box["y"] - 60)
        pg.wait_for_timeout(300)
        box = last.bounding_box()
        assert 0 <= box["x"] and box["x"] + box["width"] <= width and 0 <= box["y"] < context["viewport"]["height"]
        pg.mouse.click(box["x"] + box["width"] / 2, box["y"] + min(box["height"] / 2, 10))
        pg.wait_for_function("(w) => document.querySelector('#sentence textarea').value === w", arg=wanted,
                             timeout=15_000)
        assert pg.evaluate("() => window.scrollX") == 0
        assert pg.errors == []


# every dropdown on the open tab: its value, and whether the screen shows it whole (in its own input, or drawn whole,
# wrapped, over it: the words inside the box's border, none under the caret)
DROPDOWNS = """() => [...document.querySelectorAll('input[role=combobox]')].filter((i) => i.offsetParent).map((i) => {
  const wrap = i.parentElement, whole = wrap.querySelector(':scope > .ae-whole');
  const icon = wrap.querySelector('.icon-wrap'), box = i.closest('.wrap').getBoundingClientRect();
  // in its own input: its text (measured in its font) ends left of the ▾, which Gradio draws over the input's end
  const cs = getComputedStyle(i), ctx = document.createElement('canvas').getContext('2d');
  ctx.font = cs.font;
  const end = i.getBoundingClientRect().left + parseFloat(cs.paddingLeft) + ctx.measureText(i.value).width;
  const limit = icon && icon.getBoundingClientRect().width ? icon.getBoundingClientRect().left : i.getBoundingClientRect().right;
  let shown = i.scrollWidth <= i.clientWidth + 1 && end <= limit + 0.5 && cs.color !== 'rgba(0, 0, 0, 0)' ? 'input' : null;
  if (!shown && whole && getComputedStyle(whole).visibility === 'visible' && whole.textContent === i.value) {
    const range = document.createRange();
    range.selectNodeContents(whole);
    const words = [...range.getClientRects()];
    const inside = words.every((r) => r.left >= box.left && r.right <= box.right && r.top >= box.top && r.bottom <= box.bottom);
    const caret = icon ? icon.getBoundingClientRect() : null;
    const clear = !caret || words.every((r) => r.right <= caret.left || r.bottom <= caret.top || r.top >= caret.bottom);
    if (inside && clear) shown = 'drawn whole';
  }
  return { id: (i.closest('[id]') || {}).id, value: i.value, shown }; })"""


# the page's words that run past the box that clips them, or past the screen (tables, the diagram of Figure 1 and
# the figures' own drawings aside: they scroll as a whole; on a laptop, so does the row of examples)
TEXT_CUT = """() => { const out = [], w = innerWidth;
  const walk = document.createTreeWalker(document.querySelector('.gradio-container'), NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    const p = n.parentElement;
    if (!n.textContent.trim() || !p || !p.offsetParent ||
        p.closest('svg, table, textarea, #ae-figure1, .js-plotly-plot' + (w > 700 ? ', #examples' : ''))) continue;
    const range = document.createRange();
    range.selectNodeContents(n);
    const rects = [...range.getClientRects()].filter((q) => q.width > 0);
    let cut = rects.some((q) => q.right > w + 1 || q.left < -1);
    for (let a = p; a && a !== document.body && !cut; a = a.parentElement) {
      if (getComputedStyle(a).overflowX === 'visible') continue;
      const b = a.getBoundingClientRect();
      if (b.width <= 2) break;  // (words for a screen reader alone)
      cut = rects.some((q) => q.right > b.right + 1 || q.left < b.left - 1);
    }
    if (cut) out.push(n.textContent.trim().slice(0, 40));
  }
  return out; }"""
# a figure's name (Gradio's label) over its title (plotly's): [block, label's bottom, title's top]
OVER_TITLE = """() => [...document.querySelectorAll('.block')].filter((b) => b.offsetParent).map((b) => {
  const label = b.querySelector(':scope > label[data-testid=block-label]'), title = b.querySelector('.js-plotly-plot .gtitle');
  return label && title && [b.id, label.getBoundingClientRect().bottom, title.getBoundingClientRect().top]; })
  .filter((x) => x && x[1] > x[2] + 0.5)"""


BROKEN_WORDS = """() => { const out = [];
  for (const cell of document.querySelectorAll('.prose td, .prose th, fieldset.block label > span')) {
    if (!cell.offsetParent) continue;
    const walk = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let n = walk.nextNode(); n; n = walk.nextNode()) {
      for (const m of n.textContent.matchAll(/[^\\s\\u200b|]+/g)) {
        if (m[0].length > 24) continue;
        const r = document.createRange(); r.setStart(n, m.index); r.setEnd(n, m.index + m[0].length);
        const tops = new Set([...r.getClientRects()].filter((b) => b.width > 0).map((b) => Math.round(b.top)));
        if (tops.size > 1) out.push(m[0]);
      }
    }
  }
  return out.slice(0, 12); }"""


@pytest.mark.parametrize("context,late", [(dict(viewport={"width": 1280, "height": 800}), True), (PHONE, False),
                                          (dict(viewport={"width": 320, "height": 640}), False)],
                         ids=["1280x800-enlarged-when-open", "390x844", "320x640"])
def test_at_twice_the_text_size_no_value_word_or_title_is_cut(browser, server, context, late):  # noqa: F811
    """Helper 40 read "all heads (" in the Head dropdown (helper 46: at 320x640 its "n)" under the ▾); helper 41 a
    figure's name over its title's top by 8 px, the Layer slider's "2" cut by its box, "More: how it works, what to
    try" cut at the screen's edge."""
    with page_at(browser, server, context, text=32, late=late) as pg:
        found, cut_words, covered = {}, {}, {}
        for name in TABS:
            open_tab(pg, name)
            pg.wait_for_timeout(700)
            for dropdown in pg.evaluate(DROPDOWNS):
                found[dropdown["id"]] = dropdown
            if words := pg.evaluate(TEXT_CUT):
                cut_words[name] = words
            if titles := pg.evaluate(OVER_TITLE):
                covered[name] = titles
            # a one-line box at least a line of its text tall (helper 42: 38 px for 59, its text's foot cut)
            if short := pg.evaluate("() => [...document.querySelectorAll('.block textarea[rows=\"1\"]')]"
                                    ".filter((t) => t.offsetParent && t.scrollHeight > t.clientHeight + 2)"
                                    ".map((t) => t.closest('[id]').id + ' ' + t.clientHeight + '/' + t.scrollHeight)"):
                cut_words[name + " (boxes)"] = short
        # no word of a table's cell or a radio's option broken over two lines (helper 44: "attenti / on", "63." over
        # "36", helper 45: a sacreBLEU signature's "smo / oth"); a token longer than 24 characters may break
        if broken := pg.evaluate(BROKEN_WORDS):
            cut_words[name + " (broken)"] = broken
        # each tab button as tall as its line (helper 43: Gradio's 32 px cut the foot of a 42 px line)
        if short := pg.evaluate("() => [...document.querySelectorAll('#tabs button[role=tab]')]"
                                ".filter((b) => b.offsetParent && b.scrollHeight > b.clientHeight + 1)"
                                ".map((b) => b.textContent.trim() + ' ' + b.clientHeight + '/' + b.scrollHeight)"):
            cut_words["tab buttons"] = short
        assert {"model", "head", "ablation-preset"} <= set(found), found
        cut = [d for d in found.values() if d["value"] and not d["shown"]]
        assert cut == [], cut
        assert found["model"]["shown"] == "input", found["model"]  # a value that fits is left as it is, in its input
        assert cut_words == {}, cut_words
        assert covered == {}, covered
        if context["viewport"]["width"] > 400:
            return
        # at 320 px the preset's long value is drawn whole; another chosen with the keys is drawn whole in its turn
        open_tab(pg, "Experiments")
        preset = pg.locator("#ablation-preset input")
        tab_to(pg, "e.closest('#ablation-preset') && e.getAttribute('role') === 'combobox'", limit=200)
        pg.wait_for_timeout(300)
        # focused, still whole (helper 44: "every cross-attent", the ▾ over it)
        focused = {d["id"]: d for d in pg.evaluate(DROPDOWNS)}["ablation-preset"]
        assert focused["shown"], focused
        # nor painted over by the selection Tab makes of the whole value (helper 45: white on blue, cut at the edge)
        selection = pg.evaluate("() => { const i = document.activeElement, c = getComputedStyle(i, '::selection');"
                                " return i.selectionEnd > i.selectionStart ? c.color + ' on ' + c.backgroundColor : 'none'; }")
        assert selection in ("none", "rgba(0, 0, 0, 0) on rgba(0, 0, 0, 0)"), selection
        before = preset.input_value()
        pg.keyboard.press("ArrowDown")
        pg.keyboard.press("ArrowDown")
        pg.keyboard.press("Enter")
        pg.wait_for_function("(b) => document.querySelector('#ablation-preset input').value !== b", arg=before,
                             timeout=5_000)
        pg.keyboard.press("Tab")  # (the value is drawn over the box when the focus leaves it)
        pg.wait_for_timeout(500)
        chosen = {d["id"]: d for d in pg.evaluate(DROPDOWNS)}["ablation-preset"]
        assert chosen["value"] != before and chosen["shown"], chosen
        assert pg.errors == []
