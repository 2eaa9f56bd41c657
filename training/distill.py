"""Sequence-level knowledge distillation (Kim and Rush, 2016): a bigger teacher translates the training sources, and
the small student the app ships learns the teacher's translations instead of the references.

    python -m training.distill --teacher runs/teacher --out runs/distilled            # every corpus of --mix
    python -m training.train --out runs/student --data-dir runs/distilled/multi30k \\
        --tatoeba-dir runs/distilled/tatoeba                                           # the student, as usual

For each corpus of --mix, ``<out>/<corpus>/`` gets the training sources as they are, the teacher's translations of
them (greedy, or --beam), line N for line N, and the val split copied unchanged: the student is still validated
against people's translations. Test splits are never read. The translations are written in chunks to
``train.<tgt>.partial``, so a stopped run (a session's end, a lent GPU handed back) continues where it stopped when
the same command is run again, and skips a corpus it finished; a partial file or folder that another teacher,
decoding or set of sources made is refused, not mixed in. ``distilled.json`` records the teacher (its weights'
SHA-256), the decoding, the sources' SHA-256 and the counts; ``training.train`` copies it into the student's training
record. On a GPU the teacher decodes there (--device, as in training.train). Greedy decodes in batches; beam search
decodes one sentence at a time, several times slower.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import sys
import time
from pathlib import Path

import torch

from model.checkpoint import CheckpointError, load_checkpoint, weights_sha256
from model.translator import DecodeOptions, Translator
from training import distributed as dist
from training.data import DISTILLED_RECORD, MisalignedPairs, corpus_dirs, read_split
from training.mixing import Mix
from training.progress import minutes

RECORD = DISTILLED_RECORD
CHUNK = 4096  # sentences decoded between two writes of the partial file


def languages(training: dict) -> tuple[str, str]:
    """(source, target) language codes of a checkpoint's training record ("en", "de" unless it was de-en)."""
    src, _, tgt = training.get("direction", "en-de").partition("-")
    return src, tgt


def done_lines(path: Path) -> list[str]:
    """The translations a previous run already wrote (none when there is no partial file). A line cut off by a
    stop in the middle of a write is dropped from the file too, so that the next chunk starts on a line of its own."""
    if not path.is_file():
        return []
    text = path.read_text(encoding="utf-8")
    if text and not text.endswith("\n"):
        text = text[: text.rfind("\n") + 1]
        path.write_text(text, encoding="utf-8")
    return text.split("\n")[:-1]  # each complete line ends with "\n"


def write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_bytes(data)
    tmp.replace(path)


def write_gz(path: Path, lines: list[str]) -> None:
    write_atomic(path, gzip.compress("".join(line + "\n" for line in lines).encode("utf-8"), mtime=0))


def one_line(text: str) -> str:
    """A translation as one line of a corpus file (a line break inside it would shift every later pair)."""
    return " ".join(text.split())


def identity(teacher_sha256: str, decoding: str, languages: str, sources: list[str]) -> dict[str, str]:
    """What makes one distilled corpus: a partial file or a finished folder is continued or kept only for the same."""
    digest = hashlib.sha256("\n".join(sources).encode("utf-8")).hexdigest()
    return {"teacher_sha256": teacher_sha256, "decoding": decoding, "languages": languages, "sources_sha256": digest}


def check_partial(partial: Path, made_of: dict[str, str]) -> None:
    """Refuse to continue a partial file that another teacher, decoding or set of sources began; start one with its
    description beside it."""
    side = partial.with_suffix(partial.suffix + ".json")
    if partial.is_file():
        began = json.loads(side.read_text()) if side.is_file() else None
        if began != made_of:
            differs = ", ".join(k for k in made_of if (began or {}).get(k) != made_of[k]) if began else "its record"
            raise ValueError(f"{partial} was begun by another run ({differs} differ): remove it (and {side.name}) "
                             "to start again")
    else:
        write_atomic(side, (json.dumps(made_of, indent=1) + "\n").encode())


def distill_corpus(tr: Translator, sources: list[str], partial: Path, opts: DecodeOptions, batch_size: int,
                   made_of: dict[str, str], chunk: int = CHUNK,
                   log=lambda line: print(line, flush=True)) -> list[str]:
    """The teacher's translation of every source, in order; continues the partial file a stopped run of the same
    teacher, decoding and sources left."""
    check_partial(partial, made_of)
    done = done_lines(partial)
    if len(done) > len(sources):
        raise ValueError(f"{partial} holds {len(done)} translations but the split has {len(sources)} sources: "
                         "it belongs to other data; remove it to start again")
    t0, first = time.time(), len(done)
    with open(partial, "a", encoding="utf-8") as f:
        for k in range(len(done), len(sources), chunk):
            outs = [one_line(t) for t in tr.translate_batch(sources[k : k + chunk], opts, batch_size=batch_size)]
            f.write("".join(o + "\n" for o in outs))
            f.flush()
            done += outs
            rate = (len(done) - first) / max(time.time() - t0, 1e-9)
            log(f"{partial.parent.name}: {len(done)}/{len(sources)} sentences, {rate:.0f} a second, "
                f"{minutes((len(sources) - len(done)) / rate / 60)} left")
    return done


