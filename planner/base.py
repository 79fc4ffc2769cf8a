"""What every planner is: the :class:`Planner` protocol, and :class:`BasePlanner`'s defaults.

The closed loop (``claw.runtime.run_instruction``), ``claw eval`` and ``claw "…"`` use a planner
only through these members: no caller probes for an attribute. A planner that asks no model
subclasses :class:`BasePlanner` and writes ``name``, ``plan`` and ``replan``; the LLM planner, the
fallback planner and the hybrid planner define every member themselves.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal, Protocol, get_args

from pydantic import BaseModel

from claw.envs.tabletop import TabletopEnv
from claw.planner.plan import MAX_PLAN_STEPS
from claw.skills import Failure, Plan

AnswerHook = Callable[[list[dict[str, str]], str], None]
"""Called with the messages and the answer of every model call (e.g. to record a cassette)."""
Reader = Literal["offline", "model"]
"""Who read an instruction: ``offline`` (no model asked: the grammar) or ``model``."""
READERS: tuple[Reader, ...] = get_args(Reader)


class Usage(BaseModel):
    """Calls, tokens and cost of a model's answers (``attempts`` counts the retries too;
    ``cached``, the answers taken from the answer cache, which cost no call and no token)."""

    attempts: int = 0
    calls: int = 0
    cached: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0


class Planner(Protocol):
    """Instruction to plan, and a new plan after a failure.

    Attributes:
        name: How results and notes name the planner (``offline``, a model string, ...).
        max_steps: The longest plan it may write; the run sets it to the run's cap.
        on_answer: Called after each model answer; never called by a planner that asks none.
    """

    name: str
    max_steps: int
    on_answer: AnswerHook | None

    @property
    def model(self) -> str | None:
        """The model it asks (a litellm string); ``None`` for a planner that asks none."""
        ...

    @property
    def structured_as(self) -> str | None:
        """How the last answer was constrained (``schema:json_schema``, ``json``, ...);
        ``None`` for a planner that asks no model."""
        ...

    @property
    def usage(self) -> Usage | None:
        """Calls, tokens and cost of the model's answers; ``None`` for a planner that asks none."""
        ...

    @property
    def reader(self) -> Reader:
        """Who read the instruction of the last plan (and so writes its replans)."""
        ...

    def plan(self, instruction: str, env: TabletopEnv) -> Plan:
        """A plan for ``instruction`` from the state of ``env``."""
        ...

    def replan(
        self, instruction: str, plan: Plan, env: TabletopEnv, failure: Failure | None = None
    ) -> Plan:
        """A new plan after ``plan`` failed (``failure`` says where), from the state now."""
        ...


class BasePlanner:
    """The protocol's defaults for a planner that asks no model: no model, no usage, no
    constrained answers; ``max_steps`` and ``on_answer`` are kept (and unused)."""

    name: str = "planner"
    max_steps: int = MAX_PLAN_STEPS
    on_answer: AnswerHook | None = None

    @property
    def model(self) -> str | None:
        """None: it asks no model."""
        return None

    @property
    def structured_as(self) -> str | None:
        """None: no answer is constrained."""
        return None

    @property
    def usage(self) -> Usage | None:
        """None: no model is called."""
        return None

    @property
    def reader(self) -> Reader:
        """``offline``: no model reads the instruction."""
        return "offline"

    def plan(self, instruction: str, env: TabletopEnv) -> Plan:
        """A plan for ``instruction``; subclasses write it."""
        raise NotImplementedError

    def replan(
        self, instruction: str, plan: Plan, env: TabletopEnv, failure: Failure | None = None
    ) -> Plan:
        """A new plan after a failure; subclasses write it."""
        raise NotImplementedError


class PlannerPair:
    """Two planners as one: ``first`` plans until it hands over to ``fallback`` (subclasses
    say when), ``active`` is the one planning now. The cap and the answer hook are set on both;
    the constrained answer and the reader are the active one's."""

    def __init__(self, first: Planner, fallback: Planner) -> None:
        self.first, self.fallback = first, fallback
        self.active = first

    @property
    def max_steps(self) -> int:
        """The cap of the planner planning now; setting it sets both planners'."""
        return self.active.max_steps

    @max_steps.setter
    def max_steps(self, value: int) -> None:
        self.first.max_steps = self.fallback.max_steps = value

    @property
    def on_answer(self) -> AnswerHook | None:
        """The answer hook (both planners'); setting it sets both."""
        return self.fallback.on_answer

    @on_answer.setter
    def on_answer(self, hook: AnswerHook | None) -> None:
        self.first.on_answer = self.fallback.on_answer = hook

    @property
    def structured_as(self) -> str | None:
        """How the active planner's answer was constrained (``None`` for one asking no model)."""
        return self.active.structured_as

    @property
    def reader(self) -> Reader:
        """Who read the last instruction: the active planner's reader."""
        return self.active.reader
