"""Run a list of skill calls: validate them all, run them in order, stop at the first failure.

In a two-arm scene, consecutive calls of the two arms that share no object or region run at the
same time, one lane per arm (:mod:`claw.skills.lanes`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Collection, Mapping, Sequence
from typing import Any, Protocol

from pydantic import BaseModel, ValidationError

from claw.common.exceptions import ClawError
from claw.envs.model import camera_names
from claw.envs.tabletop import TabletopEnv
from claw.skills import lanes
from claw.skills.base import Skill, SkillParams, SkillResult
from claw.skills.exceptions import InvalidParamsError
from claw.skills.learned import PolicySkill, PolicySource
from claw.skills.plans import ARM_ARG, SkillCall
from claw.skills.registry import (
    check_offered,
    get_skill,
    is_skill,
    skill_implementations,
    unknown_skill,
)


class ExecutionResult(BaseModel):
    """The steps that ran (up to and including the first failure) and whether all succeeded."""

    steps: list[SkillResult]
    success: bool

    @property
    def failed(self) -> SkillResult | None:
        """The step that failed, if one did."""
        return next((s for s in self.steps if not s.success), None)

    @property
    def sim_seconds(self) -> float:
        return sum(s.sim_seconds for s in self.steps)


def _first(exc: ValidationError) -> str:
    """The first validation problem, as ``field: message``."""
    first = exc.errors()[0]
    field = ".".join(str(p) for p in first["loc"]) or "value"
    return f"{field}: {first['msg']}"


def _invalid(raw: SkillCall | dict[str, Any] | Any, exc: ClawError) -> SkillResult:
    """The result of a call that could not run, with the error's kind."""
    if isinstance(raw, SkillCall):
        skill, args = raw.skill, raw.args
    else:
        mapping = raw if isinstance(raw, Mapping) else {}
        skill = str(mapping.get("skill", "?"))
        given = mapping.get("args")
        args = given if isinstance(given, dict) else {}
    return SkillResult(skill=skill, args=args, success=False, reason=str(exc), error=exc.kind)


CONTROLLER = "controller"
PREFER_CHOICES: tuple[str, ...] = ("learned", CONTROLLER)

Bound = tuple[Skill[Any], SkillParams]
"""A skill with its validated parameters, ready to run."""
Group = tuple[SkillCall, str | None, list[SkillCall], list[Bound]]
"""A call, the composite it names (``None`` for a skill), the calls it runs, and those bound."""


class CompositeSource(Protocol):
    """Where composite skills come from (``claw.library.composites.Composites``): a call naming
    one becomes its steps, arguments bound; each use is recorded with its measured success."""

    def expand_call(
        self, call: SkillCall, object_names: Sequence[str] | None, arms: int | None = None
    ) -> tuple[str, list[SkillCall]]: ...

    def record_use(self, key: str, success: bool) -> Any: ...


def choose_implementation(
    name: str, prefer: str | None = None, measured: Mapping[tuple[str, str], float] | None = None
) -> str:
    """The implementation of skill ``name`` to run.

    ``prefer`` wins where the skill has it. Otherwise the implementation with the best measured
    success runs; the controller runs unless every implementation has been measured.
    """
    implementations = skill_implementations(name)
    if prefer in implementations:
        return prefer
    default = "controller" if "controller" in implementations else next(iter(implementations))
    rates = {i: (measured or {}).get((name, i)) for i in implementations}
    if len(rates) < 2 or any(rate is None for rate in rates.values()):
        return default
    return max(rates, key=lambda i: (rates[i], i == default))  # a tie goes to the default


