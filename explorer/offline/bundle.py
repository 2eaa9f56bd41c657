"""Writes the offline bundle: a folder that works from ``file://`` or any static host, with no server.

A page opened from ``file://`` may not fetch a file nor import an ES module (Chromium refuses both: the page's origin
is opaque), so everything arrives by classic ``<script src>``:

- ``model.js``: the JS model's ES modules (``explorer/browser_model/static``) and the bundle's worker
  (``static/offline_worker.js``) turned into one classic script (``classic_script``): each module a function scope
  that returns its exports, its imports read from the modules before it. All of it sits inside one function,
  ``AE_OFFLINE_WORKER``, whose own text the page runs as a Web Worker (a ``blob:`` URL), so translating never freezes
  the page; where a worker cannot start, the page calls it in place.
- ``files.js``: the checkpoint's ``config.json``, ``model.safetensors`` and ``spm.model`` as base64 (its SHA-256
  checked against ``config.json`` in the browser, as the served model's are). The "may be wrong" estimate's reverse
  model is left out: with it the bundle would pass its 15 MB goal (about 21 MB); the page says the check needs the app.
- ``catalogues.js`` (the page's words, ``i18n/*.json``), the page's own classic scripts used as they are
  (``i18n.js``, ``views.js``, ``inside.js``, ``lesson_stops.js``), ``plotly.min.js`` (plotly's own copy), and the bundle's page
  (``static/index.html``, ``offline.js``, ``offline.css``).
"""

from __future__ import annotations

import base64
import importlib.util
import json
import re
import shutil
from pathlib import Path

from explorer.serving import limits

HERE = Path(__file__).resolve().parent
STATIC = HERE / "static"
ROOT = HERE.parents[1]
PAGE_STATIC = ROOT / "explorer" / "page" / "static"  # the page's classic scripts (read as files: no gradio needed)
CATALOGUES = ROOT / "i18n"
CHECKPOINTS = ROOT / "checkpoints"
WORKER = STATIC / "offline_worker.js"
PAGE_SCRIPTS = ("i18n.js", "views.js", "inside.js", "lesson_stops.js")
OWN_FILES = ("index.html", "offline.js", "offline.css")
MODEL_FILES = ("config.json", "model.safetensors", "spm.model")
SIZE_GOAL = 15_000_000  # bytes, the whole folder (issue 51)

# import { a, b as c } from "./x.js";   (the only import form the modules use; anything else is refused)
IMPORT = re.compile(r'^import\s*\{([^}]*)\}\s*from\s*"(\.{1,2}/[^"]+\.js)";[ \t]*$', re.M)
# (not ``export let``: its value is read once, when the module's scope returns; a later assignment would go stale)
EXPORT = re.compile(r"^export\s+(?=(?:async\s+)?(?:function\*?|class|const)\s)", re.M)
EXPORTED = re.compile(r"^export\s+(?:async\s+)?(?:function\*?|class|const)\s+([A-Za-z_$][\w$]*)", re.M)
# export const PAD = 0, UNK = 1;   (several plain constants in one statement)
MORE = re.compile(r"^export const ((?:[A-Za-z_$][\w$]* = [^,;=()]+, )+[A-Za-z_$][\w$]* = [^,;=()]+);[ \t]*$", re.M)
LEFT = re.compile(r"^\s*(?:import\b(?!\()|export\b)|\bimport\s*\(|\bimport\.meta\b", re.M)


class BundleError(Exception):
    """What stops a bundle, in words (no such model, a module form the bundler does not know, plotly missing)."""


def _exports(text: str) -> list[str]:
    names = EXPORTED.findall(text)
    for group in MORE.findall(text):
        names += [part.split("=")[0].strip() for part in group.split(", ")[1:]]
    return names


def _imports(text: str) -> list[tuple[list[tuple[str, str]], str]]:
    """[( [(exported name, local name)], relative path )] of a module's import lines."""
    out = []
    for names, path in IMPORT.findall(text):
        pairs = []
        for item in filter(None, (n.strip() for n in names.split(","))):
            parts = item.split(" as ")
            pairs.append((parts[0].strip(), parts[-1].strip()))
        out.append((pairs, path))
    return out


