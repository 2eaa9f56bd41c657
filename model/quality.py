"""May this translation be wrong? A sentence-level quality estimate from what one analysis pass already holds.

The old "unsure" warning looked at one number, the mean log-probability of the output, and caught a third of the
wrong translations. This estimate combines the signals the page's own pass (``Translator.analyze``: the decode,
then one teacher-forced pass that captures every hook) already has, with no second decode:

- how sure the decoder was: the mean and the minimum log-probability of the chosen pieces, the share chosen with
  p < 0.3, the mean entropy, and the mean margin to the runner-up piece;
- what the cross-attention left out: the share of source pieces that all decoder layers and heads together hardly
  ever read (an untranslated word), and how unevenly the attention is spread;
- the shape of the output: the ratio of output to source pieces (too short drops words; too long babbles),
  repeated output pieces;
- how foreign the source is: unknown pieces, pieces per word (a rare word falls apart into many pieces), length;
- what the translation carries of the source: a small reverse model (German to English, ``<checkpoint>/reverse/``)
  scores the source given the output in one teacher-forced pass (no decode). A fluent output that drops or
  changes a word ("Why is the sky blue?" -> "Warum ist der Himmel?") is sure of itself, but the reverse model then
  finds the source word ("blue") unlikely: the forward model's own probabilities cannot see that.

A logistic regression over these (standardised) gives the probability that the translation is bad: by default
that its sentence chrF against a reference would be below 40, fitted on the val splits; or (``--fit judged``, the
shipped en-de's) that a person reading it would judge it wrong or partly wrong, fitted on a judged, stratified
sample of val translations (training/judged.py), since one reference calls many right translations wrong and
forgives a dropped word (``python -m training.quality``). It is checked on a second val of newer sentences, and
kept in metrics.json under "quality" with the SHA-256 of the weights it was fitted on and of the reverse model's:
for any other weights, or without the reverse model, it is not used (``read_quality`` returns None) and the page
says so.

A translation is flagged when that probability reaches the threshold, or when a word of the source is very
unlikely to the reverse model reading the output (below ``missing_below``, 0 = off): a dropped or changed word
barely moves chrF, so a chrF-fitted probability cannot learn it, but a reader counts it wrong. With judgements,
both cut-offs are chosen on them (training/judged.py).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from model.names import SPECIAL_PIECES

KEY = "quality"
LABEL = "sentence chrF < 40 against the reference"  # what a fit on the val splits learns (training.quality)
JUDGED_LABEL = "wrong or partly wrong by a person's reading"  # what a fit on judged translations learns (--fit judged)
LOW_P = 0.3  # a piece chosen below this is "unsure" (the chips' orange shades start here too)
UNREAD = 0.2  # a source piece read less than this share of an even spread counts as left out
REVERSE = "reverse"  # the checkpoint's sub-folder that holds its reverse model (German -> English, same pieces)
MISSING_P = 0.01  # a source word whose least likely piece the reverse model gives less than this may be missing

FEATURES = (
    "mean_logprob",  # mean log-probability of the chosen pieces (EOS included)
    "min_logprob",  # the least sure piece
    "low_share",  # share of pieces chosen with p < LOW_P
    "mean_entropy",  # mean entropy (nats) of the next-piece distribution
    "mean_margin",  # mean log-probability gap between the chosen piece and the best other one
    "unread_share",  # share of source words' pieces the cross-attention hardly reads
    "attention_spread",  # standard deviation of the normalised cross-attention mass over source pieces
    "length_ratio",  # log((output pieces + 1) / source pieces)
    "length_ratio_sq",  # its square: both too short and too long are bad
    "repeated_share",  # share of output pieces that repeat the piece or bigram before them
    "unknown_share",  # share of source pieces that are the unknown piece
    "pieces_per_word",  # source pieces per source word
    "log_source_len",  # log of the source length in pieces
    "very_low_count",  # how many pieces were chosen with p < 0.1
    "worst_window",  # the lowest mean log-probability of three pieces in a row
    "eos_logprob",  # how sure the decoder was that the sentence ends there
    "cross_entropy",  # how spread each output piece's cross-attention is (entropy / log of source length)
    "eos_attention",  # the share of cross-attention spent on the source's end (EOS), where heads park
    "split_words",  # share of source words that fall apart into 3 or more pieces (rare words)
    "reverse_mean",  # mean log-probability the reverse model gives the source pieces (EOS included) given the output
    "reverse_min",  # the source piece the output accounts for least
    "reverse_low_share",  # share of source pieces the reverse model gives p < 0.1: what the output may have lost
    "reverse_worst_window",  # the lowest mean reverse log-probability of three source pieces in a row
)

# Which way each signal may push "wrong" in a fit (fit_logistic_signed): +1, a larger value may only make a wrong
# translation more likely; -1, only less; 0, either way (no prior: length, attention shape). Signals that measure
# nearly the same thing (the count and the share of very unsure pieces, the mean and the worst window) otherwise
# trade weights of opposite signs, and a sentence outside the fitted range (a long one with many unsure pieces)
# then comes out surer the worse it is.
SIGNS = {
    "mean_logprob": -1, "min_logprob": -1, "low_share": 1, "mean_entropy": 1, "mean_margin": -1, "unread_share": 1,
    "attention_spread": 0, "length_ratio": 0, "length_ratio_sq": 1, "repeated_share": 1, "unknown_share": 1,
    "pieces_per_word": 1, "log_source_len": 0, "very_low_count": 1, "worst_window": -1, "eos_logprob": -1,
    "cross_entropy": 0, "eos_attention": 0, "split_words": 1, "reverse_mean": -1, "reverse_min": -1,
    "reverse_low_share": 1, "reverse_worst_window": -1,
}


def word_text(pieces: list[str]) -> str:
    """The text of a word's pieces: '▁' as a space, byte pieces (<0xC3><0xAB>, which the tokenizer keeps for
    characters outside its alphabet) as the characters they encode."""
    out, raw = [], bytearray()
    for p in pieces:
        if len(p) == 6 and p.startswith("<0x") and p.endswith(">"):
            try:
                raw.append(int(p[3:5], 16))
                continue
            except ValueError:
                pass
        if raw:
            out.append(raw.decode("utf-8", errors="replace"))
            raw = bytearray()
        out.append(p)
    if raw:
        out.append(raw.decode("utf-8", errors="replace"))
    return "".join(out).replace("\u2581", " ").strip()


def _word_starts(pieces: list[str]) -> list[bool]:
    return [i == 0 or p.startswith("\u2581") or not any(c.isalnum() for c in p) for i, p in enumerate(pieces)]


@dataclass
class PassSignals:
    """What one analysis pass says about its translation, small enough to keep for thousands of sentences.
    T = output pieces + EOS, S = source pieces + EOS."""

    chosen: np.ndarray  # (T,) log-probability of each chosen piece
    other: np.ndarray  # (T,) log-probability of the best other piece
    entropy: np.ndarray  # (T,) entropy (nats) of each next-piece distribution
    cross: np.ndarray  # (L, H, T, S) cross-attention weights of every decoder layer and head
    src_ids: list[int]
    src_pieces: list[str]
    out_ids: list[int]
    reverse: np.ndarray | None = None  # (S,) log P(each source piece | the output) by the reverse model

    def to_json(self) -> dict:
        return {k: (v.round(5).tolist() if isinstance(v, np.ndarray) else v) for k, v in self.__dict__.items()}

    @classmethod
    def from_json(cls, d: dict) -> PassSignals:
        arrays = ("chosen", "other", "entropy", "cross", "reverse")
        return cls(**{k: (np.asarray(v, dtype=np.float64) if k in arrays and v is not None else v)
                      for k, v in d.items()})


@torch.inference_mode()
def reverse_logprobs(reverse: torch.nn.Module, src_ids: list[int], out_ids: list[int], bos_id: int) -> np.ndarray:
    """(S,) the log-probability the reverse model (German -> English) gives each source piece (EOS included) when it
    reads the output: one teacher-forced pass, the output (ids + EOS) as its source, BOS + the source as its
    decoder input."""
    logits = reverse(torch.tensor([out_ids]), torch.tensor([[bos_id] + src_ids[:-1]]))[0]  # (1, S, V) -> (S, V)
    logp = logits.float().log_softmax(-1)  # (S, V)
    return logp.gather(1, torch.tensor(src_ids)[:, None])[:, 0].numpy().astype(np.float64)  # (S, 1) -> (S,)


def pass_signals(logits: torch.Tensor, out_ids: list[int], blocked: list[int], cross: list[torch.Tensor],
                 src_ids: list[int], src_pieces: list[str]) -> PassSignals:
    """logits: (T, V) of the teacher-forced pass, T = len(out_ids) (output ids + EOS); cross: one (H, T, S)
    weights tensor per decoder layer; src_ids / src_pieces: the source incl. EOS."""
    t = len(out_ids)
    logp = logits[:t].float().index_fill(-1, torch.tensor(blocked), float("-inf")).log_softmax(-1)  # (T, V)
    ids = torch.tensor(out_ids)
    chosen = logp.gather(1, ids[:, None])[:, 0]  # (T,)
    top2 = logp.topk(2, dim=-1)  # values, indices: (T, 2)
    other = torch.where(top2.indices[:, 0] == ids, top2.values[:, 1], top2.values[:, 0])  # (T,)
    entropy = -(logp.exp() * logp.nan_to_num(neginf=0.0)).sum(-1)  # (T,)
    weights = torch.stack([w.float() for w in cross])  # (L, H, T, S)
    return PassSignals(chosen.numpy().astype(np.float64), other.numpy().astype(np.float64),
                       entropy.numpy().astype(np.float64), weights.numpy().astype(np.float64),
                       list(src_ids), list(src_pieces), list(out_ids))


def features(sig: PassSignals, unk_id: int) -> np.ndarray:
    """The FEATURES of one translation, in order."""
    chosen, t = sig.chosen, len(sig.out_ids)
    mass = sig.cross.sum(axis=(0, 1, 2))  # (L, H, T, S) -> (S,): the attention each source piece gets
    mass = mass / mass.mean()  # 1.0 = an even spread
    words = [i for i, s in enumerate(sig.src_pieces[:-1]) if any(c.isalnum() for c in s)]  # pieces of words
    unread = float(np.mean([mass[i] < UNREAD for i in words])) if words else 0.0
    ratio = math.log(t / max(1, len(sig.src_ids) - 1))  # (output pieces + 1) / source pieces
    body = sig.out_ids[:-1]
    repeats = sum(1 for i in range(1, len(body)) if body[i] == body[i - 1]
                  or (i >= 3 and body[i - 1 : i + 1] == body[i - 3 : i - 1]))
    src_body = sig.src_ids[:-1]
    word_lengths = [e - s for s, e in word_spans(sig.src_pieces[:-1])]  # source pieces per word
    n_words = max(1, len(word_lengths))
    per_piece = sig.cross.mean(axis=(0, 1))  # (L, H, T, S) -> (T, S): each output piece's attention over the source
    cross_entropy = -(per_piece * np.log(np.clip(per_piece, 1e-12, None))).sum(-1) / math.log(max(2, per_piece.shape[1]))
    if sig.reverse is None:
        raise ValueError("no reverse-model scores: the estimate needs the checkpoint's reverse model")
    rev = sig.reverse
    return np.array([
        chosen.mean(),
        chosen.min(),
        float((np.exp(chosen) < LOW_P).mean()),
        sig.entropy.mean(),
        (chosen - sig.other).mean(),
        unread,
        float(mass[:-1].std()) if len(mass) > 2 else 0.0,
        ratio,
        ratio * ratio,
        repeats / max(1, len(body)),
        sum(i == unk_id for i in src_body) / max(1, len(src_body)),
        len(src_body) / n_words,
        math.log(max(1, len(src_body))),
        float((chosen < math.log(0.1)).sum()),
        float(np.convolve(chosen, np.ones(3) / 3, mode="valid").min()) if len(chosen) >= 3 else float(chosen.mean()),
        float(chosen[-1]),
        float(cross_entropy.mean()) if len(sig.src_ids) > 1 else 0.0,
        float(per_piece[:, -1].mean()),
        sum(n >= 3 for n in word_lengths) / max(1, len(word_lengths)),
        rev.mean(),
        rev.min(),
        float((rev < math.log(0.1)).mean()),
        float(np.convolve(rev, np.ones(3) / 3, mode="valid").min()) if len(rev) >= 3 else float(rev.mean()),
    ], dtype=np.float64)


def analysis_pass(a: Any) -> PassSignals:
    """The PassSignals of an Analysis (model/translator.py), from its own captured pass."""
    n_layers = sum(1 for k in a.cache if k.startswith("decoder.layers.") and k.endswith(".cross_attn.weights"))
    cross = [a.cache[f"decoder.layers.{i}.cross_attn.weights"][0] for i in range(n_layers)]  # each (H, T, S)
    sig = pass_signals(a.cache["logits"][0], a.out_ids, list(a.blocked_ids), cross, a.src_ids, a.src_tokens)
    sig.reverse = getattr(a, "reverse_logprobs", None)
    return sig


def analysis_signals(a: Any, unk_id: int) -> np.ndarray:
    """The FEATURES of an Analysis."""
    return features(analysis_pass(a), unk_id)


@dataclass(frozen=True)
class QualityModel:
    """A fitted estimate: P(bad) = sigmoid(bias + weights . (features - mean) / scale); flagged when >= threshold."""

    features: tuple[str, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    weights: tuple[float, ...]
    bias: float
    threshold: float
    fitted_on: str  # which sentences, in words
    sentences: int
    scores: dict  # {"val": {"recall": .., "precision": .., ...}, "recent": {...}}: as measured when fitted
    weights_sha256: str = ""
    reverse_sha256: str = ""  # the reverse model's weights the reverse features were measured with
    missing_below: float = 0.0  # also flagged when a source word is less likely than this to the reverse model (0: off)
    label: str = LABEL  # what probability() is the chance of

    def probability(self, x: np.ndarray) -> float:
        z = self.bias + float(np.dot(self.weights, (x - np.asarray(self.mean)) / np.asarray(self.scale)))
        return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z))))

    def flags(self, probability: float, least_word: float) -> bool:
        """Flagged: the probability reaches the threshold, or the least likely source word (least_likely_word) is
        below missing_below."""
        return probability >= self.threshold or least_word < self.missing_below

    def to_dict(self) -> dict[str, Any]:
        return {"label": self.label, "features": list(self.features), "mean": list(self.mean), "scale": list(self.scale),
                "weights": list(self.weights), "bias": self.bias, "threshold": self.threshold,
                "fitted_on": self.fitted_on, "sentences": self.sentences, "scores": self.scores,
                "weights_sha256": self.weights_sha256, "reverse_sha256": self.reverse_sha256,
                "missing_below": self.missing_below}


def read_quality(metrics: Any, where: str, weights_sha256: str | None = None,
                 reverse_sha256: str | None = None) -> QualityModel | None:
    """metrics.json's "quality" section -> a QualityModel; None when there is none, or when it was fitted on other
    weights than ``weights_sha256`` or with another reverse model than ``reverse_sha256`` (each when given; "" for
    a checkpoint without a reverse model). A malformed section raises ValueError naming ``where``."""
    data = metrics.get(KEY) if isinstance(metrics, dict) else None
    if data is None:
        return None
    try:
        if not isinstance(data, dict):
            raise TypeError("not an object")
        q = QualityModel(tuple(data["features"]), tuple(map(float, data["mean"])), tuple(map(float, data["scale"])),
                         tuple(map(float, data["weights"])), float(data["bias"]), float(data["threshold"]),
                         str(data["fitted_on"]), int(data["sentences"]), dict(data.get("scores", {})),
                         str(data.get("weights_sha256", "")), str(data.get("reverse_sha256", "")),
                         float(data.get("missing_below", 0.0)), str(data.get("label", LABEL)))
    except (TypeError, KeyError, ValueError, OverflowError) as e:
        raise ValueError(f"{where}: \"{KEY}\" needs features, mean, scale, weights, bias, threshold, fitted_on and "
                         f"sentences ({type(e).__name__}: {e})") from None
    if weights_sha256 is not None and q.weights_sha256 != weights_sha256:
        return None  # fitted on other weights (whatever its features)
    if reverse_sha256 is not None and (not reverse_sha256 or q.reverse_sha256 != reverse_sha256):
        return None  # the checkpoint has no reverse model, or another one than the estimate was measured with
    if q.features != FEATURES:
        raise ValueError(f"{where}: \"{KEY}\" was fitted on the features {list(q.features)}, but this code computes "
                         f"{list(FEATURES)}: fit it again (python -m training.quality)")
    n = len(FEATURES)
    numbers = q.mean + q.scale + q.weights + (q.bias, q.threshold)
    if (len(q.mean), len(q.scale), len(q.weights)) != (n, n, n) or not all(map(math.isfinite, numbers)) \
            or min(q.scale) <= 0 or not 0 < q.threshold < 1 or not 0 <= q.missing_below <= MISSING_P:
        raise ValueError(f"{where}: \"{KEY}\" needs {n} finite means, scales > 0 and weights, 0 < threshold < 1 "
                         f"and 0 <= missing_below <= {MISSING_P} (a word that sets off a flag is one the page names)")
    return q


def fit_logistic(x: np.ndarray, y: np.ndarray, l2: float = 1.0, iters: int = 50,
                 weights: np.ndarray | None = None) -> tuple[np.ndarray, float]:
    """Weights and bias of an L2-regularised logistic regression by Newton's method (deterministic).
    x: (N, F) standardised features, y: (N,) 0/1; weights: (N,) each sentence's weight in the loss (default 1)."""
    n, f = x.shape
    sw = np.ones(n) if weights is None else np.asarray(weights, dtype=np.float64)
    xb = np.hstack([x, np.ones((n, 1))])  # (N, F+1): the last column is the bias
    w = np.zeros(f + 1)
    reg = np.full(f + 1, l2)
    reg[-1] = 0.0  # the bias is not shrunk
    for _ in range(iters):
        p = 1.0 / (1.0 + np.exp(-np.clip(xb @ w, -50, 50)))  # (N,)
        grad = xb.T @ (sw * (p - y)) + reg * w  # (F+1,)
        hess = (xb * (sw * p * (1 - p))[:, None]).T @ xb + np.diag(reg) + 1e-9 * np.eye(f + 1)  # (F+1, F+1)
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-10:
            break
    return w[:-1], float(w[-1])


