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
  (``ambiguous`` as ``unparseable``, as the offline planner reports it) — exit 2;
- the model's answers are still unusable after the repairs (no JSON, the wrong shape, an
  unknown skill or object, bad parameters, too many steps, an empty answer):
  :class:`InvalidPlanError`, ``invalid_plan`` — exit 3;
- the model cannot be reached or used (after retries): :class:`PlannerUnavailableError`,
  ``planner_unavailable`` — exit 3.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sys
import threading
import time
import unicodedata
from collections.abc import Callable, Sequence
from email.utils import parsedate_to_datetime
from importlib import resources
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from claw.envs.errors import ClawError
from claw.envs.tabletop import TabletopEnv
from claw.planner.grammar import UnparseableError, UnsupportedError
from claw.planner.plan import MAX_PLAN_STEPS, Plan, plan_problems
from claw.skills.base import get_skill, skill_names
from claw.skills.executor import SkillCall
from claw.skills.pick import held_object

MODEL_ENV = "CLAW_MODEL"
MAX_BACKOFF = 8.0  # s: the longest exponential backoff between two attempts
RETRY_AFTER_CAP = 30.0  # s: the longest a server's Retry-After is waited for
TEXT_LIMIT = 300  # characters of a model's or provider's text that claw repeats


class PlannerUnavailableError(ClawError, RuntimeError):
    """The model could not be reached or used (after retries): network, keys, the provider."""

    kind = "planner_unavailable"


class InvalidPlanError(ClawError, ValueError):
    """The model's answers were still unusable after the repairs; the message names why."""

    kind = "invalid_plan"


_ESCAPES = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI: colours, cursor moves, erasing
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC: window titles, hyperlinks
    r"|\x1b[PX^_][^\x1b]*(?:\x1b\\)?"  # DCS, SOS, PM, APC strings
    r"|\x1b[ -/]*[0-~]?"  # any other escape
    r"|\x9b[0-?]*[ -/]*[@-~]"  # 8-bit CSI
)
_LINE_BREAKS = "\t\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"


def clean_text(text: object, limit: int = TEXT_LIMIT) -> str:
    """Text from a model or a provider, made one safe line for a terminal or a message.

    Terminal escape sequences and control or format characters are dropped, line breaks and
    tabs become spaces, runs of spaces one, and the result is cut to ``limit`` characters
    (ending with "…" where it was cut).
    """
    value = _ESCAPES.sub("", str(text))
    value = "".join(
        " " if ch in _LINE_BREAKS else ch
        for ch in value
        if ch in _LINE_BREAKS or unicodedata.category(ch) not in ("Cc", "Cf", "Cs")
    )
    value = " ".join(value.split())
    if len(value) > limit:
        value = value[: max(limit - 1, 0)].rstrip() + "…"
    return value


def _redact(text: str, secrets: Sequence[str] = ()) -> str:
    """``text`` without API keys: the values of secret-looking env vars, and ``sk-...`` keys."""
    hidden = [*secrets]
    hidden += [
        value
        for name, value in os.environ.items()
        if re.search(r"KEY|TOKEN|SECRET|PASSWORD", name.upper()) and len(value) >= 8
    ]
    for value in sorted(hidden, key=len, reverse=True):
        if value:
            text = text.replace(value, "***")
    return re.sub(r"\b(sk|rk|pk)-[A-Za-z0-9_*.\-]{4,}", r"\1-***", text)


def provider_message(exc: BaseException, secrets: Sequence[str] = ()) -> str:
    """The provider's own one-line message in an exception, without litellm's class prefixes."""
    text = str(getattr(exc, "message", "") or exc).strip()
    first = text.splitlines()[0] if text else ""
    previous = None
    while previous != first:  # "litellm.AuthenticationError: AuthenticationError: OpenAI... - "
        previous = first
        first = re.sub(r"^\s*(?:litellm\.)?\w*(?:Error|Exception)\s*[:\-]\s*", "", first)
    return clean_text(_redact(first, secrets), 200)


