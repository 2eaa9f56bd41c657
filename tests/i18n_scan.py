"""Finds English a person would read that is written in the sources instead of the catalogues (i18n/).

    python tests/i18n_scan.py            # every finding, file:line: text

Two kinds of finding:
- prose: a string literal (Python or JavaScript) with at least two words, one of them a common English word no German
  sentence uses (``the``, ``and``, ``with``, ...), markup and ``{placeholders}`` removed;
- a label: a literal with letters given to a Gradio component as what it shows (``label=``, ``info=``,
  ``placeholder=``, a Button's, Tab's or Accordion's text, a Markdown or HTML body).
Docstrings, comments, log lines and strings that only programmers see (exceptions that are not ``UserError``,
``print``) are not findings. tests/test_i18n.py fails on any finding not in its list of reviewed exceptions.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# the code that makes what the page shows (model/ and training/ speak to programmers and logs)
PYTHON = ["app.py", "explorer/page", "explorer/api", "explorer/classroom", "explorer/serving/request.py", "viz"]
JAVASCRIPT = ["explorer/page/static", "explorer/classroom/static", "explorer/offline/static"]
ENGLISH = re.compile(r"\b(the|and|with|this|that|from|each|your|you|not|one|of|to|is|are|for|at|by|it|its|be|or|"
                     r"what|how|when|which|here|there|more|can|has|have|click|tap|try|shows?|than|into|only|"
                     r"been|were|would|could|should|these|those|them|they|their|other)\b", re.I)
WORD = re.compile(r"[^\W\d][\w'’-]*")  # a word in any script ("frühere" is one word, not "fr" + "here")
CODE = re.compile(r"^\s*(CREATE|INSERT|DELETE|SELECT|UPDATE)\b|:not\(|\[[a-z-]+(=|\])|^[.#][a-z]")  # SQL, selectors
SHOWN = {"label", "info", "placeholder"}
SHOWS_FIRST = {"Button", "Tab", "Accordion", "Markdown", "HTML", "TabItem"}
QUIET_CALLS = {"print", "debug", "info", "warning", "error", "exception", "critical", "log"}  # logs, not the page


def plain(text: str) -> str:
    """Text as read: markup, entities, {placeholders} and ${expressions} out."""
    text = re.sub(r"<[^>]*>|<[a-zA-Z/][^>]*$|^[^<]*?['\"]?>", " ", text)  # tags, and a tag cut by the literal
    text = re.sub(r"&[a-z#0-9]+;", " ", text)
    text = re.sub(r"\$?\{[^{}]*\}", " ", text)
    return text


KEY = re.compile(r"^[a-z_][a-z0-9_]*(\.[A-Za-z0-9_\-]+)+$")  # a catalogue key: "views.status.shows"


def is_prose(text: str) -> bool:
    if KEY.match(text.strip()):
        return False
    text = plain(text)
    if re.search(r"https?://|[./][a-z]+\.(py|js|json|css)\b", text) and len(WORD.findall(text)) < 6:
        return False  # a URL or a path
    if CODE.search(text):
        return False
    words = [w for w in WORD.findall(text) if "_" not in w and not any(ch.isdigit() for ch in w)]
    return len(words) >= 2 and bool(ENGLISH.search(" ".join(words)))


def _docstrings(tree: ast.AST) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = getattr(node, "body", [])
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                out.add(id(body[0].value))
    return out


def _quiet(tree: ast.AST) -> set[int]:
    """Strings inside log/print calls and in exceptions other than UserError (programmers read those)."""
    out = set()
    for node in ast.walk(tree):
        inside = None
        if isinstance(node, ast.Call):
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
            if name in QUIET_CALLS:
                inside = node
        if isinstance(node, ast.Raise) and node.exc is not None:
            exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            name = exc.attr if isinstance(exc, ast.Attribute) else exc.id if isinstance(exc, ast.Name) else ""
            if name not in ("UserError", "RoomError", "Refused"):
                inside = node
        if inside is not None:
            out |= {id(n) for n in ast.walk(inside)}
    return out


def _literal_text(node: ast.AST) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "{x}" for v in node.values)
    return None


def scan_python(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = _docstrings(tree) | _quiet(tree)
    found: dict[int, tuple[int, str]] = {}
    inner = {id(v) for n in ast.walk(tree) if isinstance(n, ast.JoinedStr) for v in n.values}
    for node in ast.walk(tree):
        if id(node) in skip or id(node) in inner:
            continue
        text = _literal_text(node)
        if text is not None and is_prose(text):
            found[id(node)] = (node.lineno, text)
        if isinstance(node, ast.Call):  # what a component shows
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
            shown = [k.value for k in node.keywords if k.arg in SHOWN]
            if name in SHOWS_FIRST and node.args:
                shown.append(node.args[0])
            if name in SHOWS_FIRST:
                shown += [k.value for k in node.keywords if k.arg == "value"]
            for value in shown:
                text = _literal_text(value)
                if text is not None and re.search(r"[A-Za-z]{2}", plain(text)) and id(value) not in skip:
                    found[id(value)] = (value.lineno, text)
    return sorted(found.values())


# JavaScript: a small tokenizer, enough for these files (strings, template literals, comments, regex literals)
def js_strings(source: str) -> list[tuple[int, str]]:
    out, i, n, line = [], 0, len(source), 1
    prev = ""  # the last significant character: decides whether "/" starts a regex
    while i < n:
        c = source[i]
        if c == "\n":
            line += 1
            i += 1
            continue
        if source.startswith("//", i):
            j = source.find("\n", i)
            i = n if j < 0 else j
            continue
        if source.startswith("/*", i):
            j = source.find("*/", i + 2)
            j = n if j < 0 else j + 2
            line += source.count("\n", i, j)
            i = j
            continue
        if c in "'\"`":
            j, buf, start = i + 1, [], line
            depth = 0
            while j < n:
                d = source[j]
                if d == "\\":
                    buf.append(source[j : j + 2])
                    j += 2
                    continue
                if c == "`" and source.startswith("${", j):
                    depth += 1
                    buf.append("${")
                    j += 2
                    continue
                if c == "`" and depth and d == "}":
                    depth -= 1
                    buf.append("}")
                    j += 1
                    continue
                if d == c and not depth:
                    break
                if d == "\n":
                    line += 1
                buf.append(d)
                j += 1
            out.append((start, "".join(buf)))
            i = j + 1
            prev = c
            continue
        if c == "/" and (prev == "" or prev in "(,=:[!&|?{};+-*%<>~^"):  # a regex literal
            j, klass = i + 1, False
            while j < n and source[j] != "\n":
                if source[j] == "\\":
                    j += 2
                    continue
                if source[j] == "[":
                    klass = True
                elif source[j] == "]":
                    klass = False
                elif source[j] == "/" and not klass:
                    break
                j += 1
            i = j + 1
            prev = "/"
            continue
        if not c.isspace():
            prev = c
        i += 1
    return out


def scan_js(path: Path) -> list[tuple[int, str]]:
    source = path.read_text(encoding="utf-8")
    lines = source.split("\n")
    found = []
    for line, text in js_strings(source):
        code = lines[line - 1]
        if re.search(r"console\.(log|warn|error|debug)", code):
            continue
        if is_prose(text):
            found.append((line, text))
    return found


def files(roots: list[str], suffix: str) -> list[Path]:
    out = []
    for root in roots:
        path = ROOT / root
        out += [path] if path.is_file() else sorted(path.rglob(f"*{suffix}"))
    return [p for p in out if p.suffix == suffix]


def findings() -> list[tuple[str, int, str]]:
    out = []
    for path in files(PYTHON, ".py"):
        out += [(str(path.relative_to(ROOT)), line, text) for line, text in scan_python(path)]
    for path in files(JAVASCRIPT, ".js"):
        if path.name == "i18n.js":
            pass
        out += [(str(path.relative_to(ROOT)), line, text) for line, text in scan_js(path)]
    return out


if __name__ == "__main__":
    found = findings()
    for name, line, text in found:
        print(f"{name}:{line}: {text[:110]!r}")
    print(f"{len(found)} findings", file=sys.stderr)
