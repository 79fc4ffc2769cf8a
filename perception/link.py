"""A perceiver attached to an env: ``env.world_state()`` becomes what the perceiver sees."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from claw.envs.state import WorldState
from claw.perception.base import Perceiver, Perception
from claw.perception.registry import make_perceiver

if TYPE_CHECKING:
    from claw.envs.tabletop import TabletopEnv


class Belief:
    """What ``env`` believes through ``perceiver``: estimated at most once per simulated
    instant, the perceiver restarted at each of the env's episodes.

    Attributes:
        last: The latest estimate (``None`` before the first).
        seconds: Wall time of every estimate so far (s).
    """

    def __init__(self, env: TabletopEnv, perceiver: Perceiver) -> None:
        self.env = env
        self.perceiver = perceiver
        self.last: Perception | None = None
        self.seconds: list[float] = []
        self._episode = -1
        self._time = -1.0

    def perceive(self) -> Perception:
        """The estimate of the world now (the last one when no time has passed)."""
        env = self.env
        if env.episodes != self._episode:
            self.perceiver.reset(env, env.episodes)
            self._episode, self._time, self.last = env.episodes, -1.0, None
        now = float(env.data.time)
        if self.last is None or now != self._time:
            self.last = self.perceiver.perceive(env)
            self._time = now
            self.seconds.append(self.last.seconds)
        return self.last

    def __call__(self) -> WorldState:
        return self.perceive().world

    def detach(self) -> None:
        """Give the env back its ground truth, and close the perceiver."""
        if self.env.perception is self:
            self.env.perception = None
        self.perceiver.close()


def attach(env: TabletopEnv, perceiver: Perceiver | str = "camera", **options: Any) -> Belief:
    """Make ``env.world_state()`` what ``perceiver`` (a name or a perceiver) sees; judging
    (``env.check``, ``info["success"]``) keeps reading the truth.

    Raises:
        InvalidPerceptionError: an unknown perceiver name or options it does not take.
    """
    made = make_perceiver(perceiver, **options) if isinstance(perceiver, str) else perceiver
    belief = Belief(env, made)
    env.perception = belief
    return belief
