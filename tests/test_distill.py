"""Sequence-level distillation (training/distill.py): the teacher's translations, line for line, in corpus folders a
student trains on; a stopped run continues where it stopped; the student's record names the teacher. And the
choice of device that lets one process train or decode on a lent GPU."""

from __future__ import annotations

import gzip
import hashlib
import json

import pytest
import torch

from model.checkpoint import load_checkpoint, weights_sha256
from model.translator import Translator
from tests.test_mixing import _corpus
from training import distill
from training.distributed import choose_device
from training.train import main as train_main


def _gz(path) -> list[str]:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return f.read().split("\n")[:-1]


def _common(dirs) -> list[str]:
    return ["--data-dir", str(dirs["multi30k"]), "--tatoeba-dir", str(dirs["tatoeba"]), "--vocab-size", "400",
            "--d-model", "16", "--n-heads", "2", "--d-ff", "32", "--layers", "1", "--epochs", "1", "--average", "1",
            "--snapshots", "", "--threads", "1", "--precision", "float32"]


@pytest.fixture(scope="module")
def teacher(tmp_path_factory):
    base = tmp_path_factory.mktemp("distill")
    dirs = {"multi30k": _corpus(base / "m", "caption", 30, 5), "tatoeba": _corpus(base / "t", "everyday", 70, 8)}
    assert train_main(_common(dirs) + ["--out", str(base / "teacher"), "--lr", "0.003"]) == 0
    return base, dirs


def _translator(folder) -> Translator:
    model, tok, _ = load_checkpoint(folder)
    return Translator(model, tok)


def test_the_student_corpus_is_the_teachers_translation_of_every_source(teacher):
    base, dirs = teacher
    out = base / "distilled"
    assert distill.main(["--teacher", str(base / "teacher"), "--out", str(out), "--data-dir", str(dirs["multi30k"]),
                         "--tatoeba-dir", str(dirs["tatoeba"]), "--batch-size", "16", "--threads", "1"]) == 0
    tr = _translator(base / "teacher")
    for name, n_train, n_val in (("multi30k", 30, 5), ("tatoeba", 70, 8)):
        folder = out / name
        sources = (dirs[name] / "train.en").read_text().split("\n")[:-1]
        assert _gz(folder / "train.en.gz") == sources
        hyps = _gz(folder / "train.de.gz")
        # an independent reference: the teacher one sentence at a time, unbatched
        assert hyps == [" ".join(tr.translate(s).split()) for s in sources]
        assert any(hyps) and hyps != (dirs[name] / "train.de").read_text().split("\n")[:-1]
        for lang in ("en", "de"):  # validated against people's translations, unchanged
            assert _gz(folder / f"val.{lang}.gz") == (dirs[name] / f"val.{lang}").read_text().split("\n")[:-1]
        rec = json.loads((folder / distill.RECORD).read_text())
        assert rec["teacher_sha256"] == weights_sha256(base / "teacher") and rec["decoding"] == "greedy"
        assert (rec["train_pairs"], rec["val_pairs"], rec["corpus"]) == (n_train, n_val, name)
        assert rec["sources_sha256"] == hashlib.sha256("\n".join(sources).encode()).hexdigest()
        assert not list(folder.glob("*.partial*")) and not list(folder.glob("*.tmp"))


def test_a_rerun_keeps_what_the_same_teacher_made_and_redoes_what_another_made(teacher, tmp_path, capsys):
    base, dirs = teacher
    args = ["--teacher", str(base / "teacher"), "--out", str(tmp_path / "d"), "--data-dir", str(dirs["multi30k"]),
            "--tatoeba-dir", str(dirs["tatoeba"]), "--threads", "1"]
    assert distill.main(args) == 0
    made = tmp_path / "d" / "tatoeba" / "train.de.gz"
    made.write_bytes(gzip.compress(b"marked\n"))  # a rerun that translated again would overwrite this
    assert distill.main(args) == 0
    assert _gz(made) == ["marked"] and "already distilled by this teacher, kept" in capsys.readouterr().out
    assert distill.main(args + ["--train-limit", "20"]) == 0  # other sources: made again
    assert len(_gz(made)) == 20 and json.loads((made.parent / distill.RECORD).read_text())["train_pairs"] == 20


def test_the_student_trains_on_them_and_its_record_names_the_teacher(teacher):
    base, dirs = teacher
    out = base / "distilled"
    if not (out / "tatoeba" / "train.de.gz").is_file():
        test_the_student_corpus_is_the_teachers_translation_of_every_source(teacher)
    student = base / "student"
    assert train_main(_common({"multi30k": out / "multi30k", "tatoeba": out / "tatoeba"}) + ["--out", str(student)]) == 0
    record = json.loads((student / "config.json").read_text())["training"]["distilled"]
    assert set(record) == {"multi30k", "tatoeba"}
    assert {r["teacher_sha256"] for r in record.values()} == {weights_sha256(base / "teacher")}
    plain = base / "plain"
    assert train_main(_common(dirs) + ["--out", str(plain)]) == 0
    assert "distilled" not in json.loads((plain / "config.json").read_text())["training"]


class Counting:
    """A teacher that counts the sentences it is asked for and stops (like a session's end) after ``stop_after``."""

    def __init__(self, tr: Translator, stop_after: int = 10**9) -> None:
        self.tr, self.asked, self.stop_after = tr, 0, stop_after

    def translate_batch(self, texts, opts=None, batch_size=64):
        if self.asked >= self.stop_after:
            raise KeyboardInterrupt
        self.asked += len(texts)
        return self.tr.translate_batch(texts, opts, batch_size=batch_size)


