import os

import pytest
import torch

from model.config import ModelConfig
from model.transformer import Transformer

torch.set_num_threads(int(os.environ.get("TORCH_THREADS", "2")))

TINY = dict(vocab_size=100, d_model=16, n_heads=4, d_ff=32, n_encoder_layers=2, n_decoder_layers=2, max_len=64)


def tiny_model(seed: int = 0, **overrides) -> Transformer:
    torch.manual_seed(seed)
    return Transformer(ModelConfig(**{**TINY, **overrides})).eval()


@pytest.fixture
def model() -> Transformer:
    return tiny_model()


def random_ids(b: int, t: int, seed: int = 0, vocab: int = 100) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    return torch.randint(4, vocab, (b, t), generator=g)  # ids 0..3 are pad/unk/bos/eos


@pytest.fixture
def beam8_ends_at_once(monkeypatch):
    """Beam search of width 8 keeps the hypothesis that ends at once. The previous en-de did this by itself on
    "A dog is running in the snow. 🐶🐶🐶🐶🐶"; no input we tried makes the current one do it, so the real search
    runs and its winner is then replaced by the empty hypothesis (the one that ends at once). Other widths are
    untouched."""
    import model.translator as mt

    real = mt.beam_search

    def search(model, src, beam_size, *args, **kwargs):
        tokens, trace = real(model, src, beam_size, *args, **kwargs)
        return ([] if beam_size == 8 else tokens), trace  # tokens exclude EOS

    monkeypatch.setattr(mt, "beam_search", search)
