"""The two-arm table as a PettingZoo ParallelEnv, and parameter sharing through SB3."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from pettingzoo.test import parallel_api_test

from claw.envs.multi_agent import SUCCESS_DISTANCE, TwoArmReach, mirror
from claw.learning.multi_agent import AgentsVecEnv


@pytest.mark.slow
def test_parallel_api() -> None:
    parallel_api_test(TwoArmReach(max_steps=20), num_cycles=40)


def test_observations_are_mirrored_for_the_right_arm() -> None:
    env = TwoArmReach()
    observations, _ = env.reset(seed=3)
    left, right = observations["left"], observations["right"]
    # Each agent sees its own tool point, then the other's from it; the right one mirrored.
    np.testing.assert_allclose(left[:3] + left[9:12], right[:3] * mirror("right"), atol=1e-6)
    assert left[1] + left[4] > 0 and right[1] + right[4] > 0  # targets on the agent's own side


def _steer(env: TwoArmReach, observations: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Straight at each target, in each agent's own frame."""
    return {a: np.clip(o[3:6] / 0.04, -1, 1) for a, o in observations.items()}


def test_steering_at_the_targets_succeeds_and_ends_the_episode() -> None:
    env = TwoArmReach()
    observations, _ = env.reset(seed=5)
    terminations: dict[str, bool] = {}
    infos: dict[str, dict] = {}  # type: ignore[type-arg]
    while env.agents:
        observations, _, terminations, _, infos = env.step(_steer(env, observations))
    assert all(terminations.values())
    assert all(i["success"] and i["distance"] < SUCCESS_DISTANCE for i in infos.values())


def test_standing_still_is_truncated_without_success() -> None:
    env = TwoArmReach(max_steps=5)
    env.reset(seed=0)
    for _ in range(5):
        _, rewards, terminations, truncations, infos = env.step(
            {a: np.zeros(3) for a in env.agents}
        )
    assert env.agents == [] and all(truncations.values()) and not any(terminations.values())
    assert rewards["left"] < 0 and rewards["right"] < 0
    assert not infos["left"]["success"]


def test_the_team_reward_is_one_for_both_and_the_own_reward_each_arms() -> None:
    team, own = TwoArmReach(reward="team"), TwoArmReach()
    for env in (team, own):
        env.reset(seed=0)
    still = {a: np.zeros(3) for a in ("left", "right")}
    _, shared, _, _, infos = team.step(still)
    _, each, _, _, _ = own.step(still)
    distances = [i["distance"] for i in infos.values()]
    assert shared["left"] == shared["right"] == pytest.approx(-sum(distances), abs=1e-6)
    assert each["left"] == pytest.approx(-10 * infos["left"]["distance"], abs=1e-5)
    with pytest.raises(ValueError, match="reward must be 'own' or 'team'"):
        TwoArmReach(reward="mine")  # type: ignore[arg-type]


def test_agents_as_a_vec_env_reset_after_the_episode() -> None:
    vec = AgentsVecEnv(TwoArmReach(max_steps=3))
    assert vec.num_envs == 2
    obs = vec.reset()
    assert obs.shape == (2, 15)
    for _ in range(3):
        obs, reward, done, infos = vec.step(np.zeros((2, 3)))
    assert done.all() and all("terminal_observation" in i for i in infos)
    assert all(i["TimeLimit.truncated"] for i in infos)
    assert reward.shape == (2,) and obs.shape == (2, 15)


@pytest.mark.slow
def test_claw_train_runs_the_cooperative_example(
    tmp_path: Path, claw_in_process: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    """A tiny budget through `claw train`: shared policy, evaluations, checkpoints; no claw."""
    run = tmp_path / "run"
    done = claw_in_process(
        "train", "two_arm_reach", "--steps", "1100", "--out", run, "--no-progress", "--json",
        "--hyperparams", "eval_freq=1100", "--hyperparams", "eval_episodes=4",
        env={"CLAW_HOME": str(tmp_path / "home")},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["algo"] == "tqc" and summary["timesteps"] >= 1100 and summary["policy"] is None
    assert 0.0 <= summary["last_evaluation"]["success_rate"] <= 1.0
    for name in ("config.yaml", "meta.json", "model.zip", "vecnormalize.pkl"):
        assert (run / name).is_file(), name


def test_register_is_refused_for_the_example(
    tmp_path: Path, claw_in_process: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    done = claw_in_process(
        "train", "two_arm_reach", "--steps", "10", "--register", "--out", tmp_path / "run",
        env={"CLAW_HOME": str(tmp_path / "home")},
    )  # fmt: skip
    assert done.returncode == 2 and not (tmp_path / "run").exists()
    assert "trains a multi-agent example (claw/TwoArmReach-v0), not a claw" in done.stderr
