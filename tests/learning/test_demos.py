"""Learning from demonstrations: claw/PickAndPlace-v0, its expert, Minari datasets, BC, DAgger."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import claw.envs
from claw.envs.tasks import GoalObservation
from claw.learning.config import load_config
from claw.learning.demos import dataset_id, record, resolve
from claw.learning.exceptions import InvalidConfigError
from claw.skills.policy import PolicyNetwork


def expert_run(env: gym.Env, seed: int) -> tuple[bool, bool]:
    """Whether the episode was done at its start, and at its end, under the expert."""
    obs, info = env.reset(seed=seed)
    done_at_start = bool(info["is_success"])
    truncated = False
    while not truncated:
        action = env.unwrapped.task.expert_action(GoalObservation(**obs))
        obs, _, _, truncated, info = env.step(action)
    return done_at_start, bool(info["is_success"])


@pytest.mark.slow
@pytest.mark.parametrize("reward_type", ["sparse", "dense"])
def test_pick_and_place_passes_both_check_envs(reward_type: str) -> None:
    from gymnasium.utils.env_checker import check_env
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    env = gym.make(claw.envs.PICK_PLACE_ID, reward_type=reward_type)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(env.unwrapped)
        sb3_check_env(env.unwrapped)
    assert env.action_space.shape == (5,)
    assert env.observation_space["observation"].shape == (19,)
    assert env.observation_space["desired_goal"].shape == (3,)
    env.close()


def test_pick_and_place_reward_is_vectorised_for_her() -> None:
    env = gym.make(claw.envs.PICK_PLACE_ID).unwrapped
    obs, _ = env.reset(seed=3)
    obs, reward, *_, info = env.step(env.action_space.sample())
    assert reward == env.compute_reward(obs["achieved_goal"], obs["desired_goal"], info)
    achieved = np.zeros((4, 3))
    desired = np.array([[0, 0, 0], [0.01, 0, 0], [0.1, 0, 0], [0, 0, 0.2]], dtype=float)
    assert list(env.compute_reward(achieved, desired, None)) == [0.0, 0.0, -1.0, -1.0]
    env.close()


def test_the_world_holds_the_block_by_friction_only() -> None:
    env = gym.make(claw.envs.PICK_PLACE_ID).unwrapped
    env.reset(seed=0)
    import mujoco

    model = env.world.model
    # The one equality couples the two fingers' joints; nothing welds or connects the block.
    assert list(model.eq_type) == [mujoco.mjtEq.mjEQ_JOINT]
    assert model.nmocap == 0
    env.close()


def test_resets_randomise_the_block_and_goals_need_work() -> None:
    env = gym.make(claw.envs.PICK_PLACE_ID).unwrapped
    sizes, heights = set(), []
    for seed in range(6):
        obs, info = env.reset(seed=seed)
        sizes.add(round(info["block_size"], 4))
        assert not info["is_success"]
        assert "randomization" in info
        heights.append(obs["desired_goal"][2] - info["block_size"] / 2)
    assert len(sizes) == 6
    assert min(heights) < 1e-9 < max(heights)  # goals on the table and in the air
    env.close()


@pytest.mark.slow
def test_the_expert_picks_and_places_on_physics() -> None:
    env = gym.make(claw.envs.PICK_PLACE_ID)
    runs = [expert_run(env, seed) for seed in range(3)]
    assert runs == [(False, True)] * 3
    env.close()


@pytest.mark.slow
def test_the_reach_expert_reaches() -> None:
    env = gym.make(claw.envs.REACH_ID)
    assert expert_run(env, 0) == (False, True)
    env.close()


@pytest.mark.slow
def test_record_writes_a_minari_dataset_minari_reads(minari_root: Path) -> None:
    import minari

    result = record("pick_place", 2, "tiny", seed=5)
    assert result.dataset_id == "claw/pick_place/tiny-v0" == dataset_id("pick_place", "tiny")
    assert (result.episodes_kept, result.successes, result.steps) == (2, 2, 120)
    dataset = minari.load_dataset(result.dataset_id)
    assert dataset.total_episodes == 2 and dataset.spec.env_spec.id == claw.envs.PICK_PLACE_ID
    episode = next(dataset.iterate_episodes())
    assert episode.observations["observation"].shape == (61, 19)
    assert episode.actions.shape == (60, 5)
    assert set(episode.infos) >= {"is_success", "distance", "block_size", "red_block_friction"}
    seeds = [m["seed"] for m in dataset.storage.get_episode_metadata([0, 1])]
    assert seeds == [5, 6]
    with pytest.raises(InvalidConfigError, match="already exists"):
        record("pick_place", 1, "tiny")


@pytest.mark.slow
def test_record_keeps_failures_only_when_asked(
    minari_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from claw.envs.pick_place import PickPlaceTask

    monkeypatch.setattr(PickPlaceTask, "expert_action", classmethod(lambda cls, obs: np.zeros(5)))
    with pytest.raises(InvalidConfigError, match="succeeded in none of 1"):
        record("pick_place", 1, "idle")
    assert not (minari_root / "claw/pick_place/idle-v0").exists()
    result = record("pick_place", 1, "idle", include_failures=True)
    assert (result.episodes_kept, result.successes) == (1, 0)


@pytest.mark.slow
def test_a_crash_while_writing_leaves_no_dataset(
    minari_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import minari

    def crash(*args: object, **kwargs: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(minari, "create_dataset_from_buffers", crash)
    with pytest.raises(OSError, match="disk full"):
        record("pick_place", 1, "crashed")
    assert not (minari_root / "claw/pick_place/crashed-v0").exists()
    assert [p.name for p in minari_root.iterdir()] == []  # no staging folder left either


@pytest.mark.slow
def test_names_resolve_to_one_dataset(minari_root: Path) -> None:
    record("reach", 1, "mine")
    assert resolve("mine") == "claw/reach/mine-v0" == resolve("mine", "reach")
    assert resolve("claw/reach/mine-v0") == "claw/reach/mine-v0"
    with pytest.raises(InvalidConfigError, match="local datasets: claw/reach/mine-v0"):
        resolve("mine", "pick_place")


@pytest.mark.slow
def test_demos_commands(minari_root: Path, claw_in_process) -> None:
    made = claw_in_process("demos", "record", "reach", "--episodes", "2", "--out", "r", "--json")
    assert made.returncode == 0, made.stderr
    assert json.loads(made.stdout)["dataset_id"] == "claw/reach/r-v0"
    listed = claw_in_process("demos", "list", "--json")
    assert [row["dataset_id"] for row in json.loads(listed.stdout)] == ["claw/reach/r-v0"]
    shown = json.loads(claw_in_process("demos", "show", "r", "--json").stdout)
    assert (shown["episodes"], shown["success_rate"], shown["seeds"]) == (
        2,
        1.0,
        {"first": 0, "last": 1},
    )
    bad = claw_in_process("demos", "record", "fly", "--episodes", "1")
    assert bad.returncode == 2 and "allowed: reach, push, pick_place" in bad.stderr


@pytest.mark.slow
def test_behaviour_cloning_then_dagger_trains_the_exported_actor(
    minari_root: Path, tmp_path: Path
) -> None:
    from claw.learning.imitation import imitate, load_demonstrations

    record("pick_place", 3, "few")
    demos, steps = load_demonstrations("claw/pick_place/few-v0", claw.envs.PICK_PLACE_ID)
    assert (len(demos), steps) == (180, 180)
    config = load_config(
        "pick",
        None,
        ["imitation.epochs=30", "imitation.dagger_episodes=1", "imitation.eval_episodes=1"],
    )
    result = imitate(config, tmp_path / "run", "claw/pick_place/few-v0", dagger_rounds=1)
    assert [s["stage"] for s in result.stages] == ["bc", "dagger1"]
    assert [s["pairs"] for s in result.stages] == [180, 240]
    assert result.timesteps == 240
    network = PolicyNetwork.load(result.policy_dir)
    assert network.config.task == "pick_place" and network.config.skill == "pick"
    assert network.config.training["demonstrations"] == "claw/pick_place/few-v0"
    # The actor learned the expert's actions on its own data (the untrained actor is far off).
    obs = {k: v[0] for k, v in demos.observations.items()}
    assert np.abs(network.act(obs) - demos.actions[0]).max() < 0.5
    assert result.stages[-1]["loss"] < 0.1
    assert (tmp_path / "run" / "model.zip").is_file()
    assert json.loads((tmp_path / "run" / "imitation.json").read_text())["stages"] == result.stages


@pytest.mark.slow
def test_demonstrations_from_another_env_are_refused(minari_root: Path, tmp_path: Path) -> None:
    from claw.learning.imitation import imitate

    record("reach", 1, "elsewhere")
    config = load_config("pick", None, ["imitation.epochs=1"])
    with pytest.raises(InvalidConfigError, match="recorded in claw/Reach-v0"):
        imitate(config, tmp_path / "run", "claw/reach/elsewhere-v0")


@pytest.mark.slow
def test_bench_imitation_measures_expert_cloning_and_dagger_on_the_same_episodes(
    claw_in_process,
) -> None:
    result = claw_in_process(
        "bench", "imitation", "--demos", "2", "--dagger", "1", "--episodes", "2", "--json",
        "--hyperparams", "imitation.epochs=5", "--hyperparams", "imitation.dagger_episodes=1",
        "--hyperparams", "imitation.dagger_epochs=2", "--hyperparams", "imitation.eval_episodes=1",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    bench = json.loads(result.stdout)
    learners = [row["learner"] for row in bench["rows"]]
    assert learners[:2] == ["expert (the controllers)", "behaviour cloning"]
    assert learners[2].startswith("DAgger (1 rounds")
    assert [row["episodes"] for row in bench["rows"]] == [2, 2, 2]
    assert bench["rows"][0]["success_rate"] == 1.0  # the expert on the fresh episodes
    assert [row["env_steps"] for row in bench["rows"]] == [0, 120, 180]
