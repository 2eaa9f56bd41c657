"""The shipped checkpoints: the toy-reverse model really reverses; en-de really translates."""

from pathlib import Path

import pytest
import torch

from model.checkpoint import load_checkpoint
from model.translator import load_pretrained
from training.toy import make_pairs

CKPT = Path(__file__).resolve().parent.parent / "checkpoints"
TRAIN_SEED = 1234  # the seed training.train used to generate toy-reverse's training pairs


def test_toy_reverse_reverses_fresh_sequences():
    tr = load_pretrained("toy-reverse")
    seen = set(make_pairs("reverse", 20000, TRAIN_SEED)[0])
    src, tgt = make_pairs("reverse", 400, 2026)
    fresh = [(s, t) for s, t in zip(src, tgt) if s not in seen][:100]
    assert len(fresh) == 100
    out = tr.translate_batch([s for s, _ in fresh])
    accuracy = sum(o == t for o, (_, t) in zip(out, fresh)) / len(fresh)
    assert accuracy >= 0.99, accuracy


def test_toy_reverse_cross_attention_is_anti_diagonal():
    tr = load_pretrained("toy-reverse")
    a = tr.analyze("a b c d e f g h")
    n = 8
    last = tr.cfg.n_decoder_layers - 1
    w = a.cache[f"decoder.layers.{last}.cross_attn.weights"][0].mean(0)  # (T, S), heads averaged
    # the query that emits output token i (decoder position i) should look hardest at source token n-1-i
    hits = sum(int(w[i, :n].argmax()) == n - 1 - i for i in range(n))
    assert hits >= n - 1, w


@pytest.mark.skipif(not (CKPT / "en-de" / "model.safetensors").is_file(), reason="en-de not shipped yet")
def test_en_de_translates_and_is_small():
    model, _, _ = load_checkpoint(CKPT / "en-de")
    assert model.num_parameters() <= 10_000_000
    out = load_pretrained("en-de").translate("A dog is running in the snow.")
    assert "Hund" in out and "Schnee" in out, out
    for f in (CKPT / "en-de").iterdir():
        if f.is_file():
            assert f.stat().st_size < 10 * 2**20, f  # a Space stores it without large-file storage


@pytest.mark.skipif(not (CKPT / "en-de" / "reverse" / "model.safetensors").is_file(), reason="en-de has no reverse model")
def test_en_de_reverse_model_translates_back_and_is_small():
    """The quality estimate's reverse model (checkpoints/en-de/reverse) is a German-to-English model on en-de's own
    pieces: it really translates back, and each of its files fits a Space without large-file storage."""
    back = load_pretrained(CKPT / "en-de" / "reverse")
    out = back.translate("Ein Hund rennt im Schnee.")
    assert "dog" in out and "snow" in out, out
    assert load_pretrained("en-de").reverse is not None
    for f in (CKPT / "en-de" / "reverse").iterdir():
        assert f.stat().st_size < 10 * 2**20, f


def test_shipped_weights_are_finite_and_in_eval_mode():
    for name in ("toy-reverse",):
        tr = load_pretrained(name)
        assert not tr.model.training
        assert all(torch.isfinite(p).all() for p in tr.model.parameters())


def test_every_shipped_model_declares_its_task_and_its_examples_work():
    """config.json's task names the languages and input form; each example is an input the model handles (the
    toy's are reversed exactly, en-de's come out German)."""
    from model.translator import available

    for name in available():
        tr = load_pretrained(name)
        task = tr.task
        assert task.source and task.target and task.input and task.examples, name
    toy = load_pretrained("toy-reverse").task
    assert toy.source == "letters" and "space" in toy.input
    for example in toy.examples:
        assert load_pretrained("toy-reverse").translate(example) == " ".join(reversed(example.split())), example
    if "en-de" in available():
        task = load_pretrained("en-de").task
        assert (task.source, task.target) == ("English", "German")
        assert all(load_pretrained("en-de").translate(e) for e in task.examples)


def test_a_bad_task_section_names_the_file(tmp_path):
    import json
    import shutil

    from model.checkpoint import CheckpointError, load_task
    from model.task import Task

    assert Task.from_dict(None) == Task()  # no section: English -> German
    folder = tmp_path / "m"
    shutil.copytree(CKPT / "toy-reverse", folder)
    config = json.loads((folder / "config.json").read_text())
    for bad in ({"examples": "a b c"}, {"examples": [3]}, {"source": 1}, {"language": "x"}, ["a"]):
        (folder / "config.json").write_text(json.dumps({**config, "task": bad}))
        with pytest.raises(CheckpointError, match="config.json"):
            load_task(folder)


def test_analyze_records_no_autograd_graph():
    """analyze() runs under inference mode: its captured tensors carry no autograd graph, which would cost time and
    memory on every translation (a decorator once slid onto the method above it without any other test noticing)."""
    import torch

    from model.translator import load_pretrained

    a = load_pretrained("toy-reverse").analyze("a b c")
    assert all(t.is_inference() and not t.requires_grad for t in a.cache.values())
    assert not torch.is_inference_mode_enabled()  # and only inside the call
