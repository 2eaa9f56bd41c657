"""What training keeps on disk between epochs and sessions: the resume point (model and Adam moments as
safetensors, counters in their metadata) and the average of the last epochs' weights. Never pickle."""

from __future__ import annotations

import json
import os
from pathlib import Path

import torch
from safetensors import safe_open
from safetensors.torch import load_file, save_file

# The resume point in three files of the size of the weights each (a 12M-parameter model: 48 MB a file), so that a
# run kept in git between sittings never holds a file over 50 MB: weights and random state, then each Adam moment.
PARTS = ("resume.safetensors", "resume.exp_avg.safetensors", "resume.exp_avg_sq.safetensors")


def save_resume(work: Path, model, opt, state: dict) -> None:
    """Model, random state and Adam moments as safetensors, the counters in each file's metadata: resumable without
    pickle. Each part is written aside and then renamed, so no part is ever half written."""
    parts: list[dict[str, torch.Tensor]] = [{}, {}, {}]
    parts[0] = {f"model.{k}": v.detach().cpu().contiguous() for k, v in model.state_dict().items()}
    parts[0]["rng.torch"] = torch.get_rng_state()  # dropout masks continue as if never interrupted
    if torch.cuda.is_available():
        parts[0]["rng.cuda"] = torch.cuda.get_rng_state()
    for i, p in enumerate(model.parameters()):
        st = opt.state.get(p, {})
        for j, key in ((1, "exp_avg"), (2, "exp_avg_sq")):
            if key in st:
                parts[j][f"optim.{i}.{key}"] = st[key].detach().cpu().contiguous()
        if "step" in st:
            state.setdefault("adam_steps", {})[str(i)] = float(st["step"])
    meta = {"state": json.dumps(state)}
    for name, tensors in zip(PARTS, parts):
        save_file(tensors, str(work / (name + ".tmp")), metadata=meta)
    for name in PARTS:
        os.replace(work / (name + ".tmp"), work / name)
    (work / "resume.json").write_text(json.dumps(state, indent=1))  # for people; the files above are the truth


def load_resume(work: Path, model, opt) -> dict:
    tensors, states = {}, []
    for name in PARTS:
        path = work / name
        if not path.is_file():
            raise FileNotFoundError(f"{path} is missing: the resume point needs {', '.join(PARTS)}")
        tensors.update(load_file(str(path)))
        with safe_open(str(path), framework="pt") as f:
            states.append(f.metadata()["state"])
    if len(set(states)) > 1:
        steps = [json.loads(x)["step"] for x in states]
        raise ValueError(f"{work}: the parts of the resume point are from different steps {steps} (a sitting was "
                         "killed while writing them); resume from a copy of the last complete one")
    state = json.loads(states[0])
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
