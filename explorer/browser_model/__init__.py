"""The model in the browser: the paper's forward pass and our tokenizer written in JavaScript (``static/``), run on the
checkpoint's own int8 weights, and the parity check that holds it to PyTorch's output (``parity``)."""

from pathlib import Path

STATIC = Path(__file__).resolve().parent / "static"
