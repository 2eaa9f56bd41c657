"""Serving never imports training code: nothing of the training/ package is loaded by the app, its handlers or the
model code that serves (a test, not a promise)."""

import sys
from pathlib import Path

import processes

ROOT = Path(__file__).resolve().parent.parent


def test_the_app_and_its_handlers_never_import_training_code():
    code = ("import sys, pkgutil, model, app\n"
            "import explorer.api.handlers, explorer.api.beyond, explorer.api.endpoints, explorer.page.ui\n"
            "for m in pkgutil.iter_modules(model.__path__): __import__('model.' + m.name)\n"
            "bad = sorted(m for m in sys.modules if m == 'training' or m.startswith('training.'))\n"
            "print(','.join(bad))")
    out = processes.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "", f"serving imported {out.stdout.strip()}"
