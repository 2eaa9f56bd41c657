"""load_pretrained(name) -> Translator, with translate() for text and analyze() for the explorer."""

from __future__ import annotations

import json
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from model import attribution as attr
from model.batch import pad_batch
from model.calibration import Calibration, read_calibration
from model.checkpoint import METRICS, CheckpointError, load_checkpoint, load_config, load_task, weights_sha256
from model.decoding import DecodeTrace, beam_search, blocked_ids, forced_prefix, greedy, sample
from model.hooks import ablate, capture
from model.names import act_name
from model.patching import Patching, patch
from model.quality import REVERSE, QualityModel, read_quality, reverse_logprobs
from model.snapshots import list_snapshots, load_snapshot
from model.task import Task
from model.tokenizer import Tokenizer
from model.transformer import Transformer

# Shipped checkpoints; ATTENTION_EXPLORER_CHECKPOINTS points elsewhere (tests, a Space with its own models).
CHECKPOINTS = Path(os.environ.get("ATTENTION_EXPLORER_CHECKPOINTS", Path(__file__).resolve().parent.parent / "checkpoints"))
METHODS = ("greedy", "beam", "sample")


@dataclass
class DecodeOptions:
    method: str = "greedy"  # greedy | beam | sample
    beam_size: int = 5
    length_penalty: float = 0.6  # GNMT alpha; 0 = none
    temperature: float = 1.0
    top_k: int = 0  # 0 = off
    top_p: float = 1.0
    seed: int | None = 0
    max_len: int | None = None  # None: 2 x source length + 10
    # departures from the paper's decoding, off by default (model/decoding.py: constrain)
    repetition_penalty: float = 1.0  # > 1: tokens already produced become less likely (CTRL)
    no_repeat_ngram_size: int = 0  # > 0: no n-gram of this size appears twice

    def check(self) -> None:
        if self.method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}, not {self.method!r}")
        if self.beam_size < 1:
            raise ValueError(f"beam size must be at least 1, got {self.beam_size}")
        if not self.temperature > 0:
            raise ValueError(f"temperature must be > 0, got {self.temperature}")
        if not 0 < self.top_p <= 1:
            raise ValueError(f"top-p must be in (0, 1], got {self.top_p}")
        if self.top_k < 0:
            raise ValueError(f"top-k must be >= 0 (0 = off), got {self.top_k}")
        if not self.repetition_penalty >= 1.0:
            raise ValueError(f"repetition penalty must be >= 1 (1 = off), got {self.repetition_penalty}")
        if self.no_repeat_ngram_size < 0:
            raise ValueError(f"no-repeat n-gram size must be >= 0 (0 = off), got {self.no_repeat_ngram_size}")

    @property
    def constraints(self) -> dict:
        return {"repetition_penalty": self.repetition_penalty, "no_repeat_ngram_size": self.no_repeat_ngram_size}


def chosen_probs(logits: torch.Tensor, next_ids: list[int], blocked: list[int]) -> list[float]:
    """Logits (T, V) of a teacher-forced pass -> the probability of ``next_ids[t]`` after each prefix, with the
    ``blocked`` ids (pad, BOS) excluded from the softmax as in decoding. ``logits`` is left as it is."""
    masked = logits.index_fill(-1, torch.tensor(blocked), float("-inf"))  # (T, V)
    return masked.softmax(-1).gather(1, torch.tensor(next_ids)[:, None])[:, 0].tolist()