def fit_logistic_signed(x: np.ndarray, y: np.ndarray, signs: np.ndarray, l2: float = 1.0,
                        weights: np.ndarray | None = None, tol: float = 1e-9) -> tuple[np.ndarray, float]:
    """fit_logistic whose weights keep the given signs (F,) (+1: >= 0, -1: <= 0, 0: free): the penalised loss's
    minimum under those bounds, by Lawson and Hanson's active set (their NNLS, with fit_logistic on the free signals
    in place of least squares). A signal held at 0 is freed while its gradient would move it the allowed way; a
    fit of the free signals that turns one the wrong way steps back from the last fit until the first reaches 0,
    and that one is held. Deterministic; with no sign broken it is fit_logistic's fit."""
    n, f = x.shape
    sw = np.ones(n) if weights is None else np.asarray(weights, dtype=np.float64)
    signed = signs != 0

    def free_fit(held: np.ndarray) -> tuple[np.ndarray, float]:
        w = np.zeros(f)
        w[~held], b = fit_logistic(x[:, ~held], y, l2=l2, weights=weights)
        return w, b

    held = np.zeros(f, dtype=bool)
    w, b = free_fit(held)
    while (signs * w < 0).any():  # start where no sign is broken: hold every wrongly signed signal at 0
        held |= signs * w < 0
        w, b = free_fit(held)
    for _ in range(10 * f + 10):
        p = 1.0 / (1.0 + np.exp(-np.clip(x @ w + b, -50, 50)))  # (N,)
        grad = x.T @ (sw * (p - y)) + l2 * w  # (F,) the penalised loss's gradient
        could = held & signed & (signs * grad < -tol)  # a held signal the loss would move the allowed way
        if not could.any():
            return w, b
        held[int(np.argmin(np.where(could, signs * grad, np.inf)))] = False
        while True:
            z, zb = free_fit(held)
            broken = ~held & signed & (signs * z < 0)
            if not broken.any():
                w, b = z, zb
                break
            # step from w (signs kept) towards z until the first broken signal reaches 0, and hold it there
            steps = np.where(broken, w / np.where(broken, w - z, 1.0), np.inf)  # (F,) where each reaches 0
            k = int(np.argmin(steps))
            a = float(np.clip(steps[k], 0.0, 1.0))
            w, b = w + a * (z - w), b + a * (zb - b)
            held |= broken & (np.abs(w) <= 1e-12)
            held[k] = True
            w[held] = 0.0
    raise RuntimeError("fit_logistic_signed did not settle")  # Lawson-Hanson ends in finitely many steps


