"""Running an instruction: the closed loop, the env + recorder session, the planner registry.

Between the planners and what runs them (``claw "…"``, ``claw eval``)::

    from claw.runtime import Session, make_planner, run_instruction

    with Session("default") as session:
        session.reset(seed=0)
        planner = make_planner("offline", env=session.env)
        result = run_instruction(session.env, "put the red block in the blue box", planner)

A planner family is registered as Gymnasium registers envs (:func:`register_planner`); the
registry lives in ``claw.planner.registry`` so that the planner package registers its own.
"""

from claw.perception.sensing import Sensing
from claw.planner.base import AnswerHook, BasePlanner, Planner
from claw.planner.registry import (
    PlannerContext,
    PlannerFactory,
    PlannerFamily,
    PlannerSpec,
    SpecCheck,
    make_planner,
    parse_planner,
    planner_names,
    register_planner,
)
from claw.runtime.exceptions import InvalidRunError
from claw.runtime.loop import (
    RunError,
    RunResult,
    StepReport,
    run_instruction,
)
from claw.runtime.session import SceneSource, Session

__all__ = [
    "AnswerHook",
    "BasePlanner",
    "InvalidRunError",
    "Planner",
    "PlannerContext",
    "PlannerFactory",
    "PlannerFamily",
    "PlannerSpec",
    "RunError",
    "RunResult",
    "SceneSource",
    "Sensing",
    "Session",
    "SpecCheck",
    "StepReport",
    "make_planner",
    "parse_planner",
    "planner_names",
    "register_planner",
    "run_instruction",
]