def retry_after(exc: BaseException) -> float | None:
    """Seconds a server asked to wait (``Retry-After``/``retry-after-ms``), if it said."""
    headers: Any = getattr(exc, "litellm_response_headers", None)
    if not headers:
        with contextlib.suppress(Exception):
            headers = exc.response.headers  # type: ignore[attr-defined]
    if not headers:
        return None
    lowered = {str(k).lower(): str(v) for k, v in dict(headers).items()}
    with contextlib.suppress(ValueError):
        if "retry-after-ms" in lowered:
            return max(0.0, float(lowered["retry-after-ms"]) / 1000.0)
    value = lowered.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:  # an HTTP date
        return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
    except (TypeError, ValueError, IndexError, OverflowError):
        return None


def _path(loc: Sequence[int | str]) -> str:
    """A pydantic error location as ``steps[0].args``."""
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def validation_problems(exc: ValidationError, prefix: str = "", limit: int = 5) -> list[str]:
    """Each problem of a validation error, naming its field: ``steps[0].args: field required``."""
    errors = exc.errors()
    problems = []
    for error in errors[:limit]:
        where = _path([*([prefix] if prefix else []), *error["loc"]]) or "the answer"
        message = str(error["msg"])
        problems.append(clean_text(f"{where}: {message[:1].lower()}{message[1:]}", 200))
    if len(errors) > limit:
        problems.append(f"and {len(errors) - limit} more")
    return problems


class PlanError(BaseModel):
    """The model declining: the instruction names no object, asks the impossible, is unclear."""

    kind: Literal["unknown_object", "unsupported", "unparseable", "ambiguous"]
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
    """The one JSON object in a reply (fenced or bare).

    Raises:
        ValueError: no JSON object, or JSON that does not decode (the message says where, by
            line and column of the whole answer).
    """
    fenced = re.search(r"```(?:json)?\s*(\{.*\})\s*```", text, re.DOTALL)
    start = fenced.start(1) if fenced else text.find("{")
    candidate = fenced.group(1) if fenced else text[start : text.rfind("}") + 1]
    if not candidate:
        raise ValueError("no JSON object in the answer")
    try:
        value = json.loads(candidate)
    except json.JSONDecodeError as exc:
        at = start + exc.pos
        line = text.count("\n", 0, at) + 1
        column = at - (text.rfind("\n", 0, at) + 1) + 1
        raise ValueError(
            f"invalid JSON at line {line}, column {column} (character {at}): {exc.msg}"
        ) from None
    if not isinstance(value, dict):
        raise ValueError("the answer is not a JSON object")
    return value


