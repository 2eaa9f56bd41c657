"""The shipped en-de's recorded quality is its own: Tatoeba val and Multi30k val are translated again (greedy) and
scored with sacreBLEU, and the figures must be the ones metrics.json (and README) report. Skipped without the data."""

import json
from pathlib import Path

import pytest

from model.translator import load_pretrained
from training.data import CORPORA
from training.evaluate import quality_table

ROOT = Path(__file__).resolve().parent.parent
EN_DE = ROOT / "checkpoints" / "en-de"


@pytest.mark.parametrize("corpus", ["tatoeba", "multi30k"])
def test_recorded_val_bleu_is_recomputed_from_the_models_own_outputs(corpus):
    if not CORPORA[corpus].default_dir.is_dir():
        pytest.skip(f"{corpus} data not found at {CORPORA[corpus].default_dir}")
    recorded = json.loads((EN_DE / "metrics.json").read_text())["bleu"][f"{corpus}/val.greedy"]
    tr = load_pretrained("en-de")
    rows = quality_table(tr, {}, only=[(corpus, "val")])
    got = rows[f"{corpus}/val.greedy"]
    assert got["sentences"] == recorded["sentences"] > 1000
    assert got["signature"] == recorded["signature"] and got["chrf_signature"] == recorded["chrf_signature"]
    assert abs(got["bleu"] - recorded["bleu"]) <= 0.05, (got["bleu"], recorded["bleu"])
    assert abs(got["chrf"] - recorded["chrf"]) <= 0.05, (got["chrf"], recorded["chrf"])


def test_the_model_card_credits_every_corpus_it_was_trained_on():
    metrics = json.loads((EN_DE / "metrics.json").read_text())
    config = json.loads((EN_DE / "config.json").read_text())
    corpora = [d["corpus"] for d in metrics["data"]]
    mix = config["training"].get("mix", "multi30k")
    assert corpora == [part.split(":")[0] for part in mix.split(",")]
    for d in metrics["data"]:
        assert d["credit"] == CORPORA[d["corpus"]].credit and d["train_pairs"] > 1000
