"""Robustness: concurrent mixed requests equal the same requests one by one; a broken checkpoint stops start-up."""

import os
import shutil
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import processes
import pytest
from app_server import MODEL, served
from gradio_client import Client

from explorer.serving.store import STORE

ROOT = Path(__file__).resolve().parent.parent
if MODEL == "en-de":
    TEXTS = ["A dog runs.", "Two women are talking.", "A man rides a bike down the street.", "Children play in a park.",
             "A girl in a red dress is dancing.", "The old man sits on a bench.", "People are waiting for the bus.",
             "A black cat sleeps on the sofa."]
else:
    TEXTS = ["a b c", "d e f g", "h i", "j k l m n", "o p q", "r s t", "a a b", "c d"]


def jobs():
    """32 mixed requests: sentences x (greedy, beam, seeded sampling, ablation)."""
    out = []
    for i in range(32):
        text, mode = TEXTS[i % len(TEXTS)], i % 4
        if mode == 0:
            out.append(("/translate", (text, "greedy", 4, 0.6, 1.0, 0, 1.0, 0, 60, MODEL)))
        elif mode == 1:
            out.append(("/translate", (text, "beam", 3 + i % 3, 0.6, 1.0, 0, 1.0, 0, 60, MODEL)))
        elif mode == 2:
            out.append(("/translate", (text, "sample", 4, 0.6, 1.3, 20, 0.9, i, 60, MODEL)))
        else:
            out.append(("/ablate", (text, "greedy", 4, 0.6, 1.0, 0, 1.0, 0, 60, MODEL, ["cross L0 H0", f"enc-self L1 H{i % 4}"])))
    return out


@pytest.fixture(scope="module")
def url():
    with served() as (_, url):
        yield url


def test_32_concurrent_mixed_requests_equal_one_by_one(url):
    STORE.clear()
    client = Client(url, verbose=False)
    work = jobs()
    with ThreadPoolExecutor(32) as pool:
        futures = [pool.submit(Client(url, verbose=False).predict, *args, api_name=api) for api, args in work]
        concurrent = [f.result(timeout=300) for f in futures]
    STORE.clear()  # one by one from scratch, not from the analyses the concurrent run cached
    for (api, args), got in zip(work, concurrent):
        alone = client.predict(*args, api_name=api)
        if api == "/ablate":
            assert got[0] == alone[0], args
        else:
            assert got == alone, args


def test_broken_checkpoint_stops_start_up_naming_the_file(tmp_path):
    shutil.copytree(ROOT / "checkpoints" / "toy-reverse", tmp_path / "toy-reverse",
                    ignore=shutil.ignore_patterns("work"))
    weights = tmp_path / "toy-reverse" / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:1000])  # truncated
    env = {**os.environ, "ATTENTION_EXPLORER_CHECKPOINTS": str(tmp_path), "GRADIO_SERVER_PORT": "0"}
    proc = processes.run([sys.executable, "app.py"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1
    assert str(weights) in proc.stderr and "Traceback" not in proc.stderr
