"""Text that comes from a model or a provider: read as data, shown as one safe line.

Nothing a model returns is evaluated, imported or run: its answer is parsed as JSON
(:func:`extract_json`), validated by pydantic (:func:`validation_problems` names each field that
failed), and every text of its, or of a provider's error, that claw shows or raises goes through
:func:`clean_text` first: one line, no control characters or terminal escapes, bounded length.
"""

from __future__ import annotations

import json
import os
import re
import unicodedata
from collections.abc import Sequence
from typing import Any

from pydantic import ValidationError

TEXT_LIMIT = 300  # characters of a model's or provider's text that claw repeats

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


def redact(text: str, secrets: Sequence[str] = ()) -> str:
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
    return clean_text(redact(first, secrets), 200)


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
