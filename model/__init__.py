"""The Transformer of "Attention Is All You Need" and everything that runs it.

``load_pretrained`` is imported lazily, so that ``model.names`` (plain strings) can be imported without torch.
"""


def __getattr__(name: str):
    if name == "load_pretrained":
        from model.translator import load_pretrained

        return load_pretrained
    raise AttributeError(f"module 'model' has no attribute {name!r}")
