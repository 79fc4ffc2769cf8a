"""Text that comes from a model or a provider: read as data, shown as one safe line.

Nothing a model returns is evaluated, imported or run: its answer is parsed as JSON
(:func:`extract_json`, bounded in size and depth before parsing, in linear time), validated by
pydantic (:func:`validation_problems` names each field that failed), and every text of its, or
of a provider's error, that claw shows or raises goes through :func:`clean_text` first: one
line, no control characters or terminal escapes, bounded length. API keys are taken out of a
model's answer as it arrives (:func:`redact`), so no message or output made from it shows one.
"""

from __future__ import annotations

import json
import os
import re
import unicodedata
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

TEXT_LIMIT = 300  # characters of a model's or provider's text that claw repeats
MAX_ANSWER_CHARS = 1_000_000
"""The longest model answer read, in characters (a 50-step plan is about 5,000; a longer
answer is a problem sent back to the model, unparsed)."""
MAX_JSON_DEPTH = 32
"""The deepest nesting of arrays and objects read from a model's answer or a JSON file of
claw's (a plan is 4 deep, a ``claw eval --json`` result 7); deeper is refused before parsing."""
EXCERPT_CHARS = 10_000
"""The most of a model's answer that is sent back to it (in a repair or a replan)."""
MAX_JSON_FILE_BYTES = 64 << 20
"""The largest JSON file claw reads (a cassette, an eval result): 64 MiB."""

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


def excerpt(text: str, limit: int = EXCERPT_CHARS) -> str:
    """``text``, or its first ``limit`` characters and how many were cut."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text) - limit:,} characters cut)"


_JSON_TOKENS = re.compile(r'[\[\]{}]|"[^"\\]*(?:\\.[^"\\]*)*"?', re.DOTALL)  # unclosed: to the end


def _where(text: str, at: int) -> str:
    """``line L, column C (character at)`` of index ``at`` in ``text``."""
    line = text.count("\n", 0, at) + 1
    column = at - (text.rfind("\n", 0, at) + 1) + 1
    return f"line {line}, column {column} (character {at})"


def check_depth(text: str, start: int = 0, limit: int = MAX_JSON_DEPTH) -> None:
    """Refuse JSON from ``start`` nested deeper than ``limit`` (before it is parsed: the parser
    recurses). The scan, outside strings, ends where the value that starts there closes.

    Raises:
        ValueError: too deep; the message says where.
    """
    depth = 0
    for token in _JSON_TOKENS.finditer(text, start):
        char = text[token.start()]
        if char in "[{":
            depth += 1
            if depth > limit:
                where = _where(text, token.start())
                raise ValueError(f"JSON nested deeper than {limit} levels at {where}")
        elif char in "]}":
            depth -= 1
            if depth <= 0:
                return


def read_json_file(path: str | Path, limit: int = MAX_JSON_FILE_BYTES) -> Any:
    """The JSON document in a file, read as UTF-8 and at most ``limit`` bytes of it (a device
    such as ``/dev/zero`` is never read whole), its depth checked before parsing.

    Raises:
        OSError: the file cannot be read (``FileNotFoundError`` where it does not exist).
        ValueError: over ``limit`` bytes, not UTF-8, nested too deep, or not JSON.
    """
    with open(path, "rb") as handle:
        raw = handle.read(limit + 1)
    if len(raw) > limit:
        raise ValueError(f"larger than {limit:,} bytes; allowed: at most {limit:,}")
    return load_json(raw.decode("utf-8"))


def load_json(text: str) -> Any:
    """A JSON document (a file's text), its depth checked before parsing.

    Raises:
        ValueError: nested too deep, or not JSON (the message says where, by line and column).
    """
    check_depth(text)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"invalid JSON at {_where(text, exc.pos)}: {exc.msg}") from None


_FENCE = re.compile(r"```(?:json)?\s*\{")


def extract_json(text: str) -> dict[str, Any]:
    """The JSON object in a reply: the first after a fence (```` ``` ```` or ```` ```json ````),
    else the first in the text; what follows it is not read. Linear in the answer's length.

    Raises:
        ValueError: an answer over ``MAX_ANSWER_CHARS``, JSON nested deeper than
            ``MAX_JSON_DEPTH``, no JSON object, or JSON that does not decode (the message says
            where, by line and column of the whole answer).
    """
    if len(text) > MAX_ANSWER_CHARS:
        raise ValueError(
            f"the answer has {len(text):,} characters, more than the {MAX_ANSWER_CHARS:,} "
            "read: answer with the JSON object alone"
        )
    fenced = _FENCE.search(text)
    start = fenced.end() - 1 if fenced else text.find("{")
    if start < 0:
        raise ValueError("no JSON object in the answer")
    check_depth(text, start)
    try:
        value, _ = json.JSONDecoder().raw_decode(text, start)
    except json.JSONDecodeError as exc:
        raise ValueError(f"invalid JSON at {_where(text, exc.pos)}: {exc.msg}") from None
    except ValueError as exc:  # e.g. an integer of more digits than Python converts
        raise ValueError(f"invalid JSON at {_where(text, start)}: {exc}") from None
    if not isinstance(value, dict):
        raise ValueError("the answer is not a JSON object")
    return value
