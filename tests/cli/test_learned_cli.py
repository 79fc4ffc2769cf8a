"""Learned claws from the command line: ``claw train``, ``claw bench policy``, ``--prefer``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from claw.envs import TabletopEnv
from claw.library.metrics import record_controller_metrics
from claw.library.storage import SkillLibrary
from claw.skills.bench import SkillBench
from claw.skills.executor import execute_calls
from claw.skills.learned import POLICIES_DIR
from tests.cli.test_run_cli import claw

TINY_TRAIN = (
    "--steps", "120", "--n-envs", "1", "--no-progress",
    "--hyperparams", "eval_freq=60", "--hyperparams", "eval_episodes=1",
    "--hyperparams", "algo_kwargs.learning_starts=60", "--hyperparams", "vec_env=dummy",
)  # fmt: skip
PUSH_LEFT = "push the red block 10 cm to the left"


@pytest.mark.slow
def test_claw_train_register_json(tmp_path: Path) -> None:
    result = claw(
        "train", "reach", *TINY_TRAIN, "--out", str(tmp_path / "run"), "--json",
        "--register", "--eval-episodes", "2",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["timesteps"] == 120 and summary["registered"].startswith("move_to@")
    assert summary["evaluation"]["episodes"] == 2
    run = Path(summary["run_dir"])
    assert run == tmp_path / "run"
    assert (run / "policy" / "policy.json").is_file()
    assert json.loads((run / "meta.json").read_text())["command"].startswith("claw train reach")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("train", "fly"), "trainable: pick, push, reach"),
        (("train", "reach", "--algo", "dqn"), "allowed: tqc, sac, td3, ppo"),
        (("train", "reach", "--hyperparams", "gamma"), "KEY=VALUE"),
        (("train", "reach", "--resume", "nowhere"), "not a run folder"),
        (("tune", "push", "--algo", "a2c"), "allowed: tqc, sac, td3, ppo"),
    ],
)
def test_bad_training_input_is_one_line_and_exit_2(args: tuple[str, ...], message: str) -> None:
    result = claw(*args)
    assert result.returncode == 2
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1


@pytest.mark.slow
def test_out_refuses_to_overwrite_a_run(tmp_path: Path) -> None:
    (tmp_path / "config.yaml").write_text("skill: reach\n")
    result = claw("train", "reach", "--out", str(tmp_path))
    assert result.returncode == 2 and "--resume" in result.stderr


@pytest.mark.parametrize("task", ["reach", "push"])
def test_shipped_policies_are_small_and_measured(task: str) -> None:
    folder = POLICIES_DIR / task
    weights, config = folder / "policy.safetensors", folder / "policy.json"
    assert weights.stat().st_size <= 5 * 2**20
    evaluation = json.loads(config.read_text())["evaluation"]
    assert evaluation["episodes"] == 200
    assert evaluation["success_rate"] >= (0.95 if task == "reach" else 0.80)


@pytest.mark.slow
@pytest.mark.parametrize("task", ["reach", "push"])
def test_bench_policy_reproduces_a_shipped_figure(task: str) -> None:
    """Re-measure the first few of the shipped policy's 200 evaluation episodes."""
    result = claw("bench", "policy", str(POLICIES_DIR / task), "--episodes", "10", "--json")
    assert result.returncode == 0, result.stderr
    figures = json.loads(result.stdout)
    assert figures["policy"]["episodes"] == 10
    assert figures["policy"]["success_rate"] >= (0.9 if task == "reach" else 0.7)
    assert ("controller_only" in figures) == (task == "push")


@pytest.mark.slow
def test_push_with_the_learned_claw_from_the_command_line() -> None:
    result = claw(PUSH_LEFT, "--prefer", "learned", "--seed", "4", "--json")
    assert result.returncode == 0, result.stderr
    run = json.loads(result.stdout)
    assert run["success"] and [s["skill"] for s in run["steps"]] == ["push"]


@pytest.mark.slow
@pytest.mark.parametrize(("prefer", "learned"), [("learned", True), (None, False)])
def test_prefer_chooses_the_implementation_that_runs(prefer: str | None, learned: bool) -> None:
    env = TabletopEnv("default")
    env.reset(seed=4)
    start = env.world_state().get("red_block").xy.copy()
    call = {"skill": "push", "args": {"object": "red_block", "direction": "left", "distance": 0.1}}
    outcome = execute_calls(env, [call], prefer=prefer)
    step = outcome.steps[0]
    assert ("policy_steps" in step.details) == learned  # a policy reports its steps
    moved = env.world_state().get("red_block").xy - start
    assert step.success == (abs(moved[1] - 0.1) ** 2 + moved[0] ** 2 <= 0.02**2)


@pytest.mark.slow
def test_prefer_must_be_learned_or_controller() -> None:
    result = claw(PUSH_LEFT, "--prefer", "neural")
    assert result.returncode == 2


def test_benchmarked_controllers_are_recorded_for_the_executor(tmp_path: Path) -> None:
    rows = [
        {"skill": "push", "relation": "left", "attempts": 3, "successes": 3},
        {"skill": "push", "relation": "far", "attempts": 1, "successes": 0},
        {"skill": "pick", "relation": "", "attempts": 2, "successes": 2},
    ]
    result = SkillBench.model_construct(episodes=2, seed=0, rows=rows)
    library = SkillLibrary(tmp_path / "library")
    keys = record_controller_metrics(result, "claw bench skills --record", library)
    assert sorted(k.split("@")[0] for k in keys) == ["pick", "push"]
    measured = library.measured_success()
    assert measured[("push", "controller")] == 0.75 and measured[("pick", "controller")] == 1.0
