"""The two-arm table as a PettingZoo ParallelEnv, and parameter sharing through SB3."""

from __future__ import annotations

import numpy as np
from pettingzoo.test import parallel_api_test

from claw.envs.multi_agent import SUCCESS_DISTANCE, TwoArmReach, mirror
from claw.learning.multi_agent import AgentsVecEnv


def test_parallel_api() -> None:
    parallel_api_test(TwoArmReach(max_steps=20), num_cycles=40)


def test_observations_are_mirrored_for_the_right_arm() -> None:
    env = TwoArmReach()
    observations, _ = env.reset(seed=3)
    left, right = observations["left"], observations["right"]
    # Each agent sees itself first, the other second; the right one with y mirrored.
    np.testing.assert_allclose(left[6:9], right[:3] * mirror("right"), atol=1e-6)
    assert left[4] > 0 and right[4] > 0  # both targets on the agent's own side


def _steer(env: TwoArmReach, observations: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Straight at each target, in each agent's own frame."""
    return {a: np.clip((o[3:6] - o[:3]) / 0.02, -1, 1) for a, o in observations.items()}


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
    assert rewards["left"] == rewards["right"] < 0  # one joint reward
    assert not infos["left"]["success"]


def test_agents_as_a_vec_env_reset_after_the_episode() -> None:
    vec = AgentsVecEnv(TwoArmReach(max_steps=3))
    assert vec.num_envs == 2
    obs = vec.reset()
    assert obs.shape == (2, 12)
    for _ in range(3):
        obs, reward, done, infos = vec.step(np.zeros((2, 3)))
    assert done.all() and all("terminal_observation" in i for i in infos)
    assert all(i["TimeLimit.truncated"] for i in infos)
    assert reward.shape == (2,) and obs.shape == (2, 12)
