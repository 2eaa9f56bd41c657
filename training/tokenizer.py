"""Training the SentencePiece model: one joint cased BPE vocabulary for English and German (model/tokenizer.py
loads and applies it at serving time)."""

from __future__ import annotations

import io
from collections.abc import Iterable

import sentencepiece as spm

from model.tokenizer import BOS, EOS, PAD, UNK, Tokenizer


def train_tokenizer(sentences: Iterable[str], vocab_size: int = 8000) -> Tokenizer:
    """Train a cased BPE model. Identity normalisation and byte fallback make decode(encode(x)) == x."""
    buf = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(sentences),
        model_writer=buf,
        model_type="bpe",
        vocab_size=vocab_size,
        character_coverage=1.0,
        normalization_rule_name="identity",  # no NFKC: what the user typed is what the pieces spell
        remove_extra_whitespaces=False,
        byte_fallback=True,  # unseen characters become byte pieces instead of <unk>
        pad_id=PAD, unk_id=UNK, bos_id=BOS, eos_id=EOS,
        num_threads=2,
        minloglevel=2,
        input_sentence_size=2_000_000, shuffle_input_sentence=True,
    )
    return Tokenizer(buf.getvalue())
