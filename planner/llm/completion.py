"""One call to a language model through litellm: a deadline, retries, usage and cost.

An answer is returned with API keys taken out (:func:`claw.planner.text.redact`): whatever claw
shows, records or sends back of it has none.

litellm is imported here only, on first use, with ``LITELLM_LOCAL_MODEL_COST_MAP=True`` so that
importing it never reaches for the network.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from collections.abc import Callable, Sequence
from email.utils import parsedate_to_datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from claw.planner.base import Usage
from claw.planner.exceptions import PlannerUnavailableError
from claw.planner.llm.bodies import BodyTooLarge, bounded_bodies
from claw.planner.text import provider_message, redact

MAX_BACKOFF = 8.0  # s: the longest exponential backoff between two attempts
RETRY_AFTER_CAP = 30.0  # s: the longest a server's Retry-After is waited for


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


LlmMode = Literal["steps", "goal", "auto"]
"""Who writes a model's plan's steps (:mod:`claw.planner.llm.goal_mode`)."""


class ModelSettings(BaseModel):
    """How a model is asked: where, how long a call may take, how it samples, how long it may
    answer (``None``: as long as the longest plan allowed)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    api_base: str | None = None
    timeout: float = Field(default=30.0, gt=0)
    temperature: float = Field(default=0.0, ge=0, le=2)
    max_tokens: int | None = Field(default=None, ge=1)
    structured: Literal["auto", "schema", "json", "off"] = "auto"
    llm_mode: LlmMode | None = None
    """``None``: the planner's own default (``steps``; ``goal`` for the model of
    ``offline+MODEL``)."""
    cache: bool = True
    """Keep and reuse a model's first answers (``claw.planner.llm.answer_cache``; ``--no-cache``);
    the cache is also off where ``CLAW_ANSWER_CACHE=off``."""


class ModelClient:
    """Calls a model through litellm (any provider; keys from its usual env vars).

    Every call ends within ``timeout`` seconds whatever the server does (a server that trickles
    its answer a byte at a time included): litellm runs in a worker thread that is abandoned at
    the deadline, which counts as a timeout. A call therefore gives up after about
    ``(num_retries + 1) × timeout`` plus the waits between attempts.

    Args:
        model: A litellm model string (``gpt-4o-mini``, ``ollama/llama3``, ...).
        timeout: Seconds per call: a deadline, not a per-read timeout.
        num_retries: Retries on rate limits, timeouts, connection and server errors (500, 502,
            503), after a wait: the server's ``Retry-After`` where it sends one (at most
            ``RETRY_AFTER_CAP`` seconds, and never so long that the next attempt would end
            after the overall deadline), else exponential backoff from ``backoff`` seconds (at
            most ``MAX_BACKOFF``).
        api_base: An OpenAI-compatible endpoint, for local or proxy servers.
        mock: ``f(messages)`` giving litellm's ``mock_response`` for each attempt (a string), or
            litellm mock arguments (a mapping, e.g. ``{"mock_timeout": True}``); tests and the
            offline evaluation's mocked models go through this same code path.
        on_answer: Called with the messages and the answer of every successful call.
        response_format: A pydantic model the answer must follow, where the provider can
            constrain its output to a schema.
        temperature: Sampling temperature sent with every call (0: as reproducible as the
            provider allows).
        max_tokens: The longest answer asked for (:meth:`answer_limit`); ``None`` sends none.
    """

    def __init__(
        self,
        model: str,
        timeout: float = 30.0,
        num_retries: int = 2,
        api_base: str | None = None,
        mock: Callable[[list[dict[str, str]]], str | dict[str, Any]] | None = None,
        backoff: float = 0.5,
        on_answer: Callable[[list[dict[str, str]], str], None] | None = None,
        response_format: type[BaseModel] | None = None,
        temperature: float = 0.0,
        max_tokens: int | None = None,
        **completion_kwargs: Any,
    ) -> None:
        self.model = model
        self.timeout, self.num_retries, self.backoff = timeout, num_retries, backoff
        self.api_base, self.mock, self.on_answer = api_base, mock, on_answer
        self.response_format = response_format
        self.temperature, self.max_tokens = temperature, max_tokens
        self.completion_kwargs = completion_kwargs
        self.usage = Usage()

    def answer_format(self, knows_schema: bool) -> Any:
        """``response_format`` for the next call: the pydantic model given, where litellm's
        model map says the model takes a schema (``knows_schema``); else none."""
        return self.response_format if self.response_format and knows_schema else None

    def answer_limit(self) -> int | None:
        """``max_tokens`` for the next call (None: none sent)."""
        return self.max_tokens

    def _complete(self, messages: list[dict[str, str]]) -> str:
        """The model's answer to ``messages``: one call, retried, within the deadlines.

        Raises:
            PlannerUnavailableError: the model could not be reached or used; the message has
                the provider's own words (keys hidden).
        """
        os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        import litellm

        litellm.suppress_debug_info = True  # no banners: stdout may be --json output

        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "timeout": self.timeout,
            "num_retries": 0,  # retried below, with backoff, so that every attempt is counted
            "temperature": self.temperature,
            **self.completion_kwargs,
        }
        limit = self.answer_limit()
        if limit is not None:
            kwargs["max_tokens"] = limit
        if self.api_base:
            kwargs["api_base"] = self.api_base
        answer_format = self.answer_format(knows_schema(litellm, self.model))
        if answer_format is not None:
            kwargs["response_format"] = answer_format  # structured output
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
            except BodyTooLarge as exc:  # the server's answer, not the way to it: not retried
                raise PlannerUnavailableError(f"{self.model} cannot be used: {exc}") from None
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
        text = redact(_answer_text(response), secrets)  # a key echoed goes no further
        usage = getattr(response, "usage", None)
        if self.mock is not None:  # a mocked answer's usage is made up: count what was sent
            with contextlib.suppress(Exception):
                count = litellm.token_counter
                self.usage.prompt_tokens += count(model=self.model, messages=messages)
                self.usage.completion_tokens += count(model=self.model, text=text)
        elif usage is not None:
            self.usage.prompt_tokens += int(getattr(usage, "prompt_tokens", 0) or 0)
            self.usage.completion_tokens += int(getattr(usage, "completion_tokens", 0) or 0)
        with contextlib.suppress(Exception), contextlib.redirect_stdout(sys.stderr):
            # Unknown prices (local models, some mocks) cost nothing here.
            self.usage.cost_usd += float(litellm.completion_cost(completion_response=response))
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


