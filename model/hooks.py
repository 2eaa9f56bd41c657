"""Named hook points: capture, interventions and head ablation, all scoped to one call.

Every interesting tensor passes through an identity ``HookPoint``. What happens there is decided by
``ContextVar``s that belong to the caller, never by state on the shared module, so two threads
capturing or intervening at once on one model each see only their own hooks (contextvars are per
thread, and per asyncio task).

- ``capture(names)`` records the tensors that flow on (after any intervention).
- ``intervene({name: fn})`` / ``run_with_hooks``: ``fn(tensor, name)`` is called at the hook point;
  a returned tensor replaces the value for this call, ``None`` leaves it as it is.
- ``ablate(heads)`` is an intervention on ``<attention block>.z``: the head's slice becomes zeros.

Hook names are built by ``model.names.act_name``; ``hook_names(model)`` lists them.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field

import torch
from torch import nn

HookFn = Callable[[torch.Tensor, str], "torch.Tensor | None"]


@dataclass
class _Capture:
    names: frozenset[str] | None  # None = keep everything
    store: dict[str, torch.Tensor] = field(default_factory=dict)


_CAPTURE: contextvars.ContextVar[_Capture | None] = contextvars.ContextVar("capture", default=None)
# hook name -> the functions to call there, outermost first, for this call only
_HOOKS: contextvars.ContextVar[dict[str, tuple[HookFn, ...]] | None] = contextvars.ContextVar("hooks", default=None)


class HookPoint(nn.Module):
    """Identity, unless the current call intervenes here (``intervene``) or records here (``capture``)."""

    def __init__(self) -> None:
        super().__init__()
        self.name = ""  # filled in by name_hook_points() from named_modules()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        hooks = _HOOKS.get()
        if hooks is not None:
            for fn in hooks.get(self.name, ()):
                y = fn(x, self.name)
                if y is not None:
                    if not isinstance(y, torch.Tensor) or y.shape != x.shape:
                        got = tuple(y.shape) if isinstance(y, torch.Tensor) else type(y).__name__
                        raise ValueError(f"hook on {self.name} returned {got}; expected a tensor of shape {tuple(x.shape)}")
                    x = y
        cap = _CAPTURE.get()
        if cap is not None and (cap.names is None or self.name in cap.names):
            cap.store[self.name] = x.detach()
        return x

    # nn.Module.__call__ (hook dispatch, tracing checks) costs more than this whole forward; a decoding
    # step passes ~50 HookPoints, so they are called directly. PyTorch's module hooks would therefore
    # never run here: registering one raises instead of being skipped in silence.
    __call__ = forward

    def _no_torch_hooks(self, *args, **kwargs):
        raise RuntimeError(
            f"HookPoint {self.name or '(unnamed)'}: PyTorch module hooks are not run on hook points. "
            "Use model.hooks.run_with_hooks(model, src, tgt, {name: fn}) (or intervene() / capture()), "
            "which scope the hook to one call.")

    register_forward_hook = _no_torch_hooks
    register_forward_pre_hook = _no_torch_hooks
    register_full_backward_hook = _no_torch_hooks
    register_full_backward_pre_hook = _no_torch_hooks
    register_backward_hook = _no_torch_hooks


def name_hook_points(model: nn.Module) -> None:
    """Give every HookPoint (and every module, as ``path``) its dotted module path."""
    for path, module in model.named_modules():
        if isinstance(module, HookPoint):
            module.name = path
        module.__dict__["path"] = path  # plain attribute, not a submodule or buffer


def hook_names(model: nn.Module) -> list[str]:
    return [m.name for m in model.modules() if isinstance(m, HookPoint)]


def _check_names(model: nn.Module, names: Iterable[str]) -> None:
    unknown = set(names) - set(hook_names(model))
    if unknown:
        raise KeyError(f"no hook points named {sorted(unknown)}; model.hooks.hook_names(model) lists them")


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


@contextmanager
def intervene(hooks: Mapping[str, HookFn | Iterable[HookFn]]) -> Iterator[None]:
    """Call ``fn(tensor, name)`` at the named hook points for whatever runs inside the block; a returned
    tensor (same shape) replaces the value. Blocks nest: an outer block's functions run first."""
    table = dict(_HOOKS.get() or {})
    for name, fns in hooks.items():
        fns = (fns,) if callable(fns) else tuple(fns)
        table[name] = table.get(name, ()) + fns
    token = _HOOKS.set(table or None)
    try:
        yield
    finally:
        _HOOKS.reset(token)


def run_with_hooks(
    model: nn.Module,
    src: torch.Tensor,
    tgt: torch.Tensor,
    hooks: Mapping[str, HookFn | Iterable[HookFn]],
) -> torch.Tensor:
    """Logits of ``model(src, tgt)`` with ``hooks`` ({hook name: fn(tensor, name) -> tensor | None}) applied
    for this call only."""
    _check_names(model, hooks)
    with intervene(hooks):
        return model(src, tgt)


def run_with_cache(
    model: nn.Module,
    src: torch.Tensor,
    tgt: torch.Tensor,
    names: Iterable[str] | None = None,
) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    """One forward pass of ``model(src, tgt)``; returns (logits, {hook name: detached tensor})."""
    if names is not None:
        names = list(names)
        _check_names(model, names)
    with capture(names) as cache:
        logits = model(src, tgt)
    return logits, dict(cache)


def zero_heads(heads: Iterable[int]) -> HookFn:
    """A hook for ``<attention block>.z`` (B, H, T, d_k) that sets the given heads' outputs to zero."""
    off = sorted({int(h) for h in heads})

    def fn(z: torch.Tensor, name: str) -> torch.Tensor:
        if off and off[-1] >= z.size(1):
            raise IndexError(f"{name} has heads 0..{z.size(1) - 1}, not {off[-1]}")
        z = z.clone()
        z[:, off] = 0.0  # (B, H, T, d_k): the heads' weighted sums of values, before W_O
        return z

    return fn


@contextmanager
def ablate(heads: Iterable[tuple[str, int]]) -> Iterator[None]:
    """Switch off heads, given as (attention block path, head index), for calls inside the block.

    An ablated head's output (its weighted sum of values, the hook point ``<block>.z``) is replaced by
    zeros before the output projection W_O, i.e. the head contributes nothing to the residual stream.
    """
    table: dict[str, set[int]] = {}
    for block, head in heads:
        table.setdefault(block, set()).add(int(head))
    with intervene({f"{block}.z": zero_heads(hs) for block, hs in table.items()}):
        yield


def run_with_ablation(
    model: nn.Module,
    src: torch.Tensor,
    tgt: torch.Tensor,
    heads: Iterable[tuple[str, int]],
) -> torch.Tensor:
    """Logits of ``model(src, tgt)`` with the given heads switched off for this call only."""
    heads = list(heads)
    known = {n[: -len(".z")] for n in hook_names(model) if n.endswith(".z")}
    n_heads = model.cfg.n_heads
    for block, head in heads:
        if block not in known:
            raise KeyError(f"no attention block named {block!r}; known: {sorted(known)}")
        if not 0 <= head < n_heads:
            raise IndexError(f"{block} has heads 0..{n_heads - 1}, not {head}")
    with ablate(heads):
        return model(src, tgt)
