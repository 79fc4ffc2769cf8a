"""What every layer shares, below them all: the root of claw's errors and the checks of output
paths (writable, of the right suffix, apart from the command's inputs).

It imports nothing else of claw, so that ``claw.envs`` and every layer above may use it::

    from claw.common import ClawError, check_output_file

    try:
        path = check_output_file("out/run.json", (".json",), what="--json file")
    except ClawError as exc:
        print(exc.kind, exc)  # invalid_output ...
"""

from claw.common.exceptions import ClawError, InvalidOutputError, PluginError
from claw.common.outputs import (
    NamedPath,
    check_apart,
    check_output_dir,
    check_output_file,
    same_file,
)

__all__ = [
    "ClawError",
    "InvalidOutputError",
    "NamedPath",
    "PluginError",
    "check_apart",
    "check_output_dir",
    "check_output_file",
    "same_file",
]
