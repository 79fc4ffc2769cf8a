"""The LLM planner: litellm, prompt templates from ``prompts/``, structured output, repair.

The model's answer is data: it is parsed as JSON into a ``Plan`` and validated against the skill
registry and the live scene; problems go back to the model (a bounded repair loop). Nothing it
returns is evaluated, imported or run, and every text of the model's (or of the provider's error
messages) that claw shows or raises is passed through :func:`clean_text` first: one line, no
control characters or terminal escapes, bounded length. litellm is imported only here, on first
use, with ``LITELLM_LOCAL_MODEL_COST_MAP=True`` so that importing it never reaches for the
network.

Errors, and the exit codes the CLI gives them:

- the model declines with an error object (``unknown_object``, ``unsupported``,
  ``unparseable``, ``ambiguous``): the person's instruction is the problem; that kind is raised
  — exit 2;
- the model's answers are still unusable after the repairs (no JSON, the wrong shape, an
  unknown skill or object, bad parameters, too many steps, an empty answer):
  :class:`InvalidPlanError`, ``invalid_plan`` — exit 3;
- the model cannot be reached or used (after retries): :class:`PlannerUnavailableError`,
  ``planner_unavailable`` — exit 3.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from claw.common.exceptions import ClawError
from claw.envs.tabletop import TabletopEnv
from claw.library import Composites
from claw.planner.base import Reader
from claw.planner.exceptions import InvalidPlanError
from claw.planner.language.instruction import check_instruction
from claw.planner.llm.answer_cache import AnswerCache, CachedAnswer, request_key
from claw.planner.llm.completion import ModelClient, ModelSettings
from claw.planner.llm.fallback import FallbackPlanner
from claw.planner.llm.goal_mode import (
    LLM_MODES,
    derive_steps,
    goal_problems,
    goal_vocabulary,
    uses_goal,
)
from claw.planner.llm.offers import Offered, catalogue, offer_composites
from claw.planner.llm.prompting import (
    PlanError,
    Reply,
    declined_error,
    describe_composites,
    describe_scene,
    describe_skills,
    example_turns,
    template,
)
from claw.planner.llm.schema import STRUCTURED_MODES, plan_schema, response_format
from claw.planner.offline import OfflinePlanner
from claw.planner.plan import MAX_PLAN_STEPS, plan_problems, read_goal
from claw.planner.steps.arms import with_arms
from claw.planner.text import (
    TEXT_LIMIT,
    clean_text,
    excerpt,
    extract_json,
    validation_problems,
)
from claw.skills import Failure, Plan

__all__ = ["FallbackPlanner", "LLMPlanner", "answer_tokens", "repair_request"]

TOKENS_PER_STEP = 48
"""Room in an answer per allowed step: a step of a JSON plan is 10–23 tokens and a goal
predicate about 10 (cl100k; ``{"skill": "place", "args": {"target": "far right corner",
"relation": "at"}}`` is 23), with room for tokenizers of small local models."""
TOKENS_BASE = 64  # the braces, keys and an error object
MAX_PROBLEMS = 10  # problems of one answer listed in a repair request
EMPTY_PLAN = (
    "the answer has no steps, no goal and no error: give the goal and the steps that reach it, "
    "or an error object if the instruction cannot be done"
)


def answer_tokens(max_steps: int) -> int:
    """The longest answer a plan of ``max_steps`` steps needs: ``max_tokens`` by default."""
    return TOKENS_BASE + TOKENS_PER_STEP * max_steps


def repair_request(problems: list[str]) -> str:
    """The message that sends an answer's problems back (at most ``MAX_PROBLEMS`` of them)."""
    listed = problems[:MAX_PROBLEMS]
    if len(problems) > MAX_PROBLEMS:
        listed.append(f"and {len(problems) - MAX_PROBLEMS} more")
    return template("repair").format(problems="; ".join(listed))


