"""Greedy, beam search and sampling, each with an incremental key/value cache and a trace of every step."""

from __future__ import annotations

from dataclasses import dataclass, field

import torch
import torch.nn.functional as F

from model.kv_cache import KVCache
from model.pause import between_chunks
from model.transformer import Transformer


@dataclass
class StepChoice:
    """One decoding step of one hypothesis: the top-k next tokens and the one taken."""

    step: int  # 0 = the first token after BOS
    prefix: list[int]  # tokens already emitted (without BOS)
    top_ids: list[int]
    top_probs: list[float]  # probabilities under the distribution the choice was made from
    chosen: int
    chosen_prob: float


@dataclass
class BeamCandidate:
    """An extension considered at one beam step. ``parent`` indexes the previous step's ``beams``."""

    parent: int
    token: int
    token_logprob: float
    score: float  # cumulative log-probability of the whole prefix
    kept: bool  # survived into the next step's beam
    finished: bool  # the token is EOS; the hypothesis moved to the finished list


@dataclass
class BeamStep:
    step: int
    candidates: list[BeamCandidate]
    beams: list[int]  # indices into candidates of the hypotheses alive after this step


@dataclass
class Hypothesis:
    tokens: list[int]  # without BOS / EOS
    logprob: float
    score: float  # logprob / length penalty
    finished: bool


@dataclass
class DecodeTrace:
    method: str
    steps: list[StepChoice] = field(default_factory=list)  # greedy / sampling; for beam: the winner's path
    beam_steps: list[BeamStep] = field(default_factory=list)
    hypotheses: list[Hypothesis] = field(default_factory=list)  # beam: final, sorted best first


def blocked_ids(cfg) -> list[int]:
    """Ids decoding never produces (pad, BOS): every distribution over the next token excludes them."""
    return [cfg.pad_id, cfg.bos_id]


def _blocked(model: Transformer) -> list[int]:
    return blocked_ids(model.cfg)


def _next_logits(model, src_mask, memory, ys: torch.Tensor, cache: KVCache | None) -> torch.Tensor:
    """Logits (B, V) for the token after ``ys`` (B, t) with or without the incremental cache."""
    if cache is None:
        h = model.decode(ys, memory, src_mask)  # (B, t, D): the whole prefix again
    else:
        h = model.decode(ys[:, -1:], memory, src_mask, cache)  # (B, 1, D): position cache.offset == t
    logits = model.project(h[:, -1])  # (B, V)
    logits[:, _blocked(model)] = float("-inf")
    return logits


def constrain(logits: torch.Tensor, ys: torch.Tensor, repetition_penalty: float = 1.0,
              no_repeat_ngram_size: int = 0) -> torch.Tensor:
    """Departures from the paper's decoding, off by default (1.0 and 0), applied in place to next-token ``logits``
    (B, V) given each row's prefix ``ys`` (B, t+1) with BOS first:

    - ``repetition_penalty`` p > 1 (Keskar et al., 2019, CTRL): a token already in the prefix has its logit divided
      by p if positive, multiplied by p if negative — less likely to come again.
    - ``no_repeat_ngram_size`` n > 0 (as in fairseq / Hugging Face): a token that would complete an n-gram already
      in the prefix is forbidden, so no n-gram appears twice.
    """
    if repetition_penalty != 1.0 and ys.size(1) > 1:
        seen = ys[:, 1:]  # (B, t)
        picked = logits.gather(1, seen)  # (B, t)
        logits.scatter_(1, seen, torch.where(picked > 0, picked / repetition_penalty, picked * repetition_penalty))
    n = no_repeat_ngram_size
    if n > 0 and ys.size(1) - 1 >= n:
        for b, row in enumerate(ys[:, 1:].tolist()):
            if n == 1:
                banned = set(row)
            else:
                tail = tuple(row[len(row) - n + 1 :])
                banned = {row[i + n - 1] for i in range(len(row) - n + 1) if tuple(row[i : i + n - 1]) == tail}
            if banned:
                logits[b, sorted(banned)] = float("-inf")
    return logits


