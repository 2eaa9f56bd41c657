"""A checkpoint you can trust: config.json records the SHA-256 and size of the weights and the tokenizer and every
stored tensor's dtype and shape; loading refuses anything else, naming the file. Token ids must be inside the
vocabulary, max_len must cover the app's limits, and a broken train_log.csv costs only the training curves."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import processes
import pytest
from safetensors.torch import load_file, save_file

from explorer.serving import limits
from model.checkpoint import CONFIG, SPM, WEIGHTS, CheckpointError, load_checkpoint, seal, sha256

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = ROOT / "checkpoints"


def copy_of(name: str, tmp_path: Path) -> Path:
    dst = tmp_path / name
    shutil.copytree(SHIPPED / name, dst, ignore=shutil.ignore_patterns("work"))
    return dst


def edit_config(folder: Path, fn) -> None:
    cfg = json.loads((folder / CONFIG).read_text())
    fn(cfg)
    (folder / CONFIG).write_text(json.dumps(cfg))


@pytest.mark.parametrize("name", ["en-de", "toy-reverse"])
def test_shipped_checkpoints_are_sealed_and_match(name):
    folder = SHIPPED / name
    if not (folder / WEIGHTS).is_file():
        pytest.skip(f"{name} not shipped")
    cfg = json.loads((folder / CONFIG).read_text())
    for f in (WEIGHTS, SPM):
        assert cfg["files"][f]["sha256"] == sha256(folder / f)  # independent: hashlib over the file, here
        assert cfg["files"][f]["bytes"] == (folder / f).stat().st_size
    stored = load_file(str(folder / WEIGHTS))
    assert set(cfg["tensors"]) == set(stored)
    assert cfg["model"]["max_len"] >= max(limits.MAX_SOURCE_TOKENS, limits.MAX_OUTPUT_TOKENS + 1)
    load_checkpoint(folder)


def _random_megabyte(p: Path) -> None:
    data = bytearray(p.read_bytes())
    start = min(len(data) // 3, max(0, len(data) - 2**20))
    n = min(2**20, len(data) - start)
    data[start : start + n] = np.random.default_rng(0).integers(0, 256, n, dtype=np.uint8).tobytes()
    p.write_bytes(bytes(data))  # same size: only the hash can tell


def test_random_bytes_in_the_weights_are_refused_naming_the_file(tmp_path):
    name = "en-de" if (SHIPPED / "en-de" / WEIGHTS).is_file() else "toy-reverse"
    folder = copy_of(name, tmp_path)
    _random_megabyte(folder / WEIGHTS)
    with pytest.raises(CheckpointError, match="SHA-256") as err:
        load_checkpoint(folder)
    assert str(folder / WEIGHTS) in str(err.value)


def test_a_changed_tokenizer_is_refused_naming_it(tmp_path):
    folder = copy_of("toy-reverse", tmp_path)
    data = bytearray((folder / SPM).read_bytes())
    data[-10] ^= 0xFF
    (folder / SPM).write_bytes(bytes(data))
    with pytest.raises(CheckpointError, match="SHA-256") as err:
        load_checkpoint(folder)
    assert str(folder / SPM) in str(err.value)


def test_nan_weights_are_refused_even_when_sealed(tmp_path):
    folder = copy_of("toy-reverse", tmp_path)
    state = load_file(str(folder / WEIGHTS))
    state["encoder.layers.0.ffn.w_1.weight"][0, 0] = float("inf")
    save_file(state, str(folder / WEIGHTS))
    seal(folder)  # the hashes agree: the value check itself must refuse it
    with pytest.raises(CheckpointError, match="NaN or infinite") as err:
        load_checkpoint(folder)
    assert str(folder / WEIGHTS) in str(err.value)


def test_recorded_shapes_and_hashes_are_checked(tmp_path):
    folder = copy_of("toy-reverse", tmp_path)
    edit_config(folder, lambda c: c["tensors"].update({"logits.bias": "float32[1]"}))
    with pytest.raises(CheckpointError, match="recorded none|logits.bias"):
        load_checkpoint(folder)
    folder = copy_of("toy-reverse", tmp_path / "b")
    edit_config(folder, lambda c: c["files"][WEIGHTS].update(sha256="0" * 64))
    with pytest.raises(CheckpointError, match="SHA-256"):
        load_checkpoint(folder)


@pytest.mark.parametrize("field, value, message", [
    ("eos_id", 99999, "eos_id 99999 is not a token id"),
    ("pad_id", -1, "pad_id -1 is not a token id"),
    ("bos_id", 3, "must differ"),
])
def test_token_ids_outside_the_vocabulary_are_refused_naming_config(tmp_path, field, value, message):
    folder = copy_of("toy-reverse", tmp_path)
    edit_config(folder, lambda c: c["model"].update({field: value}))
    with pytest.raises(CheckpointError, match=message) as err:
        load_checkpoint(folder)
    assert str(folder / CONFIG) in str(err.value)


def _start_app(checkpoints: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "ATTENTION_EXPLORER_CHECKPOINTS": str(checkpoints), "GRADIO_SERVER_PORT": "0"}
    return processes.run([sys.executable, "app.py"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=180)


def test_the_app_refuses_a_max_len_below_its_limits_and_a_bad_eos(tmp_path):
    folder = copy_of("toy-reverse", tmp_path)
    edit_config(folder, lambda c: c["model"].update(max_len=10))
    proc = _start_app(tmp_path)
    assert proc.returncode == 1 and "max_len 10" in proc.stderr and "config.json" in proc.stderr, proc.stderr[-800:]
    assert "Traceback" not in proc.stderr
    edit_config(folder, lambda c: c["model"].update(max_len=128, eos_id=99999))
    proc = _start_app(tmp_path)
    assert proc.returncode == 1 and str(folder / CONFIG) in proc.stderr and "eos_id" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_broken_train_log_leaves_the_model_tab_working(tmp_path, monkeypatch):
    from explorer.api import handlers
    from model.translator import Translator

    folder = copy_of("toy-reverse", tmp_path)
    (folder / "train_log.csv").write_bytes(b"step,epoch,loss\n1,0,not-a-number\n\xff\xfe garbage")
    model, tok, training = load_checkpoint(folder)
    tr = Translator(model, tok, "toy-reverse", {}, training)
    monkeypatch.setattr(handlers, "model_for", lambda name: tr)
    monkeypatch.setattr(handlers, "resolve", lambda name: folder)
    curves, lr = handlers.training_figures("toy-reverse")
    notes = [a.text for a in curves.layout.annotations]
    assert any("train_log.csv could not be read" in n for n in notes), notes
    assert all(len(t.x) == 0 for t in curves.data)  # nothing drawn from a log that could not be read
    assert len(lr.data[0].x) > 0  # the schedule does not need the log
    assert "parameters" in handlers.model_card("toy-reverse")
