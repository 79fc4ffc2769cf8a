"""What the fake model answers: each behaviour maps a case's request index to a Reply.

A row names one as `{API:BEHAVIOUR}` in its arguments; the fake server (fake_llm.py) routes a
request to it by the path of its `--api-base`.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import json
import re
import struct
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field

from .limits import API_KEY


def completion(content: str | None) -> bytes:
    """A chat completion as OpenAI's API returns it, with `content` as the assistant's answer."""
    return json.dumps(
        {
            "id": "chatcmpl-adversarial",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": "whatever",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content},
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
        }
    ).encode()


@dataclass
class Reply:
    """One HTTP answer of the fake server."""

    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0  # sleep before answering
    trickle: bool = False  # send the body one byte every 0.5 s


def answer(content: str | None) -> Reply:
    """A 200 reply whose assistant message is `content`."""
    return Reply(body=completion(content))


def plan(steps: list[dict[str, object]], goal: list[str] | None = None) -> str:
    """A plan as the LLM planner's schema asks for it (README: goal, steps of skill + args)."""
    return json.dumps({"goal": goal or [], "steps": steps, "error": None})


VALID_PLAN = plan([{"skill": "home", "args": {}}])  # goal-less, measured by its own step
ESCAPES = (
    "\x1b[2J\x1b]0;pwned\x07\x1b[31mred\x1b[0m [bold red]rich[/bold red] [link=http://x]y[/link]"
)
_JUNK_UNIT = 'lorem {ipsum: [dolor, "sit"], amet: ``` consectetur\n'
JUNK_5MB = (_JUNK_UNIT * (5_000_000 // len(_JUNK_UNIT) + 1))[:5_000_000]
FENCES_1MB = "```{" * 262_144


def decline(kind: object, message: object) -> str:
    """A model's refusal as the planner's schema has it."""
    return json.dumps({"error": {"kind": kind, "message": message}})


#: Each behaviour maps (the request's index for this case, starting at 0) to a Reply.
BEHAVIOURS: dict[str, Callable[[int], Reply]] = {
    # usable answers
    "valid": lambda i: answer(VALID_PLAN),
    "valid_fenced": lambda i: answer("```json\n" + VALID_PLAN + "\n```"),
    "bad_then_valid": lambda i: answer("I would pick it up." if i == 0 else VALID_PLAN),
    "goal_valid": lambda i: answer(plan([], ["next_to(green_block, blue_box)"])),
    # issue 22 items 1, 8, 9: depth and size
    "deep_nest": lambda i: answer("[" * 3000 + "]" * 3000),
    "deep_object": lambda i: answer('{"a":' * 3000 + "1" + "}" * 3000),
    "deep_unclosed": lambda i: answer("[" * 100_000),
    "fences_1mb": lambda i: answer(FENCES_1MB),
    "junk_5mb": lambda i: answer(JUNK_5MB),
    # wrong shapes
    "non_json": lambda i: answer("Sure! First pick up the red block, then put it down."),
    "list": lambda i: answer("[1, 2, 3]"),
    "steps_string": lambda i: answer('{"goal": [], "steps": "pick the block"}'),
    "step_int": lambda i: answer('{"goal": [], "steps": [{"skill": 5, "args": []}]}'),
    "null": lambda i: answer("null"),
    "string": lambda i: answer('"home"'),
    "empty": lambda i: answer(""),
    "whitespace": lambda i: answer("   \n\t  "),
    "content_null": lambda i: answer(None),
    "no_choices": lambda i: Reply(body=b'{"id": "x", "object": "chat.completion", "choices": []}'),
    "body_not_json": lambda i: Reply(
        body=b"<html>hello</html>", headers={"content-type": "text/html"}
    ),
    "body_bad_utf8": lambda i: Reply(body=completion("home").replace(b'"home"', b'"\xff\xfe"')),
    "unknown_skill": lambda i: answer(plan([{"skill": "rm_rf", "args": {"path": "/"}}])),
    "unknown_object": lambda i: answer(
        plan([{"skill": "pick", "args": {"object": "purple_elephant"}}])
    ),
    "too_long": lambda i: answer(plan([{"skill": "home", "args": {}}] * 200)),
    "huge_number": lambda i: answer(
        plan(
            [
                {
                    "skill": "push",
                    "args": {"object": "red_block", "direction": "left", "distance": 1e308},
                }
            ]
        )
    ),
    "nan_number": lambda i: answer(
        '{"goal": [], "steps": [{"skill": "push", "args": {"object": "red_block", '
        '"direction": "left", "distance": NaN}}]}'
    ),
    "bigint": lambda i: answer(
        '{"goal": [], "steps": [{"skill": "push", "args": {"object": "red_block", '
        '"direction": "left", "distance": 1' + "0" * 5000 + "}}]}"
    ),
    "lone_surrogate": lambda i: answer(plan([], ["on(\ud800, red_block)"])),
    "dup_keys": lambda i: answer(
        '{"goal": [], "steps": [], "steps": [{"skill": "home", "args": {}}]}'
    ),
    "goal_cycle": lambda i: answer(
        plan([], ["on(red_block, blue_block)", "on(blue_block, red_block)"])
    ),
    "code_goal": lambda i: answer(plan([], ["__import__('os').system('touch PWNED')"])),
    # declines (README: "the model declines ... | 2 | its kind")
    "decline": lambda i: answer(decline("unknown_object", "there is no purple elephant")),
    "decline_bad_kind": lambda i: answer(decline("rm -rf /", "no")),
    "decline_nested": lambda i: answer(decline({"a": [1]}, ["x", {"y": 2}])),
    "decline_escapes": lambda i: answer(
        decline("unknown_object", ESCAPES + "\nsecond line\rthird")
    ),
    "escapes_skill": lambda i: answer(plan([{"skill": "\x1b[31mpick\x1b[0m[bold]", "args": {}}])),
    # the key echoed back (issue 22 item 13)
    "key_decline": lambda i: answer(
        decline("unknown_object", f"your key {API_KEY} found no object")
    ),
    "key_skill": lambda i: answer(plan([{"skill": API_KEY, "args": {}}])),
    "key_object": lambda i: answer(plan([{"skill": "pick", "args": {"object": API_KEY}}])),
    "key_prose": lambda i: answer(f"Sorry. Authorization: Bearer {API_KEY}"),
    "key_401": lambda i: Reply(
        status=401,
        body=json.dumps(
            {
                "error": {
                    "message": f"Incorrect API key provided: {API_KEY}",
                    "code": "invalid_api_key",
                }
            }
        ).encode(),
    ),
    # faults (README: "rate limits, timeouts, connection errors and 500/502/503 are retried")
    "slow": lambda i: Reply(body=completion(VALID_PLAN), delay_s=40.0),
    "trickle": lambda i: Reply(body=completion(VALID_PLAN) + b" " * 200, trickle=True),
    "http429": lambda i: Reply(
        status=429, headers={"retry-after": "1"}, body=b'{"error": {"message": "slow down"}}'
    ),
    "http429_day": lambda i: Reply(
        status=429,
        headers={"retry-after": "86400"},
        body=b'{"error": {"message": "come back tomorrow"}}',
    ),
    "http500": lambda i: Reply(status=500, body=b'{"error": {"message": "boom"}}'),
    "http503_html": lambda i: Reply(status=503, body=b"<html>" + ESCAPES.encode() + b"</html>"),
}


# Issue 37, round three: answers that hung the planner, bombs, values validation let through.
MIB = 1024 * 1024


@functools.cache
def gzip_zeros(mebibytes: int) -> bytes:
    """A gzip member of `mebibytes` MiB of zeros, about 1 KB per MiB: one full-flushed deflate
    block of 1 MiB repeated (each is independent of the ones before), then the trailer."""
    zeros = bytes(MIB)
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    head = packer.compress(zeros) + packer.flush(zlib.Z_FULL_FLUSH)
    unit = packer.compress(zeros) + packer.flush(zlib.Z_FULL_FLUSH)
    crc = 0
    for _ in range(mebibytes):
        crc = zlib.crc32(zeros, crc)
    trailer = struct.pack("<II", crc, (mebibytes * MIB) & 0xFFFFFFFF)
    return head + unit * (mebibytes - 1) + b"\x03\x00" + trailer  # an empty final block


PICK_RED_IN_BLUE_BOX: list[dict[str, object]] = [
    {"skill": "pick", "args": {"object": "red_block"}},
    {"skill": "place", "args": {"target": "blue_box", "relation": "in"}},
]
#: Finding 1: one predicate 3,000 times (about 80 KB, inside every answer cap).
GOAL_DUP_3000 = ["in(red_block, blue_box)"] * 3000
_BLOCKS = ["red_block", "green_block", "blue_block", "yellow_block"]
_RELATIONS = ["on", "in", "next_to", "left_of", "right_of", "behind", "in_front_of"]
#: Finding 1: 280 different predicates over the default scene's objects.
GOAL_DISTINCT = [
    form.format(f"{rel}({a}, {b})")
    for form in ("{}", "not({})")
    for a in _BLOCKS
    for b in [*_BLOCKS, "blue_box", "red_box"]
    if a != b
    for rel in _RELATIONS
]
#: Finding 5: not( nested 5,000 deep.
DEEP_NOT = "not(" * 5000 + "in(red_block, blue_box)" + ")" * 5000


def _move_to(x: str, y: str, z: str) -> str:
    """A move_to plan with raw JSON numbers (NaN and Infinity are what Python's json writes)."""
    args = f'{{"x": {x}, "y": {y}, "z": {z}}}'
    return '{"goal": [], "steps": [{"skill": "move_to", "args": ' + args + '}], "error": null}'


def _first_then(first: str, then: str) -> Callable[[int], Reply]:
    """Answer `first` to a case's first request and `then` to every later one."""
    return lambda i: answer(first if i == 0 else then)


GOAL_NEXT_TO = plan([], ["next_to(green_block, blue_box)"])
PICK_PLACE_NO_GOAL = plan(
    [
        {"skill": "pick", "args": {"object": "green_block"}},
        {"skill": "place", "args": {"target": "blue_box", "relation": "next_to"}},
    ]
)
BEHAVIOURS.update(
    {
        # finding 1: many goal predicates
        "goal_dup_3000": lambda i: answer(plan([], GOAL_DUP_3000)),
        "steps_goal_dup_3000": lambda i: answer(plan(PICK_RED_IN_BLUE_BOX, GOAL_DUP_3000)),
        "goal_distinct": lambda i: answer(plan([], GOAL_DISTINCT)),
        # finding 2: a gzip bomb (4 GiB decoded from about 4 MB sent); other encodings
        "gzip_bomb": lambda i: Reply(body=gzip_zeros(4096), headers={"content-encoding": "gzip"}),
        "gzip_valid": lambda i: Reply(
            body=gzip.compress(completion(VALID_PLAN)), headers={"content-encoding": "gzip"}
        ),
        "brotli_body": lambda i: Reply(
            body=hashlib.sha256(b"not brotli").digest() * 64, headers={"content-encoding": "br"}
        ),
        # finding 5: a goal nested 5,000 deep, always or once
        "deep_not": lambda i: answer(plan([], [DEEP_NOT])),
        "deep_not_then_valid": _first_then(plan([], [DEEP_NOT]), VALID_PLAN),
        # finding 10: values that are no numbers
        "move_to_nan": lambda i: answer(_move_to("NaN", "0.0", "0.2")),
        "move_to_inf": lambda i: answer(_move_to("0.45", "Infinity", "0.2")),
        "move_to_neg_inf": lambda i: answer(_move_to("0.45", "0.0", "-Infinity")),
        # finding 11: what no claws hold as a goal
        "both_arms_hold_block": lambda i: answer(
            plan([], ["holding(red_block, left)", "holding(red_block, right)"])
        ),
        # finding 14: goal mode, steps and no goal
        "steps_no_goal": lambda i: answer(PICK_PLACE_NO_GOAL),
        "steps_no_goal_then_goal": _first_then(PICK_PLACE_NO_GOAL, GOAL_NEXT_TO),
        # finding 15: a goal's predicate twice, reached or not
        "goal_twice": lambda i: answer(plan([], ["next_to(green_block, blue_box)"] * 2)),
        "goal_twice_unreached": lambda i: answer(
            plan([{"skill": "home", "args": {}}], ["in(red_block, blue_box)"] * 2)
        ),
        # finding 25: a two-arm skill in a one-arm scene
        "handover_one_arm": lambda i: answer(
            plan(
                [
                    {"skill": "pick", "args": {"object": "red_block"}},
                    {"skill": "handover", "args": {"object": "red_block", "to": "right"}},
                ]
            )
        ),
    }
)

#: Behaviours met once each inside one `claw eval` run (the "matrix" case), routed by a marker:
#: the instruction of case m-BEHAVIOUR ends with "#b=BEHAVIOUR".
MATRIX = [
    "valid_fenced", "deep_object", "deep_unclosed", "list", "steps_string", "step_int", "null",
    "string", "empty", "whitespace", "content_null", "no_choices", "body_not_json", "body_bad_utf8",
    "unknown_object", "huge_number", "nan_number", "bigint", "lone_surrogate", "dup_keys",
    "decline_bad_kind", "decline_nested", "escapes_skill", "key_object", "key_prose", "http500",
    "http503_html", "too_long",
]  # fmt: skip
ROUTE = re.compile(rb"#b=([a-z0-9_]+)")


def first_answer(behaviour: str) -> str:
    """The text a behaviour answers first: what a cassette replaying it holds."""
    body = json.loads(BEHAVIOURS[behaviour](0).body)
    return str(body["choices"][0]["message"]["content"])