def finished(folder: Path, made_of: dict[str, str]) -> bool:
    """The folder holds a distilled corpus of the same teacher, decoding and sources (a rerun skips it)."""
    path = folder / RECORD
    if not path.is_file():
        return False
    rec = json.loads(path.read_text())
    return all(rec.get(k) == v for k, v in made_of.items())


def write_corpus(folder: Path, langs: tuple[str, str], train_src: list[str], hyps: list[str],
                 val: tuple[list[str], list[str]], record: dict) -> None:
    """The student's corpus folder; the record last but one, the partial file last, so a stop between any two
    steps leaves either a partial to continue or a finished folder."""
    src_lang, tgt_lang = langs
    write_gz(folder / f"train.{src_lang}.gz", train_src)
    write_gz(folder / f"train.{tgt_lang}.gz", hyps)
    write_gz(folder / f"val.{src_lang}.gz", val[0])
    write_gz(folder / f"val.{tgt_lang}.gz", val[1])
    write_atomic(folder / RECORD, (json.dumps(record, indent=1) + "\n").encode())
    partial = folder / f"train.{tgt_lang}.partial"
    partial.unlink(missing_ok=True)
    partial.with_suffix(partial.suffix + ".json").unlink(missing_ok=True)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--teacher", required=True, help="the teacher's checkpoint folder")
    p.add_argument("--out", required=True, help="folder to write one corpus folder per corpus into")
    p.add_argument("--mix", default="multi30k,tatoeba", help="the corpora whose training sources to translate")
    p.add_argument("--data-dir", default=None, help="Multi30k folder (default as in training.train)")
    p.add_argument("--tatoeba-dir", default=None, help="Tatoeba folder (default as in training.train)")
    p.add_argument("--beam", type=int, default=0, help="beam size; 0 or 1 = greedy (batched; beam: one sentence at a time)")
    p.add_argument("--length-penalty", type=float, default=1.0, help="GNMT alpha, with --beam")
    p.add_argument("--batch-size", type=int, default=256, help="sentences decoded together (greedy)")
    p.add_argument("--train-limit", type=int, default=0, help="only the first N training pairs of each corpus")
    p.add_argument("--device", default=os.environ.get("ATTENTION_EXPLORER_DEVICE", "auto"), choices=dist.DEVICES)
    p.add_argument("--threads", type=int, default=2, help="torch CPU threads (match the cores)")
    return p.parse_args(argv)


def distill_one(tr: Translator, name: str, args, opts: DecodeOptions, teacher: dict[str, str],
                langs: tuple[str, str]) -> None:
    """One corpus of the mix: skipped when already distilled by the same teacher, else translated (continuing a
    partial file) and written."""
    folder = corpus_dirs(args)[name]
    train_src, _ = read_split(folder, "train", *langs, corpus=name)
    val = read_split(folder, "val", *langs, corpus=name)
    if args.train_limit:
        train_src = train_src[: args.train_limit]
    folder = Path(args.out) / name
    made_of = identity(teacher["teacher_sha256"], teacher["decoding"], "-".join(langs), train_src)
    if finished(folder, made_of):
        print(f"{folder}: already distilled by this teacher, kept", flush=True)
        return
    folder.mkdir(parents=True, exist_ok=True)
    hyps = distill_corpus(tr, train_src, folder / f"train.{langs[1]}.partial", opts, args.batch_size, made_of)
    write_corpus(folder, langs, train_src, hyps, val, {"teacher": teacher["teacher"], **made_of, "corpus": name,
                                                       "train_pairs": len(train_src), "val_pairs": len(val[0])})
    print(f"wrote {folder}", flush=True)


def decode_options(args) -> tuple[DecodeOptions, str]:
    """The teacher's decoding and its name in the record ("greedy", "beam 4, length penalty 1")."""
    if args.beam <= 1:
        return DecodeOptions(), "greedy"
    opts = DecodeOptions(method="beam", beam_size=args.beam, length_penalty=args.length_penalty)
    opts.check()
    return opts, f"beam {args.beam}, length penalty {args.length_penalty:g}"


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    torch.set_num_threads(args.threads)
    try:
        device = dist.choose_device(args.device, torch.cuda.is_available())
        mix = Mix.parse(args.mix)
        model, tok, training = load_checkpoint(Path(args.teacher))
        opts, decoding = decode_options(args)
    except (CheckpointError, FileNotFoundError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    tr = Translator(model.to(device), tok, Path(args.teacher).name)
    teacher = {"teacher": str(args.teacher), "teacher_sha256": weights_sha256(Path(args.teacher)), "decoding": decoding}
    print(f"teacher {args.teacher} ({model.num_parameters() / 1e6:.1f}M parameters) on {device}, {decoding}",
          flush=True)
    for name in mix.weights:
        try:
            distill_one(tr, name, args, opts, teacher, languages(training))
        except (FileNotFoundError, MisalignedPairs, ValueError) as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