class LLMPlanner:
    """Plans with a language model through litellm (any provider; keys from its usual env vars).

    Every call ends within ``timeout`` seconds whatever the server does (a server that trickles
    its answer a byte at a time included): litellm runs in a worker thread that is abandoned at
    the deadline, which counts as a timeout. A plan therefore gives up after about
    ``(num_retries + 1) × timeout`` plus the waits between attempts.

    A plan longer than ``max_steps`` is sent back once, with its length and the cap, for a
    shorter one; a second answer that is too long ends planning with ``invalid_plan`` at once
    (it is not repaired again: a model that writes hundreds of steps seldom converges, and each
    such answer is costly). The oversized answer is not repeated to the model in full.

    Args:
        model: A litellm model string (``gpt-4o-mini``, ``ollama/llama3``, ...).
        timeout: Seconds per call: a deadline, not a per-read timeout.
        num_retries: Retries on rate limits, timeouts, connection and server errors (500, 502,
            503), after a wait: the server's ``Retry-After`` where it sends one (at most
            ``RETRY_AFTER_CAP`` seconds, and never so long that the next attempt would end
            after the planner's overall deadline), else exponential backoff from ``backoff``
            seconds (at most ``MAX_BACKOFF``).
        max_repairs: Times an unusable plan is sent back to the model with its problems.
        api_base: An OpenAI-compatible endpoint, for local or proxy servers.
        mock: ``f(messages)`` giving litellm's ``mock_response`` for each attempt (a string), or
            litellm mock arguments (a mapping, e.g. ``{"mock_timeout": True}``); tests and the
            offline evaluation's mocked models go through this same code path.
        top_k: How many skills the library's retrieval puts in the catalogue.
        on_answer: Called with the messages and the answer of every successful call.
        max_steps: The most steps a plan may have (``run_instruction`` sets it to its own cap).
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
        max_steps: int = MAX_PLAN_STEPS,
        **completion_kwargs: Any,
    ) -> None:
        self.model, self.name = model, model
        self.timeout, self.num_retries, self.max_repairs = timeout, num_retries, max_repairs
        self.api_base, self.mock, self.top_k, self.backoff = api_base, mock, top_k, backoff
        self.max_steps = max_steps
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
            litellm.exceptions.BadGatewayError,
            litellm.exceptions.ServiceUnavailableError,
        )
        secrets = [str(kwargs[k]) for k in ("api_key",) if kwargs.get(k)]
        waits = [min(self.backoff * 2**attempt, MAX_BACKOFF) for attempt in range(self.num_retries)]
        deadline = time.monotonic() + (self.num_retries + 1) * self.timeout + sum(waits)
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
                    response = _call_within(litellm, kwargs, float(kwargs["timeout"]), self.model)
                break
            except retryable as exc:
                if attempt == self.num_retries:
                    raise PlannerUnavailableError(
                        f"{self.model} could not be reached: {type(exc).__name__} after "
                        f"{attempt + 1} attempts{_said(exc, secrets)}"
                    ) from None
                time.sleep(self._wait(exc, attempt, deadline))
            except Exception as exc:  # bad request, authentication, unknown model ...
                raise PlannerUnavailableError(
                    f"{self.model} cannot be used: {type(exc).__name__}{_said(exc, secrets)}"
                ) from None
        self.usage.calls += 1
        usage = getattr(response, "usage", None)
        if usage is not None:
            self.usage.prompt_tokens += int(getattr(usage, "prompt_tokens", 0) or 0)
            self.usage.completion_tokens += int(getattr(usage, "completion_tokens", 0) or 0)
        with contextlib.suppress(Exception), contextlib.redirect_stdout(sys.stderr):
            # Unknown prices (local models, some mocks) cost nothing here.
            self.usage.cost_usd += float(litellm.completion_cost(completion_response=response))
        text = _answer_text(response)
        if self.on_answer is not None:  # e.g. recording a cassette
            self.on_answer(messages, text)
        return text

    def _wait(self, exc: BaseException, attempt: int, deadline: float) -> float:
        """Seconds before the next attempt: the server's Retry-After, else the backoff."""
        backoff = min(self.backoff * 2**attempt, MAX_BACKOFF)
        asked = retry_after(exc)
        if asked is None:
            return backoff
        room = deadline - time.monotonic() - self.timeout  # the next attempt must fit
        return max(0.0, min(asked, RETRY_AFTER_CAP, max(room, backoff)))

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
        """Ask the model for a plan; repair it until it validates against the scene.

        Raises:
            UnknownObjectError, UnsupportedError, UnparseableError: the model declined.
            InvalidPlanError: no usable plan after the repairs.
            PlannerUnavailableError: the model could not be reached or used.
        """
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
        too_long = False
        problems: list[str] = []
        for attempt in range(self.max_repairs + 1):
            text = self._complete(self.messages)
            plan, problems, steps = self._read(text, env)
            if plan is not None:
                self.messages.append({"role": "assistant", "content": text})
                return plan
            if steps > self.max_steps:
                if too_long:  # shortening was asked for once already
                    break
                too_long = True
                text = f"(an answer of {steps} steps, too long to repeat here)"
            self.messages.append({"role": "assistant", "content": text or "(an empty answer)"})
            if attempt == self.max_repairs:
                break
            self.messages.append(
                {"role": "user", "content": template("repair").format(problems="; ".join(problems))}
            )
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
            raise _declined(declined)
        try:
            reply = Reply.model_validate(data)
        except ValidationError as exc:
            return None, validation_problems(exc), 0
        if len(reply.steps) > self.max_steps:
            steps, cap = len(reply.steps), self.max_steps
            return None, [f"the plan has {steps} steps, more than the cap of {cap}"], steps
        plan = Plan(goal=reply.goal, steps=reply.steps)
        errors = plan_problems(plan, env)
        if errors:
            return None, [clean_text(e, 200) for e in errors], len(reply.steps)
        return plan, [], len(reply.steps)


