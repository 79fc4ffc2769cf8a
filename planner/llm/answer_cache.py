"""Model answers kept on disk, so that a repeated instruction costs no call.

An answer is kept under ``$CLAW_HOME/cache/answers/`` (beside the skill library), one JSON file
per request, named by a hash of what decides the answer: the model and where it is asked, the
prompt version (a hash of ``prompts/``' templates, :func:`prompt_version`), how it is asked (mode,
structure, temperature, answer length, the plan's schema) and the first request's messages —
the instruction and the scene as the model is shown it (its signature: every object and where
it is, what is held), the skills and composites offered. Only an answer the validator accepted
(or a model's refusal) is kept; a rejected one never is. A kept answer is validated again
against the live scene when it is reused; one that no longer validates, or a file that cannot be
read (damaged, another version, another key), is ignored and replaced by the next answer.
Writes are atomic (a temporary file renamed); a home that cannot be written costs only the
keeping. ``--no-cache`` or ``CLAW_ANSWER_CACHE=off`` turn it off; ``claw cache clear`` empties it.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from claw.common.files import atomic_write, cache_dir
from claw.planner.exceptions import CacheSettingError
from claw.planner.text import read_json_file

logger = logging.getLogger(__name__)
CACHE_ENV = "CLAW_ANSWER_CACHE"
"""``off`` (or ``0``) keeps and reuses no answer; ``on`` (or ``1``, or unset) does."""
CACHE_FORMAT = 1
"""The version of an entry's layout; an entry of another is ignored."""
MAX_ENTRY_BYTES = 8 * 2**20
"""The largest entry read (an answer is at most 1,000,000 characters)."""


class CachedAnswer(BaseModel):
    """One kept answer: what the model said to a request, and what asking it cost then."""

    model_config = ConfigDict(extra="forbid")

    format: int = CACHE_FORMAT
    key: str
    model: str
    instruction: str
    answer: str
    prompt_tokens: int = 0
    completion_tokens: int = 0


def cache_enabled() -> bool:
    """Whether answers are kept and reused, as ``CLAW_ANSWER_CACHE`` says (on when unset).

    Raises:
        CacheSettingError: a value other than on, off, 1 or 0.
    """
    value = os.environ.get(CACHE_ENV, "").strip().lower()
    if value in ("", "on", "1"):
        return True
    if value in ("off", "0"):
        return False
    raise CacheSettingError(f"{CACHE_ENV} is on or off (1 or 0), not {value[:40]!r}")


def cache_folder() -> Path:
    """``$CLAW_HOME/cache/answers`` (``~/.claw/cache/answers`` where ``CLAW_HOME`` is unset)."""
    return cache_dir("answers")


@cache
def prompt_version() -> str:
    """A hash of every prompt template (``prompts/*.md``, names and text) and of the entry
    format: it changes whenever a prompt does."""
    digest = hashlib.sha256(f"format {CACHE_FORMAT}".encode())
    folder = resources.files("claw.prompts")
    for item in sorted(folder.iterdir(), key=lambda item: item.name):
        if item.name.endswith(".md"):
            digest.update(item.name.encode() + b"\0" + item.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def request_key(**fields: Any) -> str:
    """The key of a request: sha256 of ``fields`` (JSON, keys sorted) and the prompt version."""
    text = json.dumps({"prompts": prompt_version(), **fields}, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


class AnswerCache:
    """The answers kept in ``folder`` (default :func:`cache_folder`), by request key."""

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = folder if folder is not None else cache_folder()

    def path(self, key: str) -> Path:
        """The file of ``key``'s answer."""
        return self.folder / f"{key}.json"

    def get(self, key: str) -> CachedAnswer | None:
        """The answer kept for ``key``; ``None`` where there is none, or none that reads."""
        path = self.path(key)
        if not path.is_file():
            return None
        try:
            entry = CachedAnswer.model_validate(read_json_file(path, MAX_ENTRY_BYTES))
        except (OSError, ValueError, ValidationError) as exc:  # damaged: asked again, rewritten
            logger.debug("answer cache entry %s ignored: %s", path, exc)
            return None
        return entry if entry.key == key and entry.format == CACHE_FORMAT else None

    def put(self, entry: CachedAnswer) -> None:
        """Keep ``entry`` (atomically); a folder that cannot be written keeps nothing."""
        try:
            atomic_write(self.path(entry.key), entry.model_dump_json().encode())
        except OSError as exc:
            logger.debug("answer not kept in %s: %s", self.folder, exc)

    def entries(self) -> list[Path]:
        """The files of the answers kept."""
        try:
            return sorted(p for p in self.folder.glob("*.json") if p.is_file())
        except OSError:
            return []

    def clear(self) -> tuple[int, int]:
        """Delete every answer kept: how many files, and how many bytes, were deleted.

        Raises:
            OSError: a file that cannot be deleted.
        """
        files, size = 0, 0
        for path in self.entries():
            size += path.stat().st_size
            path.unlink()
            files += 1
        return files, size
