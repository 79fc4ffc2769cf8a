#!/usr/bin/env python3
"""An adversarial campaign against the ``claw`` command line, written as a hostile new user would.

It is written from README.md (the CLI synopsis, "Failure modes", the suite / scene / sweep formats,
the LLM planner's options) and from the text of issues 22 and 37 (its round-three findings: the
cases of group ``round3``, ids ``r3-*``, each naming its finding) only -- never from the project's
source -- so that it checks the promises, not the implementation.

Every case is one or more command lines ``python -m claw ...`` (or, for the Python API README
documents, ``python -c CODE``) run in a temporary folder of its own (its own ``HOME`` and
``CLAW_HOME``, ``MUJOCO_GL=egl``, ``CLAW_EMBEDDER=hash``, an ``OPENAI_API_KEY`` that must never be
shown), each with an expectation:

* the exit code is one the README's table allows for that input (0 success, 1 attempted and
  failed, 2 bad input, 3 planner unavailable or its plans unusable, 130 interrupted);
* no ``Traceback``, no death by a signal, no ANSI escape (``\\x1b``) in anything shown or written
  (an escape a result file keeps JSON-escaped, ``\\u001b``, from its input is listed as a note);
* an error is reported once: ONE line ``error: KIND: MESSAGE`` on stderr (``note:`` lines aside,
  and after a refused reading its ``read:`` and ``try:`` lines),
  or under ``--json`` one JSON object ``{"error": {"kind", "message"}}`` on stdout;
* a deadline: the command is killed after the documented deadline plus a margin (verdict ``hang``),
  or when its process tree grows past a memory cap (verdict ``memory``);
* for ``claw eval`` runs, "no result lost": the ``--json`` file exists and holds every case;
* the API key never appears in stdout, stderr or any file the run wrote (verdict ``leak``).

Hostile model answers come from a fake OpenAI-compatible server started here on 127.0.0.1 only;
its behaviour is chosen by the ``--api-base`` path (``http://127.0.0.1:PORT/b/BEHAVIOUR/CASE/v1``).

A library that cannot be written is made so for root by a private mount namespace
(``unshare -m``, the library bind-mounted read-only), by a file where the folder should be, or by a
path under /proc; cases needing what the machine lacks (Ray, unshare, llama-cpp-python) are
skipped with the reason. The whole set (454 cases) takes about 13 minutes with ``--jobs 2`` on 2
cores.

Usage::

    python scripts/adversarial.py [--json REPORT.json] [--jobs 2] [-k SUBSTRING] [--list] [--keep]

Exit status: 0 when every case passes (or is skipped with a reason), 1 otherwise.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import gzip
import hashlib
import http.server
import importlib.util
import itertools
import json
import os
import re
import shutil
import signal
import socket
import socketserver
import struct
import subprocess
import sys
import tempfile
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

# --------------------------------------------------------------------------------------------
# Constants: the secret, deadlines, limits
# --------------------------------------------------------------------------------------------

#: Lines an error may come with on stderr: notes, and a refused reading's help (README).
HELP_LINES = ("note:", "read:", "try:")

#: The provider key every case runs with; README: "keys ... never printed", "keys hidden".
API_KEY = "sk-test-" + hashlib.sha256(str(os.getpid()).encode()).hexdigest()[:32]

#: README: "`claw "…"` starts cold in about 0.8 s"; bad input fails before anything moves. The
#: margin covers a loaded 2-core machine and imports (litellm alone takes ~10 s here).
FAST = 45.0
#: Runs that import litellm (any LLM planner path) before the first call.
LLM_START = 60.0
#: A small run on physics (one instruction, or a 2-case suite with --workers 1).
PHYS = 120.0
#: `claw train` / `claw tune` refusing bad input: torch and SB3 are imported first.
TRAIN = 120.0
#: `--ray ADDRESS` with nothing listening. README: "no cluster answers within 30 s
#: (CLAW_RAY_TIMEOUT) | 2 | ray_unreachable"; the margin covers start-up on a loaded machine.
RAY = 75.0
#: After SIGINT a command has this long to exit with 130 (README: "Ctrl-C | 130").
AFTER_SIGINT = 30.0
#: A process tree holding more than this much resident memory is killed (YAML alias bombs).
MEMORY_CAP_BYTES = 3 * 1024**3
#: Repair requests must quote a bounded excerpt of a bad answer (issue 22 item 9).
MAX_REPAIR_REQUEST_BYTES = 100_000


def llm_deadline(timeout: float, calls: int = 1) -> float:
    """README: "a run gives up within about (retries + 1) x timeout plus the waits" (2 retries)."""
    return LLM_START + calls * (3 * timeout + 10.0)


# --------------------------------------------------------------------------------------------
# Verdicts
# --------------------------------------------------------------------------------------------

#: Problem classes, most serious first; a case's verdict is its most serious problem.
CLASSES = (
    "traceback",  # a Python traceback in stdout or stderr
    "crash",  # killed by a signal we did not send
    "hang",  # still running at the deadline (or after SIGINT's grace)
    "memory",  # its process tree grew past MEMORY_CAP_BYTES
    "wrong-exit",  # an exit code README's table does not allow for this input
    "wrong-error",  # the error kind or message is not the one README names
    "lost-result",  # an eval --json file missing or without every case
    "leak",  # the API key shown or written
    "ansi",  # an ANSI escape in output or in a written file
    "format",  # an error not reported as one line / one JSON object
    "wrong-output",  # something promised missing from the output (a note, a selection, a file)
    "side-effect",  # an input overwritten, a file or folder created that must not be
    "inconsistent",  # two commands that must agree do not
    "orphan",  # processes left running after the command exited
)


@dataclass
class Problem:
    cls: str
    message: str


# --------------------------------------------------------------------------------------------
# The fake OpenAI-compatible server (127.0.0.1 only)
# --------------------------------------------------------------------------------------------


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
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0  # sleep before answering
    trickle: bool = False  # send the body one byte every 0.5 s


def answer(content: str | None) -> Reply:
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


def _decline(kind: object, message: object) -> str:
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
    "decline": lambda i: answer(_decline("unknown_object", "there is no purple elephant")),
    "decline_bad_kind": lambda i: answer(_decline("rm -rf /", "no")),
    "decline_nested": lambda i: answer(_decline({"a": [1]}, ["x", {"y": 2}])),
    "decline_escapes": lambda i: answer(
        _decline("unknown_object", ESCAPES + "\nsecond line\rthird")
    ),
    "escapes_skill": lambda i: answer(plan([{"skill": "\x1b[31mpick\x1b[0m[bold]", "args": {}}])),
    # the key echoed back (issue 22 item 13)
    "key_decline": lambda i: answer(
        _decline("unknown_object", f"your key {API_KEY} found no object")
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


PICK_RED_IN_BLUE_BOX = [
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

#: Behaviours met once each inside one `claw eval` run (the "matrix" case), routed by a marker.
MATRIX = [
    "valid_fenced", "deep_object", "deep_unclosed", "list", "steps_string", "step_int", "null",
    "string", "empty", "whitespace", "content_null", "no_choices", "body_not_json", "body_bad_utf8",
    "unknown_object", "huge_number", "nan_number", "bigint", "lone_surrogate", "dup_keys",
    "decline_bad_kind", "decline_nested", "escapes_skill", "key_object", "key_prose", "http500",
    "http503_html", "too_long",
]  # fmt: skip
MATRIX_SUITE = json.dumps(
    {
        "name": "matrix",
        "scene": "default",
        "cases": [
            {
                "id": f"m-{b}",
                "instruction": f"put the green block next to the blue box #b={b}",
                "seed": 0,
                "goal": ["next_to(green_block, blue_box)"],
            }
            for b in MATRIX
        ],
    },
    indent=1,
)
ROUTE = re.compile(rb"#b=([a-z0-9_]+)")


@dataclass
class Request:
    behaviour: str
    size: int
    at: float


class FakeLLM:
    """A threaded HTTP server on 127.0.0.1 answering chat completions by behaviour."""

    def __init__(self) -> None:
        self.requests: dict[str, list[Request]] = {}
        self.custom: dict[str, str] = {}  # token -> content, for behaviour "custom"
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                self._send(Reply(status=404, body=b'{"error": {"message": "not here"}}'))

            def do_POST(self) -> None:
                try:
                    length = int(self.headers.get("content-length") or 0)
                    body = self.rfile.read(min(length, 64 * 1024 * 1024))
                    parts = self.path.strip("/").split("/")
                    behaviour, token = (
                        (parts[1], parts[2]) if len(parts) > 3 and parts[0] == "b" else ("?", "?")
                    )
                    if behaviour == "route":  # the behaviour named in the instruction
                        found = ROUTE.search(body)
                        behaviour = found.group(1).decode() if found else "?"
                    with server.lock:
                        log = server.requests.setdefault(token, [])
                        index = len(log)
                        log.append(Request(behaviour, len(body), time.monotonic()))
                    if behaviour == "custom":
                        reply = answer(server.custom.get(token, ""))
                    else:
                        reply = BEHAVIOURS.get(behaviour, lambda i: Reply(status=404))(index)
                    self._send(reply)
                except Exception:  # a client that hung up; nothing to report
                    pass

            def _send(self, reply: Reply) -> None:
                deadline = time.monotonic() + reply.delay_s
                while time.monotonic() < deadline and not server.stopping.is_set():
                    time.sleep(0.1)
                self.send_response(reply.status)
                headers = {"content-type": "application/json", **reply.headers}
                for key, value in headers.items():
                    self.send_header(key, value)
                self.send_header("content-length", str(len(reply.body)))
                self.end_headers()
                if not reply.trickle:
                    self.wfile.write(reply.body)
                    return
                for n, byte in enumerate(reply.body):  # bounded: the body, or 60 s
                    if n > 120 or server.stopping.is_set():
                        break
                    self.wfile.write(bytes([byte]))
                    self.wfile.flush()
                    time.sleep(0.5)

        class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
            daemon_threads = True
            allow_reuse_address = True

        self.httpd = Server(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self.stopping.set()
        self.httpd.shutdown()
        self.httpd.server_close()

    def base(self, behaviour: str, token: str) -> str:
        return f"http://127.0.0.1:{self.port}/b/{behaviour}/{token}/v1"

    def log(self, token: str) -> list[Request]:
        with self.lock:
            return list(self.requests.get(token, []))


# --------------------------------------------------------------------------------------------
# Process handling: run, watch memory, kill the whole tree by id
# --------------------------------------------------------------------------------------------


def _proc_table() -> dict[int, tuple[int, int, int]]:
    """pid -> (ppid, starttime, rss bytes) for every process visible in /proc."""
    table: dict[int, tuple[int, int, int]] = {}
    page = os.sysconf("SC_PAGE_SIZE")
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                stat = handle.read().decode(errors="replace")
            fields = stat[stat.rindex(")") + 2 :].split()
            # fields[0] is state; ppid is fields[1]; starttime fields[19]; rss pages fields[21]
            table[int(entry)] = (int(fields[1]), int(fields[19]), int(fields[21]) * page)
        except (OSError, ValueError, IndexError):
            continue
    return table


class Tree:
    """Every descendant of one root process seen while it ran, so none escapes a kill."""

    def __init__(self, root: int) -> None:
        self.root = root
        self.seen: dict[int, int] = {}  # pid -> starttime

    def scan(self) -> int:
        """Refresh the descendants; return the tree's resident memory in bytes."""
        table = _proc_table()
        children: dict[int, list[int]] = {}
        for pid, (ppid, _start, _rss) in table.items():
            children.setdefault(ppid, []).append(pid)
        total, stack = 0, [self.root]
        for _ in range(100_000):  # bounded walk
            if not stack:
                break
            pid = stack.pop()
            if pid in table:
                total += table[pid][2]
                if pid != self.root:
                    self.seen.setdefault(pid, table[pid][1])
            stack.extend(children.get(pid, []))
        return total

    def alive(self) -> list[int]:
        table = _proc_table()
        return [pid for pid, start in self.seen.items() if pid in table and table[pid][1] == start]

    def kill(self) -> None:
        with contextlib.suppress(OSError):
            os.killpg(self.root, signal.SIGKILL)
        for pid in self.alive():
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)


@dataclass
class Run:
    argv: list[str]
    rc: int | None
    stdout: str
    stderr: str
    seconds: float
    hung: bool = False
    memory: bool = False
    signalled: bool = False
    orphans: int = 0


# --------------------------------------------------------------------------------------------
# Cases
# --------------------------------------------------------------------------------------------


Exits = set[int] | frozenset[int]


@dataclass
class Interrupt:
    """Send SIGINT (or another signal) to the process group, as Ctrl-C in a terminal does."""

    after_s: float = 5.0  # from the start, or from the server's first request when wait_request
    wait_request: bool = False
    signum: int = signal.SIGINT


@dataclass
class Cmd:
    args: list[str]  # claw's arguments; {API:behaviour}, {DIR}, {HOME}, {CLAW_HOME}, {FREE} expand
    exits: Exits
    deadline: float = FAST
    kinds: set[str] | None = None  # allowed error kinds when the exit is 2 or 3
    message_has: str | None = None  # a phrase the error message must contain
    json_stdout: bool | None = None  # None: "--json" given to a command other than eval
    eval_json: str | None = None  # eval's --json FILE, relative to the case folder
    eval_ids: list[str] | None = None  # the case ids that file must hold (0/1 exits)
    stdout_nonempty: bool = False
    stderr_has: str | None = None  # a line of stderr must start with this
    env: dict[str, str | None] = field(default_factory=dict)  # None removes a variable
    cwd: str = "."
    interrupt: Interrupt | None = None
    read_only_home: bool = False  # CLAW_HOME bind-mounted read-only (unshare -m)
    stderr_check: Callable[[str], str | None] | None = None  # extra check of the error line
    lenient_stderr: bool = False  # a server's own logs on stderr (claw llm serve) are allowed
    python: bool = False  # args go to `python` itself (`-c CODE`), not to `python -m claw`
    clean_stderr: bool = False  # whatever the exit, stderr holds only error and note lines
    lacks: tuple[str, ...] = ()  # texts its output must not show
    secrets: tuple[str, ...] = ()  # secrets on its command line that must never be shown


Content = str | bytes | Callable[["Fixtures"], bytes]


@dataclass
class Case:
    id: str
    group: str
    cmd: Cmd | None = None
    files: dict[str, Content] = field(default_factory=dict)
    unchanged: list[str] = field(default_factory=list)  # inputs that must stay byte-identical
    absent: list[str] = field(default_factory=list)  # paths that must not exist afterwards
    script: Callable[[Ctx], None] | None = None  # several commands and their own checks
    server_check: Callable[[list[Request]], str | None] | None = None
    library: bool = False  # start from a copy of the fixture library
    needs: str | None = None  # "ray", "unshare", "no-llama": skipped honestly otherwise
    raw_outputs: list[str] = field(default_factory=list)  # written files exempt from the ANSI scan
    links: list[tuple[str, str, str]] = field(default_factory=list)  # ("sym"|"hard", target, name)


@dataclass
class Outcome:
    case: Case
    command: str
    exit: int | None
    verdict: str
    problems: list[Problem]
    seconds: float
    skip_reason: str = ""


# --------------------------------------------------------------------------------------------
# Fixtures: results, a cassette and a library made once by the real CLI
# --------------------------------------------------------------------------------------------


@dataclass
class Fixtures:
    dir: Path
    base_json: bytes = b""
    oracle_json: bytes = b""
    cassette: bytes = b""
    library: Path | None = None
    warnings: list[str] = field(default_factory=list)

    def mutated_result(self, case_id: str | None = None, flip: bool = False) -> bytes:
        data = json.loads(self.base_json or b'{"cases": []}')
        cases = data.get("cases") or []
        if cases and isinstance(cases[0], dict):
            if case_id is not None:
                cases[0]["id"] = case_id
            if flip:
                cases[0]["success"] = not cases[0].get("success", False)
        return json.dumps(data).encode()

    def huge_result(self, copies: int) -> bytes:
        data = json.loads(self.base_json or b'{"cases": []}')
        template = (data.get("cases") or [{"id": "x", "success": True}])[0]
        data["cases"] = [{**template, "id": f"case-{n}"} for n in range(copies)]
        return json.dumps(data).encode()

    def cassette_with(self, content: str) -> bytes:
        """The recorded cassette with every answer replaced by `content`."""
        data = json.loads(self.cassette or b'{"answers": {}}')
        answers = data.get("answers")
        if isinstance(answers, dict):
            data["answers"] = {key: content for key in answers}
        return json.dumps(data).encode()

    def manifest_with_description(self, text: str) -> bytes:
        assert self.library is not None
        data = json.loads((self.library / "manifest.json").read_bytes())
        for record in data.get("skills", []):
            record["description"] = text
        return json.dumps(data).encode()


def make_fixtures(root: Path) -> Fixtures:
    fixtures = Fixtures(root / "fixtures")
    fixtures.dir.mkdir(parents=True)
    (fixtures.dir / "tiny.yaml").write_text(TINY_SUITE)
    env = base_env(fixtures.dir / "home", fixtures.dir / "claw_home")

    def claw(*args: str) -> None:
        result = subprocess.run(
            [sys.executable, "-m", "claw", *args],
            cwd=fixtures.dir,
            env=env,
            capture_output=True,
            timeout=300,
            stdin=subprocess.DEVNULL,
        )
        if result.returncode not in (0, 1):
            fixtures.warnings.append(f"fixture `claw {' '.join(args)}` exited {result.returncode}")

    claw("eval", "tiny.yaml", "--json", "base.json")
    claw(
        "eval",
        "tiny.yaml",
        "--planner",
        "mock:oracle",
        "--record",
        "cassette.json",
        "--json",
        "oracle.json",
    )
    claw("skills", "list")
    for name, attr in (
        ("base.json", "base_json"),
        ("oracle.json", "oracle_json"),
        ("cassette.json", "cassette"),
    ):
        path = fixtures.dir / name
        if path.exists():
            setattr(fixtures, attr, path.read_bytes())
        else:
            fixtures.warnings.append(f"fixture {name} was not written")
    library = fixtures.dir / "claw_home" / "library"
    if (library / "manifest.json").exists():
        fixtures.library = library
    else:
        fixtures.warnings.append("fixture library has no manifest.json")
    return fixtures


# --------------------------------------------------------------------------------------------
# Running one case
# --------------------------------------------------------------------------------------------


def base_env(home: Path, claw_home: Path) -> dict[str, str]:
    drop = ("CLAW_", "OPENAI_", "ANTHROPIC_", "AZURE_", "GEMINI_", "LITELLM_", "RAY_")
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(drop) and "proxy" not in k.lower()
    }
    home.mkdir(parents=True, exist_ok=True)
    env.update(
        HOME=str(home),
        CLAW_HOME=str(claw_home),
        MUJOCO_GL="egl",
        CLAW_EMBEDDER="hash",
        OPENAI_API_KEY=API_KEY,
        NO_PROXY="127.0.0.1,localhost",
        PYTHONUNBUFFERED="1",
    )
    return env


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


ERROR_LINE = re.compile(r"^error: ([a-z_]+): (.+)$")
READ_ONLY_WRAP = 'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && shift && exec "$@"'