@dataclass
class Analysis:
    """Everything one request shows: tokens, the capture cache of one teacher-forced pass, the decode trace."""

    text: str
    translation: str
    src_ids: list[int]  # source ids incl. EOS
    tgt_ids: list[int]  # decoder input: BOS + output ids
    out_ids: list[int]  # what the decoder produced at each position: output ids + EOS
    src_tokens: list[str]  # pieces of src_ids
    tgt_tokens: list[str]  # pieces of tgt_ids (the decoder's queries)
    out_tokens: list[str]  # pieces of out_ids
    cache: dict[str, torch.Tensor]  # docs/architecture.md names -> tensors with batch dim 1
    trace: DecodeTrace
    options: DecodeOptions
    ablated: list[tuple[str, int]] = field(default_factory=list)
    # model-level context the views need, shared read-only (not per request): PE table (max_len, D),
    # the tied embedding / output projection (V, D), and the vocabulary as a list of pieces
    pe_table: torch.Tensor | None = None
    unembed: torch.Tensor | None = None
    vocab: list[str] = field(default_factory=list)
    lens_layers: torch.Tensor | None = None  # (L, T, D) each decoder layer's output, ready for the projection
    blocked_ids: tuple[int, ...] = ()  # ids decoding never produces (pad, bos)
    note: str = ""  # set by the explorer when the decode produced no words: why
    languages: tuple[str, str] = ("English", "German")  # (source, target) as the model's task names them
    calibration: Calibration | None = None  # how sure the model usually is (None: never calibrated)
    quality: QualityModel | None = None  # the fitted "may be wrong" estimate (None: never fitted for these weights)
    # (S,) log P(each source piece | the output) by the reverse model, for the estimate (None: no estimate to feed)
    reverse_logprobs: np.ndarray | None = None
    domain: str = ""  # what the model was trained on, in a line (the task's hint)

    def id_to_piece(self, i: int) -> str:
        return self.vocab[int(i)]

    def model_probs(self) -> list[float]:
        """The probability the model gives each output token and EOS in this analysis' pass: what greedy decoding
        records, whatever decoding (sampling's temperature, top-k, repetition settings) chose the output."""
        return chosen_probs(self.cache["logits"][0], self.out_ids, list(self.blocked_ids))


