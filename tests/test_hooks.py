"""Named capture and head ablation: exact, complete, and private to the call."""

import math
import threading

import pytest
import torch

from conftest import random_ids, tiny_model
from model.hooks import ablate, capture, hook_names, run_with_ablation, run_with_cache


def _attn_names(prefix, kinds=("q", "k", "v", "scores", "weights", "z", "out")):
    return [f"{prefix}.{k}" for k in kinds]


def expected_names(n_enc=2, n_dec=2):
    names = []
    for i in range(n_enc):
        names += _attn_names(f"encoder.layers.{i}.self_attn") + [f"encoder.layers.{i}.ffn.hidden", f"encoder.layers.{i}.out"]
    names.append("encoder.out")
    for i in range(n_dec):
        names += _attn_names(f"decoder.layers.{i}.self_attn") + _attn_names(f"decoder.layers.{i}.cross_attn")
        names += [f"decoder.layers.{i}.ffn.hidden", f"decoder.layers.{i}.out"]
    names.append("decoder.out")
    return sorted(names + ["src_embed", "src_pos", "tgt_embed", "tgt_pos", "logits"])


def test_capture_names_are_pinned(model):
    """A rename of any captured tensor is a visible decision: it has to change this list."""
    assert sorted(hook_names(model)) == expected_names()
    _, cache = run_with_cache(model, random_ids(1, 4), random_ids(1, 3))
    assert sorted(cache) == expected_names()


