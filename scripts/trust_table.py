"""Render the four counts of suites as one markdown table, from ``claw eval --json`` results.

Usage::

    python scripts/trust_table.py SUITE.yaml OFFLINE.json HYBRID.json [SUITE.yaml ...]

Each triple is a suite, its offline result and its ``offline+MODEL`` result; one row each:
cases, goal cases read right, refused and wrong readings that ran, traps (the suite's
``expect_error`` cases) planned, offline success and the hybrid's success
(:func:`claw.eval.tallies.trust_counts`, as ``claw bench all`` records them).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from claw.eval.suite import load_suite
from claw.eval.tallies import trust_counts


def _cases(path: str) -> list[Any]:
    return [SimpleNamespace(**case) for case in json.loads(Path(path).read_text())["cases"]]


def row(suite_path: str, offline_path: str, hybrid_path: str) -> str:
    """One markdown row of a suite's offline and hybrid results."""
    name = Path(suite_path).stem
    suite = load_suite(suite_path)
    return trust_counts(name, suite, _cases(offline_path), _cases(hybrid_path)).row()


def main(argv: list[str]) -> None:
    if not argv or len(argv) % 3:
        raise SystemExit("usage: trust_table.py SUITE.yaml OFFLINE.json HYBRID.json [...]")
    print("| suite | read right | refused | wrong ran | traps planned | offline success | hybrid |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for k in range(0, len(argv), 3):
        print(row(*argv[k : k + 3]))


if __name__ == "__main__":
    main(sys.argv[1:])
