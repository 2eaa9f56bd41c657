"""Rewrite a checkpoint's weights in a smaller storage type, keeping the full-precision file aside.

    python -m model.compress --checkpoint checkpoints/en-de --dtype int8

The original goes to work/model.float32.safetensors (ignored by git), so the choice can be undone
or compared with `python -m model.evaluate`.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

from safetensors.torch import load_file

from model.checkpoint import WEIGHTS, CheckpointError, load_checkpoint, save_checkpoint


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--checkpoint", required=True)
    p.add_argument("--dtype", choices=["float32", "float16", "int8"], required=True)
    args = p.parse_args(argv)
    folder = Path(args.checkpoint)
    keep = folder / "work" / "model.float32.safetensors"
    try:
        if not keep.exists():
            keep.parent.mkdir(exist_ok=True)
            shutil.copy2(folder / WEIGHTS, keep)
        model, tok, training = load_checkpoint(folder)  # config, tokenizer and current weights, all checked
        model.load_state_dict(load_file(str(keep)))  # then the full-precision original
    except CheckpointError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    save_checkpoint(folder, model, tok, training, dtype=args.dtype)
    print(f"{folder / WEIGHTS}: {(folder / WEIGHTS).stat().st_size / 2**20:.1f} MiB as {args.dtype} "
          f"(float32 original kept in {keep})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