_abandoned: list[threading.Thread] = []  # calls left running past their deadline


def knows_schema(litellm: Any, model: str) -> bool:
    """Whether litellm's model map says ``model`` takes a response schema (False for models it
    does not know)."""
    with contextlib.suppress(Exception):
        return bool(litellm.supports_response_schema(model=model))
    return False


def abandoned_calls() -> int:
    """How many model calls given up at their deadline are still running in this process.

    A program about to exit with such calls should end with ``os._exit`` once its output is
    flushed: at interpreter shutdown, an abandoned call that holds an import lock (litellm imports
    lazily) would deadlock a finaliser that imports too.
    """
    return sum(thread.is_alive() for thread in _abandoned)


def _call_within(litellm: Any, kwargs: dict[str, Any], seconds: float, model: str) -> Any:
    """``litellm.completion(**kwargs)``, abandoned after ``seconds`` (a ``litellm.Timeout``).

    httpx's timeout bounds each read, not the call: a server trickling bytes would hold it for
    ever. The call runs in a daemon thread; at the deadline it is left to end on its own. Every
    body read in that thread is bounded as it is decoded (:mod:`claw.planner.llm.bodies`): one over
    the cap ends the call with :class:`BodyTooLarge`, whatever litellm made of it.
    """
    box: dict[str, Any] = {}
    done = threading.Event()

    def work() -> None:
        with bounded_bodies() as body:
            try:
                box["response"] = litellm.completion(**kwargs)
            except BaseException as exc:  # handed to the caller
                box["error"] = exc
            finally:
                if body.problem is not None:  # litellm wraps it in its own error, or retries
                    box["error"] = BodyTooLarge(body.problem)
                done.set()

    thread = threading.Thread(target=work, name="claw-llm-call", daemon=True)
    thread.start()
    if not done.wait(seconds):
        _abandoned.append(thread)
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
