"""English on stdin, German on stdout: one sentence per line, same order, empty lines kept.

    python -m model.translate --checkpoint checkpoints/en-de [--beam 5] < input.en > output.de
"""

from __future__ import annotations

import argparse
import sys

import torch

from model.checkpoint import CheckpointError
from model.translator import DecodeOptions, load_pretrained


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--checkpoint", default="en-de", help="folder, or a name under checkpoints/")
    p.add_argument("--beam", type=int, default=0, help="beam size; 0 or 1 = greedy (batched)")
    p.add_argument("--length-penalty", type=float, default=1.0, help="GNMT alpha (1.0 chosen on val)")
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--threads", type=int, default=2)
    args = p.parse_args(argv)
    torch.set_num_threads(args.threads)
    try:
        tr = load_pretrained(args.checkpoint)
    except (CheckpointError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    # Lines, not split(): "\n" ends a sentence; a stray "\r" or U+2028 inside one does not.
    lines = [line.removesuffix("\r") for line in sys.stdin.read().split("\n")]
    if lines and lines[-1] == "":
        lines.pop()  # the final newline does not start another sentence
    beam = args.beam if args.beam > 1 else 0
    opts = DecodeOptions("beam", beam_size=beam, length_penalty=args.length_penalty) if beam else DecodeOptions()
    out = tr.translate_batch(lines, opts, batch_size=args.batch_size)
    sys.stdout.write("".join(o.replace("\n", " ") + "\n" for o in out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
