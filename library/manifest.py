"""What the library stores about a skill version: the manifest records (pydantic, JSON on disk)."""

from __future__ import annotations

import re
from datetime import datetime, timezone
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

MANIFEST_FORMAT = 1


class Artifact(BaseModel):
    """A file a skill needs (weights, a config), relative to the library root, with its sha256."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    path: str
    sha256: str
    bytes: int


class Metrics(BaseModel):
    """How well a skill version worked, measured on physics."""

    model_config = ConfigDict(extra="forbid")

    success_rate: float = Field(ge=0.0, le=1.0)
    episodes: int = Field(ge=0)
    conditions: dict[str, Any] = Field(default_factory=dict)
    """What it was measured on: scenes, seeds, tolerances, the command that measured it."""
    measured_at: datetime = Field(default_factory=lambda: datetime.now(timezone.utc))


class Provenance(BaseModel):
    """Where a skill version came from."""

    model_config = ConfigDict(extra="forbid")

    created: datetime = Field(default_factory=lambda: datetime.now(timezone.utc))
    source: Literal["builtin", "registered", "trained", "learned"] = "registered"
    git_commit: str | None = None
    training_config: dict[str, Any] | None = None
    learned_from: dict[str, Any] | None = None
    """A composite's run: its instruction, scene, seed, planner and measured result."""


class SkillRecord(BaseModel):
    """One version of one skill: what it is, how well it works, where its artifacts are."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    version: int = Field(ge=1)
    kind: Literal["controller", "policy", "composite"]
    implementation: str
    """The code that runs it, as ``module:Class`` (a registered ``Skill`` class); a composite's
    is ``composite:NAME`` (its steps are a checked artifact, ``claw.library.composite``)."""
    description: str
    examples: list[str] = Field(default_factory=list)
    """Phrases a person might use for it; indexed for retrieval with the description."""
    params_schema: dict[str, Any] = Field(default_factory=dict)
    artifacts: list[Artifact] = Field(default_factory=list)
    metrics: Metrics | None = None
    provenance: Provenance = Field(default_factory=Provenance)
    tags: list[str] = Field(default_factory=list)
    observation: str = "state"
    """What the skill observes: ``state`` (poses) or a training env's image mode (``depth``,
    ``rgbd``, …): a skill that needs cameras runs only where its cameras exist."""

    @property
    def key(self) -> str:
        """``name@version``."""
        return f"{self.name}@{self.version}"

    def texts(self) -> list[str]:
        """What retrieval indexes for this skill: its name, description and example phrases (a
        composite's parameters read as words: ``{block2}`` as ``the block``)."""
        name, description = self.name.replace("_", " "), self.description
        if self.kind == "composite":
            name = re.sub(r"\b(block|box|region)\d+\b", r"\1", name)
            description = _PARAM_REF.sub(r"the \1", description)
        return [name, description, *self.examples]


_PARAM_REF = re.compile(r"\{([a-z]+)\d*\}")


class Manifest(BaseModel):
    """The library's table of contents: every version of every skill."""

    model_config = ConfigDict(extra="forbid")

    format: int = MANIFEST_FORMAT
    skills: list[SkillRecord] = Field(default_factory=list)
    runs: int = Field(default=0, ge=0)
    """Runs reported to the library (``--learn`` runs, ``claw skills run``): composites unused
    for some of them may be pruned."""
    pruned: dict[str, int] = Field(default_factory=dict)
    """The highest version pruned, by name: a version number is never given out twice."""

    def next_version(self, name: str) -> int:
        """The version a new record of ``name`` gets: one past every version it has had."""
        held = max((r.version for r in self.skills if r.name == name), default=0)
        return 1 + max(held, self.pruned.get(name, 0))
