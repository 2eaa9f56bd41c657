"""A run interrupted twice (mid-epoch, then in the next epoch) and resumed ends with the very weights of a run that
was never interrupted: weights, Adam moments, schedule, batch order and random state all come back."""

import json

import pytest
from safetensors.torch import load_file

from training.train import main as train_main

TINY = ["--task", "reverse", "--train-limit", "400", "--vocab-size", "313", "--d-model", "32", "--n-heads", "2",
        "--d-ff", "64", "--layers", "1", "--epochs", "2", "--max-tokens", "200", "--average", "2", "--threads", "1",
        "--log-every", "5", "--snapshots", "3,30", "--dropout", "0.2", "--attention-dropout", "0.1",
        "--save-every", "7", "--warmup", "20"]


@pytest.mark.parametrize("precision", ["float32", "bfloat16"])
def test_resume_after_interruptions_gives_the_same_weights(tmp_path, precision):
    args = TINY + ["--precision", precision]
    assert train_main(args + ["--out", str(tmp_path / "whole")]) == 0
    per_epoch = json.loads((tmp_path / "whole" / "work" / "resume.json").read_text())["step"] // 2
    assert per_epoch >= 20
    cut = tmp_path / "cut"
    assert train_main(args + ["--out", str(cut), "--stop-after-steps", "13"]) == 0
    state = json.loads((cut / "work" / "resume.json").read_text())
    assert state["step"] == 13 and state["epoch"] == 0 and state["batch"] == 13  # stopped inside epoch 1
    assert not (cut / "model.safetensors").exists()  # a sitting that stops writes no checkpoint
    with open(cut / "train_log.csv", "a") as f:  # as if killed after logging step 15 but before its resume point
        f.write("15,1,9.9999,0.001,\n")
    assert train_main(args + ["--out", str(cut), "--resume", "--stop-after-steps", str(per_epoch + 9)]) == 0
    state = json.loads((cut / "work" / "resume.json").read_text())
    assert state["epoch"] == 1 and state["batch"] == 9  # now inside epoch 2
    assert train_main(args + ["--out", str(cut), "--resume"]) == 0
    whole, resumed = load_file(str(tmp_path / "whole" / "model.safetensors")), load_file(str(cut / "model.safetensors"))
    assert whole.keys() == resumed.keys()
    for k in whole:
        assert whole[k].equal(resumed[k]), k
    # the snapshots of both runs are the same files (step 3 before the first cut, step 30 between the cuts)
    for name in ("step_000003.safetensors", "step_000030.safetensors"):
        a, b = load_file(str(tmp_path / "whole" / "snapshots" / name)), load_file(str(cut / "snapshots" / name))
        assert a.keys() == b.keys() and all(a[k].equal(b[k]) for k in a), name
    # one log, as if never interrupted: the rows of steps trained again are not repeated, the losses are the same
    assert (cut / "train_log.csv").read_text() == (tmp_path / "whole" / "train_log.csv").read_text()
    # and a run that is not resumed differs: the comparison can fail
    fresh = tmp_path / "other-seed"
    assert train_main(args + ["--out", str(fresh), "--seed", "7"]) == 0
    other = load_file(str(fresh / "model.safetensors"))
    assert any(not whole[k].equal(other[k]) for k in whole)


def test_a_sitting_with_other_settings_is_refused_naming_them(tmp_path, capsys):
    out = str(tmp_path / "run")
    assert train_main(TINY + ["--out", out, "--stop-after-steps", "5"]) == 0
    lr = TINY.index("--warmup") + 1
    other = TINY[:lr] + ["30"] + TINY[lr + 1:]
    assert train_main(other + ["--out", out, "--resume"]) == 2
    err = capsys.readouterr().err
    assert "--warmup 20, this command 30" in err and "--epochs" not in err
    assert train_main(TINY + ["--out", out, "--resume", "--epochs", "3", "--stop-after-steps", "9"]) == 0  # free


def test_a_torn_resume_point_is_refused_in_words(tmp_path, capsys):
    """The resume point is three files (none over 50 MB in git); parts from different steps are refused."""
    out = tmp_path / "run"
    assert train_main(TINY + ["--out", str(out), "--stop-after-steps", "5"]) == 0
    old = (out / "work" / "resume.exp_avg.safetensors").read_bytes()
    assert train_main(TINY + ["--out", str(out), "--resume", "--stop-after-steps", "9"]) == 0
    (out / "work" / "resume.exp_avg.safetensors").write_bytes(old)  # as if killed between two renames
    assert train_main(TINY + ["--out", str(out), "--resume"]) == 2
    assert "different steps [9, 5, 9]" in capsys.readouterr().err
