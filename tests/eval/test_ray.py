"""Suites on Ray (``claw eval --ray``): the same results as local workers, on one node or two;
lost cases retried once; early stops cancel; bad addresses and a missing Ray in one line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from claw.cli import expand_args, main
from claw.eval import load_suite, run_suite
from claw.eval.exceptions import RayUnavailableError
from claw.eval.ray_runner import CaseOutcome, check_address, chunks, connect, run_cases
from claw.eval.runner import SuiteResult
from claw.eval.suite import Suite
from tests.learning.test_learning import TINY_TUNE

ray = pytest.importorskip("ray")


def few_cases(n: int) -> Suite:
    """The basic suite's first ``n`` cases with a push and an expected error among them."""
    suite = load_suite("basic")
    picked = suite.cases[: n - 2]
    picked += [next(c for c in suite.cases if c.expect_push is not None)]
    picked += [next(c for c in suite.cases if c.expect_error is not None)]
    return suite.model_copy(update={"cases": picked})


@pytest.mark.slow
def test_basic_on_ray_gives_the_results_of_two_local_workers(
    local_ray: str, comparable: Callable[[SuiteResult], list[dict[str, Any]]]
) -> None:
    basic = load_suite("basic")  # every fifth case: each family, at a fifth of the cost
    suite = basic.model_copy(update={"cases": basic.cases[::5]})
    assert len(chunks(len(suite.cases), 2)[0]) > 1  # Ray tasks that each run several cases
    covered = {c.scene if isinstance(c.scene, str) else "inline" for c in suite.cases}
    assert covered >= {"default", "blocks", "dense", "inline"}
    assert {c.expect_error for c in suite.cases} >= {"unknown_object", "unparseable", "unsupported"}
    assert any(c.expect_push for c in suite.cases) and any("stack" in c.tags for c in suite.cases)
    local = run_suite(suite, "offline", workers=2)
    on_ray = run_suite(suite, "offline", workers=2, ray="local")
    assert comparable(on_ray) == comparable(local)
    assert on_ray.overall == {**local.overall, "wall_seconds": on_ray.overall["wall_seconds"]}
    assert sum(on_ray.ran_on.values()) == len(suite.cases)
    assert "ran_on" not in json.loads(on_ray.model_dump_json())  # results do not say where


@pytest.mark.slow
def test_a_sweep_fans_out_on_ray_with_the_local_results(
    local_ray: str, tmp_path: Path, comparable: Callable[[SuiteResult], list[dict[str, Any]]]
) -> None:
    from claw.eval.sweep import Sweep, run_sweep

    path = tmp_path / "few.yaml"
    path.write_text(yaml.safe_dump(json.loads(few_cases(4).model_dump_json())))
    # two planners (two cells), on cases reseeded by an offset: what each cell sends to Ray
    sweep = Sweep(suites=[str(path)], planners=["offline", "mock:oracle"], seeds=[3])
    on_ray = list(run_sweep(sweep, tmp_path / "ray", ray="local"))
    local = list(run_sweep(sweep, tmp_path / "local"))  # in this process: no workers to start
    assert len(on_ray) == len(local) == 2
    for (cell, a), (_, b) in zip(on_ray, local, strict=True):
        assert comparable(a) == comparable(b) and sum(a.ran_on.values()) == 4, cell.path.name
    assert ray.is_initialized()  # a sweep leaves a Ray it did not start running


@pytest.mark.slow
def test_a_case_lost_with_its_worker_is_retried_once_then_reported(
    local_ray: str, tmp_path: Path
) -> None:
    suite = few_cases(3)
    crashed_once = tmp_path / "crashed"

    def crash_first_time(suite_json: str, index: int, *rest: Any) -> CaseOutcome:
        if index == 0 and not crashed_once.exists():
            crashed_once.touch()
            os._exit(1)  # the worker process dies, as with its node
        return CaseOutcome(index=index, result_json="{}")

    def crash_always(suite_json: str, index: int, *rest: Any) -> CaseOutcome:
        if index == 0:
            os._exit(1)
        return CaseOutcome(index=index, result_json="{}")

    args = (suite.model_dump_json(), suite.cases, "offline", False, None, None)
    retried = {o.index: o for o in run_cases(*args, case_fn=crash_first_time)}
    assert crashed_once.exists() and all(o.result_json == "{}" for o in retried.values())
    lost = {o.index: o for o in run_cases(*args, case_fn=crash_always)}
    assert lost[0].result_json is None and "lost twice" in lost[0].lost
    assert lost[1].result_json == lost[2].result_json == "{}"


@pytest.mark.slow
def test_leaving_early_cancels_the_cases_not_finished(local_ray: str) -> None:
    suite = few_cases(4)

    def slow_but_first(suite_json: str, index: int, *rest: Any) -> CaseOutcome:
        if index != 0:
            time.sleep(600)
        return CaseOutcome(index=index, result_json="{}")

    args = (suite.model_dump_json(), suite.cases, "offline", False, None, None)
    outcomes = run_cases(*args, case_fn=slow_but_first)
    assert next(outcomes).index == 0
    outcomes.close()  # what Ctrl-C does to the loop

    def free() -> bool:
        """Both CPUs free, and still a second later: the cancels land one by one, and a queued
        case may start before its own stops it."""
        if ray.available_resources().get("CPU", 0) < 2:
            return False
        time.sleep(1.0)
        return ray.available_resources().get("CPU", 0) == 2

    deadline = time.monotonic() + 120
    while not free() and time.monotonic() < deadline:
        time.sleep(0.5)
    assert ray.available_resources().get("CPU", 0) == 2  # the sleeping cases were stopped