class LLMPlanner(ModelClient):
    """Plans with a language model: prompts from ``prompts/``, the answer validated, repaired.

    A plan longer than ``max_steps`` is sent back once, with its length and the cap, for a
    shorter one; a second answer that is too long ends planning with ``invalid_plan`` at once
    (it is not repaired again: a model that writes hundreds of steps seldom converges, and each
    such answer is costly). The oversized answer is not repeated to the model in full, nor is
    any answer longer than ``EXCERPT_CHARS`` (its start is, with how much was cut), and a repair
    request lists at most ``MAX_PROBLEMS`` problems.

    Args:
        model: A litellm model string (``gpt-4o-mini``, ``ollama/llama3``, ...).
        timeout: Seconds per call: a deadline, not a per-read timeout (:class:`ModelClient`).
        num_retries: Retries of a call that failed on the way (:class:`ModelClient`).
        max_repairs: Times an unusable plan is sent back to the model with its problems.
        top_k: How many skills the library's retrieval puts first in the catalogue.
        top_composites: How many learned composites (retrieved for the instruction) are offered
            beside the skills, in a block of the user's message (the system prompt is unchanged).
        max_steps: The most steps a plan may have (``run_instruction`` sets it to its own cap).
        structured: ``auto``, ``schema``, ``json`` or ``off``: how the answer is constrained
            (:func:`claw.planner.llm.schema.response_format`).
        mode: ``steps`` (the model's steps run), ``goal`` (the model states the goal, the
            symbolic step generator writes the steps; :mod:`claw.planner.llm.goal_mode`) or
            ``auto`` (goal mode where the answer states a goal).
        cache: Where first answers are kept and reused (:mod:`claw.planner.llm.answer_cache`);
            ``None``: every plan asks the model.
        **client: ``api_base``, ``temperature`` (default 0), ``max_tokens`` (default: a plan of
            ``max_steps`` steps, :func:`answer_tokens`), ``mock``, ``backoff``, ``on_answer`` and
            litellm arguments, as :class:`ModelClient` takes them.
    """

    def __init__(
        self,
        model: str,
        timeout: float = 30.0,
        num_retries: int = 2,
        max_repairs: int = 2,
        top_k: int = 8,
        top_composites: int = 3,
        max_steps: int = MAX_PLAN_STEPS,
        structured: str = "auto",
        mode: str = "steps",
        cache: AnswerCache | None = None,
        **client: Any,
    ) -> None:
        if structured not in STRUCTURED_MODES:
            raise ValueError(f"structured must be one of {', '.join(STRUCTURED_MODES)}")
        if mode not in LLM_MODES:
            raise ValueError(f"mode must be one of {', '.join(LLM_MODES)}")
        self.mode = mode
        super().__init__(model, timeout, num_retries, response_format=Reply, **client)
        self.name = model
        self.structured = structured
        self.structured_as: str | None = None  # what the last request sent (schema form, json)
        self.schema: dict[str, Any] | None = None
        self.max_repairs, self.top_k, self.max_steps = max_repairs, top_k, max_steps
        self.messages: list[dict[str, str]] = []
        self.top_composites = top_composites
        self.offered: Offered = []
        """The composites the last plan's prompt offered: (name, description, body)."""
        self.composites: Composites | None = None
        self.cache = cache
        self._settled: str | None = None  # the last answer accepted, or a refusal: kept

    @classmethod
    def asked_as(cls, model: str, settings: ModelSettings, **options: Any) -> LLMPlanner:
        """The planner asking ``model`` as ``settings`` say (deadline, sampling, answer length,
        structure, mode: its own default where they name none); ``options`` are the rest
        (``mock``, ``api_base``, ``backoff``, ...)."""
        if settings.llm_mode is not None:
            options["mode"] = settings.llm_mode
        return cls(
            model,
            timeout=settings.timeout,
            temperature=settings.temperature,
            max_tokens=settings.max_tokens,
            structured=settings.structured,
            **options,
        )

    @property
    def reader(self) -> Reader:
        """``model``: the model reads the instruction."""
        return "model"

    def answer_format(self, knows_schema: bool) -> Any:
        """The plan's schema for this scene, in the form this provider takes (``structured``:
        :func:`claw.planner.llm.schema.response_format`)."""
        schema = self.schema or {}
        self.structured_as, fmt = response_format(
            self.structured, self.model, self.api_base, schema, knows_schema
        )
        return fmt

    def answer_limit(self) -> int:
        """``max_tokens`` as set, else as long as a plan of ``max_steps`` steps needs."""
        return self.max_tokens or answer_tokens(self.max_steps)

    def plan(self, instruction: str, env: TabletopEnv) -> Plan:
        """Ask the model for a plan; repair it until it validates against the scene.

        Raises:
            UnknownObjectError, UnsupportedError, UnparseableError: the model declined, or the
                instruction is longer than ``MAX_INSTRUCTION_CHARS``.
            InvalidPlanError: no usable plan after the repairs.
            PlannerUnavailableError: the model could not be reached or used.
            InvalidInstructionError: the instruction is not text.
        """
        check_instruction(instruction)  # longer than the reader takes, or not text: no call
        skills = catalogue(instruction, len(env.arms.arms), self.top_k)
        goals = goal_vocabulary(env.object_names, env.arms.arms) if self.mode == "goal" else None
        self.offered, self.composites = [], None  # none in goal mode
        if self.mode != "goal":
            self.offered, self.composites = offer_composites(instruction, self.top_composites)
        self.schema = plan_schema(
            skills,
            env.object_names,
            self.max_steps,
            goals,
            [(name, body.params) for name, _, body in self.offered],
            env.arms.arms,
        )
        offer = ""
        if self.offered:
            offer = template("composites").format(composites=describe_composites(self.offered))
        system = (
            template("system") + "\n" + template("catalogue").format(skills=describe_skills(skills))
        )
        if self.mode == "goal":
            system += "\n" + template("goal_mode")
        self.messages = [
            {"role": "system", "content": system},
            *example_turns(),
            {
                "role": "user",
                "content": template("scene").format(scene=describe_scene(env))
                + "\n"
                + (offer + "\n" if offer else "")
                + template("instruction").format(instruction=instruction),
            },
        ]
        return self._first_plan(instruction, env)

    def _first_plan(self, instruction: str, env: TabletopEnv) -> Plan:
        """The plan of the first request: the kept answer where one validates, else asked (and
        kept where it is accepted, or the model refused)."""
        if self.cache is None:
            return self._ask(env)
        key = self._request_key()
        kept = self.cache.get(key)
        if kept is not None:
            plan = self._reuse(kept.answer, env)
            if plan is not None:
                return plan
        self._settled, before = None, self.usage.model_copy()
        try:
            return self._ask(env)
        finally:
            if self._settled is not None:
                self.cache.put(
                    CachedAnswer(
                        key=key,
                        model=self.model,
                        instruction=instruction,
                        answer=self._settled,
                        prompt_tokens=self.usage.prompt_tokens - before.prompt_tokens,
                        completion_tokens=self.usage.completion_tokens - before.completion_tokens,
                    )
                )

    def _request_key(self) -> str:
        """The first request's cache key: the model, where and how it is asked, the schema and
        the messages (the instruction, the scene as shown, the skills offered)."""
        return request_key(
            model=self.model,
            api_base=self.api_base,
            mode=self.mode,
            structured=self.structured,
            temperature=self.temperature,
            max_tokens=self.answer_limit(),
            schema=self.schema,
            messages=self.messages,
        )

    def _reuse(self, text: str, env: TabletopEnv) -> Plan | None:
        """The plan of a kept answer, validated against the scene now (``None``: it does not
        validate, and the model is asked); counted as an answer from the cache, no call.

        Raises:
            ClawError: the kept answer is the model's refusal.
        """
        try:
            plan, _, _ = self._read(text, env)
        except ClawError:
            plan = None
            self._reused(text)
            raise
        if plan is not None:
            self._reused(text)
        return plan

    def _reused(self, text: str) -> None:
        """Count a kept answer as used: in ``usage.cached``, the conversation, the answer hook."""
        self.usage.cached += 1
        if self.on_answer is not None:  # a cassette recorded now has it too
            self.on_answer(self.messages, text)
        self.messages.append({"role": "assistant", "content": excerpt(text)})

    def replan(
        self, instruction: str, plan: Plan, env: TabletopEnv, failure: Failure | None = None
    ) -> Plan:
        """Tell the model what failed and how the scene is now; ask for what remains. In goal
        mode the steps are derived again from the state, and the model is not asked."""
        if uses_goal(self.mode, plan):
            return OfflinePlanner().replan(instruction, plan, env, failure)
        failure = failure or Failure(step=0, call="?", reason="unknown")
        self.messages.append(
            {
                "role": "user",
                "content": template("replan").format(
                    index=failure.step,
                    step=failure.call,
                    reason=failure.reason,
                    scene=describe_scene(env),
                    goal=", ".join(map(str, plan.goal)) or "(none)",
                ),
            }
        )
        replanned = self._ask(env)
        return Plan(goal=plan.goal or replanned.goal, steps=replanned.steps)

    def _ask(self, env: TabletopEnv) -> Plan:
        too_long = False
        problems: list[str] = []
        for attempt in range(self.max_repairs + 1):
            text = self._complete(self.messages)
            try:
                plan, problems, steps = self._read(text, env)
            except ClawError:  # the model refused: its answer, kept as an accepted one is
                self._settled = text
                raise
            if plan is not None:
                self._settled = text
                self.messages.append({"role": "assistant", "content": excerpt(text)})
                return plan
            if steps > self.max_steps:
                if too_long:  # shortening was asked for once already
                    break
                too_long = True
                text = f"(an answer of {steps} steps, too long to repeat here)"
            self.messages.append(
                {"role": "assistant", "content": excerpt(text) or "(an empty answer)"}
            )
            if attempt == self.max_repairs:
                break
            self.messages.append({"role": "user", "content": repair_request(problems)})
        repairs = min(attempt, self.max_repairs)
        raise InvalidPlanError(
            clean_text(
                f"{self.model} gave no usable plan after {repairs} "
                f"repair{'' if repairs == 1 else 's'}: {'; '.join(problems)}",
                2 * TEXT_LIMIT,
            )
        )

    def _read(self, text: str, env: TabletopEnv) -> tuple[Plan | None, list[str], int]:
        """(the plan, or None and its problems, and how many steps it has) of one answer.

        Raises:
            ClawError: the model declined (unknown_object, unsupported, unparseable).
        """
        if not text.strip():
            return None, ["the answer was empty"], 0
        try:
            data = extract_json(text)
        except ValueError as exc:
            return None, [clean_text(exc, 200)], 0
        if data.get("error") is not None:  # declining wins over whatever else came with it
            try:
                declined = PlanError.model_validate(data["error"])
            except ValidationError as exc:
                return None, validation_problems(exc, prefix="error"), 0
            raise declined_error(declined)
        try:
            reply = Reply.model_validate(data)
        except ValidationError as exc:
            return None, validation_problems(exc), 0
        if len(reply.steps) > self.max_steps:
            steps, cap = len(reply.steps), self.max_steps
            return None, [f"the plan has {steps} steps, more than the cap of {cap}"], steps
        if not reply.steps and not reply.goal:
            return None, [EMPTY_PLAN], 0
        goal, errors = read_goal(reply.goal, env.object_names)
        plan = Plan(goal=goal, steps=reply.steps)
        errors += plan_problems(plan, env, self.composites)
        if uses_goal(self.mode, plan):
            errors += goal_problems(plan)
        if not errors:
            try:  # goal mode: the steps that reach the goal are the symbolic generator's
                world = env.world_state()
                plan = derive_steps(plan, world) if uses_goal(self.mode, plan) else plan
                plan = with_arms(plan, world)  # arms for the steps that name none
            except ClawError as exc:
                errors.append(exc)
        if errors:
            return None, [clean_text(e, 200) for e in errors], len(reply.steps)
        return plan, [], len(reply.steps)
