"""The tokenizer: exact round trip (pieces are shown to users), special ids, and a readable error."""

from pathlib import Path

import pytest

from model.tokenizer import BOS, EOS, PAD, UNK, Tokenizer
from training.data import DEFAULT_DATA_DIR, read_split
from training.tokenizer import train_tokenizer

SHIPPED = Path(__file__).resolve().parent.parent / "checkpoints" / "en-de" / "spm.model"

TEXTS = [
    "A dog runs through the snow.",
    "Ein Hund läuft über die Straße, während zwei Mädchen Fußball spielen.",
    "  leading and trailing spaces, and  double  spaces  ",
    "Tabs\tand\nnewlines",
    "Emoji 🐶🐕‍🦺, accents àéîõü, CJK 中文, RTL שלום مرحبا",
    "</script><script>alert(1)</script> <img src=x onerror=alert(1)>",
    "NUL\x00 and control \x07 characters",
    "",
]


@pytest.fixture(scope="module")
def tok() -> Tokenizer:
    if SHIPPED.is_file():
        return Tokenizer.load(SHIPPED)
    return train_tokenizer(["A dog runs.", "Ein Hund läuft."] * 200, vocab_size=300)


@pytest.mark.parametrize("text", TEXTS)
def test_round_trip_is_exact(tok, text):
    assert tok.decode(tok.encode(text)) == text


def test_round_trip_on_held_out_data(tok):
    if not DEFAULT_DATA_DIR.is_dir():
        pytest.skip("Multi30k not beside the project")
    en, de = read_split(None, "test_2016_flickr")
    for line in en[:300] + de[:300]:
        assert tok.decode(tok.encode(line)) == line


def test_special_ids_and_markers(tok):
    assert tok.pieces([PAD, UNK, BOS, EOS]) == ["<pad>", "<unk>", "<s>", "</s>"]
    assert tok.decode([BOS, *tok.encode("A dog"), EOS, PAD]) == "A dog"  # specials never reach the text
    assert tok.pieces(tok.encode("A dog"))[0].startswith("\u2581")


def test_garbage_model_is_refused(tmp_path):
    bad = tmp_path / "spm.model"
    bad.write_bytes(b"not a model")
    with pytest.raises(ValueError, match=str(bad)):
        Tokenizer.load(bad)