class Translator:
    def __init__(self, model: Transformer, tokenizer: Tokenizer, name: str = "", metrics: dict | None = None,
                 training: dict | None = None, task: Task | None = None, folder: Path | None = None,
                 calibration: Calibration | None = None, quality: QualityModel | None = None,
                 reverse: Transformer | None = None) -> None:
        self.model = model.eval()
        self.folder = folder  # the checkpoint folder it was loaded from (its snapshots live there)
        self._snapshots: dict[str, Translator] = {}
        self._snapshot_lock = threading.Lock()
        self.tokenizer = tokenizer
        self.name = name
        self.metrics = metrics or {}
        # how sure this model usually is (metrics.json "confidence", measured on val); None: never calibrated, or
        # calibrated on other weights
        self.calibration = calibration
        # "may this translation be wrong?" fitted on val (metrics.json "quality", model/quality.py); None: never
        # fitted, or fitted on other weights
        self.quality = quality
        # the reverse model (German -> English, <checkpoint>/reverse/) whose scores the estimate reads; None: none
        self.reverse = reverse.eval() if reverse is not None else None
        self.training = training or {}
        self.task = task or Task()  # languages, input form and examples (config.json's "task")
        self.vocab = [tokenizer.id_to_piece(i) for i in range(tokenizer.vocab_size)]

    @property
    def cfg(self):
        return self.model.cfg

    @property
    def device(self) -> torch.device:
        """Where the weights are: the CPU when serving. ``translate`` and ``translate_batch`` follow it, so a script
        may move a teacher's model to a GPU to translate a corpus (training/distill.py); the explorer's other passes
        build their tensors on the CPU."""
        return next(self.model.parameters()).device

    # -- text <-> ids ------------------------------------------------------------------
    def _src_ids(self, text: str) -> list[int]:
        ids = self.tokenizer.encode(" ".join(text.split()))  # the model saw single spaces only
        ids = ids[: self.cfg.max_len - 1]  # leave room for EOS
        return ids + [self.cfg.eos_id]

    def _max_len(self, n_src: int, opts: DecodeOptions) -> int:
        limit = self.cfg.max_len - 1
        return min(opts.max_len or 2 * n_src + 10, limit)

    # -- decoding ----------------------------------------------------------------------
    @torch.inference_mode()
    def _decode(self, src_ids: list[int], opts: DecodeOptions) -> tuple[list[int], DecodeTrace]:
        src = torch.tensor([src_ids], device=self.device)  # (1, S)
        n = self._max_len(len(src_ids), opts)
        if opts.method == "beam":
            return beam_search(self.model, src, opts.beam_size, n, opts.length_penalty, **opts.constraints)
        if opts.method == "sample":
            return sample(self.model, src, n, opts.temperature, opts.top_k, opts.top_p, opts.seed, **opts.constraints)
        out, traces = greedy(self.model, src, n, **opts.constraints)
        return out[0], traces[0]

    def translate(self, text: str, opts: DecodeOptions | None = None) -> str:
        opts = opts or DecodeOptions()
        opts.check()
        if not text.strip():
            return ""
        out, _ = self._decode(self._src_ids(text), opts)
        return self.tokenizer.decode(out)

    @torch.inference_mode()
    def translate_batch(self, texts: list[str], opts: DecodeOptions | None = None, batch_size: int = 64) -> list[str]:
        """Many sentences, same order; greedy runs batched (sentences sorted by length), others one by one."""
        opts = opts or DecodeOptions()
        opts.check()
        results = [""] * len(texts)
        todo = [(i, self._src_ids(t)) for i, t in enumerate(texts) if t.strip()]
        if opts.method != "greedy":
            for i, ids in todo:
                results[i] = self.tokenizer.decode(self._decode(ids, opts)[0])
            return results
        todo.sort(key=lambda x: len(x[1]))
        for k in range(0, len(todo), batch_size):
            chunk = todo[k : k + batch_size]
            src = pad_batch([ids for _, ids in chunk], self.cfg.pad_id).to(self.device)  # (B, S)
            n = self._max_len(src.size(1), opts)
            outs, _ = greedy(self.model, src, n, trace_top_k=0, **opts.constraints)
            for (i, ids), out in zip(chunk, outs):
                # each sentence keeps its own length limit, so a batch gives what one-by-one gives
                results[i] = self.tokenizer.decode(out[: self._max_len(len(ids), opts)])
        return results

    @torch.inference_mode()
    def greedy_batch(self, texts: list[str], opts: list[DecodeOptions]) -> list[tuple[list[int], DecodeTrace]]:
        """Greedy decodes of several sentences in one batch, each with its own options' length limit.
        -> what ``_decode`` gives for each alone: (output ids, trace), same order.

        Decoding one token is bound by reading the weights from memory (~15 MB a step here), not by
        arithmetic, so a batch of 8 costs about twice one sentence: the explorer batches the Translate
        clicks of a class that arrive together (explorer/batcher.py)."""
        if any(o.method != "greedy" for o in opts):
            raise ValueError("greedy_batch decodes greedy requests only")
        if any(o.constraints != opts[0].constraints for o in opts):
            raise ValueError("greedy_batch decodes requests with the same repetition settings only")
        ids = [self._src_ids(t) for t in texts]
        caps = [self._max_len(len(i), o) for i, o in zip(ids, opts)]
        src = pad_batch(ids, self.cfg.pad_id)  # (B, S): padded keys get exactly zero attention
        outs, traces = greedy(self.model, src, max(caps), **opts[0].constraints)
        # greedy is causal: cutting a longer decode at a sentence's own limit gives its decode with that limit
        return [(out[:n], DecodeTrace(tr.method, tr.steps[:n])) for out, tr, n in zip(outs, traces, caps)]

    @torch.inference_mode()
    def forced(self, text: str, out_ids: list[int], ablated: list[tuple[str, int]] | None = None,
               ) -> tuple[list[float], dict[str, torch.Tensor]]:
        """One pass with ``out_ids`` forced (teacher forcing) and ``ablated`` heads off -> the probability of each
        token of ``out_ids``, then EOS, given the tokens before it, and the capture cache of that pass: an intact
        and an ablated model compared on one output, step by step and cell by cell. Pad and BOS are excluded, as
        in decoding, so greedy's own output gets its trace's numbers."""
        return self._forced_ids(self._src_ids(text), out_ids, ablated)

    @torch.inference_mode()
    def _forced_ids(self, src_ids: list[int], out_ids: list[int], ablated: list[tuple[str, int]] | None = None,
                    ) -> tuple[list[float], dict[str, torch.Tensor]]:
        src = torch.tensor([src_ids])  # (1, S)
        tgt = torch.tensor([[self.cfg.bos_id] + list(out_ids)])  # (1, T)
        with ablate(list(ablated or [])), capture() as cache:
            logits = self.model(src, tgt)[0]  # (T, V)
        return chosen_probs(logits, list(out_ids) + [self.cfg.eos_id], blocked_ids(self.cfg)), dict(cache)

    # -- beyond attention weights: attribution, patching, what-if ---------------------------
    def _target_ids(self, text: str, target: str | list[int] | None) -> tuple[list[int], list[int]]:
        """(source ids with EOS, output ids without EOS): ``target`` forced (text, or ids such as an analysis'
        output), else the greedy translation."""
        src_ids = self._src_ids(text)
        if target is None:
            return src_ids, self._decode(src_ids, DecodeOptions())[0]
        out = self.tokenizer.encode(" ".join(target.split())) if isinstance(target, str) else [int(i) for i in target]
        if not out:
            raise ValueError("the forced translation is empty")
        # typed text may be no longer than decoding writes by default for this source (ids come from a decode that
        # had its own limit); the model's max_len bounds both
        most = self._max_len(len(src_ids), DecodeOptions()) if isinstance(target, str) else self.cfg.max_len - 1
        if len(out) > most:
            raise ValueError(f"the forced translation has {len(out)} pieces; for this sentence at most {most}"
                             + (" (twice the source plus 10, as decoding allows)" if isinstance(target, str) else ""))
        return src_ids, out

    def _contrast_ids(self, contrast: str, out: list[int]) -> list[int]:
        """One contrast token per output position (EOS last): a sentence with as many pieces as the output is compared
        piece by piece; anything else by its first piece at every position (the choice made at that step)."""
        pieces = self.tokenizer.encode(" ".join(contrast.split()))
        if not pieces:
            raise ValueError("the contrast is empty")
        if len(pieces) == len(out) and len(out) > 1:
            return pieces + [self.cfg.eos_id]
        return [pieces[0]] * (len(out) + 1)

    def attribute(self, text: str, method: str = "integrated_gradients", target: str | list[int] | None = None,
                  contrast: str | None = None, steps: int = 32) -> attr.Attribution:
        """Attribution of every output token (the translation, or ``target`` forced, then EOS) over the source and
        the target prefix; see model/attribution.py for the methods. ``contrast`` explains log p(target) -
        log p(contrast): "why Hund, not Katze"."""
        if method not in attr.METHODS:
            raise ValueError(f"method must be one of {attr.METHODS}, not {method!r}")
        if not text.strip():
            raise ValueError("the sentence is empty")
        src_ids, out = self._target_ids(text, target)
        tgt_ids, score_ids = [self.cfg.bos_id] + out, out + [self.cfg.eos_id]
        tok = self.tokenizer
        common = dict(src_tokens=tok.pieces(src_ids), tgt_tokens=tok.pieces(tgt_ids), out_tokens=tok.pieces(score_ids))
        if method == "rollout":
            if contrast is not None:
                raise ValueError("rollout follows attention and does not depend on the output token: a contrast "
                                 "applies to the gradient methods and occlusion")
            source, tgt_part = attr.rollout_ids(self.model, src_ids, tgt_ids)
            return attr.Attribution(method, source, tgt_part, **common)
        contrast_ids = None if contrast is None else self._contrast_ids(contrast, out)
        common["contrast_tokens"] = tok.pieces(contrast_ids) if contrast_ids else []
        if method == "occlusion":
            r = attr.occlusion(self.model, src_ids, tgt_ids, score_ids, contrast_ids)
            return attr.Attribution(method, r["source"], r["target"], **common, scores=r["scores"])
        r = attr.gradient_attribution(self.model, src_ids, tgt_ids, score_ids, contrast_ids, method, steps)
        return attr.Attribution(method, r["source"], r["target"], **common, scores=r["scores"],
                                baseline_scores=r.get("baseline_scores"), completeness=r.get("completeness"),
                                steps=steps if method == "integrated_gradients" else 0)

    def patch(self, clean: str, corrupt: str, position: int | None = None) -> Patching:
        """Activation patching from the clean sentence's run into the corrupted one's (model/patching.py), on the
        clean sentence's greedy translation."""
        src_c, out = self._target_ids(clean, None)
        src_x = self._src_ids(corrupt)
        with torch.inference_mode():
            return patch(self.model, src_c, src_x, [self.cfg.bos_id] + out, out + [self.cfg.eos_id], position)

    @torch.inference_mode()
    def next_token(self, text: str, prefix: str | list[int], top_k: int = 10) -> dict[str, Any]:
        """What-if: force a target ``prefix`` (text, or ids) -> the next-token distribution (top ``top_k``), the greedy
        continuation after it, and each layer's cross-attention (H, S) from the last prefix position."""
        src_ids = self._src_ids(text)
        ids = self.tokenizer.encode(" ".join(prefix.split())) if isinstance(prefix, str) else [int(i) for i in prefix]
        limit = self._max_len(len(src_ids), DecodeOptions())
        if len(ids) >= limit:
            raise ValueError(f"the prefix has {len(ids)} pieces; at most {limit - 1} here")
        probs, more = forced_prefix(self.model, torch.tensor([src_ids]), ids, limit)  # (V,)
        top_p, top_i = probs.topk(top_k)
        with capture([act_name("cross", i, "weights") for i in range(self.cfg.n_decoder_layers)]) as cache:
            self.model(torch.tensor([src_ids]), torch.tensor([[self.cfg.bos_id] + ids]))
        cross = torch.stack([cache[act_name("cross", i, "weights")][0, :, -1]
                             for i in range(self.cfg.n_decoder_layers)])  # (L, H, S): the last prefix position's row
        tok = self.tokenizer
        return {"src_tokens": tok.pieces(src_ids), "prefix_ids": ids, "prefix_tokens": tok.pieces(ids),
                "top_ids": top_i.tolist(), "top_tokens": tok.pieces(top_i.tolist()), "top_probs": top_p.tolist(),
                "probs": probs, "continuation": tok.decode(ids + more), "continuation_tokens": tok.pieces(more),
                "cross": cross.numpy()}

    def edit_source(self, text: str, position: int, replacement: str | None = None) -> dict[str, Any]:
        """What-if: mask (``replacement`` None: the piece becomes padding, which every attention ignores; the others
        keep their positions) or replace one source piece, re-decode greedily, and compare: both translations, the
        probability of each original output token with its prefix forced under both sources, and the cross-attention
        of every layer (heads averaged) on the original output under both."""
        src_ids = self._src_ids(text)
        if not 0 <= position < len(src_ids) - 1:
            raise ValueError(f"position must be a source piece, 0..{len(src_ids) - 2} (the last is EOS), got {position}")
        if replacement is None:
            new = [self.cfg.pad_id]
        else:
            new = self.tokenizer.encode(" ".join(replacement.split()))
            if not new:
                raise ValueError("the replacement is empty")
        edited = src_ids[:position] + new + src_ids[position + 1 :]
        if len(edited) > self.cfg.max_len:
            raise ValueError(f"the edited sentence has {len(edited)} pieces; the model handles at most {self.cfg.max_len}")
        out_a, _ = self._decode(src_ids, DecodeOptions())
        out_b, _ = self._decode(edited, DecodeOptions())
        p_a, cache_a = self._forced_ids(src_ids, out_a)
        p_b, cache_b = self._forced_ids(edited, out_a)
        names = [act_name("cross", i, "weights") for i in range(self.cfg.n_decoder_layers)]
        tok = self.tokenizer
        return {"src_tokens": tok.pieces(src_ids), "edited_tokens": tok.pieces(edited), "position": position,
                "masked": replacement is None,
                "translation": tok.decode(out_a), "edited_translation": tok.decode(out_b),
                "out_tokens": tok.pieces(out_a + [self.cfg.eos_id]), "edited_out_tokens": tok.pieces(out_b + [self.cfg.eos_id]),
                "tgt_tokens": tok.pieces([self.cfg.bos_id] + out_a),
                "p_original": p_a, "p_edited": p_b,
                "cross": np.stack([cache_a[n][0].mean(0).numpy() for n in names]),  # (L, T, S)
                "edited_cross": np.stack([cache_b[n][0].mean(0).numpy() for n in names])}  # (L, T, S')

    # -- snapshots taken during training --------------------------------------------------
    def snapshots(self) -> list[dict]:
        """The training snapshots of this checkpoint (model/snapshots.py), in training order; [] if it has none."""
        return list_snapshots(self.folder) if self.folder is not None else []

    def at_snapshot(self, entry: dict) -> Translator:
        """This model as it was at one snapshot (an entry of ``snapshots()``): same tokenizer and task, the
        snapshot's weights (SHA-256 checked). Loaded once per process and kept."""
        with self._snapshot_lock:
            if entry["file"] not in self._snapshots:
                model = load_snapshot(self.folder, self.cfg, entry)
                self._snapshots[entry["file"]] = Translator(model, self.tokenizer, f"{self.name}@{entry['step']}",
                                                            task=self.task)
            return self._snapshots[entry["file"]]

    # -- the explorer's request --------------------------------------------------------
    @torch.inference_mode()
    def analyze(self, text: str, opts: DecodeOptions | None = None,
                ablated: list[tuple[str, int]] | None = None,
                decoded: tuple[list[int], DecodeTrace] | None = None) -> Analysis:
        """Decode, then one teacher-forced pass over (source, output) that captures every hook.
        ``decoded``: the decode, already done (by ``greedy_batch`` with the same text and options)."""
        opts = opts or DecodeOptions()
        opts.check()
        if not text.strip():
            raise ValueError("the sentence is empty")
        ablated = list(ablated or [])
        src_ids = self._src_ids(text)
        with ablate(ablated):
            if decoded is not None and ablated:
                raise ValueError("a decode done elsewhere cannot have had these heads switched off")
            out, trace = decoded if decoded is not None else self._decode(src_ids, opts)
            tgt_ids = [self.cfg.bos_id] + out
            with capture() as cache:
                self.model(torch.tensor([src_ids]), torch.tensor([tgt_ids]))
        reverse = None  # the estimate's reverse-model scores: one teacher-forced pass, outside the capture
        if self.reverse is not None and self.quality is not None and not ablated:
            reverse = reverse_logprobs(self.reverse, src_ids, out + [self.cfg.eos_id], self.cfg.bos_id)
        tok = self.tokenizer
        lens = torch.stack([cache[act_name("decoder", i, "out")][0] for i in range(self.cfg.n_decoder_layers)])  # (L, T, D)
        if self.cfg.norm_first:
            lens = self.model.decoder.norm(lens)  # pre-LN: the final LayerNorm comes before the projection
        return Analysis(
            text=text, translation=tok.decode(out), src_ids=src_ids, tgt_ids=tgt_ids, out_ids=out + [self.cfg.eos_id],
            src_tokens=tok.pieces(src_ids), tgt_tokens=tok.pieces(tgt_ids), out_tokens=tok.pieces(out + [self.cfg.eos_id]),
            cache=dict(cache), trace=trace, options=opts, ablated=ablated,
            pe_table=self.model.positional.table.detach(), unembed=self.model.embedding.weight.detach(),
            vocab=self.vocab, lens_layers=lens, blocked_ids=tuple(blocked_ids(self.cfg)),
            languages=(self.task.source, self.task.target), calibration=self.calibration, domain=self.task.hint,
            quality=self.quality, reverse_logprobs=reverse,
        )