def _call_within(litellm: Any, kwargs: dict[str, Any], seconds: float, model: str) -> Any:
    """``litellm.completion(**kwargs)``, abandoned after ``seconds`` (a ``litellm.Timeout``).

    httpx's timeout bounds each read, not the call: a server trickling bytes would hold it for
    ever. The call runs in a daemon thread; at the deadline it is left to end on its own.
    """
    box: dict[str, Any] = {}
    done = threading.Event()

    def work() -> None:
        try:
            box["response"] = litellm.completion(**kwargs)
        except BaseException as exc:  # handed to the caller
            box["error"] = exc
        finally:
            done.set()

    threading.Thread(target=work, name="claw-llm-call", daemon=True).start()
    if not done.wait(seconds):
        raise litellm.exceptions.Timeout(
            message=f"no complete answer within {seconds:g} s", model=model, llm_provider=""
        )
    if "error" in box:
        raise box["error"]
    return box["response"]


def _said(exc: BaseException, secrets: Sequence[str]) -> str:
    """``": <the provider's message>"``, or nothing when it said nothing."""
    message = provider_message(exc, secrets)
    return f": {message}" if message else ""


def _answer_text(response: Any) -> str:
    """The text of a response's first choice; empty when it has no choice, message or text."""
    choices = getattr(response, "choices", None) or []
    message = getattr(choices[0], "message", None) if choices else None
    content = getattr(message, "content", None)
    return content if isinstance(content, str) else ""


def _declined(error: PlanError) -> ClawError:
    """The error for a model's refusal; ``ambiguous`` is ``unparseable``, as offline says it."""
    from claw.envs.errors import UnknownObjectError

    kinds: dict[str, type[ClawError]] = {
        "unknown_object": UnknownObjectError,
        "unsupported": UnsupportedError,
        "unparseable": UnparseableError,
        "ambiguous": UnparseableError,
    }
    message = clean_text(error.message) or error.kind
    if error.kind == "ambiguous" and "ambiguous" not in message:
        message = f"ambiguous: {message}"
    return kinds[error.kind](message)


class FallbackPlanner:
    """A planner that hands over to another when the first is unavailable.

    The hand-over is said once, in one line on stderr (``note: MODEL unavailable (REASON);
    planning offline``), and kept in ``fallback_reason`` (None while the first one plans).
    """

    def __init__(self, first: Any, fallback: Any) -> None:
        self.first, self.fallback = first, fallback
        self.name = f"{first.name} (fallback {fallback.name})"
        self.active = first
        self.fallback_reason: str | None = None

    @property
    def max_steps(self) -> int:
        return int(getattr(self.active, "max_steps", MAX_PLAN_STEPS))

    @max_steps.setter
    def max_steps(self, value: int) -> None:
        for planner in (self.first, self.fallback):
            if hasattr(planner, "max_steps"):
                planner.max_steps = value

    def _hand_over(self, exc: PlannerUnavailableError) -> None:
        self.active = self.fallback
        if self.fallback_reason is None:
            reason = str(exc).removeprefix(f"{self.first.name} ")
            self.fallback_reason = clean_text(reason, 200)
            print(
                f"note: {clean_text(self.first.name, 80)} unavailable ({self.fallback_reason}); "
                f"planning {self.fallback.name}",
                file=sys.stderr,
            )

    def plan(self, instruction: str, env: TabletopEnv) -> Plan:
        try:
            return self.first.plan(instruction, env)
        except PlannerUnavailableError as exc:
            self._hand_over(exc)
            return self.fallback.plan(instruction, env)

    def replan(self, instruction: str, plan: Plan, env: TabletopEnv, failure: Any = None) -> Plan:
        try:
            return self.active.replan(instruction, plan, env, failure)
        except PlannerUnavailableError as exc:
            self._hand_over(exc)
            return self.fallback.replan(instruction, plan, env, failure)
