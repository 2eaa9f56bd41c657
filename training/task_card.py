"""What a translation model trained here says about itself: the task card (config.json "task": examples, hint,
labels) and the data credit (metrics.json "data"), both written when a run finishes."""

from __future__ import annotations

from training.data import CORPORA
from training.mixing import Mix

# Val sentences (kept out of training), everyday and caption mixed, shown as the model's examples; the first is
# translated when the page opens.
EXAMPLES = {
    "tatoeba": ["Do you know the girl standing by the window?", "We went to London last year.",
                "Tom fell and broke his arm."],
    "multi30k": ["A dog is running in the snow.", "Two children are playing football on the beach.",
                 "The woman with the red umbrella walks past a small café."],
}
WHAT = {"tatoeba": "everyday sentences (Tatoeba)", "multi30k": "short picture descriptions (Multi30k)"}


# the reverse model's (German to English, what the quality estimate scores with): the German of the examples above
EXAMPLES_DE = {
    "tatoeba": ["Kennst du das Mädchen, das am Fenster steht?", "Wir sind letztes Jahr nach London gefahren.",
                "Tom ist hingefallen und hat sich den Arm gebrochen."],
    "multi30k": ["Ein Hund rennt im Schnee.", "Zwei Kinder spielen am Strand Fußball.",
                 "Die Frau mit dem roten Regenschirm geht an einem kleinen Café vorbei."],
}


def task_card(mix: Mix, direction: str = "en-de") -> dict:
    names = [n for n in ("tatoeba", "multi30k") if n in mix.weights]
    back = direction == "de-en"
    examples = [e for pair in zip(*((EXAMPLES_DE if back else EXAMPLES)[n] for n in names)) for e in pair]
    hint = "Trained on " + " and ".join(WHAT[n] for n in names) + "; other kinds of text may come out wrong."
    if back:
        return {"source": "German", "target": "English", "input": "a German sentence", "examples": examples,
                "hint": hint}
    return {"source": "English", "target": "German", "input": "an English sentence", "examples": examples, "hint": hint}


def data_credit(mix: Mix, pairs: dict[str, int]) -> list[dict]:
    """One entry a corpus: its training pairs, how often an epoch repeats them, and the credit its licence asks."""
    return [{"corpus": n, "train_pairs": pairs[n], "repeats_per_epoch": mix.weights[n], "credit": CORPORA[n].credit}
            for n in mix.weights]
