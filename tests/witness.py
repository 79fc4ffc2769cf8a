"""The real-physics guard the skill tests share: a shadow simulation fed the same controls."""

from __future__ import annotations

import mujoco
import numpy as np

from claw.envs import TabletopEnv


class PhysicsWitness:
    """Replays every control period on a shadow copy of the data with the same controls.

    If a skill only sets ``data.ctrl`` between physics steps, the shadow matches the env's state
    bit for bit; a write to ``qpos``/``qvel``, a toggled weld, a teleport would break that.
    """

    def __init__(self, env: TabletopEnv) -> None:
        self.model = env.model
        self.shadow = mujoco.MjData(env.model)
        mujoco.mj_copyData(self.shadow, env.model, env.data)
        self.periods = 0
        self.mismatches: list[float] = []

    def __call__(self, env: TabletopEnv) -> None:
        steps = round((env.data.time - self.shadow.time) / self.model.opt.timestep)
        self.shadow.ctrl[:] = env.data.ctrl
        mujoco.mj_step(self.model, self.shadow, nstep=steps)
        self.check(env)
        mujoco.mj_copyData(self.shadow, self.model, env.data)
        self.periods += 1

    def check(self, env: TabletopEnv) -> None:
        same = np.array_equal(self.shadow.qpos, env.data.qpos) and np.array_equal(
            self.shadow.qvel, env.data.qvel
        )
        if not same:
            self.mismatches.append(float(env.data.time))
