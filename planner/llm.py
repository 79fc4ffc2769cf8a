"""The LLM planner: litellm, prompt templates from ``prompts/``, structured output, repair.

The model's answer is data: it is parsed as JSON into a ``Plan`` and validated against the skill
registry and the live scene; problems go back to the model (a bounded repair loop). Nothing it
returns is evaluated, imported or run. litellm is imported only here, on first use, with
``LITELLM_LOCAL_MODEL_COST_MAP=True`` so that importing it never reaches for the network.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sys
import time
from collections.abc import Callable
from importlib import resources
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from claw.envs.errors import ClawError
from claw.envs.tabletop import TabletopEnv
from claw.planner.grammar import UnparseableError, UnsupportedError
from claw.planner.plan import Plan, plan_problems
from claw.skills.base import get_skill, skill_names
from claw.skills.executor import SkillCall
from claw.skills.pick import held_object

MODEL_ENV = "CLAW_MODEL"


class PlannerUnavailableError(ClawError, RuntimeError):
    """The model could not be reached (after retries), or answered nothing usable."""

    kind = "planner_unavailable"


class PlanError(BaseModel):
    kind: str
    message: str = ""


class Reply(BaseModel):
    """The JSON object the model must answer with."""

    model_config = ConfigDict(extra="ignore")

    goal: list[str] = Field(default_factory=list)
    steps: list[SkillCall] = Field(default_factory=list)
    error: PlanError | None = None


class Usage(BaseModel):
    attempts: int = 0
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0


def template(name: str) -> str:
    """A prompt template from ``prompts/``."""
    return (resources.files("claw.prompts") / f"{name}.md").read_text()


def describe_scene(env: TabletopEnv) -> str:
    """The scene for the prompt: each object, where it is, what it rests on; what is held."""
    from claw.envs.predicates import evaluate

    world = env.world_state()
    lines = []
    for name, obj in world.objects.items():
        x, y, z = (round(float(v), 3) for v in obj.position)
        support = next(
            (o for o in world.objects if o != name and evaluate(f"on({name}, {o})", world).holds),
            None,
        )
        where = f" on/in {support}" if support else ""
        lines.append(f"- {name}: x {x}, y {y}, z {z}{where}")
    lines.append(f"held: {held_object(world) or 'nothing'}")
    return "\n".join(lines)


def describe_skills(names: list[str]) -> str:
    """The skill catalogue for the prompt: name, description, parameters."""
    lines = []
    for name in names:
        skill = get_skill(name)
        schema = skill.Params.model_json_schema()
        params = json.dumps(schema.get("properties", {}), separators=(",", ":"))
        lines.append(f"- {name} — {skill.description} — {params}")
    return "\n".join(lines)


def extract_json(text: str) -> dict[str, Any]:
    """The one JSON object in a reply (fenced or bare); ``ValueError`` if there is none."""
    fenced = re.search(r"```(?:json)?\s*(\{.*\})\s*```", text, re.DOTALL)
    candidate = fenced.group(1) if fenced else text[text.find("{") : text.rfind("}") + 1]
    if not candidate:
        raise ValueError("no JSON object in the answer")
    value = json.loads(candidate)
    if not isinstance(value, dict):
        raise ValueError("the answer is not a JSON object")
    return value


class LLMPlanner:
    """Plans with a language model through litellm (any provider; keys from its usual env vars).

    Args:
        model: A litellm model string (``gpt-4o-mini``, ``ollama/llama3``, ...).
        timeout: Seconds per call.
        num_retries: Retries, with exponential backoff from ``backoff`` seconds, on rate limits,
            timeouts, connection and server errors.
        max_repairs: Times an unusable plan is sent back to the model with its problems.
        api_base: An OpenAI-compatible endpoint, for local or proxy servers.
        mock: ``f(messages)`` giving litellm's ``mock_response`` for each attempt (a string), or
            litellm mock arguments (a mapping, e.g. ``{"mock_timeout": True}``); tests and the
            offline evaluation's mocked models go through this same code path.
        top_k: How many skills the library's retrieval puts in the catalogue.
        on_answer: Called with the messages and the answer of every successful call.
    """

    def __init__(
        self,
        model: str,
        timeout: float = 30.0,
        num_retries: int = 2,
        max_repairs: int = 2,
        api_base: str | None = None,
        mock: Callable[[list[dict[str, str]]], str | dict[str, Any]] | None = None,
        top_k: int = 8,
        backoff: float = 0.5,
        on_answer: Callable[[list[dict[str, str]], str], None] | None = None,
        **completion_kwargs: Any,
    ) -> None:
        self.model, self.name = model, model
        self.timeout, self.num_retries, self.max_repairs = timeout, num_retries, max_repairs
        self.api_base, self.mock, self.top_k, self.backoff = api_base, mock, top_k, backoff
        self.completion_kwargs = completion_kwargs
        self.on_answer = on_answer
        self.usage = Usage()
        self.messages: list[dict[str, str]] = []

    # -- the model -------------------------------------------------------------------------------

    def _complete(self, messages: list[dict[str, str]]) -> str:
        os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        import litellm

        litellm.suppress_debug_info = True  # no banners: stdout may be --json output

        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "timeout": self.timeout,
            "num_retries": 0,  # retried below, with backoff, so that every attempt is counted
            **self.completion_kwargs,
        }
        if self.api_base:
            kwargs["api_base"] = self.api_base
        with contextlib.suppress(Exception):  # providers litellm does not know: plain JSON
            if litellm.supports_response_schema(model=self.model):
                kwargs["response_format"] = Reply  # structured output where supported
        retryable = (
            litellm.exceptions.RateLimitError,
            litellm.exceptions.Timeout,
            litellm.exceptions.APIConnectionError,
            litellm.exceptions.InternalServerError,
            litellm.exceptions.ServiceUnavailableError,
        )
        for attempt in range(self.num_retries + 1):
            self.usage.attempts += 1
            if self.mock is not None:  # each attempt gets its own answer, as over the wire
                answer = self.mock(messages)
                for key in ("mock_response", "mock_timeout"):
                    kwargs.pop(key, None)
                kwargs["timeout"] = self.timeout
                if isinstance(answer, dict):  # e.g. {"mock_timeout": True, "timeout": 0.05}
                    kwargs.update(answer)
                else:
                    kwargs["mock_response"] = answer
            try:
                with contextlib.redirect_stdout(sys.stderr):
                    response = litellm.completion(**kwargs)
                break
            except retryable as exc:
                if attempt == self.num_retries:
                    raise PlannerUnavailableError(
                        f"{self.model} could not be reached: {type(exc).__name__} after "
                        f"{attempt + 1} attempts"
                    ) from None
                time.sleep(min(self.backoff * 2**attempt, 8.0))
            except Exception as exc:  # bad request, authentication, unknown model ...
                raise PlannerUnavailableError(
                    f"{self.model} cannot be used: {type(exc).__name__}"
                ) from None
        self.usage.calls += 1
        usage = getattr(response, "usage", None)
        if usage is not None:
            self.usage.prompt_tokens += int(getattr(usage, "prompt_tokens", 0) or 0)
            self.usage.completion_tokens += int(getattr(usage, "completion_tokens", 0) or 0)
        with contextlib.suppress(Exception), contextlib.redirect_stdout(sys.stderr):
            # Unknown prices (local models, some mocks) cost nothing here.
            self.usage.cost_usd += float(litellm.completion_cost(completion_response=response))
        text = str(response.choices[0].message.content or "")
        if self.on_answer is not None:  # e.g. recording a cassette
            self.on_answer(messages, text)
        return text

    # -- planning --------------------------------------------------------------------------------

    def _catalogue(self, instruction: str) -> list[str]:
        names = skill_names()
        try:
            from claw.library.storage import SkillLibrary

            hits = SkillLibrary().search(instruction, k=self.top_k, kind="controller")
            found = [h.record.name for h in hits if h.record.name in names]
            return found + [n for n in names if n not in found]
        except ClawError:
            return names

    def plan(self, instruction: str, env: TabletopEnv) -> Plan:
        """Ask the model for a plan; repair it until it validates against the scene."""
        system = (
            template("system")
            + "\n"
            + template("catalogue").format(skills=describe_skills(self._catalogue(instruction)))
        )
        self.messages = [
            {"role": "system", "content": system},
            {"role": "user", "content": template("examples")},
            {
                "role": "user",
                "content": template("scene").format(scene=describe_scene(env))
                + "\n"
                + template("instruction").format(instruction=instruction),
            },
        ]
        return self._ask(env)

    def replan(self, instruction: str, plan: Plan, env: TabletopEnv, failure: Any = None) -> Plan:
        """Tell the model what failed and how the scene is now; ask for what remains."""
        index, step, reason = (0, "?", "unknown") if failure is None else failure
        self.messages.append(
            {
                "role": "user",
                "content": template("replan").format(
                    index=index,
                    step=step,
                    reason=reason,
                    scene=describe_scene(env),
                    goal=", ".join(plan.goal) or "(none)",
                ),
            }
        )
        replanned = self._ask(env)
        return Plan(goal=plan.goal or replanned.goal, steps=replanned.steps)

    def _ask(self, env: TabletopEnv) -> Plan:
        for attempt in range(self.max_repairs + 1):
            text = self._complete(self.messages)
            self.messages.append({"role": "assistant", "content": text})
            try:
                reply = Reply.model_validate(extract_json(text))
            except (ValueError, ValidationError) as exc:
                problems = [f"not a valid JSON plan ({str(exc).splitlines()[0]})"]
                errors: list[ClawError] = []
            else:
                if reply.error is not None:
                    raise _declined(reply.error)
                plan = Plan(goal=reply.goal, steps=reply.steps)
                errors = plan_problems(plan, env)
                if not errors:
                    return plan
                problems = [str(e) for e in errors]
            if attempt == self.max_repairs:
                if errors:
                    raise errors[0]
                raise PlannerUnavailableError(f"{self.model} gave no usable plan: {problems[0]}")
            self.messages.append(
                {"role": "user", "content": template("repair").format(problems="; ".join(problems))}
            )
        raise AssertionError("unreachable")


def _declined(error: PlanError) -> ClawError:
    from claw.envs.errors import UnknownObjectError

    kinds: dict[str, type[ClawError]] = {
        "unknown_object": UnknownObjectError,
        "unsupported": UnsupportedError,
        "unparseable": UnparseableError,
    }
    return kinds.get(error.kind, UnsupportedError)(error.message or error.kind)


class FallbackPlanner:
    """A planner that hands over to another when the first is unavailable."""

    def __init__(self, first: Any, fallback: Any) -> None:
        self.first, self.fallback = first, fallback
        self.name = f"{first.name} (fallback {fallback.name})"
        self.active = first

    def plan(self, instruction: str, env: TabletopEnv) -> Plan:
        try:
            return self.first.plan(instruction, env)
        except PlannerUnavailableError:
            self.active = self.fallback
            return self.fallback.plan(instruction, env)

    def replan(self, instruction: str, plan: Plan, env: TabletopEnv, failure: Any = None) -> Plan:
        try:
            return self.active.replan(instruction, plan, env, failure)
        except PlannerUnavailableError:
            self.active = self.fallback
            return self.fallback.replan(instruction, plan, env, failure)


def make_planner(
    name: str | None,
    fallback: str | None = None,
    api_base: str | None = None,
    timeout: float = 30.0,
) -> Any:
    """``offline``, or an LLM planner for a litellm model (``--planner`` or ``$CLAW_MODEL``)."""
    from claw.planner.offline import OfflinePlanner

    name = name or os.environ.get(MODEL_ENV) or "offline"
    if name == "offline":
        return OfflinePlanner()
    planner: Any = LLMPlanner(
        name, timeout=timeout, api_base=api_base or os.environ.get("CLAW_API_BASE")
    )
    if fallback is not None:
        if fallback != "offline":
            raise ValueError(f"--fallback must be 'offline', not {fallback!r}")
        planner = FallbackPlanner(planner, OfflinePlanner())
    return planner
