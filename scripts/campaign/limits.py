"""The campaign's constants: the secret every case runs with, deadlines by name, limits, classes."""

from __future__ import annotations

import ast
import hashlib
import os

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

#: The deadline classes a table row names (`deadline: PHYS`, `deadline: FAST + 30`).
DEADLINES = {"FAST": FAST, "LLM_START": LLM_START, "PHYS": PHYS, "TRAIN": TRAIN, "RAY": RAY}

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


def llm_deadline(timeout: float, calls: int = 1) -> float:
    """README: "a run gives up within about (retries + 1) x timeout plus the waits" (2 retries)."""
    return LLM_START + calls * (3 * timeout + 10.0)


def deadline_seconds(expression: str) -> float:
    """Seconds of a deadline written by class: `PHYS`, `FAST + 30`, `LLM_START + 2*LLM(10, 3)`.

    `LLM(timeout, calls=1)` is `llm_deadline`; only numbers, the names of DEADLINES, `+` and `*`
    are allowed. Raises ValueError naming what is not.
    """
    try:
        tree = ast.parse(expression, mode="eval")
    except SyntaxError as exc:
        raise ValueError(f"not a deadline expression: {expression!r}") from exc
    return _evaluate(tree.body)


def _evaluate(node: ast.expr) -> float:
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return float(node.value)
    if isinstance(node, ast.Name) and node.id in DEADLINES:
        return DEADLINES[node.id]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Mult):
        left, right = _evaluate(node.left), _evaluate(node.right)
        return left + right if isinstance(node.op, ast.Add) else left * right
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "LLM"
        and 1 <= len(node.args) <= 2
        and not node.keywords
    ):
        timeout = _evaluate(node.args[0])
        calls = int(_evaluate(node.args[1])) if len(node.args) == 2 else 1
        return llm_deadline(timeout, calls)
    known = ", ".join(DEADLINES)
    raise ValueError(
        f"{ast.unparse(node)!r} is not a number, LLM(timeout, calls) or one of {known}"
    )
