"""A perceiver attached to an env: ``env.world_state()`` becomes what the perceiver sees."""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any

import numpy as np

from claw.envs.state import WorldState
from claw.perception.base import Perceiver, Perception
from claw.perception.registry import make_perceiver

if TYPE_CHECKING:
    from claw.envs.tabletop import TabletopEnv


EXHAUSTIVE_PAIRING = 7
"""Up to this many look-alikes are paired with the truth's by trying every pairing."""


class Belief:
    """What ``env`` believes through ``perceiver``: estimated at most once per simulated
    instant, the perceiver restarted at each of the env's episodes.

    Attributes:
        last: The latest estimate (``None`` before the first).
        seconds: Wall time of every estimate so far (s).
        truth_names: The truth's name of each believed object, fixed at the episode's first
            estimate (:func:`align`): a perceiver cannot tell look-alike objects apart, so it
            names them as it likes. For judging and reporting only, never for deciding.
    """

    def __init__(self, env: TabletopEnv, perceiver: Perceiver) -> None:
        self.env = env
        self.perceiver = perceiver
        self.last: Perception | None = None
        self.seconds: list[float] = []
        self.truth_names: dict[str, str] = {}
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
            first = self.last is None
            self.last = self.perceiver.perceive(env)
            self._time = now
            self.seconds.append(self.last.seconds)
            if first:
                self.truth_names = align(self.last.world, env.true_world_state())
        return self.last

    def __call__(self) -> WorldState:
        return self.perceive().world

    def detach(self) -> None:
        """Give the env back its ground truth, and close the perceiver."""
        if self.env.perception is self:
            self.env.perception = None
        self.perceiver.close()


def align(believed: WorldState, truth: WorldState) -> dict[str, str]:
    """Each believed object's name in the truth: the same name, except among look-alikes (the
    same type and colour), which are paired with the truth's by the least total distance, as
    a detection benchmark pairs estimates with ground truth."""
    names = {name: name for name in believed.objects}
    groups: dict[tuple[str, str | None], list[str]] = {}
    for name, state in truth.objects.items():
        groups.setdefault((state.type, state.color), []).append(name)
    for look, true_names in groups.items():
        seen = {n: o.position for n, o in believed.objects.items() if (o.type, o.color) == look}
        if len(true_names) > 1 and seen:
            names.update(_pair(seen, {n: truth.objects[n].position for n in true_names}))
    return names


def _pair(seen: dict[str, np.ndarray], true: dict[str, np.ndarray]) -> dict[str, str]:
    """Believed names to true names with the least total distance: every pairing tried for a
    handful of look-alikes, nearest first beyond that."""
    believed = list(seen)
    if len(true) > EXHAUSTIVE_PAIRING:
        pairs, free = {}, dict(true)
        for b in believed:
            t = min(free, key=lambda n: float(np.linalg.norm(seen[b] - free[n])))
            pairs[b] = t
            del free[t]
            if not free:
                break
        return pairs

    def cost(pairing: tuple[str, ...]) -> float:
        return sum(
            float(np.linalg.norm(seen[b] - true[t]))
            for b, t in zip(believed, pairing, strict=False)
        )

    best = min(itertools.permutations(true, len(believed)), key=cost)
    return dict(zip(believed, best, strict=False))


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
