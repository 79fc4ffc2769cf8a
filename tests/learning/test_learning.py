"""Learned claws: goal envs, training smoke runs, export round trip, the library, the executor."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
import yaml

import claw.envs
from claw.envs.tasks import PushTask, ReachTask
from claw.learning.config import load_config
from claw.skills.exceptions import ArtifactError, InvalidParamsError
from claw.skills.executor import choose_implementation, execute_calls
from claw.skills.policy import WEIGHTS_FILE, PolicyNetwork

TINY = [
    "eval_freq=100",
    "eval_episodes=2",
    "checkpoint_freq=100",
    "vec_env=dummy",
    "algo_kwargs.learning_starts=100",
]
PPO_TINY = ["algo_kwargs.n_steps=64", "algo_kwargs.batch_size=32", "algo_kwargs.n_epochs=1"]


def tiny_config(skill: str, algo: str, steps: int = 200, extra: tuple[str, ...] = ()):
    overrides = [o for o in TINY if algo != "ppo" or "learning_starts" not in o]
    overrides += PPO_TINY if algo == "ppo" else []
    return load_config(skill, algo, [*overrides, *extra], total_timesteps=steps, n_envs=1)


@pytest.mark.slow
@pytest.mark.parametrize("env_id", [claw.envs.REACH_ID, claw.envs.PUSH_ID])
@pytest.mark.parametrize("reward_type", ["sparse", "dense"])
def test_goal_envs_pass_sb3_check_env(env_id: str, reward_type: str) -> None:
    from stable_baselines3.common.env_checker import check_env

    env = gym.make(env_id, reward_type=reward_type)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", message=".*Box observation space.*infinity.*")
        check_env(env.unwrapped)
    obs, info = env.reset(seed=0)
    assert set(obs) == {"observation", "achieved_goal", "desired_goal"}
    assert info["is_success"] in (True, False)
    env.close()


@pytest.mark.parametrize("task", ["reach", "push"])
def test_compute_reward_is_vectorised_and_matches_step(task: str) -> None:
    env = gym.make(f"claw/{task.capitalize()}-v0", reward_type="sparse").unwrapped
    obs, _ = env.reset(seed=1)
    obs, reward, *_, info = env.step(env.action_space.sample())
    assert reward == env.compute_reward(obs["achieved_goal"], obs["desired_goal"], info)
    size = env.task.goal_size
    achieved = np.zeros((7, size))
    desired = np.zeros((7, size))
    desired[:3, 0] = [0.0, 0.01, 0.3]  # within, within, far
    rewards = env.compute_reward(achieved, desired, [{}] * 7)
    assert rewards.shape == (7,)
    assert rewards[0] == 0.0 and rewards[1] == 0.0 and rewards[2] == -1.0
    env.reward_type = "dense"
    assert np.allclose(env.compute_reward(achieved, desired, None)[:3], [0.0, -0.01, -0.3])


def test_is_success_follows_the_distance_threshold() -> None:
    env = gym.make(claw.envs.REACH_ID).unwrapped
    env.reset(seed=3)
    tcp = env.task.achieved(env.world)
    env.goal = tcp + np.array([0.0, 0.0, 0.015])
    _, reward, _, _, info = env.step(np.zeros(3))
    assert info["distance"] < 0.02 and info["is_success"] and reward == 0.0
    env.goal = tcp + np.array([0.0, 0.1, 0.0])
    _, reward, _, _, info = env.step(np.zeros(3))
    assert not info["is_success"] and reward == -1.0


def test_push_env_has_the_main_envs_physics() -> None:
    env = gym.make(claw.envs.PUSH_ID).unwrapped
    env.reset(seed=0)
    main = claw.envs.TabletopEnv(claw.envs.tasks.ONE_BLOCK)
    assert env.world.model.opt.timestep == main.model.opt.timestep
    assert env.world.model.nbody == main.model.nbody
    assert isinstance(env.task, PushTask) and env.task.observe(env.world).shape == (17,)


@pytest.mark.slow
def test_controller_alone_pushes_in_the_residual_env() -> None:
    """The controller a residual push policy corrects already moves the block to its goal."""
    env = gym.make(claw.envs.PUSH_ID, residual=True)
    successes = 0
    for seed in range(5):
        env.reset(seed=seed)
        for _ in range(80):
            *_, info = env.step(np.zeros(3))
        successes += info["is_success"]
    assert successes >= 4


@pytest.mark.slow
@pytest.mark.parametrize("algo", ["tqc", "sac", "td3", "ppo"])
def test_training_smoke_run_per_algorithm(algo: str, tmp_path: Path) -> None:
    from claw.learning.train import train

    steps = 128 if algo == "ppo" else 120  # two rollouts, or 20 gradient steps after 100 random
    result = train(tiny_config("reach", algo, steps), tmp_path / "run")
    assert result.timesteps >= steps
    assert result.evaluations and "success_rate" in result.evaluations[0]
    run = result.run_dir
    for name in ("config.yaml", "meta.json", "model.zip", "vecnormalize.pkl"):
        assert (run / name).is_file(), name
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = EventAccumulator(str(next((run / "tb").rglob("events.out.tfevents.*"))))
    events.Reload()
    assert "eval/success_rate" in events.Tags()["scalars"]
    meta = json.loads((run / "meta.json").read_text())
    assert meta["seed"] == 0 and "stable-baselines3" in meta["versions"]
    assert PolicyNetwork.load(result.policy_dir).config.algo == algo


@pytest.mark.slow
def test_subprocess_envs_and_resume(tmp_path: Path) -> None:
    from claw.learning.train import train

    config = tiny_config("push", "sac", 100, ("vec_env=subproc",)).model_copy(update={"n_envs": 2})
    first = train(config, tmp_path / "run")
    assert first.timesteps == 100
    # resumed on envs in this process: starting subprocesses again (seconds) shows nothing new
    longer = config.model_copy(update={"total_timesteps": 200, "vec_env": "dummy"})
    resumed = train(longer, tmp_path / "run", resume=True)
    assert resumed.timesteps == 200
    assert json.loads((tmp_path / "run" / "meta.json").read_text())["resumed"] == 1
    assert [e["timesteps"] for e in resumed.evaluations] == [100, 200]


@pytest.mark.slow
def test_same_seed_reproduces_the_first_evaluation(tmp_path: Path) -> None:
    from claw.learning.train import train

    # 40 gradient steps after 60 random ones, then the evaluation at 100
    config = tiny_config("reach", "sac", 100, ("algo_kwargs.learning_starts=60",))
    a = train(config, tmp_path / "a")
    b = train(config, tmp_path / "b")
    assert a.evaluations[0] == b.evaluations[0]
    assert (a.policy_dir / WEIGHTS_FILE).read_bytes() == (b.policy_dir / WEIGHTS_FILE).read_bytes()
    other = train(config.model_copy(update={"seed": 1}), tmp_path / "c")
    assert (a.policy_dir / WEIGHTS_FILE).read_bytes() != (
        other.policy_dir / WEIGHTS_FILE
    ).read_bytes()


@pytest.mark.slow
@pytest.mark.parametrize("algo", ["tqc", "td3", "ppo"])
def test_export_load_act_round_trip(algo: str, tmp_path: Path) -> None:
    from stable_baselines3.common.vec_env import VecNormalize

    from claw.learning.train import ALGORITHM_CLASSES, make_envs, train

    # 120 steps: 20 gradient steps (two rollouts for PPO) give weights other than the initial
    config = tiny_config("push", algo, 120, ("env_kwargs.residual=false",))
    result = train(config, tmp_path / "run")
    network = PolicyNetwork.load(result.policy_dir)
    venv = make_envs(config, 1, 0, training=False)
    normalizer = VecNormalize.load(str(result.run_dir / "vecnormalize.pkl"), venv.venv)
    normalizer.training = False
    model = ALGORITHM_CLASSES[algo].load(
        str(result.run_dir / "model.zip"), env=normalizer, device="cpu"
    )
    env = gym.make(config.env_id, **config.env_kwargs)
    obs, _ = env.reset(seed=5)
    for _ in range(5):
        ours = network.act(obs)
        batch = normalizer.normalize_obs({k: v[None] for k, v in obs.items()})
        theirs, _ = model.predict(batch, deterministic=True)
        np.testing.assert_allclose(ours, np.clip(theirs[0], -1, 1), atol=1e-5)
        obs, *_ = env.step(ours)


@pytest.mark.slow
def test_tampered_weights_are_refused(tmp_path: Path) -> None:
    from claw.learning.train import train

    result = train(tiny_config("reach", "sac", 60), tmp_path / "run")
    weights = result.policy_dir / WEIGHTS_FILE
    data = bytearray(weights.read_bytes())
    data[-1] ^= 0xFF
    weights.write_bytes(bytes(data))
    with pytest.raises(ArtifactError, match="refusing"):
        PolicyNetwork.load(result.policy_dir)


@pytest.mark.slow
def test_registered_policy_is_a_drop_in_skill(tmp_path: Path) -> None:
    from claw.learning.register import register_policy
    from claw.learning.train import train
    from claw.library.storage import SkillLibrary

    result = train(tiny_config("reach", "tqc", 60), tmp_path / "run")
    (record,) = register_policy(result.policy_dir, episodes=2)
    assert record.kind == "policy" and record.name == "move_to"
    assert record.metrics is not None and record.metrics.episodes == 2
    assert record.provenance.source == "trained" and len(record.artifacts) == 2
    library = SkillLibrary()
    assert library.measured_success()[("move_to", "learned")] == record.metrics.success_rate

    env = claw.envs.TabletopEnv("default")
    env.reset(seed=0)
    call = {"skill": "move_to", "args": {"x": 0.45, "y": 0.1, "z": 0.25}}
    outcome = execute_calls(env, [call], prefer="learned", policies=library)
    step = outcome.steps[0]
    assert step.error is None and "policy_steps" in step.details
    tcp = env.data.site_xpos[env.robot.tcp_site]
    assert step.success == (np.linalg.norm(tcp - [0.45, 0.1, 0.25]) <= 0.02)

    stored = library.artifact_paths(library.get("move_to", record.version))[WEIGHTS_FILE]
    stored.write_bytes(stored.read_bytes()[:-1] + b"\x00")
    refused = execute_calls(env, [call], prefer="learned", policies=library)
    assert refused.steps[0].error == "artifact_rejected"


def test_executor_picks_by_measured_success_unless_told() -> None:
    both = {("push", "controller"): 0.99, ("push", "learned"): 0.9}
    assert choose_implementation("push", None, both) == "controller"
    better = {("push", "controller"): 0.8, ("push", "learned"): 0.9}
    assert choose_implementation("push", None, better) == "learned"
    assert choose_implementation("push", "controller", better) == "controller"
    assert choose_implementation("push", "learned", both) == "learned"
    assert choose_implementation("push", None, {("push", "learned"): 1.0}) == "controller"
    assert choose_implementation("home", "learned", better) == "controller"  # none learned


def test_config_overrides_and_errors() -> None:
    config = load_config("push", "td3", ["algo_kwargs.gamma=0.9", "policy_kwargs.net_arch=[8]"])
    assert config.algo_kwargs["gamma"] == 0.9 and config.policy_kwargs["net_arch"] == [8]
    assert config.algo_kwargs["batch_size"] == 256  # kept from the file
    with pytest.raises(InvalidParamsError, match="allowed: tqc, sac, td3, ppo"):
        load_config("push", "dqn")
    with pytest.raises(InvalidParamsError, match="trainable: pick, push, reach"):
        load_config("fly")
    with pytest.raises(InvalidParamsError, match="KEY=VALUE"):
        load_config("reach", None, ["gamma"])
    with pytest.raises(InvalidParamsError, match="n_envs"):
        load_config("reach", None, ["n_envs=0"])


# A trial: 60 steps, then one evaluation of 2 episodes (the YAML's 20 were most of its cost).
TINY_TUNE: dict[str, Any] = {
    "algo": "sac", "steps": 60, "n_envs": 1, "eval_freq": 60, "eval_episodes": 2,
}  # fmt: skip


@pytest.mark.slow
def test_tune_runs_trials_and_saves_the_best(tmp_path: Path) -> None:
    from claw.learning.tune import tune

    result = tune("reach", 2, tmp_path / "study", **TINY_TUNE)
    assert len(result.trials) == 2
    assert (tmp_path / "study" / "best.yaml").is_file()
    assert (tmp_path / "study" / "study.db").is_file()
    assert "algo_kwargs.learning_rate" in result.best_overrides
    trial = yaml.safe_load((tmp_path / "study" / "trial-000" / "config.yaml").read_text())
    assert (trial["total_timesteps"], trial["eval_freq"], trial["eval_episodes"]) == (60, 60, 2)


@pytest.mark.slow
def test_tune_shares_a_study_between_local_processes(tmp_path: Path) -> None:
    from claw.learning.tune import shares, tune

    assert shares(4, 2) == [2, 2] and shares(5, 2) == [3, 2] and shares(1, 4) == [1]
    result = tune("reach", 2, tmp_path / "study", parallel=2, **TINY_TUNE)
    assert [t["number"] for t in result.trials] == [0, 1]
    assert result.trials[0]["params"] != result.trials[1]["params"]  # a sampler seed per worker
    assert (tmp_path / "study" / "best.yaml").is_file()


def test_tune_score_is_success_first_then_reward() -> None:
    from claw.learning.tune import score

    low = {"success_rate": 0.5, "mean_reward": -40.0, "mean_length": 50.0}
    high = {"success_rate": 0.5, "mean_reward": -10.0, "mean_length": 50.0}
    assert 0.5 < score(low) < score(high) < 0.51
    assert score({"success_rate": 0.55, "mean_reward": -50.0, "mean_length": 50.0}) > score(high)


def test_reach_task_observation_is_the_tool_state() -> None:
    env = claw.envs.TabletopEnv("default")
    env.reset(seed=0)
    obs = ReachTask().observe(env)
    assert np.allclose(obs[:3], env.data.site_xpos[env.robot.tcp_site]) and obs.shape == (6,)


def test_run_folders_started_in_the_same_second_are_distinct(tmp_path: Path) -> None:
    from datetime import datetime

    from claw.learning.config import new_run_dir

    config = tiny_config("reach", "tqc")
    now = datetime(2026, 11, 29, 23, 2, 4)
    first = new_run_dir(tmp_path, config, now=now)
    second = new_run_dir(tmp_path, config, now=now)
    assert first != second
    assert first.is_dir() and second.is_dir()  # made, so a third run cannot take either
    assert first.name == "reach-tqc-20261129-230204-s0"
    assert second.name == "reach-tqc-20261129-230204-s0-2"