def bind(
    call: SkillCall,
    object_names: list[str],
    prefer: str | None = None,
    measured: Mapping[tuple[str, str], float] | None = None,
    policies: PolicySource | None = None,
    cameras: Collection[str] | None = None,
) -> Bound:
    """The skill and validated parameters of a call; a policy skill's network is loaded from
    ``policies`` (``None``: the shipped policies; the run path passes the skill library). A
    policy that looks through cameras the scene lacks (``cameras``: the scene's; ``None``: not
    checked) gives way to the skill's controller, unless ``prefer`` asked for it.

    Raises:
        UnknownSkillError: no such skill.
        InvalidParamsError: the arguments do not validate (one line naming the field), or the
            policy asked for needs cameras the scene lacks.
        UnknownObjectError, PredicateError: an argument names no object or region of the scene.
        ArtifactError: a policy's weights are missing or were tampered with.
    """
    implementation = choose_implementation(call.skill, prefer, measured)
    skill = get_skill(call.skill, implementation)
    if isinstance(skill, PolicySkill):
        skill.policies = policies
    skill.prepare()
    if isinstance(skill, PolicySkill) and cameras is not None:
        from claw.envs.observations import needed_cameras  # images and OpenCV: only for these

        missing = sorted(set(needed_cameras(skill.network().config.env_kwargs)) - set(cameras))
        fallback = CONTROLLER in skill_implementations(call.skill)
        if missing and (prefer == implementation or not fallback):
            raise InvalidParamsError(
                f"{call.skill}: its learned claw looks through camera(s) {', '.join(missing)}, "
                "which this scene lacks; allowed: prefer the controller"
            )
        if missing:
            skill = get_skill(call.skill, CONTROLLER)
            skill.prepare()
    args = {k: v for k, v in call.args.items() if k != ARM_ARG}
    try:
        params = skill.Params(**args)
    except ValidationError as exc:
        fields = ", ".join(skill.Params.model_fields) or "none"
        raise InvalidParamsError(f"{call.skill}: {_first(exc)} (parameters: {fields})") from None
    problems = skill.check_names(object_names, params)
    if problems:
        raise problems[0]
    return skill, params


def execute_calls(
    env: TabletopEnv,
    calls: Sequence[SkillCall | dict[str, Any]],
    prefer: str | None = None,
    measured: Mapping[tuple[str, str], float] | None = None,
    policies: PolicySource | None = None,
    composites: CompositeSource | None = None,
) -> ExecutionResult:
    """Validate every call against the registry and the scene, then run them in order.

    A call that does not validate stops the run before anything moves; a step that fails on the
    physics stops it after that step. Expected failures are results, not exceptions.

    Args:
        env: The env (wrappers are looked through).
        calls: Skill calls, as ``SkillCall`` or mappings ``{"skill": ..., "args": {...}}``.
        prefer: ``"learned"`` or ``"controller"``: that implementation where a skill has it;
            otherwise the one with the best ``measured`` success.
        measured: Success rates by (skill, implementation), as ``SkillLibrary.measured_success``
            gives them; without them a skill's controller runs unless ``prefer`` says otherwise.
        policies: Where policy skills get their networks (a ``SkillLibrary``, ``ShippedPolicies``);
            ``None``: the shipped ones (the run path passes the skill library). Weights that are
            missing or differ from what was registered stop the run before anything moves
            (``artifact_rejected``).
        composites: Where composite skills come from (the run path passes the library's): a
            call naming one is expanded into its steps, each bound and judged as usual; it is one
            step of the result, failed with its failing step's reason, and each use is recorded.
    """
    if prefer is not None and prefer not in PREFER_CHOICES:
        raise InvalidParamsError(
            f"prefer must be one of {', '.join(PREFER_CHOICES)}, got {prefer!r}"
        )
    env = env.unwrapped  # type: ignore[assignment]
    groups: list[Group] = []
    for raw in calls:
        try:
            call = raw if isinstance(raw, SkillCall) else SkillCall.model_validate(raw)
        except ValidationError as exc:
            malformed = InvalidParamsError(f"malformed skill call: {_first(exc)}")
            return ExecutionResult(steps=[_invalid(raw, malformed)], success=False)
        try:
            _check_arm(call, env)
            key, steps = _expand(call, env, composites)
            cameras = camera_names(env.model)
            bound = [bind(s, env.object_names, prefer, measured, policies, cameras) for s in steps]
            if call.args.get(ARM_ARG, env.arms.arms[0]) != env.arms.arms[0] and any(
                isinstance(skill, PolicySkill) for skill, _ in bound
            ):
                raise InvalidParamsError(
                    f"{call.skill}: a learned claw runs on the {env.arms.arms[0]} arm only; "
                    "allowed: prefer the controller for another arm"
                )
        except ClawError as exc:
            return ExecutionResult(steps=[_invalid(raw, exc)], success=False)
        groups.append((call, key, steps, bound))

    results: list[SkillResult] = []
    both = [any(skill.arms > 1 for skill, _ in group[3]) for group in groups]
    for stage in lanes.stages(env, [group[0].args for group in groups], both):
        part = [groups[i] for i in stage]
        arms = [lanes.call_arm(group[0].args) for group in part]
        busy = lanes.busy_objects(env, [group[0].args for group in part], arms)
        ran = lanes.run_stage(env, part, arms, lambda group: _run_group(env, group), busy)
        for k, outcome in ran.items():
            key = part[k][1]
            if key is not None and composites is not None:
                # a library that cannot be written: the use goes unrecorded
                with contextlib.suppress(ClawError):
                    composites.record_use(key, outcome.success)
        results.extend(lanes.in_report_order(ran))
        if len(ran) < len(part) or not all(r.success for r in ran.values()):
            break
    return ExecutionResult(
        steps=results, success=len(results) == len(groups) and all(s.success for s in results)
    )


