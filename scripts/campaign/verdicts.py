"""The verdict checks of one command's run, and the named checks a row may add.

A run is checked for a traceback, a crash, a hang or the memory cap, the API key or an ANSI escape
in its output, orphans, its exit code, the format of its error (one `error: KIND: MESSAGE` line,
or one JSON error object under --json), its kind and message, and an eval --json file that holds
every case. Each problem found is recorded with its class (limits.CLASSES).
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from .answers import MATRIX
from .fake_llm import Request
from .limits import API_KEY, HELP_LINES, MAX_REPAIR_REQUEST_BYTES, MEMORY_CAP_BYTES
from .model import Cmd, Problem
from .process import Run

ERROR_LINE = re.compile(r"^error: ([a-z_]+): (.+)$")


class Verdicts:
    """The checks of one run, recording problems for the case folder `dir`."""

    dir: Path
    problems: list[Problem]

    def fail(self, cls: str, message: str) -> None:
        """Record a problem of class `cls`."""
        self.problems.append(Problem(cls, message))

    def check(self, cmd: Cmd, run: Run) -> None:
        """Every standard check of one run of `cmd`."""
        shown = run.stdout + run.stderr
        label = ("python " if cmd.python else "claw ") + " ".join(short(a, 30) for a in run.argv)
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
                f"{label}: exit {run.rc}, expected {sorted(cmd.exits)}: {short(first, 160)}",
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
                    + short(" | ".join(stray[:3]), 200),
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
                f"{label}: --json but stdout is not one JSON value: {short(run.stdout, 120)!r}",
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
                    f"{short(' | '.join(others), 200)}",
                )
            return None
        if run.rc not in (2, 3):
            return None
        matches = [ERROR_LINE.match(line) for line in others]
        if len(others) != 1 or not matches[0]:
            self.fail(
                "format",
                f"{label}: exit {run.rc} with {len(others)} non-note stderr lines, "
                "not one `error: KIND: MESSAGE`: " + short(" | ".join(others[:3]), 200),
            )
        found = [m for m in matches if m]
        return (found[0].group(1), found[0].group(2)) if found else None

    def _check_error(self, cmd: Cmd, kind: str, message: str, label: str) -> None:
        """The error's kind and message as the case expects."""
        if cmd.kinds and kind not in cmd.kinds:
            self.fail(
                "wrong-error",
                f"{label}: kind {kind}, expected {sorted(cmd.kinds)}: {short(message, 120)}",
            )
        if cmd.message_has and cmd.message_has not in message:
            self.fail(
                "wrong-error",
                f"{label}: message lacks {cmd.message_has!r}: {short(message, 160)}",
            )
        if cmd.stderr_check:
            problem = cmd.stderr_check(message)
            if problem:
                self.fail("wrong-error", f"{label}: {problem}")

    def _check_eval_json(self, cmd: Cmd, run: Run, label: str) -> None:
        """No result lost: eval's --json file exists and holds every case (or says interrupted)."""
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


def digest(path: Path) -> str:
    """The sha256 of a file's bytes, or "?" when it cannot be read."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return "?"


def short(text: str, n: int) -> str:
    """`text` on one line, escapes shown, cut to `n` characters."""
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
    return short(rest[-1] if rest else "", 160)


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


# -- named checks a row may add ---------------------------------------------------------------
# A row names one as `server_check: NAME` or `server_check: {NAME: {ARGUMENT: VALUE}}` (and
# `stderr_check:` likewise); the arguments follow the first parameter, the value checked.


def requests_made(log: list[Request]) -> str | None:
    """The model was asked at least once."""
    return None if log else "the fake server received no request"


def requests_small(log: list[Request]) -> str | None:
    """The model was asked, and every request was small: repairs quote a bounded excerpt."""
    if not log:
        return "the fake server received no request"
    big = [r.size for r in log if r.size > MAX_REPAIR_REQUEST_BYTES]
    return f"requests of {big} bytes (repairs must quote a bounded excerpt)" if big else None


def met_every_behaviour(log: list[Request]) -> str | None:
    """The matrix case: every behaviour's case reached the server (its marker was routed)."""
    missing = sorted(set(MATRIX) - {r.behaviour for r in log})
    return f"no request reached behaviours {missing}" if missing else None


def no_requests(log: list[Request]) -> str | None:
    """README: refused before any planner or model -- the model is never asked."""
    return f"the fake server received {len(log)} requests; none were due" if log else None


def requests(log: list[Request], least: int, most: int) -> str | None:
    """Between `least` and `most` requests: a repair was asked for, or a call was not retried."""
    if least <= len(log) <= most:
        return None
    return f"the fake server received {len(log)} requests, expected {least} to {most}"


SERVER_CHECKS = {
    check.__name__: check
    for check in (requests_made, requests_small, met_every_behaviour, no_requests, requests)
}


def message_lacks(message: str, words: list[str]) -> str | None:
    """The error message must not say any of `words` (a wrong reason, a skill not offered)."""
    found = [w for w in words if w in message]
    return f"the message says {found}: {short(message, 160)}" if found else None


def hint_names_scene_objects(message: str, scene_names: list[str], bad: str) -> str | None:
    """Issue 22 item 19: a scene error's hint must not name an object the scene lacks."""
    named = set(re.findall(r"\b[a-z]+_(?:block|box)(?:_\d+)?\b", message))
    strangers = named - set(scene_names) - {bad}
    return f"the message names {sorted(strangers)}, not in the scene" if strangers else None


MESSAGE_CHECKS = {check.__name__: check for check in (message_lacks, hint_names_scene_objects)}
