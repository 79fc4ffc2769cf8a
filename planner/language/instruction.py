"""What is checked of an instruction before any planner reads it: that it is text, and, for a
planner that may ask a model, its length.

An instruction is text when it encodes as UTF-8: a shell passes bytes that are not UTF-8 to
Python as lone surrogates (``\\udcff`` for the byte 0xff), which no model request, JSON output or
terminal can carry. Such an instruction is ``invalid_input``, naming the character, before any
planner reads it. The length cap is the offline reader's (``MAX_INSTRUCTION_CHARS``): the LLM and
hybrid planners refuse a longer instruction as it does, before any call.
"""

from __future__ import annotations

from claw.planner.exceptions import InvalidInstructionError, UnparseableError
from claw.planner.language.grammar import MAX_INSTRUCTION_CHARS

ESCAPED_BYTES = range(0xDC80, 0xDD00)
"""The surrogates Python's ``surrogateescape`` stands a byte that is not UTF-8 for."""


def not_text(text: str) -> str | None:
    """Why ``text`` is not text: its first character that UTF-8 cannot encode, by its position
    (from 1); ``None`` when it is text."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        code = ord(text[exc.start])
        if code in ESCAPED_BYTES:
            what = f"the byte 0x{code - 0xDC00:02x}, which is not UTF-8"
        else:
            what = f"U+{code:04X}, a lone surrogate, which is not a character"
        return f"character {exc.start + 1} is {what}"
    return None


def printable(text: str) -> str:
    """``text`` with each character UTF-8 cannot encode written as an escape (``\\xff`` for a
    byte that is not UTF-8, ``\\ud800`` for another lone surrogate): safe to print or dump."""
    if not_text(text) is None:
        return text
    return "".join(_escaped(c) for c in text)


def _escaped(char: str) -> str:
    code = ord(char)
    if code in ESCAPED_BYTES:
        return f"\\x{code - 0xDC00:02x}"
    return f"\\u{code:04x}" if 0xD800 <= code < 0xE000 else char


def check_text(instruction: str) -> str:
    """``instruction``, if it is text.

    Raises:
        InvalidInstructionError: it is not (the character and its position, and what to do).
    """
    problem = not_text(instruction)
    if problem is not None:
        raise InvalidInstructionError(
            f"the instruction is not UTF-8 text: {problem}; type it again as text"
        )
    return instruction


def check_instruction(instruction: str) -> str:
    """``instruction``, if it is text no longer than ``MAX_INSTRUCTION_CHARS``: what a planner
    that may ask a model checks before it asks.

    Raises:
        UnparseableError: it is longer (its length and the cap), as the offline reader says.
        InvalidInstructionError: it is not text.
    """
    if len(instruction) > MAX_INSTRUCTION_CHARS:
        raise UnparseableError(
            f"the instruction has {len(instruction):,} characters, over the cap of "
            f"{MAX_INSTRUCTION_CHARS:,} for every planner; say it in fewer words, or run it as "
            "several instructions one after another"
        )
    return check_text(instruction)
