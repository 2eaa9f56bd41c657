"""What a checkpoint translates, for the people using it: config.json's optional "task" section.

The app labels its text box, its heatmaps' subtitles and its examples from it, so that a model with its own input
form (toy-reverse reverses letters separated by spaces) is not shown an English sentence and German labels.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

MAX_EXAMPLES = 20


@dataclass(frozen=True)
class Task:
    source: str = "English"  # what the encoder reads ("English", "letters")
    target: str = "German"  # what the decoder writes
    input: str = "an English sentence"  # what to type, as a phrase: "Type {input}."
    examples: tuple[str, ...] = field(default_factory=tuple)  # clicked to translate; the first is shown on load
    hint: str = ""  # one line shown under the text box

    @classmethod
    def from_dict(cls, data: Any, where: str = "task") -> Task:
        if data is None:
            return cls()
        if not isinstance(data, dict):
            raise ValueError(f"{where} must be an object")
        unknown = set(data) - {"source", "target", "input", "examples", "hint"}
        if unknown:
            raise ValueError(f"{where} has unknown keys {sorted(unknown)}")
        for key in ("source", "target", "input", "hint"):
            if key in data and not isinstance(data[key], str):
                raise ValueError(f"{where}.{key} must be a string")
        examples = data.get("examples", [])
        if not isinstance(examples, list) or not all(isinstance(e, str) and e.strip() for e in examples):
            raise ValueError(f"{where}.examples must be a list of non-empty strings")
        if len(examples) > MAX_EXAMPLES:
            raise ValueError(f"{where}.examples holds {len(examples)} sentences; at most {MAX_EXAMPLES}")
        return cls(**{k: v for k, v in data.items() if k != "examples"}, examples=tuple(examples))

    def to_dict(self) -> dict[str, Any]:
        return {"source": self.source, "target": self.target, "input": self.input, "examples": list(self.examples),
                "hint": self.hint}


def read_task(config: dict[str, Any], path: Path) -> Task:
    """config.json's "task" (a default English -> German task when there is none)."""
    return Task.from_dict(config.get("task"), f"{path}: task")
