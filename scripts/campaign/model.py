"""A case as the runner sees it: its command, its inputs and what it expects; its outcome."""

from __future__ import annotations

import signal
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .limits import FAST

if TYPE_CHECKING:
    from .context import Ctx
    from .fake_llm import Request
    from .fixtures import Fixtures

Exits = set[int] | frozenset[int]
#: A file's content: text, bytes, or made from the fixtures when the case starts.
Content = str | bytes | Callable[["Fixtures"], bytes]
#: A check of one error message: None, or what is wrong with it.
MessageCheck = Callable[[str], "str | None"]
#: A check of the requests the fake server received for a case: None, or what is wrong.
ServerCheck = Callable[[list["Request"]], "str | None"]


@dataclass
class Interrupt:
    """Send SIGINT (or another signal) to the process group, as Ctrl-C in a terminal does."""

    after_s: float = 5.0  # from the start, or from the server's first request when wait_request
    wait_request: bool = False
    signum: int = signal.SIGINT


@dataclass
class Cmd:
    """One command line and what its run must show."""

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
    stderr_check: MessageCheck | None = None  # extra check of the error line
    lenient_stderr: bool = False  # a server's own logs on stderr (claw llm serve) are allowed
    python: bool = False  # args go to `python` itself (`-c CODE`), not to `python -m claw`
    clean_stderr: bool = False  # whatever the exit, stderr holds only error and note lines
    lacks: tuple[str, ...] = ()  # texts its output must not show
    secrets: tuple[str, ...] = ()  # secrets on its command line that must never be shown


@dataclass
class Case:
    """One case: a command (or a scripted scenario of several) in a folder of its own."""

    id: str
    group: str
    cmd: Cmd | None = None
    files: dict[str, Content] = field(default_factory=dict)
    unchanged: list[str] = field(default_factory=list)  # inputs that must stay byte-identical
    absent: list[str] = field(default_factory=list)  # paths that must not exist afterwards
    script: Callable[[Ctx], None] | None = None  # several commands and their own checks
    server_check: ServerCheck | None = None
    library: bool = False  # start from a copy of the fixture library
    needs: str | None = None  # "ray", "unshare", "llama", "no-llama": skipped honestly otherwise
    raw_outputs: list[str] = field(default_factory=list)  # written files exempt from the ANSI scan
    links: list[tuple[str, str, str]] = field(default_factory=list)  # ("sym"|"hard", target, name)


@dataclass
class Problem:
    """One thing a case got wrong, by class (limits.CLASSES, or "note")."""

    cls: str
    message: str


@dataclass
class Outcome:
    """A case's verdict: its most serious problem, or "ok", or "skip" with the reason."""

    case: Case
    command: str
    exit: int | None
    verdict: str
    problems: list[Problem]
    seconds: float
    skip_reason: str = ""
