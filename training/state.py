"""What training keeps on disk between epochs and sessions: the resume point (model and Adam moments as
safetensors, counters as JSON) and the average of the last epochs' weights. Never pickle."""

from __future__ import annotations

import json
import os
from pathlib import Path

import torch
from safetensors import safe_open
from safetensors.torch import load_file, save_file


def save_resume(work: Path, model, opt, state: dict) -> None:
    """Model and Adam moments as safetensors, counters as JSON: resumable without pickle."""
    tensors = {f"model.{k}": v.detach().cpu().contiguous() for k, v in model.state_dict().items()}
    tensors["rng.torch"] = torch.get_rng_state()  # dropout masks continue as if never interrupted
    if torch.cuda.is_available():
        tensors["rng.cuda"] = torch.cuda.get_rng_state()
    params = list(model.parameters())
    for i, p in enumerate(params):
        st = opt.state.get(p, {})
        for key in ("exp_avg", "exp_avg_sq"):
            if key in st:
                tensors[f"optim.{i}.{key}"] = st[key].detach().cpu().contiguous()
        if "step" in st:
            state.setdefault("adam_steps", {})[str(i)] = float(st["step"])
    tmp = work / "resume.safetensors.tmp"
    save_file(tensors, str(tmp), metadata={"state": json.dumps(state)})  # tensors and counters in one file
    os.replace(tmp, work / "resume.safetensors")  # never leave a half-written resume file
    (work / "resume.json").write_text(json.dumps(state, indent=1))  # for people; the file above is the truth


def load_resume(work: Path, model, opt) -> dict:
    path = work / "resume.safetensors"
    tensors = load_file(str(path))
    with safe_open(str(path), framework="pt") as f:
        state = json.loads(f.metadata()["state"])
    model.load_state_dict({k[6:]: v for k, v in tensors.items() if k.startswith("model.")})
    for i, p in enumerate(model.parameters()):
        if f"optim.{i}.exp_avg" in tensors:
            opt.state[p] = {
                "step": torch.tensor(state["adam_steps"][str(i)]),
                "exp_avg": tensors[f"optim.{i}.exp_avg"],
                "exp_avg_sq": tensors[f"optim.{i}.exp_avg_sq"],
            }
    if "rng.torch" in tensors:
        torch.set_rng_state(tensors["rng.torch"])
    if "rng.cuda" in tensors and torch.cuda.is_available():
        torch.cuda.set_rng_state(tensors["rng.cuda"])
    return state


def average_epochs(paths: list[Path]) -> dict[str, torch.Tensor]:
    avg: dict[str, torch.Tensor] = {}
    for path in paths:
        for k, v in load_file(str(path)).items():
            avg[k] = avg.get(k, 0) + v.double() / len(paths)
    return {k: v.float() for k, v in avg.items()}
