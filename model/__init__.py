"""The Transformer of "Attention Is All You Need" and everything that runs it."""

from model.translator import load_pretrained  # noqa: E402,F401
