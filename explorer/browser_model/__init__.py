"""The model in the browser: the paper's forward pass and our tokenizer written in JavaScript (``static/``), run on the
checkpoint's own int8 weights, the route that serves them (``routes``), and the parity check that holds it to
PyTorch's output (``parity``). It may import explorer.serving (the client's address) and model; nothing else of
explorer."""

from pathlib import Path

STATIC = Path(__file__).resolve().parent / "static"
