"""README.md and docs/ point at what exists, and README.md stays a front page.

- every relative Markdown link and image in README.md and docs/*.md points at a file or folder in the repository
  (http(s), mailto and other schemes and pure #anchors are left alone; #fragment and ?query are stripped), and an
  anchor into one of these pages names one of its headings;
- README.md is at most 15,000 bytes (issue 31: what it is, two commands, a quick start, a map of docs/);
- every repository path these pages name in backticks (inline code and code blocks) that starts with explorer/,
  model/, viz/, training/, bench/, scripts/, tests/ or docs/ exists: docs that drift from the code fail here;
- docs/architecture.md's map names every file under explorer/ (a tab module by its name in the tabs/ row).
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
README_MAX_BYTES = 15_000
PREFIXES = ("explorer", "i18n", "model", "viz", "training", "bench", "scripts", "tests", "docs")

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})[^\n]*\n.*?^ {0,3}\1[ \t]*$", re.S | re.M)
CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.S)
# [text](target "title") and ![alt](target); the text may hold one level of brackets
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+(?:\"[^\"]*\"|'[^']*'))?\s*\)")
REF_DEF = re.compile(r"^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)", re.M)
HTML_REF = re.compile(r"""<(?:img|a|source)\b[^>]*?\b(?:src|href)\s*=\s*["']([^"']+)["']""", re.I)
SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*:", re.I)  # http:, https:, mailto:, ...
HEADING = re.compile(r"^ {0,3}#{1,6}[ \t]+(.+?)[ \t]*#*[ \t]*$", re.M)
# a repository path: one of PREFIXES, then path characters; not the tail of a longer path or URL
REPO_PATH = re.compile(r"(?<![\w./$~-])((?:" + "|".join(PREFIXES) + r")/[\w./-]*)")
PLACEHOLDER = "<{*["  # docs/<name>.md, tests/test_{a,b}.py: the part before it must exist


def without_code(text: str) -> str:
    """The Markdown with code blocks and code spans blanked out, so that code is never read as a link."""
    text = FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    return CODE_SPAN.sub(lambda m: " " * len(m.group(0)), text)


def code(text: str) -> list[str]:
    """Everything in backticks: code blocks, then code spans outside them."""
    blocks = [m.group(0) for m in FENCE.finditer(text)]
    rest = FENCE.sub("", text)
    return blocks + [m.group(2) for m in CODE_SPAN.finditer(rest)]


def link_targets(text: str) -> list[str]:
    prose = without_code(text)
    found = [m.group(1) for m in LINK.finditer(prose)]
    found += [m.group(1) for m in REF_DEF.finditer(prose)]
    found += [m.group(1) for m in HTML_REF.finditer(prose)]
    return [t[1:-1] if t.startswith("<") and t.endswith(">") else t for t in found]


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: code and link markup dropped, lower case, punctuation out, spaces to '-'."""
    text = re.sub(r"`([^`]*)`", r"\1", heading)
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"[^\w\- ]", "", text.strip().lower())
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    for m in HEADING.finditer(FENCE.sub("", page.read_text(encoding="utf-8"))):
        s = slug(m.group(1))
        n = seen.get(s, 0)
        seen[s] = n + 1
        out.add(s if n == 0 else f"{s}-{n}")
    return out


def broken_links(page: Path, root: Path = ROOT) -> list[str]:
    """Each relative link or image of ``page`` that names nothing in the repository, with why."""
    bad = []
    for target in link_targets(page.read_text(encoding="utf-8")):
        if SCHEME.match(target) or target.startswith("#"):
            continue  # http(s), mailto, ...; an anchor in the page itself
        path, _, fragment = unquote(target).partition("#")
        path = path.partition("?")[0]
        if not path:
            continue
        resolved = ((root / path.lstrip("/")) if path.startswith("/") else (page.parent / path)).resolve()
        if not resolved.is_relative_to(root.resolve()):
            bad.append(f"{target}: outside the repository")
        elif not resolved.exists():
            bad.append(f"{target}: no such file or folder")
        elif fragment and resolved.suffix == ".md" and resolved.is_file() and fragment not in anchors(resolved):
            bad.append(f"{target}: {resolved.name} has no heading #{fragment}")
    return bad


