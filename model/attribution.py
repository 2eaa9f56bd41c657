"""Which input tokens an output token depends on: attention rollout, three gradient methods and occlusion.

For every output token t (the pieces of the translation, then EOS) the attribution is a row over the
source tokens (``source``, (T_out, S)) and a row over the decoder's inputs, BOS and the target prefix
(``target``, (T_out, T_out); position j > t is always 0, the decoder cannot see it).

Gradient methods explain ``f_t = log p(y_t | x, y_<t)`` (pad and BOS excluded from the softmax, as in
decoding) or, with a contrast token c_t, ``f_t = log p(y_t | ...) - log p(c_t | ...)`` ("why y, not c").
The inputs are the token embeddings after the sqrt(d_model) scaling (hook points ``src_embed`` and
``tgt_embed``), before the positional encoding is added:

- ``saliency``: the L2 norm of d f_t / d e over the embedding dimensions (Simonyan et al., 2014).
  Unsigned, so not linear in f.
- ``input_x_gradient``: sum over dimensions of e * d f_t / d e (Shrikumar et al., 2016). Signed, linear in f.
- ``integrated_gradients``: sum over dimensions of (e - e') * integral over a of d f_t / d e at
  e' + a (e - e') (Sundararajan et al., 2017). The baseline e' is the zero embedding for every source and
  target token (the pad token's embedding; positions and masks stay as they are), so source and target
  move together. The integral is a midpoint rule with ``steps`` nodes placed where f changes most
  along the path (``adaptive_nodes``), all nodes in one batch. Completeness: the attributions of row t
  sum to f_t(e) - f_t(e'). ``row_gaps`` holds each row's gap in nats, ``completeness`` each row's relative gap,
  and ``completeness_error`` the sum of the gaps over the sum of the changes (rows cannot cancel). The
  integrand is rough at a small scale (each feed-forward ReLU that switches along the path makes the gradient
  jump), so the gaps shrink with more steps rather than vanishing: they are reported, never hidden.

``occlusion`` (erasure: Zeiler & Fergus, 2014; Li et al., 2016) needs no gradient and no baseline: each input piece
in turn becomes padding, which every attention ignores (the others keep their positions), and the row holds
f_t(x) - f_t(x without that piece): the effect of erasing one input at a time, an intervention rather than an
estimate, and so the reference the others are held against (scripts/attribution_vs_occlusion.py). It is not
additive, and it misses redundancy: two inputs that stand in for each other each look unimportant. The target
side erases a decoder input; f_t never depends on inputs after t (0 there). Erasing BOS leaves the first output's
self-attention with no key at all (the attention then spreads evenly over every key, later ones included), so that
one cell is not measurable: NaN.

``rollout`` (Abnar & Zuidema, 2020) ignores the output token: it follows attention back to the
inputs. Each attention's head-mean A is mixed with the residual identity, 0.5 A + 0.5 I. The encoder
rolls out to R_ss (S, S). Each decoder layer then carries a row over the target inputs (R_tt) and over
the source (R_ts): self-attention R <- (0.5 A + 0.5 I) R for both; cross-attention keeps half and brings
in half from the encoder, R_tt <- 0.5 R_tt, R_ts <- 0.5 R_ts + 0.5 A_cross R_ss. Every row of
[R_ts | R_tt] sums to 1.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch
import torch.nn.functional as F

from model.decoding import blocked_ids
from model.hooks import capture, intervene
from model.names import act_name
from model.pause import between_chunks

METHODS = ("rollout", "saliency", "input_x_gradient", "integrated_gradients", "occlusion")
GRADIENT = ("saliency", "input_x_gradient", "integrated_gradients")
# interpolation points x explained outputs x positions in one batched pass, at most: bounds memory (all 128 points of
# a 100-piece output at once took 2.2 GB), and other work may run between chunks (model/pause.py). Two 32-step
# integrated gradients of a 12-word sentence at once peaked ~230 MB over the process at 8,000, ~100 MB at 2,000 and
# 45-80 MB at 500, which takes a third longer (16 of them, two at a time: 9.8 s at 2,000, 13.2 s at 500; the siege
# bench's peak fell from +219/+175 MB to +136/+83 MB: docs/performance.md, A class under attack)
CHUNK_WORK = 500


def chunk_size(k: int, n_out: int, n_pos: int) -> int:
    """How many of k interpolation points go in one pass that explains n_out outputs over n_pos positions."""
    return max(1, min(k, CHUNK_WORK // max(1, n_out * n_pos)))
# attribution(f - g) = attribution(f) - attribution(g)
LINEAR = ("input_x_gradient", "integrated_gradients", "occlusion")


@dataclass
class Attribution:
    method: str
    source: np.ndarray  # (T_out, S)
    target: np.ndarray  # (T_out, T_out): over BOS + the output prefix
    src_tokens: list[str] = field(default_factory=list)
    tgt_tokens: list[str] = field(default_factory=list)  # BOS + output pieces (the decoder's inputs)
    out_tokens: list[str] = field(default_factory=list)  # output pieces + EOS (what is explained)
    contrast_tokens: list[str] = field(default_factory=list)  # per output position; empty without a contrast
    scores: np.ndarray | None = None  # (T_out,) f_t at the input (gradient methods, occlusion)
    baseline_scores: np.ndarray | None = None  # (T_out,) f_t at the baseline (integrated gradients)
    completeness: np.ndarray | None = None  # (T_out,) relative completeness gap per row (integrated gradients)
    steps: int = 0

    @property
    def row_gaps(self) -> np.ndarray | None:
        """(T_out,) |sum of row t's attributions - (f_t(x) - f_t(baseline))|, in nats (integrated gradients)."""
        if self.scores is None or self.baseline_scores is None:
            return None
        total = self.source.astype(np.float64).sum(1) + self.target.astype(np.float64).sum(1)
        return np.abs(total - (self.scores.astype(np.float64) - self.baseline_scores))

    @property
    def completeness_error(self) -> float | None:
        """|sum of attributions - (f(x) - f(baseline))| / |f(x) - f(baseline)| over every row together, without
        letting rows cancel: sum_t |gap_t| / sum_t |f_t(x) - f_t(baseline)| (the L1 norms of the rows' gaps and of
        their changes). For one row it is that row's relative gap; over many it is not blown up by a row whose
        log-probability barely moves, and it shrinks as the integral converges."""
        gaps = self.row_gaps
        if gaps is None:
            return None
        change = np.abs(self.scores.astype(np.float64) - self.baseline_scores).sum()
        return float(gaps.sum() / max(change, 1e-12))

    @property
    def worst_row_completeness_error(self) -> float | None:
        """max over rows of the same relative gap for each f_t alone (``completeness``). Ill-conditioned where a
        token's log-probability barely moves from the baseline (|f_t(x) - f_t(baseline)| of 0.01 nats makes a
        0.0001-nat gap 1%): read it with ``row_gaps``."""
        return None if self.completeness is None else float(np.max(self.completeness))


