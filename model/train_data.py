"""Training data: the split's texts, token id pairs, and the tensors of one batch."""

from __future__ import annotations

from model.batch import pad_batch
from model.data import read_split
from model.tokenizer import BOS, EOS, PAD, Tokenizer
from model.toy import make_pairs


def load_texts(args) -> dict[str, tuple[list[str], list[str]]]:
    if args.task == "multi30k":
        splits = {s: read_split(args.data_dir, s) for s in ("train", "val")}
    else:
        splits = {"train": make_pairs(args.task, 20000, args.seed), "val": make_pairs(args.task, 500, args.seed + 1)}
    if args.train_limit:
        src, tgt = splits["train"]
        splits["train"] = (src[: args.train_limit], tgt[: args.train_limit])
    return splits


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
