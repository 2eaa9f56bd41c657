"""Training on several processes with PyTorch's own engine (DistributedDataParallel).

    torchrun --nproc_per_node=N -m training.train ...        (gloo on CPU, nccl on GPUs)

Every rank builds the same global batches (same seed); rank r trains on sentences r, r+N, r+2N, ... of each.
The loss of a rank is its share of the global batch's token-mean loss, times N, because DDP averages the
gradients over the ranks: the update is then the one-process update on the same global batch. Rank 0 alone
writes checkpoints and logs. Without torchrun's environment everything here is a no-op (one process), but the
choice of device: the GPU when there is one, unless --device cpu.
"""

from __future__ import annotations

import os

import torch
import torch.distributed as tdist


def world() -> int:
    return tdist.get_world_size() if tdist.is_initialized() else 1


def rank() -> int:
    return tdist.get_rank() if tdist.is_initialized() else 0


def is_main() -> bool:
    return rank() == 0


DEVICES = ("auto", "cpu", "cuda")


def choose_device(requested: str, cuda_available: bool, local_rank: int = 0) -> torch.device:
    """The device a process trains on: "auto" is the GPU when there is one, else the CPU; "cuda" without a GPU is
    refused in words (a run meant for a lent GPU must not quietly take hours on the CPU)."""
    if requested not in DEVICES:
        raise ValueError(f"--device must be one of {', '.join(DEVICES)}, not {requested!r}")
    if requested == "cuda" and not cuda_available:
        raise ValueError("--device cuda: torch sees no CUDA GPU here (torch.cuda.is_available() is False)")
    if requested == "cpu" or not cuda_available:
        return torch.device("cpu")
    return torch.device("cuda", local_rank)


def init(requested: str = "auto") -> torch.device:
    """Join the process group torchrun describes (RANK, WORLD_SIZE, MASTER_ADDR...), if any; -> this rank's device
    (``choose_device``: one process uses the GPU too, when there is one and the CPU is not asked for)."""
    local = int(os.environ.get("LOCAL_RANK", 0))
    device = choose_device(requested, torch.cuda.is_available(), local)
    if device.type == "cuda":
        torch.cuda.set_device(device)
    if "WORLD_SIZE" in os.environ and int(os.environ["WORLD_SIZE"]) > 1 and not tdist.is_initialized():
        tdist.init_process_group("nccl" if device.type == "cuda" else "gloo")
    return device


def describe(device: torch.device, threads: int) -> str:
    """Where a run trained, for metrics.json's hardware line."""
    if device.type == "cuda":
        return f"on {torch.cuda.get_device_name(device)}"
    return f"x {threads} CPU threads"


def shard(idx: list[int]) -> list[int]:
    """This rank's sentences of one global batch."""
    return idx[rank()::world()]


def totals(*xs: float, device: torch.device | None = None) -> list[float]:
    """Each of ``xs`` summed over the ranks (one all-reduce)."""
    if not tdist.is_initialized():
        return [float(x) for x in xs]
    t = torch.tensor([float(x) for x in xs], dtype=torch.float64, device=device)
    tdist.all_reduce(t)
    return t.tolist()


def barrier() -> None:
    if tdist.is_initialized():
        tdist.barrier()


def finish() -> None:
    if tdist.is_initialized():
        tdist.destroy_process_group()