def test_capture_shapes(model):
    b, s, t = 2, 5, 3
    _, c = run_with_cache(model, random_ids(b, s), random_ids(b, t))
    h, d, f = 4, 16, 32
    assert c["src_embed"].shape == c["src_pos"].shape == c["encoder.out"].shape == (b, s, d)
    assert c["tgt_embed"].shape == c["decoder.out"].shape == (b, t, d)
    assert c["encoder.layers.0.self_attn.q"].shape == (b, h, s, d // h)
    assert c["encoder.layers.1.self_attn.weights"].shape == (b, h, s, s)
    assert c["encoder.layers.0.ffn.hidden"].shape == (b, s, f)
    assert c["decoder.layers.0.self_attn.scores"].shape == (b, h, t, t)
    assert c["decoder.layers.1.cross_attn.weights"].shape == (b, h, t, s)
    assert c["logits"].shape == (b, t, 100)


def test_capture_leaves_logits_bit_identical_and_is_self_consistent(model):
    src, tgt = random_ids(2, 6), random_ids(2, 5, 1)
    src[1, 4:] = 0  # padding, so the masked branch is exercised
    plain = model(src, tgt)
    logits, cache = run_with_cache(model, src, tgt)
    assert torch.equal(plain, logits)
    assert torch.equal(cache["logits"], logits)
    for name in cache:
        if not name.endswith(".scores"):
            continue
        block = name[: -len(".scores")]
        q, k = cache[block + ".q"], cache[block + ".k"]
        scores, weights = cache[name], cache[block + ".weights"]
        torch.testing.assert_close(weights, torch.softmax(scores, -1), atol=0, rtol=0)
        raw = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
        allowed = scores > torch.finfo(scores.dtype).min
        torch.testing.assert_close(scores[allowed], raw[allowed], atol=1e-6, rtol=0)
        assert not allowed.all() or "encoder" in block  # masks did something outside unpadded encoder rows


def test_names_filter_and_unknown_names(model):
    _, cache = run_with_cache(model, random_ids(1, 4), random_ids(1, 3), ["logits", "encoder.layers.0.self_attn.weights"])
    assert sorted(cache) == ["encoder.layers.0.self_attn.weights", "logits"]
    with pytest.raises(KeyError, match="nope"):
        run_with_cache(model, random_ids(1, 4), random_ids(1, 3), ["nope"])


def test_nothing_is_captured_outside_a_capture_block(model):
    with capture() as outer:
        pass
    model(random_ids(1, 4), random_ids(1, 3))
    assert outer == {}


def test_concurrent_captures_do_not_mix():
    model = tiny_model()
    sentences = [(random_ids(1, 3 + i, i), random_ids(1, 2 + i, 50 + i)) for i in range(4)]
    alone = [run_with_cache(model, s, t)[1] for s, t in sentences]
    errors = []
    barrier = threading.Barrier(2)

    def worker(which):
        try:
            for r in range(25):
                i = (which + 2 * r) % len(sentences)
                barrier.wait(timeout=10)
                _, cache = run_with_cache(model, *sentences[i])
                for name, ref in alone[i].items():
                    if not torch.equal(cache[name], ref):
                        errors.append((which, r, name))
        except Exception as e:  # surfaced below; a thread's exception is otherwise lost
            errors.append(repr(e))

    threads = [threading.Thread(target=worker, args=(w,)) for w in (0, 1)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert errors == []


def test_head_ablation():
    model = tiny_model()
    src, tgt = random_ids(2, 6), random_ids(2, 4, 1)
    plain = model(src, tgt)
    assert torch.equal(run_with_ablation(model, src, tgt, []), plain)
    for block in ("encoder.layers.0.self_attn", "decoder.layers.1.self_attn", "decoder.layers.0.cross_attn"):
        out = run_with_ablation(model, src, tgt, [(block, 2)])
        assert not torch.allclose(out, plain), block
    assert torch.equal(model(src, tgt), plain)  # nothing lingers after the call
    # the ablated head's contribution is exactly removed: its slice of the context is zero
    with ablate([("encoder.layers.0.self_attn", 1)]), capture(["encoder.layers.0.self_attn.out"]) as c:
        model(src, tgt)
    attn = model.encoder.layers[0].self_attn
    with capture(["encoder.layers.0.self_attn.weights", "encoder.layers.0.self_attn.v"]) as c2:
        model(src, tgt)
    w, v = c2["encoder.layers.0.self_attn.weights"], c2["encoder.layers.0.self_attn.v"]
    ctx = w @ v  # (B, H, S, d_k)
    ctx[:, 1] = 0
    expect = attn.w_o(ctx.transpose(1, 2).reshape(2, 6, 16))
    torch.testing.assert_close(c["encoder.layers.0.self_attn.out"], expect, atol=1e-6, rtol=0)
    with pytest.raises(KeyError):
        run_with_ablation(model, src, tgt, [("encoder.layers.9.self_attn", 0)])
    with pytest.raises(IndexError):
        run_with_ablation(model, src, tgt, [("encoder.layers.0.self_attn", 4)])


def test_ablation_does_not_leak_between_threads():
    model = tiny_model()
    src, tgt = random_ids(1, 6), random_ids(1, 4, 1)
    plain = model(src, tgt)
    ablated = run_with_ablation(model, src, tgt, [("decoder.layers.0.cross_attn", h) for h in range(4)])
    errors = []
    barrier = threading.Barrier(2)

    def worker(do_ablate):
        for _ in range(25):
            barrier.wait(timeout=10)
            if do_ablate:
                out = run_with_ablation(model, src, tgt, [("decoder.layers.0.cross_attn", h) for h in range(4)])
                ok = torch.equal(out, ablated)
            else:
                ok = torch.equal(model(src, tgt), plain)
            if not ok:
                errors.append(do_ablate)

    threads = [threading.Thread(target=worker, args=(a,)) for a in (True, False)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert errors == []


# -- interventions (run_with_hooks) ----------------------------------------------------------------

def _old_ablation_forward(attn, off):
    """The attention forward as it was before head ablation became a hook on ``z``: the reference."""
    def forward(query, memory, mask, cache=None):
        q = attn._split(attn.w_q(query))
        k = attn._split(attn.w_k(memory))
        v = attn._split(attn.w_v(memory))
        scores = q @ k.transpose(-2, -1) / math.sqrt(attn.d_k)
        if mask is not None:
            scores = scores.masked_fill(~mask, torch.finfo(scores.dtype).min)
        context = torch.softmax(scores, dim=-1) @ v  # (B, H, Tq, d_k)
        keep = torch.ones(attn.n_heads, 1, 1, dtype=context.dtype)
        keep[sorted(off)] = 0.0
        context = context * keep
        b, _, tq, _ = context.shape
        return attn.w_o(context.transpose(1, 2).reshape(b, tq, attn.n_heads * attn.d_k))
    return forward


@pytest.mark.parametrize("block", ["decoder.layers.0.cross_attn", "decoder.layers.1.cross_attn",
                                   "encoder.layers.1.self_attn", "decoder.layers.0.self_attn"])
def test_zeroing_a_head_on_z_is_bit_identical_to_the_old_ablation(block):
    from model.hooks import run_with_hooks

    model = tiny_model()
    src, tgt = random_ids(2, 6), random_ids(2, 4, 1)
    attn = model.get_submodule(block)
    for h in range(model.cfg.n_heads):
        def zero(z, name, h=h):
            z = z.clone()
            z[:, h] = 0
            return z
        hooked = run_with_hooks(model, src, tgt, {f"{block}.z": zero})
        attn.forward = _old_ablation_forward(attn, {h})  # instance attribute: this module only
        try:
            reference = model(src, tgt)
        finally:
            del attn.forward
        assert torch.equal(hooked, reference), (block, h)
        assert torch.equal(run_with_ablation(model, src, tgt, [(block, h)]), reference)
        assert not torch.equal(hooked, model(src, tgt))


def test_a_hook_returning_none_changes_nothing_and_sees_every_point():
    from model.hooks import run_with_hooks

    model = tiny_model()
    src, tgt = random_ids(2, 6), random_ids(2, 4, 1)
    plain = model(src, tgt)
    seen = []
    hooks = {name: (lambda x, name: seen.append((name, tuple(x.shape)))) for name in hook_names(model)}
    assert torch.equal(run_with_hooks(model, src, tgt, hooks), plain)
    assert {n for n, _ in seen} == set(hook_names(model))
    assert dict(seen)["decoder.layers.1.cross_attn.z"] == (2, 4, 4, 4)  # (B, H, T, d_k)
    assert torch.equal(model(src, tgt), plain)  # nothing lingers after the call


def test_patching_the_encoder_output_of_b_into_a_gives_bs_logits():
    from model.hooks import run_with_hooks
    from model.names import act_name

    model = tiny_model()
    a, b = random_ids(1, 6, seed=1), random_ids(1, 6, seed=2)
    tgt = random_ids(1, 5, 1)
    _, cache_b = run_with_cache(model, b, tgt, [act_name("encoder", None, "out")])
    patched = run_with_hooks(model, a, tgt, {"encoder.out": lambda x, name: cache_b[name]})
    assert torch.equal(patched, model(b, tgt))
    assert not torch.allclose(model(a, tgt), model(b, tgt))


def test_threads_patching_different_things_never_see_each_others_hooks():
    from model.hooks import run_with_hooks

    model = tiny_model()
    src, tgt = random_ids(1, 6), random_ids(1, 4, 1)

    def zero_head(h):
        def fn(z, name):
            z = z.clone()
            z[:, h] = 0
            return z
        return fn

    plans = {0: {"decoder.layers.0.cross_attn.z": zero_head(0)},
             1: {"encoder.layers.1.self_attn.z": zero_head(3)},
             2: {"decoder.out": lambda x, name: x * 0.5}}
    want = {w: run_with_hooks(model, src, tgt, plan) for w, plan in plans.items()}
    assert not torch.equal(want[0], want[1]) and not torch.equal(want[1], want[2])
    errors = []
    barrier = threading.Barrier(len(plans))

    def worker(w):
        try:
            for _ in range(25):
                barrier.wait(timeout=10)
                if not torch.equal(run_with_hooks(model, src, tgt, plans[w]), want[w]):
                    errors.append(w)
        except Exception as e:  # surfaced below
            errors.append(repr(e))

    threads = [threading.Thread(target=worker, args=(w,)) for w in plans]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert errors == []


def test_pytorch_hooks_on_a_hook_point_raise_and_name_run_with_hooks():
    model = tiny_model()
    point = model.get_submodule("decoder.layers.0.cross_attn.weights")
    for register in (point.register_forward_hook, point.register_forward_pre_hook, point.register_full_backward_hook):
        with pytest.raises(RuntimeError, match="run_with_hooks"):
            register(lambda *a: None)


def test_hooks_check_names_and_shapes():
    from model.hooks import run_with_hooks

    model = tiny_model()
    src, tgt = random_ids(1, 6), random_ids(1, 4, 1)
    with pytest.raises(KeyError, match="hook_names"):
        run_with_hooks(model, src, tgt, {"decoder.layers.7.cross_attn.z": lambda x, n: None})
    with pytest.raises(ValueError, match="expected a tensor of shape"):
        run_with_hooks(model, src, tgt, {"encoder.out": lambda x, n: x[:, :2]})


def test_act_name_builds_every_hook_name_the_model_has():
    from model.names import act_name

    model = tiny_model()
    built = {"src_embed", "src_pos", "tgt_embed", "tgt_pos", "logits",
             act_name("encoder", None, "out"), act_name("decoder", None, "out")}
    for kind in ("encoder", "decoder", "cross"):
        for layer in range(2):
            built |= {act_name(kind, layer, w) for w in ("q", "k", "v", "scores", "weights", "z", "attn_out")}
            built |= {act_name(kind, layer, w) for w in ("out", "hidden")}
    assert built == set(hook_names(model))
    assert act_name("cross", 1, "weights") == "decoder.layers.1.cross_attn.weights"
    for bad in (("cross", None, "weights"), ("heads", 0, "z"), ("encoder", 0, "nope"), ("encoder", -1, "z")):
        with pytest.raises(ValueError):
            act_name(*bad)
