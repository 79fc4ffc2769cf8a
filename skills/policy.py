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
from numpy.typing import NDArray
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from claw.envs.robot import Array
from claw.skills.exceptions import ArtifactError

POLICY_FORMAT = 1
WEIGHTS_FILE = "policy.safetensors"
CONFIG_FILE = "policy.json"
Activation = Literal["relu", "tanh", "identity"]
Floats = NDArray[np.floating[Any]]


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


class Convolution(BaseModel):
    """A 2-D convolution: ``{name}.weight`` (out x in x kh x kw) and ``{name}.bias``; no
    padding."""

    model_config = ConfigDict(extra="forbid")

    name: str
    stride: int = Field(ge=1)
    activation: Activation


class Encoder(BaseModel):
    """An image key's encoder (SB3's ``NatureCNN``): the image as floats in [0, 1],
    convolutions, flattened (channels first), then dense layers."""

    model_config = ConfigDict(extra="forbid")

    convolutions: list[Convolution] = Field(min_length=1)
    dense: list[Layer] = Field(min_length=1)


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
    """The ``Dict`` observation's keys, in the order their features are concatenated."""
    encoders: dict[str, Encoder] = Field(default_factory=dict)
    """The image keys (uint8, channels first) and their convolutional encoders; the other keys
    are vectors, normalised."""
    normalization: Normalization | None = None
    layers: list[Layer] = Field(min_length=1)
    weights_sha256: str
    training: dict[str, Any] = Field(default_factory=dict)
    evaluation: dict[str, Any] = Field(default_factory=dict)


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


_ACTIVATIONS: dict[str, Callable[[Floats], Floats]] = {
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
            self._layers = _dense(config.layers, tensors, np.float64)
            self._stats = {
                key: (
                    tensors[f"obs_rms.{key}.mean"].astype(np.float64),
                    tensors[f"obs_rms.{key}.var"].astype(np.float64),
                )
                for key in config.observation_keys
                if config.normalization is not None and key not in config.encoders
            }
            self._encoders = {
                key: (
                    [
                        (
                            tensors[f"{conv.name}.weight"].astype(np.float32),
                            tensors[f"{conv.name}.bias"].astype(np.float32),
                            conv.stride,
                            _ACTIVATIONS[conv.activation],
                        )
                        for conv in encoder.convolutions
                    ],
                    _dense(encoder.dense, tensors, np.float32),
                )
                for key, encoder in config.encoders.items()
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

    @property
    def observes_images(self) -> bool:
        """Whether the policy sees camera images (it then needs the cameras it was trained
        with)."""
        return bool(self.config.encoders)

    def features(self, observation: dict[str, Array]) -> Array:
        """The network's input: each vector key normalised as in training, each image key
        encoded, concatenated in order."""
        parts = []
        norm = self.config.normalization
        for key in self.config.observation_keys:
            if key in self._encoders:
                parts.append(self._encode(key, observation[key]).astype(np.float64))
                continue
            value = np.asarray(observation[key], dtype=np.float64).reshape(-1)
            if norm is not None:
                mean, var = self._stats[key]
                value = np.clip((value - mean) / np.sqrt(var + norm.epsilon), -norm.clip, norm.clip)
            parts.append(value)
        return np.concatenate(parts)

    def _encode(self, key: str, image: NDArray[Any]) -> Floats:
        convolutions, dense = self._encoders[key]
        x: Floats = np.asarray(image, dtype=np.float32) / 255.0
        for weight, bias, stride, activation in convolutions:
            x = activation(conv2d(x, weight, bias, stride))
        x = x.reshape(-1)
        for weight, bias, activation in dense:
            x = activation(weight @ x + bias)
        return x

    def act(self, observation: dict[str, Array]) -> Array:
        """The deterministic action in [-1, 1] for one observation."""
        x: Floats = self.features(observation)
        for weight, bias, activation in self._layers:
            x = activation(weight @ x + bias)
        return np.clip(x, -1.0, 1.0).astype(np.float64)


def conv2d(image: Floats, weight: Floats, bias: Floats, stride: int) -> Floats:
    """A convolution without padding, as ``torch.nn.Conv2d``: ``image`` (C x H x W), ``weight``
    (O x C x kh x kw) -> (O x H' x W')."""
    kh, kw = weight.shape[2:]
    windows = np.lib.stride_tricks.sliding_window_view(image, (kh, kw), axis=(1, 2))
    windows = windows[:, ::stride, ::stride]
    return np.tensordot(weight, windows, axes=([1, 2, 3], [0, 3, 4])) + bias[:, None, None]


def _dense(
    layers: list[Layer], tensors: dict[str, np.ndarray], dtype: type[np.floating[Any]]
) -> list[tuple[Floats, Floats, Callable[[Floats], Floats]]]:
    return [
        (
            tensors[f"{layer.name}.weight"].astype(dtype),
            tensors[f"{layer.name}.bias"].astype(dtype),
            _ACTIVATIONS[layer.activation],
        )
        for layer in layers
    ]
