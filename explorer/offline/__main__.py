"""``python -m explorer.offline OUT/ [--model en-de]``: write the offline bundle into OUT/ (see ``bundle``)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from explorer.offline.bundle import BundleError, write_bundle


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m explorer.offline",
                                     description="Write Attention Explorer's offline bundle: open OUT/index.html "
                                                 "from a file, a USB stick or any static host; no server needed.")
    parser.add_argument("out", type=Path, help="the folder to write (created; files of an earlier bundle replaced)")
    parser.add_argument("--model", default="en-de", help="the shipped checkpoint to put in it (default: en-de)")
    args = parser.parse_args(argv)
    try:
        report = write_bundle(args.out, args.model)
    except BundleError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    for name, size in report.items():
        print(f"{size / 1e6:7.2f} MB  {name}")
    print(f"{sum(report.values()) / 1e6:7.2f} MB  in all: open {args.out / 'index.html'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