def test_a_stopped_run_continues_where_it_stopped_and_ends_as_one_run(teacher, tmp_path):
    base, dirs = teacher
    tr = _translator(base / "teacher")
    sources = (dirs["tatoeba"] / "train.en").read_text().split("\n")[:-1]
    made_of = distill.identity("sha", "greedy", "en-de", sources)
    opts, quiet = distill.DecodeOptions(), (lambda line: None)
    whole = distill.distill_corpus(Counting(tr), sources, tmp_path / "whole.partial", opts, 8, made_of, chunk=16,
                                   log=quiet)
    partial = tmp_path / "stopped.partial"
    first = Counting(tr, stop_after=32)
    with pytest.raises(KeyboardInterrupt):
        distill.distill_corpus(first, sources, partial, opts, 8, made_of, chunk=16, log=quiet)
    assert len(distill.done_lines(partial)) == 32 == first.asked  # two chunks kept
    with open(partial, "a", encoding="utf-8") as f:
        f.write("half a line")  # stopped in the middle of a write
    second = Counting(tr)
    lines = []
    again = distill.distill_corpus(second, sources, partial, opts, 8, made_of, chunk=16, log=lines.append)
    assert again == whole and second.asked == len(sources) - 32
    assert distill.done_lines(partial) == whole  # the file too: the cut line is gone, not glued to the next
    assert f"{len(sources)}/{len(sources)} sentences" in lines[-1] and len(lines) == 3  # chunks 3-5 of 5
    with pytest.raises(ValueError, match="begun by another run \\(sources_sha256 differ"):
        distill.distill_corpus(Counting(tr), sources[:10], partial, opts, 8,
                               distill.identity("sha", "greedy", "en-de", sources[:10]))
    with pytest.raises(ValueError, match="belongs to other data"):  # more lines than sources, whatever the record
        distill.distill_corpus(Counting(tr), sources[:10], partial, opts, 8, made_of)


def test_a_partial_file_another_teacher_began_is_refused_not_continued(teacher, tmp_path):
    base, dirs = teacher
    tr = _translator(base / "teacher")
    sources = (dirs["tatoeba"] / "train.en").read_text().split("\n")[:-1]
    partial, opts = tmp_path / "train.de.partial", distill.DecodeOptions()
    with pytest.raises(KeyboardInterrupt):
        distill.distill_corpus(Counting(tr, stop_after=16), sources, partial, opts, 8,
                               distill.identity("one", "greedy", "en-de", sources), chunk=16, log=lambda line: None)
    for other in (distill.identity("two", "greedy", "en-de", sources),
                  distill.identity("one", "beam 4, length penalty 1", "en-de", sources),
                  distill.identity("one", "greedy", "en-de", sources[::-1])):
        with pytest.raises(ValueError, match="begun by another run"):
            distill.distill_corpus(Counting(tr), sources, partial, opts, 8, other)
    assert len(distill.done_lines(partial)) == 16  # left as it was


def test_bad_teachers_and_corpora_are_refused_in_words(teacher, tmp_path, capsys):
    base, dirs = teacher
    assert distill.main(["--teacher", str(tmp_path / "none"), "--out", str(tmp_path / "o")]) == 2
    assert "not found" in capsys.readouterr().err.lower()
    assert distill.main(["--teacher", str(base / "teacher"), "--out", str(tmp_path / "o"), "--mix", "tatoeba",
                         "--tatoeba-dir", str(tmp_path / "missing")]) == 2
    assert "tatoeba data folder" in capsys.readouterr().err


def test_one_process_takes_the_gpu_when_there_is_one_unless_told_the_cpu():
    assert choose_device("auto", cuda_available=False) == torch.device("cpu")
    assert choose_device("auto", cuda_available=True) == torch.device("cuda", 0)
    assert choose_device("auto", cuda_available=True, local_rank=1) == torch.device("cuda", 1)
    assert choose_device("cpu", cuda_available=True) == torch.device("cpu")
    assert choose_device("cuda", cuda_available=True) == torch.device("cuda", 0)
    with pytest.raises(ValueError, match="no CUDA GPU"):
        choose_device("cuda", cuda_available=False)
    with pytest.raises(ValueError, match="must be one of"):
        choose_device("gpu", cuda_available=True)


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a GPU")
def test_a_run_that_asks_for_a_gpu_is_refused_without_one(teacher, tmp_path, capsys):
    _, dirs = teacher
    assert train_main(_common(dirs) + ["--out", str(tmp_path / "g"), "--device", "cuda"]) == 2
    assert "--device cuda: torch sees no CUDA GPU" in capsys.readouterr().err
    assert not (tmp_path / "g").exists()


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU: it runs where a GPU is lent")
def test_one_process_trains_resumes_and_distills_on_the_gpu(teacher, tmp_path):
    _, dirs = teacher
    out = tmp_path / "gpu"
    assert train_main(_common(dirs) + ["--out", str(out), "--device", "cuda", "--stop-after-steps", "2"]) == 0
    assert train_main(_common(dirs) + ["--out", str(out), "--device", "cuda", "--resume"]) == 0
    assert f"on {torch.cuda.get_device_name(0)}" in json.loads((out / "metrics.json").read_text())["hardware"]
    assert distill.main(["--teacher", str(out), "--out", str(tmp_path / "d"), "--mix", "tatoeba", "--tatoeba-dir",
                         str(dirs["tatoeba"]), "--device", "cuda"]) == 0
    sources = (dirs["tatoeba"] / "train.en").read_text().split("\n")[:-1]
    on_cpu = [distill.one_line(_translator(out).translate(s)) for s in sources]
    same = sum(a == b for a, b in zip(_gz(tmp_path / "d" / "tatoeba" / "train.de.gz"), on_cpu))
    assert same >= 0.9 * len(sources)  # float32 both: only a near tie may decode differently
