"""What a plan is: the goal a planner read, and the skill calls that should reach it.

The contract between those who write plans (the planners), those who run their calls (the
executor, :func:`~claw.skills.execute_calls`), the library's composites (stored runs of calls) and
the closed loop (``claw.runtime``). It lives at the skills layer, the lowest each of them can
import; ``claw.planner`` re-exports it. What is checked of a plan (its length, its goal read from
text, whether it can run in a scene) is the planner's: :mod:`claw.planner.plan`.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from claw.envs.predicates import Predicate

ARM_ARG = "arm"
"""Every call may name the arm that runs it (:mod:`claw.envs.arms`); the default arm otherwise."""


class SkillCall(BaseModel):
    """One step of a plan: a registered skill and its arguments."""

    model_config = ConfigDict(extra="forbid")

    skill: str
    args: dict[str, Any] = Field(default_factory=dict)

    def __str__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.args.items())
        return f"{self.skill}({args})"


class WordMatch(BaseModel):
    """A word read as another, and how: ``spelling`` (a slip, or two words typed as one),
    ``sound`` (a dictated homophone), ``consonants`` (typed without vowels), ``meaning`` (the
    embedder's match, with its cosine ``score``), ``table`` (another name of the table) or
    ``form`` (a verb form made plain: "placed", "the robot places")."""

    model_config = ConfigDict(extra="forbid")

    typed: str
    read: str
    how: Literal["spelling", "sound", "consonants", "meaning", "table", "form"]
    score: float | None = None


class ReadingNotes(BaseModel):
    """What a reader changed to read an instruction: words left out, words read as others
    (every other word was read as typed)."""

    model_config = ConfigDict(extra="forbid")

    ignored: list[str] = Field(default_factory=list)
    corrected: dict[str, str] = Field(default_factory=dict)
    """Each word typed, and the word it was read as (a typo, or a word matched by meaning)."""
    matched: list[WordMatch] = Field(default_factory=list)
    """How each corrected word was matched."""


class Waypoint(BaseModel):
    """A goal reached on the way: it must hold once the plan's first ``after`` steps ran (a
    sequence's earlier turn, superseded by a later one), and need not hold at the end."""

    model_config = ConfigDict(extra="forbid")

    goal: list[Predicate]
    after: int = Field(ge=0)


class Plan(BaseModel):
    """Goal predicates (ground truth to check at the end) and an ordered list of skill calls."""

    model_config = ConfigDict(extra="forbid")

    reading: ReadingNotes | None = None
    """What the reader changed to read the instruction (``None``: read as typed)."""

    goal: list[Predicate] = Field(default_factory=list)
    """Predicates such as ``next_to(red_block, blue_box)`` that must all hold at the end (given
    as text, they are parsed; they serialise as their canonical text)."""
    steps: list[SkillCall] = Field(default_factory=list)
    waypoints: list[Waypoint] = Field(default_factory=list)
    """Goals to reach on the way, in order (``after`` not decreasing); the run checks each once
    its steps ran, and replans from the first not reached."""


class Failure(BaseModel):
    """What went wrong in a run, for ``Planner.replan``: how many steps ran (the failed one
    included), the call that failed (or ``the plan``, when every step ran yet the goal does not
    hold), and why."""

    model_config = ConfigDict(frozen=True)

    step: int
    call: str
    reason: str
