"""Render the four counts of suites as one markdown table, from ``claw eval --json`` results.

Usage::

    python scripts/trust_table.py SUITE.yaml OFFLINE.json HYBRID.json [SUITE.yaml ...]

Each triple is a suite, its offline result and its ``offline+MODEL`` result; one row each:
cases, goal cases read right, refused and wrong readings that ran, traps (the suite's
``expect_error`` cases) planned, offline success and the hybrid's success.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from claw.eval.suite import load_suite


def row(suite_path: str, offline_path: str, hybrid_path: str) -> str:
    """One markdown row of a suite's offline and hybrid results."""
    suite = load_suite(suite_path)
    traps = sum(case.expect_error is not None for case in suite.cases)
    offline = json.loads(Path(offline_path).read_text())["cases"]
    hybrid = json.loads(Path(hybrid_path).read_text())["cases"]
    count = len(offline)

    def total(key: str) -> int:
        return sum(bool(case[key]) for case in offline)

    success = total("success")
    hybrid_rate = 100 * sum(case["success"] for case in hybrid) / len(hybrid)
    name = Path(suite_path).stem
    return (
        f"| {name} ({count}) | {total('read_right')} | {total('refused')} | "
        f"{total('wrong_reading_ran')} | {total('trap_planned')} / {traps} | "
        f"{success} ({100 * success / count:.1f} %) | {hybrid_rate:.1f} % |"
    )


def main(argv: list[str]) -> None:
    if not argv or len(argv) % 3:
        raise SystemExit("usage: trust_table.py SUITE.yaml OFFLINE.json HYBRID.json [...]")
    print("| suite | read right | refused | wrong ran | traps planned | offline success | hybrid |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for k in range(0, len(argv), 3):
        print(row(*argv[k : k + 3]))


if __name__ == "__main__":
    main(sys.argv[1:])
