"""Training on several processes with PyTorch's own engine (DistributedDataParallel).

    torchrun --nproc_per_node=N -m training.train ...        (gloo on CPU, nccl on GPUs)

Every rank builds the same global batches (same seed); rank r trains on sentences r, r+N, r+2N, ... of each.
The loss of a rank is its share of the global batch's token-mean loss, times N, because DDP averages the
gradients over the ranks: the update is then the one-process update on the same global batch. Rank 0 alone
writes checkpoints and logs. Without torchrun's environment everything here is a no-op (one process).
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


def init() -> torch.device:
    """Join the process group torchrun describes (RANK, WORLD_SIZE, MASTER_ADDR...); -> this rank's device."""
    if "WORLD_SIZE" not in os.environ or int(os.environ["WORLD_SIZE"]) <= 1 or tdist.is_initialized():
        return torch.device("cpu")
    if torch.cuda.is_available():
        local = int(os.environ.get("LOCAL_RANK", 0))
        torch.cuda.set_device(local)
        tdist.init_process_group("nccl")
        return torch.device("cuda", local)
    tdist.init_process_group("gloo")
    return torch.device("cpu")


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
