"""What-if (Translator.next_token, Translator.edit_source, decoding.forced_prefix) and activation patching
(model/patching.py, Translator.patch), each checked against greedy decoding or a run made here with
run_with_hooks."""


import numpy as np
import pytest
import torch
import torch.nn.functional as F

from model.decoding import greedy
from model.hooks import capture, run_with_hooks
from model.names import act_name
from model.translator import DecodeOptions, available, load_pretrained

pytestmark = pytest.mark.skipif("en-de" not in available(), reason="en-de not shipped")

DOG, CAT = "A dog runs in the park.", "A cat runs in the park."


def _logp(model, logits):
    blocked = torch.tensor([model.cfg.pad_id, model.cfg.bos_id])
    return F.log_softmax(logits.index_fill(-1, blocked, float("-inf")), dim=-1)


# -- what-if: a forced prefix ------------------------------------------------------------------------------

@pytest.mark.parametrize("text", [DOG, "Two children play with a red ball in the park."])
def test_forcing_greedys_own_prefix_reproduces_its_steps_exactly(text):
    tr = load_pretrained("en-de")
    src_ids = tr._src_ids(text)
    n = tr._max_len(len(src_ids), DecodeOptions())
    outs, traces = greedy(tr.model, torch.tensor([src_ids]), n)
    out, trace = outs[0], traces[0]
    assert len(trace.steps) == len(out) + 1  # ended with EOS
    k = len(trace.steps[0].top_ids)
    for t, step in enumerate(trace.steps):
        assert step.prefix == out[:t]
        r = tr.next_token(text, step.prefix, top_k=k)
        p, i = r["probs"].topk(k)
        assert torch.equal(i, torch.tensor(step.top_ids)), t
        assert p.tolist() == step.top_probs, t  # exactly the same floats, not just close
        assert r["top_ids"] == step.top_ids and r["top_probs"] == step.top_probs
        assert float(r["probs"][step.chosen]) == step.chosen_prob
        assert r["prefix_ids"] == out[:t] and r["prefix_tokens"] == tr.tokenizer.pieces(out[:t])
        assert r["continuation_tokens"] == tr.tokenizer.pieces(out[t:]), t
        assert r["continuation"] == tr.tokenizer.decode(out)
        assert r["cross"].shape == (tr.cfg.n_decoder_layers, tr.cfg.n_heads, len(src_ids))
        np.testing.assert_allclose(r["cross"].sum(-1), 1.0, atol=1e-5)


def test_next_token_with_a_text_prefix_and_its_cross_attention():
    tr = load_pretrained("en-de")
    r = tr.next_token(DOG, "Eine Katze")  # a prefix greedy would not have chosen
    ids = tr.tokenizer.encode("Eine Katze")
    assert r["prefix_ids"] == ids
    assert abs(float(r["probs"].sum()) - 1) < 1e-5
    assert float(r["probs"][tr.cfg.pad_id]) == 0 and float(r["probs"][tr.cfg.bos_id]) == 0
    # the distribution and cross-attention equal a plain teacher-forced pass over BOS + prefix
    src = torch.tensor([tr._src_ids(DOG)])
    tgt = torch.tensor([[tr.cfg.bos_id] + ids])
    with torch.no_grad(), capture([act_name("cross", i, "weights") for i in range(tr.cfg.n_decoder_layers)]) as c:
        logits = tr.model(src, tgt)[0, -1]
    torch.testing.assert_close(r["probs"], _logp(tr.model, logits).exp(), rtol=1e-4, atol=1e-6)
    for i in range(tr.cfg.n_decoder_layers):
        np.testing.assert_allclose(r["cross"][i], c[act_name("cross", i, "weights")][0, :, -1].numpy(), atol=1e-6)
    limit = tr._max_len(len(tr._src_ids(DOG)), DecodeOptions())
    with pytest.raises(ValueError, match="prefix"):
        tr.next_token(DOG, [5] * limit)


# -- what-if: editing the source ---------------------------------------------------------------------------

