"""Judging a finished run by its case's ground truth, on the state: goals, pushes, errors."""

from __future__ import annotations

import numpy as np

from claw.envs.predicates import evaluate_goal
from claw.envs.tabletop import TabletopEnv
from claw.eval.suite import Case, ExpectedPush
from claw.runtime import RunResult
from claw.skills.plans import SkillCall
from claw.skills.push import DIRECTIONS, push_outcome
from claw.skills.registry import skill_names


def start_xy(env: TabletopEnv, name: str, before: np.ndarray) -> np.ndarray:
    """Where object ``name`` stood in the state ``before`` (a ``qpos`` of ``env``'s model)."""
    joint = int(env.model.body(name).jntadr[0])
    adr = int(env.model.jnt_qposadr[joint])  # a free joint: x, y, z, then the quaternion
    return np.array(before[adr : adr + 2], dtype=float)


def judge_push(
    want: ExpectedPush, env: TabletopEnv, before: np.ndarray
) -> tuple[bool, str, dict[str, float]]:
    """Whether the case's object ended where ``want`` sends it from where it stood ``before``.

    Measured on the state, as every goal is (the push skill's own report is not consulted), with
    the push skill's own test: within ``push.TOLERANCE`` of its start plus ``distance`` along
    ``push.DIRECTIONS[direction]``, and the scene at rest.
    """
    if want.object not in env.object_names:
        return False, f"expect_push names {want.object!r}, which is not in the scene", {}
    start = start_xy(env, want.object, before)
    goal = start + want.distance * np.array(DIRECTIONS[want.direction])
    world = env.true_world_state()
    final = world.get(want.object).xy
    return push_outcome(want.object, want.direction, start, final, goal, world.settled())


def read_right(case: Case, result: RunResult) -> bool:
    """Whether the first plan says what the case asks for: the same goal predicates (as sets,
    canonical), a push of the expected object in the expected direction, or the expected error."""
    if case.expect_error is not None or result.error is not None:
        return case.accepts_error(None if result.error is None else result.error.kind)
    if set(result.goal) != set(case.goal or []):
        return False
    push = case.expect_push
    return push is None or any(
        step.skill == "push"
        and step.args.get("object") == push.object
        and step.args.get("direction") == push.direction
        for step in primitive_steps(result.plan)
    )


def primitive_steps(plan: list[SkillCall]) -> list[SkillCall]:
    """A plan with each composite skill's call replaced by its steps (from the library)."""
    if all(step.skill in skill_names() for step in plan):
        return plan
    from claw.library import Composites, SkillLibrary
    from claw.library.composites import plan_calls

    return plan_calls(plan, Composites(SkillLibrary()))[0]


def judge(
    case: Case, env: TabletopEnv, result: RunResult, before: np.ndarray
) -> tuple[bool, str, float]:
    """(success, reason, goal recall) of a finished run against the case's ground truth.

    Everything is measured on the final state: the goal predicates (its ``at`` goals within the
    case's ``region_radius``, if it has one), and for ``expect_push`` the object's displacement
    from where it stood at reset (``before``). A run that reports a failed step still fails its
    case, even when the state is right, and says so.
    """
    if case.expect_error is not None:
        kind = None if result.error is None else result.error.kind
        if not case.accepts_error(kind):
            got = result.error.model_dump(include={"kind", "message"}) if result.error else "none"
            return False, f"expected error {' or '.join(case.expected_errors)}, got {got}", 0.0
        if not np.array_equal(env.data.qpos, before) or result.steps:
            return False, f"the scene moved before the {kind} error", 0.0
        return True, "", 1.0
    if result.error is not None:
        return False, f"error {result.error.kind}: {result.error.message}", 0.0
    check = evaluate_goal(case.goal or [], env.true_world_state(), at_radius=case.region_radius)
    held = [r.holds for r in check.results]
    problems = [f"{r.predicate}: {r.reason}" for r in check.results if not r.holds]
    if not check.success and not problems:  # the world not at rest, or something still held
        problems.append(check.reason)
    if case.expect_push is not None:
        pushed, why, _ = judge_push(case.expect_push, env, before)
        held.append(pushed)
        if not pushed:
            want = case.expect_push
            problems.append(f"push {want.object} {want.direction} {want.distance:g} m: {why}")
    recall = sum(held) / len(held) if held else 1.0
    failed = [f"{s.skill}{s.args}: {s.reason}" for s in result.steps if not s.success]
    if problems:
        return False, f"goal not reached ({'; '.join(problems)}); failed steps {failed[:2]}", recall
    if not result.success:
        return (
            False,
            f"the goal holds but the run reported failure; failed steps {failed[:2]}",
            recall,
        )
    return True, "", recall
