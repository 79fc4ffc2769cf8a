"""The case table: one YAML file per group under scripts/adversarial_cases/, one row per case.

A row is one command and what its run must show::

    - id: seed-negative                    # unique across every file; the file's name is the group
      args: [--seed, "-1", "${INSTR}"]     # claw's arguments (or `python: CODE` for `python -c`)
      exits: [2]                           # the exit codes README allows for this input
      kinds: [invalid_input]               # the error kinds allowed on exit 2 or 3
      deadline: FAST                       # a class of limits.DEADLINES, `PHYS + 30`, `LLM(10, 3)`
      message_has: a seed is an integer    # and the other optional fields of Row below
      files: {tiny.yaml: {make: tiny_suite}}

Strings may name a text of texts.TEXTS as `${NAME}` (put in when the table is read) and, in
arguments and env, `{API:BEHAVIOUR}` (answers.BEHAVIOURS), `{DIR}`, `{HOME}`, `{CLAW_HOME}` and
`{FREE}` (put in when the case runs). A file is a text, or `{make: GENERATOR, ...}` (inputs.py).
`script:`, `server_check:` and `stderr_check:` name a function of scenarios.SCRIPTS,
verdicts.SERVER_CHECKS or verdicts.MESSAGE_CHECKS: `NAME`, or `{NAME: {ARGUMENT: VALUE}}`.
"""

from __future__ import annotations

import functools
import inspect
import re
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from .inputs import FileSpec, check_arguments, make
from .limits import deadline_seconds
from .model import Case, Cmd, Content, Interrupt
from .scenarios import SCRIPTS
from .texts import TEXTS
from .verdicts import MESSAGE_CHECKS, SERVER_CHECKS

TABLE = Path(__file__).resolve().parent.parent / "adversarial_cases"
TEXT_NAME = re.compile(r"\$\{([A-Za-z0-9_]+)\}")
#: A named function: `NAME` or `{NAME: {ARGUMENT: VALUE}}`.
Named = str | dict[str, dict[str, Any]]
#: Where the functions a row names by field are.
REGISTRIES: dict[str, dict[str, Callable[..., Any]]] = {
    "script": SCRIPTS,
    "server_check": SERVER_CHECKS,
    "stderr_check": MESSAGE_CHECKS,
}


class TableError(Exception):
    """A table file or row that is wrong, said in one line."""


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class InterruptRow(Strict):
    """`interrupt:` a signal to the process group after `after_s` seconds."""

    after_s: float
    wait_request: bool = False  # count from the fake server's first request, not the start
    signal: Literal["SIGINT", "SIGTERM"] = "SIGINT"


class LinkRow(Strict):
    """`links:` the file `name` as a symbolic or a hard link to `sym` or `hard`."""

    name: str
    sym: str | None = None
    hard: str | None = None

    @model_validator(mode="after")
    def _one_target(self) -> LinkRow:
        if (self.sym is None) == (self.hard is None):
            raise ValueError("a link has one of sym: or hard:")
        return self