class Ctx:
    """One case's folder, environment and checks; `run` runs one command and checks it."""

    def __init__(self, case: Case, root: Path, server: FakeLLM, fixtures: Fixtures) -> None:
        self.case = case
        self.dir = root / re.sub(r"[^A-Za-z0-9_.-]", "_", case.id)
        self.dir.mkdir(parents=True)
        self.home = self.dir / "home"
        self.claw_home = self.dir / "claw_home"
        self.server = server
        self.fixtures = fixtures
        self.token = re.sub(r"[^A-Za-z0-9_-]", "_", case.id)
        self.problems: list[Problem] = []
        self.runs: list[Run] = []
        self.counter = itertools.count()
        self.free = free_port()
        self.inputs: dict[Path, str] = {}

    # -- setup ---------------------------------------------------------------------------------

    def setup(self) -> None:
        if self.case.library and self.fixtures.library is not None:
            shutil.copytree(self.fixtures.library, self.claw_home / "library")
        for name, content in self.case.files.items():
            path = self.dir / name
            path.parent.mkdir(parents=True, exist_ok=True)
            data = content(self.fixtures) if callable(content) else content
            path.write_bytes(data.encode() if isinstance(data, str) else data)
        for how, target, name in self.case.links:  # the same file by another name
            if how == "sym":
                (self.dir / name).symlink_to(self.dir / target)
            else:
                os.link(self.dir / target, self.dir / name)
        for path in self._files():
            self.inputs[path] = _digest(path)

    def _files(self) -> Iterator[Path]:
        for path in self.dir.rglob("*"):
            if path.is_file() and not path.is_symlink():
                yield path

    # -- helpers for scripts -------------------------------------------------------------------

    def fail(self, cls: str, message: str) -> None:
        self.problems.append(Problem(cls, message))

    def expand(self, arg: str) -> str:
        def api(match: re.Match[str]) -> str:
            return self.server.base(match.group(1), self.token)

        arg = re.sub(r"\{API:([a-z0-9_]+)\}", api, arg)
        return (
            arg.replace("{DIR}", str(self.dir))
            .replace("{HOME}", str(self.home))
            .replace("{CLAW_HOME}", str(self.claw_home))
            .replace("{FREE}", str(self.free))
        )

    def composites(self) -> list[dict[str, object]]:
        """The composite records of this case's library, read from the manifest file."""
        manifest = self.claw_home / "library" / "manifest.json"
        try:
            data = json.loads(manifest.read_bytes())
        except (OSError, ValueError):
            return []
        return [
            r
            for r in data.get("skills", [])
            if isinstance(r, dict) and r.get("kind") == "composite"
        ]

    # -- running -------------------------------------------------------------------------------

    def run(self, cmd: Cmd) -> Run:
        args = [self.expand(a) for a in cmd.args]
        argv = [sys.executable, *args] if cmd.python else [sys.executable, "-m", "claw", *args]
        if cmd.read_only_home:
            self.claw_home.mkdir(parents=True, exist_ok=True)
            argv = [
                "unshare",
                "-m",
                "--propagation",
                "private",
                "sh",
                "-c",
                READ_ONLY_WRAP,
                "sh",
                str(self.claw_home),
                *argv,
            ]
        env = base_env(self.home, self.claw_home)
        for key, value in cmd.env.items():
            if value is None:
                env.pop(key, None)
            else:
                env[key] = self.expand(value)
        cwd = self.dir / cmd.cwd
        cwd.mkdir(parents=True, exist_ok=True)
        n = next(self.counter)  # unique even when a script runs commands side by side
        out_path, err_path = self.dir / f".stdout{n}", self.dir / f".stderr{n}"
        started = time.monotonic()
        with open(out_path, "wb") as out, open(err_path, "wb") as err:
            proc = subprocess.Popen(
                argv,
                cwd=cwd,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                start_new_session=True,
            )
            tree = Tree(proc.pid)
            hung = memory = signalled = False
            signal_at: float | None = None
            last_scan = 0.0
            while proc.poll() is None:
                time.sleep(0.2)
                now = time.monotonic()
                if now - last_scan >= 1.0:
                    last_scan = now
                    if tree.scan() > MEMORY_CAP_BYTES:
                        memory = True
                        tree.kill()
                        break
                if (
                    cmd.interrupt
                    and signal_at is None
                    and self._interrupt_due(cmd.interrupt, started, now)
                ):
                    tree.scan()
                    with contextlib.suppress(OSError):
                        os.killpg(proc.pid, cmd.interrupt.signum)
                    signalled, signal_at = True, now
                if now - started > cmd.deadline or (
                    signal_at is not None and now - signal_at > AFTER_SIGINT
                ):
                    hung = True
                    tree.scan()
                    tree.kill()
                    break
            rc = proc.wait()
        seconds = time.monotonic() - started
        orphans = 0
        if not hung and not memory:
            for _ in range(25):  # up to 5 s for children to finish exiting
                if not tree.alive():
                    break
                time.sleep(0.2)
            orphans = len(tree.alive())
        tree.kill()
        result = Run(
            argv=args,
            rc=rc,
            stdout=_read(out_path),
            stderr=_read(err_path),
            seconds=seconds,
            hung=hung,
            memory=memory,
            signalled=signalled,
            orphans=orphans,
        )
        out_path.unlink(missing_ok=True)
        err_path.unlink(missing_ok=True)
        self.runs.append(result)
        self.check(cmd, result)
        return result

    def _interrupt_due(self, interrupt: Interrupt, started: float, now: float) -> bool:
        if not interrupt.wait_request:
            return now - started >= interrupt.after_s
        log = self.server.log(self.token)
        if log:
            return now - log[0].at >= interrupt.after_s
        return now - started >= 90.0  # no request came: interrupt anyway, bounded

    # -- the standard checks -------------------------------------------------------------------

    def check(self, cmd: Cmd, run: Run) -> None:
        shown = run.stdout + run.stderr
        label = ("python " if cmd.python else "claw ") + " ".join(_short(a, 30) for a in run.argv)
        if "Traceback (most recent call last)" in shown:
            self.fail("traceback", f"{label}: " + _traceback_tail(shown))
        if run.rc is not None and run.rc < 0 and not run.hung and not run.memory:
            self.fail("crash", f"{label}: killed by signal {-run.rc}")
        if run.hung:
            self.fail(
                "hang",
                f"{label}: still running after {run.seconds:.0f} s (deadline {cmd.deadline:.0f} s)",
            )
        if run.memory:
            self.fail(
                "memory",
                f"{label}: process tree over {MEMORY_CAP_BYTES >> 30} GiB "
                f"after {run.seconds:.0f} s",
            )
        if run.hung or run.memory:
            return
        if API_KEY in shown:
            self.fail("leak", f"{label}: the API key is in its output")
        if "\x1b" in shown:
            self.fail("ansi", f"{label}: an ANSI escape in its output: {_excerpt(shown, chr(27))}")
        if run.orphans:
            self.fail("orphan", f"{label}: {run.orphans} processes still running after it exited")
        self._check_extras(cmd, run, label)
        if run.rc not in cmd.exits:
            first = _first_line(run.stderr) or _first_line(run.stdout)
            self.fail(
                "wrong-exit",
                f"{label}: exit {run.rc}, expected {sorted(cmd.exits)}: {_short(first, 160)}",
            )
        json_mode = (
            cmd.json_stdout
            if cmd.json_stdout is not None
            else ("--json" in run.argv and run.argv[0] != "eval")
        )
        self._check_format(cmd, run, json_mode, label)
        if cmd.stdout_nonempty and run.rc in cmd.exits and not run.stdout.strip():
            self.fail(
                "wrong-output", f"{label}: exit {run.rc} and nothing on stdout (no result shown)"
            )
        stderr_lines = run.stderr.splitlines()
        if (
            cmd.stderr_has
            and run.rc in cmd.exits
            and not any(line.startswith(cmd.stderr_has) for line in stderr_lines)
        ):
            self.fail("wrong-output", f"{label}: no stderr line starting {cmd.stderr_has!r}")
        if cmd.eval_json and run.rc is not None:
            self._check_eval_json(cmd, run, label)

    def _check_extras(self, cmd: Cmd, run: Run, label: str) -> None:
        """A case's own promises: secrets never shown, texts absent, stderr free of strays."""
        shown = run.stdout + run.stderr
        for secret in cmd.secrets:
            if secret in shown:
                self.fail("leak", f"{label}: a secret of its command line is in its output")
        for text in cmd.lacks:
            if text in shown:
                self.fail("wrong-output", f"{label}: its output shows {_excerpt(shown, text)}")
        if cmd.clean_stderr:
            stray = [
                line
                for line in run.stderr.splitlines()
                if line.strip() and not line.startswith(HELP_LINES) and not ERROR_LINE.match(line)
            ]
            if stray:
                self.fail(
                    "format",
                    f"{label}: {len(stray)} stderr lines that are no error or note: "
                    + _short(" | ".join(stray[:3]), 200),
                )

    def _check_format(self, cmd: Cmd, run: Run, json_mode: bool, label: str) -> None:
        lines = [line for line in run.stderr.splitlines() if line.strip()]
        others = [line for line in lines if not line.startswith(HELP_LINES)]
        if json_mode:
            error = self._json_error(run, lines, label)
        elif cmd.lenient_stderr:
            error = None
        else:
            error = self._stderr_error(run, others, label)
        if error is not None and run.rc in cmd.exits:
            self._check_error(cmd, *error, label)

    def _json_error(self, run: Run, lines: list[str], label: str) -> tuple[str, str] | None:
        """The (kind, message) of a --json command's error object, its format checked."""
        try:
            value = json.loads(run.stdout)
        except ValueError:
            self.fail(
                "format",
                f"{label}: --json but stdout is not one JSON value: {_short(run.stdout, 120)!r}",
            )
            return None
        if _has_escape(value):
            self.fail("ansi", f"{label}: an escape character inside its JSON output")
        if run.rc == 130 and not isinstance(value, dict):
            self.fail("format", f"{label}: interrupted under --json without a JSON object")
        if run.rc not in (2, 3):
            return None
        error = value.get("error") if isinstance(value, dict) else None
        if not isinstance(error, dict) or "kind" not in error or "message" not in error:
            self.fail("format", f"{label}: exit {run.rc} under --json without an error object")
            return None
        kind, message = str(error["kind"]), str(error["message"])
        if "\n" in message or "\r" in message:
            self.fail("format", f"{label}: the JSON error message has several lines")
        if any(ERROR_LINE.match(line) for line in lines):
            self.fail("format", f"{label}: the error is reported twice (JSON and stderr)")
        return kind, message

    def _stderr_error(self, run: Run, others: list[str], label: str) -> tuple[str, str] | None:
        """The (kind, message) of the one `error:` line on stderr, its format checked."""
        if run.rc == 130:
            if not any("interrupted" in line for line in others):
                self.fail("format", f"{label}: exit 130 without an `interrupted` line on stderr")
            elif run.argv and run.argv[0] not in ("eval",) and len(others) != 1:
                self.fail(
                    "format",
                    f"{label}: exit 130 with {len(others)} stderr lines: "
                    f"{_short(' | '.join(others), 200)}",
                )
            return None
        if run.rc not in (2, 3):
            return None
        matches = [ERROR_LINE.match(line) for line in others]
        if len(others) != 1 or not matches[0]:
            self.fail(
                "format",
                f"{label}: exit {run.rc} with {len(others)} non-note stderr lines, "
                "not one `error: KIND: MESSAGE`: " + _short(" | ".join(others[:3]), 200),
            )
        found = [m for m in matches if m]
        return (found[0].group(1), found[0].group(2)) if found else None

    def _check_error(self, cmd: Cmd, kind: str, message: str, label: str) -> None:
        """The error's kind and message as the case expects."""
        if cmd.kinds and kind not in cmd.kinds:
            self.fail(
                "wrong-error",
                f"{label}: kind {kind}, expected {sorted(cmd.kinds)}: {_short(message, 120)}",
            )
        if cmd.message_has and cmd.message_has not in message:
            self.fail(
                "wrong-error",
                f"{label}: message lacks {cmd.message_has!r}: {_short(message, 160)}",
            )
        if cmd.stderr_check:
            problem = cmd.stderr_check(message)
            if problem:
                self.fail("wrong-error", f"{label}: {problem}")

    def _check_eval_json(self, cmd: Cmd, run: Run, label: str) -> None:
        assert cmd.eval_json is not None
        path = self.dir / cmd.cwd / cmd.eval_json
        if run.rc not in (0, 1, 130):
            return
        if not path.exists():
            self.fail("lost-result", f"{label}: exit {run.rc} and no {cmd.eval_json} written")
            return
        try:
            data = json.loads(path.read_bytes())
        except ValueError:
            self.fail("lost-result", f"{label}: {cmd.eval_json} is not JSON")
            return
        cases = data.get("cases") if isinstance(data, dict) else None
        if not isinstance(cases, list):
            self.fail("lost-result", f"{label}: {cmd.eval_json} has no list of cases")
            return
        if run.rc == 130:
            if data.get("interrupted") is not True:
                self.fail(
                    "lost-result",
                    f"{label}: interrupted but {cmd.eval_json} does not say interrupted: true",
                )
            return
        ids = [c.get("id") for c in cases if isinstance(c, dict)]
        if cmd.eval_ids is not None and sorted(map(str, ids)) != sorted(cmd.eval_ids):
            self.fail(
                "lost-result",
                f"{label}: {cmd.eval_json} holds cases {ids}, expected {cmd.eval_ids}",
            )

    # -- after the case ------------------------------------------------------------------------

    def final_checks(self) -> None:
        for name in self.case.unchanged:
            path = self.dir / name
            before = self.inputs.get(path)
            if before is None or not path.exists() or _digest(path) != before:
                self.fail("side-effect", f"input {name} was changed or removed")
        for name in self.case.absent:
            if (self.dir / name).exists() or (self.dir / name).is_symlink():
                self.fail("side-effect", f"{name} exists and must not")
        raw = {self.dir / name for name in self.case.raw_outputs}
        storage = (self.claw_home, self.home)  # claw's own library and caches: stored, not shown
        for path in self._files():
            if self.inputs.get(path) == _digest(path) or path.stat().st_size > 64 * 1024 * 1024:
                continue  # an unchanged input, or too big to scan
            data = path.read_bytes()
            rel = path.relative_to(self.dir)
            if API_KEY.encode() in data:
                self.fail("leak", f"the API key was written to {rel}")
            stored = any(path.is_relative_to(folder) for folder in storage)
            suffix = path.suffix in (".json", ".md", ".html", ".txt", ".yaml")
            if path in raw or stored or not suffix:
                continue
            if b"\x1b" in data:
                self.fail("ansi", f"a raw escape character was written to {rel}")
            elif b"\\u001b" in data.lower():  # JSON-escaped: harmless bytes, kept file text
                self.fail("note", f"{rel} keeps an escape character of its input, JSON-escaped")
        if self.case.server_check:
            problem = self.case.server_check(self.server.log(self.token))
            if problem:
                self.fail("wrong-output", problem)


def _digest(path: Path) -> str:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return "?"


def _read(path: Path) -> str:
    with open(path, "rb") as handle:
        return handle.read(16 * 1024 * 1024).decode("utf-8", errors="replace")


def _short(text: str, n: int) -> str:
    text = text.replace("\n", "\\n").replace("\x1b", "\\e")
    return text if len(text) <= n else text[: n - 1] + "…"


def _first_line(text: str) -> str:
    return next((line for line in text.splitlines() if line.strip()), "")


def _excerpt(text: str, needle: str) -> str:
    at = text.find(needle)
    return repr(text[max(0, at - 30) : at + 30])


def _traceback_tail(text: str) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    at = max((i for i, line in enumerate(lines) if line.startswith("Traceback")), default=0)
    rest = lines[at:]
    return _short(rest[-1] if rest else "", 160)


def _has_escape(value: object) -> bool:
    stack, seen = [value], 0
    while stack and seen < 1_000_000:
        item = stack.pop()
        seen += 1
        if isinstance(item, str) and "\x1b" in item:
            return True
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def run_case(
    case: Case, root: Path, server: FakeLLM, fixtures: Fixtures, capabilities: dict[str, str]
) -> Outcome:
    summary = (
        "claw " + " ".join(_short(a, 40) for a in case.cmd.args)
        if case.cmd
        else f"(script) {case.id}"
    )
    if case.needs and capabilities.get(case.needs):
        return Outcome(case, summary, None, "skip", [], 0.0, skip_reason=capabilities[case.needs])
    ctx = Ctx(case, root, server, fixtures)
    started = time.monotonic()
    try:
        ctx.setup()
        if case.script is not None:
            case.script(ctx)
        elif case.cmd is not None:
            ctx.run(case.cmd)
        ctx.final_checks()
    except Exception as exc:  # the harness's own failure is reported, not hidden
        ctx.fail("inconsistent", f"harness error: {type(exc).__name__}: {exc}")
    seconds = time.monotonic() - started
    rank = {cls: n for n, cls in enumerate(CLASSES)}
    failures = [p.cls for p in ctx.problems if p.cls != "note"]
    verdict = min(failures, key=lambda c: rank.get(c, 99), default="ok")
    exit_code = ctx.runs[-1].rc if ctx.runs else None
    return Outcome(case, summary, exit_code, verdict, ctx.problems, seconds)


# --------------------------------------------------------------------------------------------
# Inputs: suites, scenes, sweeps, hostile files
# --------------------------------------------------------------------------------------------

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


def suite_yaml(cases: list[dict[str, object]], name: str = "adv", scene: object = "default") -> str:
    """A suite as JSON text, which is YAML too."""
    return json.dumps({"name": name, "scene": scene, "cases": cases}, indent=1)


def one_case(**fields: object) -> dict[str, object]:
    case: dict[str, object] = {
        "id": "c1",
        "instruction": "put the green block next to the blue box",
        "seed": 0,
        "goal": ["next_to(green_block, blue_box)"],
    }
    case.update(fields)
    return case


ERROR_CASE: dict[str, object] = {
    "id": "err",
    "instruction": "put the purple block in the blue box",
    "seed": 0,
    "expect_error": "unknown_object",
}