def _expand(
    call: SkillCall, env: TabletopEnv, composites: CompositeSource | None
) -> tuple[str | None, list[SkillCall]]:
    """The composite a call names (``None`` for a skill) and the calls it runs, each a skill
    the scene offers.

    Raises:
        UnknownSkillError: no skill or composite has the name (the message lists the scene's
            skills), or a skill needs more arms than the scene has.
    """
    key, steps = None, [call]
    if not is_skill(call.skill):
        if composites is None:
            raise unknown_skill(call.skill, len(env.arms.arms))
        key, steps = composites.expand_call(call, env.object_names, len(env.arms.arms))
    for step in steps:
        check_offered(step.skill, env.arms.arms)
    return key, steps


def _run_group(env: TabletopEnv, group: Group) -> SkillResult:
    """Run one call (a composite's steps in turn, up to its first failure)."""
    call, key, steps, bound = group
    ran: list[SkillResult] = []
    for step, (skill, params) in zip(steps, bound, strict=True):
        ran.append(_run_step(env, step, skill, params))
        if not ran[-1].success:
            break
    return ran[0] if key is None else _composite_result(call, key, ran, len(steps))


def _check_arm(call: SkillCall, env: TabletopEnv) -> None:
    """A call's optional ``arm`` names one of the scene's arms.

    Raises:
        InvalidParamsError: it names no arm of the scene.
    """
    arm = call.args.get(ARM_ARG)
    if arm is not None and arm not in env.arms.arms:
        raise InvalidParamsError(
            f"{call.skill}: unknown arm {arm!r}; allowed: {', '.join(env.arms.arms)}"
        )


def _run_step(
    env: TabletopEnv, call: SkillCall, skill: Skill[Any], params: SkillParams
) -> SkillResult:
    """Run a bound step (its preconditions checked on the state first), named by its call;
    on the arm its ``arm`` argument names, else the default one."""
    arm = call.args.get(ARM_ARG)
    if arm is None or env.arms.lockstep is not None:  # a lane runs its own arm's calls
        outcome = skill.run(env, params)
    else:
        env.arms.bind(arm)
        try:
            outcome = skill.run(env, params)
        finally:
            env.arms.release()
    return outcome.model_copy(update={"skill": call.skill, "args": dict(call.args)})


def _composite_result(call: SkillCall, key: str, ran: list[SkillResult], total: int) -> SkillResult:
    """A composite's result: its steps' (each judged as usual); the first failure fails it."""
    failed = next((i for i, r in enumerate(ran) if not r.success), None)
    reason = ""
    if failed is not None:
        step = ran[failed]
        args = ", ".join(f"{k}={v!r}" for k, v in step.args.items())
        reason = f"step {failed + 1} of {total} of {key}, {step.skill}({args}), failed: "
        reason += step.reason
    touched = list(dict.fromkeys(name for r in ran for name in r.touched))
    return SkillResult(
        skill=call.skill,
        args=call.args,
        success=failed is None and len(ran) == total,
        reason=reason,
        sim_seconds=sum(r.sim_seconds for r in ran),
        touched=touched,
        details={"composite": key, "steps": [r.model_dump() for r in ran]},
    )
