"""Save and load a checkpoint folder: model.safetensors, config.json, spm.model (+ metrics.json, train_log.csv).

Loading never unpickles anything and names the file at fault when something is wrong.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import torch
from safetensors import SafetensorError
from safetensors.torch import load_file, save_file

from model.config import ModelConfig
from model.task import Task, read_task
from model.tokenizer import Tokenizer
from model.transformer import Transformer

WEIGHTS, CONFIG, SPM, METRICS, TRAIN_LOG = "model.safetensors", "config.json", "spm.model", "metrics.json", "train_log.csv"


class CheckpointError(ValueError):
    """A checkpoint folder is missing a file or holds a broken or mismatched one."""


SCALE = ".int8_scale"  # suffix of the per-row scales stored next to an int8 matrix


def quantize_int8(state: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """Matrices -> int8 with one float32 scale per row (absmax / 127); vectors (biases, norms) stay float32."""
    out = {}
    for name, t in state.items():
        t = t.detach().float()
        if t.dim() == 2:
            scale = t.abs().amax(dim=1, keepdim=True).clamp(min=1e-12) / 127.0  # (rows, 1)
            out[name] = torch.round(t / scale).to(torch.int8).contiguous()
            out[name + SCALE] = scale.contiguous()
        else:
            out[name] = t.contiguous()
    return out


def dequantize(state: dict[str, torch.Tensor], path: Path) -> dict[str, torch.Tensor]:
    out = {}
    for name, t in state.items():
        if name.endswith(SCALE):
            continue
        if t.dtype == torch.int8:
            if name + SCALE not in state:
                raise CheckpointError(f"{path}: int8 tensor {name} has no {name + SCALE}")
            out[name] = t.float() * state[name + SCALE].float()
        else:
            out[name] = t.float()
    return out


def save_checkpoint(
    folder: str | Path,
    model: Transformer,
    tokenizer: Tokenizer,
    training: dict[str, Any] | None = None,
    dtype: str = "float32",
    task: dict[str, Any] | None = None,
) -> None:
    """dtype: "float32", "float16" / "bfloat16" (half the size) or "int8" (a quarter; per-row scales). ``task``: the
    task card for a folder that has none yet (a card already in the folder, perhaps edited by hand, stays)."""
    if dtype not in ("float32", "float16", "bfloat16", "int8"):
        raise ValueError(f"unknown storage type {dtype!r}")
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    # The embedding is also the output projection: stored once, under its own name.
    if dtype == "int8":
        state = quantize_int8(model.state_dict())
    else:
        state = {k: v.detach().to(getattr(torch, dtype)).contiguous() for k, v in model.state_dict().items()}
    save_file(state, str(folder / WEIGHTS), metadata={"format": "pt"})
    tokenizer.save(folder / SPM)
    config = {"model": model.cfg.to_dict(), "training": training or {}}
    if task is not None:
        config["task"] = task
    if (folder / CONFIG).is_file():  # rewriting a checkpoint (training.compress): its task (languages, examples) stays
        try:
            task = json.loads((folder / CONFIG).read_text()).get("task")
        except (json.JSONDecodeError, AttributeError):
            task = None
        if task is not None:
            config["task"] = task
    (folder / CONFIG).write_text(json.dumps(config, indent=2) + "\n")
    seal(folder)


SEALED = (WEIGHTS, SPM)  # files whose SHA-256 config.json records


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def seal(folder: str | Path) -> None:
    """Record in config.json the SHA-256 and size of the weights and the tokenizer, and every tensor's shape and
    dtype as stored: loading then refuses a file that changed. Keeps everything else in config.json."""
    folder = Path(folder)
    config = read_json(folder / CONFIG)
    config["files"] = {name: {"sha256": sha256(folder / name), "bytes": (folder / name).stat().st_size}
                       for name in SEALED}
    state = load_file(str(folder / WEIGHTS))
    config["tensors"] = {k: tensor_record(t) for k, t in sorted(state.items())}
    (folder / CONFIG).write_text(json.dumps(config, indent=2) + "\n")


def tensor_record(t: torch.Tensor) -> str:
    """A stored tensor's dtype and shape as config.json records it: "int8[256,512]"."""
    return f"{str(t.dtype).removeprefix('torch.')}[{','.join(str(n) for n in t.shape)}]"


def weights_sha256(folder: Path) -> str:
    """The SHA-256 of the folder's weights: the one config.json records (loading has checked it against the file),
    hashed from the file only for a folder that was never sealed."""
    recorded = read_json(folder / CONFIG).get("files", {})
    recorded = recorded.get(WEIGHTS, {}) if isinstance(recorded, dict) else {}
    sha = recorded.get("sha256") if isinstance(recorded, dict) else None
    return sha if isinstance(sha, str) else sha256(folder / WEIGHTS)