_LOADED: dict[Path, Translator] = {}
_LOCK = threading.Lock()


def resolve(name: str | Path) -> Path:
    """A name under checkpoints/ ("en-de") or a path to a checkpoint folder."""
    p = Path(name)
    if p.is_dir():
        return p.resolve()
    q = CHECKPOINTS / str(name)
    if "/" not in str(name) and q.is_dir():
        return q.resolve()
    known = sorted(d.name for d in CHECKPOINTS.iterdir() if (d / "config.json").is_file()) if CHECKPOINTS.is_dir() else []
    raise CheckpointError(f"no checkpoint {str(name)!r}: not a folder, and not one of {known}")


def available() -> list[str]:
    if not CHECKPOINTS.is_dir():
        return []
    return sorted(d.name for d in CHECKPOINTS.iterdir() if (d / "model.safetensors").is_file())


def load_reverse(path: Path, tok: Tokenizer) -> tuple[Transformer | None, str]:
    """The checkpoint's reverse model (``<path>/reverse/``, what the quality estimate scores with) and the SHA-256
    of its weights; (None, "") when it has none. One with other pieces than the checkpoint's is refused."""
    folder = path / REVERSE
    if not (folder / "config.json").is_file():
        return None, ""
    model, rtok, _ = load_checkpoint(folder)
    if [rtok.id_to_piece(i) for i in range(rtok.vocab_size)] != [tok.id_to_piece(i) for i in range(tok.vocab_size)]:
        raise CheckpointError(f"{folder}: its tokenizer differs from {path}'s; the reverse model must read the "
                              "checkpoint's own pieces")
    forward, _ = load_config(path)
    back = model.cfg
    if (back.pad_id, back.bos_id, back.eos_id) != (forward.pad_id, forward.bos_id, forward.eos_id) \
            or back.max_len < forward.max_len:
        raise CheckpointError(f"{folder}: its special ids or max_len ({back.max_len}) do not fit {path}'s model: the "
                              "reverse model reads that model's whole output and writes its whole source")
    return model, weights_sha256(folder)


def load_pretrained(name: str | Path = "en-de") -> Translator:
    """Load (once per process) a checkpoint folder into a Translator. Safe to share across threads."""
    path = resolve(name)
    with _LOCK:
        if path not in _LOADED:
            model, tok, training = load_checkpoint(path)
            metrics_path = path / METRICS
            metrics: dict[str, Any] = {}
            if metrics_path.is_file():
                try:
                    metrics = json.loads(metrics_path.read_text())
                except json.JSONDecodeError as e:
                    raise CheckpointError(f"{metrics_path}: not valid JSON ({e})") from None
            sha = weights_sha256(path)
            reverse, reverse_sha = load_reverse(path, tok)
            try:
                cal = read_calibration(metrics, str(metrics_path), sha)
                qual = read_quality(metrics, str(metrics_path), sha, reverse_sha)
            except ValueError as e:  # a malformed "confidence" or "quality" section
                raise CheckpointError(str(e)) from None
            _LOADED[path] = Translator(model, tok, path.name, metrics, training, load_task(path), folder=path,
                                       calibration=cal, quality=qual, reverse=reverse if qual is not None else None)
        return _LOADED[path]