def _log_probs(model, h: torch.Tensor) -> torch.Tensor:
    """Decoder output h (B, T, D) -> log p (B, T, V), pad and BOS never produced, as in decoding."""
    logits = model.project(h)  # (B, T, V)
    logits[..., blocked_ids(model.cfg)] = float("-inf")
    return F.log_softmax(logits, dim=-1)


def _scores(logp: torch.Tensor, score_ids: torch.Tensor, contrast_ids: torch.Tensor | None) -> torch.Tensor:
    """log p (B, T, V) -> f (B, T): log p of score_ids[t] at position t (minus log p of contrast_ids[t])."""
    f = logp[..., score_ids].diagonal(dim1=1, dim2=2)  # (B, T, T) -> (B, T)
    if contrast_ids is not None:
        f = f - logp[..., contrast_ids].diagonal(dim1=1, dim2=2)
    return f


def _scores_and_slopes(model, h: torch.Tensor, score_ids: torch.Tensor, contrast_ids: torch.Tensor | None):
    """Decoder output h (B, T, D) -> f (B, T): log p of score_ids[t] (minus log p of contrast_ids[t]),
    and d f / d h (B, T, D): W[y] - sum_v p_v W[v] (W the tied output matrix; minus the same for c)."""
    w = model.embedding.weight  # (V, D)
    logp = _log_probs(model, h)
    f = _scores(logp, score_ids, contrast_ids)
    if contrast_ids is not None:
        return f, w[score_ids][None] - w[contrast_ids][None]  # the expectations cancel
    return f, w[score_ids][None] - logp.exp() @ w  # (B, T, D): (B, T, V) x (V, D)


def _embeddings(model, ids: torch.Tensor) -> torch.Tensor:
    """(1, T) ids -> (1, T, D) embeddings as the hook points src_embed / tgt_embed see them."""
    return model.embedding(ids) * model.cfg.d_model ** 0.5


