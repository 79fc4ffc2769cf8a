"""Mocked LLMs for offline evaluation, all through the LLM planner's own code path.

Each mock answers through litellm's ``mock_response``, so the prompt, parsing, validation,
repair, execution and replanning are exactly what a real model would go through.
"""

from __future__ import annotations

import json

from claw.envs.tabletop import TabletopEnv
from claw.eval.suite import Case
from claw.planner.llm import LLMPlanner
from claw.planner.offline import OfflinePlanner
from claw.skills.executor import SkillCall

MOCK_MODEL = "gpt-4o-mini"  # priced by litellm's local cost map, so cost is counted too


def oracle_answer(case: Case, env: TabletopEnv) -> str:
    """What a perfect model would answer now: the case's ground truth, planned from this state."""
    if case.expect_error is not None:
        error = {"kind": case.expect_error, "message": "the oracle knows this case is an error"}
        return json.dumps({"goal": [], "steps": [], "error": error})
    goal = list(case.goal or [])
    steps = OfflinePlanner().steps(goal, env.world_state())
    if case.expect_push is not None:
        steps.append(SkillCall(skill="push", args=case.expect_push.model_dump()))
    return json.dumps({"goal": goal, "steps": [s.model_dump() for s in steps], "error": None})


def oracle_planner(case: Case, env: TabletopEnv) -> LLMPlanner:
    """``mock:oracle``: the LLM planner answered by :func:`oracle_answer` at every call."""
    return LLMPlanner(MOCK_MODEL, mock=lambda messages: oracle_answer(case, env), backoff=0.0)
