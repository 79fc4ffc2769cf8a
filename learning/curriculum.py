"""Curriculum learning: train on easy episodes first, move on as the evaluations succeed.

The stages come from the skill's YAML (``curriculum: stages: [...]``): each sets the training
env's :class:`~claw.envs.tasks.Difficulty` (goal distance, goals in the air, randomisation
strength) and the evaluation success rate at which training is promoted to the next stage. The
training and evaluation envs always play the same stage, so promotion is judged at the stage's
own difficulty. The stage is logged to TensorBoard (``curriculum/stage``) and kept in the run
folder's ``curriculum.json``, from which ``--resume`` continues.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from stable_baselines3.common.callbacks import BaseCallback, EvalCallback
from stable_baselines3.common.vec_env import VecEnv

from claw.common.files import atomic_write
from claw.learning.config import CurriculumConfig

STATE_FILE = "curriculum.json"


def saved_stage(run_dir: Path) -> int:
    """The stage a run reached (0 for a run without a curriculum state)."""
    try:
        return int(json.loads((run_dir / STATE_FILE).read_text())["stage"])
    except (FileNotFoundError, json.JSONDecodeError, KeyError, TypeError, ValueError):
        return 0


class Curriculum(BaseCallback):
    """Sets the envs' difficulty to the current stage and promotes it after each evaluation of
    ``evaluation`` whose success rate reaches the stage's ``promote_at``.

    Args:
        config: The stages.
        evaluation: The run's evaluation callback (its results decide promotions).
        eval_env: The evaluation envs, kept at the training envs' stage.
        run_dir: Where ``curriculum.json`` is written.
    """

    def __init__(
        self, config: CurriculumConfig, evaluation: EvalCallback, eval_env: VecEnv, run_dir: Path
    ) -> None:
        super().__init__()
        self.config, self.evaluation, self.eval_env = config, evaluation, eval_env
        self.path = Path(run_dir) / STATE_FILE
        self.stage = min(saved_stage(Path(run_dir)), len(config.stages) - 1)
        self.history: list[dict[str, Any]] = self._saved_history()
        self._seen = 0

    def _saved_history(self) -> list[dict[str, Any]]:
        try:
            return list(json.loads(self.path.read_text())["history"])
        except (FileNotFoundError, json.JSONDecodeError, KeyError, TypeError):
            return []

    def _apply(self) -> None:
        difficulty = self.config.stages[self.stage].difficulty
        for env in (self.training_env, self.eval_env):
            env.env_method("set_difficulty", **difficulty)
        self.logger.record("curriculum/stage", self.stage)

    def _save(self) -> None:
        state = {
            "stage": self.stage,
            "name": self.config.stages[self.stage].name,
            "stages": [s.model_dump() for s in self.config.stages],
            "history": self.history,
        }
        atomic_write(self.path, json.dumps(state, indent=1).encode())

    def _on_training_start(self) -> None:
        self._seen = len(self.evaluation.evaluations_timesteps)
        self._apply()
        self._save()

    def _on_step(self) -> bool:
        done = len(self.evaluation.evaluations_timesteps)
        if done == self._seen:
            return True
        self._seen = done
        successes = self.evaluation.evaluations_successes
        rate = sum(successes[-1]) / len(successes[-1]) if successes else 0.0
        stage = self.config.stages[self.stage]
        self.history.append(
            {"timesteps": int(self.num_timesteps), "stage": stage.name, "success_rate": rate}
        )
        if stage.promote_at is not None and rate >= stage.promote_at:
            self.stage += 1
            self.history[-1]["promoted_to"] = self.config.stages[self.stage].name
            self._apply()
        self.logger.record("curriculum/stage", self.stage)
        self._save()
        return True
