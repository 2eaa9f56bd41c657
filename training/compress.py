"""Rewrite a checkpoint's weights in a smaller storage type, keeping the full-precision file aside.

    python -m training.compress --checkpoint checkpoints/en-de --dtype int8

The original goes to work/model.float32.safetensors (ignored by git), so the choice can be undone
or compared with `python -m training.evaluate`. Weights that are float32 now are the original: they replace any
copy kept from an earlier compression (a model retrained into the same folder), so only a folder already
compressed falls back on the kept copy.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

from safetensors import safe_open
from safetensors.torch import load_file

from model.checkpoint import WEIGHTS, CheckpointError, load_checkpoint, save_checkpoint


def _is_float32(path: Path) -> bool:
    """Whether every floating-point tensor in the file is stored as float32 (an uncompressed original)."""
    with safe_open(str(path), framework="pt") as f:
        return all(f.get_slice(k).get_dtype() in ("F32", "I64") for k in f.keys())


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--checkpoint", required=True)
    p.add_argument("--dtype", choices=["float32", "float16", "int8"], required=True)
    args = p.parse_args(argv)
    folder = Path(args.checkpoint)
    keep = folder / "work" / "model.float32.safetensors"
    try:
        if not keep.exists() or _is_float32(folder / WEIGHTS):
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
