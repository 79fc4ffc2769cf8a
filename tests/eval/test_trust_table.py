"""scripts/trust_table.py renders a suite's four counts from ``claw eval --json`` results."""

from __future__ import annotations

import json
import runpy
from pathlib import Path

SUITE = Path(__file__).parents[2] / "eval" / "suites" / "two_arms.yaml"


def _result(path: Path, successes: int) -> Path:
    cases = [
        {"success": i < successes, "read_right": i < 8, "refused": i == 9,
         "wrong_reading_ran": i == 8, "trap_planned": False}
        for i in range(10)
    ]  # fmt: skip
    path.write_text(json.dumps({"cases": cases}))
    return path


def test_a_row_counts_what_the_results_say(tmp_path: Path) -> None:
    row = runpy.run_path(str(Path(__file__).parents[2] / "scripts" / "trust_table.py"))["row"]
    offline, hybrid = _result(tmp_path / "o.json", 7), _result(tmp_path / "h.json", 10)
    assert row(str(SUITE), str(offline), str(hybrid)) == (
        "| two_arms (10) | 8 | 1 | 1 | 0 / 0 | 7 (70.0 %) | 100.0 % |"
    )