def repo_paths(text: str) -> set[str]:
    """Every repository path under PREFIXES named in backticks (a placeholder cuts the path at its folder)."""
    out = set()
    for snippet in code(text):
        for m in REPO_PATH.finditer(snippet):
            path = m.group(1)
            if m.end() < len(snippet) and snippet[m.end()] in PLACEHOLDER:
                path = path.rpartition("/")[0] + "/"
            out.add(path.rstrip("."))
    return out


def missing_paths(page: Path, root: Path = ROOT) -> list[str]:
    return sorted(p for p in repo_paths(page.read_text(encoding="utf-8")) if not (root / p).exists())


def test_the_pages_are_there():
    names = {p.name for p in PAGES}
    for page in ("teaching.md", "api.md", "model-card.md", "performance.md", "deploy.md", "architecture.md"):
        assert page in names, f"docs/{page} is missing"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_points_at_something(page):
    assert broken_links(page) == [], f"{page.relative_to(ROOT)}: broken links"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_path_in_backticks_exists(page):
    assert missing_paths(page) == [], f"{page.relative_to(ROOT)} names paths that do not exist"


def test_the_map_names_every_file_of_explorer():
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    named = repo_paths(text)
    unnamed = []
    for f in sorted((ROOT / "explorer").rglob("*")):
        rel = f.relative_to(ROOT).as_posix()
        if not f.is_file() or f.name == "__init__.py" or "__pycache__" in f.parts or f.suffix == ".pyc":
            continue
        in_tabs = f.parent.name == "tabs" and f"`{f.name}`" in text
        if rel not in named and not in_tabs:
            unnamed.append(rel)
    assert unnamed == [], "docs/architecture.md's map does not name these files"


def test_readme_is_a_front_page():
    size = (ROOT / "README.md").stat().st_size
    assert size <= README_MAX_BYTES, f"README.md is {size:,} bytes; the rest belongs in docs/ (at most {README_MAX_BYTES:,})"


def test_the_checks_catch_what_they_should(tmp_path):
    """The checkers themselves: a broken link, image, anchor or path is found; code, URLs and anchors are not links."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "there.md").write_text("# A page\n\n## Its part\n", encoding="utf-8")
    (tmp_path / "model").mkdir()
    (tmp_path / "model" / "real.py").write_text("", encoding="utf-8")
    page = tmp_path / "README.md"
    page.write_text(
        "[fine](docs/there.md) [fine too](docs/there.md#its-part \"title\") [folder](docs/) [top](#a-page)\n"
        "[web](https://example.com/x) [mail](mailto:a@b.c) ![pic](docs/there.md?raw=1)\n"
        "[gone](docs/gone.md) ![gone too](docs/pic.png) [bad anchor](docs/there.md#nothing) [out](../elsewhere.md)\n"
        "`[not a link](nowhere/x.md)`\n\n"
        "```bash\npython model/real.py && python model/missing.py   # see https://example.com/model/x.py\n```\n"
        "`model/real.py` `tests/ghost.py::test_x` `docs/<name>.md` (`viz/nothing.py`) `runs/not-checked.py`\n",
        encoding="utf-8")
    assert broken_links(page, tmp_path) == ["docs/gone.md: no such file or folder",
                                            "docs/pic.png: no such file or folder",
                                            "docs/there.md#nothing: there.md has no heading #nothing",
                                            "../elsewhere.md: outside the repository"]
    assert missing_paths(page, tmp_path) == ["model/missing.py", "tests/ghost.py", "viz/nothing.py"]
    assert slug("4. Checkpoint folder") == "4-checkpoint-folder"
    assert slug('The "unsure" warning') == "the-unsure-warning"
    assert slug("`explorer/serving/`: its files") == "explorerserving-its-files"