def gradients(model, src: torch.Tensor, tgt: torch.Tensor, score_ids: torch.Tensor,
              contrast_ids: torch.Tensor | None, alphas: torch.Tensor, weights: torch.Tensor, groups: int | None = None):
    """Weighted sums over interpolation points of d f_t / d e, for every output position t.

    src (1, S), tgt (1, T) ids; the embeddings are scaled by ``alphas`` (K,) towards the zero baseline.
    -> (grad_src (T, S, D), grad_tgt (T, T, D), f (K, T)) with grad = sum_k weights[k] * d f_t / d e at alpha_k.

    One backward per output position, batched. The outputs go in ``groups`` consecutive blocks: f_t depends on
    the decoder's inputs 0..t only (causal), so a block of early outputs runs the decoder on a short prefix.
    """
    # a caller inside torch.inference_mode() still gets gradients: everything here is made outside it
    with torch.inference_mode(False):
        src, tgt, alphas, weights = src.clone(), tgt.clone(), alphas.clone(), weights.clone()
        score_ids = score_ids.clone()
        contrast_ids = None if contrast_ids is None else contrast_ids.clone()
        with torch.no_grad():
            e_src, e_tgt = _embeddings(model, src), _embeddings(model, tgt)  # (1, S, D), (1, T, D)
        k, t, d = alphas.numel(), tgt.size(1), e_src.size(-1)
        grad_src, grad_tgt = torch.zeros(t, src.size(1), d), torch.zeros(t, t, d)
        f_all = torch.zeros(k, t)
        n_groups = groups or max(1, min(3, t // 5))  # 3 blocks: about 15% less work than one for 18 outputs
        bounds = np.linspace(0, t, n_groups + 1).round().astype(int)
        # the interpolation points go a chunk at a time (chunk_size): the gradient is a weighted sum over them, so
        # the chunks add up to the same sum
        for t0, t1 in zip(bounds[:-1], bounds[1:]):
            if t1 <= t0:
                continue
            kc = chunk_size(k, t1 - t0, src.size(1) + t1)
            for k0 in range(0, k, kc):
                k1 = min(k, k0 + kc)
                a, kc = alphas[k0:k1], k1 - k0
                x_src = (a[:, None, None] * e_src).requires_grad_()  # (Kc, S, D): e' + a (e - e') with e' = 0
                x_tgt = (a[:, None, None] * e_tgt[:, :t1]).requires_grad_()  # (Kc, t1, D)
                hooks = {"src_embed": lambda x, n, v=x_src: v, "tgt_embed": lambda x, n, v=x_tgt: v}
                with torch.enable_grad(), intervene(hooks):
                    memory, src_mask = model.encode(src.expand(kc, -1))
                    h = model.decode(tgt[:, :t1].expand(kc, -1), memory, src_mask)  # (Kc, t1, D) the decoder's output
                    h = h[:, t0:t1]  # (Kc, n, D): only this block's outputs are explained here
                    with torch.no_grad():
                        c = None if contrast_ids is None else contrast_ids[t0:t1]
                        f, g = _scores_and_slopes(model, h, score_ids[t0:t1], c)  # (Kc, n), (Kc, n, D)
                    # d f_t / d h_t = g_t exactly, so h . g has f's gradient everywhere upstream, and the backward
                    # skips the (V, D) output projection
                    surrogate = (h * g).sum(-1)  # (Kc, n)
                    n = t1 - t0
                    go = torch.zeros(n, kc, n)  # grad_outputs[i] picks position t0 + i, quadrature-weighted
                    go[torch.arange(n), :, torch.arange(n)] = weights[k0:k1]
                    # -> (n, Kc, S, D), (n, Kc, t1, D)
                    gs, gt = torch.autograd.grad(surrogate, (x_src, x_tgt), grad_outputs=go, is_grads_batched=True)
                grad_src[t0:t1] += gs.sum(1)
                grad_tgt[t0:t1, :t1] += gt.sum(1)
                f_all[k0:k1, t0:t1] = f
                del gs, gt, h, memory
                between_chunks()
    return grad_src, grad_tgt, f_all


def gradient_attribution(model, src_ids: list[int], tgt_ids: list[int], score_ids: list[int],
                         contrast_ids: list[int] | None = None, method: str = "integrated_gradients",
                         steps: int = 32) -> dict[str, np.ndarray]:
    """The gradient methods on raw ids: src_ids (S,), tgt_ids (T,) = BOS + output, score_ids (T,) = output + EOS.
    -> {"source": (T, S), "target": (T, T), "scores": (T,)[, "baseline_scores", "completeness"]}."""
    if method not in GRADIENT:
        raise ValueError(f"gradient method must be one of {GRADIENT}, not {method!r}")
    if len(score_ids) != len(tgt_ids):
        raise ValueError(f"{len(score_ids)} scored tokens for {len(tgt_ids)} decoder positions")
    src, tgt = torch.tensor([src_ids]), torch.tensor([tgt_ids])  # (1, S), (1, T)
    score = torch.tensor(score_ids)
    contrast = None if contrast_ids is None else torch.tensor(contrast_ids)
    e_src, e_tgt = _embeddings(model, src).detach()[0], _embeddings(model, tgt).detach()[0]  # (S, D), (T, D)
    if method != "integrated_gradients":
        gs, gt, f = gradients(model, src, tgt, score, contrast, torch.ones(1), torch.ones(1))
        if method == "saliency":
            s, t = gs.norm(dim=-1), gt.norm(dim=-1)  # (T, S), (T, T)
        else:
            s, t = (gs * e_src).sum(-1), (gt * e_tgt).sum(-1)
        return {"source": s.numpy(), "target": t.numpy(), "scores": f[0].numpy()}
    if steps < 1:
        raise ValueError(f"steps must be >= 1, got {steps}")
    grid = torch.linspace(0, 1, max(steps // 2, 2) + 1)  # (G,) a coarse look at the path, forward only
    f_grid = path_scores(model, src, tgt, score, contrast, grid)  # (G, T)
    alphas, widths = adaptive_nodes(f_grid, grid, steps)
    gs, gt, _ = gradients(model, src, tgt, score, contrast, alphas, widths)
    s, t = (gs * e_src).sum(-1), (gt * e_tgt).sum(-1)  # (T, S), (T, T): (e - e') . mean gradient, e' = 0
    fx, fb = f_grid[-1], f_grid[0]  # (T,) at the input and at the baseline
    gap = (s.sum(1) + t.sum(1) - (fx - fb)).abs() / (fx - fb).abs().clamp_min(1e-12)
    return {"source": s.numpy(), "target": t.numpy(), "scores": fx.numpy(), "baseline_scores": fb.numpy(),
            "completeness": gap.numpy()}


@torch.no_grad()
def path_scores(model, src, tgt, score_ids, contrast_ids, alphas: torch.Tensor) -> torch.Tensor:
    """f (K, T) at the points e' + a (e - e') of the straight path, a in ``alphas`` (K,): forward passes only."""
    e_src, e_tgt = _embeddings(model, src), _embeddings(model, tgt)  # (1, S, D), (1, T, D)
    f = []
    kc = chunk_size(alphas.numel(), tgt.size(1), src.size(1) + tgt.size(1))  # (K, T, V) log-probabilities: ~200 MB
    for k0 in range(0, alphas.numel(), kc):
        a = alphas[k0:k0 + kc]
        hooks = {"src_embed": lambda x, n, a=a: a[:, None, None] * e_src,
                 "tgt_embed": lambda x, n, a=a: a[:, None, None] * e_tgt}
        with intervene(hooks):
            memory, src_mask = model.encode(src.expand(a.numel(), -1))
            h = model.decode(tgt.expand(a.numel(), -1), memory, src_mask)  # (Kc, T, D)
        f.append(_scores(_log_probs(model, h), score_ids, contrast_ids))  # (Kc, T)
        between_chunks()
    return torch.cat(f)  # (K, T)


def adaptive_nodes(f_grid: torch.Tensor, grid: torch.Tensor, steps: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Midpoint-rule nodes and widths on [0, 1], denser where f changes most along the path.

    The integrand (the gradient) has a kink wherever one of the feed-forward ReLUs switches along the path,
    thousands of them, so equal steps converge slowly (completeness gap ~1.1% at 64 steps on a 17-word
    sentence, 0.5% with these nodes). Each row's change is normalised, the rows summed, and half of the
    nodes follow that cumulative change, half are spread evenly.
    """
    change = f_grid.diff(dim=0).abs()  # (G-1, T)
    change = change / change.sum(0, keepdim=True).clamp_min(1e-12)
    cdf = torch.cat([torch.zeros(1), change.sum(1).cumsum(0)]) / change.size(1)  # (G,) from 0 to 1
    cdf = 0.5 * cdf + 0.5 * grid
    edges = np.interp(np.linspace(0, 1, steps + 1), cdf.double().numpy(), grid.double().numpy())
    edges = torch.tensor(edges, dtype=torch.float32)
    return (edges[1:] + edges[:-1]) / 2, edges.diff()


def rollout(cache: dict[str, torch.Tensor], n_enc: int, n_dec: int) -> tuple[np.ndarray, np.ndarray]:
    """Attention rollout from a capture cache of one pass (batch of one) -> (source (T, S), target (T, T))."""
    def mixed(kind: str, layer: int) -> torch.Tensor:
        a = cache[act_name(kind, layer, "weights")][0].double().mean(0)  # (H, Tq, Tk) -> (Tq, Tk)
        return 0.5 * a + 0.5 * torch.eye(a.size(0), a.size(1), dtype=a.dtype)

    s = cache[act_name("encoder", 0, "weights")].size(-1)
    r_ss = torch.eye(s, dtype=torch.float64)
    for i in range(n_enc):
        r_ss = mixed("encoder", i) @ r_ss  # (S, S)
    t = cache[act_name("decoder", 0, "weights")].size(-1)
    r_tt, r_ts = torch.eye(t, dtype=torch.float64), torch.zeros(t, s, dtype=torch.float64)
    for i in range(n_dec):
        a_self = mixed("decoder", i)  # (T, T)
        r_tt, r_ts = a_self @ r_tt, a_self @ r_ts
        a_cross = cache[act_name("cross", i, "weights")][0].double().mean(0)  # (T, S)
        r_tt, r_ts = 0.5 * r_tt, 0.5 * r_ts + 0.5 * a_cross @ r_ss
    return r_ts.numpy(), r_tt.numpy()


@torch.no_grad()
def rollout_ids(model, src_ids: list[int], tgt_ids: list[int]) -> tuple[np.ndarray, np.ndarray]:
    names = [act_name(k, i, "weights") for k, n in (("encoder", model.cfg.n_encoder_layers),
             ("decoder", model.cfg.n_decoder_layers), ("cross", model.cfg.n_decoder_layers)) for i in range(n)]
    with capture(names) as cache:
        model(torch.tensor([src_ids]), torch.tensor([tgt_ids]))
    return rollout(cache, model.cfg.n_encoder_layers, model.cfg.n_decoder_layers)


@torch.no_grad()
def occlusion(model, src_ids: list[int], tgt_ids: list[int], score_ids: list[int],
              contrast_ids: list[int] | None = None, batch: int = 32) -> dict[str, np.ndarray]:
    """Erase each source piece and each decoder input in turn (it becomes padding) and measure f's fall.

    src_ids (S,), tgt_ids (T,) = BOS + output, score_ids (T,) = output + EOS.
    -> {"source": (T, S), "target": (T, T), "scores": (T,)}; source[t, j] = f_t(x) - f_t(x, piece j erased);
    target[0, 0] is NaN (erasing BOS leaves the first output no key to attend to).
    """
    if len(score_ids) != len(tgt_ids):
        raise ValueError(f"{len(score_ids)} scored tokens for {len(tgt_ids)} decoder positions")
    pad = model.cfg.pad_id
    src, tgt = torch.tensor([src_ids]), torch.tensor([tgt_ids])  # (1, S), (1, T)
    s, t = src.size(1), tgt.size(1)
    # variant 0: nothing erased; 1..S: source piece j erased; S+1..S+T: decoder input j erased
    srcs = src.repeat(1 + s, 1)  # (1+S, S): the target-side variants share variant 0's source
    srcs[1 + torch.arange(s), torch.arange(s)] = pad
    tgts = tgt.repeat(1 + s + t, 1)  # (1+S+T, T)
    tgts[1 + s + torch.arange(t), torch.arange(t)] = pad
    encoded = [model.encode(srcs[i:i + batch]) for i in range(0, 1 + s, batch)]
    memory = torch.cat([m for m, _ in encoded])  # (1+S, S, D)
    src_mask = torch.cat([k for _, k in encoded])  # (1+S, 1, 1, S)
    memory = torch.cat([memory, memory[:1].expand(t, -1, -1)])  # (1+S+T, S, D)
    src_mask = torch.cat([src_mask, src_mask[:1].expand(t, -1, -1, -1)])  # (1+S+T, 1, 1, S)
    score = torch.tensor(score_ids)
    contrast = None if contrast_ids is None else torch.tensor(contrast_ids)
    f = []
    for i in range(0, tgts.size(0), batch):
        h = model.decode(tgts[i:i + batch], memory[i:i + batch], src_mask[i:i + batch])  # (b, T, D)
        f.append(_scores(_log_probs(model, h), score, contrast))  # (b, T)
        between_chunks()
    f = torch.cat(f).double()  # (1+S+T, T)
    drop = f[0][None] - f[1:]  # (S+T, T): row k erases input k
    source, target = drop[:s].T, drop[s:].T.tril()  # (T, S), (T, T): f_t cannot see decoder inputs after t
    target[0, 0] = float("nan")  # erasing BOS leaves the first output nothing to attend to: not measurable
    return {"source": source.float().numpy(), "target": target.float().numpy(), "scores": f[0].float().numpy()}
