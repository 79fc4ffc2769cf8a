"""Generated inputs: what a row's `files: {NAME: {make: GENERATOR, ...arguments}}` writes.

Each generator takes the fixtures first (most ignore them) and its row's arguments by name, and
returns the file's text or bytes. An argument named `body` is itself a file spec (a text, or a
mapping with `make:`). Suites are JSON text, which is YAML too.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from .answers import MATRIX, decline, first_answer

if TYPE_CHECKING:
    from .fixtures import Fixtures

TINY_SUITE = """name: tiny
scene: default
cases:
  - id: next-to
    instruction: put the green block next to the blue box
    seed: 0
    tags: [place]
    goal: ["next_to(green_block, blue_box)"]
  - id: err-unknown
    instruction: put the purple block in the blue box
    seed: 0
    tags: [error]
    expect_error: unknown_object
"""
TINY_IDS = ["next-to", "err-unknown"]

#: Error cases only: no physics, so sweeps over it are quick.
ERRORS_SUITE = """name: {name}
scene: default
cases:
  - id: unknown-{name}
    instruction: put the purple block in the blue box
    seed: 0
    expect_error: unknown_object
  - id: unsupported-{name}
    instruction: rotate the red block
    seed: 0
    expect_error: unsupported
"""

#: The suite cases a row's `{from: ok, ...}` and `{from: error, ...}` start from.
CASE_TEMPLATES: dict[str, dict[str, object]] = {
    "ok": {
        "id": "c1",
        "instruction": "put the green block next to the blue box",
        "seed": 0,
        "goal": ["next_to(green_block, blue_box)"],
    },
    "error": {
        "id": "err",
        "instruction": "put the purple block in the blue box",
        "seed": 0,
        "expect_error": "unknown_object",
    },
}
HUGE_COMMENT = b"# " + b"x" * 78 + b"\n"
MIB = 1024 * 1024

FileSpec = str | dict[str, object]
Generator = Callable[..., str | bytes]
#: Every generator a row may name, by its name.
GENERATORS: dict[str, Generator] = {}
G = TypeVar("G", bound=Generator)


def generator(function: G) -> G:
    """Register `function` under its name (a trailing underscore dropped)."""
    GENERATORS[function.__name__.rstrip("_")] = function
    return function


def make(spec: FileSpec, fixtures: Fixtures) -> bytes:
    """The bytes of a file spec: a text as it is, or what its generator makes."""
    if isinstance(spec, str):
        return spec.encode()
    args = dict(spec)
    made = GENERATORS[str(args.pop("make"))](fixtures, **args)
    return made.encode() if isinstance(made, str) else made


def check_arguments(spec: dict[str, object]) -> str | None:
    """What is wrong with a spec's generator name or arguments (nested bodies too), or None."""
    name = spec.get("make")
    if name not in GENERATORS:
        return f"no generator {name!r} (there are {', '.join(sorted(GENERATORS))})"
    args = {k: v for k, v in spec.items() if k != "make"}
    try:
        inspect.signature(GENERATORS[str(name)]).bind(None, **args)
    except TypeError as exc:
        return f"{name}: {exc}"
    body = args.get("body")
    return check_arguments(body) if isinstance(body, dict) else None


# -- suites, scenes, sweeps -------------------------------------------------------------------


@generator
def tiny_suite(fixtures: Fixtures) -> str:
    """Two cases: one that succeeds on physics (next-to), one refused before it (err-unknown)."""
    return TINY_SUITE


@generator
def errors_suite(fixtures: Fixtures, name: str) -> str:
    """A suite `name` of two error cases only: no physics, so sweeps over it are quick."""
    return ERRORS_SUITE.format(name=name)


@generator
def suite(
    fixtures: Fixtures,
    cases: list[dict[str, object]],
    name: str = "adv",
    scene: object = "default",
) -> str:
    """A suite; a case `{from: ok|error, FIELD: VALUE...}` is a template with fields changed."""
    made = []
    for case in cases:
        fields = dict(case)
        template = fields.pop("from", None)
        made.append({**CASE_TEMPLATES[str(template)], **fields} if template else fields)
    return json.dumps({"name": name, "scene": scene, "cases": made}, indent=1)


@generator
def scene(
    fixtures: Fixtures,
    objects: list[dict[str, object]],
    name: str = "adv",
    repeat: int = 1,
    **extra: object,
) -> str:
    """A scene of `objects` (the list `repeat` times over) with any other top-level keys."""
    return json.dumps({"name": name, **extra, "objects": objects * repeat})


@generator
def composite_scene(fixtures: Fixtures) -> str:
    """Two boxes and three blocks in a row: what the composite cases learn on."""
    return scene(
        fixtures,
        [
            {"type": "box", "color": "red", "pose": [0.45, 0.18]},
            {"type": "box", "color": "blue", "pose": [0.45, -0.18]},
            {"type": "block", "color": "red", "pose": [0.60, 0.0]},
            {"type": "block", "color": "blue", "pose": [0.36, 0.0]},
            {"type": "block", "color": "green", "pose": [0.48, 0.0]},
        ],
        name="composite-scene",
    )


