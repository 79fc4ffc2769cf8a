"""Recorded LLM answers: ``--record FILE`` with a real model, ``replay:FILE`` offline.

A cassette maps a hash of (model, messages) to the model's answer. It holds no keys or secrets:
only the model's name, the answers, and hashes of the prompts. Cases are deterministic, so a
replay sends the same prompts and gets the same answers: it reproduces the run exactly.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from claw.common.files import atomic_write
from claw.eval.exceptions import CassetteError, CassetteMiss
from claw.planner.text import read_json_file


def key(model: str, messages: list[dict[str, str]]) -> str:
    """The cassette key of a request: sha256 of the model and the messages."""
    text = json.dumps({"model": model, "messages": messages}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


class Cassette:
    """Answers by request key, loaded from and saved to a JSON file."""

    def __init__(self, path: str | Path, model: str | None = None) -> None:
        self.path = Path(path)
        self.model = model or ""
        self.answers: dict[str, str] = {}
        if self.path.exists():
            try:
                data = read_json_file(self.path)
                self.model = model or str(data.get("model", ""))
                self.answers = {str(k): str(v) for k, v in dict(data.get("answers", {})).items()}
            except (OSError, ValueError, TypeError, AttributeError) as exc:
                raise CassetteError(
                    f"cassette {str(self.path)!r} cannot be read: {type(exc).__name__}: "
                    f"{str(exc).splitlines()[0] if str(exc) else 'not a cassette'}"
                ) from None

    def add(self, messages: list[dict[str, str]], answer: str) -> None:
        self.answers[key(self.model, messages)] = answer

    def answer(self, messages: list[dict[str, str]]) -> str:
        found = self.answers.get(key(self.model, messages))
        if found is None:
            raise CassetteMiss(
                f"cassette {self.path} has no answer for this request (was it recorded with "
                "the same suite, scene and code?)"
            )
        return found

    def save(self) -> None:
        data: dict[str, Any] = {"model": self.model, "answers": dict(sorted(self.answers.items()))}
        atomic_write(self.path, json.dumps(data, indent=1).encode())