def test_edit_source_masks_a_piece_with_padding():
    tr = load_pretrained("en-de")
    src_ids = tr._src_ids(DOG)
    pieces = tr.tokenizer.pieces(src_ids)
    pos = pieces.index("▁dog")
    e = tr.edit_source(DOG, pos, None)
    assert e["masked"] and e["position"] == pos
    pad = tr.tokenizer.pieces([tr.cfg.pad_id])[0]
    assert e["edited_tokens"] == pieces[:pos] + [pad] + pieces[pos + 1:]
    assert e["src_tokens"] == pieces
    # padding gets no attention at all, in every layer and for every output position
    assert e["edited_cross"].shape == e["cross"].shape
    assert np.all(e["edited_cross"][:, :, pos] == 0)
    # the edited run is the plain model on the edited ids
    edited = src_ids[:pos] + [tr.cfg.pad_id] + src_ids[pos + 1:]
    out, _ = greedy(tr.model, torch.tensor([edited]), tr._max_len(len(edited), DecodeOptions()))
    assert e["edited_translation"] == tr.tokenizer.decode(out[0])


def test_edit_source_replacing_dog_by_cat_changes_the_translation():
    tr = load_pretrained("en-de")
    src_ids = tr._src_ids(DOG)
    pos = tr.tokenizer.pieces(src_ids).index("▁dog")
    e = tr.edit_source(DOG, pos, "cat")
    assert not e["masked"]
    assert e["translation"] == tr.translate(DOG)
    assert e["edited_translation"] != e["translation"]
    assert tr._src_ids(CAT) == src_ids[:pos] + tr.tokenizer.encode("cat") + src_ids[pos + 1:]
    assert e["edited_tokens"] == tr.tokenizer.pieces(tr._src_ids(CAT))
    assert e["edited_translation"] == tr.translate(CAT)
    out_ids = tr._target_ids(DOG, None)[1]
    assert e["out_tokens"] == tr.tokenizer.pieces(out_ids + [tr.cfg.eos_id])
    assert e["p_original"] == tr.forced(DOG, out_ids)[0]
    assert e["p_edited"] == tr.forced(CAT, out_ids)[0]  # the original output, forced under the edited source
    L, T, S = tr.cfg.n_decoder_layers, len(out_ids) + 1, len(src_ids)
    assert e["cross"].shape == (L, T, S) and e["edited_cross"].shape == (L, T, S)
    _, cache = tr.forced(DOG, out_ids)
    np.testing.assert_array_equal(e["cross"][L - 1], cache[act_name("cross", L - 1, "weights")][0].mean(0).numpy())


def test_edit_source_with_a_longer_replacement_and_bad_arguments():
    tr = load_pretrained("en-de")
    src_ids = tr._src_ids(DOG)
    pos = tr.tokenizer.pieces(src_ids).index("▁dog")
    e = tr.edit_source(DOG, pos, "big brown dog")
    new = tr.tokenizer.encode("big brown dog")
    assert len(new) > 1
    s2 = len(src_ids) - 1 + len(new)
    out_ids = tr._target_ids(DOG, None)[1]
    L, T = tr.cfg.n_decoder_layers, len(out_ids) + 1
    assert e["cross"].shape == (L, T, len(src_ids))
    assert e["edited_cross"].shape == (L, T, s2)
    assert len(e["edited_tokens"]) == s2 and len(e["p_edited"]) == T
    np.testing.assert_allclose(e["edited_cross"].sum(-1), 1.0, atol=1e-5)
    for bad in (-1, len(src_ids) - 1, len(src_ids), 100):  # len - 1 is EOS
        with pytest.raises(ValueError, match="position"):
            tr.edit_source(DOG, bad, "cat")
    for empty in ("", "   "):
        with pytest.raises(ValueError, match="empty"):
            tr.edit_source(DOG, pos, empty)


# -- activation patching -----------------------------------------------------------------------------------

def _runs(tr, clean, corrupt):
    src_c, out = tr._target_ids(clean, None)
    src_x = tr._src_ids(corrupt)
    tgt = torch.tensor([[tr.cfg.bos_id] + out])
    score = torch.tensor(out + [tr.cfg.eos_id])
    return torch.tensor([src_c]), torch.tensor([src_x]), tgt, score, out


