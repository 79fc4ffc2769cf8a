"""Part of a suite: ``claw eval SUITE -k EXPR --tags T --limit N``.

``-k`` works as pytest's: a name matches a case when it is a substring (any case) of the case's
id or of one of its tags, and names combine with ``and``, ``or``, ``not`` and parentheses. The
expression is parsed here, by a small recursive-descent parser (never evaluated as code).
``--tags`` keeps the cases with any of the tags (exactly as written in the suite), ``--limit``
the first N of those selected, in the suite's order.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, NoReturn

from pydantic import BaseModel, Field

from claw.eval.exceptions import InvalidSelectionError
from claw.eval.suite import Case, Suite

MAX_EXPRESSION = 1000  # characters of a -k expression
MAX_NESTING = 32  # parentheses inside one another in a -k expression
SHOWN = 60  # characters of an expression an error quotes (the reason stays on the line)
_TOKEN = re.compile(r"[()]|[^\s()]+")
_GRAMMAR = "names (matched in case ids and tags) joined by and, or, not and parentheses"

Node = tuple[Any, ...]  # ("name", text) | ("not", node) | ("and" | "or", [node, ...])


class Selection(BaseModel):
    """Which cases of a suite ran: the options given and how many of how many they kept."""

    k: str | None = None
    tags: list[str] = Field(default_factory=list)
    limit: int | None = None
    selected: int
    total: int


def select(
    suite: Suite, k: str | None = None, tags: Iterable[str] = (), limit: int | None = None
) -> tuple[Suite, Selection]:
    """The suite with only the cases that ``k``, ``tags`` and ``limit`` select, and the record
    of the selection.

    Raises:
        InvalidSelectionError: a malformed ``k``, a tag no case has, a limit under 1, or a
            selection of no case.
    """
    tags = list(tags)
    wanted = [t.strip() for text in tags for t in text.split(",") if t.strip()]
    if tags and not wanted:
        raise InvalidSelectionError("--tags: empty; allowed: tags, comma-separated or repeated")
    known = sorted({tag for case in suite.cases for tag in case.tags})
    unknown = [tag for tag in wanted if tag.casefold() not in {t.casefold() for t in known}]
    if unknown:
        shown = ", ".join(known[:20]) + (", …" if len(known) > 20 else "") or "none"
        raise InvalidSelectionError(
            f"--tags {unknown[0]!r}: no case of suite {suite.name} has it; its tags: {shown}"
        )
    if limit is not None and limit < 1:
        raise InvalidSelectionError(f"--limit {limit}: allowed: a whole number of cases, 1 or more")
    tree = parse_expression(k) if k is not None else None
    folded = {tag.casefold() for tag in wanted}
    cases = [
        case
        for case in suite.cases
        if (tree is None or _matches(tree, case))
        and (not folded or any(tag.casefold() in folded for tag in case.tags))
    ]
    if not cases:
        given = [f"-k {_quoted(k)}"] if k is not None else []
        given += [f"--tags {','.join(wanted)}"] if wanted else []
        raise InvalidSelectionError(
            f"{' '.join(given)} selects none of the {len(suite.cases)} cases of suite {suite.name}"
        )
    cases = cases[:limit]
    record = Selection(k=k, tags=wanted, limit=limit, selected=len(cases), total=len(suite.cases))
    return suite.model_copy(update={"cases": cases}), record


def parse_expression(text: str) -> Node:
    """The tree of a ``-k`` expression.

    Raises:
        InvalidSelectionError: empty, too long, nested too deep, or not of the grammar.
    """
    if len(text) > MAX_EXPRESSION:
        raise InvalidSelectionError(
            f"-k: an expression of {len(text)} characters; allowed: at most {MAX_EXPRESSION}"
        )
    tokens = _tokens(text)
    if not tokens:
        raise InvalidSelectionError(f"-k {_quoted(text)}: empty; allowed: {_GRAMMAR}")
    parser = _Parser(text, tokens)
    tree = parser.expression()
    if parser.position < len(tokens):
        parser.fail("expected and, or or the end")
    return tree


def _quoted(text: str, column: int | None = None, width: int = SHOWN) -> str:
    """``text`` quoted for a message: all of it where short, else the ``width`` characters
    around ``column`` (1-based; the start without one), marked cut, and its length."""
    if len(text) <= width:
        return repr(text)
    start = 0 if column is None else max(0, min(column - 1 - width // 2, len(text) - width))
    part = ("…" if start else "") + text[start : start + width]
    part += "…" if start + width < len(text) else ""
    return f"{part!r} ({len(text):,} characters)"


def _tokens(text: str) -> list[tuple[str, int]]:
    """(token, column) pairs: ``(``, ``)``, and words (names or and/or/not)."""
    return [(match.group(), match.start() + 1) for match in _TOKEN.finditer(text)]


class _Parser:
    """``or`` of ``and`` of (``not``* (name | ``(`` expression ``)``))."""

    def __init__(self, text: str, tokens: list[tuple[str, int]]) -> None:
        self.text, self.tokens, self.position, self.depth = text, tokens, 0, 0

    def peek(self) -> str | None:
        return self.tokens[self.position][0] if self.position < len(self.tokens) else None

    def fail(self, wanted: str) -> NoReturn:
        if self.position < len(self.tokens):
            token, column = self.tokens[self.position]
            found = f"{_quoted(token)} at column {column}"
        else:
            column, found = len(self.text), "the end"
        raise InvalidSelectionError(
            f"-k {_quoted(self.text, column)}: {wanted}, found {found}; allowed: {_GRAMMAR}"
        )

    def expression(self) -> Node:
        terms = [self.conjunction()]
        while self.peek() == "or":
            self.position += 1
            terms.append(self.conjunction())
        return terms[0] if len(terms) == 1 else ("or", terms)

    def conjunction(self) -> Node:
        factors = [self.factor()]
        while self.peek() == "and":
            self.position += 1
            factors.append(self.factor())
        return factors[0] if len(factors) == 1 else ("and", factors)

    def factor(self) -> Node:
        negations = 0
        while self.peek() == "not":
            self.position += 1
            negations += 1
        token = self.peek()
        if token == "(":
            self.depth += 1
            if self.depth > MAX_NESTING:
                self.fail(f"at most {MAX_NESTING} parentheses inside one another")
            self.position += 1
            node = self.expression()
            if self.peek() != ")":
                self.fail("expected ')'")
            self.position += 1
            self.depth -= 1
        elif token is None or token in ("and", "or", ")"):
            self.fail("expected a name, 'not' or '('")
        else:
            self.position += 1
            node = ("name", token.lower())
        return ("not", node) if negations % 2 else node


def _matches(node: Node, case: Case) -> bool:
    """Whether the case's id and tags satisfy the expression tree ``node``."""
    kind = node[0]
    if kind == "name":
        return any(node[1] in text.lower() for text in (case.id, *case.tags))
    if kind == "not":
        return not _matches(node[1], case)
    if kind == "and":
        return all(_matches(child, case) for child in node[1])
    return any(_matches(child, case) for child in node[1])
