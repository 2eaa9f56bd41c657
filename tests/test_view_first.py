"""The view comes first (issue 35), measured in Debian's Chromium on the screens a class meets: the first heatmap
whole on a laptop's first screen (1280x800, 1366x768); presentation mode on a 1920x1080 projector (the heatmap's
cells over half the screen before and after a tab switch, tick labels of 24 px or more, one view per tab); no figure
title clipped on a phone (390x844, 320x640); a following phone shown the teacher's newly opened view.
"""

import pytest
from test_browser import browser, server, settled  # noqa: F401
from test_every_screen import in_sight, opened

# A figure's geometry as the screen shows it: the figure's box (labels and colour bar included), its cells (the
# first subplot's drag layer, which covers exactly the axes' area), the smallest tick label's font size in CSS px,
# and the viewport.
GEOMETRY = """(id) => {
  const el = document.querySelector('#' + id + ' .js-plotly-plot');
  if (!el || !el.offsetParent) return null;
  const box = (e) => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  const cells = el.querySelector('.nsewdrag');
  const ticks = [...el.querySelectorAll('.xtick text, .ytick text')].map((t) => parseFloat(getComputedStyle(t).fontSize));
  return { figure: box(el), cells: cells ? box(cells) : null, tick: ticks.length ? Math.min(...ticks) : 0,
           width: window.innerWidth, height: window.innerHeight, scrollY: window.scrollY };
}"""


def geometry(pg, elem_id: str) -> dict:
    return pg.evaluate(GEOMETRY, elem_id)


def on_screen(g: dict, box: list[float]) -> float:
    """The area of ``box`` inside the viewport, as a fraction of the viewport."""
    left, top, right, bottom = box
    w = max(0.0, min(right, g["width"]) - max(left, 0))
    h = max(0.0, min(bottom, g["height"]) - max(top, 0))
    return w * h / (g["width"] * g["height"])


@pytest.mark.parametrize("size", [(1280, 800), (1366, 768)], ids=["1280x800", "1366x768"])
def test_the_first_heatmap_is_whole_on_a_laptops_first_screen(browser, server, size):  # noqa: F811
    width, height = size
    with opened(browser, server, viewport={"width": width, "height": height}) as pg:
        settled(pg)
        g = geometry(pg, "heatmap")
        assert g["scrollY"] == 0
        left, top, right, bottom = g["figure"]  # title, cells, tick labels and colour bar
        assert left >= 0 and top >= 0 and right <= width and bottom <= height, g
        assert pg.locator("#heatmap .colorbar").count() == 1
        for part in ("#sentence", "#translate", "#translation"):  # beside a compact input row and the translation
            assert in_sight(pg, part), part
        assert pg.errors == []