def predict_logistic(x: np.ndarray, w: np.ndarray, b: float) -> np.ndarray:
    """(N,) the probabilities of fit_logistic's model for standardised feature rows x (N, F)."""
    return 1.0 / (1.0 + np.exp(-np.clip(b + x @ w, -50, 50)))


def recall_precision(flagged: np.ndarray, bad: np.ndarray) -> tuple[float, float]:
    hit = float((flagged & bad).sum())
    return hit / max(1, int(bad.sum())), hit / max(1, int(flagged.sum()))


def word_spans(pieces: list[str]) -> list[tuple[int, int]]:
    """(start, end) piece ranges of the output's words: a piece starting with '▁' (or punctuation) starts one."""
    starts = [i for i, s in enumerate(_word_starts(pieces)) if s]
    return [(s, e) for s, e in zip(starts, starts[1:] + [len(pieces)])]


def _unsure(pieces: list[str], probs: list[float], below: float) -> list[tuple[float, int, str]]:
    """(p, index in word_spans, text) of every output word whose least sure piece was chosen with p < ``below``,
    least sure first. Punctuation is never such a word, nor a symbol the tokenizer keeps as byte pieces ("…" is
    <0xE2><0x80><0xA6>: its piece names hold letters, its text none); a special piece (<unk>) never makes one."""
    scored = []
    for k, (s, e) in enumerate(word_spans(pieces)):
        text = word_text(pieces[s:e])
        low = min((p for x, p in zip(pieces[s:e], probs[s:e]) if x not in SPECIAL_PIECES), default=1.0)
        if low < below and any(c.isalnum() for c in text):
            scored.append((low, k, text))
    return sorted(scored)


