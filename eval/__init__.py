"""Offline evaluation: suites, the mocked LLMs and cassettes (planners ``mock:*``, ``replay:FILE``),
metrics and reports.

::

    from claw.eval import load_suite, run_suite

    result = run_suite(load_suite("basic"), planner="mock:oracle", workers=2)
"""

from claw.eval.cases import CaseResult, run_case
from claw.eval.cassette import Cassette
from claw.eval.compare import Comparison, compare, compare_files
from claw.eval.exceptions import (
    CassetteError,
    CassetteMiss,
    InvalidPlannerError,
    InvalidRayOptionError,
    InvalidReportError,
    InvalidSelectionError,
    InvalidSuiteError,
    RayUnavailableError,
    RayUnreachableError,
)
from claw.eval.judging import judge
from claw.eval.planners import MOCKS
from claw.eval.report import Report, write_report
from claw.eval.runner import SuiteResult, run_suite
from claw.eval.suite import Case, ExpectedPush, Suite, load_suite

__all__ = [
    "MOCKS",
    "Case",
    "CaseResult",
    "Cassette",
    "CassetteError",
    "CassetteMiss",
    "Comparison",
    "ExpectedPush",
    "InvalidPlannerError",
    "InvalidRayOptionError",
    "InvalidReportError",
    "InvalidSelectionError",
    "InvalidSuiteError",
    "RayUnavailableError",
    "RayUnreachableError",
    "Report",
    "Suite",
    "SuiteResult",
    "compare",
    "compare_files",
    "judge",
    "load_suite",
    "run_case",
    "run_suite",
    "write_report",
]
