"""Trained policies as skills: an exported network (safetensors + JSON, no pickle) run in numpy.

An exported policy is two files: ``policy.safetensors`` (the actor's layers and the observation
normalisation statistics) and ``policy.json`` (:class:`PolicyConfig`: the task, the layer order
and activations, how observations are normalised, how it was trained and measured). Loading never
imports torch or Stable-Baselines3 and never unpickles anything.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from claw.envs.robot import Array
from claw.skills.exceptions import ArtifactError

POLICY_FORMAT = 1
WEIGHTS_FILE = "policy.safetensors"
CONFIG_FILE = "policy.json"
Activation = Literal["relu", "tanh", "identity"]


class Layer(BaseModel):
    """A dense layer: ``{name}.weight`` (out x in) and ``{name}.bias`` in the weights file."""

    model_config = ConfigDict(extra="forbid")

    name: str
    activation: Activation


class Normalization(BaseModel):
    """``VecNormalize`` of observations: ``obs_rms.{key}.mean``/``.var`` in the weights file."""

    model_config = ConfigDict(extra="forbid")

    clip: float = Field(gt=0.0)
    epsilon: float = Field(gt=0.0)


class PolicyConfig(BaseModel):
    """What a policy needs besides its weights, and where it came from."""

    model_config = ConfigDict(extra="forbid")

    format: int = POLICY_FORMAT
    skill: str
    task: str
    env_id: str
    env_kwargs: dict[str, Any] = Field(default_factory=dict)
    residual_scale: float | None = None
    """Set for a residual policy: its action is added, scaled, to the task's controller's."""
    algo: str
    observation_keys: list[str]
    """The ``Dict`` observation's keys, in the order they are concatenated."""
    normalization: Normalization | None = None
    layers: list[Layer] = Field(min_length=1)
    weights_sha256: str
    training: dict[str, Any] = Field(default_factory=dict)
    evaluation: dict[str, Any] = Field(default_factory=dict)


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


_ACTIVATIONS: dict[str, Callable[[Array], Array]] = {
    "relu": lambda x: np.maximum(x, 0.0),
    "tanh": np.tanh,
    "identity": lambda x: x,
}


class PolicyNetwork:
    """The deterministic actor of a trained policy, in numpy.

    Args:
        config: The policy's config.
        tensors: Its weights and normalisation statistics, by name.
    """

    def __init__(self, config: PolicyConfig, tensors: dict[str, np.ndarray]) -> None:
        self.config = config
        try:
            self._layers = [
                (
                    tensors[f"{layer.name}.weight"].astype(np.float64),
                    tensors[f"{layer.name}.bias"].astype(np.float64),
                    _ACTIVATIONS[layer.activation],
                )
                for layer in config.layers
            ]
            self._stats = {
                key: (
                    tensors[f"obs_rms.{key}.mean"].astype(np.float64),
                    tensors[f"obs_rms.{key}.var"].astype(np.float64),
                )
                for key in config.observation_keys
                if config.normalization is not None
            }
        except KeyError as exc:
            raise ArtifactError(f"policy weights lack tensor {exc.args[0]!r}") from None

    @classmethod
    def load(cls, folder: str | Path, expected_sha256: str | None = None) -> PolicyNetwork:
        """Load ``policy.json`` and ``policy.safetensors`` from ``folder``, checking the weights.

        Raises:
            ArtifactError: a file is missing or malformed, or the weights' sha256 differs from
                the config's (or from ``expected_sha256``).
        """
        from safetensors.numpy import load_file

        folder = Path(folder)
        weights, config_path = folder / WEIGHTS_FILE, folder / CONFIG_FILE
        for path in (weights, config_path):
            if not path.is_file():
                raise ArtifactError(f"policy file {path} is missing")
        try:
            config = PolicyConfig.model_validate_json(config_path.read_text())
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            raise ArtifactError(
                f"policy config {config_path} is invalid: {where}: {first['msg']}"
            ) from None
        digest = _sha256(weights)
        for expected in (config.weights_sha256, expected_sha256):
            if expected is not None and digest != expected:
                raise ArtifactError(
                    f"policy weights {weights} have sha256 {digest[:12]}…, expected "
                    f"{expected[:12]}…: refusing to load them"
                )
        return cls(config, load_file(str(weights)))

    def features(self, observation: dict[str, Array]) -> Array:
        """The network's input: each key normalised as in training, concatenated in order."""
        parts = []
        norm = self.config.normalization
        for key in self.config.observation_keys:
            value = np.asarray(observation[key], dtype=np.float64).reshape(-1)
            if norm is not None:
                mean, var = self._stats[key]
                value = np.clip((value - mean) / np.sqrt(var + norm.epsilon), -norm.clip, norm.clip)
            parts.append(value)
        return np.concatenate(parts)

    def act(self, observation: dict[str, Array]) -> Array:
        """The deterministic action in [-1, 1] for one observation."""
        x = self.features(observation)
        for weight, bias, activation in self._layers:
            x = activation(weight @ x + bias)
        return np.clip(x, -1.0, 1.0)
