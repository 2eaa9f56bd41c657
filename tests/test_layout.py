"""explorer/ in five parts, imports pointing down only (explorer/__init__.py is the map), i18n/ below explorer and
viz, and app.py wires only.

Read from the source with ast, nothing imported: every import of every module under explorer/, also those inside
functions, is checked against the parts its own part may use.
"""

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXPLORER = ROOT / "explorer"
# what each part may import from explorer (besides itself)
ALLOWED = {"serving": set(), "classroom": {"serving"}, "api": {"serving"}, "page": {"api", "serving", "browser_model"},
           "browser_model": {"serving"}, "offline": {"serving"}}
# a CSS rule: a selector's last character, then { property: value ... }
CSS_RULE = re.compile(r"[\w\])*#.-]\s*\{\s*-*[a-z][\w-]*\s*:[^{}]*\}")


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(path: Path, root: Path = ROOT) -> list[tuple[int, str]]:
    """(line, dotted name) of everything ``path`` imports; ``from a import b`` gives a.b (b may be a module)."""
    name = module_name(path, root)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from .x import y, from .. import z
                up = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(up + ([base] if base else []))
            out += [(node.lineno, f"{base}.{alias.name}") for alias in node.names]
    return out


def part_of(dotted: str) -> str | None:
    """explorer.api.handlers.AVERAGE -> "api"; "" for explorer itself; None outside explorer."""
    names = dotted.split(".")
    if names[0] != "explorer":
        return None
    return names[1] if len(names) > 1 else ""


def wrong_imports(root: Path = ROOT) -> list[str]:
    bad = []
    for path in sorted((root / "explorer").rglob("*.py")):
        own = part_of(module_name(path, root))
        if own not in ALLOWED:
            continue  # explorer/__init__.py; a module outside the parts fails test_every_module_sits_in_a_part
        for line, name in imported(path, root):
            target = part_of(name)
            if target is not None and target != own and target not in ALLOWED[own]:
                bad.append(f"{path.relative_to(root)}:{line} imports {name} ({own} may import "
                           f"{', '.join(sorted(ALLOWED[own])) or 'nothing else in explorer'})")
    return bad


def test_each_part_imports_only_the_parts_below_it():
    bad = wrong_imports()
    assert not bad, "upward imports:\n" + "\n".join(bad)


def test_the_words_live_below_explorer_and_viz():
    """i18n/ (the catalogues and t) is imported by explorer's parts and by viz, and imports none of them, nor model."""
    above = [f"{path.relative_to(ROOT)}:{line} imports {name}" for path in sorted((ROOT / "i18n").rglob("*.py"))
             for line, name in imported(path) if name.split(".")[0] in {"explorer", "viz", "model", "training"}]
    assert not above, above
    assert not (EXPLORER / "i18n").exists()
    assert any(name.split(".")[0] == "i18n" for path in (ROOT / "viz").glob("*.py") for _, name in imported(path))


def test_the_check_sees_imports_of_every_form(tmp_path):
    """The check itself: an upward import is found whether absolute, relative, of a module or inside a function."""
    for part in ALLOWED:
        (tmp_path / "explorer" / part).mkdir(parents=True)
    bad = {"serving/a.py": "from explorer.api import handlers\n",
           "serving/b.py": "def f():\n    from ..page import ui\n",
           "classroom/c.py": "import explorer.page.ui\n",
           "api/d.py": "from explorer import page\n",
           "api/e.py": "from ..classroom.rooms import ROOMS\n"}
    fine = {"page/f.py": "from explorer.api import handlers\nfrom ..serving import limits\nfrom . import texts\n",
            "classroom/g.py": "from explorer.serving.limits import MAX_CHARS\nimport json\n"}
    for name, text in (bad | fine).items():
        (tmp_path / "explorer" / name).write_text(text)
    found = wrong_imports(tmp_path)
    assert sorted(line.split(":")[0] for line in found) == sorted(f"explorer/{name}" for name in bad), found


def test_every_module_sits_in_a_part():
    """Nothing but the map directly in explorer/; no folder there but its parts."""
    assert [p.name for p in EXPLORER.glob("*.py")] == ["__init__.py"]
    folders = {p.name for p in EXPLORER.iterdir() if p.is_dir() and p.name != "__pycache__"}
    assert folders == set(ALLOWED)


@pytest.mark.parametrize("part", ["", *ALLOWED])
def test_each_part_says_what_it_holds_and_may_import(part):
    doc = ast.get_docstring(ast.parse((EXPLORER / part / "__init__.py").read_text(encoding="utf-8")))
    assert doc and doc.strip()
    if part:
        assert "import" in doc
    else:  # the map names every part
        assert all(f"explorer.{name}" in doc for name in ALLOWED)


def css_in(source: str) -> list[str]:
    strings = [node.value for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Constant)
               and isinstance(node.value, str)]
    return [m.group(0) for s in strings for m in CSS_RULE.finditer(s)]


def test_app_py_holds_no_css():
    assert css_in((ROOT / "app.py").read_text(encoding="utf-8")) == []
    assert css_in('CSS = """.ae-status{padding:6px 10px}\n#intro p {margin:0}"""')  # the check finds CSS
    assert css_in('js = "() => { AE.room.start(); }"') == []  # and not the page's JavaScript


def test_the_page_styles_are_a_static_file():
    css = (EXPLORER / "page" / "static" / "style.css").read_text(encoding="utf-8")
    assert len(css_in(f"CSS = {css!r}")) > 20