def verify_files(folder: Path, config: dict[str, Any]) -> None:
    """The weights and tokenizer are the files config.json was sealed with (size, then SHA-256)."""
    files = config.get("files")
    if files is None:
        return  # an unsealed folder (made before sealing existed): `python -m model.checkpoint seal <folder>`
    if not isinstance(files, dict) or not all(isinstance(files.get(n), dict) for n in SEALED):
        raise CheckpointError(f"{folder / CONFIG}: \"files\" must record sha256 and bytes for {', '.join(SEALED)}")
    for name in SEALED:
        path, want = folder / name, files[name]
        if not path.is_file():
            raise CheckpointError(f"{path}: file not found")
        size = path.stat().st_size
        if size != want.get("bytes"):
            raise CheckpointError(f"{path}: {size} bytes, but {folder / CONFIG} records {want.get('bytes')}: the file "
                                  "was changed or damaged since the checkpoint was saved")
        got = sha256(path)
        if got != want.get("sha256"):
            raise CheckpointError(f"{path}: SHA-256 {got[:16]}… differs from {str(want.get('sha256'))[:16]}… recorded "
                                  f"in {folder / CONFIG}: the file was changed or damaged since the checkpoint was saved")


def read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CheckpointError(f"{path}: file not found") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise CheckpointError(f"{path}: not valid JSON ({e})") from None
    if not isinstance(data, dict):
        raise CheckpointError(f"{path}: expected a JSON object")
    return data


def load_config(folder: Path, data: dict[str, Any] | None = None) -> tuple[ModelConfig, dict[str, Any]]:
    """config.json's model config and training dict (``data``: its contents, already read)."""
    data = read_json(folder / CONFIG) if data is None else data
    try:
        return ModelConfig.from_dict(data["model"]), data.get("training", {})
    except (KeyError, TypeError, ValueError) as e:
        raise CheckpointError(f"{folder / CONFIG}: bad model config ({e})") from None


def load_task(folder: Path) -> Task:
    """config.json's "task": languages, input form, examples (model/task.py)."""
    config = read_json(folder / CONFIG)  # a CheckpointError names the file itself
    try:
        return read_task(config, folder / CONFIG)
    except ValueError as e:
        raise CheckpointError(str(e)) from None


def load_checkpoint(folder: str | Path, dtype: torch.dtype = torch.float32) -> tuple[Transformer, Tokenizer, dict[str, Any]]:
    """-> (model in eval mode, tokenizer, config.json's 'training' dict)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise CheckpointError(f"{folder}: checkpoint folder not found")
    config = read_json(folder / CONFIG)
    cfg, training = load_config(folder, config)
    verify_files(folder, config)
    try:
        tokenizer = Tokenizer.load(folder / SPM)
    except ValueError as e:
        raise CheckpointError(str(e)) from None
    if tokenizer.vocab_size != cfg.vocab_size:
        raise CheckpointError(
            f"{folder / SPM}: vocabulary of {tokenizer.vocab_size} pieces, but {folder / CONFIG} says {cfg.vocab_size}"
        )
    path = folder / WEIGHTS
    if not path.is_file():
        raise CheckpointError(f"{path}: file not found")
    try:
        stored = load_file(str(path))
        state = dequantize(stored, path)
    except (SafetensorError, OSError, ValueError) as e:
        if isinstance(e, CheckpointError):
            raise
        raise CheckpointError(f"{path}: not a readable safetensors file ({e})") from None
    model = Transformer(cfg)
    expected = model.state_dict()
    missing, unexpected = set(expected) - set(state), set(state) - set(expected)
    if missing or unexpected:
        raise CheckpointError(
            f"{path}: tensors do not match {folder / CONFIG} (missing {sorted(missing)[:5]}, unexpected {sorted(unexpected)[:5]})"
        )
    recorded = config.get("tensors")
    if recorded is not None:
        got = {k: tensor_record(t) for k, t in stored.items()}
        if got != recorded:
            diff = sorted(k for k in set(got) | set(recorded) if got.get(k) != recorded.get(k))
            raise CheckpointError(f"{path}: tensors differ from those {folder / CONFIG} records: "
                                  + ", ".join(f"{k} {got.get(k, 'missing')} (recorded {recorded.get(k, 'none')})"
                                              for k in diff[:3]))
    for name, t in state.items():
        if t.shape != expected[name].shape:
            raise CheckpointError(
                f"{path}: {name} has shape {tuple(t.shape)}, config implies {tuple(expected[name].shape)}"
            )
        if not torch.isfinite(t).all():
            raise CheckpointError(f"{path}: {name} holds NaN or infinite values")
    model.load_state_dict({k: v.float() for k, v in state.items()})
    model.to(dtype).eval()
    return model, tokenizer, training


if __name__ == "__main__":
    import sys

    if len(sys.argv) != 3 or sys.argv[1] != "seal":
        sys.exit("usage: python -m model.checkpoint seal <checkpoint folder>")
    seal(sys.argv[2])
    load_checkpoint(sys.argv[2])  # and check that it loads
    print(f"sealed {sys.argv[2]}: SHA-256 of {', '.join(SEALED)} and every tensor's shape in {CONFIG}")