def _check_src(model: Transformer, src: torch.Tensor, max_len: int) -> None:
    if src.dim() != 2:
        raise ValueError(f"src must be (B, S) token ids, got shape {tuple(src.shape)}")
    if src.size(1) > model.cfg.max_len:
        raise ValueError(f"source has {src.size(1)} tokens; the model handles at most {model.cfg.max_len}")
    if max_len < 1 or max_len + 1 > model.cfg.max_len:
        raise ValueError(f"max_len must be in 1..{model.cfg.max_len - 1}, got {max_len}")


def _top(probs: torch.Tensor, k: int) -> tuple[list[int], list[float]]:
    p, i = probs.topk(min(k, probs.numel()))
    return i.tolist(), p.tolist()


@torch.no_grad()
def greedy(
    model: Transformer,
    src: torch.Tensor,
    max_len: int = 100,
    use_cache: bool = True,
    trace_top_k: int = 5,
    min_len: int = 0,
    repetition_penalty: float = 1.0,
    no_repeat_ngram_size: int = 0,
) -> tuple[list[list[int]], list[DecodeTrace]]:
    """Batched greedy decoding. src (B, S) -> one token list per sentence (no BOS/EOS) and one trace each.

    ``min_len`` forbids EOS for the first steps (fairseq's min_len; benchmarks use it for a fixed length).
    """
    _check_src(model, src, max_len)
    cfg = model.cfg
    b = src.size(0)
    memory, src_mask = model.encode(src)
    ys = torch.full((b, 1), cfg.bos_id, dtype=torch.long, device=src.device)  # (B, 1)
    cache = model.new_cache() if use_cache else None
    done = torch.zeros(b, dtype=torch.bool, device=src.device)
    traces = [DecodeTrace("greedy") for _ in range(b)]
    for t in range(max_len):
        logits = constrain(_next_logits(model, src_mask, memory, ys, cache), ys, repetition_penalty,
                           no_repeat_ngram_size)  # (B, V)
        if t < min_len:
            logits[:, cfg.eos_id] = float("-inf")
        nxt = logits.argmax(-1)  # (B,)
        if trace_top_k:
            probs = F.softmax(logits, -1)
            for i in range(b):
                if not done[i]:
                    ids, ps = _top(probs[i], trace_top_k)
                    c = int(nxt[i])
                    traces[i].steps.append(StepChoice(t, ys[i, 1:].tolist(), ids, ps, c, float(probs[i, c])))
        nxt = nxt.masked_fill(done, cfg.pad_id)
        ys = torch.cat([ys, nxt[:, None]], dim=1)  # (B, t+1) -> (B, t+2)
        done |= nxt == cfg.eos_id
        if done.all():
            break
    out = []
    for row in ys[:, 1:].tolist():
        toks = []
        for tok in row:
            if tok in (cfg.eos_id, cfg.pad_id):
                break
            toks.append(tok)
        out.append(toks)
    return out, traces