def suspect_words(pieces: list[str], probs: list[float], most: int = 3, below: float = LOW_P) -> list[int]:
    """Indices of the output words (word_spans order) most likely wrong: the ``most`` least sure of _unsure's."""
    return [k for _, k, _ in _unsure(pieces, probs, below)[:most]]


def unsure_words(pieces: list[str], probs: list[float], below: float = LOW_P) -> list[tuple[str, float]]:
    """(text, probability of its least sure piece) of every word _unsure finds, least sure first: what the chips
    shade as unsure, named as whole words."""
    return [(text, low) for low, _, text in _unsure(pieces, probs, below)]


def source_words(src_pieces: list[str], reverse: np.ndarray | None) -> list[tuple[float, int, str]]:
    """(probability, first piece, text) of each source word (src_pieces without EOS; punctuation left out): the
    probability the reverse model gives the word's least likely piece when it reads the output. Empty without
    reverse scores."""
    if reverse is None:
        return []
    pieces = list(src_pieces[:-1])
    out = []
    for s, e in word_spans(pieces):
        word = word_text(pieces[s:e])
        if any(c.isalnum() for c in word):
            out.append((float(np.exp(reverse[s:e].min())), s, word))  # word_spans never gives an empty span
    return out


def least_likely_word(src_pieces: list[str], reverse: np.ndarray | None) -> float:
    """The reverse model's probability of the source word it finds least likely (1.0 when there is none)."""
    return min((p for p, _, _ in source_words(src_pieces, reverse)), default=1.0)


