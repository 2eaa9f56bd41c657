"""--init-from (start from a trained checkpoint, a deeper encoder stacked from its layers) and --join (examples made
by joining two pairs)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from model.checkpoint import load_checkpoint
from model.tokenizer import BOS, EOS
from tests.test_mixing import _corpus
from training.joining import join, joined_pairs
from training.train import main as train_main
from training.warm_start import stacked_state


@pytest.fixture
def dirs(tmp_path):
    return {"multi30k": _corpus(tmp_path / "m", "caption", 30, 5), "tatoeba": _corpus(tmp_path / "t", "everyday", 70, 8)}


def _common(dirs) -> list[str]:
    return ["--data-dir", str(dirs["multi30k"]), "--tatoeba-dir", str(dirs["tatoeba"]), "--vocab-size", "400",
            "--d-model", "16", "--n-heads", "2", "--d-ff", "32", "--layers", "1", "--epochs", "1", "--average", "1",
            "--snapshots", "", "--threads", "1", "--precision", "float32"]


def test_joining_two_pairs_keeps_one_eos_and_one_bos():
    a, b = ([5, 6, EOS], [BOS, 7, EOS]), ([8, EOS], [BOS, 9, 10, EOS])
    assert join(a, b) == ([5, 6, 8, EOS], [BOS, 7, 9, 10, EOS])


def test_joined_pairs_are_joins_of_the_given_pairs_and_repeat_for_a_seed():
    pairs = [([10 + i, EOS], [BOS, 100 + i, EOS]) for i in range(50)]
    made = joined_pairs(pairs, 0.2, seed=3, max_len=256)
    assert len(made) == 10 and made == joined_pairs(pairs, 0.2, seed=3, max_len=256)
    assert made != joined_pairs(pairs, 0.2, seed=4, max_len=256)
    for src, tgt in made:  # each is two distinct pairs, the same two on both sides
        i, j = src[0] - 10, src[1] - 10
        assert i != j and src == [10 + i, 10 + j, EOS] and tgt == [BOS, 100 + i, 100 + j, EOS]
    assert joined_pairs(pairs, 0.2, seed=3, max_len=3) == []  # every join has 3 source ids + ... 4 target ids
    assert joined_pairs(pairs, 0, seed=3, max_len=256) == []
    with pytest.raises(ValueError, match="--join"):
        joined_pairs(pairs, 1.5, seed=3, max_len=256)


def test_stacking_copies_the_trained_encoder_layers_in_order():
    trained = {"encoder.layers.0.w": torch.tensor([0.0]), "encoder.layers.1.w": torch.tensor([1.0]),
               "decoder.layers.0.w": torch.tensor([9.0])}
    grown = stacked_state(trained, 2, 5)
    assert [grown[f"encoder.layers.{i}.w"].item() for i in range(5)] == [0, 1, 0, 1, 0]
    assert grown["decoder.layers.0.w"].item() == 9 and len(grown) == 6
    grown["encoder.layers.2.w"] += 1  # copies, not views of one tensor
    assert grown["encoder.layers.0.w"].item() == 0
    with pytest.raises(ValueError, match="pass --encoder-layers 2 or more"):
        stacked_state(trained, 2, 1)


def test_a_run_started_from_a_checkpoint_begins_at_its_weights_and_grows_the_encoder(dirs, tmp_path):
    first, grown = tmp_path / "first", tmp_path / "grown"
    assert train_main(_common(dirs) + ["--out", str(first)]) == 0
    # lr 0: the run's steps leave the weights where they started
    assert train_main(_common(dirs) + ["--out", str(grown), "--init-from", str(first), "--encoder-layers", "3",
                                       "--lr", "0", "--join", "0.5"]) == 0
    before, tok_before, _ = load_checkpoint(first)
    after, tok_after, _ = load_checkpoint(grown)
    assert after.cfg.n_encoder_layers == 3 and after.cfg.n_decoder_layers == 1
    assert (grown / "spm.model").read_bytes() == (first / "spm.model").read_bytes()  # the checkpoint's own pieces
    b, a = before.state_dict(), after.state_dict()
    for i in range(3):  # lr 0: every grown layer is still the trained layer 0
        for k, v in b.items():
            if k.startswith("encoder.layers.0."):
                assert torch.equal(a[k.replace("layers.0.", f"layers.{i}.")], v), k
    assert all(torch.equal(a[k], v) for k, v in b.items() if not k.startswith("encoder.layers."))


def test_a_checkpoint_of_another_shape_is_refused_naming_what_differs(dirs, tmp_path, capsys):
    first = tmp_path / "first"
    assert train_main(_common(dirs) + ["--out", str(first)]) == 0
    assert train_main(_common(dirs) + ["--out", str(tmp_path / "x"), "--init-from", str(first), "--d-ff", "64"]) == 2
    assert "d_ff 32 (this run 64)" in capsys.readouterr().err
    assert train_main(_common(dirs) + ["--out", str(tmp_path / "y"), "--init-from", str(Path(tmp_path / "none"))]) == 2
    assert "not found" in capsys.readouterr().err


def test_join_adds_training_examples_and_a_resumed_run_keeps_every_setting(dirs, tmp_path, capsys):
    """--join grows the epoch (more batches); resuming with --join changed, or added to a run started before the
    flag existed (its record lacks it), is refused, since the batch order would change under the resume point."""
    plain, joined = tmp_path / "plain", tmp_path / "joined"
    assert train_main(_common(dirs) + ["--out", str(plain), "--stop-after-steps", "1"]) == 0
    assert train_main(_common(dirs) + ["--out", str(joined), "--join", "0.5", "--stop-after-steps", "1"]) == 0
    out = capsys.readouterr().out
    counts = [int(line.split(": ")[1].split()[0]) for line in out.splitlines() if "training pairs" in line]
    assert counts[1] == round(counts[0] * 1.5), counts  # every join fits max_len here
    assert train_main(_common(dirs) + ["--out", str(joined), "--join", "0.2", "--resume"]) == 2
    assert "--join 0.5, this command 0.2" in capsys.readouterr().err
    run = json.loads((plain / "work" / "run.json").read_text())
    for key in ("join", "encoder_layers", "init_from"):  # a run recorded before these flags existed
        run["training"].pop(key)
    (plain / "work" / "run.json").write_text(json.dumps(run))
    assert train_main(_common(dirs) + ["--out", str(plain), "--resume"]) == 0  # their defaults: resumes
    assert train_main(_common(dirs) + ["--out", str(plain), "--join", "0.5", "--resume"]) == 2
    assert "--join 0.0, this command 0.5" in capsys.readouterr().err


def test_init_from_needs_a_whole_checkpoint_and_its_own_pieces(dirs, tmp_path, capsys):
    first = tmp_path / "first"
    assert train_main(_common(dirs) + ["--out", str(first)]) == 0
    (first / "spm.model").rename(tmp_path / "spm.model")
    assert train_main(_common(dirs) + ["--out", str(tmp_path / "x"), "--init-from", str(first)]) == 2
    assert "incomplete (no spm.model)" in capsys.readouterr().err
    (tmp_path / "spm.model").rename(first / "spm.model")
    other = Path(__file__).resolve().parent.parent / "checkpoints" / "toy-reverse" / "spm.model"
    assert train_main(_common(dirs) + ["--out", str(tmp_path / "y"), "--init-from", str(first),
                                       "--tokenizer", str(other)]) == 2
    assert "differs from" in capsys.readouterr().err
    assert train_main(_common(dirs) + ["--out", str(tmp_path / "z"), "--init-from", str(first)]) == 0
    run = json.loads((tmp_path / "z" / "work" / "run.json").read_text())["training"]
    assert run["init_from_sha256"] == json.loads((first / "config.json").read_text())["files"]["model.safetensors"]["sha256"]
