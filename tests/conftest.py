import os
import shutil
import signal
import tempfile
import time

import pytest
import torch
from processes import SUITE_MARK, suite_processes

from model.config import ModelConfig
from model.transformer import Transformer

# a run in pytest-xdist workers (pyproject.toml runs two): this worker's name ("gw0"), else None (one process, or the
# workers' controller, which runs no test: whatever it sets here, its workers start with)
WORKER = os.environ.get("PYTEST_XDIST_WORKER")
WORKERS = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
# Every process the suite starts inherits this mark, also one its parent no longer waits for (a server's Node
# process, a browser): at the end, any still alive fails the run (pytest_sessionfinish). Set, not defaulted: a
# pytest run inside a test checks its own.
os.environ[SUITE_MARK] = str(os.getpid())
# class rooms in a SQLite file of this run's own (explorer/classroom/store.py), removed at the end
# (a worker's own, set, not defaulted: it inherits its controller's, which two workers would share)
ROOMS_FILE = os.path.join(tempfile.mkdtemp(prefix="ae-rooms-"), "rooms.sqlite3")
(os.environ.__setitem__ if WORKER else os.environ.setdefault)("ATTENTION_EXPLORER_ROOMS", ROOMS_FILE)
# Gradio's cache and the app's exports in a folder of this run's own, removed at the end: an export sweeps its folder
# (explorer/serving/exports.py), and another app on the machine exporting into the shared <tmp>/gradio made
# test_exports_do_not_accumulate count its files (an audit's server beside the suite)
GRADIO_TEMP = tempfile.mkdtemp(prefix="ae-gradio-")
(os.environ.__setitem__ if WORKER else os.environ.setdefault)("GRADIO_TEMP_DIR", GRADIO_TEMP)
# training and distilling in tests run on the CPU also on a machine with a GPU (the same numbers everywhere)
os.environ["ATTENTION_EXPLORER_DEVICE"] = "cpu"  # set, not defaulted: a test asks for cuda in its own flags
LEFTOVER_GRACE_S = 5.0  # a process killed at a test's end may take a moment to go
LEFTOVERS = pytest.StashKey[dict]()  # {pid: command line} of those still alive at the end

TINY = dict(vocab_size=100, d_model=16, n_heads=4, d_ff=32, n_encoder_layers=2, n_decoder_layers=2, max_len=64)


@pytest.fixture(autouse=True, scope="module")
def _room_limits_afresh():
    """Each test module serves its own app, a new server to the class rooms' per-address limits: the suite opens more
    rooms from 127.0.0.1 than one address may in an hour (rooms.ROOMS_PER_HOUR, 20), and the process's ROOMS keeps
    its rate tables across modules (its last modules' "Teach a class" got 429 once the suite passed 20 rooms)."""
    from explorer.classroom import rooms

    for name, n, window in (("opens", rooms.ROOMS_PER_HOUR, 3600), ("joins", rooms.JOINS_PER_MIN, 60),
                            ("misses", rooms.MISSES_PER_MIN, 60)):
        setattr(rooms.ROOMS, name, rooms.Rate(n, window))
    # ... and every teacher of the suite is at 127.0.0.1, their rooms left open: no cap on the rooms one address holds
    # open at once here (tests/test_room_abuse.py sets it to test it)
    held, rooms.OPEN_PER_ADDRESS = rooms.OPEN_PER_ADDRESS, 10**6
    yield
    rooms.OPEN_PER_ADDRESS = held


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


def pytest_configure(config):
    """torch's threads: TORCH_THREADS, else the cores shared among the run's workers, at most 2 (two workers of two
    threads each would oversubscribe two cores); app.py, which the tests import, reads the same. Not in the workers'
    controller, which runs no test: what it set would be its workers' TORCH_THREADS."""
    if getattr(config.option, "numprocesses", None) and not hasattr(config, "workerinput"):
        return
    os.environ["TORCH_THREADS"] = os.environ.get("TORCH_THREADS") or str(max(1, min(2, (os.cpu_count() or 2) // WORKERS)))
    torch.set_num_threads(int(os.environ["TORCH_THREADS"]))


def pytest_sessionfinish(session, exitstatus):
    """After the last fixture is torn down: every process the suite started must have ended. Any still alive after
    a short grace fails the run, is named in the summary, and is killed. A worker hands those it found to the
    controller (pytest_testnodedown), whose summary and exit status are the run's."""
    deadline = time.monotonic() + LEFTOVER_GRACE_S
    while (left := suite_processes()) and time.monotonic() < deadline:
        time.sleep(0.2)
    for pid in left:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    if hasattr(session.config, "workeroutput"):
        session.config.workeroutput["ae_leftovers"] = {str(pid): cmd for pid, cmd in left.items()}
    left = {**session.config.stash.get(LEFTOVERS, {}), **{str(pid): cmd for pid, cmd in left.items()}}
    if not left:
        return
    session.config.stash[LEFTOVERS] = left
    if session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    """(the controller) a worker's leftovers, for the run's summary and exit status (pytest_sessionfinish)"""
    left = (getattr(node, "workeroutput", None) or {}).get("ae_leftovers")
    if left:
        node.config.stash[LEFTOVERS] = {**node.config.stash.get(LEFTOVERS, {}), **left}


def pytest_terminal_summary(terminalreporter):
    left = terminalreporter.config.stash.get(LEFTOVERS, None)
    if left:
        terminalreporter.section("processes the suite started and left running", red=True)
        for pid, cmd in left.items():
            terminalreporter.line(f"pid {pid}: {cmd[:300]}", red=True)
        terminalreporter.line(f"{len(left)} process(es) alive {LEFTOVER_GRACE_S:.0f} s after the last test; killed "
                              "now. Each test must end what it starts (tests/processes.py).", red=True)


def pytest_unconfigure(config):
    shutil.rmtree(os.path.dirname(ROOMS_FILE), ignore_errors=True)
    shutil.rmtree(GRADIO_TEMP, ignore_errors=True)