def test_patching_the_last_layer_outputs_restores_the_clean_run():
    tr = load_pretrained("en-de")
    p = tr.patch(DOG, CAT)
    src_c, src_x, tgt, score, out = _runs(tr, DOG, CAT)
    with torch.no_grad():
        lp_c = _logp(tr.model, tr.model(src_c, tgt))[0]
        lp_x = _logp(tr.model, tr.model(src_x, tgt))[0]
    # default position: the first one where the corrupted run prefers another token
    first = int((lp_x.argmax(-1) != score).nonzero()[0])
    assert p.position == first and p.token == out[first]
    assert abs(p.clean_logp - float(lp_c[first, out[first]])) < 1e-5
    assert abs(p.corrupt_logp - float(lp_x[first, out[first]])) < 1e-5
    assert p.clean_logp > p.corrupt_logp
    n_enc, n_dec, h = tr.cfg.n_encoder_layers, tr.cfg.n_decoder_layers, tr.cfg.n_heads
    assert p.layers["encoder"].shape == (n_enc,) and p.layers["decoder"].shape == (n_dec,)
    assert p.heads["encoder"].shape == (n_enc, h) and p.heads["cross"].shape == (n_dec, h)
    # the last encoder layer's output is all the decoder sees of the source; the last decoder layer's is all
    # the projection sees
    assert abs(p.layers["encoder"][-1] - p.clean_logp) < 1e-5
    assert abs(p.layers["decoder"][-1] - p.clean_logp) < 1e-5
    np.testing.assert_allclose(p.restored(p.layers["encoder"][-1:]), 1.0, atol=1e-4)
    # the decoder's self-attention at position 0 sees BOS only: it cannot carry the difference there
    if p.position == 0:
        np.testing.assert_allclose(p.heads["decoder"][0], p.corrupt_logp, atol=1e-5)


@pytest.mark.parametrize("kind,layer,head", [("cross", 2, 2), ("encoder", 0, 2), ("decoder", 1, 0)])
def test_one_patched_head_matches_a_run_with_hooks(kind, layer, head):
    tr = load_pretrained("en-de")
    p = tr.patch(DOG, CAT)
    src_c, src_x, tgt, score, out = _runs(tr, DOG, CAT)
    name = act_name(kind, layer, "z")
    with torch.no_grad():
        with capture([name]) as clean:
            tr.model(src_c, tgt)

        def swap(z, _name):
            z = z.clone()
            z[:, head] = clean[name][:, head]  # (B, H, T, d_k): one head's slice from the clean run
            return z

        logits = run_with_hooks(tr.model, src_x, tgt, {name: swap})
    expected = float(_logp(tr.model, logits)[0, p.position, out[p.position]])
    assert abs(float(p.heads[kind][layer, head]) - expected) < 1e-5, (p.heads[kind][layer, head], expected)


def test_one_patched_layer_output_matches_a_run_with_hooks():
    tr = load_pretrained("en-de")
    p = tr.patch(DOG, CAT, position=1)
    assert p.position == 1
    src_c, src_x, tgt, score, out = _runs(tr, DOG, CAT)
    for kind in ("encoder", "decoder"):
        for layer in range(tr.cfg.n_encoder_layers if kind == "encoder" else tr.cfg.n_decoder_layers):
            name = act_name(kind, layer, "out")
            with torch.no_grad():
                with capture([name]) as clean:
                    tr.model(src_c, tgt)
                logits = run_with_hooks(tr.model, src_x, tgt, {name: lambda x, n: clean[n]})
            expected = float(_logp(tr.model, logits)[0, 1, out[1]])
            assert abs(float(p.layers[kind][layer]) - expected) < 1e-5, (kind, layer)


def test_patching_needs_sentences_of_the_same_piece_length():
    tr = load_pretrained("en-de")
    other = "A big dog runs in the park."
    a, b = len(tr._src_ids(DOG)), len(tr._src_ids(other))
    assert a != b
    with pytest.raises(ValueError, match=rf"\b{a}\b.*\b{b}\b"):
        tr.patch(DOG, other)
    with pytest.raises(ValueError, match="position"):
        tr.patch(DOG, CAT, position=100)