@pytest.mark.slow
def test_tune_on_ray_runs_trials_in_parallel_on_one_study(local_ray: str, tmp_path: Path) -> None:
    from claw.learning.tune import tune

    study = tmp_path / "study"
    result = tune("reach", 3, study, parallel=2, on_ray=True, **TINY_TUNE)
    assert len(result.trials) == 3 and {t["state"] for t in result.trials} <= {"COMPLETE", "PRUNED"}
    assert (study / "best.yaml").is_file() and (study / "trials.json").is_file()
    assert len({json.dumps(t["params"], sort_keys=True) for t in result.trials}) == 3
    again = tune("reach", 1, study, **TINY_TUNE)  # the study resumes where it was
    assert [t["number"] for t in again.trials] == [0, 1, 2, 3]


@pytest.mark.slow
def test_claw_tune_ray_parallel_writes_the_best(local_ray: str, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from claw.cli import app

    args = ["tune", "reach", "--ray", "auto", "--parallel", "2", "--trials", "2", "--algo", "sac"]
    args += ["--steps", "60", "--n-envs", "1", "--eval-freq", "60", "--eval-episodes", "2"]
    result = CliRunner().invoke(app, [*args, "--study-dir", str(tmp_path / "s"), "--json"])
    assert result.exit_code == 0, result.output
    assert (
        len(json.loads(result.output)["trials"]) == 2 and (tmp_path / "s" / "best.yaml").is_file()
    )
    trial = yaml.safe_load((tmp_path / "s" / "trial-000" / "config.yaml").read_text())
    assert trial["eval_episodes"] == 2
    assert ray.is_initialized()  # a Ray the command did not start stays up


@pytest.mark.slow
def test_two_nodes_run_the_cases_with_the_same_results(
    comparable: Callable[[SuiteResult], list[dict[str, Any]]],
) -> None:
    from ray.cluster_utils import Cluster

    ray.shutdown()
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    try:
        cluster.add_node(num_cpus=1)
        ray.init(address=cluster.address, log_to_driver=False)
        cluster.wait_for_nodes()
        suite = few_cases(4)  # four one-case tasks on two one-CPU nodes: both take some
        on_two = run_suite(suite, "offline", ray=cluster.address)
        assert len(on_two.ran_on) == 2 and sum(on_two.ran_on.values()) == len(suite.cases)
        assert comparable(on_two) == comparable(run_suite(suite, "offline"))
    finally:
        ray.shutdown()
        cluster.shutdown()


@pytest.mark.parametrize(
    "args, expected",
    [
        (["eval", "basic", "--ray"], ["eval", "run", "basic", "--ray=local"]),
        (["eval", "--ray", "basic"], ["eval", "run", "--ray=local", "basic"]),
        (
            ["eval", "basic", "--ray", "--workers", "2"],
            ["eval", "run", "basic", "--ray=local", "--workers", "2"],
        ),
        (["eval", "basic", "--ray", "auto"], ["eval", "run", "basic", "--ray", "auto"]),
        (
            ["eval", "basic", "--ray", "ray://head:10001"],
            ["eval", "run", "basic", "--ray", "ray://head:10001"],
        ),
    ],
)
def test_a_bare_ray_flag_is_a_local_ray(args: list[str], expected: list[str]) -> None:
    assert expand_args(args) == expected


def test_cases_share_tasks_while_every_cpu_gets_several() -> None:
    assert chunks(118, 2)[:2] == [[0, 1, 2, 3], [4, 5, 6, 7]] and len(chunks(118, 2)) == 30
    assert chunks(8, 2) == [[i] for i in range(8)]  # too few to share
    assert chunks(40, 4) == [[i, i + 1] for i in range(0, 40, 2)]
    assert sorted(i for c in chunks(117, 3) for i in c) == list(range(117))


@pytest.mark.parametrize("address", ["local", "auto", "10.0.0.2:6379", "ray://head:10001"])
def test_addresses_ray_takes(address: str) -> None:
    assert check_address(address) == address


def test_a_bad_address_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["eval", "basic", "--ray=nowhere"])
    err = capsys.readouterr().err.strip()
    assert exit_info.value.code == 2 and len(err.splitlines()) == 1
    assert "auto, ray://HOST:PORT or HOST:PORT" in err


def test_without_ray_installed_it_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray raises ImportError
    with pytest.raises(RayUnavailableError, match=r"pip install -e '\.\[ray\]'"):
        connect("local")


@pytest.mark.slow
def test_nothing_imports_ray_unless_asked() -> None:
    code = (
        "import sys; from claw.cli import main\n"
        "try:\n    main(['put the red block next to the blue box'])\n"
        "except SystemExit:\n    pass\n"
        "import claw.eval, claw.learning\n"
        "assert 'ray' not in sys.modules, 'ray was imported'"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-500:]
