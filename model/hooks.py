"""Named capture and head ablation, scoped to one call.

Every interesting tensor passes through an identity ``HookPoint``. Whether it is
recorded is decided by a ``ContextVar`` that belongs to the caller, never by state
on the shared module, so two threads capturing at once on one model each get their
own tensors (contextvars are per thread, and per asyncio task).
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import torch
from torch import nn


@dataclass
class _Capture:
    names: frozenset[str] | None  # None = keep everything
    store: dict[str, torch.Tensor] = field(default_factory=dict)


_CAPTURE: contextvars.ContextVar[_Capture | None] = contextvars.ContextVar("capture", default=None)
# attention-block path -> frozenset of head indices switched off for this call
_ABLATION: contextvars.ContextVar[dict[str, frozenset[int]] | None] = contextvars.ContextVar(
    "ablation", default=None
)


class HookPoint(nn.Module):
    """Identity. Records its input under its module path when the current call captures."""

    def __init__(self) -> None:
        super().__init__()
        self.name = ""  # filled in by name_hook_points() from named_modules()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        cap = _CAPTURE.get()
        if cap is not None and (cap.names is None or self.name in cap.names):
            cap.store[self.name] = x.detach()
        return x

    # nn.Module.__call__ (hook dispatch, tracing checks) costs more than this whole forward; a decoding
    # step passes ~45 HookPoints, so they are called directly. PyTorch forward hooks on a HookPoint
    # are therefore not run: capture goes through capture() / run_with_cache() instead.
    __call__ = forward


def name_hook_points(model: nn.Module) -> None:
    """Give every HookPoint (and every module, as ``path``) its dotted module path."""
    for path, module in model.named_modules():
        if isinstance(module, HookPoint):
            module.name = path
        module.__dict__["path"] = path  # plain attribute, not a submodule or buffer


def hook_names(model: nn.Module) -> list[str]:
    return [m.name for m in model.modules() if isinstance(m, HookPoint)]


@contextmanager
def capture(names: Iterable[str] | None = None) -> Iterator[dict[str, torch.Tensor]]:
    """Record HookPoint tensors for whatever runs inside the block.

    The yielded dict fills as the model runs. A hook that fires twice keeps the last value.
    """
    cap = _Capture(frozenset(names) if names is not None else None)
    token = _CAPTURE.set(cap)
    try:
        yield cap.store
    finally:
        _CAPTURE.reset(token)


def run_with_cache(
    model: nn.Module,
    src: torch.Tensor,
    tgt: torch.Tensor,
    names: Iterable[str] | None = None,
) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    """One forward pass of ``model(src, tgt)``; returns (logits, {hook name: detached tensor})."""
    if names is not None:
        names = list(names)
        unknown = set(names) - set(hook_names(model))
        if unknown:
            raise KeyError(f"no hook points named {sorted(unknown)}")
    with capture(names) as cache:
        logits = model(src, tgt)
    return logits, dict(cache)


@contextmanager
def ablate(heads: Iterable[tuple[str, int]]) -> Iterator[None]:
    """Switch off heads, given as (attention block path, head index), for calls inside the block.

    An ablated head's output (its weighted sum of values) is replaced by zeros before
    the output projection W_O, i.e. the head contributes nothing to the residual stream.
    """
    table: dict[str, set[int]] = {}
    for block, head in heads:
        table.setdefault(block, set()).add(int(head))
    frozen = {k: frozenset(v) for k, v in table.items()} or None
    token = _ABLATION.set(frozen)
    try:
        yield
    finally:
        _ABLATION.reset(token)


def ablated_heads(block_path: str) -> frozenset[int]:
    table = _ABLATION.get()
    if not table:
        return frozenset()
    return table.get(block_path, frozenset())


def run_with_ablation(
    model: nn.Module,
    src: torch.Tensor,
    tgt: torch.Tensor,
    heads: Iterable[tuple[str, int]],
) -> torch.Tensor:
    """Logits of ``model(src, tgt)`` with the given heads switched off for this call only."""
    heads = list(heads)
    blocks = {m.path: m.n_heads for m in model.modules() if hasattr(m, "n_heads") and hasattr(m, "w_q")}
    for block, head in heads:
        if block not in blocks:
            raise KeyError(f"no attention block named {block!r}; known: {sorted(blocks)}")
        if not 0 <= head < blocks[block]:
            raise IndexError(f"{block} has heads 0..{blocks[block] - 1}, not {head}")
    with ablate(heads):
        return model(src, tgt)
