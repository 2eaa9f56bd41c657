"""Our explicit attention against PyTorch's own implementations, and the positional table against the paper."""

import math

import pytest
import torch
import torch.nn.functional as F

from model.config import ModelConfig
from model.hooks import capture, name_hook_points
from model.layers import MultiHeadAttention, PositionalEncoding


def _mha(seed=0, d=16, h=4):
    torch.manual_seed(seed)
    return MultiHeadAttention(d, h, attention_dropout=0.0).eval()


def _masks(b, tq, tk):
    key_pad = torch.zeros(b, tk, dtype=torch.bool)
    key_pad[0, -2:] = True  # two padded keys in the first sequence
    causal = torch.ones(tq, tk, dtype=torch.bool).tril()
    return {"none": None, "padding": ~key_pad[:, None, None, :], "padding+causal": (~key_pad[:, None, None, :]) & causal}


@pytest.mark.parametrize("which", ["none", "padding", "padding+causal"])
def test_matches_scaled_dot_product_attention(which):
    mha = _mha()
    b, t, d, h = 3, 7, 16, 4
    x = torch.randn(b, t, d)
    mask = _masks(b, t, t)[which]
    ours = mha(x, x, mask)
    split = lambda y: y.view(b, t, h, d // h).transpose(1, 2)  # (B, T, D) -> (B, H, T, d_k)
    q, k, v = split(mha.w_q(x)), split(mha.w_k(x)), split(mha.w_v(x))
    ref = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)  # (B, H, T, d_k)
    ref = mha.w_o(ref.transpose(1, 2).reshape(b, t, d))
    torch.testing.assert_close(ours, ref, atol=1e-5, rtol=0)


@pytest.mark.parametrize("which", ["none", "padding", "padding+causal"])
def test_matches_torch_multihead_attention(which):
    mha = _mha(1)
    b, tq, tk, d, h = 2, 5, 6, 16, 4
    query, memory = torch.randn(b, tq, d), torch.randn(b, tk, d)
    ref = torch.nn.MultiheadAttention(d, h, batch_first=True).eval()
    with torch.no_grad():
        ref.in_proj_weight.copy_(torch.cat([mha.w_q.weight, mha.w_k.weight, mha.w_v.weight]))
        ref.in_proj_bias.copy_(torch.cat([mha.w_q.bias, mha.w_k.bias, mha.w_v.bias]))
        ref.out_proj.weight.copy_(mha.w_o.weight)
        ref.out_proj.bias.copy_(mha.w_o.bias)
    key_pad = torch.zeros(b, tk, dtype=torch.bool)
    key_pad[1, -3:] = True
    allowed = None
    kwargs = {}
    if which != "none":
        allowed = ~key_pad[:, None, None, :]  # (B, 1, 1, Tk)
        kwargs["key_padding_mask"] = key_pad
    if which == "padding+causal":
        causal = torch.ones(tq, tk, dtype=torch.bool).tril()
        allowed = allowed & causal
        kwargs["attn_mask"] = ~causal  # torch: True = not allowed
    name_hook_points(mha)  # a lone block: its hooks are named "q", "weights", ...
    with capture(["weights"]) as cache:
        ours = mha(query, memory, allowed)
    ref_out, ref_w = ref(query, memory, memory, need_weights=True, average_attn_weights=False, **kwargs)
    torch.testing.assert_close(ours, ref_out, atol=1e-5, rtol=0)
    torch.testing.assert_close(cache["weights"], ref_w, atol=1e-5, rtol=0)


def test_sinusoidal_table_matches_the_paper_formula():
    d, n = 30, 120  # even d_model, and positions where a wrong exponent shows
    pe = PositionalEncoding(d, n, "sinusoidal").pe
    for pos in range(n):
        for j in range(d):
            i = j // 2  # dimension 2i or 2i+1
            angle = pos / 10000 ** (2 * i / d)
            expect = math.sin(angle) if j % 2 == 0 else math.cos(angle)
            assert abs(pe[pos, j].item() - expect) < 1e-6, (pos, j)


def test_sinusoidal_table_odd_width_and_learned_option():
    pe = PositionalEncoding(7, 10, "sinusoidal").pe
    assert pe.shape == (10, 7)
    assert abs(pe[3, 6].item() - math.sin(3 / 10000 ** (6 / 7))) < 1e-6
    learned = PositionalEncoding(8, 10, "learned")
    assert learned.table.requires_grad and learned.table.shape == (10, 8)
    with pytest.raises(ValueError, match="max_len"):
        learned(torch.zeros(1, 11, 8))


def test_config_rejects_bad_values():
    with pytest.raises(ValueError, match="divisible"):
        ModelConfig(d_model=10, n_heads=4)
    with pytest.raises(ValueError, match="positional"):
        ModelConfig(positional="rotary")