@torch.no_grad()
def sample(
    model: Transformer,
    src: torch.Tensor,
    max_len: int = 100,
    temperature: float = 1.0,
    top_k: int = 0,
    top_p: float = 1.0,
    seed: int | None = None,
    use_cache: bool = True,
    trace_top_k: int = 5,
    repetition_penalty: float = 1.0,
    no_repeat_ngram_size: int = 0,
) -> tuple[list[int], DecodeTrace]:
    """Ancestral sampling for one sentence (src (1, S)), with temperature, top-k and nucleus (top-p) filtering."""
    _check_src(model, src, max_len)
    if src.size(0) != 1:
        raise ValueError("sample() decodes one sentence at a time")
    if not temperature > 0:
        raise ValueError(f"temperature must be > 0, got {temperature}")
    if not 0 < top_p <= 1:
        raise ValueError(f"top_p must be in (0, 1], got {top_p}")
    if top_k < 0:
        raise ValueError(f"top_k must be >= 0 (0 = off), got {top_k}")
    gen = torch.Generator(device=src.device)
    if seed is not None:
        gen.manual_seed(seed)
    else:
        gen.seed()
    cfg = model.cfg
    memory, src_mask = model.encode(src)
    ys = torch.full((1, 1), cfg.bos_id, dtype=torch.long, device=src.device)
    cache = model.new_cache() if use_cache else None
    trace = DecodeTrace("sample")
    for t in range(max_len):
        logits = constrain(_next_logits(model, src_mask, memory, ys, cache), ys, repetition_penalty,
                           no_repeat_ngram_size)[0]  # (V,)
        # shift before dividing: a tiny temperature then gives -inf (never NaN) to all but the best token
        logits = (logits - logits.max()) / temperature
        if top_k:
            kth = logits.topk(min(top_k, logits.numel())).values[-1]
            logits = logits.masked_fill(logits < kth, float("-inf"))
        if top_p < 1:
            sorted_logits, order = logits.sort(descending=True)
            cum = F.softmax(sorted_logits, -1).cumsum(-1)
            drop = cum - F.softmax(sorted_logits, -1) >= top_p  # keep the smallest prefix reaching top_p
            logits = logits.masked_fill(torch.zeros_like(drop).scatter(0, order, drop), float("-inf"))
        probs = F.softmax(logits, -1)
        c = int(torch.multinomial(probs, 1, generator=gen))
        ids, ps = _top(probs, trace_top_k or 1)
        trace.steps.append(StepChoice(t, ys[0, 1:].tolist(), ids, ps, c, float(probs[c])))
        ys = torch.cat([ys, ys.new_tensor([[c]])], dim=1)
        if c == cfg.eos_id:
            break
    toks = ys[0, 1:].tolist()
    return (toks[:-1] if toks and toks[-1] == cfg.eos_id else toks), trace


@torch.no_grad()
def forced_prefix(model: Transformer, src: torch.Tensor, prefix: list[int], max_len: int = 0,
                  ) -> tuple[torch.Tensor, list[int]]:
    """Feed ``prefix`` (ids, no BOS) step by step as greedy would have produced it, then decode greedily on.
    src (1, S) -> (the next-token probabilities after the prefix (V,), the greedy continuation after it, at most
    ``max_len`` tokens in all, EOS not included). The same incremental steps as ``greedy``, so forcing greedy's own
    prefix gives its trace's probabilities exactly."""
    _check_src(model, src, max(max_len, len(prefix) + 1))
    cfg = model.cfg
    memory, src_mask = model.encode(src)
    ys = torch.full((1, 1), cfg.bos_id, dtype=torch.long, device=src.device)  # (1, 1)
    cache = model.new_cache()
    for tok in prefix:
        _next_logits(model, src_mask, memory, ys, cache)  # fills the cache for this position
        ys = torch.cat([ys, ys.new_tensor([[tok]])], dim=1)  # (1, t+1) -> (1, t+2)
    probs = F.softmax(_next_logits(model, src_mask, memory, ys, cache), -1)  # (1, V)
    more: list[int] = []
    nxt = int(probs[0].argmax())
    while nxt != cfg.eos_id and len(prefix) + len(more) < max_len:
        more.append(nxt)
        ys = torch.cat([ys, ys.new_tensor([[nxt]])], dim=1)
        nxt = int(_next_logits(model, src_mask, memory, ys, cache)[0].argmax())
    return probs[0], more


def length_penalty(length: int, alpha: float) -> float:
    """GNMT's lp(Y) = ((5 + |Y|) / 6)^alpha; alpha 0 = raw log-probability."""
    return ((5 + length) / 6) ** alpha


