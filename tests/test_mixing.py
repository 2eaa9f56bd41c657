"""Mixing corpora: both are read, each repeated as the mix says, the tokenizer sees each once, and a pair of files
with different line counts is refused with both files named (by the reader and by the training command)."""

import json
import shutil
from pathlib import Path

import pytest

from training.batches import load_texts
from training.data import MisalignedPairs
from training.mixing import Mix, read_corpora
from training.train import main as train_main
from training.train import parse_args


def _corpus(folder: Path, prefix: str, n_train: int, n_val: int, gz: bool = False) -> Path:
    folder.mkdir(parents=True)
    for split, n in (("train", n_train), ("val", n_val)):
        (folder / f"{split}.en").write_text("".join(f"{prefix} english {split} {i} .\n" for i in range(n)))
        (folder / f"{split}.de").write_text("".join(f"{prefix} deutsch {split} {i} .\n" for i in range(n)))
    return folder


@pytest.fixture
def dirs(tmp_path):
    return {"multi30k": _corpus(tmp_path / "m", "caption", 30, 5), "tatoeba": _corpus(tmp_path / "t", "everyday", 70, 8)}


def test_mix_reads_both_corpora_and_repeats_as_asked(dirs):
    mix = Mix.parse("multi30k:2,tatoeba:1")
    splits = read_corpora(mix, dirs)
    src, tgt, origin = splits.joined("train", mix)
    assert len(src) == len(tgt) == 2 * 30 + 70
    assert origin.count("multi30k") == 60 and origin.count("tatoeba") == 70
    assert all(s.startswith("caption") == (o == "multi30k") for s, o in zip(src, origin))
    assert all(s.split()[2:] == t.split()[2:] for s, t in zip(src, tgt))  # line N still translates line N
    assert len(splits.joined("val")[0]) == 5 + 8  # validation: each corpus once
    args = parse_args(["--out", "x", "--data-dir", str(dirs["multi30k"]), "--tatoeba-dir", str(dirs["tatoeba"])])
    texts = load_texts(args, mix)
    assert len(texts["train"][0]) == 130 and len(texts["tokenizer"]) == 2 * (30 + 70)  # tokenizer: each pair once


@pytest.mark.parametrize("spec, words", [("", "names no corpus"), ("wikipedia:1", "unknown corpus"),
                                         ("tatoeba:0", "1 to 20"), ("tatoeba:x", "whole number"),
                                         ("tatoeba,tatoeba", "twice")])
def test_a_bad_mix_is_refused_in_words(spec, words):
    with pytest.raises(ValueError, match=words):
        Mix.parse(spec)


def test_misaligned_pair_file_is_refused_naming_it(dirs, tmp_path, capsys):
    bad = dirs["tatoeba"] / "train.de"
    bad.write_text(bad.read_text() + "eine Zeile zu viel .\n")
    with pytest.raises(MisalignedPairs) as e:
        read_corpora(Mix.parse("multi30k:1,tatoeba:1"), dirs)
    assert str(dirs["tatoeba"] / "train.en") in str(e.value) and str(bad) in str(e.value)
    assert "70" in str(e.value) and "71" in str(e.value)
    rc = train_main(["--out", str(tmp_path / "run"), "--data-dir", str(dirs["multi30k"]),
                     "--tatoeba-dir", str(dirs["tatoeba"]), "--epochs", "1"])
    assert rc == 2 and str(bad) in capsys.readouterr().err


def test_missing_tatoeba_says_where_to_get_it(dirs, tmp_path, capsys):
    rc = train_main(["--out", str(tmp_path / "run"), "--data-dir", str(dirs["multi30k"]),
                     "--tatoeba-dir", str(tmp_path / "nowhere")])
    err = capsys.readouterr().err
    assert rc == 2 and "tatoeba data folder" in err and "manythings.org/anki" in err


def test_the_reverse_direction_swaps_every_pair_and_keeps_the_tokenizer_text(dirs):
    """--direction de-en (the quality estimate's reverse model): German in, English out, line N still with line N;
    the tokenizer still sees each sentence once."""
    mix = Mix.parse("multi30k:1,tatoeba:1")
    common = ["--out", "x", "--data-dir", str(dirs["multi30k"]), "--tatoeba-dir", str(dirs["tatoeba"])]
    ahead = load_texts(parse_args(common), mix)
    back = load_texts(parse_args(common + ["--direction", "de-en"]), mix)
    for split in ("train", "val"):
        assert back[split] == (ahead[split][1], ahead[split][0])
        assert all("deutsch" in s and "english" in t for s, t in zip(*back[split]))
    assert sorted(back["tokenizer"]) == sorted(ahead["tokenizer"])


def test_a_given_tokenizer_is_used_as_it_is(dirs, tmp_path):
    """--tokenizer: the reverse model reads the forward model's own pieces (the estimate feeds it the forward
    model's ids), so the file is taken as it is, not trained again."""
    first, second = tmp_path / "first", tmp_path / "second"
    common = ["--data-dir", str(dirs["multi30k"]), "--tatoeba-dir", str(dirs["tatoeba"]), "--vocab-size", "400",
              "--d-model", "16", "--n-heads", "2", "--d-ff", "32", "--layers", "1", "--epochs", "1",
              "--snapshots", "", "--threads", "1", "--precision", "float32"]
    assert train_main(common + ["--out", str(first)]) == 0
    (second / "work").mkdir(parents=True)  # an earlier run's other pieces in the folder: the given ones win
    shutil.copyfile(Path(__file__).resolve().parent.parent / "checkpoints" / "toy-reverse" / "spm.model",
                    second / "work" / "spm.model")
    assert train_main(common + ["--out", str(second), "--direction", "de-en", "--vocab-size", "500",
                                "--tokenizer", str(first / "work" / "spm.model")]) == 0
    assert (second / "spm.model").read_bytes() == (first / "work" / "spm.model").read_bytes()
    task = json.loads((second / "config.json").read_text())["task"]  # its card says which way it translates
    assert (task["source"], task["target"]) == ("German", "English") and "Schnee" in " ".join(task["examples"])
