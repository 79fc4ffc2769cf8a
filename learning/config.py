"""Training configs: per-skill YAML hyperparameters, RL Zoo style, resolved to ``TrainConfig``."""

from __future__ import annotations

import copy
import itertools
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from claw.envs.yamlfile import YamlLimitError, load_yaml, read_yaml
from claw.learning.exceptions import InvalidConfigError

HYPERPARAMS_DIR = Path(__file__).with_name("hyperparams")
ALGORITHMS = ("tqc", "sac", "td3", "ppo")
OFF_POLICY = ("tqc", "sac", "td3")


class HerConfig(BaseModel):
    """Hindsight Experience Replay: how many relabelled goals per transition, drawn how."""

    model_config = ConfigDict(extra="forbid")

    n_sampled_goal: int = Field(4, ge=1)
    goal_selection_strategy: Literal["future", "final", "episode"] = "future"


class TrainConfig(BaseModel):
    """Everything a training run needs; saved in the run folder as ``config.yaml``."""

    model_config = ConfigDict(extra="forbid")

    skill: str
    env_id: str
    algo: Literal["tqc", "sac", "td3", "ppo"]
    total_timesteps: int = Field(gt=0)
    seed: int = 0
    env_kwargs: dict[str, Any] = Field(default_factory=dict)
    n_envs: int = Field(1, ge=1)
    vec_env: Literal["subproc", "dummy"] = "dummy"
    normalize: bool = True
    """Normalise observations with ``VecNormalize`` (statistics saved beside the model)."""
    normalize_reward: bool = False
    her: HerConfig | None = None
    policy_kwargs: dict[str, Any] = Field(default_factory=dict)
    algo_kwargs: dict[str, Any] = Field(default_factory=dict)
    eval_freq: int = Field(2000, gt=0)
    """Evaluate every this many environment steps (all envs together)."""
    eval_episodes: int = Field(20, ge=1)
    checkpoint_freq: int = Field(10000, gt=0)
    torch_threads: int = Field(1, ge=1)


def hyperparams_file(skill: str) -> Path:
    """The YAML file of a skill's hyperparameters.

    Raises:
        InvalidConfigError: no file for this skill; the message lists the skills that have one.
    """
    path = HYPERPARAMS_DIR / f"{skill}.yaml"
    if not path.is_file():
        known = ", ".join(sorted(p.stem for p in HYPERPARAMS_DIR.glob("*.yaml")))
        raise InvalidConfigError(f"no training config for skill {skill!r}; trainable: {known}")
    return path


def _merge(base: dict[str, Any], update: dict[str, Any]) -> dict[str, Any]:
    merged = copy.deepcopy(base)
    for key, value in update.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _merge(merged[key], value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


def parse_override(text: str) -> dict[str, Any]:
    """``"algo_kwargs.learning_rate=3e-4"`` as a nested mapping (values read as YAML).

    Raises:
        InvalidConfigError: the text is not ``key=value``, or its value is not YAML.
    """
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise InvalidConfigError(
            f"hyperparameter override {text!r} is not KEY=VALUE (e.g. algo_kwargs.gamma=0.98)"
        )
    nested: dict[str, Any] = {}
    node = nested
    *parents, leaf = key.strip().split(".")
    for part in parents:
        node = node.setdefault(part, {})
    try:
        node[leaf] = load_yaml(value, core_booleans=False)
    except (yaml.YAMLError, YamlLimitError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise InvalidConfigError(f"hyperparameter override {key.strip()}: {first}") from None
    return nested


def read_config_file(path: Path) -> Any:
    """The data of a training config's YAML file (read as ``yaml.safe_load`` reads it, within
    ``claw.envs.yamlfile``'s limits).

    Raises:
        InvalidConfigError: unreadable, not UTF-8, not YAML, or over a limit (one line).
    """
    try:
        return read_yaml(path, core_booleans=False)
    except (OSError, UnicodeDecodeError, yaml.YAMLError, YamlLimitError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise InvalidConfigError(f"config file {path}: {first}") from None


def load_config(
    skill: str,
    algo: str | None = None,
    overrides: list[str] | tuple[str, ...] = (),
    **fields: Any,
) -> TrainConfig:
    """Resolve a skill's training config: ``common``, then the algorithm's section, then overrides.

    Args:
        skill: A skill with a file in ``hyperparams/`` (``reach``, ``push``).
        algo: ``tqc``, ``sac``, ``td3`` or ``ppo`` (default: the file's ``default_algo``).
        overrides: ``KEY=VALUE`` strings, dotted keys for nested fields.
        fields: Top-level fields to set (``seed``, ``total_timesteps``, ``n_envs``), if not None.

    Raises:
        InvalidConfigError: an unknown skill or algorithm, or a config that does not validate.
    """
    raw = read_config_file(hyperparams_file(skill))
    algo = algo or raw["default_algo"]
    if algo not in raw["algos"]:
        raise InvalidConfigError(
            f"unknown algorithm {algo!r} for {skill}; allowed: {', '.join(raw['algos'])}"
        )
    resolved = _merge(raw.get("common", {}), raw["algos"][algo])
    for text in overrides:
        resolved = _merge(resolved, parse_override(text))
    resolved.update({k: v for k, v in fields.items() if v is not None})
    resolved.update(skill=raw["skill"], env_id=raw["env_id"], algo=algo)
    try:
        return TrainConfig.model_validate(resolved)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise InvalidConfigError(f"training config for {skill}: {where}: {first['msg']}") from None


def new_run_dir(root: str | Path, config: TrainConfig, now: datetime | None = None) -> Path:
    """A fresh run folder under ``root``, created: ``SKILL-ALGO-YYYYmmdd-HHMMSS-sSEED``, with
    ``-2``, ``-3``... where a run started in the same second has the name.

    Each folder is made by one ``mkdir`` that fails if it exists, so two runs started at once
    never share one (nor does ``--register`` take the other run's files).
    """
    stamp = (now or datetime.now()).strftime("%Y%m%d-%H%M%S")
    base = Path(root) / f"{config.skill}-{config.algo}-{stamp}-s{config.seed}"
    base.parent.mkdir(parents=True, exist_ok=True)
    for suffix in itertools.count(1):
        path = base if suffix == 1 else base.with_name(f"{base.name}-{suffix}")
        try:
            path.mkdir()
        except FileExistsError:
            continue
        return path
    raise AssertionError("unreachable")
