"""The ``Skill`` protocol every claw follows, its parameters and its result (the registry by
name is :mod:`claw.skills.registry`)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from pathlib import Path
from typing import Annotated, Any, ClassVar, Generic, Literal, TypeVar, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field

from claw.common.exceptions import ClawError
from claw.envs.state import unknown_object_error
from claw.envs.tabletop import TabletopEnv

SkillKind = Literal["controller", "policy"]


class ObjectRef:
    """Marks a parameter that names an object of the scene (checked before a skill runs)."""


class RegionRef:
    """Marks a parameter that may name a table region (with ``objects``: or an object)."""

    def __init__(self, objects: bool = False) -> None:
        self.objects = objects


ObjectName = Annotated[str, ObjectRef()]


class SkillParams(BaseModel):
    """Base of every skill's parameters: what a planner may pass, validated by pydantic (a
    number must be finite: NaN and Infinity are refused before anything moves)."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    def object_names(self) -> list[str]:
        """The values of the fields that name scene objects (an optional one's when given)."""
        return [
            getattr(self, name)
            for name, field in type(self).model_fields.items()
            if any(isinstance(m, ObjectRef) for m in field.metadata)
            and getattr(self, name) is not None
        ]


class NoParams(SkillParams):
    """For skills that take no parameters."""


P = TypeVar("P", bound=SkillParams)
"""A skill's parameters model: ``Skill[PickParams]`` takes ``PickParams``."""


class SkillResult(BaseModel):
    """What one skill call did, measured from the physics, or why it could not run.

    The one result of a step: a skill returns it with its measurements, the executor adds the
    call's ``args`` (and, where the call could not run at all, the ``error`` kind), and
    ``ExecutionResult.steps`` holds it as it came.
    """

    skill: str
    args: dict[str, Any] = Field(default_factory=dict)
    """The call's arguments as they were passed (set by the executor and by ``Skill.__call__``)."""
    success: bool
    reason: str = ""
    """Why it failed, in words a person (or a planner) can act on; empty on success."""
    error: str | None = None
    """The error kind when the call did not validate (``unknown_skill``, ``unknown_object``...)."""
    implementation: str | None = None
    """Which implementation ran (``controller``, ``learned``); ``None`` where none did."""
    sim_seconds: float = 0.0
    touched: list[str] = Field(default_factory=list)
    """Objects the claw touched while the skill ran."""
    details: dict[str, Any] = Field(default_factory=dict)
    """Measured quantities (errors, distances, the spot chosen, ...)."""


class Skill(ABC, Generic[P]):
    """A low-level claw: named, described for retrieval, parameterised, measured on physics.

    Subclasses name their parameters model as the type argument (``class Pick(Skill[PickParams])``,
    which sets ``Params``), set ``name``, ``description`` (and ``kind``), implement ``execute``,
    and may refine ``preconditions``. Expected failures are results, not exceptions.
    """

    name: ClassVar[str]
    description: ClassVar[str]
    Params: ClassVar[type[SkillParams]] = NoParams
    """The parameters model: the class's type argument ``P`` (``NoParams`` without one)."""
    kind: ClassVar[SkillKind] = "controller"
    implementation: ClassVar[str] = "controller"
    examples: ClassVar[tuple[str, ...]] = ()
    """Phrases a person might use for this skill (for retrieval)."""
    arms: ClassVar[int] = 1
    """How many arms the skill needs (a scene with fewer does not offer it)."""
    measures_own_success: ClassVar[bool] = False
    """Its result is measured against what it was asked (a push's end point, a motion's
    arrival), so a plan of such steps needs no goal predicate to be judged."""
    verbs: ClassVar[tuple[str, ...]] = ()
    """Words the offline reader reads as this skill, said alone (``"VERB"``, a skill of no
    parameters) or before one object (``"VERB the red block"``, a skill whose one parameter names
    an object); claw's own skills are read by the grammar and declare none."""
    task_name: ClassVar[str | None] = None
    """The training task (``claw train TASK``) whose env judges this skill, if any: its success
    threshold is the skill's tolerance unless ``success_tolerance`` says otherwise."""
    success_tolerance: ClassVar[float | None] = None
    """How close (m) a result must come to its goal for the skill to succeed, as the skill itself
    judges it; ``None``: its task's threshold, or no distance at all."""

    @classmethod
    def tolerance(cls) -> float | None:
        """How close (m) a result must come to its goal: ``success_tolerance``, else the
        threshold of the skill's training task, else ``None``."""
        if cls.success_tolerance is not None:
            return float(cls.success_tolerance)
        if cls.task_name is not None:
            from claw.envs.tasks import TASKS

            return float(TASKS[cls.task_name].threshold)
        return None

    @classmethod
    def bundled_artifacts(cls) -> list[Path]:
        """Files shipped with the skill (a policy's weights and config), registered with it in
        the library; none for a controller."""
        return []

    @classmethod
    def bundled_metrics(cls) -> dict[str, Any] | None:
        """The skill's shipped measured success (``success_rate``, ``episodes``,
        ``conditions``), if it ships one."""
        return None

    def prepare(self) -> None:
        """Load what the skill needs before anything moves (a policy's weights).

        Raises:
            ClawError: it cannot run at all (``ArtifactError`` for rejected weights).
        """
        return None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Take ``Params`` from the type argument, as in ``class Pick(Skill[PickParams])``."""
        super().__init_subclass__(**kwargs)
        for base in cls.__dict__.get("__orig_bases__", ()):
            origin, args = get_origin(base), get_args(base)
            if not (isinstance(origin, type) and issubclass(origin, Skill) and args):
                continue
            if isinstance(args[0], type) and issubclass(args[0], SkillParams):
                if "Params" in cls.__dict__ and cls.Params is not args[0]:
                    raise TypeError(f"{cls.__name__}.Params is not its type argument {args[0]}")
                cls.Params = args[0]

    def check_names(self, object_names: list[str], params: P) -> list[ClawError]:
        """Problems with the names ``params`` uses (objects, regions), whatever the state."""
        return [
            unknown_object_error(name, object_names)
            for name in params.object_names()
            if name not in object_names
        ]

    def preconditions(self, env: TabletopEnv, params: P) -> list[str]:
        """Reasons the skill cannot run now in this scene; empty when it can."""
        return [str(e) for e in self.check_names(env.object_names, params)]

    @abstractmethod
    def execute(self, env: TabletopEnv, params: P) -> SkillResult:
        """Run the skill on the env's physics; success is measured, never assumed."""

    def run(self, env: TabletopEnv, params: P) -> SkillResult:
        """Check the preconditions on the state and, if they hold, ``execute``."""
        problems = self.preconditions(env, params)
        if problems:
            outcome = SkillResult(skill=self.name, success=False, reason=problems[0])
        else:
            outcome = self.execute(env, params)
        return outcome.model_copy(update={"implementation": self.implementation})

    def __call__(self, env: TabletopEnv, **kwargs: Any) -> SkillResult:
        """Validate ``kwargs`` as ``Params`` and run: ``get_skill("pick")(env, object=...)``."""
        params: P = self.Params(**kwargs)  # type: ignore[assignment]  # Params is P's class
        return self.run(env, params).model_copy(update={"args": dict(kwargs)})
