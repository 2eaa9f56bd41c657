"""Serving never imports training code: the app runs with model.train and model.data (corpus reading) absent."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_app_and_its_handlers_never_import_training_code():
    code = ("import sys, app, explorer.handlers, explorer.beyond, explorer.api, explorer.ui\n"
            "bad = sorted(m for m in sys.modules if m in ('model.train', 'model.data'))\n"
            "print(','.join(bad))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "", f"serving imported {out.stdout.strip()}"
