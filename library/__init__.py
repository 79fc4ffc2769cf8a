"""The persistent skill library: metadata, artifacts and a FAISS index over skill descriptions."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from claw.library.storage import SkillLibrary


def policy_source(root: str | os.PathLike[str] | None = None) -> SkillLibrary:
    """Where a run's policy skills get their networks: the skill library at ``root``
    (default ``$CLAW_HOME/library``).

    Its ``policy(cls)`` gives the latest registered policy of a skill class, its files checked
    against the manifest's sha256 (``ArtifactError`` if they differ, before anything moves). A
    library that cannot be written is read as it is, the shipped policies standing in for what
    it lacks. Policy skills ask it when no network or other source was given to them
    (``PolicySkill.prepare``); the executor passes on a source its caller gives
    (``execute_calls(..., policies=...)``).
    """
    from claw.library.storage import SkillLibrary

    return SkillLibrary(root)
