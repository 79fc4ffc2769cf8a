"""Run a list of skill calls: validate them all, run them in order, stop at the first failure."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from claw.envs.errors import ClawError, InvalidParamsError
from claw.envs.tabletop import TabletopEnv
from claw.skills.base import Skill, SkillParams, get_skill


class SkillCall(BaseModel):
    """One step of a plan: a registered skill and its arguments."""

    model_config = ConfigDict(extra="forbid")

    skill: str
    args: dict[str, Any] = Field(default_factory=dict)

    def __str__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.args.items())
        return f"{self.skill}({args})"


class StepResult(BaseModel):
    """What one call did: the skill's measured result, or why it could not run."""

    skill: str
    args: dict[str, Any]
    success: bool
    reason: str = ""
    error: str | None = None
    """The error kind when the call did not validate (``unknown_skill``, ``unknown_object``...)."""
    sim_seconds: float = 0.0
    touched: list[str] = Field(default_factory=list)
    details: dict[str, Any] = Field(default_factory=dict)


class ExecutionResult(BaseModel):
    """The steps that ran (up to and including the first failure) and whether all succeeded."""

    steps: list[StepResult]
    success: bool

    @property
    def failed(self) -> StepResult | None:
        """The step that failed, if one did."""
        return next((s for s in self.steps if not s.success), None)

    @property
    def sim_seconds(self) -> float:
        return sum(s.sim_seconds for s in self.steps)


def bind(
    call: SkillCall, object_names: list[str], implementation: str | None = None
) -> tuple[Skill, SkillParams]:
    """The skill and validated parameters of a call.

    Raises:
        UnknownSkillError: no such skill.
        InvalidParamsError: the arguments do not validate (one line naming the field).
        UnknownObjectError, PredicateError: an argument names no object or region of the scene.
    """
    skill = get_skill(call.skill, implementation)
    try:
        params = skill.Params(**call.args)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or "args"
        fields = ", ".join(skill.Params.model_fields) or "none"
        raise InvalidParamsError(
            f"{call.skill}: {field}: {first['msg']} (parameters: {fields})"
        ) from None
    problems = skill.check_names(object_names, params)
    if problems:
        raise problems[0]
    return skill, params


def execute_calls(
    env: TabletopEnv, calls: Sequence[SkillCall | dict[str, Any]], implementation: str | None = None
) -> ExecutionResult:
    """Validate every call against the registry and the scene, then run them in order.

    A call that does not validate stops the run before anything moves; a step that fails on the
    physics stops it after that step. Expected failures are results, not exceptions.
    """
    env = env.unwrapped  # type: ignore[assignment]
    parsed = [c if isinstance(c, SkillCall) else SkillCall.model_validate(c) for c in calls]
    bound: list[tuple[Skill, SkillParams]] = []
    for call in parsed:
        try:
            bound.append(bind(call, env.object_names, implementation))
        except ClawError as exc:
            step = StepResult(
                skill=call.skill, args=call.args, success=False, reason=str(exc), error=exc.kind
            )
            return ExecutionResult(steps=[step], success=False)

    steps: list[StepResult] = []
    for call, (skill, params) in zip(parsed, bound, strict=True):
        problems = skill.preconditions(env, params)
        if problems:
            steps.append(
                StepResult(skill=call.skill, args=call.args, success=False, reason=problems[0])
            )
            break
        outcome = skill.execute(env, params)
        steps.append(
            StepResult(args=call.args, **outcome.model_dump(exclude={"skill"}), skill=call.skill)
        )
        if not outcome.success:
            break
    return ExecutionResult(
        steps=steps, success=len(steps) == len(parsed) and all(s.success for s in steps)
    )