class Row(Strict):
    """One case: the fields of model.Cmd and model.Case as the table writes them."""

    id: str
    script: Named | None = None
    args: list[str] | None = None
    python: str | None = None
    exits: list[int] | None = None
    kinds: list[str] | None = None
    deadline: str = "FAST"
    message_has: str | None = None
    stderr_has: str | None = None
    stderr_check: Named | None = None
    json_stdout: bool | None = None
    eval_json: str | None = None
    eval_ids: list[str] | None = None
    stdout_nonempty: bool = False
    env: dict[str, str | None] = {}
    cwd: str = "."
    interrupt: InterruptRow | None = None
    read_only_home: bool = False
    lenient_stderr: bool = False
    clean_stderr: bool = False
    lacks: list[str] = []
    secrets: list[str] = []
    files: dict[str, str | dict[str, Any]] = {}
    links: list[LinkRow] = []
    unchanged: list[str] = []
    absent: list[str] = []
    raw_outputs: list[str] = []
    server_check: Named | None = None
    library: bool = False
    needs: Literal["ray", "unshare", "llama", "no-llama"] | None = None

    @model_validator(mode="before")
    @classmethod
    def _put_in_texts(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        for key, value in data.items():
            try:
                data[key] = put_in_texts(value)
            except KeyError as exc:
                raise ValueError(f"{key}: no text ${{{exc.args[0]}}} (see texts.TEXTS)") from None
        return data

    @field_validator("deadline")
    @classmethod
    def _deadline(cls, value: str) -> str:
        deadline_seconds(value)
        return value

    @field_validator("script", "server_check", "stderr_check")
    @classmethod
    def _named(cls, value: Named | None, info: ValidationInfo) -> Named | None:
        return _check_named(REGISTRIES[str(info.field_name)], value)

    @field_validator("files")
    @classmethod
    def _files(cls, value: dict[str, FileSpec]) -> dict[str, FileSpec]:
        for name, spec in value.items():
            problem = check_arguments(spec) if isinstance(spec, dict) else None
            if problem:
                raise ValueError(f"{name}: {problem}")
        return value

    @model_validator(mode="after")
    def _command(self) -> Row:
        has_command = self.args is not None or self.python is not None
        if self.args is not None and self.python is not None:
            raise ValueError("args: and python: both given; a row runs one command")
        if has_command and self.exits is None:
            raise ValueError("exits: missing; a command's allowed exit codes")
        if self.script is None and not has_command:
            raise ValueError("no args:, python: or script:; a row runs something")
        if self.script is not None:
            takes_cmd = "cmd" in inspect.signature(SCRIPTS[_name(self.script)]).parameters
            if takes_cmd != has_command:
                does = "runs the row's command (args:)" if takes_cmd else "runs its own commands"
                raise ValueError(f"script: {_name(self.script)} {does}")
        return self


def put_in_texts(value: Any) -> Any:
    """`value` with every `${NAME}` in its strings replaced by texts.TEXTS[NAME]."""
    if isinstance(value, str):
        return TEXT_NAME.sub(lambda match: TEXTS[match.group(1)], value)
    if isinstance(value, list):
        return [put_in_texts(item) for item in value]
    if isinstance(value, dict):
        return {key: put_in_texts(item) for key, item in value.items()}
    return value


def _name(ref: Named) -> str:
    return ref if isinstance(ref, str) else next(iter(ref))


def _arguments(ref: Named) -> dict[str, Any]:
    return {} if isinstance(ref, str) else dict(next(iter(ref.values())))


def _check_named(registry: dict[str, Callable[..., Any]], ref: Named | None) -> Any:
    """`ref` if it names a function of `registry` with arguments it takes (past the first)."""
    if ref is None:
        return None
    if isinstance(ref, dict) and len(ref) != 1:
        raise ValueError("name one function: NAME or {NAME: {ARGUMENT: VALUE}}")
    name = _name(ref)
    if name not in registry:
        raise ValueError(f"no {name!r} (there are {', '.join(sorted(registry))})")
    parameters = list(inspect.signature(registry[name]).parameters.values())[1:]
    given = set(_arguments(ref))
    wanted = {p.name for p in parameters if p.default is inspect.Parameter.empty} - {"cmd"}
    unknown = given - {p.name for p in parameters}
    if unknown or wanted - given:
        raise ValueError(f"{name} takes {sorted(p.name for p in parameters)}, not {sorted(given)}")
    return ref


def _bound(registry: dict[str, Callable[..., Any]], ref: Named, **more: Any) -> Any:
    return functools.partial(registry[_name(ref)], **_arguments(ref), **more)


def to_case(row: Row, group: str) -> Case:
    """The runner's Case of a validated row."""
    cmd: Cmd | None = None
    if row.args is not None or row.python is not None:
        assert row.exits is not None
        interrupt = row.interrupt
        cmd = Cmd(
            args=["-c", row.python] if row.python is not None else list(row.args or []),
            exits=set(row.exits),
            deadline=deadline_seconds(row.deadline),
            kinds=set(row.kinds) if row.kinds is not None else None,
            message_has=row.message_has,
            json_stdout=row.json_stdout,
            eval_json=row.eval_json,
            eval_ids=row.eval_ids,
            stdout_nonempty=row.stdout_nonempty,
            stderr_has=row.stderr_has,
            env=dict(row.env),
            cwd=row.cwd,
            interrupt=None
            if interrupt is None
            else Interrupt(
                interrupt.after_s, interrupt.wait_request, getattr(signal, interrupt.signal)
            ),
            read_only_home=row.read_only_home,
            stderr_check=_bound(MESSAGE_CHECKS, row.stderr_check) if row.stderr_check else None,
            lenient_stderr=row.lenient_stderr,
            python=row.python is not None,
            clean_stderr=row.clean_stderr,
            lacks=tuple(row.lacks),
            secrets=tuple(row.secrets),
        )
    script = None
    if row.script is not None:
        script = _bound(SCRIPTS, row.script, **({"cmd": cmd} if cmd else {}))
        cmd = None
    files: dict[str, Content] = {
        name: spec if isinstance(spec, str) else functools.partial(make, spec)
        for name, spec in row.files.items()
    }
    return Case(
        id=row.id,
        group=group,
        cmd=cmd,
        files=files,
        unchanged=list(row.unchanged),
        absent=list(row.absent),
        script=script,
        server_check=_bound(SERVER_CHECKS, row.server_check) if row.server_check else None,
        library=row.library,
        needs=row.needs,
        raw_outputs=list(row.raw_outputs),
        links=[
            ("sym", link.sym, link.name) if link.sym else ("hard", str(link.hard), link.name)
            for link in row.links
        ],
    )


def load_file(path: Path) -> list[Case]:
    """The cases of one group's file; TableError names the file, the case and the field."""
    try:
        rows = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise TableError(f"{path}: {' '.join(str(exc).split())}") from None
    if not isinstance(rows, list):
        raise TableError(f"{path}: not a list of rows")
    cases = []
    for n, raw in enumerate(rows):
        case_id = raw.get("id", f"#{n + 1}") if isinstance(raw, dict) else f"#{n + 1}"
        try:
            row = Row.model_validate(raw)
        except ValidationError as exc:
            error = exc.errors()[0]
            where = ".".join(str(part) for part in error["loc"])
            message = error["msg"].removeprefix("Value error, ")
            field = f"{where}: " if where else ""
            raise TableError(f"{path}: case {case_id}: {field}{message}") from None
        cases.append(to_case(row, path.stem))
    return cases


def load_cases(folder: Path = TABLE) -> list[Case]:
    """Every case of every group's file, ids checked unique across the table."""
    cases: list[Case] = []
    where: dict[str, Path] = {}
    for path in sorted(folder.glob("*.yaml")):
        for case in load_file(path):
            if case.id in where:
                raise TableError(f"{path}: case {case.id}: id: also in {where[case.id]}")
            where[case.id] = path
            cases.append(case)
    return cases
