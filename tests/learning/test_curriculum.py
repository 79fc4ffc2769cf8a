"""Curricula: difficulty in the training envs, stages in the YAML, promotion on success, resume."""

from __future__ import annotations

import json
from pathlib import Path
from typing import ClassVar

import gymnasium as gym
import numpy as np
import pytest

import claw.envs
from claw.learning.config import TrainConfig, load_config
from claw.learning.exceptions import InvalidConfigError
from tests.learning.test_learning import TINY

# Success within a metre: every evaluation succeeds, so training is promoted at the first one;
# within a micrometre, none does.
EVERY_EPISODE_SUCCEEDS = "env_kwargs.distance_threshold=1.0"
NO_EPISODE_SUCCEEDS = "env_kwargs.distance_threshold=0.000001"
TWO_STAGES = {
    "stages": [
        {"name": "near", "difficulty": {"goal_distance": 0.05}, "promote_at": 0.5},
        {"name": "full", "difficulty": {}},
    ]
}


def two_stage_reach(success: str) -> TrainConfig:
    """150 steps of reach through ``TWO_STAGES``, evaluated once (at 100 steps) per 150."""
    curriculum = f"curriculum={json.dumps(TWO_STAGES)}"
    return load_config("reach", "sac", [*TINY, success, curriculum], total_timesteps=150, n_envs=1)


def goal_distances(env: gym.Env, seeds: range) -> list[float]:
    distances = []
    for seed in seeds:
        obs, _ = env.reset(seed=seed)
        distances.append(float(np.linalg.norm(obs["desired_goal"] - obs["achieved_goal"])))
    return distances


@pytest.mark.parametrize(
    ("env_id", "cap"), [(claw.envs.REACH_ID, 0.05), (claw.envs.PICK_PLACE_ID, 0.08)]
)
def test_goal_distance_caps_the_goals(env_id: str, cap: float) -> None:
    env = gym.make(env_id)
    full = goal_distances(env, range(8))
    env.unwrapped.set_difficulty(goal_distance=cap)
    near = goal_distances(env, range(8))
    assert max(full) > cap and max(near) <= cap + 1e-9
    env.close()


def test_difficulty_shapes_pick_and_place_episodes() -> None:
    env = gym.make(claw.envs.PICK_PLACE_ID, difficulty={"air_share": 0.0, "randomization": 0.0})
    for seed in range(4):
        obs, info = env.reset(seed=seed)
        assert info["block_size"] == pytest.approx(0.04)
        assert obs["desired_goal"][2] == pytest.approx(0.02)  # on the table
        assert info["randomization"]["arm_jitter"] == [0.0] * 6
    env.close()


def test_bad_difficulties_are_refused_in_one_line() -> None:
    env = gym.make(claw.envs.PICK_PLACE_ID).unwrapped
    with pytest.raises(ValueError, match=r"least goal distance 0\.06"):
        env.set_difficulty(goal_distance=0.03)
    with pytest.raises(ValueError, match="hardness"):
        env.set_difficulty(hardness=1)
    env.close()


def test_curricula_are_declared_in_the_yaml_and_checked() -> None:
    stages = load_config("pick", curriculum=True).curriculum.stages
    assert [s.name for s in stages] == ["near", "lift", "full"]
    assert load_config("pick").curriculum is None  # only with --curriculum
    with pytest.raises(InvalidConfigError, match="push declares no curriculum; skills with one"):
        load_config("push", curriculum=True)
    bad = {"stages": [{"name": "a", "difficulty": {"goal_distance": 0.1}}, {"name": "b"}]}
    with pytest.raises(InvalidConfigError, match="every stage but the last needs promote_at"):
        load_config("reach", None, [f"curriculum={json.dumps(bad)}"])


@pytest.mark.slow
def test_training_is_promoted_when_an_evaluation_passes_and_resumes_there(
    tmp_path: Path,
) -> None:
    from stable_baselines3.common.callbacks import BaseCallback

    from claw.learning.train import train

    class Difficulties(BaseCallback):
        """The training env's goal distance cap at the start and at the end of training."""

        seen: ClassVar[list[float | None]] = []

        def _read(self) -> None:
            task = self.training_env.get_attr("task")[0]
            self.seen.append(task.difficulty.goal_distance)

        def _on_training_start(self) -> None:
            self._read()

        def _on_training_end(self) -> None:
            self._read()

        def _on_step(self) -> bool:
            return True

    config = two_stage_reach(EVERY_EPISODE_SUCCEEDS)
    train(config, tmp_path / "run", callbacks=[Difficulties()])
    assert Difficulties.seen == [0.05, None]  # the near stage, then the full task
    state = json.loads((tmp_path / "run" / "curriculum.json").read_text())
    assert state["stage"] == 1 and state["name"] == "full"
    assert state["history"][0]["stage"] == "near"
    assert state["history"][0]["success_rate"] == 1.0
    assert state["history"][0]["promoted_to"] == "full"
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = EventAccumulator(str(next((tmp_path / "run" / "tb").rglob("events.out.tfevents.*"))))
    events.Reload()
    assert "curriculum/stage" in events.Tags()["scalars"]
    longer = config.model_copy(update={"total_timesteps": 250})
    train(longer, tmp_path / "run", resume=True)
    resumed = json.loads((tmp_path / "run" / "curriculum.json").read_text())
    assert resumed["stage"] == 1 and resumed["history"][1]["stage"] == "full"


@pytest.mark.slow
def test_a_stage_not_passed_is_kept(tmp_path: Path) -> None:
    from claw.learning.train import train

    train(two_stage_reach(NO_EPISODE_SUCCEEDS), tmp_path / "run")
    state = json.loads((tmp_path / "run" / "curriculum.json").read_text())
    assert state["stage"] == 0
    assert state["history"] == [{"timesteps": 100, "stage": "near", "success_rate": 0.0}]