@generator
def matrix_suite(fixtures: Fixtures) -> str:
    """One case per behaviour of answers.MATRIX, its instruction marked for the server's route."""
    cases = [
        {
            "id": f"m-{b}",
            "instruction": f"put the green block next to the blue box #b={b}",
            "seed": 0,
            "goal": ["next_to(green_block, blue_box)"],
        }
        for b in MATRIX
    ]
    return json.dumps({"name": "matrix", "scene": "default", "cases": cases}, indent=1)


@generator
def json_(fixtures: Fixtures, value: object) -> str:
    """`value` as one line of JSON."""
    return json.dumps(value)


@generator
def latin1(fixtures: Fixtures, text: str) -> bytes:
    """`text` encoded as Latin-1: a file that is not UTF-8."""
    return text.encode("latin-1")


# -- hostile shapes and sizes -----------------------------------------------------------------


def alias_anchors(indent: str, levels: int = 9) -> tuple[str, str]:
    """YAML lines defining a billion-laughs chain as list items; returns (text, last anchor)."""
    lines = [f"{indent}- &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    for n in range(1, levels):
        refs = ", ".join([f"*a{n - 1}"] * 9)
        lines.append(f"{indent}- &a{n} [{refs}]")
    return "\n".join(lines) + "\n", f"*a{levels - 1}"


@generator
def alias_bomb(fixtures: Fixtures, before: str = "", after: str = "", indent: int = 2) -> str:
    """`before`, the anchors &a0 .. &a8 of a billion laughs as list items, then `after`."""
    return before + alias_anchors(" " * indent)[0] + after


@generator
def wide_aliases(fixtures: Fixtures) -> str:
    """Not exponential: one list of 1,000 values referenced 300 times (300,000 values)."""
    return (
        "junk:\n  - &w ["
        + ", ".join(["1"] * 1000)
        + "]\n"
        + "".join("  - *w\n" for _ in range(300))
        + "objects: []\n"
    )


@generator
def nested(
    fixtures: Fixtures,
    open: str,
    close: str,
    depth: int,
    inner: str = "",
    before: str = "",
    after: str = "",
) -> str:
    """`open` `depth` times, `inner`, `close` as often: `[[[...]]]`, `{"a":{"a":...}}`."""
    return before + open * depth + inner + close * depth + after


@generator
def padded(fixtures: Fixtures, body: FileSpec, size: int) -> bytes:
    """`body` after comment lines, the whole exactly `size` bytes."""
    data = make(body, fixtures) + b"\n"
    filler = HUGE_COMMENT * ((size - len(data)) // len(HUGE_COMMENT) + 1)
    head = filler[: size - len(data) - 1] + b"\n"
    return head + data


@generator
def huge_yaml(fixtures: Fixtures, body: FileSpec, megabytes: int) -> bytes:
    """`megabytes` MiB of comment lines, then `body`."""
    return HUGE_COMMENT * (megabytes * MIB // len(HUGE_COMMENT)) + make(body, fixtures)


# -- made from the fixtures -------------------------------------------------------------------


@generator
def fixture(fixtures: Fixtures, name: str) -> bytes:
    """A fixture file as the CLI wrote it: base_json, oracle_json or cassette."""
    data = getattr(fixtures, name)
    assert isinstance(data, bytes), f"no fixture {name!r}"
    return data


@generator
def mutated_result(fixtures: Fixtures, case_id: str | None = None, flip: bool = False) -> bytes:
    """The base result with its first case renamed to `case_id` and/or its success flipped."""
    return fixtures.mutated_result(case_id, flip)


@generator
def huge_result(fixtures: Fixtures, copies: int) -> bytes:
    """The base result with its first case copied `copies` times."""
    return fixtures.huge_result(copies)


@generator
def nan_success_rate(fixtures: Fixtures) -> bytes:
    """The base result whose success_rate is NaN (and its number moved to a key "x")."""
    return fixtures.base_json.replace(b'"success_rate": ', b'"success_rate": NaN, "x": ', 1)


@generator
def cassette(
    fixtures: Fixtures,
    answer_of: str | None = None,
    decline_kind: str | None = None,
    message: str = "",
) -> bytes:
    """The recorded cassette with every answer replaced: by what behaviour `answer_of` answers
    first, or by a refusal of kind `decline_kind` saying `message`."""
    content = first_answer(answer_of) if answer_of else decline(decline_kind, message)
    return fixtures.cassette_with(content)


@generator
def manifest_with_description(fixtures: Fixtures, text: str) -> bytes:
    """The fixture library's manifest with every skill described as `text`."""
    return fixtures.manifest_with_description(text)
