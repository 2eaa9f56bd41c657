"""Cell text on the page's heatmaps that carry text (head statistics, logit lens: views.js) stays readable: black on
every shade of their scales at >= 4.5:1 (WCAG 1.4.3), computed here from the scales' own stops, interpolated as
Plotly does (in RGB), with WCAG's relative luminance. Plotly's own choice (#444 or white by brightness) left 9 of 81
cell texts under 4.5:1 (issue 49)."""

import re
from pathlib import Path

VIEWS = Path(__file__).resolve().parent.parent / "explorer" / "page" / "static" / "views.js"


def luminance(rgb: tuple[float, float, float]) -> float:
    def lin(c: float) -> float:
        c /= 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (lin(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def scale(name: str) -> list[tuple[float, tuple[int, int, int]]]:
    body = re.search(rf"const {name} = (\[\[.*?\]\]);", VIEWS.read_text()).group(1)
    found = re.findall(r"\[([\d.]+), \"rgb\(([\d,]+)\)\"\]", body)
    return [(float(at), tuple(int(c) for c in rgb.split(","))) for at, rgb in found]


def test_black_text_reads_on_every_shade_of_the_cell_text_scales():
    for name in ("VIRIDIS_LIGHT", "GREENS_LIGHT"):
        stops = scale(name)
        assert len(stops) >= 5 and stops[0][0] == 0 and stops[-1][0] == 1
        shades = [tuple(a + (b - a) * k / 10 for a, b in zip(c0, c1)) for (_, c0), (_, c1) in zip(stops, stops[1:])
                  for k in range(11)]
        worst = min((luminance(c) + 0.05) / 0.05 for c in shades)
        assert worst >= 4.5, (name, worst)


def test_the_figures_with_cell_text_use_those_scales_and_black_text():
    js = VIEWS.read_text()
    stats = js[js.index('colorscale: VIRIDIS_LIGHT'):][:900]
    assert 'textfont: { color: "#000" }' in stats
    lens = js[js.index("colorscale: GREENS_LIGHT"):][:400]
    assert 'textfont: { color: "#000"' in lens
    # and the old scales, whose dark ends fail, are gone from both
    assert 'colorscale: "Viridis", cmin: 0, cmax: statRange' not in js and "colorscale: GREENS," not in js