def alias_anchors(indent: str, levels: int = 9) -> tuple[str, str]:
    """YAML lines defining a billion-laughs chain as list items; returns (text, last anchor)."""
    lines = [f"{indent}- &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    for n in range(1, levels):
        refs = ", ".join([f"*a{n - 1}"] * 9)
        lines.append(f"{indent}- &a{n} [{refs}]")
    return "\n".join(lines) + "\n", f"*a{levels - 1}"


_ANCHORS, _LAST = alias_anchors("  ")
BOMB_UNKNOWN_KEY = "name: bomb\nobjects: []\njunk:\n" + _ANCHORS
BOMB_OBJECTS = "junk:\n" + _ANCHORS + f"name: bomb\nobjects: {_LAST}\n"
BOMB_NAME = "junk:\n" + _ANCHORS + f"name: {_LAST}\nobjects: []\n"
BOMB_SUITE = (
    "name: bomb-suite\nscene: default\ncases:\n"
    "  - id: c1\n    instruction: put the green block next to the blue box\n    seed: 0\n"
    '    goal: ["next_to(green_block, blue_box)"]\n    scene:\n      junk:\n'
    + alias_anchors("        ")[0]
    + f"      objects: {_LAST}\n"
)
BOMB_SWEEP = "junk:\n" + _ANCHORS + f"name: bomb\nsuites: {_LAST}\nplanners: [offline]\n"
BOMB_HYPER_VALUE = (
    "her=["
    + ", ".join(
        [f"&b{n} [" + ", ".join([f"*b{n - 1}" if n else "lol"] * 9) + "]" for n in range(9)]
    )
    + "]"
)

LATIN1_SCENE = b"name: caf\xe9\nobjects:\n  - {type: block, color: red}\n"
LATIN1_SUITE = b"name: caf\xe9\nscene: default\ncases: []\n"
HUGE_COMMENT = b"# " + b"x" * 78 + b"\n"


def padded(body: str, size: int) -> bytes:
    """`body` after comment lines, the whole exactly `size` bytes."""
    data = body.encode() + b"\n"
    filler = HUGE_COMMENT * ((size - len(data)) // len(HUGE_COMMENT) + 1)
    head = filler[: size - len(data) - 1] + b"\n"
    return head + data


#: Not exponential: one list of 1,000 values referenced 300 times (300,000 values expanded).
WIDE_ALIASES = (
    "junk:\n  - &w ["
    + ", ".join(["1"] * 1000)
    + "]\n"
    + "".join("  - *w\n" for _ in range(300))
    + "objects: []\n"
)


def huge_yaml(body: str, megabytes: int) -> Callable[[Fixtures], bytes]:
    return lambda f: HUGE_COMMENT * (megabytes * 1024 * 1024 // len(HUGE_COMMENT)) + body.encode()


def scene_yaml(objects: list[dict[str, object]], name: str = "adv", **extra: object) -> str:
    return json.dumps({"name": name, **extra, "objects": objects})


def blocks(*colors: str, size: float | None = None) -> list[dict[str, object]]:
    return [{"type": "block", "color": c, **({"size": size} if size else {})} for c in colors]


ELEVEN = scene_yaml(
    blocks(
        "red",
        "green",
        "blue",
        "yellow",
        "orange",
        "purple",
        "pink",
        "cyan",
        "brown",
        "gray",
        "red",
        size=0.03,
    ),
    name="eleven",
    min_separation=0.02,
)
TOWER_7 = scene_yaml(
    [{"type": "block", "color": "red"}]
    + [
        {"type": "block", "color": c, "on": f"{p}_block"}
        for p, c in zip(  # noqa: B905
            ["red", "green", "blue", "yellow", "orange", "purple"],
            ["green", "blue", "yellow", "orange", "purple", "pink"],
        )
    ]
)
COMPOSITE_SCENE = scene_yaml(
    [
        {"type": "box", "color": "red", "pose": [0.45, 0.18]},
        {"type": "box", "color": "blue", "pose": [0.45, -0.18]},
        {"type": "block", "color": "red", "pose": [0.60, 0.0]},
        {"type": "block", "color": "blue", "pose": [0.36, 0.0]},
        {"type": "block", "color": "green", "pose": [0.48, 0.0]},
    ],
    name="composite-scene",
)
TWO_BOXES = "put the red block in the red box, then put the blue block in the blue box"
#: Two instructions whose abstracted names agree on their first 64 characters (issue 22 item 5).
LONG_LEFT = TWO_BOXES + ", then push the green block 5 cm to the left"
LONG_RIGHT = TWO_BOXES + ", then push the green block 5 cm to the right"
COMPOSITE_ARGS = [
    "--arg",
    "block=red_block",
    "--arg",
    "box=red_box",
    "--arg",
    "block2=blue_block",
    "--arg",
    "box2=blue_box",
]

INSTR = "put the green block next to the blue box"  # succeeds on the default scene, seed 0
BAD_OBJECT = "put the purple block in the blue box"  # unknown_object, before anything moves
#: README: "an instruction over 1,000 characters ..., or a sentence of it ... over 80 words".
CHARS_1001 = ("put the green block next to the blue box. " * 24)[:1001]
CHARS_990 = "put the green block next to the blue box. " * 22  # 924 characters
WORDS_90 = " and ".join(["put the green block next to the blue box"] * 10)
CLAUSES_100 = ", then ".join(["push the red block 1 cm to the left"] * 100)
AND_100 = " and ".join(["put the green block next to the blue box"] * 100)
KB_100 = ("put the green block next to the blue box and " * 2300)[:100_000]
WORD_100KB = "a" * 100_000


def hint_names_scene_objects(scene_names: set[str], bad: str) -> Callable[[str], str | None]:
    """Issue 22 item 19: a scene error's hint must not name an object the scene lacks."""

    def check(message: str) -> str | None:
        named = set(re.findall(r"\b[a-z]+_(?:block|box)(?:_\d+)?\b", message))
        strangers = named - scene_names - {bad}
        return f"the message names {sorted(strangers)}, not in the scene" if strangers else None

    return check


# --------------------------------------------------------------------------------------------
# Scripts: cases of several commands with their own checks
# --------------------------------------------------------------------------------------------


def script_eleven_objects(ctx: Ctx) -> None:
    """Issue 22 item 15: one limit, checked in one place -- show, run and a suite agree."""
    shown = ctx.run(Cmd(["scene", "show", "eleven.yaml"], {0, 2}, kinds={"invalid_scene"}))
    ran = ctx.run(
        Cmd(
            ["push the red block 2 cm to the left", "--scene", "eleven.yaml"],
            {0, 1, 2},
            PHYS,
            kinds={"invalid_scene"},
        )
    )
    suite = ctx.run(
        Cmd(
            ["eval", "eleven_suite.yaml", "--json", "r.json"],
            {0, 1, 2},
            PHYS,
            kinds={"invalid_suite", "invalid_scene"},
            eval_json="r.json",
            eval_ids=["c1"],
        )
    )
    accepted = {
        "scene show": shown.rc == 0,
        "claw run": ran.rc in (0, 1),
        "claw eval": suite.rc in (0, 1),
    }
    if len(set(accepted.values())) > 1:
        ctx.fail(
            "inconsistent", f"an 11-object scene accepted by some and refused by others: {accepted}"
        )


def _learn(ctx: Ctx, instruction: str) -> Run:
    return ctx.run(Cmd([instruction, "--scene", "composite.yaml", "--learn"], {0}, PHYS))


def script_composite_64(ctx: Ctx) -> None:
    """Issue 22 item 5: two composites whose names agree on 64 characters stay two skills."""
    _learn(ctx, LONG_LEFT)
    _learn(ctx, LONG_RIGHT)
    listed = ctx.run(Cmd(["skills", "list", "--json"], {0}))
    try:
        records = json.loads(listed.stdout)
    except ValueError:
        return  # reported by the standard checks
    records = records.get("skills", records) if isinstance(records, dict) else records
    composites = [r for r in records if isinstance(r, dict) and r.get("kind") == "composite"]
    names = {str(r.get("name")) for r in composites}
    if len(names) < 2:
        ctx.fail(
            "inconsistent",
            f"two different learned tasks listed as {len(names)} composite name(s): "
            f"{sorted(names)}",
        )
    for name in sorted(names)[:2]:
        ctx.run(Cmd(["skills", "show", name], {0}))
        ctx.run(
            Cmd(
                [
                    "skills",
                    "run",
                    name,
                    *COMPOSITE_ARGS,
                    "--arg",
                    "block3=green_block",
                    "--scene",
                    "composite.yaml",
                ],
                {0, 1},
                PHYS,
                stdout_nonempty=True,
            )
        )


def script_prune_race(ctx: Ctx) -> None:
    """Issue 22 item 14: prune while --learn writes must not lose the fresh artifact."""
    done = threading.Event()
    learned: list[Run] = []

    def learn() -> None:
        learned.append(_learn(ctx, TWO_BOXES))
        done.set()

    thread = threading.Thread(target=learn)
    thread.start()
    for _ in range(20):  # bounded: at most 20 prunes while the learn runs
        if done.is_set():
            break
        ctx.run(Cmd(["skills", "prune", "--min-success", "0.5"], {0}))
    thread.join(PHYS + 30)
    run = learned[0] if learned else None
    if run and "artifact_rejected" in run.stdout + run.stderr:
        ctx.fail("lost-result", "the learn run lost its artifact to a concurrent prune")
    names = [str(r.get("name")) for r in ctx.composites()]
    if not names:
        ctx.fail("lost-result", "no composite in the manifest after --learn succeeded")
    for name in names:
        ctx.run(
            Cmd(
                ["skills", "run", name, *COMPOSITE_ARGS, "--scene", "composite.yaml"],
                {0, 1},
                PHYS,
                stdout_nonempty=True,
            )
        )


def _rewrite_composite(
    ctx: Ctx, body_change: Callable[[dict[str, object]], dict[str, object]], fix_sha: bool
) -> str:
    """Learn the two-box composite, then rewrite its body (and, if asked, its sha256)."""
    _learn(ctx, TWO_BOXES)
    manifest_path = ctx.claw_home / "library" / "manifest.json"
    manifest = json.loads(manifest_path.read_bytes())
    record = next(r for r in manifest["skills"] if r.get("kind") == "composite")
    artifact = record["artifacts"][0]
    path = ctx.claw_home / "library" / artifact["path"]
    data = json.dumps(body_change(json.loads(path.read_bytes())), indent=1).encode()
    path.write_bytes(data)
    if fix_sha:
        artifact["sha256"] = hashlib.sha256(data).hexdigest()
        artifact["bytes"] = len(data)
        manifest_path.write_text(json.dumps(manifest, indent=1))
    return str(record["name"])


def script_composite_huge(ctx: Ctx) -> None:
    """Issue 22 item 10: a stored 20,002-step composite is refused at load, sha256 or not."""

    def change(body: dict[str, object]) -> dict[str, object]:
        return {
            **body,
            "steps": [{"skill": "open_gripper", "args": {}}, {"skill": "close_gripper", "args": {}}]
            * 10_001,
        }

    name = _rewrite_composite(ctx, change, fix_sha=True)
    args = ["skills", "run", name, *COMPOSITE_ARGS, "--scene", "composite.yaml"]
    ctx.run(Cmd(args, {2}, FAST + 15, kinds={"artifact_rejected"}))


def script_composite_51(ctx: Ctx) -> None:
    """README: a body of more than 50 steps is refused even with its sha256 rewritten."""

    def change(body: dict[str, object]) -> dict[str, object]:
        return {**body, "steps": [{"skill": "home", "args": {}}] * 51}

    name = _rewrite_composite(ctx, change, fix_sha=True)
    args = ["skills", "run", name, *COMPOSITE_ARGS, "--scene", "composite.yaml"]
    ctx.run(Cmd(args, {2}, kinds={"artifact_rejected"}))


def script_composite_256k(ctx: Ctx) -> None:
    """README: a body file over 256 KiB is refused even with its sha256 rewritten (valid JSON)."""

    def change(body: dict[str, object]) -> dict[str, object]:
        return body

    name = _rewrite_composite(ctx, change, fix_sha=False)
    manifest_path = ctx.claw_home / "library" / "manifest.json"
    manifest = json.loads(manifest_path.read_bytes())
    record = next(r for r in manifest["skills"] if r.get("name") == name)
    path = ctx.claw_home / "library" / record["artifacts"][0]["path"]
    data = path.read_bytes().rstrip() + b" " * (300 * 1024) + b"\n"  # whitespace: the same JSON
    path.write_bytes(data)
    record["artifacts"][0]["sha256"] = hashlib.sha256(data).hexdigest()
    record["artifacts"][0]["bytes"] = len(data)
    manifest_path.write_text(json.dumps(manifest, indent=1))
    args = ["skills", "run", name, *COMPOSITE_ARGS, "--scene", "composite.yaml"]
    ctx.run(Cmd(args, {2}, kinds={"artifact_rejected"}))


def script_composite_tampered(ctx: Ctx) -> None:
    """README: a body whose sha256 differs is refused (artifact_rejected, before anything moves)."""
    name = _rewrite_composite(
        ctx, lambda body: {**body, "format": 1, "note": "tampered"}, fix_sha=False
    )
    ctx.run(
        Cmd(
            ["skills", "run", name, *COMPOSITE_ARGS, "--scene", "composite.yaml"],
            {2},
            kinds={"artifact_rejected"},
        )
    )


def script_composite_code(ctx: Ctx) -> None:
    """README: a body naming no registered skill is refused even with a matching sha256."""

    def change(body: dict[str, object]) -> dict[str, object]:
        return {**body, "steps": [{"skill": "__import__('os').system('touch PWNED')", "args": {}}]}

    name = _rewrite_composite(ctx, change, fix_sha=True)
    ctx.run(
        Cmd(
            ["skills", "run", name, *COMPOSITE_ARGS, "--scene", "composite.yaml"],
            {2},
            kinds={"artifact_rejected"},
        )
    )
    if (ctx.dir / "PWNED").exists():
        ctx.fail("side-effect", "a composite body's text was executed (PWNED exists)")


def script_composite_max_steps(ctx: Ctx) -> None:
    """Issue 22 item 10: --max-steps counts a composite's expanded steps."""
    _learn(ctx, TWO_BOXES)
    names = [str(r.get("name")) for r in ctx.composites()]
    if not names:
        ctx.fail("lost-result", "the learn run stored no composite")
        return
    args = {"block": "red_block", "box": "red_box", "block2": "blue_block", "box2": "blue_box"}
    ctx.server.custom[ctx.token] = plan(
        [{"skill": names[0], "args": args}], ["in(red_block, red_box)", "in(blue_block, blue_box)"]
    )
    ctx.run(
        Cmd(
            [
                TWO_BOXES,
                "--scene",
                "composite.yaml",
                "--planner",
                "openai/whatever",
                "--api-base",
                "{API:custom}",
                "--timeout",
                "10",
                "--max-steps",
                "1",
            ],
            {2},  # README: "composites counted as their steps"
            llm_deadline(10, 3),
            kinds={"plan_too_long"},
        )
    )


def script_sweep_cells(out: str, cells: int, sweep: str) -> Callable[[Ctx], None]:
    """Issue 22 item 6: every cell gets its own file, or the sweep is refused before it runs."""

    def script(ctx: Ctx) -> None:
        run = ctx.run(
            Cmd(
                ["eval", "sweep", sweep, "--out", out],
                {0, 1, 2},
                PHYS * 2,
                kinds={"invalid_input", "invalid_suite"},
            )
        )
        if run.rc in (0, 1):
            files = [p for p in (ctx.dir / out).glob("*.json") if p.name != "table.json"]
            if len(files) != cells:
                ctx.fail(
                    "lost-result",
                    f"{cells} cells but {len(files)} cell files in {out}: "
                    f"{sorted(p.name for p in files)}",
                )
            if not (ctx.dir / out / "table.json").exists():
                ctx.fail("lost-result", f"no {out}/table.json")

    return script


def script_compare_json(ctx: Ctx) -> None:
    run = ctx.run(Cmd(["eval", "compare", "a.json", "b.json", "--json", "out.json"], {0, 1}))
    if run.rc in (0, 1):
        try:
            json.loads((ctx.dir / "out.json").read_bytes())
        except (OSError, ValueError):
            ctx.fail("lost-result", "compare --json out.json wrote no JSON file")


def script_eval_selection(args: list[str], expected: list[str]) -> Callable[[Ctx], None]:
    """README: -k EXPR, --tags T, --limit N run part of a suite; the JSON result records
    "selection": {"k", "tags", "limit", "selected", "total"}."""

    def script(ctx: Ctx) -> None:
        cmd = Cmd(
            ["eval", "tiny.yaml", *args, "--json", "r.json"],
            {0, 1},
            PHYS,
            eval_json="r.json",
            eval_ids=expected,
        )
        run = ctx.run(cmd)
        if run.rc not in (0, 1) or not (ctx.dir / "r.json").exists():
            return
        try:
            selection = json.loads((ctx.dir / "r.json").read_bytes()).get("selection")
        except (ValueError, AttributeError):
            return  # reported by the standard checks
        keys = {"k", "tags", "limit", "selected", "total"}
        if not isinstance(selection, dict) or not keys <= set(selection):
            ctx.fail("wrong-output", f"the JSON's selection is {selection!r}, not {sorted(keys)}")
        elif selection.get("selected") != len(expected) or selection.get("total") != len(TINY_IDS):
            ctx.fail("wrong-output", f"selection counts {selection!r} for {len(expected)} selected")

    return script


def script_claw_home_empty(ctx: Ctx) -> None:
    """Issue 22 item 17: CLAW_HOME="" means the default, never ./library."""
    ctx.run(Cmd(["skills", "list"], {0}, env={"CLAW_HOME": ""}, cwd="cwd"))
    ctx.run(Cmd([INSTR], {0, 1}, PHYS, env={"CLAW_HOME": ""}, cwd="cwd"))
    if (ctx.dir / "cwd" / "library").exists():
        ctx.fail("side-effect", "CLAW_HOME='' created ./library in the current directory")


def server_requests_small(log: list[Request]) -> str | None:
    if not log:
        return "the fake server received no request"
    big = [r.size for r in log if r.size > MAX_REPAIR_REQUEST_BYTES]
    return f"requests of {big} bytes (repairs must quote a bounded excerpt)" if big else None


def server_met_every_behaviour(log: list[Request]) -> str | None:
    """The matrix case: every behaviour's case reached the server (its marker was routed)."""
    missing = sorted(set(MATRIX) - {r.behaviour for r in log})
    return f"no request reached behaviours {missing}" if missing else None


def server_requests_made(log: list[Request]) -> str | None:
    return None if log else "the fake server received no request"


def server_no_requests(log: list[Request]) -> str | None:
    """README: refused before any planner or model -- the model is never asked."""
    return f"the fake server received {len(log)} requests; none were due" if log else None


def server_requests(least: int, most: int) -> Callable[[list[Request]], str | None]:
    """Between `least` and `most` requests: a repair was asked for, or a call was not retried."""

    def check(log: list[Request]) -> str | None:
        if least <= len(log) <= most:
            return None
        return f"the fake server received {len(log)} requests, expected {least} to {most}"

    return check


# --------------------------------------------------------------------------------------------
# Issue 37, round three: inputs, checks and Python API probes
# --------------------------------------------------------------------------------------------

#: Finding 4: README: "100 KB is refused at once, by every planner: no model is asked".
KB_119 = ("put the green block next to the blue box and " * 2700)[:119_000]
#: Finding 7: the byte 0xff as the shell passes it (a surrogate escape in Python's argv).
BAD_UTF8 = "put the green block \udcff next to the blue box"
#: Finding 8: fullwidth letters (NFKC: the same instruction as INSTR); text with no English.
FULLWIDTH = "".join(chr(ord(c) + 0xFEE0) if c != " " else c for c in INSTR)
JAPANESE = "赤いブロックを青い箱に入れて"
#: Finding 6: a hybrid nested a thousand times.
NESTED_HYBRID = "offline+" * 1000 + "openai/whatever"
#: Finding 21: -k expressions of about 1,000 characters (the cap) whose reason comes last.
K_LONG_MALFORMED = "next or " * 124 + "(("
K_LONG_NOTHING = "zzz or " * 142 + "zzz"
#: Finding 3: a password inside a tracking URI, which must never be shown.
TRACKING_PASSWORD = "pw-" + hashlib.sha256(b"tracking" + API_KEY.encode()).hexdigest()[:24]
#: Findings 11-13: a two-arm scene with a short red block; a one-arm scene with a bar.
TWO_ARMS_SMALL = scene_yaml(
    [
        {"type": "block", "color": "red", "size": 0.025, "pose": [0.45, 0.0]},
        {"type": "box", "color": "gray", "pose": [0.40, -0.15]},
    ],
    name="two-arms-small",
    arms=2,
)
ONE_ARM_BAR = scene_yaml(
    [
        {"type": "bar", "color": "yellow", "pose": [0.5, 0.0, 90]},
        {"type": "block", "color": "red", "pose": [0.4, 0.2]},
    ],
    name="one-arm-bar",
)
#: Finding 18: a Minari dataset whose metadata is not JSON.
MINARI_DIR = "home/.minari/datasets"
BROKEN_DATASET: dict[str, Content] = {
    f"{MINARI_DIR}/claw/reach/broken-v0/data/metadata.json": "{oops",
    f"{MINARI_DIR}/claw/reach/broken-v0/data/main_data.hdf5": b"\x89HDF\r\n",
}

#: The text output's check lines (a predicate and its reason) and "why:" lines (finding 15).
CHECK_LINE = re.compile(r"^(?:[✓✗] [a-z_]+\(.*\):|why:)")


def message_lacks(*words: str) -> Callable[[str], str | None]:
    """The error message must not say any of `words` (a wrong reason, a skill not offered)."""

    def check(message: str) -> str | None:
        found = [w for w in words if w in message]
        return f"the message says {found}: {_short(message, 160)}" if found else None

    return check


def script_nothing_moved(cmd: Cmd) -> Callable[[Ctx], None]:
    """A refusal "before anything moves": under --json, no step ran and nothing was replanned."""

    def script(ctx: Ctx) -> None:
        run = ctx.run(cmd)
        try:
            result = json.loads(run.stdout)
        except ValueError:
            return  # reported by the standard checks
        if not isinstance(result, dict):
            return
        steps, replans = result.get("steps") or [], result.get("replans") or 0
        if steps or replans:
            ctx.fail(
                "side-effect",
                f"refused only after {len(steps)} steps ran and {replans} replans "
                f"(error {result.get('error')!r:.120})",
            )

    return script


def script_no_repeated_lines(cmd: Cmd) -> Callable[[Ctx], None]:
    """Finding 15: each check line and each "why:" line is printed once."""

    def script(ctx: Ctx) -> None:
        run = ctx.run(cmd)
        seen: set[str] = set()
        repeated: list[str] = []
        for line in run.stdout.splitlines():
            text = line.strip()
            if CHECK_LINE.match(text):
                if text in seen:
                    repeated.append(text)
                seen.add(text)
        if not seen and run.rc in (0, 1):
            ctx.fail("wrong-output", "no check line in the text output")
        if repeated:
            ctx.fail("wrong-output", "printed twice: " + _short(" | ".join(repeated[:3]), 200))

    return script


#: Finding 16 (README "Multi-agent API"): TwoArmReach, one NaN action; a step after the end.
PY_TWO_ARM_REACH = """
import sys
import numpy as np
from claw.envs.multi_agent import TwoArmReach

problems = []
env = TwoArmReach()
env.reset(seed=0)
still = {agent: np.zeros(3, np.float32) for agent in ("left", "right")}
for bad in (np.nan, np.inf):
    try:
        env.step({"left": np.array([bad, 0.0, 0.0], np.float32), "right": still["right"]})
        problems.append(f"an action with {bad} was taken")
    except Exception:
        pass
obs, *_ = env.step(still)
if not all(np.isfinite(np.asarray(o)).all() for o in obs.values()):
    problems.append("observations are not finite after the refused actions")
steps = 0
while env.agents and steps < 500:
    env.step({agent: still[agent] for agent in env.agents})
    steps += 1
try:
    out = env.step(still)
    if out[1]:
        problems.append(f"a step after the end still returned rewards {out[1]}")
except Exception:
    pass
print("problems:", problems, file=sys.stderr if problems else sys.stdout)
sys.exit(1 if problems else 0)
"""

#: Finding 22 (README "Planner families"): claw's own families cannot be replaced, a name is a
#: plain ASCII word, a factory that returns None is refused when the planner is made.
PY_REGISTER_PLANNER = """
import sys
import claw.eval  # registers mock:* and replay:*, claw's own too
from claw.runtime import make_planner, register_planner

problems = []

def refused(name, factory):
    try:
        register_planner(name, factory)
    except (ValueError, TypeError):
        return True
    return False

for name in ("offline", "mock", "replay"):
    if not refused(name, lambda context: None):
        problems.append(f"{name!r} was replaced")
for name in ("evil\\x1b[31m", "bell\\x07", "two words", "\\u202eenilffo", "x" * 41):
    if not refused(name, lambda context: None):
        problems.append(f"the name {name!r} was taken")
if not refused("adv-not-callable", 5):
    problems.append("a factory that is not callable was taken")
register_planner("adv-none", lambda context: None)
try:
    made = make_planner("adv-none")
    problems.append(f"a factory returning None made {made!r}")
except Exception as exc:
    if getattr(exc, "kind", None) != "invalid_input":
        problems.append(f"a factory returning None: {type(exc).__name__}, not invalid_input")
planner = make_planner("offline")
if planner is None or planner.name != "offline":
    problems.append(f"make_planner('offline') made {planner!r}")
print("problems:", problems, file=sys.stderr if problems else sys.stdout)
sys.exit(1 if problems else 0)
"""

#: Finding 24 (README "Curricula", claw/PickAndPlace-v0): air_height bounded, NaN no success.
PY_PICK_AND_PLACE = """
import sys
import gymnasium as gym
import numpy as np
import claw.envs

problems = []
for difficulty in (
    {"air_height": 5.0},
    {"air_height": float("nan")},
    {"air_height": float("inf")},
    {"goal_distance": float("nan")},
):
    try:
        env = gym.make("claw/PickAndPlace-v0", difficulty=difficulty)
        env.reset(seed=0)
        problems.append(f"difficulty {difficulty} was taken")
    except Exception:
        pass
env = gym.make("claw/PickAndPlace-v0", reward_type="sparse")
obs, info = env.reset(seed=0)
desired = np.asarray(obs["desired_goal"], dtype=float)
for achieved in (np.full(3, np.nan), np.array([np.nan, desired[1], desired[2]])):
    reward = float(np.asarray(env.unwrapped.compute_reward(achieved, desired, info)).ravel()[0])
    if reward != -1.0:
        problems.append(f"a NaN achieved goal {achieved} scores {reward} under the sparse reward")
batch = env.unwrapped.compute_reward(np.full((2, 3), np.nan), np.stack([desired, desired]), info)
if not np.all(np.asarray(batch) == -1.0):
    problems.append(f"a batch of NaN achieved goals scores {batch}")
print("problems:", problems, file=sys.stderr if problems else sys.stdout)
sys.exit(1 if problems else 0)
"""


# --------------------------------------------------------------------------------------------
# The campaign
# --------------------------------------------------------------------------------------------


def build_cases() -> list[Case]:
    cases: list[Case] = []

    def add(
        id: str, group: str, args: list[str], exits: Exits, deadline: float = FAST, **kw: object
    ) -> None:
        case_fields = {k: kw.pop(k) for k in list(kw) if k in Case.__dataclass_fields__}
        cases.append(Case(id, group, Cmd(args, exits, deadline, **kw), **case_fields))  # type: ignore[arg-type]

    def script(id: str, group: str, fn: Callable[[Ctx], None], **kw: object) -> None:
        cases.append(Case(id, group, script=fn, **kw))  # type: ignore[arg-type]

    tiny = {"tiny.yaml": TINY_SUITE}

    # == CLI basics ==========================================================================
    # README "Failure modes": an unknown option, a missing or extra argument | 2 | invalid_input |
    # click's own words and `see claw CMD --help`. "options may come before or after it".
    g = "cli"
    add("version", g, ["--version"], {0}, stdout_nonempty=True)
    add("help", g, ["--help"], {0}, stdout_nonempty=True)
    add("eval-help", g, ["eval", "--help"], {0}, stdout_nonempty=True)
    add("no-args", g, [], {0, 2})  # click prints usage; README's row says 2 for a missing argument
    add(
        "unknown-option",
        g,
        ["--bogus", BAD_OBJECT],
        {2},
        kinds={"invalid_input"},
        message_has="--help",
    )
    add(
        "unknown-option-eval",
        g,
        ["eval", "tiny.yaml", "--bogus"],
        {2},
        kinds={"invalid_input"},
        files=tiny,
    )
    add(
        "unknown-option-json",
        g,
        [BAD_OBJECT, "--json", "--frobnicate"],
        {2},
        kinds={"invalid_input"},
    )
    add("extra-argument", g, [BAD_OBJECT, "and another"], {2}, kinds={"invalid_input"})
    add("missing-value", g, [BAD_OBJECT, "--seed"], {2}, kinds={"invalid_input"})
    add("seed-not-int", g, ["--seed", "abc", BAD_OBJECT], {2}, kinds={"invalid_input"})
    # README: `--seed -1` (or over 2^32-1) | 2 | invalid_input | a seed is an integer from 0 to ...
    add(
        "seed-negative",
        g,
        ["--seed", "-1", INSTR],
        {2},
        kinds={"invalid_input"},
        message_has="a seed is an integer from 0 to 4294967295",
    )
    add("seed-2pow32", g, [INSTR, "--seed", "4294967296"], {2}, kinds={"invalid_input"})
    add("seed-huge", g, [INSTR, "--seed", "9" * 40], {2}, kinds={"invalid_input"})
    add("seed-max", g, [BAD_OBJECT, "--seed", "4294967295"], {2}, kinds={"unknown_object"})
    add("order-options-first", g, ["--seed", "0", "--json", INSTR], {0}, PHYS)
    add("order-options-last", g, [INSTR, "--seed", "0"], {0}, PHYS)
    add(
        "order-run-subcommand",
        g,
        ["run", "--seed", "0", BAD_OBJECT, "--json"],
        {2},
        kinds={"unknown_object"},
    )
    add("order-double-dash", g, ["--", "--seed"], {2}, kinds={"unparseable", "invalid_input"})
    add("run-missing-instruction", g, ["run"], {2}, kinds={"invalid_input"})
    add("eval-missing-suite", g, ["eval"], {0, 2})
    add("eval-run-missing-suite", g, ["eval", "run"], {2}, kinds={"invalid_input"})
    add(
        "repeated-option",
        g,
        [BAD_OBJECT, "--seed", "1", "--seed", "2"],
        {2},
        kinds={"unknown_object", "invalid_input"},
    )

    # == Instructions ========================================================================
    # README: an empty instruction, or one nothing can be read from | 2 | unparseable; a request no
    # skill can carry out | 2 | unsupported; an object not in the scene | 2 | unknown_object; a
    # reference with no unique answer | 2 | ambiguous; an instruction over 1,000 characters (100 KB
    # refused at once), or a sentence of it over 80 words | 2 | unparseable. Issue 22 item 2.
    g = "instruction"
    add("empty", g, [""], {2}, kinds={"unparseable"})
    add("blank", g, ["   \t  "], {2}, kinds={"unparseable"})
    add("punctuation", g, ["..."], {2}, kinds={"unparseable"})
    add("unsupported-rotate", g, ["rotate the red block"], {2}, kinds={"unsupported"})
    add(
        "unsupported-under",
        g,
        ["put it under the blue box"],
        {2},
        kinds={"unsupported", "unparseable"},
    )
    add("unknown-object", g, [BAD_OBJECT], {2}, kinds={"unknown_object"})
    add("unknown-object-json", g, [BAD_OBJECT, "--json"], {2}, kinds={"unknown_object"})
    add("ambiguous", g, ["put the block in the red box"], {2}, kinds={"ambiguous"})
    add(
        "clauses-100-then",
        g,
        [CLAUSES_100],
        {2},
        kinds={"unparseable"},
    )
    add(
        "clauses-100-then-json",
        g,
        [CLAUSES_100, "--json"],
        {2},
        kinds={"unparseable"},
    )
    add(
        "clauses-100-and",
        g,
        [AND_100],
        {2},
        kinds={"unparseable"},
    )
    add(
        "instruction-100kb",
        g,
        [KB_100],
        {2},
        kinds={"unparseable"},
    )
    add("word-100kb", g, [WORD_100KB], {2}, kinds={"unparseable"})
    add("instruction-1001-chars", g, [CHARS_1001], {2}, kinds={"unparseable"}, message_has="1,000")
    add("instruction-990-chars", g, [CHARS_990], {0, 1}, PHYS)  # 22 short sentences: read
    add("sentence-90-words", g, [WORDS_90], {2}, kinds={"unparseable"})
    add(
        "escapes-in-instruction",
        g,
        ["put the \x1b[31mgreen\x1b[0m block \x1b]0;x\x07next to the blue box"],
        {0, 1, 2},
        PHYS,
    )
    add(
        "markup-in-instruction",
        g,
        ["put the [bold red]green[/] block next to the blue box"],
        {0, 1, 2},
        PHYS,
    )
    add(
        "newlines-in-instruction",
        g,
        ["put the green block\nnext to\tthe blue box"],
        {0, 1, 2},
        PHYS,
    )
    add("max-steps-1", g, [TWO_BOXES, "--max-steps", "1"], {2}, kinds={"plan_too_long"})
    add("max-steps-0", g, [INSTR, "--max-steps", "0"], {2}, kinds={"invalid_input"})
    add("max-replans-negative", g, [INSTR, "--max-replans", "-1"], {2}, kinds={"invalid_input"})
    add("timeout-zero", g, [INSTR, "--timeout", "0"], {2}, kinds={"invalid_input"})
    add("timeout-nan", g, [INSTR, "--timeout", "nan"], {2}, kinds={"invalid_input"})
    add("temperature-5", g, [INSTR, "--temperature", "5"], {2}, kinds={"invalid_input"})
    add("max-tokens-0", g, [INSTR, "--max-tokens", "0"], {2}, kinds={"invalid_input"})
    add("structured-bogus", g, [INSTR, "--structured", "bogus"], {2}, kinds={"invalid_input"})
    add("llm-mode-bogus", g, [INSTR, "--llm-mode", "bogus"], {2}, kinds={"invalid_input"})
    add("prefer-bogus", g, [INSTR, "--prefer", "bogus"], {2}, kinds={"invalid_input"})
    add("fallback-bogus", g, [INSTR, "--fallback", "bogus"], {2}, kinds={"invalid_input"})
    add(
        "viewer-headless",
        g,
        [BAD_OBJECT, "--viewer"],
        {2},
        kinds={"unknown_object", "invalid_input"},
    )
    add("video-gif", g, [INSTR, "--video", "run.gif"], {0}, PHYS)

    # == Planners by name ====================================================================
    # README: `--planner mock:what`, `mock:noisy:2`, `replay:/missing.yaml`, a cassette that is not
    # JSON | 2 | invalid_input; `--planner mock:oracle` outside `claw eval` | 2 | invalid_input.
    g = "planner-name"
    add(
        "mock-outside-eval",
        g,
        [INSTR, "--planner", "mock:oracle"],
        {2},
        kinds={"invalid_input"},
        message_has="claw eval",
    )
    add("mock-what", g, [INSTR, "--planner", "mock:what"], {2}, kinds={"invalid_input"})
    add("planner-empty", g, [INSTR, "--planner", ""], {2}, kinds={"invalid_input"})
    add(
        "replay-missing",
        g,
        [INSTR, "--planner", "replay:/missing.yaml"],
        {2},
        kinds={"invalid_input"},
    )
    add(
        "eval-mock-noisy-2",
        g,
        ["eval", "tiny.yaml", "--planner", "mock:noisy:2"],
        {2},
        kinds={"invalid_input"},
        files=tiny,
    )
    add(
        "eval-mock-noisy-neg",
        g,
        ["eval", "tiny.yaml", "--planner", "mock:noisy:-0.1"],
        {2},
        kinds={"invalid_input"},
        files=tiny,
    )
    add(
        "eval-mock-noisy-nan",
        g,
        ["eval", "tiny.yaml", "--planner", "mock:noisy:nan"],
        {2},
        kinds={"invalid_input"},
        files=tiny,
    )
    add(
        "eval-mock-faulty-abc",
        g,
        ["eval", "tiny.yaml", "--planner", "mock:faulty:abc"],
        {2},
        kinds={"invalid_input"},
        files=tiny,
    )
    add(
        "eval-mock-noisy-1",
        g,
        ["eval", "tiny.yaml", "--planner", "mock:noisy:1.0", "--json", "r.json"],
        {0, 1},
        LLM_START + PHYS,
        eval_json="r.json",
        eval_ids=TINY_IDS,
        files=tiny,
    )
    add(
        "eval-mock-faulty-1",
        g,
        ["eval", "tiny.yaml", "--planner", "mock:faulty:1.0", "--json", "r.json", "--timeout", "1"],
        {0, 1},
        LLM_START + PHYS,
        eval_json="r.json",
        eval_ids=TINY_IDS,
        files=tiny,
    )
    add(
        "eval-oracle-goal-mode",
        g,
        ["eval", "tiny.yaml", "--planner", "mock:oracle", "--llm-mode", "goal", "--json", "r.json"],
        {0, 1},
        LLM_START + PHYS,
        eval_json="r.json",
        eval_ids=TINY_IDS,
        files=tiny,
    )
    # README (the hybrid planner): with CLAW_MODEL set and no --planner, `claw "…"` runs
    # offline+$CLAW_MODEL: what the offline reader reads makes no model call; what it refuses
    # as unparseable goes to the model (here one whose answers are unusable).
    model_env = {"CLAW_MODEL": "openai/whatever", "CLAW_API_BASE": "{API:deep_nest}"}
    add(
        "claw-model-env",
        g,
        [INSTR, "--timeout", "5", "--json"],
        {0},
        PHYS,
        env=model_env,
        server_check=server_no_requests,
    )
    add(
        "claw-model-env-model-reads",
        g,
        ["赤いブロックを青い箱に入れて", "--timeout", "5"],
        {3},
        llm_deadline(5, 3),
        kinds={"invalid_plan"},
        env=model_env,
        server_check=server_requests_made,
    )
    add(
        "planner-local-nothing-listening",
        g,
        [INSTR, "--planner", "local", "--api-base", "http://127.0.0.1:{FREE}/v1", "--timeout", "2"],
        {3},
        llm_deadline(2),
        kinds={"planner_unavailable"},
    )

    # == Hostile model answers through the fake server ========================================
    # README "Failure modes": the model declines | 2 | its kind; answers still unusable after 2
    # repairs (not JSON, wrong shape, unknown skill or object, too long, empty, over 1,000,000
    # characters or nested over 32 deep), with or without --fallback offline | 3 | invalid_plan;
    # unreachable or refusing (after retries within the --timeout deadlines) | 3 |
    # planner_unavailable, keys hidden; with --fallback offline a note and an offline plan.
    # "Text that came from a model ... is cut to one line without control characters, terminal
    # escapes or rich markup." Issue 22 items 1, 8, 9, 13.
    g = "llm"

    def llm(
        id: str,
        behaviour: str,
        exits: Exits,
        kinds: set[str] | None = None,
        timeout: float = 10,
        extra: list[str] | None = None,
        deadline: float | None = None,
        **kw: object,
    ) -> None:
        args = [
            INSTR,
            "--planner",
            "openai/whatever",
            "--api-base",
            "{API:" + behaviour + "}",
            "--timeout",
            str(timeout),
        ]
        kw.setdefault("server_check", server_requests_made)
        add(
            id,
            g,
            args + (extra or []),
            exits,
            deadline or llm_deadline(timeout, 3),
            kinds=kinds,
            **kw,
        )

    invalid = {"invalid_plan"}
    llm("llm-valid", "valid", {0})
    llm("llm-valid-json", "valid", {0}, extra=["--json"])
    llm("llm-repaired", "bad_then_valid", {0})
    llm("llm-goal-mode", "goal_valid", {0}, extra=["--llm-mode", "goal"], deadline=LLM_START + PHYS)
    llm("llm-deep-nest", "deep_nest", {3}, invalid)
    llm("llm-deep-nest-json", "deep_nest", {3}, invalid, extra=["--json"])
    llm("llm-deep-nest-fallback", "deep_nest", {3}, invalid, extra=["--fallback", "offline"])
    llm("llm-fences-1mb", "fences_1mb", {3}, invalid, timeout=5, deadline=LLM_START + 45)
    llm(
        "llm-junk-5mb",
        "junk_5mb",
        {3},
        invalid,
        timeout=5,
        deadline=LLM_START + 60,
        server_check=server_requests_small,
    )
    llm("llm-non-json", "non_json", {3}, invalid)
    llm("llm-unknown-skill", "unknown_skill", {3}, invalid)
    llm("llm-too-long", "too_long", {2, 3}, {"plan_too_long", "invalid_plan"})
    llm("llm-lone-surrogate-json", "lone_surrogate", {3}, invalid, extra=["--json"])
    llm("llm-goal-cycle", "goal_cycle", {2, 3}, None, extra=["--llm-mode", "goal"])
    llm("llm-code-in-goal", "code_goal", {3}, invalid, absent=["PWNED"])
    llm("llm-decline", "decline", {2}, {"unknown_object"})
    llm("llm-decline-escapes", "decline_escapes", {2}, {"unknown_object"})
    llm("llm-decline-escapes-json", "decline_escapes", {2}, {"unknown_object"}, extra=["--json"])
    llm("llm-key-decline", "key_decline", {2}, {"unknown_object"})
    llm("llm-key-decline-json", "key_decline", {2}, {"unknown_object"}, extra=["--json"])
    llm("llm-key-skill", "key_skill", {3}, invalid)
    llm("llm-key-object-json", "key_object", {3}, invalid, extra=["--json"])
    llm("llm-key-401", "key_401", {3}, {"planner_unavailable"})
    llm("llm-slow", "slow", {3}, {"planner_unavailable"}, timeout=2, deadline=llm_deadline(2))
    llm(
        "llm-slow-fallback",
        "slow",
        {0, 1},
        timeout=2,
        extra=["--fallback", "offline"],
        deadline=llm_deadline(2) + PHYS,
        stderr_has="note:",
    )
    llm("llm-trickle", "trickle", {3}, {"planner_unavailable"}, timeout=3, deadline=llm_deadline(3))
    llm("llm-429", "http429", {3}, {"planner_unavailable"}, timeout=2, deadline=llm_deadline(2))
    llm(
        "llm-429-retry-after-a-day",
        "http429_day",
        {3},
        {"planner_unavailable"},
        timeout=2,
        deadline=llm_deadline(2) + 30,
    )
    llm(
        "llm-500-fallback",
        "http500",
        {0, 1},
        timeout=2,
        extra=["--fallback", "offline"],
        deadline=llm_deadline(2) + PHYS,
        stderr_has="note:",
    )
    add(
        "llm-connection-refused",
        g,
        [
            INSTR,
            "--planner",
            "openai/whatever",
            "--api-base",
            "http://127.0.0.1:{FREE}/v1",
            "--timeout",
            "2",
        ],
        {3},
        llm_deadline(2),
        kinds={"planner_unavailable"},
    )
    add(
        "llm-api-base-not-url",
        g,
        [INSTR, "--planner", "openai/whatever", "--api-base", "not a url", "--timeout", "2"],
        {2, 3},
        llm_deadline(2),
    )
    add(
        "llm-record-valid",
        g,
        [
            "eval",
            "tiny.yaml",
            "--planner",
            "openai/whatever",
            "--api-base",
            "{API:valid}",
            "--timeout",
            "10",
            "--record",
            "rec.json",
            "--json",
            "r.json",
        ],
        {0, 1},
        LLM_START + PHYS,
        eval_json="r.json",
        eval_ids=TINY_IDS,
        files=tiny,
        raw_outputs=["rec.json"],
    )

    # claw eval with hostile answers: "any failure of one case is that case's result, never the
    # run's" (issue 22 item 1); README: Ctrl-C aside, the results are written to --json.
    def llm_eval(
        id: str,
        behaviour: str,
        exits: Exits,
        timeout: float = 10,
        extra: list[str] | None = None,
        deadline: float | None = None,
        **kw: object,
    ) -> None:
        args = [
            "eval",
            "tiny.yaml",
            "--planner",
            "openai/whatever",
            "--api-base",
            "{API:" + behaviour + "}",
            "--timeout",
            str(timeout),
            "--json",
            "r.json",
            *(extra or []),
        ]
        add(
            id,
            g,
            args,
            exits,
            deadline or LLM_START + 2 * llm_deadline(timeout, 3),
            eval_json="r.json",
            eval_ids=TINY_IDS,
            files=tiny,
            **kw,
        )

    llm_eval("eval-llm-deep-nest", "deep_nest", {1})
    llm_eval("eval-llm-junk-5mb", "junk_5mb", {1}, timeout=5, server_check=server_requests_small)
    llm_eval("eval-llm-key-decline", "key_decline", {1})
    llm_eval("eval-llm-escapes", "decline_escapes", {1})
    llm_eval("eval-llm-slow", "slow", {1, 3}, timeout=2, deadline=LLM_START + 2 * llm_deadline(2))
    llm_eval(
        "eval-llm-deep-nest-ray",
        "deep_nest",
        {1},
        extra=["--ray", "--workers", "1"],
        deadline=LLM_START + 180,
        needs="ray",
    )

    # One `claw eval` run whose cases each meet another behaviour (the server routes on a marker
    # in the instruction): every case's failure is that case's result, the run exits 1, and the
    # --json file holds all of them (issue 22 item 1: "any failure of one case is that case's
    # result, never the run's").
    add(
        "eval-llm-matrix",
        g,
        [
            "eval",
            "matrix.yaml",
            "--planner",
            "openai/whatever",
            "--api-base",
            "{API:route}",
            "--timeout",
            "3",
            "--json",
            "r.json",
        ],
        {1},
        LLM_START + 300,
        eval_json="r.json",
        eval_ids=[f"m-{b}" for b in MATRIX],
        files={"matrix.yaml": MATRIX_SUITE},
        server_check=server_met_every_behaviour,
    )

    # == Replays and cassettes ===============================================================
    # README: `replay:FILE` (a cassette recorded with --record FILE ... a replay reproduces the
    # run exactly); a cassette that is not JSON | 2 | invalid_input; a replay that meets a request
    # the cassette lacks | 3 | planner_unavailable. Issue 22 items 1 and 3 (cassettes are bounded).
    g = "replay"

    def replay(
        id: str, content: Content, exits: Exits, kinds: set[str] | None = None, **kw: object
    ) -> None:
        add(
            id,
            g,
            ["eval", "tiny.yaml", "--planner", "replay:c.json", "--json", "r.json"],
            exits,
            LLM_START + PHYS,
            kinds=kinds,
            eval_json="r.json",
            eval_ids=TINY_IDS,
            files={**tiny, "c.json": content},
            **kw,
        )

    replay("replay-recorded", lambda f: f.cassette, {0, 1})
    replay(
        "replay-deep-nest-answers",
        lambda f: f.cassette_with("[" * 3000 + "]" * 3000),
        {1, 2},
        {"invalid_input"},
    )
    replay(
        "replay-escape-key-answers",
        lambda f: f.cassette_with(_decline("unknown_object", ESCAPES + API_KEY)),
        {1, 2},
        {"invalid_input"},
    )
    replay("replay-not-json", "this is not json", {2}, {"invalid_input"})
    replay("replay-empty", "", {2}, {"invalid_input"})
    replay("replay-latin1", b'{"model": "caf\xe9"}', {2}, {"invalid_input"})
    replay("replay-deep-file", "[" * 100_000 + "]" * 100_000, {2}, {"invalid_input"})
    replay(
        "replay-alias-bomb", "junk:\n" + _ANCHORS + f"answers: {_LAST}\n", {2}, {"invalid_input"}
    )
    replay("replay-list", "[1, 2]", {2}, {"invalid_input"})
    add(
        "replay-dev-zero",
        g,
        [INSTR, "--planner", "replay:/dev/zero"],
        {2},
        LLM_START,
        kinds={"invalid_input"},
    )
    add(
        "replay-unrecorded",
        g,
        ["push the yellow block 3 cm to the right", "--planner", "replay:c.json"],
        {3},
        LLM_START,
        kinds={"planner_unavailable"},
        files={"c.json": lambda f: f.cassette},
    )

    # == Outputs that are inputs, or unwritable ==============================================
    # README: --video, --json FILE, --report DIR, --record FILE, --image, --out in a folder that
    # does not exist or cannot be written | 2 | invalid_output; checked before anything runs, no
    # parent folder created. Issue 22 item 12: outputs equal to inputs are refused likewise.
    g = "output"
    out = {"invalid_output"}
    add(
        "eval-json-is-suite",
        g,
        ["eval", "tiny.yaml", "--json", "tiny.yaml"],
        {2},
        kinds=out,
        files=tiny,
        unchanged=["tiny.yaml"],
    )
    add(
        "eval-json-is-suite-dotted",
        g,
        ["eval", "tiny.yaml", "--json", "./sub/../tiny.yaml"],
        {2},
        kinds=out,
        files={**tiny, "sub/keep": ""},
        unchanged=["tiny.yaml"],
    )
    # "the same file by another name too"
    add(
        "eval-json-hardlink-suite",
        g,
        ["eval", "tiny.yaml", "--json", "h.json"],
        {2},
        kinds=out,
        files=tiny,
        links=[("hard", "tiny.yaml", "h.json")],
        unchanged=["tiny.yaml"],
    )
    add(
        "eval-json-symlink-suite",
        g,
        ["eval", "tiny.yaml", "--json", "l.json"],
        {2},
        kinds=out,
        files=tiny,
        links=[("sym", "tiny.yaml", "l.json")],
        unchanged=["tiny.yaml"],
    )
    add(
        "eval-record-symlink-json",
        g,
        ["eval", "tiny.yaml", "--planner", "mock:oracle", "--json", "x.json", "--record", "y.json"],
        {2},
        kinds=out,
        files={**tiny, "x.json": "{}"},
        links=[("sym", "x.json", "y.json")],
        unchanged=["x.json"],
    )
    add(
        "image-onto-scene",
        g,
        ["scene", "show", "s.yaml", "--image", "s.png"],
        {2},
        kinds=out,
        files={"s.yaml": scene_yaml(blocks("red"))},
        links=[("sym", "s.yaml", "s.png")],
        unchanged=["s.yaml"],
    )
    add(
        "video-onto-scene",
        g,
        [INSTR, "--scene", "s.yaml", "--video", "s.gif"],
        {2},
        kinds=out,
        files={
            "s.yaml": json.dumps(
                {
                    "name": "s",
                    "objects": [
                        {"type": "block", "color": "green"},
                        {"type": "box", "color": "blue"},
                    ],
                }
            )
        },
        links=[("hard", "s.yaml", "s.gif")],
        unchanged=["s.yaml"],
    )
    add(
        "eval-record-is-suite",
        g,
        ["eval", "tiny.yaml", "--planner", "mock:oracle", "--record", "tiny.yaml"],
        {2},
        kinds=out,
        files=tiny,
        unchanged=["tiny.yaml"],
    )
    add(
        "eval-json-is-record",
        g,
        ["eval", "tiny.yaml", "--planner", "mock:oracle", "--json", "x.json", "--record", "x.json"],
        {2},
        kinds=out,
        files=tiny,
        absent=["x.json"],
    )
    add(
        "eval-record-is-replay",
        g,
        ["eval", "tiny.yaml", "--planner", "replay:c.json", "--record", "c.json"],
        {2},
        kinds=out,
        files={**tiny, "c.json": lambda f: f.cassette},
        unchanged=["c.json"],
    )
    add(
        "compare-json-is-input",
        g,
        ["eval", "compare", "a.json", "b.json", "--json", "a.json"],
        {2},
        kinds=out,
        files={"a.json": lambda f: f.base_json, "b.json": lambda f: f.oracle_json},
        unchanged=["a.json"],
    )
    add(
        "compare-json-is-second",
        g,
        ["eval", "compare", "a.json", "b.json", "--json", "b.json"],
        {2},
        kinds=out,
        files={"a.json": lambda f: f.base_json, "b.json": lambda f: f.oracle_json},
        unchanged=["b.json"],
    )
    add(
        "eval-json-proc",
        g,
        ["eval", "tiny.yaml", "--json", "/proc/x.json"],
        {2},
        kinds=out,
        files=tiny,
    )
    add(
        "eval-json-no-folder",
        g,
        ["eval", "tiny.yaml", "--json", "nodir/x.json"],
        {2},
        kinds=out,
        files=tiny,
        absent=["nodir"],
    )
    add(
        "eval-report-proc",
        g,
        ["eval", "tiny.yaml", "--report", "/proc/rep"],
        {2},
        kinds=out,
        files=tiny,
    )
    add(
        "eval-report-is-file",
        g,
        ["eval", "tiny.yaml", "--report", "tiny.yaml"],
        {2},
        kinds=out,
        files=tiny,
        unchanged=["tiny.yaml"],
    )
    add(
        "eval-report",
        g,
        ["eval", "tiny.yaml", "--report", "rep"],
        {0, 1},
        PHYS,
        eval_json="rep/results.json",
        eval_ids=TINY_IDS,
        files=tiny,
    )
    add("video-proc", g, [INSTR, "--video", "/proc/x.mp4"], {2}, kinds=out)
    add("video-avi", g, [INSTR, "--video", "x.avi"], {2}, kinds=out | {"invalid_input"})
    add("video-no-folder", g, [INSTR, "--video", "nodir/x.gif"], {2}, kinds=out, absent=["nodir"])
    add("image-proc", g, ["scene", "show", "--image", "/proc/x.png"], {2}, kinds=out)
    add(
        "image-no-folder",
        g,
        ["scene", "show", "--image", "nodir/x.png"],
        {2},
        kinds=out,
        absent=["nodir"],
    )
    add(
        "sweep-out-proc",
        g,
        ["eval", "sweep", "sw.yaml", "--out", "/proc/sw"],
        {2},
        kinds=out,
        files={
            "sw.yaml": "suites: [e.yaml]\nplanners: [offline]\n",
            "e.yaml": ERRORS_SUITE.format(name="e"),
        },
    )
    add(
        "sweep-out-is-input",
        g,
        ["eval", "sweep", "sw.yaml", "--out", "sw.yaml"],
        {2},
        kinds=out,
        files={
            "sw.yaml": "suites: [e.yaml]\nplanners: [offline]\n",
            "e.yaml": ERRORS_SUITE.format(name="e"),
        },
        unchanged=["sw.yaml"],
    )
    add(
        "train-out-proc",
        g,
        ["train", "reach", "--out", "/proc/run", "--steps", "10", "--no-progress"],
        {2},
        TRAIN,
        kinds=out,
    )

    # == Scenes ==============================================================================
    # README "Scenes": invalid specs raise InvalidSceneError (invalid_scene) with a one-line reason:
    # unknown type or colour, size out of range, unknown keys, overlapping fixed poses, poses out
    # of reach, more objects than fit, a bad on/in, a tower too tall. "Failure modes": a YAML file
    # over 1 MiB, over 200,000 values with aliases expanded, nested over 64 deep | 2 |
    # invalid_scene / invalid_suite / invalid_config. Issue 22 items 3 (alias bombs, bounded size),
    # 15 (11 objects: one limit), 19 (hints name objects of the scene).
    g = "scene"
    inv = {"invalid_scene"}

    def scene(
        id: str,
        content: Content,
        exits: Exits = frozenset({2}),
        kinds: set[str] | None = inv,
        **kw: object,
    ) -> None:
        add(
            id,
            g,
            ["scene", "show", "s.yaml"],
            exits,
            kw.pop("deadline", FAST),
            kinds=kinds,
            files={"s.yaml": content},
            **kw,
        )

    add("scene-default", g, ["scene", "show", "default", "--seed", "3"], {0}, stdout_nonempty=True)
    add("scene-default-json", g, ["scene", "show", "default", "--seed", "3", "--json"], {0})
    add("scene-list", g, ["scene", "list"], {0}, stdout_nonempty=True)
    add(
        "scene-seed-negative",
        g,
        ["scene", "show", "--seed", "-1"],
        {2},
        kinds={"invalid_input"},
        message_has="a seed is an integer from 0 to 4294967295",
    )
    add(
        "scene-seed-2pow32",
        g,
        ["scene", "show", "--seed", "4294967296"],
        {2},
        kinds={"invalid_input"},
    )
    add(
        "scene-camera-bogus",
        g,
        ["scene", "show", "--camera", "bogus", "--image", "x.png"],
        {2},
        kinds={"invalid_input"},
    )
    add(
        "scene-image",
        g,
        ["scene", "show", "dense", "--image", "x.png", "--camera", "top"],
        {0},
        PHYS,
    )
    add("scene-unknown-name", g, ["scene", "show", "nosuch"], {2}, kinds=inv)
    add("scene-empty-name", g, ["scene", "show", ""], {2}, kinds=inv | {"invalid_input"})
    add(
        "scene-directory",
        g,
        ["scene", "show", "dir.yaml"],
        {2},
        kinds=inv,
        files={"dir.yaml/keep": ""},
    )
    add("scene-dev-zero", g, ["scene", "show", "/dev/zero"], {2}, kinds=inv)
    add("scene-dev-urandom", g, ["scene", "show", "/dev/urandom"], {2}, kinds=inv)
    scene("scene-empty-file", "")
    scene("scene-latin1", LATIN1_SCENE)
    scene("scene-not-mapping", "- a\n- b\n")
    scene("scene-not-yaml", "objects: [\n  {type: block\n")
    scene("scene-unknown-key", scene_yaml(blocks("red"), colour="red"))
    scene("scene-unknown-type", scene_yaml([{"type": "dragon", "color": "red"}]))
    scene("scene-unknown-colour", scene_yaml([{"type": "block", "color": "ultraviolet"}]))
    scene("scene-escape-colour", scene_yaml([{"type": "block", "color": ESCAPES}]))
    scene("scene-escape-name", scene_yaml(blocks("red"), name=ESCAPES + "\nline two"), {0, 2})
    scene("scene-size-big", scene_yaml([{"type": "block", "color": "red", "size": 1.0}]))
    scene("scene-size-nan", "objects:\n  - {type: block, color: red, size: .nan}\n")
    scene("scene-pose-nan", "objects:\n  - {type: block, color: red, pose: [.nan, 0.0]}\n")
    scene("scene-yaw-inf", "objects:\n  - {type: block, color: red, pose: [0.45, 0.0, .inf]}\n")
    scene(
        "scene-pose-out-of-reach",
        scene_yaml([{"type": "block", "color": "red", "pose": [2.0, 2.0]}]),
    )
    scene(
        "scene-overlapping",
        scene_yaml(
            [
                {"type": "block", "color": "red", "pose": [0.45, 0.0]},
                {"type": "block", "color": "blue", "pose": [0.45, 0.0]},
            ]
        ),
    )
    scene("scene-min-separation-negative", scene_yaml(blocks("red"), min_separation=-1))
    scene(
        "scene-min-separation-inf",
        "min_separation: .inf\nobjects:\n  - {type: block, color: red}\n"
        "  - {type: block, color: blue}\n",
    )
    scene("scene-1000-objects", scene_yaml(blocks(*(["red"] * 1000))), deadline=FAST)
    scene("scene-tower-too-tall", TOWER_7)
    scene(
        "scene-box-overfull",
        scene_yaml(
            [{"type": "box", "color": "gray"}]
            + [
                {"type": "block", "color": c, "in": "gray_box"}
                for c in ("red", "green", "blue", "yellow", "orange")
            ]
        ),
    )
    scene(
        "scene-on-later",
        scene_yaml(
            [
                {"type": "block", "color": "green", "on": "red_block"},
                {"type": "block", "color": "red"},
            ]
        ),
    )
    scene(
        "scene-on-and-pose",
        scene_yaml(
            [
                {"type": "block", "color": "red"},
                {"type": "block", "color": "green", "on": "red_block", "pose": [0.4, 0.1]},
            ]
        ),
    )
    scene(
        "scene-box-on-block",
        scene_yaml(
            [{"type": "block", "color": "red"}, {"type": "box", "color": "blue", "on": "red_block"}]
        ),
    )
    scene(
        "scene-on-yes-boolean",
        "objects:\n  - {type: block, color: red}\n  - {type: block, color: green, on: yes}\n",
    )
    scene(
        "scene-hint-names-scene-objects",
        scene_yaml(
            [
                {"type": "block", "color": "green"},
                {"type": "block", "color": "red", "on": "purple_block"},
            ]
        ),
        stderr_check=hint_names_scene_objects({"green_block", "red_block"}, "purple_block"),
    )
    scene("scene-bomb-unknown-key", BOMB_UNKNOWN_KEY)
    scene("scene-bomb-objects", BOMB_OBJECTS)
    scene("scene-bomb-name", BOMB_NAME)
    scene("scene-huge-30mb", huge_yaml(scene_yaml(blocks("red")), 30), deadline=FAST + 30)
    scene("scene-just-over-1mib", lambda f: padded(scene_yaml(blocks("red")), 1024 * 1024 + 1))
    scene(
        "scene-just-under-1mib", lambda f: padded(scene_yaml(blocks("red")), 1000 * 1000), {0}, None
    )
    scene("scene-nested-70", "objects: " + "[" * 70 + "]" * 70 + "\n")
    scene("scene-aliases-300k", WIDE_ALIASES)
    add(
        "run-scene-bomb",
        g,
        [INSTR, "--scene", "s.yaml"],
        {2},
        kinds=inv,
        files={"s.yaml": BOMB_OBJECTS},
    )
    add("run-scene-dev-zero", g, [INSTR, "--scene", "/dev/zero"], {2}, kinds=inv)
    add("run-scene-missing", g, [INSTR, "--scene", "missing.yaml"], {2}, kinds=inv)
    add("run-scene-empty", g, [INSTR, "--scene", ""], {2}, kinds=inv | {"invalid_input"})
    script(
        "scene-eleven-objects",
        g,
        script_eleven_objects,
        files={
            "eleven.yaml": ELEVEN,
            "eleven_suite.yaml": suite_yaml(
                [
                    one_case(
                        instruction="push the red block 2 cm to the left",
                        goal=[],
                        expect_push={"object": "red_block", "direction": "left", "distance": 0.02},
                    )
                ],
                scene=json.loads(ELEVEN),
            ),
        },
    )

    # == Suites ==============================================================================
    # README: a suite file that is missing, not YAML, not UTF-8, or a case that does not validate
    # | 2 | invalid_suite | the file, the case id and the field; `seed:` in a suite case as for
    # --seed; "a scene that cannot be built ... checked when the suite loads, before any case runs";
    # "Numbers are taken as written: `seed: true`, "5" or 2.0 is refused". Issue 22 items 2, 3, 16.
    g = "suite"
    bad_suite = {"invalid_suite"}

    def suite(
        id: str,
        content: Content,
        exits: Exits = frozenset({2}),
        kinds: set[str] | None = bad_suite,
        ids: list[str] | None = None,
        **kw: object,
    ) -> None:
        add(
            id,
            g,
            ["eval", "s.yaml", "--json", "r.json"],
            exits,
            kw.pop("deadline", PHYS),
            kinds=kinds,
            files={"s.yaml": content},
            eval_json="r.json",
            eval_ids=ids,
            **kw,
        )

    suite("suite-tiny", TINY_SUITE, {0, 1}, ids=TINY_IDS)
    suite(
        "suite-bad-inline-scene",
        suite_yaml([one_case(), one_case(id="c2", scene={"objects": [{"type": "dragon"}]})]),
        deadline=FAST,
    )
    suite(
        "suite-bad-inline-scene-first",
        suite_yaml([one_case(scene={"objects": "nope"}), ERROR_CASE]),
        deadline=FAST,
    )
    suite(
        "suite-bad-suite-scene",
        suite_yaml([ERROR_CASE], scene={"objects": [{"type": "block", "color": "ultraviolet"}]}),
        deadline=FAST,
    )
    suite(
        "suite-seed-negative",
        suite_yaml([one_case(seed=-1)]),
        deadline=FAST,
        message_has="a seed is an integer from 0 to 4294967295",
    )
    suite("suite-seed-2pow32", suite_yaml([one_case(seed=4294967296)]), deadline=FAST)
    suite("suite-seed-true", suite_yaml([one_case(seed=True)]), deadline=FAST)
    suite("suite-seed-string", suite_yaml([one_case(seed="5")]), deadline=FAST)
    suite("suite-seed-float", suite_yaml([one_case(seed=2.0)]), deadline=FAST)
    suite(
        "suite-goal-and-error", suite_yaml([one_case(expect_error="unknown_object")]), deadline=FAST
    )
    suite("suite-bad-predicate", suite_yaml([one_case(goal=["explode(red_block)"])]), deadline=FAST)
    suite("suite-unknown-case-key", suite_yaml([one_case(colour="red")]), deadline=FAST)
    suite(
        "suite-duplicate-ids",
        suite_yaml([ERROR_CASE, ERROR_CASE]),
        {0, 1, 2},
        ids=["err", "err"],
        deadline=FAST + 30,
    )
    suite("suite-no-cases", suite_yaml([]), {0, 1, 2}, ids=[], deadline=FAST)
    suite(
        "suite-cases-mapping",
        json.dumps({"name": "x", "scene": "default", "cases": {"a": 1}}),
        deadline=FAST,
    )
    suite("suite-empty-file", "", deadline=FAST)
    suite("suite-not-yaml", "cases: [\n  {id: a\n", deadline=FAST)
    suite("suite-list", "- 1\n- 2\n", deadline=FAST)
    suite("suite-latin1", LATIN1_SUITE, deadline=FAST)
    suite("suite-alias-bomb", BOMB_SUITE, deadline=FAST)
    suite(
        "suite-huge-30mb",
        huge_yaml(suite_yaml([ERROR_CASE]), 30),
        deadline=FAST + 45,
    )
    suite("suite-just-over-1mib", lambda f: padded(suite_yaml([ERROR_CASE]), 1024 * 1024 + 1))
    suite(
        "suite-long-instruction-expected",
        suite_yaml([{**ERROR_CASE, "instruction": CLAUSES_100, "expect_error": "unparseable"}]),
        {0},
        ids=["err"],
    )
    suite(
        "suite-long-instruction",
        suite_yaml([one_case(instruction=CLAUSES_100), ERROR_CASE]),
        {0, 1, 2},
        ids=["c1", "err"],
        deadline=PHYS,
    )
    suite(
        "suite-100kb-instruction",
        suite_yaml([one_case(instruction=KB_100), ERROR_CASE]),
        {0, 1, 2},
        ids=["c1", "err"],
        deadline=PHYS,
    )
    suite(
        "suite-escapes-in-text",
        suite_yaml(
            [
                one_case(
                    id="[bold]x[/bold]" + ESCAPES,
                    instruction="put the " + ESCAPES + " block next to the blue box",
                )
            ],
            name=ESCAPES,
        ),
        {0, 1, 2},
        deadline=PHYS,
    )
    add("suite-missing", g, ["eval", "missing.yaml"], {2}, kinds=bad_suite)
    add("suite-directory", g, ["eval", "d.yaml"], {2}, kinds=bad_suite, files={"d.yaml/keep": ""})
    add("suite-dev-zero", g, ["eval", "/dev/zero"], {2}, kinds=bad_suite)
    add(
        "suite-workers-0",
        g,
        ["eval", "tiny.yaml", "--workers", "0"],
        {2},
        kinds={"invalid_input"},
        files=tiny,
    )
    add(
        "suite-timeout-0",
        g,
        ["eval", "tiny.yaml", "--timeout", "0"],
        {2},
        kinds={"invalid_input"},
        files=tiny,
    )

    # == Selecting cases: -k EXPR, --tags, --limit N =========================================
    # README "Offline evaluation": -k as pytest's (substring of id or tag; and/or/not/parentheses),
    # --tags any of the tags, --limit the first N; "Failure modes": -k malformed or selecting no
    # case, --tags that no case has | 2 | invalid_input. (Asked for by issue 22.)
    g = "select"
    script("select-k-id", g, script_eval_selection(["-k", "next"], ["next-to"]), files=tiny)
    script(
        "select-k-not",
        g,
        script_eval_selection(["-k", "not err"], ["next-to"]),
        files=tiny,
    )
    script(
        "select-k-tag-or",
        g,
        script_eval_selection(["-k", "place or error"], TINY_IDS),
        files=tiny,
    )
    script(
        "select-tags",
        g,
        script_eval_selection(["--tags", "error"], ["err-unknown"]),
        files=tiny,
    )
    script("select-limit-1", g, script_eval_selection(["--limit", "1"], ["next-to"]), files=tiny)
    add(
        "select-k-malformed",
        g,
        ["eval", "tiny.yaml", "-k", "(("],
        {2},
        kinds={"invalid_input"},
        files=tiny,
    )
    add(
        "select-k-nothing",
        g,
        ["eval", "tiny.yaml", "-k", "zzz", "--json", "r.json"],
        {2},
        kinds={"invalid_input"},
        files=tiny,
        absent=["r.json"],
    )
    add(
        "select-tags-unknown",
        g,
        ["eval", "tiny.yaml", "--tags", "nosuchtag"],
        {2},
        kinds={"invalid_input"},
        files=tiny,
    )
    add(
        "select-limit-0",
        g,
        ["eval", "tiny.yaml", "--limit", "0"],
        {2},
        kinds={"invalid_input"},
        files=tiny,
    )
    add(
        "select-limit-negative",
        g,
        ["eval", "tiny.yaml", "--limit", "-1"],
        {2},
        kinds={"invalid_input"},
        files=tiny,
    )
    add(
        "select-limit-word",
        g,
        ["eval", "tiny.yaml", "--limit", "many"],
        {2},
        kinds={"invalid_input"},
        files=tiny,
    )

    # == Sweeps ==============================================================================
    # README "Sweeps": writes each cell's result to DIR/SUITE__PLANNER__seedS.json and
    # DIR/table.json; exit 1 when a cell has a failed case. Issue 22 items 6 (same `name:`
    # collides), 18 (strict integer seeds), 3 (bombs).
    g = "sweep"
    esuite = {
        "e1.yaml": ERRORS_SUITE.format(name="same"),
        "e2.yaml": ERRORS_SUITE.format(name="same"),
    }

    def sweep(
        id: str,
        text: Content,
        exits: Exits = frozenset({2}),
        kinds: set[str] | None = None,
        **kw: object,
    ) -> None:
        add(
            id,
            g,
            ["eval", "sweep", "sw.yaml", "--out", "out"],
            exits,
            kw.pop("deadline", FAST),
            kinds=kinds,
            files={"sw.yaml": text, **esuite},
            **kw,
        )

    script(
        "sweep-same-suite-names",
        g,
        script_sweep_cells("out", 2, "sw.yaml"),
        files={"sw.yaml": "suites: [e1.yaml, e2.yaml]\nplanners: [offline]\n", **esuite},
    )
    script(
        "sweep-same-planner-twice",
        g,
        script_sweep_cells("out", 2, "sw.yaml"),
        files={"sw.yaml": "suites: [e1.yaml]\nplanners: [offline, offline]\n", **esuite},
    )
    script(
        "sweep-same-file-twice",
        g,
        script_sweep_cells("out", 2, "sw.yaml"),
        files={"sw.yaml": "suites: [e1.yaml, ./e1.yaml]\nplanners: [offline]\n", **esuite},
    )
    sweep(
        "sweep-seeds-mixed",
        'suites: [e1.yaml]\nplanners: [offline]\nseeds: [true, "5", 2.0]\n',
        absent=["out"],
    )
    sweep(
        "sweep-seeds-negative",
        "suites: [e1.yaml]\nplanners: [offline]\nseeds: [-1]\n",
        absent=["out"],
    )
    sweep(
        "sweep-seeds-string", 'suites: [e1.yaml]\nplanners: [offline]\nseeds: "0"\n', absent=["out"]
    )
    sweep(
        "sweep-unknown-planner",
        "suites: [e1.yaml]\nplanners: [offline, mock:what]\n",
        kinds={"invalid_input", "invalid_suite", "invalid_config"},  # README names no sweep kind
        absent=["out"],
    )
    sweep("sweep-missing-suite", "suites: [missing.yaml]\nplanners: [offline]\n", absent=["out"])
    add(
        "sweep-bad-inline-scene-suite",
        g,
        ["eval", "sweep", "sw.yaml", "--out", "out"],
        {2},
        FAST,
        files={
            "sw.yaml": "suites: [e1.yaml, bad.yaml]\nplanners: [offline]\n",
            **esuite,
            "bad.yaml": suite_yaml([one_case(scene={"objects": [{"type": "dragon"}]})]),
        },
        absent=["out"],
    )
    sweep("sweep-empty-suites", "suites: []\nplanners: [offline]\n", {0, 2})
    sweep(
        "sweep-unknown-key", "suites: [e1.yaml]\nplanners: [offline]\nsedes: [0]\n", absent=["out"]
    )
    sweep(
        "sweep-llm-timeout-negative",
        "suites: [e1.yaml]\nplanners: [offline]\nllm: {timeout: -1}\n",
        absent=["out"],
    )
    sweep(
        "sweep-llm-unknown-option",
        "suites: [e1.yaml]\nplanners: [offline]\nllm: {frobnicate: 1}\n",
        absent=["out"],
    )
    sweep("sweep-alias-bomb", BOMB_SWEEP, kinds={"invalid_suite", "invalid_config"}, absent=["out"])
    sweep(
        "sweep-latin1", b"name: caf\xe9\nsuites: [e1.yaml]\nplanners: [offline]\n", absent=["out"]
    )
    sweep("sweep-not-yaml", "suites: [\n", absent=["out"])
    sweep("sweep-list", "- e1.yaml\n", absent=["out"])
    add("sweep-missing-file", g, ["eval", "sweep", "missing.yaml"], {2})
    add(
        "sweep-workers-0",
        g,
        ["eval", "sweep", "sw.yaml", "--workers", "0"],
        {2},
        kinds={"invalid_input"},
        files={"sw.yaml": "suites: [e1.yaml]\nplanners: [offline]\n", **esuite},
    )

    # == eval compare ========================================================================
    # README: `claw eval compare A.json B.json` shows the metric changes and the cases fixed or
    # broken; three or more side by side; --json FILE writes the rows. "Failure modes": a file that
    # is not a --json result (not UTF-8, not JSON, nested over 32 deep, the wrong shape) | 2 |
    # invalid_report. Issue 22 item 1: compare crashed on deeply nested files.
    g = "compare"
    report = {"invalid_report"}
    report_or_input = {"invalid_report", "invalid_input"}  # a path that is no file at all

    def compare(id: str, second: Content, exits: Exits = frozenset({2}), **kw: object) -> None:
        add(
            id,
            g,
            ["eval", "compare", "a.json", "b.json"],
            exits,
            kw.pop("deadline", FAST),
            files={"a.json": lambda f: f.base_json, "b.json": second},
            **kw,
        )

    compare("compare-two", lambda f: f.oracle_json, {0, 1}, stdout_nonempty=True)
    compare(
        "compare-flipped-escapes",
        lambda f: f.mutated_result(ESCAPES + "[bold]x[/bold]\nline", flip=True),
        {0, 1, 2},
    )
    compare("compare-deep-nest", "[" * 3000 + "]" * 3000, kinds=report)
    compare("compare-deep-object", '{"cases":' * 3000 + "1" + "}" * 3000, kinds=report)
    compare("compare-not-json", "not json", kinds=report)
    compare("compare-empty", "", kinds=report)
    compare("compare-latin1", b'{"suite": "caf\xe9"}', kinds=report)
    compare("compare-list", "[1, 2]", kinds=report)
    compare("compare-object-empty", "{}", kinds=report)
    compare(
        "compare-nan",
        lambda f: f.base_json.replace(b'"success_rate": ', b'"success_rate": NaN, "x": ', 1),
        {0, 1, 2},
    )
    compare("compare-huge", lambda f: f.huge_result(60_000), {0, 1, 2}, deadline=FAST + 45)
    add(
        "compare-one-file",
        g,
        ["eval", "compare", "a.json"],
        {2},
        kinds={"invalid_input"},
        files={"a.json": lambda f: f.base_json},
    )
    add(
        "compare-missing",
        g,
        ["eval", "compare", "a.json", "missing.json"],
        {2},
        kinds=report_or_input,
        files={"a.json": lambda f: f.base_json},
    )
    add(
        "compare-dev-zero",
        g,
        ["eval", "compare", "a.json", "/dev/zero"],
        {2},
        kinds=report,
        files={"a.json": lambda f: f.base_json},
    )
    add(
        "compare-empty-dir",
        g,
        ["eval", "compare", "a.json", "d"],
        {2},
        kinds=report_or_input,
        files={"a.json": lambda f: f.base_json, "d/keep": ""},
    )
    add(
        "compare-three",
        g,
        ["eval", "compare", "a.json", "b.json", "a.json"],
        {0, 1},
        files={"a.json": lambda f: f.base_json, "b.json": lambda f: f.oracle_json},
    )
    add(
        "compare-json-proc",
        g,
        ["eval", "compare", "a.json", "b.json", "--json", "/proc/x.json"],
        {2},
        kinds={"invalid_output"},
        files={"a.json": lambda f: f.base_json, "b.json": lambda f: f.oracle_json},
    )
    script(
        "compare-json-file",
        g,
        script_compare_json,
        files={"a.json": lambda f: f.base_json, "b.json": lambda f: f.oracle_json},
    )

    # == The library =========================================================================
    # README "Read-only": a library that cannot be written (read-only disk, not creatable, a file
    # where the folder should be) is read as it is ... one `note:` line; commands that must write
    # it (train --register, bench skills --record) stop with library_error (2) before they start;
    # `claw skills run` help: "one that cannot be written: a note says so, and the result and exit
    # code are the run's". A damaged manifest (not JSON, not UTF-8) | 2 | library_error.
    # Issue 22 items 7, 14, 17. As root, chmod stops nothing: read-only means a bind mount made
    # read-only in a private mount namespace (unshare -m), a file, or a path under /proc.
    g = "library"
    lib_err = {"library_error"}
    note = "note:"
    script("claw-home-empty", g, script_claw_home_empty)
    add(
        "claw-home-file-list",
        g,
        ["skills", "list"],
        {0},
        env={"CLAW_HOME": "{DIR}/afile"},
        files={"afile": "x"},
        stderr_has=note,
        stdout_nonempty=True,
    )
    add(
        "claw-home-library-is-file",
        g,
        ["skills", "run", "open_gripper"],
        {0},
        PHYS,
        files={"claw_home/library": "x"},
        stderr_has=note,
        stdout_nonempty=True,
    )
    add(
        "claw-home-proc-run",
        g,
        [INSTR],
        {0, 1},
        PHYS,
        env={"CLAW_HOME": "/proc/claw-adversarial"},
        stderr_has=note,
    )
    add(
        "claw-home-proc-skills-run-json",
        g,
        ["skills", "run", "home", "--json"],
        {0},
        PHYS,
        env={"CLAW_HOME": "/proc/claw-adversarial"},
    )
    add(
        "claw-home-dev-null",
        g,
        ["skills", "list"],
        {0},
        env={"CLAW_HOME": "/dev/null"},
        stderr_has=note,
    )
    add(
        "claw-home-proc-bench-record",
        g,
        ["bench", "skills", "--episodes", "1", "--record"],
        {2},
        FAST,
        kinds=lib_err,
        env={"CLAW_HOME": "/proc/claw-adversarial"},
    )
    add(
        "claw-home-proc-train-register",
        g,
        [
            "train",
            "reach",
            "--register",
            "--steps",
            "10",
            "--no-progress",
            "--eval-episodes",
            "1",
            "--runs-dir",
            "runs",
        ],
        {2},
        TRAIN,
        kinds=lib_err,
        env={"CLAW_HOME": "/proc/claw-adversarial"},
        absent=["runs"],
    )
    ro = {"read_only_home": True, "library": True, "needs": "unshare", "stderr_has": note}
    add(
        "ro-skills-run-open-gripper",
        g,
        ["skills", "run", "open_gripper"],
        {0},
        PHYS,
        stdout_nonempty=True,
        **ro,
    )
    add("ro-skills-run-home-json", g, ["skills", "run", "home", "--json"], {0}, PHYS, **ro)
    add(
        "ro-skills-run-push",
        g,
        [
            "skills",
            "run",
            "push",
            "--arg",
            "object=green_block",
            "--arg",
            "direction=near",
            "--arg",
            "distance=0.03",
        ],
        {0, 1},
        PHYS,
        stdout_nonempty=True,
        **ro,
    )
    # README (Read-only): the note comes only where a command would have written the library.
    quiet_ro = {**ro, "stderr_has": None}
    add("ro-claw-run", g, [INSTR], {0, 1}, PHYS, stdout_nonempty=True, **quiet_ro)
    add(
        "ro-claw-learn",  # README leaves open: refused up front (library_error) or run with a note
        g,
        [TWO_BOXES, "--scene", "composite.yaml", "--learn"],
        {0, 1, 2},
        PHYS,
        kinds=lib_err,
        files={"composite.yaml": COMPOSITE_SCENE},
        **{**ro, "stderr_has": None},
    )
    add("ro-skills-list", g, ["skills", "list"], {0}, stdout_nonempty=True, **quiet_ro)
    add(
        "ro-prune",
        g,
        ["skills", "prune", "--min-success", "0.5"],
        {0, 2},
        kinds=lib_err,
        **{**ro, "stderr_has": None},
    )
    add(
        "manifest-not-json",
        g,
        ["skills", "list"],
        {2},
        kinds=lib_err,
        files={"claw_home/library/manifest.json": "{oops"},
    )
    add(
        "manifest-latin1",
        g,
        ["skills", "list"],
        {2},
        kinds=lib_err,
        files={"claw_home/library/manifest.json": b'{"x": "\xe9"}'},
    )
    add(
        "manifest-deep",
        g,
        ["skills", "list"],
        {2},
        kinds=lib_err,
        files={"claw_home/library/manifest.json": "[" * 100_000 + "]" * 100_000},
    )
    add(
        "manifest-list",
        g,
        ["skills", "list"],
        {2},
        kinds=lib_err,
        files={"claw_home/library/manifest.json": "[]"},
    )
    add(
        "manifest-damaged-run",
        g,
        [INSTR],
        {2},
        kinds=lib_err,
        files={"claw_home/library/manifest.json": "{oops"},
    )
    add(
        "manifest-escapes-list",
        g,
        ["skills", "list"],
        {0, 2},
        library=True,
        files={"claw_home/library/manifest.json": lambda f: f.manifest_with_description(ESCAPES)},
    )
    add(
        "manifest-escapes-search-json",
        g,
        ["skills", "search", "pick it up", "--json"],
        {0, 2},
        library=True,
        files={
            "claw_home/library/manifest.json": lambda f: f.manifest_with_description(
                ESCAPES + API_KEY[:4]
            )
        },
    )
    add("skills-show-unknown", g, ["skills", "show", "nosuch"], {2})
    add("skills-show-version-99", g, ["skills", "show", "pick", "--version", "99"], {2})
    add("skills-show-version-word", g, ["skills", "show", "pick", "--version", "latest"], {2})
    add("skills-search-empty", g, ["skills", "search", ""], {0, 2})
    add(
        "skills-search-k0", g, ["skills", "search", "grab", "-k", "0"], {2}, kinds={"invalid_input"}
    )
    add("skills-search-kind-bogus", g, ["skills", "search", "grab", "--kind", "bogus"], {2})
    add("skills-search-100kb", g, ["skills", "search", KB_100], {0, 2}, FAST)
    add("skills-run-unknown", g, ["skills", "run", "nosuch"], {2})
    add("skills-run-missing-arg", g, ["skills", "run", "pick"], {2}, kinds={"invalid_params"})
    add(
        "skills-run-unknown-object",
        g,
        ["skills", "run", "pick", "--arg", "object=purple_elephant"],
        {2},
        kinds={"unknown_object", "invalid_params"},
    )
    add("skills-run-arg-no-equals", g, ["skills", "run", "pick", "--arg", "object"], {2})
    add(
        "skills-run-distance-huge",
        g,
        [
            "skills",
            "run",
            "push",
            "--arg",
            "object=red_block",
            "--arg",
            "direction=left",
            "--arg",
            "distance=1e9",
        ],
        {2},
        kinds={"invalid_params"},
    )
    add(
        "skills-run-distance-nan",
        g,
        [
            "skills",
            "run",
            "push",
            "--arg",
            "object=red_block",
            "--arg",
            "direction=left",
            "--arg",
            "distance=nan",
        ],
        {2},
        kinds={"invalid_params"},
    )
    add(
        "skills-run-seed-negative",
        g,
        ["skills", "run", "home", "--seed", "-1"],
        {2},
        kinds={"invalid_input"},
    )
    add("prune-nothing-asked", g, ["skills", "prune"], {2})
    add("prune-min-success-nan", g, ["skills", "prune", "--min-success", "nan"], {2})
    add("prune-unused-negative", g, ["skills", "prune", "--unused-runs", "-1"], {2})
    add(
        "prune-dry-run-json",
        g,
        ["skills", "prune", "--min-success", "0.5", "--dry-run", "--json"],
        {0},
    )

    # == Composites ==========================================================================
    # README "Composite skills": dedup by structure, versions by name; bodies are sha256-checked
    # and validated: a body with more than 50 steps or over 256 KiB is refused (artifact_rejected)
    # even with its sha256 rewritten; "composites counted as their steps" against --max-steps;
    # names cut at 64 characters get 8 hex digits of the structure's hash; prune deletes under the
    # lock, so a --learn meanwhile keeps its version. Issue 22 items 5, 10, 14.
    g = "composite"
    comp = {"composite.yaml": COMPOSITE_SCENE}
    script("composite-names-past-64", g, script_composite_64, files=comp)
    script("composite-prune-during-learn", g, script_prune_race, files=comp)
    script("composite-20002-steps", g, script_composite_huge, files=comp)
    script("composite-tampered", g, script_composite_tampered, files=comp)
    script("composite-code-in-body", g, script_composite_code, files=comp)
    script("composite-max-steps", g, script_composite_max_steps, files=comp)
    script("composite-51-steps", g, script_composite_51, files=comp)
    script("composite-over-256kib", g, script_composite_256k, files=comp)

    # == Ctrl-C ==============================================================================
    # README: Ctrl-C | 130 | `interrupted`; `claw eval` writes the cases it finished to --json.
    # Issue 22 item 11: one line, and a JSON object under --json.
    g = "sigint"
    slow_llm = ["--planner", "openai/whatever", "--api-base", "{API:slow}", "--timeout", "60"]
    waiting = Interrupt(after_s=1.0, wait_request=True)
    add("sigint-run-llm", g, [INSTR, *slow_llm], {130}, LLM_START + 120, interrupt=waiting)
    add(
        "sigint-run-llm-json",
        g,
        [INSTR, *slow_llm, "--json"],
        {130},
        LLM_START + 120,
        interrupt=waiting,
    )
    add(
        "sigint-eval-llm",
        g,
        ["eval", "tiny.yaml", *slow_llm, "--json", "r.json"],
        {130},
        LLM_START + 120,
        interrupt=waiting,
        eval_json="r.json",
        files=tiny,
    )
    add(
        "sigint-eval-physics",
        g,
        ["eval", "basic", "--workers", "1", "--json", "r.json"],
        {130},
        PHYS,
        interrupt=Interrupt(after_s=12.0),
        eval_json="r.json",
    )
    add(
        "sigint-sweep",
        g,
        ["eval", "sweep", "sw.yaml", "--out", "out"],
        {130},
        PHYS,
        interrupt=Interrupt(after_s=12.0),
        files={"sw.yaml": "suites: [basic]\nplanners: [offline]\n"},
    )
    add(
        "sigint-ray-connect",
        g,
        ["eval", "tiny.yaml", "--ray", "127.0.0.1:{FREE}"],
        {130},
        RAY,
        interrupt=Interrupt(after_s=8.0),
        files=tiny,
        needs="ray",
    )

    # == Ray =================================================================================
    # README "Failure modes": `--ray` with a malformed address (`http://x:1`, `x:99999`), or
    # CLAW_RAY_TIMEOUT not a number from 1 to 3600 | 2 | invalid_input; `--ray HOST:PORT` at which
    # no cluster answers within 30 s (CLAW_RAY_TIMEOUT) | 2 | ray_unreachable; "Ray's own log
    # lines never reach the terminal" (the one-line rule checks it). README "On a Ray cluster":
    # the same for `eval sweep --ray` and `tune --ray`; SIGTERM while joining is 130.
    g = "ray"
    unreachable = {"ray_unreachable"}
    tiny_ray = ["eval", "tiny.yaml", "--ray"]
    nowhere = "127.0.0.1:{FREE}"
    add(
        "ray-nothing-listening",
        g,
        [*tiny_ray, nowhere],
        {2},
        RAY,
        kinds=unreachable,
        files=tiny,
        needs="ray",
    )
    add(
        "ray-client-nothing-listening",
        g,
        [*tiny_ray, "ray://" + nowhere],
        {2},
        RAY,
        kinds=unreachable,
        files=tiny,
        needs="ray",
    )
    add(
        "ray-timeout-2",
        g,
        [*tiny_ray, nowhere],
        {2},
        FAST + 2,
        kinds=unreachable,
        env={"CLAW_RAY_TIMEOUT": "2"},
        files=tiny,
        needs="ray",
    )
    for value in ("0", "abc", "3601"):
        add(
            f"ray-timeout-bad-{value}",
            g,
            [*tiny_ray, nowhere],
            {2},
            kinds={"invalid_input"},
            env={"CLAW_RAY_TIMEOUT": value},
            files=tiny,
            needs="ray",
        )
    add(
        "ray-timeout-empty",
        g,
        [*tiny_ray, nowhere],
        {2},
        RAY,  # empty: the default, or refused
        kinds={"invalid_input", "ray_unreachable"},
        env={"CLAW_RAY_TIMEOUT": ""},
        files=tiny,
        needs="ray",
    )
    add("ray-http-scheme", g, [*tiny_ray, "http://x:1"], {2}, kinds={"invalid_input"}, files=tiny)
    add("ray-bad-port", g, [*tiny_ray, "x:99999"], {2}, kinds={"invalid_input"}, files=tiny)
    add("ray-port-word", g, [*tiny_ray, "127.0.0.1:port"], {2}, kinds={"invalid_input"}, files=tiny)
    add(
        "ray-sweep-nothing-listening",
        g,
        ["eval", "sweep", "sw.yaml", "--ray", nowhere, "--out", "out"],
        {2},
        RAY,
        kinds=unreachable,
        files={"sw.yaml": "suites: [e1.yaml]\nplanners: [offline]\n", **esuite},
        needs="ray",
    )
    add(
        "ray-tune-nothing-listening",
        g,
        [
            "tune",
            "reach",
            "--ray",
            nowhere,
            "--trials",
            "1",
            "--steps",
            "10",
            "--study-dir",
            "study",
        ],
        {2},
        TRAIN + RAY,
        kinds=unreachable,
        needs="ray",
    )
    add(
        "sigterm-ray-connect",
        g,
        [*tiny_ray, nowhere],
        {130},
        RAY,
        interrupt=Interrupt(after_s=8.0, signum=signal.SIGTERM),
        files=tiny,
        needs="ray",
    )

    # == train / tune / llm serve / bench ====================================================
    # README: `--hyperparams KEY=VALUE` with dotted keys, values as YAML (`"her={n_sampled_goal:
    # 4, ...}"`), best.yaml "ready for --hyperparams"; bad input is 2 before any work. Issue 22
    # item 3: every YAML the project reads (hyperparameters too) has bounded aliases and size.
    # README: without the local extra, `claw llm serve` says what to install (exit 3).
    g = "train"
    quick = ["--steps", "200", "--no-progress", "--eval-episodes", "1", "--runs-dir", "runs"]
    add("train-unknown-skill", g, ["train", "dragon", *quick], {2}, TRAIN)
    add("train-algo-bogus", g, ["train", "reach", "--algo", "bogus", *quick], {2}, TRAIN)
    add("train-steps-0", g, ["train", "reach", "--steps", "0"], {2}, TRAIN, kinds={"invalid_input"})
    add(
        "train-n-envs-0",
        g,
        ["train", "reach", "--n-envs", "0"],
        {2},
        TRAIN,
        kinds={"invalid_input"},
    )
    add("train-seed-negative", g, ["train", "reach", "--seed", "-1", *quick], {2}, TRAIN)
    add(
        "train-hyper-no-equals",
        g,
        ["train", "reach", "--hyperparams", "learning_rate", *quick],
        {2},
        TRAIN,
    )
    add(
        "train-hyper-unknown-key",
        g,
        ["train", "reach", "--hyperparams", "frobnicate.deeply=1", *quick],
        {2},
        TRAIN,
    )
    add(
        "train-hyper-bad-yaml",
        g,
        ["train", "reach", "--hyperparams", "her={n_sampled_goal: [", *quick],
        {2},
        TRAIN,
    )
    add(
        "train-hyper-alias-bomb",
        g,
        ["train", "reach", "--hyperparams", BOMB_HYPER_VALUE, *quick],
        {2},
        TRAIN,
        kinds={"invalid_config", "invalid_input"},
    )
    add(
        "train-hyper-file-bomb",
        g,
        ["train", "reach", "--hyperparams", "best.yaml", *quick],
        {2},
        TRAIN,
        files={"best.yaml": "junk:\n" + _ANCHORS + f"algo_kwargs: {_LAST}\n"},
    )
    add(
        "train-hyper-file-latin1",
        g,
        ["train", "reach", "--hyperparams", "best.yaml", *quick],
        {2},
        TRAIN,
        files={"best.yaml": b"algo_kwargs: {learning_rate: caf\xe9}\n"},
    )
    add("train-resume-missing", g, ["train", "reach", "--resume", "nosuch-run", *quick], {2}, TRAIN)
    add("tune-trials-0", g, ["tune", "reach", "--trials", "0"], {2}, TRAIN, kinds={"invalid_input"})
    add(
        "tune-storage-bogus",
        g,
        [
            "tune",
            "reach",
            "--trials",
            "1",
            "--steps",
            "10",
            "--storage",
            "bogus://x",
            "--study-dir",
            "study",
        ],
        {2},
        TRAIN,
    )
    add(
        "tune-study-dir-proc",
        g,
        ["tune", "reach", "--trials", "1", "--steps", "10", "--study-dir", "/proc/study"],
        {2},
        TRAIN,
        kinds={"invalid_output"},
    )
    add("llm-serve-without-extra", g, ["llm", "serve"], {3}, FAST, needs="no-llama")
    # README: Ctrl-C (but `claw llm serve`, which just stops its server) | 130; with the extra.
    add(
        "llm-serve-sigint",
        g,
        ["llm", "serve", "--port", "{FREE}"],
        {0, 130},
        PHYS,
        interrupt=Interrupt(after_s=25.0),
        lenient_stderr=True,
        needs="llama",
    )
    add("llm-serve-port-0", g, ["llm", "serve", "--port", "0"], {2}, kinds={"invalid_input"})
    add("llm-serve-n-ctx-10", g, ["llm", "serve", "--n-ctx", "10"], {2}, kinds={"invalid_input"})
    add(
        "llm-serve-missing-model",
        g,
        ["llm", "serve", "--model", "/nonexistent.gguf"],
        {2, 3},
    )
    add("bench-env-steps-0", g, ["bench", "env", "--steps", "0"], {2}, kinds={"invalid_input"})
    add(
        "bench-env-json",
        g,
        ["bench", "env", "--steps", "20", "--repeats", "1", "--json"],
        {0},
        PHYS,
    )
    add("bench-policy-missing", g, ["bench", "policy", "/nonexistent/policy"], {2})
    add(
        "bench-planner-bomb",
        g,
        ["bench", "planner", "--suite", "s.yaml"],
        {2},
        files={"s.yaml": BOMB_SUITE},
    )

    round_three_cases(add, script, tiny)
    return cases


def script_damaged_datasets(ctx: Ctx) -> None:
    """Finding 18: Minari's own warnings (a file path and a source line) never reach stderr for
    a damaged dataset: one whose metadata is not JSON (a case file), one whose data is cut
    short (a recorded dataset, truncated here); `demos list` and `demos show` stay one-line."""
    env: dict[str, str | None] = {"MINARI_DATASETS_PATH": "{HOME}/.minari/datasets"}
    quiet: dict[str, object] = {"clean_stderr": True, "env": env}
    record = ["demos", "record", "reach", "--episodes", "2", "--out", "good"]
    ctx.run(Cmd(record, {0}, TRAIN, **quiet))  # type: ignore[arg-type]
    root = ctx.home / ".minari" / "datasets" / "claw" / "reach"
    good, cut = root / "good-v0", root / "cut-v0"
    if not (good / "data" / "main_data.hdf5").exists():
        ctx.fail("lost-result", "demos record wrote no claw/reach/good-v0")
    else:
        shutil.copytree(good, cut)
        meta = cut / "data" / "metadata.json"
        data = json.loads(meta.read_bytes())
        data["dataset_id"] = "claw/reach/cut-v0"
        meta.write_text(json.dumps(data))
        hdf5 = cut / "data" / "main_data.hdf5"
        hdf5.write_bytes(hdf5.read_bytes()[:100])
    # README: `demos list` is one note: line per dataset Minari skipped; `demos show` of one
    # that cannot be read is invalid_config.
    damaged = {"invalid_config"}
    for args, exits, note in (
        (["demos", "list"], {0}, "note:"),
        (["demos", "list", "--json"], {0}, None),
        (["demos", "show", "good"], {0}, None),
        (["demos", "show", "broken"], {2}, None),
        (["demos", "show", "claw/reach/broken-v0", "--json"], {2}, None),
        (["demos", "show", "claw/reach/cut-v0"], {0, 2}, None),
    ):
        ctx.run(Cmd(args, exits, TRAIN, kinds=damaged, stderr_has=note, **quiet))  # type: ignore[arg-type]


R3 = "round3"
#: README (MLflow): "MLflow's (and its migrations', alembic's) INFO lines are kept off stderr".
MLFLOW_INFO = (" INFO mlflow", "INFO  [alembic", "INFO [alembic")
GOAL_MODE = ["--llm-mode", "goal"]
INVALID = {"invalid_plan"}
UNAVAILABLE = {"planner_unavailable"}
MINARI_ENV: dict[str, str | None] = {"MINARI_DATASETS_PATH": "{HOME}/.minari/datasets"}
#: `claw train` refusing bad input: no run folder made, none announced (finding 19).
QUICK_TRAIN = ["--steps", "200", "--no-progress", "--eval-episodes", "1", "--runs-dir", "runs"]
NO_RUN: dict[str, object] = {"absent": ["runs"], "lacks": ("run folder",)}


def _model_adder(add: Callable[..., None]) -> Callable[..., None]:
    """`model(id, behaviour, exits, kinds, ...)`: one instruction planned by the fake server."""

    def model(
        id: str,
        behaviour: str,
        exits: Exits,
        kinds: set[str] | None = None,
        timeout: float = 10,
        extra: list[str] | None = None,
        deadline: float | None = None,
        instruction: str = INSTR,
        planner: str = "openai/whatever",
        **kw: object,
    ) -> None:
        args = [instruction, "--planner", planner, "--api-base", "{API:" + behaviour + "}"]
        kw.setdefault("server_check", server_requests_made)
        add(
            id,
            R3,
            [*args, "--timeout", str(timeout), *(extra or [])],
            exits,
            deadline or llm_deadline(timeout, 3),
            kinds=kinds,
            **kw,
        )

    return model


def round_three_cases(
    add: Callable[..., None], script: Callable[..., None], tiny: dict[str, Content]
) -> None:
    """Issue 37's round-three findings, each case naming its finding (ids r3-*, `-k r3`)."""
    _round_three_answers(add, script, tiny)
    _round_three_inputs(add, script, tiny)
    _round_three_arms(add, script)
    _round_three_learning(add, script, tiny)


def _round_three_answers(
    add: Callable[..., None], script: Callable[..., None], tiny: dict[str, Content]
) -> None:
    """Findings 1, 2, 5, 10, 14, 15: what a model answers (through the fake server)."""
    g = R3
    model = _model_adder(add)
    invalid, unavailable, goal = INVALID, UNAVAILABLE, GOAL_MODE

    def model_eval(id: str, behaviour: str, exits: Exits, extra: list[str], **kw: object) -> None:
        args = ["eval", "tiny.yaml", "--planner", "openai/whatever", "--timeout", "10"]
        add(
            id,
            g,
            [*args, "--api-base", "{API:" + behaviour + "}", "--json", "r.json", *extra],
            exits,
            kw.pop("deadline", LLM_START + PHYS),
            eval_json="r.json",
            eval_ids=TINY_IDS,
            files=tiny,
            **kw,
        )

    # -- finding 1: a goal of 3,000 copies of one predicate (or 280 different ones) hung the
    # planner (> 150 s in `claw "…"`, a hung `claw eval` case, the same through a cassette)
    model(
        "r3-goal-3000-copies",
        "goal_dup_3000",
        {0, 1},
        extra=goal,
        deadline=LLM_START + PHYS,
    )
    model(
        "r3-goal-3000-copies-steps",
        "steps_goal_dup_3000",
        {0, 1},
        deadline=LLM_START + PHYS,
    )
    model(
        "r3-goal-3000-copies-hybrid",
        "goal_dup_3000",
        {0, 1},
        instruction=JAPANESE,
        planner="offline+openai/whatever",
        deadline=LLM_START + PHYS,
    )
    model(
        "r3-goal-280-different",
        "goal_distinct",
        {2, 3},
        invalid | {"unsupported", "plan_too_long"},
        extra=goal,
    )
    model_eval("r3-eval-goal-3000-copies", "goal_dup_3000", {0, 1}, goal)
    add(
        "r3-replay-goal-3000-copies",
        g,
        ["eval", "tiny.yaml", "--planner", "replay:c.json", "--json", "r.json"],
        {0, 1},
        LLM_START + PHYS,
        eval_json="r.json",
        eval_ids=TINY_IDS,
        files={
            **tiny,
            "c.json": lambda f: f.cassette_with(plan(PICK_RED_IN_BLUE_BOX, GOAL_DUP_3000)),
        },
    )

    # -- finding 2: a gzip answer decoded whole before the cap (4 GiB from 4 MB: 18 GiB peak,
    # 145 s); README: over 16 MiB decoded is planner_unavailable at once, not retried
    once = server_requests(1, 1)
    model(
        "r3-gzip-bomb",
        "gzip_bomb",
        {3},
        unavailable,
        message_has="16 MiB",
        deadline=LLM_START + 30,
        server_check=once,
    )
    model(
        "r3-gzip-bomb-json",
        "gzip_bomb",
        {3},
        unavailable,
        extra=["--json"],
        deadline=LLM_START + 30,
        server_check=once,
    )
    model(
        "r3-gzip-bomb-fallback",
        "gzip_bomb",
        {0, 1},
        extra=["--fallback", "offline"],
        deadline=LLM_START + 30 + PHYS,
        stderr_has="note:",
        server_check=once,
    )
    model("r3-gzip-small-answer", "gzip_valid", {0})  # a gzip body within the cap is read
    model(
        "r3-brotli-body",
        "brotli_body",
        {3},
        unavailable,
        deadline=LLM_START + 30,
        server_check=once,
    )
    model_eval("r3-eval-gzip-bomb", "gzip_bomb", {1}, [], deadline=LLM_START + 60)

    # -- finding 5: not( nested 5,000 deep: a RecursionError (invalid_input, no repair, from a
    # model; a 2,995-line traceback from a suite)
    add(
        "r3-suite-goal-deep-not",
        g,
        ["eval", "s.yaml", "--json", "r.json"],
        {2},
        kinds={"invalid_suite"},
        files={"s.yaml": suite_yaml([one_case(goal=[DEEP_NOT])])},
        absent=["r.json"],
    )
    model("r3-deep-not", "deep_not", {3}, invalid, server_check=server_requests(3, 3))
    model("r3-deep-not-goal-mode", "deep_not", {3}, invalid, extra=goal)
    model("r3-deep-not-repaired", "deep_not_then_valid", {0}, server_check=server_requests(2, 2))
    add(
        "r3-replay-deep-not",
        g,
        ["eval", "tiny.yaml", "--planner", "replay:c.json", "--json", "r.json"],
        {1, 2},
        LLM_START + PHYS,
        kinds={"invalid_input"},
        eval_json="r.json",
        eval_ids=TINY_IDS,
        files={**tiny, "c.json": lambda f: f.cassette_with(plan([], [DEEP_NOT]))},
    )

    # -- finding 10: NaN and Infinity in move_to passed plan validation, failed when run
    for value in ("nan", "inf", "-inf"):
        add(
            f"r3-skills-run-move-to-{value}",
            g,
            ["skills", "run", "move_to", "--arg", f"x={value}", "--arg", "y=0", "--arg", "z=0.2"],
            {2},
            kinds={"invalid_params"},
        )
    for behaviour in ("move_to_nan", "move_to_inf", "move_to_neg_inf"):
        api = "{API:" + behaviour + "}"
        cmd = Cmd(
            [INSTR, "--planner", "openai/whatever", "--api-base", api, "--timeout", "10", "--json"],
            {3},
            llm_deadline(10, 3),
            kinds=invalid,
        )
        script(f"r3-llm-{behaviour.replace('_', '-')}", g, script_nothing_moved(cmd))

    # -- finding 14: goal mode, an answer of pick/place steps and no goal ended "nothing was
    # done", exit 1, unrepaired; README: a problem sent back for repair
    model(
        "r3-goal-mode-steps-no-goal",
        "steps_no_goal",
        {3},
        invalid,
        extra=goal,
        message_has="no goal",
        server_check=server_requests(3, 3),
    )
    model(
        "r3-goal-mode-steps-no-goal-repaired",
        "steps_no_goal_then_goal",
        {0},
        extra=goal,
        deadline=LLM_START + PHYS,
        server_check=server_requests(2, 2),
    )

    # -- finding 15: check lines and "why:" lines printed twice
    for id, behaviour, exits, extra in (
        ("r3-check-lines-once", "goal_twice", {0, 1}, goal),
        ("r3-why-lines-once", "goal_twice_unreached", {1}, []),
    ):
        args = [INSTR, "--planner", "openai/whatever", "--api-base", "{API:" + behaviour + "}"]
        cmd = Cmd([*args, "--timeout", "10", *extra], exits, LLM_START + PHYS)
        script(id, g, script_no_repeated_lines(cmd))


def _round_three_inputs(
    add: Callable[..., None], script: Callable[..., None], tiny: dict[str, Content]
) -> None:
    """Findings 4, 6, 7, 8, 9, 21, 23: instructions, planner names, selections, scenes."""
    g = R3
    model = _model_adder(add)
    invalid = INVALID

    # -- finding 4: the instruction caps bypassed by the hybrid and LLM planners (a 119 KB
    # instruction sent to the model three times); README: refused at once, no model asked
    for id, planner in (("hybrid", "offline+openai/whatever"), ("llm", "openai/whatever")):
        model(
            f"r3-119kb-{id}",
            "valid",
            {2},
            {"unparseable"},
            instruction=KB_119,
            planner=planner,
            deadline=LLM_START,
            server_check=server_no_requests,
        )
        model(
            f"r3-1001-chars-{id}",
            "valid",
            {2},
            {"unparseable"},
            instruction=CHARS_1001,
            planner=planner,
            deadline=LLM_START,
            message_has="1,000",
            server_check=server_no_requests,
        )
    add(
        "r3-119kb-claw-model",
        g,
        [KB_119, "--json"],
        {2},
        LLM_START,
        kinds={"unparseable"},
        env={"CLAW_MODEL": "openai/whatever", "CLAW_API_BASE": "{API:valid}"},
        server_check=server_no_requests,
    )
    add(
        "r3-119kb-eval-hybrid",
        g,
        [
            "eval",
            "s.yaml",
            "--planner",
            "offline+openai/whatever",
            "--api-base",
            "{API:valid}",
            "--json",
            "r.json",
        ],
        {1, 2},
        LLM_START + PHYS,
        kinds={"invalid_suite"},
        eval_json="r.json",
        eval_ids=["c1", "err"],
        files={"s.yaml": suite_yaml([one_case(instruction=KB_119), ERROR_CASE])},
        server_check=server_no_requests,
    )

    # -- finding 6: `offline+` a thousand times recursed without bound (a traceback in eval)
    bad_name = {"invalid_input"}
    add("r3-planner-hybrid-1000", g, [INSTR, "--planner", NESTED_HYBRID], {2}, kinds=bad_name)
    add(
        "r3-planner-hybrid-nested",
        g,
        [INSTR, "--planner", "offline+offline+openai/whatever"],
        {2},
        kinds=bad_name,
    )
    add(
        "r3-eval-planner-hybrid-1000",
        g,
        ["eval", "tiny.yaml", "--planner", NESTED_HYBRID, "--json", "r.json"],
        {2},
        kinds=bad_name,
        files=tiny,
        absent=["r.json"],
    )
    add(
        "r3-sweep-planner-hybrid-1000",
        g,
        ["eval", "sweep", "sw.yaml", "--out", "out"],
        {2},
        kinds={"invalid_input", "invalid_suite", "invalid_config"},
        files={
            "sw.yaml": json.dumps({"suites": ["e.yaml"], "planners": [NESTED_HYBRID]}),
            "e.yaml": ERRORS_SUITE.format(name="e"),
        },
        absent=["out"],
    )

    # -- finding 7: bytes that are not UTF-8 (a surrogate escape from the shell): --json crashed
    # with a traceback; the hybrid reported the model unreachable after 3 retries
    not_utf8 = {"invalid_input"}
    add("r3-not-utf8", g, [BAD_UTF8], {2}, kinds=not_utf8, message_has="0xff")
    add("r3-not-utf8-json", g, [BAD_UTF8, "--json"], {2}, kinds=not_utf8)
    model(
        "r3-not-utf8-hybrid",
        "valid",
        {2},
        not_utf8,
        instruction=BAD_UTF8,
        planner="offline+openai/whatever",
        deadline=LLM_START,
        server_check=server_no_requests,
    )
    model(
        "r3-not-utf8-llm-json",
        "valid",
        {2},
        not_utf8,
        instruction=BAD_UTF8,
        extra=["--json"],
        deadline=LLM_START,
        server_check=server_no_requests,
    )
    add(
        "r3-not-utf8-claw-model",
        g,
        [BAD_UTF8],
        {2},
        LLM_START,
        kinds=not_utf8,
        env={"CLAW_MODEL": "openai/whatever", "CLAW_API_BASE": "{API:valid}"},
        server_check=server_no_requests,
    )
    add(
        "r3-suite-not-utf8-instruction",
        g,
        ["eval", "s.yaml", "--json", "r.json"],
        {2},
        kinds={"invalid_suite"},
        files={"s.yaml": suite_yaml([one_case(instruction="put the green block \udcff")])},
        absent=["r.json"],
    )

    # -- finding 8: "the instruction is empty" for instructions that are not
    not_empty = message_lacks("empty")
    add(
        "r3-switch-hands-nothing-held",
        g,
        ["switch hands", "--scene", "two_arms"],
        {2},
        kinds={"unparseable", "unsupported"},
        stderr_check=not_empty,
    )
    add("r3-fullwidth", g, [FULLWIDTH], {0, 1}, PHYS, stdout_nonempty=True)
    add("r3-japanese", g, [JAPANESE], {2}, kinds={"unparseable"}, stderr_check=not_empty)
    add(
        "r3-japanese-fallback",
        g,
        [
            JAPANESE,
            "--planner",
            "openai/whatever",
            "--api-base",
            "http://127.0.0.1:{FREE}/v1",
            "--timeout",
            "2",
            "--fallback",
            "offline",
        ],
        {2},
        llm_deadline(2),
        kinds={"unparseable"},
        stderr_check=not_empty,
        stderr_has="note:",
    )

    # -- finding 9: the unknown-skill message of a one-arm scene listed handover, lift_together
    two_arm_skills = message_lacks("handover", "lift_together")
    add(
        "r3-unknown-skill-one-arm",
        g,
        ["skills", "run", "nosuch", "--scene", "default"],
        {2},
        kinds={"unknown_skill"},
        stderr_check=two_arm_skills,
    )
    model(
        "r3-llm-unknown-skill-one-arm", "unknown_skill", {3}, invalid, stderr_check=two_arm_skills
    )
    add(
        "r3-unknown-skill-two-arms",  # where the scene has two arms they are offered
        g,
        ["skills", "run", "nosuch", "--scene", "two_arms"],
        {2},
        kinds={"unknown_skill"},
        message_has="handover",
    )

    # -- finding 21: a -k expression near its 1,000-character cap pushed the reason off the line
    add(
        "r3-k-long-malformed",
        g,
        ["eval", "tiny.yaml", "-k", K_LONG_MALFORMED],
        {2},
        kinds={"invalid_input"},
        message_has="expected",
        files=tiny,
    )
    add(
        "r3-k-long-selects-nothing",
        g,
        ["eval", "tiny.yaml", "-k", K_LONG_NOTHING],
        {2},
        kinds={"invalid_input"},
        message_has="selects none",
        files=tiny,
    )

    # -- finding 23: a scene's `arms: true` and `arms: "2"` were coerced
    for id, value in (("true", "true"), ("string", '"2"')):
        body = f"name: a\narms: {value}\nobjects:\n  - {{type: block, color: red}}\n"
        add(
            f"r3-scene-arms-{id}",
            g,
            ["scene", "show", "s.yaml"],
            {2},
            kinds={"invalid_scene"},
            files={"s.yaml": body},
        )
        add(
            f"r3-run-scene-arms-{id}",
            g,
            [INSTR, "--scene", "s.yaml"],
            {2},
            kinds={"invalid_scene"},
            files={"s.yaml": body},
        )


def _round_three_arms(add: Callable[..., None], script: Callable[..., None]) -> None:
    """Findings 11-13, 25: what the arms of a scene cannot do, refused before anything moves."""
    g = R3
    model = _model_adder(add)
    invalid, goal = INVALID, GOAL_MODE

    # -- findings 11-13: refused before anything moves -- a short block in both claws (it was
    # picked, handed over, then failed), a push "with both arms" (one arm pushed), a bar in a
    # one-arm scene (planned, refused at the step, replanned three times, lift_together named)
    two_small = {"small.yaml": TWO_ARMS_SMALL}
    for id, instruction, scene_name in (
        ("r3-both-arms-hold-block", "both arms hold the red block", "two_arms"),
        ("r3-hold-block-with-both-arms", "hold the red block with both arms", "two_arms"),
        ("r3-both-arms-hold-small-block", "hold the small red block with both arms", "small.yaml"),
        ("r3-lift-small-block-together", "lift the red block together", "small.yaml"),
    ):
        script(
            id,
            g,
            script_nothing_moved(
                Cmd(
                    [instruction, "--scene", scene_name, "--json"],
                    {2},
                    kinds={"unsupported", "unparseable"},
                )
            ),
            files=two_small,
        )
    model(
        "r3-llm-both-arms-hold-block",
        "both_arms_hold_block",
        {2, 3},
        invalid | {"unsupported"},
        extra=["--scene", "two_arms", *goal],
    )
    for id, instruction in (
        ("r3-push-bar-both-arms", "push the bar 5 cm to the left with both arms"),
        ("r3-push-bar-both-hands", "use both hands to push the yellow bar 5 cm to the right"),
    ):
        script(
            id,
            g,
            script_nothing_moved(
                Cmd([instruction, "--scene", "two_arms", "--json"], {2}, kinds={"unsupported"})
            ),
        )
    for id, instruction in (
        ("r3-bar-one-arm", "pick up the bar"),
        ("r3-bar-one-arm-put", "put the yellow bar next to the red block"),
    ):
        script(
            id,
            g,
            script_nothing_moved(
                Cmd(
                    [instruction, "--scene", "bar.yaml", "--json"],
                    {2},
                    kinds={"unsupported"},
                    message_has="one arm",
                )
            ),
            files={"bar.yaml": ONE_ARM_BAR},
        )

    # -- finding 25: `claw skills run handover` in a one-arm scene exited 1 at the step
    for id, args in (
        (
            "r3-skills-run-handover-one-arm",
            ["handover", "--arg", "object=red_block", "--arg", "to=right"],
        ),
        ("r3-skills-run-lift-together-one-arm", ["lift_together", "--arg", "object=red_block"]),
    ):
        cmd = Cmd(
            ["skills", "run", *args, "--scene", "default", "--json"],
            {2},
            kinds={"unknown_skill", "invalid_params"},
        )
        script(id, g, script_nothing_moved(cmd))
    model(  # a model's handover there: a plan problem sent back for repair
        "r3-llm-handover-one-arm",
        "handover_one_arm",
        {3},
        invalid,
        message_has="needs 2 arms",
        server_check=server_requests(3, 3),
    )


def _round_three_learning(
    add: Callable[..., None], script: Callable[..., None], tiny: dict[str, Content]
) -> None:
    """Findings 3, 16-20, 22, 24: demonstrations, training, tracking, the Python API."""
    g = R3
    minari, quick, no_run = MINARI_ENV, QUICK_TRAIN, NO_RUN

    # -- findings 16, 22, 24: the Python API (README: TwoArmReach; register_planner;
    # claw/PickAndPlace-v0's difficulty and sparse reward)
    for id, code in (
        ("r3-two-arm-reach-nan-and-end", PY_TWO_ARM_REACH),
        ("r3-register-planner", PY_REGISTER_PLANNER),
        ("r3-pick-and-place-bounds", PY_PICK_AND_PLACE),
    ):
        add(id, g, ["-c", code], {0}, FAST, python=True, clean_stderr=True)

    # -- finding 17: the seed plus the episode index past 2**32-1, unchecked
    over = ["--seed", "4294967295", "--episodes", "2"]
    add(
        "r3-demos-record-seed-overflow",
        g,
        ["demos", "record", "reach", *over, "--out", "over"],
        {2},
        TRAIN,
        kinds={"invalid_input"},
        env=minari,
        absent=[f"{MINARI_DIR}/claw/reach/over-v0"],
    )
    add(
        "r3-demos-record-seed-last",  # seeds 4294967294 and 4294967295: both in range
        g,
        ["demos", "record", "reach", "--seed", "4294967294", "--episodes", "2", "--out", "last"],
        {0},
        TRAIN,
        env=minari,
    )
    for id, args in (
        ("r3-bench-two-arm-seed-overflow", ["bench", "two-arm", *over]),
        ("r3-bench-skills-seed-overflow", ["bench", "skills", *over, "--no-tasks"]),
        ("r3-bench-policy-seed-overflow", ["bench", "policy", "reach", *over]),
        ("r3-bench-imitation-seed-overflow", ["bench", "imitation", *over]),
    ):
        add(id, g, args, {2}, TRAIN, kinds={"invalid_input"})

    # -- finding 18: Minari's UserWarnings on stderr for a damaged dataset
    script("r3-demos-damaged-dataset", g, script_damaged_datasets, files=BROKEN_DATASET)

    # -- finding 19: `claw train` made and announced its run folder before checking --demos and
    # the env settings, leaving an empty folder
    add(
        "r3-train-demos-missing",
        g,
        ["train", "pick", "--demos", "nosuch", *quick],
        {2},
        TRAIN,
        kinds={"invalid_config"},
        env=minari,
        **no_run,
    )
    for id, setting in (
        ("r3-train-env-reward-type-bogus", "env_kwargs.reward_type=bogus"),
        ("r3-train-env-kwarg-unknown", "env_kwargs.frobnicate=1"),
    ):
        args = ["train", "reach", "--hyperparams", setting, *quick]
        add(id, g, args, {2}, TRAIN, kinds={"invalid_config"}, **no_run)

    # -- finding 3: an MLflow store that cannot be used: 100-250 s of retries, a traceback,
    # exit 1, the URI's password shown; probed up front, one error line, no secret
    # -- finding 20: MLflow's own INFO lines on stderr
    unreachable = f"http://claw:{TRACKING_PASSWORD}@127.0.0.1:{{FREE}}"
    tracking = {"tracking_unavailable"}
    bad_stores = (
        ("http", unreachable),
        ("silent-server", "{API:slow}"),  # README: a server must answer within 3 s
        ("not-mlflow", "{API:valid}"),  # a server, but not MLflow's
        ("sqlite-proc", "sqlite:////proc/claw-adversarial/mlflow.db"),
        ("bad-uri", "::bad::"),
    )
    for id, uri in bad_stores:
        add(
            f"r3-mlflow-eval-{id}",
            g,
            ["eval", "tiny.yaml", "--tracker", "mlflow", "--tracking-uri", uri, "--json", "r.json"],
            {2},
            FAST,
            kinds=tracking,
            message_has="***" if TRACKING_PASSWORD in uri else None,
            files=tiny,
            secrets=(TRACKING_PASSWORD,),
            absent=["r.json"],
        )
    tracked = ["--tracker", "mlflow", "--tracking-uri", unreachable]
    add(
        "r3-mlflow-train-unreachable",
        g,
        ["train", "reach", *quick, *tracked],
        {2},
        TRAIN,
        kinds=tracking,
        secrets=(TRACKING_PASSWORD,),
        **no_run,
    )
    add(
        "r3-mlflow-tune-unreachable",
        g,
        ["tune", "reach", "--trials", "1", "--steps", "10", "--study-dir", "study", *tracked],
        {2},
        TRAIN,
        kinds=tracking,
        secrets=(TRACKING_PASSWORD,),
    )
    add(
        "r3-mlflow-default-store-unwritable",  # the working directory is /proc
        g,
        ["eval", "{DIR}/tiny.yaml", "--tracker", "mlflow"],
        {2},
        FAST,
        kinds=tracking,
        files=tiny,
        cwd="/proc",
        env={"MLFLOW_TRACKING_URI": None},
    )
    store = "sqlite:///{DIR}/mlflow.db"
    add(
        "r3-mlflow-eval-quiet",
        g,
        ["eval", "tiny.yaml", "--tracker", "mlflow", "--tracking-uri", store, "--json", "r.json"],
        {0, 1},
        LLM_START + PHYS,
        files=tiny,
        eval_json="r.json",
        eval_ids=TINY_IDS,
        clean_stderr=True,
        lacks=MLFLOW_INFO,
    )
    add(
        "r3-mlflow-train-quiet",
        g,
        ["train", "reach", *quick, "--tracker", "mlflow", "--tracking-uri", store],
        {0},
        TRAIN + PHYS,
        lacks=MLFLOW_INFO,  # its stderr also holds claw's own "run folder:" line
    )


# --------------------------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------------------------


def capabilities() -> dict[str, str]:
    """What this machine lacks, as skip reasons (an empty reason: the capability is there)."""
    reasons: dict[str, str] = {}
    if importlib.util.find_spec("ray") is None:
        reasons["ray"] = "Ray is not installed (pip install -e '.[ray]')"
    if importlib.util.find_spec("llama_cpp") is not None:
        reasons["no-llama"] = "llama-cpp-python is installed: `claw llm serve` would serve"
    else:
        reasons["llama"] = "llama-cpp-python is not installed (the local extra)"
    probe = tempfile.mkdtemp(prefix="claw-adv-unshare-")
    try:
        result = subprocess.run(
            [
                "unshare",
                "-m",
                "--propagation",
                "private",
                "sh",
                "-c",
                READ_ONLY_WRAP + " ; true",
                "sh",
                probe,
                "sh",
                "-c",
                f"touch {probe}/x 2>/dev/null && echo writable || echo read-only",
            ],
            capture_output=True,
            text=True,
            timeout=30,
        )
        if "read-only" not in result.stdout:
            reasons["unshare"] = (
                "cannot make a read-only bind mount (unshare -m / mount --bind): "
                + result.stderr.strip()[:100]
            )
    except (OSError, subprocess.SubprocessError) as exc:
        reasons["unshare"] = f"unshare is not available: {exc}"
    finally:
        shutil.rmtree(probe, ignore_errors=True)
    return reasons


def print_table(outcomes: list[Outcome]) -> None:
    print(f"{'case':<36} {'command':<64} {'exit':>4}  verdict")
    for o in outcomes:
        print(
            f"{o.case.id[:36]:<36} {_short(o.command, 64):<64} "
            f"{o.exit if o.exit is not None else '-'!s:>4}  {o.verdict}"
        )
        for p in [p for p in o.problems if p.cls != "note"][:4]:
            print(f"{'':<36}   {p.cls}: {_short(p.message, 220)}")
        if o.skip_reason:
            print(f"{'':<36}   skipped: {o.skip_reason}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", metavar="FILE", help="write the report as JSON")
    parser.add_argument("--jobs", type=int, default=2, help="cases run at once (default 2)")
    parser.add_argument(
        "-k",
        dest="select",
        action="append",
        default=[],
        help="only cases whose id or group contains this",
    )
    parser.add_argument("--list", action="store_true", help="list the cases and exit")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folders")
    args = parser.parse_args(argv)

    cases = build_cases()
    ids = [c.id for c in cases]
    assert len(ids) == len(set(ids)), "case ids must be unique"
    if args.select:
        cases = [c for c in cases if any(s in c.id or s == c.group for s in args.select)]
    if args.list:
        for c in cases:
            print(f"{c.group:<12} {c.id}")
        print(f"{len(cases)} cases")
        return 0

    started = time.monotonic()
    root = Path(tempfile.mkdtemp(prefix="claw-adversarial-"))
    server = FakeLLM()
    server.start()
    try:
        caps = capabilities()
        print(
            f"claw adversarial campaign: {len(cases)} cases, {args.jobs} at a time, in {root}",
            flush=True,
        )
        print(f"fake OpenAI-compatible server on 127.0.0.1:{server.port}", flush=True)
        fixtures = make_fixtures(root)
        for warning in fixtures.warnings:
            print(f"warning: {warning}", flush=True)
        outcomes: list[Outcome | None] = [None] * len(cases)
        done = 0

        def work(n: int) -> None:
            nonlocal done
            outcome = run_case(cases[n], root / "cases", server, fixtures, caps)
            outcomes[n] = outcome
            done += 1
            print(
                f"[{done:>3}/{len(cases)}] {outcome.verdict:<12} "
                f"{outcome.seconds:6.1f} s  {cases[n].id}",
                flush=True,
            )

        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            list(pool.map(work, range(len(cases))))
        finished = [o for o in outcomes if o is not None]
    finally:
        server.stop()
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)

    elapsed = time.monotonic() - started
    print()
    print_table(finished)
    failed = [o for o in finished if o.verdict not in ("ok", "skip")]
    skipped = [o for o in finished if o.verdict == "skip"]
    passed = len(finished) - len(failed) - len(skipped)
    by_class: dict[str, int] = {}
    for o in failed:
        by_class[o.verdict] = by_class.get(o.verdict, 0) + 1
    print()
    print(
        "failures by class: "
        + (", ".join(f"{k} {v}" for k, v in sorted(by_class.items())) or "none")
    )
    print(f"{passed} passed, {len(failed)} failed, {len(skipped)} skipped in {elapsed:.0f} s")
    if args.json:
        report = {
            "cases": [
                {
                    "id": o.case.id,
                    "group": o.case.group,
                    "command": o.command,
                    "exit": o.exit,
                    "verdict": o.verdict,
                    "problems": [{"class": p.cls, "message": p.message} for p in o.problems],
                    "seconds": round(o.seconds, 2),
                    "skip_reason": o.skip_reason or None,
                }
                for o in finished
            ],
            "passed": passed,
            "failed": len(failed),
            "skipped": len(skipped),
            "failures_by_class": by_class,
            "seconds": round(elapsed, 1),
            "fixture_warnings": fixtures.warnings,
        }
        Path(args.json).write_text(json.dumps(report, indent=1))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
