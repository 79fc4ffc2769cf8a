"""Training configs: per-skill YAML hyperparameters, RL Zoo style, resolved to ``TrainConfig``."""

from __future__ import annotations

import copy
import itertools
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

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


class ImitationConfig(BaseModel):
    """Learning from demonstrations (``claw train SKILL --demos NAME``): behaviour cloning, then
    DAgger rounds, each measured."""

    model_config = ConfigDict(extra="forbid")

    epochs: int = Field(100, ge=1)
    """Passes over the demonstrations in behaviour cloning."""
    batch_size: int = Field(256, ge=1)
    learning_rate: float = Field(1e-3, gt=0.0)
    dagger_episodes: int = Field(40, ge=1)
    """Episodes the learner acts (and the expert labels) in each DAgger round."""
    dagger_epochs: int = Field(30, ge=1)
    """Passes over all the data after each DAgger round."""
    eval_episodes: int = Field(50, ge=1)
    """Fresh episodes measuring each stage."""
    finetune_warmup: int = Field(2000, ge=0)
    """RL fine-tuning (``--finetune``): gradient steps the critics take before the actor moves."""
    finetune_exploration: float = Field(0.1, gt=0.0)
    """RL fine-tuning: the actor's exploration (std before the tanh) at its start."""
    finetune_cloning_weight: float = Field(100.0, ge=0.0)
    """RL fine-tuning: the weight of the behaviour-cloning term in the actor's loss (0: none)."""
    shift: int = Field(4, ge=0, le=16)
    """Image keys: each training image is shifted by up to this many pixels (DrQ's random
    shift: pad by replicating the border, crop at random); 0: none."""


class CurriculumStage(BaseModel):
    """One stage of a curriculum: how hard the episodes are, and when training moves on."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1)
    difficulty: dict[str, Any] = Field(default_factory=dict)
    """The training env's ``Difficulty`` fields (``goal_distance``, ``air_share``,
    ``air_height``, ``randomization``); those left out are the full task's."""
    promote_at: float | None = Field(None, gt=0.0, le=1.0)
    """The evaluation success rate at which training moves to the next stage (not on the last)."""

    @model_validator(mode="after")
    def _difficulty_known(self) -> CurriculumStage:
        from claw.envs.tasks import Difficulty

        Difficulty.model_validate(self.difficulty)
        return self


class CurriculumConfig(BaseModel):
    """Stages from easy to the full task (``--curriculum``; declared in the skill's YAML)."""

    model_config = ConfigDict(extra="forbid")

    stages: list[CurriculumStage] = Field(min_length=2)

    @model_validator(mode="after")
    def _promotions(self) -> CurriculumConfig:
        *earlier, last = self.stages
        if any(stage.promote_at is None for stage in earlier):
            raise ValueError("every stage but the last needs promote_at")
        if last.promote_at is not None:
            raise ValueError("the last stage is the full task: it has no promote_at")
        return self


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
    vec_env: Literal["subproc", "dummy", "ray"] = "dummy"
    """Where the training envs run: this process, subprocesses, or Ray actors (``--ray``)."""
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
    imitation: ImitationConfig | None = None
    """How to learn from demonstrations, for skills that have an expert."""
    curriculum: CurriculumConfig | None = None
    """Stages of difficulty, promoted on evaluation success (``--curriculum``)."""


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
    curriculum: bool = False,
    obs: str = "state",
    **fields: Any,
) -> TrainConfig:
    """Resolve a skill's training config: ``common``, then the algorithm's section, then overrides.

    Args:
        skill: A skill with a file in ``hyperparams/`` (``reach``, ``push``, ``pick``).
        algo: ``tqc``, ``sac``, ``td3`` or ``ppo`` (default: the file's ``default_algo``).
        overrides: ``KEY=VALUE`` strings, dotted keys for nested fields.
        curriculum: Train through the file's ``curriculum`` stages.
        obs: The training env's observation mode; any but ``state`` applies the file's
            ``cameras`` section (after the algorithm's) and sets ``env_kwargs.obs_mode``.
        fields: Top-level fields to set (``seed``, ``total_timesteps``, ``n_envs``), if not None.

    Raises:
        InvalidConfigError: an unknown skill or algorithm, a curriculum asked of a file without
            one, or a config that does not validate.
    """
    raw = read_config_file(hyperparams_file(skill))
    algo = algo or raw["default_algo"]
    if algo not in raw["algos"]:
        raise InvalidConfigError(
            f"unknown algorithm {algo!r} for {skill}; allowed: {', '.join(raw['algos'])}"
        )
    if curriculum and "curriculum" not in raw:
        with_one = sorted(
            p.stem for p in HYPERPARAMS_DIR.glob("*.yaml") if "curriculum" in read_config_file(p)
        )
        raise InvalidConfigError(
            f"{skill} declares no curriculum; skills with one: {', '.join(with_one) or 'none'}"
        )
    resolved = _merge(raw.get("common", {}), raw["algos"][algo])
    if obs != "state":
        resolved = _merge(resolved, _cameras_section(skill, raw, obs))
    if curriculum:
        resolved["curriculum"] = raw["curriculum"]
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


def _cameras_section(skill: str, raw: dict[str, Any], obs: str) -> dict[str, Any]:
    """What training from cameras changes (the file's ``cameras`` section), with the mode set.

    Raises:
        InvalidConfigError: an unknown mode, or a skill whose file has no ``cameras`` section.
    """
    from claw.envs.observations import check_obs_mode

    try:
        check_obs_mode(obs)
    except ValueError as exc:
        raise InvalidConfigError(str(exc)) from None
    if "cameras" not in raw:
        with_one = sorted(
            p.stem for p in HYPERPARAMS_DIR.glob("*.yaml") if "cameras" in read_config_file(p)
        )
        raise InvalidConfigError(
            f"{skill} declares no cameras section for --obs {obs}; skills with one: "
            f"{', '.join(with_one) or 'none'}"
        )
    return _merge(raw["cameras"], {"env_kwargs": {"obs_mode": obs}})


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
