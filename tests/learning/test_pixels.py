"""Learning a claw from cameras: depth demonstrations, behaviour cloning and DAgger into a
convolutional actor with random shifts, and its export run in numpy."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

import claw.envs
from claw.learning.config import load_config
from claw.learning.demos import record
from claw.learning.exceptions import InvalidConfigError
from claw.skills.policy import PolicyNetwork, conv2d

FEW = ["imitation.epochs=3", "imitation.dagger_episodes=1", "imitation.eval_episodes=1"]


def test_random_shift_moves_each_image_by_at_most_the_shift() -> None:
    from claw.learning.imitation import random_shift

    images = torch.zeros(64, 1, 16, 16, dtype=torch.uint8)
    images[:, :, 8, 8] = 255
    generator = torch.Generator().manual_seed(0)
    assert random_shift(images, 0, generator) is images
    shifted = random_shift(images, 2, generator)
    assert shifted.shape == images.shape and shifted.dtype == torch.float32
    rows, cols = np.nonzero(shifted[:, 0].numpy().reshape(64 * 16, 16) > 0)
    offsets = {(r % 16 - 8, c - 8) for r, c in zip(rows, cols, strict=True)}
    assert len(offsets) > 5 and all(abs(dy) <= 2 and abs(dx) <= 2 for dy, dx in offsets)


def test_conv2d_in_numpy_matches_torch() -> None:
    rng = np.random.default_rng(0)
    layer = torch.nn.Conv2d(3, 5, 4, stride=2)
    image = rng.random((3, 19, 17)).astype(np.float32)
    expected = layer(torch.as_tensor(image)[None])[0].detach().numpy()
    weight, bias = layer.weight.detach().numpy(), layer.bias.detach().numpy()  # type: ignore[union-attr]
    assert np.allclose(conv2d(image, weight, bias, 2), expected, atol=1e-5)


@pytest.mark.slow
def test_a_depth_policy_is_cloned_exported_and_acts_as_the_torch_actor(
    minari_root: Path, tmp_path: Path
) -> None:
    from claw.learning.finetune import squashed_actor
    from claw.learning.imitation import imitate

    result = record("pick_place", 2, "seen", obs_mode="depth")
    assert result.episodes_kept == 2
    config = load_config("pick", None, FEW, obs="depth")
    run = imitate(config, tmp_path / "run", "claw/pick_place/seen-v0", dagger_rounds=1)
    assert [s["stage"] for s in run.stages] == ["bc", "dagger1"]
    network = PolicyNetwork.load(run.policy_dir)
    assert network.observes_images and set(network.config.encoders) == {"depth"}
    assert network.config.env_kwargs["obs_mode"] == "depth"
    # The numpy export acts as the trained torch actor does, on an observation of the env.
    from sb3_contrib import TQC

    model = TQC.load(str(tmp_path / "run" / "model.zip"), device="cpu")
    env = claw.envs.goal.make_task_env("pick_place", obs_mode="depth")
    obs, _ = env.reset(seed=7)
    from stable_baselines3.common.vec_env import VecNormalize

    stats = VecNormalize.load(str(tmp_path / "run" / "vecnormalize.pkl"), venv=_dummy(env))
    normalized = stats.normalize_obs({k: v[None] for k, v in obs.items()})
    assert isinstance(normalized, dict)
    tensors = {k: torch.as_tensor(v) for k, v in normalized.items()}
    with torch.no_grad():
        mean, _, _ = squashed_actor(model).get_action_dist_params(tensors)
    assert np.allclose(network.act(obs), torch.tanh(mean)[0].numpy(), atol=1e-4)
    env.close()


def _dummy(env: object) -> object:
    from stable_baselines3.common.vec_env import DummyVecEnv

    return DummyVecEnv([lambda: env])  # type: ignore[list-item, return-value]


@pytest.mark.slow
def test_demonstrations_of_another_mode_or_image_size_are_refused(
    minari_root: Path, tmp_path: Path
) -> None:
    from claw.learning.imitation import imitate

    record("pick_place", 1, "state")
    record("pick_place", 1, "small", obs_mode="depth")
    with pytest.raises(InvalidConfigError, match="recorded with obs_mode state, not depth"):
        config = load_config("pick", None, FEW, obs="depth")
        imitate(config, tmp_path / "a", "claw/pick_place/state-v0")
    larger = load_config("pick", None, [*FEW, "env_kwargs.image_size=[80,80]"], obs="depth")
    with pytest.raises(InvalidConfigError, match=r"hold depth of shape \(2, 64, 64\)"):
        imitate(larger, tmp_path / "b", "claw/pick_place/small-v0")
