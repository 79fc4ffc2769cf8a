"""Mocked LLMs for offline evaluation, all through the LLM planner's own code path.

Each mock answers through litellm's ``mock_response``, so the prompt, parsing, validation,
repair, execution and replanning are exactly what a real model would go through.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Sequence
from typing import Any

import numpy as np

from claw.envs.relations import relations
from claw.envs.tabletop import TabletopEnv
from claw.eval.suite import Case
from claw.library.composite import CompositeBody, compress
from claw.planner.grounding.conflicts import TOWERS
from claw.planner.llm.planner import LLMPlanner
from claw.planner.offline import OfflinePlanner
from claw.planner.steps.ordering import stand_in
from claw.skills.plans import SkillCall

MOCK_MODEL = "gpt-4o-mini"  # priced by litellm's local cost map, so cost is counted too


def error_answer(case: Case) -> str:
    """The answer to an error case: the expected error, as a model that declines would give."""
    error = {"kind": case.expected_errors[0], "message": "the mock knows this case is an error"}
    return json.dumps({"goal": [], "steps": [], "error": error})


def oracle_answer(
    case: Case, env: TabletopEnv, composites: Sequence[tuple[str, str, CompositeBody]] = ()
) -> str:
    """What a perfect model would answer now: the case's ground truth, planned from this state.

    Where the prompt offered learned ``composites`` (name, description, body), each run of its
    steps that one of them does is written as one call of it (:func:`claw.library.composite.
    compress`): the plan is the same, in fewer steps.

    Its steps come from the offline planner's step generator (``OfflinePlanner.steps``) and its
    error cases answer with the expected error: it measures the LLM path (prompt, parsing,
    validation, execution, replanning) and the skills on a perfect reading of the instruction,
    not a model's reading nor a step generator of its own (``mock:literal`` has one).
    """
    if case.expect_error is not None:
        return error_answer(case)
    goal = list(case.goal or [])
    steps = OfflinePlanner().steps(goal, env.world_state())
    if case.expect_push is not None:
        steps.append(SkillCall(skill="push", args=case.expect_push.model_dump()))
    steps = compress(steps, [(name, body) for name, _, body in composites])
    texts = [str(p) for p in goal]
    return json.dumps({"goal": texts, "steps": [s.model_dump() for s in steps], "error": None})


def literal_answer(case: Case) -> str:
    """A model that knows the goal but not the scene: one pick and one place per predicate, in
    the goal's order, nothing skipped, reordered or cleared away. Its steps are its own, not the
    offline planner's step generator's, so an evaluation with it measures the skills and the
    replanning loop on plans the project did not write."""
    if case.expect_error is not None:
        return error_answer(case)
    steps: list[dict[str, Any]] = []
    for asked in case.goal or []:
        predicate = asked if asked.inner is None else stand_in(asked)  # not(in(a, b)): a beside b
        if predicate is None:  # any other not(P): no step
            continue
        args = list(predicate.args)
        if predicate.name == "holding":
            steps.append({"skill": "pick", "args": {"object": args[0]}})
            continue
        if len(args) < 2:  # level(a): no step of its own (a joint lift keeps it level)
            continue
        if predicate.name in TOWERS:
            pairs = list(zip(args[1:], args[:-1], strict=True))  # each on the one before it
            moves = [(above, "on", below) for above, below in pairs]
        else:
            moves = [(args[0], predicate.name, args[1])]
        for obj, relation, target in moves:
            place = {"target": target, "relation": relation}
            if len(args) > 2 and predicate.name not in TOWERS:  # between's second target
                place["target2"] = args[2]
            steps.append({"skill": "pick", "args": {"object": obj}})
            steps.append({"skill": "place", "args": place})
    if case.expect_push is not None:
        steps.append({"skill": "push", "args": case.expect_push.model_dump()})
    texts = [str(p) for p in case.goal or []]
    return json.dumps({"goal": texts, "steps": steps, "error": None})


def literal_planner(case: Case, env: TabletopEnv) -> LLMPlanner:
    """``mock:literal``: the LLM planner answered by :func:`literal_answer` at every call."""
    return LLMPlanner(MOCK_MODEL, mock=lambda messages: literal_answer(case), backoff=0.0)


def oracle_planner(case: Case, env: TabletopEnv) -> LLMPlanner:
    """``mock:oracle``: the LLM planner answered by :func:`oracle_answer` at every call, through
    the composites its prompt offers where one fits."""

    def answer(messages: list[dict[str, str]]) -> str:
        return oracle_answer(case, env, planner.offered)

    planner: LLMPlanner = LLMPlanner(MOCK_MODEL, mock=answer, backoff=0.0)
    return planner


CORRUPTIONS = (
    "wrong_object",
    "wrong_relation",
    "missing_step",
    "extra_step",
    "unknown_skill",
    "malformed_json",
)


def swap_relations() -> tuple[str, ...]:
    """The relations a ``wrong_relation`` corruption swaps a place's for: those of one object
    (not a region's, whose target would not read, nor two objects'), in declaration order."""
    return tuple(r.name for r in relations() if r.target == "object" and r.targets == 1)


def _rng(case: Case, salt: str) -> np.random.Generator:
    return np.random.default_rng([case.seed, zlib.crc32(f"{case.id}/{salt}".encode())])


def corrupt(answer: str, rng: np.random.Generator, names: list[str]) -> tuple[str, str]:
    """One corruption of an oracle answer, drawn from ``CORRUPTIONS``: (answer, what was done)."""
    kind = str(rng.choice(CORRUPTIONS))
    data = json.loads(answer)
    steps = data.get("steps") or []
    if kind == "malformed_json":
        return answer[: max(1, len(answer) // 2)], kind
    if not steps:
        return answer, "none"

    def pick_step(usable: list[int]) -> int:
        return usable[int(rng.integers(len(usable)))]

    with_relation = [i for i, s in enumerate(steps) if "relation" in s["args"]]
    with_object = [
        i
        for i, s in enumerate(steps)
        if any(s["args"].get(k) in names for k in ("object", "target"))
    ]
    if (kind == "wrong_relation" and not with_relation) or (
        kind == "wrong_object" and not with_object
    ):
        kind = "missing_step"
    if kind == "wrong_object":
        step = steps[pick_step(with_object)]
        key = "object" if step["args"].get("object") in names else "target"
        step["args"][key] = str(rng.choice([n for n in names if n != step["args"][key]]))
    elif kind == "wrong_relation":
        step = steps[pick_step(with_relation)]
        others = [r for r in swap_relations() if r != step["args"]["relation"]]
        step["args"]["relation"] = str(rng.choice(others))
    elif kind == "missing_step":
        steps.pop(int(rng.integers(len(steps))))
    elif kind == "extra_step":
        extra = {"skill": "pick", "args": {"object": str(rng.choice(names))}}
        steps.insert(int(rng.integers(len(steps) + 1)), extra)
    else:  # unknown_skill
        step = steps[int(rng.integers(len(steps)))]
        step["skill"] = f"{step['skill']}_fast"
    return json.dumps(data), kind


def noisy_planner(case: Case, env: TabletopEnv, p: float) -> LLMPlanner:
    """``mock:noisy:P``: the oracle, each answer corrupted with probability ``p`` (seeded)."""
    rng = _rng(case, "noisy")

    def answer(messages: list[dict[str, str]]) -> str:
        clean = oracle_answer(case, env)
        if rng.random() >= p:
            return clean
        return corrupt(clean, rng, list(env.object_names))[0]

    return LLMPlanner(MOCK_MODEL, mock=answer, backoff=0.0)


def faulty_planner(case: Case, env: TabletopEnv, p: float) -> LLMPlanner:
    """``mock:faulty:P``: the oracle, but each attempt fails with probability ``p`` (rate limit,
    server error or timeout), retried by the planner like a real provider's errors."""
    rng = _rng(case, "faulty")
    faults: tuple[str | dict[str, Any], ...] = (
        "litellm.RateLimitError",
        "litellm.InternalServerError",
        {"mock_timeout": True, "timeout": 0.05},
    )

    def answer(messages: list[dict[str, str]]) -> str | dict[str, Any]:
        if rng.random() < p:
            return faults[int(rng.integers(len(faults)))]
        return oracle_answer(case, env)

    return LLMPlanner(MOCK_MODEL, mock=answer, backoff=0.0, num_retries=3)
