"""How a run sees the world, as one setting: which perceiver, and whether the sensor model is on.

``claw "…"``, ``claw eval`` and ``claw bench skills`` take it from ``--perception`` and
``--sensor-noise``; a ``Session`` and the benchmarks open their envs with it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict

if TYPE_CHECKING:
    from claw.envs.tabletop import TabletopEnv
    from claw.perception.link import Belief


class Sensing(BaseModel):
    """How a run sees the world: the perceiver and whether the sensor model is on."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    perception: str = "truth"
    """``truth``, ``camera`` or a registered perceiver."""
    sensor_noise: bool = False
    """Camera noise, calibration error, latency and action noise (``SensorNoise``)."""

    def check(self) -> Sensing:
        """This sensing, once its perceiver is known to exist.

        Raises:
            InvalidPerceptionError: an unknown perceiver (the message lists those there are).
        """
        if self.perception != "truth":
            from claw.perception.registry import check_perceiver

            check_perceiver(self.perception)
        return self

    def attach(self, env: TabletopEnv) -> Belief | None:
        """Attach the perceiver to ``env`` (``None`` for the truth, which needs none)."""
        if self.perception == "truth":
            return None
        from claw.perception.link import attach

        return attach(env, self.perception)

    def reset_options(self) -> dict[str, Any]:
        """The options of ``env.reset`` that turn the sensor model on (none when it is off)."""
        if not self.sensor_noise:
            return {}
        from claw.envs.randomization import DomainRandomization

        return {"randomize": DomainRandomization.sensors_only()}


TRUTH = Sensing()
"""Seeing the simulator's state, with no sensor model: the default everywhere."""
