"""SentencePiece wrapper: one joint English+German BPE model; exact round trip from text to pieces and back."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import sentencepiece as spm

PAD, UNK, BOS, EOS = 0, 1, 2, 3
WORD_START = "\u2581"  # SentencePiece's marker for "a word starts here" (a space before it)


class Tokenizer:
    def __init__(self, model_proto: bytes, source: str = "<memory>") -> None:
        self.source = source
        self.sp = spm.SentencePieceProcessor()
        try:
            self.sp.LoadFromSerializedProto(model_proto)
        except Exception as e:  # sentencepiece raises RuntimeError/OSError with C++ text
            raise ValueError(f"{source}: not a valid SentencePiece model ({e})") from None
        ids = (self.sp.pad_id(), self.sp.unk_id(), self.sp.bos_id(), self.sp.eos_id())
        if ids != (PAD, UNK, BOS, EOS):
            raise ValueError(f"{source}: expected pad/unk/bos/eos ids {(PAD, UNK, BOS, EOS)}, found {ids}")

    @classmethod
    def load(cls, path: str | Path) -> Tokenizer:
        path = Path(path)
        try:
            data = path.read_bytes()
        except OSError as e:
            raise ValueError(f"{path}: cannot read the SentencePiece model ({e.strerror})") from None
        return cls(data, str(path))

    def save(self, path: str | Path) -> None:
        Path(path).write_bytes(self.sp.serialized_model_proto())

    @property
    def vocab_size(self) -> int:
        return self.sp.get_piece_size()

    def encode(self, text: str) -> list[int]:
        return self.sp.encode(text)

    def encode_batch(self, texts: list[str]) -> list[list[int]]:
        return self.sp.encode(texts)

    def decode(self, ids: Iterable[int]) -> str:
        return self.sp.decode([i for i in ids if i not in (PAD, BOS, EOS)])

    def pieces(self, ids: Iterable[int]) -> list[str]:
        return [self.sp.id_to_piece(int(i)) for i in ids]

    def id_to_piece(self, i: int) -> str:
        return self.sp.id_to_piece(int(i))
