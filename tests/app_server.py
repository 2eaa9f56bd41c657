"""Start app.py's Blocks in this process on a free port, for gradio_client and browser tests."""

from __future__ import annotations

import socket
from pathlib import Path

CKPT = Path(__file__).resolve().parent.parent / "checkpoints"
MODEL = "en-de" if (CKPT / "en-de" / "model.safetensors").is_file() else "toy-reverse"
SENTENCE = "A dog is running in the snow." if MODEL == "en-de" else "a b c d e"
# a Multi30k val sentence whose greedy en-de translation loops: "... steht auf einer Straße mit anderen anderen anderen
# in Europa." (scripts/val_loops.py lists them)
LOOPING_SENTENCE = "A man in a brightly-colored ski jacket stands with others on a European street."
# sentences whose greedy en-de translation falls below the model's "unsure" floor (-0.935; these: -1.31 and -2.20)
UNSURE_SENTENCES = ("The stock market fell sharply after the announcement.",
                    "Quantum chromodynamics describes the strong interaction.")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def launch(**kwargs):
    """-> (demo, url), served exactly as `python app.py` serves it. The caller closes it with demo.close()."""
    import app

    demo = app.build()
    port = free_port()
    app.serve(demo, server_name="127.0.0.1", server_port=port, prevent_thread_lock=True, quiet=True, **kwargs)
    return demo, f"http://127.0.0.1:{port}/"