def _below(scored: list[tuple[float, int, str]], cut: float, most: int = 3) -> list[str]:
    """The texts of the least likely of sorted(source_words(...)) whose probability is below ``cut``, at most
    ``most``, least likely first."""
    return [w for p, _, w in scored[:most] if p < cut]


def missing_words(src_pieces: list[str], reverse: np.ndarray | None, most: int = 3,
                  below: float = MISSING_P) -> list[str]:
    """The source words (src_pieces without EOS) the output may have lost: those the reverse model finds less
    likely than ``below`` when it reads the output (a word's least likely piece), least likely first, at most
    ``most``. Punctuation is never named."""
    return _below(sorted(source_words(src_pieces, reverse)), below, most)


@dataclass(frozen=True)
class Estimate:
    """What the page says about one translation."""

    probability: float  # the fitted chance of its label (QualityModel.label): chrF < 40, or judged wrong
    flagged: bool  # QualityModel.flags: probability >= the threshold, or a source word below missing_below
    words: tuple[str, ...]  # the output words most likely wrong, least sure first (may be empty)
    word_indices: tuple[int, ...]  # their indices in word_spans(out pieces without EOS)
    missing: tuple[str, ...] = ()  # source words the output may have lost (the reverse model's least likely)
    dropped: tuple[str, ...] = ()  # when flagged by the word rule alone (not by probability): the words below its cut-off


