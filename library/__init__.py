"""The persistent skill library: metadata, artifacts and a FAISS index over skill descriptions."""

from __future__ import annotations

import os

from claw.library.composite import CompositeBody, object_type
from claw.library.composites import Composites, learn_from_run, prune
from claw.library.embedding import Embedder, MiniLMEmbedder, english_words, make_embedder
from claw.library.exceptions import LibraryError, LibraryWriteError
from claw.library.index import SearchHit
from claw.library.manifest import Artifact, Metrics, Provenance, SkillRecord
from claw.library.metrics import record_controller_metrics
from claw.library.storage import SkillLibrary, default_root


def policy_source(root: str | os.PathLike[str] | None = None) -> SkillLibrary:
    """Where a run's policy skills get their networks: the skill library at ``root``
    (default ``$CLAW_HOME/library``).

    Its ``policy(cls)`` gives the latest registered policy of a skill class, its files checked
    against the manifest's sha256 (``ArtifactError`` if they differ, before anything moves). A
    library that cannot be written is read as it is, the shipped policies standing in for what
    it lacks. ``claw.runtime.run_instruction`` passes it to the executor
    (``execute_calls(..., policies=...)``), which hands it to the policy skills.
    """
    return SkillLibrary(root)


__all__ = [
    "Artifact",
    "CompositeBody",
    "Composites",
    "Embedder",
    "LibraryError",
    "LibraryWriteError",
    "Metrics",
    "MiniLMEmbedder",
    "Provenance",
    "SearchHit",
    "SkillLibrary",
    "SkillRecord",
    "default_root",
    "english_words",
    "learn_from_run",
    "make_embedder",
    "object_type",
    "policy_source",
    "prune",
    "record_controller_metrics",
]
