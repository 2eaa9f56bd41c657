"""Training data: the split's texts, token id pairs, and the tensors of one batch."""

from __future__ import annotations

from model.batch import pad_batch
from model.tokenizer import BOS, EOS, PAD, Tokenizer
from training.data import corpus_dirs
from training.mixing import Mix, read_corpora
from training.toy import make_pairs


def load_texts(args, mix: Mix) -> dict:
    """{"train": (src, tgt), "val": (src, tgt), "tokenizer": sentences, "describe": str}: for a translation task
    the corpora of ``mix`` (train repeated as the mix says, val once each, the tokenizer's text once each);
    for a toy task generated letter strings."""
    if args.task != "translate":
        src, tgt = make_pairs(args.task, 20000, args.seed)
        if args.train_limit:
            src, tgt = src[: args.train_limit], tgt[: args.train_limit]
        return {"train": (src, tgt), "val": make_pairs(args.task, 500, args.seed + 1), "tokenizer": [],
                "describe": "generated letter strings"}
    splits = read_corpora(mix, corpus_dirs(args), train_limit=args.train_limit)
    once = splits.joined("train")
    train, val = splits.joined("train", mix)[:2], splits.joined("val")[:2]
    if getattr(args, "direction", "en-de") == "de-en":  # the reverse model: German in, English out
        train, val = train[::-1], val[::-1]
    return {"train": train, "val": val,
            "tokenizer": once[0] + once[1], "describe": str(mix),
            "pairs": {n: len(sp["train"][0]) for n, sp in splits.corpora.items()}}


def encode_pairs(tok: Tokenizer, src: list[str], tgt: list[str], max_len: int) -> list[tuple[list[int], list[int]]]:
    """Source ids + EOS, and BOS + target ids + EOS; pairs longer than max_len are dropped."""
    pairs = []
    for s, t in zip(tok.encode_batch(src), tok.encode_batch(tgt)):
        if len(s) + 1 <= max_len and len(t) + 2 <= max_len:
            pairs.append((s + [EOS], [BOS] + t + [EOS]))
    return pairs


def batch_tensors(pairs, idx):
    src = pad_batch([pairs[i][0] for i in idx], PAD)  # (B, S)
    tgt = pad_batch([pairs[i][1] for i in idx], PAD)  # (B, T+1)
    return src, tgt[:, :-1], tgt[:, 1:]  # decoder input is the target shifted right