@torch.no_grad()
def beam_search(
    model: Transformer,
    src: torch.Tensor,
    beam_size: int = 5,
    max_len: int = 100,
    alpha: float = 0.6,
    use_cache: bool = True,
    trace_top_k: int = 5,
    repetition_penalty: float = 1.0,
    no_repeat_ngram_size: int = 0,
) -> tuple[list[int], DecodeTrace]:
    """Beam search for one sentence (src (1, S)). Returns the best tokens and a trace with every beam step.

    At each step every live hypothesis is extended by its best tokens; the 2K best
    extensions are candidates, those ending in EOS are finished, and the K best others
    live on. Search stops when K hypotheses have finished or max_len is reached.
    """
    _check_src(model, src, max_len)
    if src.size(0) != 1:
        raise ValueError("beam_search() decodes one sentence at a time")
    if beam_size < 1:
        raise ValueError(f"beam_size must be >= 1, got {beam_size}")
    cfg = model.cfg
    memory, src_mask = model.encode(src)
    ys = torch.full((1, 1), cfg.bos_id, dtype=torch.long, device=src.device)  # (K_live, t)
    scores = torch.zeros(1, device=src.device)  # (K_live,) cumulative log-probs
    cache = model.new_cache() if use_cache else None
    trace = DecodeTrace("beam")
    finished: list[Hypothesis] = []
    for t in range(max_len):
        k_live = ys.size(0)
        mem = memory.expand(k_live, -1, -1)
        mask = src_mask.expand(k_live, -1, -1, -1)
        logits = constrain(_next_logits(model, mask, mem, ys, cache), ys, repetition_penalty, no_repeat_ngram_size)
        logp = F.log_softmax(logits, -1)  # (K_live, V)
        total = (scores[:, None] + logp).view(-1)  # (K_live * V,)
        n_cand = min(2 * beam_size, total.numel())
        top_scores, top_idx = total.topk(n_cand)
        parents = top_idx // logp.size(1)
        tokens = top_idx % logp.size(1)
        cands: list[BeamCandidate] = []
        keep: list[int] = []
        for rank, (s, p, tok) in enumerate(zip(top_scores.tolist(), parents.tolist(), tokens.tolist())):
            is_eos = tok == cfg.eos_id
            take = len(keep) < beam_size and not is_eos and s > float("-inf")
            fin = is_eos and rank < beam_size and len(finished) < beam_size  # EOS counts only among the K best
            if fin:
                prefix = ys[p, 1:].tolist()
                finished.append(Hypothesis(prefix, s, s / length_penalty(len(prefix) + 1, alpha), True))
            if take:
                keep.append(len(cands))
            cands.append(BeamCandidate(p, tok, float(logp[p, tok]), s, take, fin))
        trace.beam_steps.append(BeamStep(t, cands, keep))
        if len(finished) >= beam_size or not keep:
            break
        sel_parent = torch.tensor([cands[i].parent for i in keep], device=src.device)
        sel_token = torch.tensor([cands[i].token for i in keep], device=src.device)
        ys = torch.cat([ys.index_select(0, sel_parent), sel_token[:, None]], dim=1)  # (K, t+2)
        scores = torch.tensor([cands[i].score for i in keep], device=src.device)
        if cache is not None:
            cache.reorder(sel_parent)
        if t % 8 == 7:
            between_chunks()  # a wide beam over 100 steps is long work: others may run here (model/pause.py)
    else:
        for row, s in zip(ys[:, 1:].tolist(), scores.tolist()):  # ran out of length: keep the live ones too
            finished.append(Hypothesis(row, s, s / length_penalty(len(row), alpha), False))
    if not finished:  # stopped with no live beam and nothing finished (cannot happen with a finite model)
        finished = [Hypothesis(row, s, s / length_penalty(len(row), alpha), False)
                    for row, s in zip(ys[:, 1:].tolist(), scores.tolist())]
    finished.sort(key=lambda h: h.score, reverse=True)
    trace.hypotheses = finished
    best = finished[0].tokens
    trace.steps = _path_steps(model, src, best, trace_top_k, memory, src_mask) if trace_top_k else []
    return best, trace


def _path_steps(model, src, tokens, k, memory, src_mask) -> list[StepChoice]:
    """Top-k next-token distribution along a fixed output path (one teacher-forced pass)."""
    cfg = model.cfg
    ys = torch.tensor([[cfg.bos_id] + tokens], device=src.device)  # (1, T)
    logits = model.project(model.decode(ys, memory, src_mask))[0]  # (T, V)
    logits[:, _blocked(model)] = float("-inf")
    probs = F.softmax(logits, -1)
    path = tokens + [cfg.eos_id]
    steps = []
    for t, c in enumerate(path):
        ids, ps = _top(probs[t], k)
        steps.append(StepChoice(t, tokens[:t], ids, ps, c, float(probs[t, c])))
    return steps
