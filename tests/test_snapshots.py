"""Snapshots during training (to watch attention form): saved compactly at the chosen steps with their validation
loss, loadable, and the loss falls from the first to the last."""

import sys
from pathlib import Path

import processes
import pytest

from model.checkpoint import CheckpointError, load_config
from model.snapshots import FOLDER, list_snapshots, load_snapshot

ROOT = Path(__file__).resolve().parent.parent
ARGS = ["--task", "reverse", "--train-limit", "1500", "--vocab-size", "313", "--d-model", "32", "--n-heads", "2",
        "--d-ff", "64", "--layers", "1", "--epochs", "3", "--max-tokens", "600", "--dropout", "0",
        "--attention-dropout", "0", "--average", "1", "--threads", "1", "--log-every", "1000", "--max-len", "128",
        "--warmup", "30", "--lr", "3e-3", "--snapshots", "2,10,40"]


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    out = tmp_path_factory.mktemp("snap") / "toy"
    proc = processes.run([sys.executable, "-m", "training.train", *ARGS, "--out", str(out)], cwd=ROOT,
                         capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-1500:] + proc.stderr[-1500:]
    return out


def test_snapshots_are_kept_at_the_chosen_steps_and_the_loss_falls(trained):
    index = list_snapshots(trained)
    assert [s["step"] for s in index if not s["final"]] == [2, 10, 40]
    assert index[-1]["final"] and index[-1]["file"] == "final.safetensors"
    losses = [s["val_loss"] for s in index]
    assert losses[0] > losses[-1] and losses[0] > losses[1]  # training shows
    total = sum((trained / FOLDER / s["file"]).stat().st_size for s in index)
    assert total < 60 * 2**20


def test_each_snapshot_loads_and_is_what_its_step_was(trained):
    import torch

    from model.tokenizer import Tokenizer
    from training.batches import encode_pairs
    from training.toy import make_pairs
    from training.validation import validation_loss

    cfg, _ = load_config(trained)
    tok = Tokenizer.load(trained / "spm.model")
    val = encode_pairs(tok, *make_pairs("reverse", 500, 1234 + 1), 128)
    for entry in list_snapshots(trained):
        model = load_snapshot(trained, cfg, entry)
        with torch.no_grad():
            got = validation_loss(model, val, 600)
        assert abs(got - entry["val_loss"]) < 0.05, (entry, got)  # int8 storage, recorded from float32


def test_a_changed_snapshot_is_refused(trained, tmp_path):
    import shutil

    copy = tmp_path / "toy"
    shutil.copytree(trained, copy)
    entry = list_snapshots(copy)[0]
    path = copy / FOLDER / entry["file"]
    data = bytearray(path.read_bytes())
    data[-5] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(CheckpointError, match="SHA-256"):
        load_snapshot(copy, load_config(copy)[0], entry)
