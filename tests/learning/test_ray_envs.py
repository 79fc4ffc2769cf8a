"""Environment workers on Ray (``--ray``): the same seeds give the data of local workers, and
each worker's throughput is reported."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.vec_env import DummyVecEnv

from claw.learning.demos import expert_episode, open_dataset, record
from claw.learning.ray_envs import EnvWorker, RayVecEnv
from tests.learning.test_learning import tiny_config

REACH = "claw.envs:claw/Reach-v0"


def test_a_local_worker_counts_its_steps_and_episodes() -> None:
    import gymnasium as gym

    worker = EnvWorker(lambda: gym.make(REACH))
    seed, episode, _ = worker.expert_episode(expert_episode, 4)
    shown = worker.throughput(0)
    assert seed == 4 and shown.node == "local" and shown.episodes == 1
    assert shown.steps == len(episode["actions"]) > 0 and shown.steps_per_second > 0
    worker.close()


@pytest.mark.slow
def test_ray_envs_step_as_local_envs(local_ray: str) -> None:
    local = make_vec_env(REACH, n_envs=2, seed=3, vec_env_cls=DummyVecEnv)
    on_ray = make_vec_env(REACH, n_envs=2, seed=3, vec_env_cls=RayVecEnv)  # type: ignore[arg-type]
    try:
        assert on_ray.observation_space == local.observation_space
        first = (local.reset(), on_ray.reset())
        for key in first[0]:
            np.testing.assert_array_equal(first[0][key], first[1][key])
        actions = np.random.default_rng(0).uniform(-1, 1, (60, 2, *local.action_space.shape))
        ended = 0
        for action in actions:  # past an episode's end (the envs reset themselves)
            (a, ra, da, ia), (b, rb, db, ib) = local.step(action), on_ray.step(action)
            for key in a:
                np.testing.assert_array_equal(a[key], b[key])
            np.testing.assert_array_equal(ra, rb)
            np.testing.assert_array_equal(da, db)
            for x, y in zip(ia, ib, strict=True):
                if "terminal_observation" in x:
                    ended += 1
                    for key in x["terminal_observation"]:
                        np.testing.assert_array_equal(
                            x["terminal_observation"][key], y["terminal_observation"][key]
                        )
        assert ended >= 2
        assert on_ray.get_attr("spec")[0].id == "claw/Reach-v0"
        workers = on_ray.throughput()
        assert [w.steps for w in workers] == [60, 60] and all(w.node != "local" for w in workers)
    finally:
        local.close()
        on_ray.close()


@pytest.mark.slow
def test_demonstrations_on_ray_are_the_local_dataset(local_ray: str, minari_root: Path) -> None:
    local = record("reach", 5, "here", seed=11)
    on_ray = record("reach", 5, "there", seed=11, ray_workers=2)
    assert len(on_ray.workers) == 2 and sum(w.episodes for w in on_ray.workers) == 5
    assert all(w.steps_per_second > 0 for w in on_ray.workers)
    assert len(local.workers) == 1 and local.workers[0].node == "local"
    mine, theirs = open_dataset(local.dataset_id), open_dataset(on_ray.dataset_id)
    pairs = zip(mine.iterate_episodes(), theirs.iterate_episodes(), strict=True)
    for a, b in pairs:
        np.testing.assert_array_equal(a.actions, b.actions)
        for key in a.observations:
            np.testing.assert_array_equal(a.observations[key], b.observations[key])
        np.testing.assert_array_equal(a.rewards, b.rewards)
    seeds = [m["seed"] for m in theirs.storage.get_episode_metadata(range(5))]
    assert seeds == list(range(11, 16))


@pytest.mark.slow
def test_training_on_ray_reports_each_worker(local_ray: str, tmp_path: Path) -> None:
    from claw.learning.train import train

    config = tiny_config("reach", "sac", 120).model_copy(update={"n_envs": 2, "vec_env": "ray"})
    result = train(config, tmp_path / "run")
    assert result.timesteps >= 120
    assert [w["worker"] for w in result.workers] == [0, 1]
    assert all(w["steps"] >= 60 for w in result.workers)
    assert json.loads((tmp_path / "run" / "meta.json").read_text())["workers"] == result.workers
