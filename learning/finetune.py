"""RL fine-tuning from the behaviour-cloned start: TQC/SAC + HER, demonstrations kept in replay.

After behaviour cloning (and DAgger), the same SB3 model goes on learning by reinforcement
(Nair et al. 2018's recipe, simplified): its replay buffer starts with the demonstrations'
transitions (HER relabels them like any other), exploration starts narrow around the cloned
actor, and the critics learn alone for a warm-up before the actor moves, so that an untrained
critic does not undo the cloning. The stage is measured like the others; the best is exported.
"""

from __future__ import annotations

import math

import numpy as np
import torch
from sb3_contrib.tqc.policies import Actor as TQCActor
from stable_baselines3.common.base_class import BaseAlgorithm
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.off_policy_algorithm import OffPolicyAlgorithm
from stable_baselines3.sac.policies import Actor as SACActor

from claw.learning.demos import episodes_of
from claw.learning.exceptions import InvalidConfigError


def squashed_actor(model: BaseAlgorithm) -> SACActor | TQCActor:
    """The squashed Gaussian actor of a SAC or TQC model (the one ``claw train`` exports).

    Raises:
        InvalidConfigError: the model has another kind of actor.
    """
    actor = getattr(model.policy, "actor", None)
    if not isinstance(actor, SACActor | TQCActor):
        raise InvalidConfigError(f"behaviour cloning needs SAC or TQC, not {type(model).__name__}")
    return actor


class CriticWarmup(BaseCallback):
    """Holds the actor still (no gradient reaches it) for the first ``updates`` gradient steps."""

    def __init__(self, updates: int) -> None:
        super().__init__()
        self.updates = updates

    def _set_actor(self, trainable: bool) -> None:
        squashed_actor(self.model).requires_grad_(trainable)

    def _on_training_start(self) -> None:
        self._set_actor(self.updates <= 0)

    def _on_step(self) -> bool:
        assert isinstance(self.model, OffPolicyAlgorithm)
        if self.model._n_updates >= self.updates:
            self._set_actor(True)
        return True

    def _on_training_end(self) -> None:
        self._set_actor(True)


class BehaviourCloningTerm:
    """A behaviour-cloning term added to the actor's loss in every RL update: before each step
    of the actor's optimizer, ``weight`` times the gradient of the squared error between its
    deterministic action and the expert's, on a batch of demonstrations (the BC-regularised
    actor loss of Nair et al. 2018 and TD3+BC, without a Q filter).
    """

    def __init__(
        self,
        inputs: dict[str, torch.Tensor],
        targets: torch.Tensor,
        batch_size: int,
        weight: float,
        seed: int,
    ) -> None:
        self.inputs, self.targets, self.batch_size = inputs, targets, batch_size
        self.weight = weight
        self.generator = torch.Generator().manual_seed(seed)

    def attach(self, model: OffPolicyAlgorithm) -> torch.utils.hooks.RemovableHandle:
        """Add the term to ``model``'s actor updates (until the handle is removed)."""
        actor = squashed_actor(model)

        def add_cloning_gradient(*hook_args: object) -> None:
            if not any(p.requires_grad for p in actor.parameters()):
                return  # the critics' warm-up: the actor does not move
            batch = torch.randint(len(self.targets), (self.batch_size,), generator=self.generator)
            observations = {k: v[batch] for k, v in self.inputs.items()}
            mean, _, _ = actor.get_action_dist_params(observations)
            loss = torch.nn.functional.mse_loss(torch.tanh(mean), self.targets[batch])
            (self.weight * loss).backward()  # adds to the RL gradient already there

        return actor.optimizer.register_step_pre_hook(add_cloning_gradient)


def narrow_exploration(model: OffPolicyAlgorithm, std: float) -> None:
    """Start the actor's exploration at ``std`` (before the tanh) wherever it is."""
    log_std = getattr(squashed_actor(model), "log_std", None)
    if isinstance(log_std, torch.nn.Linear):
        with torch.no_grad():
            log_std.weight.zero_()
            log_std.bias.fill_(math.log(std))


def seed_replay_buffer(model: OffPolicyAlgorithm, dataset_id: str) -> int:
    """Add every transition of the demonstrations to the model's replay buffer (raw
    observations, as SB3 stores them under ``VecNormalize``); the number added."""
    buffer = model.replay_buffer
    assert buffer is not None
    added = 0
    for episode in episodes_of(dataset_id):
        observations, steps = episode.observations, len(episode.actions)
        for t in range(steps):
            last = t == steps - 1
            truncated = bool(episode.truncations[t])
            buffer.add(
                {k: v[t][None] for k, v in observations.items()},  # type: ignore[arg-type]
                {k: v[t + 1][None] for k, v in observations.items()},  # type: ignore[arg-type]
                np.asarray(episode.actions[t])[None],
                np.array([episode.rewards[t]], dtype=np.float32),
                np.array([bool(episode.terminations[t]) or truncated or last]),
                [{"TimeLimit.truncated": truncated and not episode.terminations[t]}],
            )
            added += 1
    return added


def finetune(
    model: OffPolicyAlgorithm,
    dataset_id: str,
    steps: int,
    warmup_updates: int,
    exploration_std: float,
    cloning: BehaviourCloningTerm | None = None,
) -> int:
    """``steps`` env steps of RL from the model's current actor, demonstrations in replay (and,
    with ``cloning``, a behaviour-cloning step after each of the actor's); returns the
    transitions seeded."""
    seeded = seed_replay_buffer(model, dataset_id)
    narrow_exploration(model, exploration_std)
    model.learning_starts = 0  # the buffer holds whole episodes already; act with the actor
    handle = cloning.attach(model) if cloning is not None else None
    try:
        warmup = CriticWarmup(warmup_updates)
        model.learn(total_timesteps=steps, callback=warmup, tb_log_name="finetune")
    finally:
        if handle is not None:
            handle.remove()
    return seeded