def classic_script(entry: Path) -> str:
    """The ES module graph under ``entry`` as classic JavaScript: each module, in the order its imports need, a
    function scope returning its exports (``const __m0 = (() => { ...; return { a, b }; })();``), the entry last.
    Refuses (BundleError) any import or export form it does not rewrite, and any imported name not exported."""
    order: list[Path] = []
    texts: dict[Path, str] = {}

    def visit(path: Path, stack: tuple[Path, ...]) -> None:
        if path in texts:
            return
        if path in stack:
            raise BundleError(f"an import cycle through {path.name}")
        if not path.is_file():
            raise BundleError(f"no module {path}")
        text = path.read_text(encoding="utf-8")
        for _, rel in _imports(text):
            visit((path.parent / rel).resolve(), stack + (path,))
        texts[path] = text
        order.append(path)

    visit(entry.resolve(), ())
    ids = {path: f"__m{i}" for i, path in enumerate(order)}
    exported = {path: _exports(texts[path]) for path in order}
    parts = []
    for path in order:
        text = texts[path]
        for pairs, rel in _imports(text):
            source = (path.parent / rel).resolve()
            missing = [name for name, _ in pairs if name not in exported[source]]
            if missing:
                raise BundleError(f"{path.name} imports {', '.join(missing)} that {source.name} does not export")
        body = IMPORT.sub(lambda m: "const { " + ", ".join(
            name if name == local else f"{name}: {local}" for name, local in _imports(m.group(0))[0][0])
            + " } = " + ids[(path.parent / m.group(2)).resolve()] + ";", text)
        body = EXPORT.sub("", body)
        left = LEFT.search(body)
        if left:
            raise BundleError(f"{path.name}: a module form the bundle cannot rewrite: {left.group(0).strip()!r}")
        parts.append(f"// ---- {path.name}\nconst {ids[path]} = (() => {{\n{body}\n"
                     f"return {{ {', '.join(exported[path])} }};\n}})();\n")
    return "".join(parts)


def _checkpoint(model: str) -> Path:
    if not re.fullmatch(r"[a-z0-9][a-z0-9_-]{0,40}", model):
        raise BundleError(f"{model!r} is not a model's name")
    folder = CHECKPOINTS / model
    missing = [name for name in MODEL_FILES if not (folder / name).is_file()]
    if missing:
        shipped = sorted(p.name for p in CHECKPOINTS.iterdir() if (p / "model.safetensors").is_file())
        raise BundleError(f"no shipped model {model!r} with {', '.join(missing)} (shipped: {', '.join(shipped)})")
    return folder


def _plotly() -> Path:
    spec = importlib.util.find_spec("plotly")
    path = spec and spec.origin and Path(spec.origin).parent / "package_data" / "plotly.min.js"
    if not path or not path.is_file():
        raise BundleError("plotly's plotly.min.js was not found: pip install -r requirements.txt")
    return path


def _settings(folder: Path) -> dict:
    """What the page needs of the model beyond its files: its name, task and positional facts (handlers.positional_info)."""
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    cfg = config["model"]
    return {"model": folder.name, "task": config.get("task") or {},
            "pe": {"kind": cfg.get("positional", "sinusoidal"), "d_model": cfg["d_model"], "model": folder.name,
                   "max_len": min(limits.MAX_PE_LENGTH, cfg["max_len"])},
            "max_chars": limits.MAX_CHARS, "max_source": limits.MAX_SOURCE_TOKENS, "max_output": limits.MAX_OUTPUT_TOKENS}


def write_bundle(out: Path, model: str = "en-de") -> dict[str, int]:
    """Write the bundle into ``out``; returns each file's size in bytes."""
    folder, plotly = _checkpoint(model), _plotly()  # (both before anything is written)
    settings = _settings(folder)
    if settings["pe"]["kind"] != "sinusoidal":
        raise BundleError(f"{model}'s positions are learned: the bundle draws the paper's sinusoids only")
    out.mkdir(parents=True, exist_ok=True)
    catalogues = {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in sorted(CATALOGUES.glob("*.json"))}
    files = {name: base64.b64encode((folder / name).read_bytes()).decode("ascii") for name in MODEL_FILES}
    texts = {
        "model.js": "// Generated by python -m explorer.offline from explorer/browser_model/static and "
                    "explorer/offline/static/offline_worker.js: do not edit.\nfunction AE_OFFLINE_WORKER() {\n"
                    "\"use strict\";\n" + classic_script(WORKER) + "}\n",
        "files.js": "window.AE_OFFLINE_FILES = " + json.dumps(files) + ";\n",
        "catalogues.js": "window.AE_I18N = " + json.dumps(catalogues, ensure_ascii=False) + ";\n"
                         "window.AE_OFFLINE = " + json.dumps(settings, ensure_ascii=False) + ";\n",
    }
    for name, text in texts.items():
        (out / name).write_text(text, encoding="utf-8")
    for name in PAGE_SCRIPTS:
        shutil.copyfile(PAGE_STATIC / name, out / name)
    for name in OWN_FILES:
        shutil.copyfile(STATIC / name, out / name)
    shutil.copyfile(plotly, out / "plotly.min.js")
    names = [*texts, *PAGE_SCRIPTS, *OWN_FILES, "plotly.min.js"]
    return {name: (out / name).stat().st_size for name in names}


__all__ = ["BundleError", "SIZE_GOAL", "classic_script", "write_bundle"]
