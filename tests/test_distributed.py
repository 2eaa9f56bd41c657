"""Training on several processes with PyTorch's DistributedDataParallel (gloo on CPU), as README shows it:
two processes under torchrun end with the weights one process reaches on the same global batches."""

import json
import socket
import sys
from pathlib import Path

import processes
import pytest
from safetensors.torch import load_file

ROOT = Path(__file__).resolve().parent.parent
ARGS = ["--task", "reverse", "--train-limit", "400", "--vocab-size", "313", "--d-model", "32", "--n-heads", "2",
        "--d-ff", "64", "--layers", "1", "--epochs", "1", "--max-tokens", "400", "--dropout", "0",
        "--attention-dropout", "0", "--average", "1", "--threads", "1", "--log-every", "3", "--max-len", "128",
        "--warmup", "20", "--precision", "float32"]  # float32: bfloat16 rounds a shard differently from the whole
# The key projection's bias has an exact gradient of zero (softmax ignores a shift that is the same for every key:
# q . b_k), so both runs only see float noise there, which Adam divides by its own size into steps of +-lr.
NOISE_ONLY = ".w_k.bias"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(cmd: list[str]) -> None:
    proc = processes.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-1500:] + proc.stderr[-1500:]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    base = tmp_path_factory.mktemp("ddp")
    run([sys.executable, "-m", "training.train", *ARGS, "--out", str(base / "one")])
    run([sys.executable, "-m", "torch.distributed.run", "--nproc_per_node=2", "--master_addr=127.0.0.1",
         f"--master_port={free_port()}", "-m", "training.train", *ARGS, "--out", str(base / "two")])
    return base / "one", base / "two"


def test_two_processes_end_with_the_weights_of_one(runs):
    one, two = (load_file(str(p / "model.safetensors")) for p in runs)
    assert set(one) == set(two)
    steps = [json.loads((p / "config.json").read_text())["training"] for p in runs]
    assert steps[0]["steps"] == steps[1]["steps"] >= 5 and (steps[0]["processes"], steps[1]["processes"]) == (1, 2)
    moved = max((one[k] - load_file(str(runs[0] / "work" / "epoch_001.safetensors"))[k]).abs().max().item()
                for k in one)
    assert moved == 0  # the checkpoint is the epoch's weights (average of 1)
    diffs = {k: (one[k] - two[k]).abs().max().item() for k in one}
    worst = max((d, k) for k, d in diffs.items() if not k.endswith(NOISE_ONLY))
    assert worst[0] <= 1e-5, worst
    assert any(k.endswith(NOISE_ONLY) for k in diffs)


def test_only_rank_0_writes_and_both_logs_agree(runs):
    one, two = runs
    log_one = (one / "train_log.csv").read_text().splitlines()
    log_two = (two / "train_log.csv").read_text().splitlines()
    assert log_one[0] == log_two[0] == "step,epoch,loss,lr,val_loss"
    assert len(log_one) == len(log_two) >= 3  # no second writer: no duplicated rows
    for a, b in zip(log_one[1:], log_two[1:]):
        ra, rb = a.split(","), b.split(",")
        assert ra[0] == rb[0] and ra[3] == rb[3]  # step, lr
        for x, y in ((ra[2], rb[2]), (ra[4], rb[4])):
            if x:
                assert abs(float(x) - float(y)) <= 2e-4, (a, b)  # loss on all ranks' tokens, 4 decimals


def torchrun(args: list[str]) -> None:
    run([sys.executable, "-m", "torch.distributed.run", "--nproc_per_node=2", "--master_addr=127.0.0.1",
         f"--master_port={free_port()}", "-m", "training.train", *args])


def test_resume_under_two_processes_continues_the_same_run(tmp_path):
    """Two processes stopped after epoch 1 and resumed for epoch 2 end where two processes running both epochs
    straight end: the optimizer state, the step and the log come back from rank 0's resume files."""
    two_epochs = [a if a != "1" or ARGS[i - 1] != "--epochs" else "2" for i, a in enumerate(ARGS)]
    torchrun([*two_epochs, "--out", str(tmp_path / "straight")])
    torchrun([*ARGS, "--out", str(tmp_path / "resumed")])  # epoch 1 only
    torchrun([*two_epochs, "--out", str(tmp_path / "resumed"), "--resume"])
    straight, resumed = (load_file(str(tmp_path / p / "model.safetensors")) for p in ("straight", "resumed"))
    diffs = {k: (straight[k] - resumed[k]).abs().max().item() for k in straight}
    worst = max((d, k) for k, d in diffs.items() if not k.endswith(NOISE_ONLY))
    assert worst[0] <= 1e-5, worst
    cfgs = [json.loads((tmp_path / p / "config.json").read_text())["training"] for p in ("straight", "resumed")]
    assert cfgs[0]["steps"] == cfgs[1]["steps"] and cfgs[1]["epochs_run"] == 2
    logs = [(tmp_path / p / "train_log.csv").read_text().splitlines() for p in ("straight", "resumed")]
    assert [r.split(",")[:2] for r in logs[0]] == [r.split(",")[:2] for r in logs[1]]  # one log, no repeated rows
