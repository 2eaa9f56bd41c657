"""Invariants of the whole encoder-decoder: tied embeddings, masks, causality, shapes."""

import math

import torch

from conftest import random_ids, tiny_model
from model.config import ModelConfig
from model.hooks import run_with_cache
from model.transformer import Transformer


def test_one_matrix_for_both_embeddings_and_the_output_projection(model):
    v, d = model.cfg.vocab_size, model.cfg.d_model
    vocab_sized = [name for name, p in model.named_parameters() if v in p.shape]
    assert vocab_sized == ["embedding.weight"]
    src, tgt = random_ids(2, 5), random_ids(2, 4, seed=1)
    logits, cache = run_with_cache(model, src, tgt, ["src_embed", "tgt_embed", "decoder.out"])
    w = model.embedding.weight
    torch.testing.assert_close(cache["src_embed"], w[src] * math.sqrt(d), rtol=0, atol=0)
    torch.testing.assert_close(cache["tgt_embed"], w[tgt] * math.sqrt(d), rtol=0, atol=0)
    torch.testing.assert_close(logits, cache["decoder.out"] @ w.t(), rtol=0, atol=0)
    # and a change to that one tensor moves all three
    with torch.no_grad():
        w[src[0, 0]] += 1.0
    logits2, cache2 = run_with_cache(model, src, tgt, ["src_embed"])
    assert not torch.equal(cache2["src_embed"], cache["src_embed"])
    assert not torch.equal(logits2[..., src[0, 0]], logits[..., src[0, 0]])


def test_padded_batch_equals_each_sentence_alone(model):
    a_src, a_tgt = random_ids(1, 7, 1), random_ids(1, 5, 2)
    b_src, b_tgt = random_ids(1, 4, 3), random_ids(1, 3, 4)
    src = torch.zeros(2, 7, dtype=torch.long)
    tgt = torch.zeros(2, 5, dtype=torch.long)
    src[0], tgt[0] = a_src[0], a_tgt[0]
    src[1, :4], tgt[1, :3] = b_src[0], b_tgt[0]
    batch, cache = run_with_cache(model, src, tgt)
    torch.testing.assert_close(batch[0:1], model(a_src, a_tgt), atol=1e-5, rtol=0)
    torch.testing.assert_close(batch[1:2, :3], model(b_src, b_tgt), atol=1e-5, rtol=0)
    for i in range(model.cfg.n_encoder_layers):
        w = cache[f"encoder.layers.{i}.self_attn.weights"]
        assert (w[1, :, :, 4:] == 0).all()  # padded source keys: exactly zero
        assert (cache[f"decoder.layers.{i}.cross_attn.weights"][1, :, :, 4:] == 0).all()
        assert (cache[f"decoder.layers.{i}.self_attn.weights"][1, :, :, 3:] == 0).all()


def test_causal_mask_and_rows_sum_to_one(model):
    src, tgt = random_ids(2, 6), random_ids(2, 8, 5)
    logits, cache = run_with_cache(model, src, tgt)
    for name, w in cache.items():
        if name.endswith(".weights"):
            torch.testing.assert_close(w.sum(-1), torch.ones(w.shape[:-1]), atol=1e-6, rtol=0)
        if name.startswith("decoder") and ".self_attn.weights" in name:
            assert (w.triu(diagonal=1) == 0).all(), name  # exactly 0 above the diagonal
    for t in range(tgt.size(1) - 1):
        changed = tgt.clone()
        changed[:, t + 1 :] = random_ids(2, tgt.size(1) - t - 1, 99 + t)
        later = model(src, changed)
        assert torch.equal(later[:, : t + 1], logits[:, : t + 1]), t  # earlier positions: bit-identical


def test_paper_base_config_shapes():
    cfg = ModelConfig()
    assert (cfg.d_model, cfg.n_heads, cfg.d_ff, cfg.n_encoder_layers, cfg.dropout, cfg.norm_first) == (
        512, 8, 2048, 6, 0.1, False)
    torch.manual_seed(0)
    model = Transformer(cfg).eval()
    with torch.inference_mode():
        logits = model(random_ids(64, 32, vocab=cfg.vocab_size), random_ids(64, 16, 1, vocab=cfg.vocab_size))
    assert logits.shape == (64, 16, cfg.vocab_size)
    assert torch.isfinite(logits).all()


def test_pre_ln_and_learned_positions_run():
    for kw in ({"norm_first": True}, {"positional": "learned"}):
        m = tiny_model(**kw)
        out = m(random_ids(2, 5), random_ids(2, 3))
        assert out.shape == (2, 3, 100) and torch.isfinite(out).all()
    assert isinstance(tiny_model(norm_first=True).encoder.norm, torch.nn.LayerNorm)
    assert isinstance(tiny_model().encoder.norm, torch.nn.Identity)
