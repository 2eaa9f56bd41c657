"""Checkpoint folders: a briefly trained tiny model round-trips; broken files are refused by name."""

import json
import random
import shutil
import sys
from pathlib import Path

import processes
import pytest
import torch

from model.checkpoint import CONFIG, SPM, WEIGHTS, CheckpointError, load_checkpoint
from model.translator import DecodeOptions, Translator, load_pretrained
from training.data import DEFAULT_DATA_DIR, read_split
from training.train import main as train_main

ROOT = Path(__file__).resolve().parent.parent
# the tiny model keeps the settings it was tuned with (float32, attention dropout, short warm-up): its storage test
# compares argmaxes, which a barely trained model in bfloat16 leaves too close to call
OLD_RECIPE = ["--precision", "float32", "--attention-dropout", "0.1", "--warmup", "400"]


def _made_up_pairs(n: int, seed: int) -> tuple[list[str], list[str]]:
    """n sentence pairs of a made-up language pair: 150 pseudo-words, each with its own "German" word.

    Enough distinct multi-letter words for the 400-piece vocabulary the tests ask for (letters alone
    give SentencePiece at most ~300 pieces), and a target that depends on the source word by word.
    """
    lex = random.Random(0)

    def word() -> str:
        return "".join(lex.choice("bdfgklmnprstvz") + lex.choice("aeiou") for _ in range(lex.randint(2, 4)))

    english = sorted({word() for _ in range(150)})
    german = {w: word().capitalize() for w in english}
    rng = random.Random(seed)
    en, de = [], []
    for _ in range(n):
        words = [rng.choice(english) for _ in range(rng.randint(3, 9))]
        en.append(" ".join(words) + ".")
        de.append(" ".join(german[w] for w in words) + ".")
    return en, de


def _write_data(folder: Path, n: int = 300) -> None:
    """A few hundred real Multi30k pairs when the data folder is there (training.data), else made-up ones."""
    folder.mkdir()
    if DEFAULT_DATA_DIR.is_dir():
        train, val = read_split(None, "train"), read_split(None, "val")
        train, val = (train[0][:n], train[1][:n]), (val[0][:40], val[1][:40])
    else:
        train, val = _made_up_pairs(n, 1), _made_up_pairs(40, 2)
    for split, (en, de) in (("train", train), ("val", val)):
        (folder / f"{split}.en").write_text("\n".join(en) + "\n")
        (folder / f"{split}.de").write_text("\n".join(de) + "\n")


