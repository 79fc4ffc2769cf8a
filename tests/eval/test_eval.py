"""``claw eval``: suite validation, judging, the oracle mock, workers, the command."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from claw.eval.exceptions import InvalidSuiteError
from claw.eval.runner import SuiteResult, run_suite
from claw.eval.suite import Suite, load_suite

SMALL = {
    "name": "small",
    "scene": "default",
    "cases": [
        {"id": "next-to", "instruction": "put the red block next to the blue box", "seed": 1,
         "goal": ["next_to(red_block, blue_box)"], "tags": ["spatial"]},
        {"id": "in-box", "instruction": "drop the green cube into the red bin", "seed": 2,
         "goal": ["in(green_block, red_box)"], "tags": ["container"]},
        {"id": "bad-object", "instruction": "put the purple block in the blue box",
         "expect_error": "unknown_object", "tags": ["error"]},
        {"id": "stack", "instruction": "stack the yellow block on the blue block", "seed": 3,
         "goal": ["on(yellow_block, blue_block)"], "tags": ["stack"]},
    ],
}  # fmt: skip


@pytest.fixture(scope="module")
def offline_small() -> SuiteResult:
    """SMALL run once with the offline planner in this process (one worker)."""
    return run_suite(Suite.model_validate(SMALL), "offline")


def write(tmp_path: Path, data: object, name: str = "suite.yaml") -> Path:
    import yaml

    path = tmp_path / name
    path.write_text(yaml.safe_dump(data) if not isinstance(data, str) else data)
    return path


@pytest.mark.parametrize(
    ("mutate", "needle"),
    [
        (
            lambda s: s["cases"][1].pop("goal"),
            "case in-box: give exactly one of goal and expect_error",
        ),
        (lambda s: s["cases"][0].update(colour="red"), "case next-to: colour"),
        (lambda s: s["cases"][3].update(goal=["under(a, b)"]), "unknown predicate"),
        (lambda s: s["cases"][2].update(expect_error="oops"), "case bad-object: expect_error"),
        (lambda s: s["cases"].append(dict(s["cases"][0])), "used twice"),
        (lambda s: s.update(cases=[]), "cases"),
    ],
)
def test_a_bad_suite_names_the_case_and_field(tmp_path: Path, mutate: object, needle: str) -> None:
    data = json.loads(json.dumps(SMALL))
    mutate(data)  # type: ignore[operator]
    with pytest.raises(InvalidSuiteError, match=needle):
        load_suite(write(tmp_path, data))


def test_unreadable_suites(tmp_path: Path) -> None:
    with pytest.raises(InvalidSuiteError, match="not found"):
        load_suite(tmp_path / "missing.yaml")
    with pytest.raises(InvalidSuiteError, match="not valid YAML"):
        load_suite(write(tmp_path, "cases: [\n"))


def test_the_basic_suite_is_built_in() -> None:
    suite = load_suite("basic")
    assert len(suite.cases) >= 60
    assert {c.expect_error for c in suite.cases} >= {"unknown_object", "unparseable", "unsupported"}


@pytest.mark.slow
def test_offline_and_oracle_judged_alike(offline_small: SuiteResult) -> None:
    suite = Suite.model_validate(SMALL)
    offline = offline_small
    oracle = run_suite(suite, "mock:oracle")
    assert [c.success for c in offline.cases] == [True] * 4
    assert [c.success for c in oracle.cases] == [True] * 4
    assert offline.overall["llm_calls"] == 0 and oracle.overall["llm_calls"] >= 1
    assert oracle.per_tag["error"]["success_rate"] == 1.0


@pytest.mark.slow
def test_a_wrong_expectation_fails_the_case() -> None:
    data = json.loads(json.dumps(SMALL))
    data["cases"][0]["goal"] = ["left_of(red_block, blue_box)", "next_to(red_block, blue_box)"]
    data["cases"][2]["expect_error"] = "unsupported"
    result = run_suite(Suite.model_validate(data), "offline")
    first, _, third, _ = result.cases
    assert not first.success and first.goal_recall in (0.0, 0.5)
    assert not third.success and "expected error unsupported" in third.reason
    assert result.overall["success_rate"] == 0.5


@pytest.mark.slow
def test_workers_give_the_same_results(offline_small: SuiteResult) -> None:
    suite = Suite.model_validate(SMALL)
    one, two = offline_small, run_suite(suite, "offline", workers=2)
    strip = lambda r: [c.model_dump(exclude={"wall_seconds", "run"}) for c in r.cases]  # noqa: E731
    assert strip(one) == strip(two)
    assert [c.run["steps"] for c in one.cases] == [c.run["steps"] for c in two.cases]


@pytest.mark.slow
def test_the_command(tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    result = subprocess.run(
        [sys.executable, "-m", "claw", "eval", str(write(tmp_path, SMALL)), "--json", str(out)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(out.read_text())
    assert report["overall"]["success_rate"] == 1.0 and len(report["cases"]) == 4
    bad = subprocess.run(
        [sys.executable, "-m", "claw", "eval", str(tmp_path / "nope.yaml")],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert bad.returncode == 2 and "invalid_suite" in bad.stderr


@pytest.mark.slow
@pytest.mark.parametrize("spec", ["mock:noisy:0.5", "mock:faulty:0.5"])
def test_noisy_and_faulty_mocks_are_seeded_and_recover(spec: str) -> None:
    suite = Suite.model_validate(SMALL)
    first, second = run_suite(suite, spec), run_suite(suite, spec)
    strip = lambda r: [c.model_dump(exclude={"wall_seconds", "run"}) for c in r.cases]  # noqa: E731
    assert strip(first) == strip(second)  # the same corruptions and faults every run
    assert first.overall["success_rate"] >= 0.75
    assert first.overall["llm_calls"] >= 1


def test_each_corruption_changes_the_answer_as_named() -> None:
    import numpy as np

    from claw.eval.mocks import CORRUPTIONS, corrupt

    clean = json.dumps(
        {
            "goal": ["on(red_block, blue_block)"],
            "steps": [
                {"skill": "pick", "args": {"object": "red_block"}},
                {"skill": "place", "args": {"target": "blue_block", "relation": "on"}},
            ],
            "error": None,
        }
    )
    names = ["red_block", "blue_block", "green_block"]
    seen = set()
    for seed in range(60):
        answer, kind = corrupt(clean, np.random.default_rng(seed), names)
        seen.add(kind)
        if kind == "malformed_json":
            with pytest.raises(ValueError):
                json.loads(answer)
            continue
        steps = json.loads(answer)["steps"]
        if kind == "missing_step":
            assert len(steps) == 1
        elif kind == "extra_step":
            assert len(steps) == 3
        elif kind == "unknown_skill":
            assert any(s["skill"].endswith("_fast") for s in steps)
        else:
            assert answer != clean
    assert seen == set(CORRUPTIONS)


def test_unknown_planner_specs_are_refused() -> None:
    suite = Suite.model_validate(SMALL)
    for spec in ("mock:psychic", "mock:noisy:2"):
        with pytest.raises(ValueError, match="mock"):
            run_suite(suite, spec)


@pytest.mark.slow
def test_a_recorded_cassette_replays_the_run_exactly(
    tmp_path: Path, claw_in_process: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    cassette = tmp_path / "cassette.json"
    suite_file = write(tmp_path, SMALL)
    # recorded by the command in this process: a new one would import litellm again (~11 s)
    recorded = claw_in_process("eval", suite_file, "--planner", "mock:noisy:0.5",
                               "--record", cassette, "--json", tmp_path / "a.json")  # fmt: skip
    assert recorded.returncode in (0, 1), recorded.stderr
    stored = json.loads(cassette.read_text())
    assert stored["answers"] and "key" not in json.dumps(stored).lower().replace("keys", "")
    # Replayed by two workers forked from this process, which has litellm imported already (a
    # new `claw eval --workers 2` imports it once per worker, seconds each); the command passes
    # --planner replay:FILE to run_suite as it is.
    replayed = run_suite(load_suite(suite_file), f"replay:{cassette}", workers=2)
    a = json.loads((tmp_path / "a.json").read_text())
    b = json.loads(replayed.model_dump_json())  # as --json writes it

    def strip(report: dict) -> list:  # type: ignore[type-arg]
        return [
            {**c, "wall_seconds": 0, "run": {**c["run"], "wall_seconds": 0}}
            for c in report["cases"]
        ]

    assert strip(a) == strip(b)


@pytest.mark.parametrize(
    ("case", "run", "right"),
    [
        ({"goal": ["in(red_block, blue_box)"]}, {"goal": ["in( red_block , blue_box )"]}, True),
        ({"goal": ["in(red_block, blue_box)"]}, {"goal": ["next_to(red_block, blue_box)"]}, False),
        ({"goal": ["at(a_block, center)"]}, {"goal": ["at(a_block, center)", "holding(b_block)"]},
         False),
        ({"expect_error": "ambiguous"}, {"error": {"kind": "ambiguous", "message": "x"}}, True),
        ({"expect_error": "ambiguous"}, {"error": {"kind": "unparseable", "message": "x"}}, False),
        ({"goal": ["in(red_block, blue_box)"]}, {"error": {"kind": "unparseable", "message": "x"}},
         False),
        ({"goal": [], "expect_push": {"object": "red_block", "direction": "left", "distance": 0.1}},
         {"plan": [{"skill": "push", "args": {"object": "red_block", "direction": "left"}}]}, True),
        ({"goal": [], "expect_push": {"object": "red_block", "direction": "left", "distance": 0.1}},
         {"plan": [{"skill": "push", "args": {"object": "red_block", "direction": "right"}}]},
         False),
    ],
)  # fmt: skip
def test_read_right_compares_the_first_plan_with_the_case(
    case: dict[str, object], run: dict[str, object], right: bool
) -> None:
    from claw.eval.judging import read_right
    from claw.eval.suite import Case
    from claw.runtime import RunResult

    result = RunResult(instruction="x", success=False, **run)  # type: ignore[arg-type]
    assert read_right(Case(id="c", instruction="x", **case), result) is right  # type: ignore[arg-type]