def estimate(a: Any, unk_id: int, shown_probs: list[float] | None = None) -> Estimate | None:
    """The fitted estimate of an Analysis from its own pass; None when the model has none for these weights, when
    heads are switched off (then it is not the model the estimate was fitted on), or without the reverse pass. The
    words are named by ``shown_probs`` (the probability each output piece is shown with; default: the model's own)."""
    q = getattr(a, "quality", None)
    if q is None or a.ablated or getattr(a, "reverse_logprobs", None) is None:
        return None  # no estimate, or not the model it was fitted on, or no reverse pass to read
    sig = analysis_pass(a)
    prob = q.probability(features(sig, unk_id))
    pieces = list(a.out_tokens[:-1])  # without EOS
    probs = list(shown_probs if shown_probs is not None else a.model_probs())[: len(pieces)]
    idx = tuple(suspect_words(pieces, probs))
    spans = word_spans(pieces)
    words = tuple(word_text(pieces[s:e]) for s, e in (spans[k] for k in idx))
    scored = sorted(source_words(sig.src_pieces, sig.reverse))  # once: the flag, the missing and the dropped words
    flagged = q.flags(prob, scored[0][0] if scored else 1.0)
    dropped = _below(scored, q.missing_below) if flagged and prob < q.threshold else []
    return Estimate(prob, flagged, words, idx, tuple(_below(scored, MISSING_P)), tuple(dropped))