@pytest.fixture(scope="module")
def tiny_ckpt(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("ckpt")
    _write_data(base / "data")
    out = base / "tiny"
    rc = train_main(["--mix", "multi30k", "--data-dir", str(base / "data"), "--out", str(out), "--vocab-size", "400",
                     "--d-model", "32",
                     "--n-heads", "2", "--d-ff", "64", "--layers", "1", "--epochs", "2", "--max-tokens", "600",
                     "--average", "2", "--threads", "1", "--log-every", "1000", "--max-len", "128",
                     *OLD_RECIPE])
    assert rc == 0
    return out


def test_trained_checkpoint_loads_back_and_translates(tiny_ckpt):
    for name in (WEIGHTS, CONFIG, SPM, "metrics.json", "train_log.csv"):
        assert (tiny_ckpt / name).is_file(), name
    log = (tiny_ckpt / "train_log.csv").read_text().splitlines()
    assert log[0] == "step,epoch,loss,lr,val_loss" and len(log) >= 3
    model, tok, training = load_checkpoint(tiny_ckpt)
    assert tok.vocab_size == 400  # the --vocab-size asked for
    assert training["epochs_run"] == 2 and training["averaged"] == ["epoch_001", "epoch_002"]
    assert model.num_parameters() == json.loads((tiny_ckpt / "metrics.json").read_text())["parameters"]
    tr = Translator(model, tok)
    out = tr.translate("A man is riding a bike.")
    assert isinstance(out, str)
    assert tr.translate_batch(["A man is riding a bike.", "", "Two dogs."]) == [out, "", tr.translate("Two dogs.")]
    a = tr.analyze("A man is riding a bike.", DecodeOptions("beam", beam_size=3))
    assert a.src_tokens[-1] == "</s>" and a.tgt_tokens[0] == "<s>"
    assert a.cache["decoder.layers.0.cross_attn.weights"].shape[-2:] == (len(a.tgt_ids), len(a.src_ids))


def test_resume_continues_where_it_stopped(tiny_ckpt, tmp_path):
    out = tmp_path / "resumed"
    shutil.copytree(tiny_ckpt, out)
    args = ["--mix", "multi30k", "--data-dir", str(tiny_ckpt.parent / "data"), "--out", str(out), "--vocab-size", "400",
            "--d-model", "32",
            "--n-heads", "2", "--d-ff", "64", "--layers", "1", "--epochs", "3", "--max-tokens", "600", "--average", "2",
            "--threads", "1", "--log-every", "1000", "--max-len", "128", "--resume", *OLD_RECIPE]
    assert train_main(args) == 0
    training = json.loads((out / CONFIG).read_text())["training"]
    assert training["epochs_run"] == 3 and training["averaged"] == ["epoch_002", "epoch_003"]
    rows = (out / "train_log.csv").read_text().splitlines()[1:]
    assert [r.split(",")[1] for r in rows if r.split(",")[-1]] == ["1", "2", "3"]  # one validation row per epoch


def _broken(tiny_ckpt, tmp_path, name, mutate) -> Path:
    bad = tmp_path / "bad"
    shutil.copytree(tiny_ckpt, bad, ignore=shutil.ignore_patterns("work"))
    mutate(bad / name)
    return bad


def _truncate(p: Path):
    p.write_bytes(p.read_bytes()[: p.stat().st_size // 2])


def _flip_header(p: Path):
    data = bytearray(p.read_bytes())
    data[8:40] = b"\xff" * 32  # inside the JSON header
    p.write_bytes(bytes(data))


def _pickle_in_disguise(p: Path):
    torch.save({"embedding.weight": torch.zeros(3)}, p)  # a pickle file under the safetensors name


def _mismatch(p: Path):
    cfg = json.loads(p.read_text())
    cfg["model"]["d_model"] = 64
    p.write_text(json.dumps(cfg))


def _unknown_field(p: Path):
    cfg = json.loads(p.read_text())
    cfg["model"]["n_experts"] = 8
    p.write_text(json.dumps(cfg))


def _vocab_mismatch(p: Path):
    cfg = json.loads(p.read_text())
    cfg["model"]["vocab_size"] += 1
    p.write_text(json.dumps(cfg))


def _nan(p: Path):
    from safetensors.torch import load_file, save_file

    state = load_file(str(p))
    state["encoder.layers.0.ffn.w_1.weight"][0, 0] = float("nan")
    save_file(state, str(p))


@pytest.mark.parametrize(
    "name, mutate, culprit",
    [
        (WEIGHTS, _truncate, WEIGHTS),
        (WEIGHTS, _flip_header, WEIGHTS),
        (WEIGHTS, _pickle_in_disguise, WEIGHTS),
        (WEIGHTS, Path.unlink, WEIGHTS),
        (WEIGHTS, _nan, WEIGHTS),
        (CONFIG, _mismatch, WEIGHTS),
        (CONFIG, _vocab_mismatch, SPM),
        (CONFIG, _unknown_field, CONFIG),
        (CONFIG, lambda p: p.write_text("{not json"), CONFIG),
        (CONFIG, Path.unlink, CONFIG),
        (SPM, _truncate, SPM),
        (SPM, lambda p: p.write_bytes(b"garbage"), SPM),
    ],
    ids=["weights-truncated", "weights-header", "weights-pickle", "weights-missing", "weights-nan",
         "config-shape-mismatch", "config-vocab-mismatch", "config-unknown-field", "config-bad-json",
         "config-missing", "spm-truncated", "spm-garbage"],
)
def test_broken_checkpoint_is_refused_naming_the_file(tiny_ckpt, tmp_path, name, mutate, culprit):
    bad = _broken(tiny_ckpt, tmp_path, name, mutate)
    with pytest.raises(CheckpointError) as err:
        load_checkpoint(bad)
    assert str(bad / culprit) in str(err.value)


def test_load_pretrained_unknown_name():
    with pytest.raises(CheckpointError, match="no checkpoint 'nope'"):
        load_pretrained("nope")


def test_translate_cli_keeps_lines_and_order(tiny_ckpt):
    lines = ["A man is riding a bike.", "", "Two dogs play in the grass.", "   ", "A girl.", ""]
    proc = processes.run(
        [sys.executable, "-m", "model.translate", "--checkpoint", str(tiny_ckpt), "--threads", "1", "--batch-size", "2"],
        input="\n".join(lines) + "\n", capture_output=True, text=True, cwd=ROOT, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.split("\n")
    assert out[-1] == "" and len(out) - 1 == len(lines)
    tr = Translator(*load_checkpoint(tiny_ckpt)[:2])
    assert out[:-1] == [tr.translate(line) for line in lines]  # same order as one-by-one
    assert out[1] == out[3] == out[5] == ""
    bad = processes.run([sys.executable, "-m", "model.translate", "--checkpoint", "/no/such/folder"],
                        input="x\n", capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert bad.returncode == 2 and "/no/such/folder" in bad.stderr and "Traceback" not in bad.stderr


def test_missing_data_dir_says_where_to_get_it(tmp_path, capsys):
    rc = train_main(["--data-dir", str(tmp_path / "none"), "--out", str(tmp_path / "o")])
    assert rc == 2
    assert "github.com/multi30k/dataset" in capsys.readouterr().err


@pytest.mark.parametrize("dtype", ["float16", "int8"])
def test_smaller_storage_round_trips(tiny_ckpt, tmp_path, dtype):
    from model.checkpoint import save_checkpoint

    model, tok, training = load_checkpoint(tiny_ckpt)
    save_checkpoint(tmp_path / "small", model, tok, training, dtype=dtype)
    small, _, _ = load_checkpoint(tmp_path / "small")
    assert (tmp_path / "small" / WEIGHTS).stat().st_size < 0.6 * (tiny_ckpt / WEIGHTS).stat().st_size
    src, tgt = torch.tensor([[5, 6, 7, 3]]), torch.tensor([[2, 8, 9]])
    ref, got = model(src, tgt), small(src, tgt)
    assert (got - ref).abs().max() < 0.05 * ref.abs().max()
    assert torch.equal(got.argmax(-1), ref.argmax(-1))


def test_int8_without_scales_is_refused(tiny_ckpt, tmp_path):
    from safetensors.torch import load_file, save_file

    from model.checkpoint import SCALE, save_checkpoint, seal

    model, tok, training = load_checkpoint(tiny_ckpt)
    save_checkpoint(tmp_path / "q", model, tok, training, dtype="int8")
    path = tmp_path / "q" / WEIGHTS
    state = load_file(str(path))
    del state["embedding.weight" + SCALE]
    save_file(state, str(path))
    seal(tmp_path / "q")  # sealed as it is now: the scale check itself must refuse it, not the recorded hash
    with pytest.raises(CheckpointError, match="embedding.weight"):
        load_checkpoint(tmp_path / "q")


def test_compress_keeps_the_task_and_reseals(tiny_ckpt, tmp_path):
    """training.compress rewrites config.json: the task (languages, examples) must survive and the seal must match."""
    import json
    import shutil

    from model.checkpoint import load_task
    from training.compress import main as compress_main

    folder = tmp_path / "c"
    shutil.copytree(tiny_ckpt, folder)
    config = json.loads((folder / CONFIG).read_text())
    config["task"] = {"source": "English", "target": "German", "input": "an English sentence",
                      "examples": ["A dog runs."], "hint": "captions"}
    (folder / CONFIG).write_text(json.dumps(config))
    assert compress_main(["--checkpoint", str(folder), "--dtype", "int8"]) == 0
    assert load_task(folder).examples == ("A dog runs.",)
    load_checkpoint(folder)  # the new weights match the new seal


def test_compress_after_retraining_uses_the_new_weights(tiny_ckpt, tmp_path):
    """A folder compressed once keeps its float32 original in work/; new float32 weights written there later (a
    model retrained or averaged into the same folder) must be what the next compression starts from, not that
    stale copy. Compressing an already-compressed folder still starts from the kept original."""
    import shutil

    from model.checkpoint import save_checkpoint
    from training.compress import main as compress_main

    folder = tmp_path / "c"
    shutil.copytree(tiny_ckpt, folder)
    assert compress_main(["--checkpoint", str(folder), "--dtype", "int8"]) == 0
    model, tok, training = load_checkpoint(folder)
    with torch.no_grad():
        for p in model.parameters():
            p.add_(0.5)  # far beyond int8 rounding
    save_checkpoint(folder, model, tok, training)  # float32: "retrained"
    new = {k: v.clone() for k, v in model.state_dict().items()}
    assert compress_main(["--checkpoint", str(folder), "--dtype", "int8"]) == 0
    assert compress_main(["--checkpoint", str(folder), "--dtype", "int8"]) == 0  # again, from the kept copy
    got = load_checkpoint(folder)[0].state_dict()
    for k, v in new.items():
        assert torch.allclose(got[k], v, atol=0.05), k  # int8 of the new weights, not of the old ones
