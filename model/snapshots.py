"""Snapshots of the weights during training, to watch attention form: denser early (by default steps 50, 150, 400,
1000, 2500, 5000, 10000, 20000 and the final model), each int8 like the shipped model (a quarter of float32), each with its
validation loss. ``<checkpoint>/snapshots/snapshots.json`` lists them with the SHA-256 of each file, and
``python -m training.evaluate --snapshots --split val`` adds each one's val BLEU."""

from __future__ import annotations

import json
from pathlib import Path

from safetensors.torch import load_file, save_file

from model.checkpoint import CheckpointError, dequantize, quantize_int8, sha256
from model.config import ModelConfig
from model.transformer import Transformer

FOLDER, INDEX = "snapshots", "snapshots.json"
DEFAULT_STEPS = (50, 150, 400, 1000, 2500, 5000, 10000, 20000)


def save_snapshot(out: Path, model: Transformer, step: int, epoch: int, val_loss: float, final: bool = False) -> None:
    """Write the model's weights at ``step`` (int8) and add it to the index (rank 0 only)."""
    folder = Path(out) / FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    name = "final.safetensors" if final else f"step_{step:06d}.safetensors"
    state = quantize_int8({k: v.detach().cpu() for k, v in model.state_dict().items()})
    save_file(state, str(folder / name), metadata={"format": "pt"})
    index = list_snapshots(out) if (folder / INDEX).is_file() else []
    index = [s for s in index if s["file"] != name]
    index.append({"step": step, "epoch": epoch, "val_loss": round(val_loss, 4), "file": name, "final": final,
                  "sha256": sha256(folder / name)})
    index.sort(key=lambda s: (s["final"], s["step"]))
    (folder / INDEX).write_text(json.dumps(index, indent=1) + "\n")


def record_bleu(out: Path, file: str, split: str, score: float) -> None:
    """Write a snapshot's sacreBLEU on ``split`` into the index (``"bleu": {split: score}``): training.evaluate
    --snapshots scores each snapshot after training, so training itself stays fast."""
    index = list_snapshots(out)
    for s in index:
        if s["file"] == file:
            s.setdefault("bleu", {})[split] = score
    (Path(out) / FOLDER / INDEX).write_text(json.dumps(index, indent=1) + "\n")


def list_snapshots(out: Path) -> list[dict]:
    """The index: [{step, epoch, val_loss, file, final, sha256, bleu?}], in training order (final last); [] if none."""
    path = Path(out) / FOLDER / INDEX
    if not path.is_file():
        return []
    try:
        index = json.loads(path.read_text())
    except json.JSONDecodeError as e:
        raise CheckpointError(f"{path}: not valid JSON ({e})") from None
    if not isinstance(index, list) or not all(isinstance(s, dict) and {"step", "file", "val_loss"} <= set(s)
                                              for s in index):
        raise CheckpointError(f"{path}: expected a list of snapshots with step, file and val_loss")
    return index


def load_snapshot(out: Path, cfg: ModelConfig, entry: dict) -> Transformer:
    """One snapshot as a model in eval mode; its file must have the SHA-256 the index records."""
    path = Path(out) / FOLDER / entry["file"]
    if not path.is_file():
        raise CheckpointError(f"{path}: file not found")
    if entry.get("sha256") and sha256(path) != entry["sha256"]:
        raise CheckpointError(f"{path}: SHA-256 differs from the one {Path(out) / FOLDER / INDEX} records")
    model = Transformer(cfg)
    model.load_state_dict(dequantize(load_file(str(path)), path))
    return model.eval()
