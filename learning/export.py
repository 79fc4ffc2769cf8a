"""Export a trained Stable-Baselines3 policy without pickle: safetensors weights and a JSON config.

Only the deterministic actor is kept: SAC/TQC's ``latent_pi`` and ``mu`` with the tanh squash,
TD3's ``mu``, or PPO's ``policy_net`` and ``action_net`` (its action clipped to [-1, 1]).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
from safetensors.numpy import save
from sb3_contrib.tqc.policies import TQCPolicy
from stable_baselines3.common.base_class import BaseAlgorithm
from stable_baselines3.common.policies import ActorCriticPolicy
from stable_baselines3.common.torch_layers import CombinedExtractor, NatureCNN
from stable_baselines3.common.vec_env import VecNormalize
from stable_baselines3.sac.policies import SACPolicy
from stable_baselines3.td3.policies import TD3Policy
from torch import nn

from claw.common.files import atomic_write
from claw.envs.goal import RESIDUAL_SCALE
from claw.learning.config import TrainConfig
from claw.library.files import sha256_of
from claw.skills.policy import (
    CONFIG_FILE,
    WEIGHTS_FILE,
    Convolution,
    Encoder,
    Layer,
    Normalization,
    PolicyConfig,
)

_ACTIVATION_NAMES = {nn.ReLU: "relu", nn.Tanh: "tanh"}


def _actor_modules(model: BaseAlgorithm) -> tuple[nn.Module, list[nn.Module], str]:
    """The actor's features extractor, its layers in order, and the final squashing."""
    policy = model.policy
    if isinstance(policy, SACPolicy | TQCPolicy):
        sac = policy.actor
        return sac.features_extractor, [*sac.latent_pi, sac.mu], "tanh"
    if isinstance(policy, TD3Policy):  # mu ends in Tanh already
        td3 = policy.actor
        return td3.features_extractor, list(td3.mu), "identity"
    if isinstance(policy, ActorCriticPolicy):  # PPO
        net = [*policy.mlp_extractor.policy_net, policy.action_net]
        return policy.pi_features_extractor, net, "identity"
    raise TypeError(f"cannot export the actor of a {type(policy).__name__}")


def zero_output_layer(model: BaseAlgorithm) -> None:
    """Zero the actor's last layer, so that its deterministic action starts at 0."""
    _, modules, _ = _actor_modules(model)
    last = [m for m in modules if isinstance(m, nn.Linear)][-1]
    nn.init.zeros_(last.weight)
    nn.init.zeros_(last.bias)


def _layers(
    modules: list[nn.Module], squash: str, prefix: str = "layers"
) -> tuple[list[Layer], dict[str, np.ndarray]]:
    layers: list[Layer] = []
    tensors: dict[str, np.ndarray] = {}
    for module in modules:
        if isinstance(module, nn.Linear):
            name = f"{prefix}.{len(layers)}"
            tensors[f"{name}.weight"] = module.weight.detach().cpu().numpy().astype(np.float32)
            tensors[f"{name}.bias"] = module.bias.detach().cpu().numpy().astype(np.float32)
            layers.append(Layer(name=name, activation="identity"))
        elif type(module) in _ACTIVATION_NAMES:
            layers[-1] = layers[-1].model_copy(
                update={"activation": _ACTIVATION_NAMES[type(module)]}
            )
        else:
            raise TypeError(f"cannot export a policy layer of type {type(module).__name__}")
    if squash != "identity":
        layers[-1] = layers[-1].model_copy(update={"activation": squash})
    return layers, tensors


def _encoder(key: str, cnn: NatureCNN) -> tuple[Encoder, dict[str, np.ndarray]]:
    """An image key's ``NatureCNN`` as an :class:`Encoder` and its tensors."""
    convolutions: list[Convolution] = []
    tensors: dict[str, np.ndarray] = {}
    for module in cnn.cnn:
        if isinstance(module, nn.Conv2d):
            if module.padding not in (0, (0, 0)) or module.stride[0] != module.stride[1]:
                raise TypeError(f"cannot export {key}'s convolution {module}")
            name = f"encoders.{key}.conv{len(convolutions)}"
            tensors[f"{name}.weight"] = module.weight.detach().cpu().numpy().astype(np.float32)
            assert module.bias is not None
            tensors[f"{name}.bias"] = module.bias.detach().cpu().numpy().astype(np.float32)
            convolutions.append(
                Convolution(name=name, stride=module.stride[0], activation="identity")
            )
        elif type(module) in _ACTIVATION_NAMES:
            convolutions[-1] = convolutions[-1].model_copy(
                update={"activation": _ACTIVATION_NAMES[type(module)]}
            )
        elif not isinstance(module, nn.Flatten):
            raise TypeError(f"cannot export {key}'s encoder layer {type(module).__name__}")
    dense, dense_tensors = _layers(list(cnn.linear), "identity", f"encoders.{key}.dense")
    return Encoder(convolutions=convolutions, dense=dense), {**tensors, **dense_tensors}


def export_policy(
    model: BaseAlgorithm,
    normalizer: VecNormalize | None,
    config: TrainConfig,
    folder: str | Path,
    *,
    training: dict[str, Any] | None = None,
    evaluation: dict[str, Any] | None = None,
) -> Path:
    """Write ``policy.safetensors`` and ``policy.json`` into ``folder``; returns the folder."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    extractor, modules, squash = _actor_modules(model)
    if not isinstance(extractor, CombinedExtractor):
        raise TypeError(
            f"cannot export a policy whose features come from {type(extractor).__name__}"
        )
    keys = list(extractor.extractors.keys())
    layers, tensors = _layers(modules, squash)
    encoders: dict[str, Encoder] = {}
    for key, module in extractor.extractors.items():
        if isinstance(module, NatureCNN):
            encoders[key], encoder_tensors = _encoder(key, module)
            tensors.update(encoder_tensors)
    normalization = None
    if normalizer is not None and normalizer.norm_obs:
        normalization = Normalization(clip=normalizer.clip_obs, epsilon=normalizer.epsilon)
        for key in keys:
            if key in encoders:
                continue
            stats = normalizer.obs_rms[key]
            tensors[f"obs_rms.{key}.mean"] = np.asarray(stats.mean, dtype=np.float64)
            tensors[f"obs_rms.{key}.var"] = np.asarray(stats.var, dtype=np.float64)
    weights = folder / WEIGHTS_FILE
    atomic_write(weights, save(tensors))
    residual = config.env_kwargs.get("residual", False)
    scale = float(config.env_kwargs.get("residual_scale", RESIDUAL_SCALE))
    policy_config = PolicyConfig(
        skill=config.skill,
        task=gym.spec(config.env_id).kwargs.get("task", config.skill),
        env_id=config.env_id,
        env_kwargs=config.env_kwargs,
        residual_scale=scale if residual else None,
        algo=config.algo,
        observation_keys=keys,
        encoders=encoders,
        normalization=normalization,
        layers=layers,
        weights_sha256=sha256_of(weights),
        training=training or {},
        evaluation=evaluation or {},
    )
    write_config(policy_config, folder)
    return folder


def write_config(policy_config: PolicyConfig, folder: Path) -> None:
    """Write ``policy.json`` atomically."""
    text = json.dumps(policy_config.model_dump(mode="json"), indent=1) + "\n"
    atomic_write(folder / CONFIG_FILE, text.encode())
