"""`python app.py`'s arguments: --port and --host reach launch(); anything else is refused with the usage, before
the models load (accessibility helper 49 started `python app.py --port 7849` and was served on 7860 unawares)."""

import subprocess
import sys
from pathlib import Path

import pytest

import app

ROOT = Path(__file__).resolve().parent.parent


def test_port_and_host_become_launchs_server_port_and_name():
    assert app.arguments([]) == {}
    assert app.arguments(["--port", "8000"]) == {"server_port": 8000}
    assert app.arguments(["--port", "8000", "--host", "0.0.0.0"]) == {"server_port": 8000, "server_name": "0.0.0.0"}


@pytest.mark.parametrize("argv", [["--nope"], ["--port", "eighty"], ["7849"]])
def test_an_argument_it_does_not_take_is_refused_with_the_usage_at_once(argv):
    done = subprocess.run([sys.executable, "app.py", *argv], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr[-500:]
    assert "usage: python app.py" in done.stderr and "--port PORT" in done.stderr
    assert "Running on" not in done.stdout  # nothing was served
