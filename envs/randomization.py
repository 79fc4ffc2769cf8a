"""Domain randomisation: object friction and mass, colour jitter, arm jitter, and the realism of
the sensors (depth and RGB noise, lighting, calibration error, latency, action noise)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import mujoco
import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator


class SensorNoise(BaseModel):
    """How far the cameras and the claw's commands are from perfect; the defaults are an Intel
    RealSense D435 at 0.5-1.5 m and a calibration done by hand.

    Applied by the ``camera`` perceiver (``claw.perception``) to what it sees, and by the env to
    the claw's commands, when ``DomainRandomization.sensor_noise`` is on.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    depth_noise: float = Field(0.0015, ge=0.0, le=0.05)
    """Standard deviation (m) of the depth error at 1 m; it grows with the square of depth."""
    depth_step: float = Field(0.001, ge=0.0, le=0.02)
    """Depth is quantised to this step (m) at 1 m, growing with the square of depth."""
    edge_dropout: float = Field(0.3, ge=0.0, le=1.0)
    """Share of the pixels at depth edges that return no depth (holes at silhouettes)."""
    rgb_noise: float = Field(3.0, ge=0.0, le=50.0)
    """Standard deviation of per-pixel RGB noise (0-255 levels)."""
    lighting: float = Field(0.15, ge=0.0, le=0.5)
    """Each frame's brightness is scaled by a factor drawn from 1 +/- this."""
    extrinsics_position: float = Field(0.003, ge=0.0, le=0.05)
    """Each camera's true position is off its calibration by up to this (m, per axis)."""
    extrinsics_rotation: float = Field(1.0, ge=0.0, le=10.0)
    """Each camera's true orientation is off its calibration by up to this (degrees, per axis)."""
    latency_steps: int = Field(2, ge=0, le=20)
    """Frames arrive this many control steps late."""
    action_noise: float = Field(0.002, ge=0.0, le=0.05)
    """Standard deviation (rad) of the noise on each commanded arm joint target."""


class DomainRandomization(BaseModel):
    """What to randomise at reset, and by how much. All of it is off unless asked for.

    Pass ``options={"randomize": True}`` for these defaults, or a mapping to change them
    (``{"randomize": {"mass_scale": [0.5, 2.0], "observation_noise": 0.0}}``).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    friction_scale: tuple[float, float] = (0.7, 1.3)
    """Each object's sliding friction is multiplied by a factor drawn uniformly from this range."""
    mass_scale: tuple[float, float] = (0.7, 1.3)
    """Each object's mass (and inertia) is multiplied by a factor drawn from this range."""
    color_jitter: float = Field(0.08, ge=0.0, le=0.5)
    """Each object's RGB is shifted by up to this much per channel (rendering only)."""
    arm_jitter: float = Field(0.03, ge=0.0, le=0.3)
    """The arm starts this far (rad, uniform per joint) from its rest pose."""
    observation_noise: float = Field(0.002, ge=0.0, le=0.1)
    """Standard deviation of Gaussian noise added to positions (m) and angles (rad) observed."""
    sensor_noise: bool = False
    """Turn on the sensor model (``sensor``): camera noise, calibration error, latency, action
    noise. Off by default, also when the rest is randomised."""
    sensor: SensorNoise = SensorNoise()
    """The sensor model's levels, used when ``sensor_noise`` is on."""

    @model_validator(mode="after")
    def _ranges_ordered(self) -> DomainRandomization:
        for name in ("friction_scale", "mass_scale"):
            low, high = getattr(self, name)
            if not 0.0 < low <= high:
                raise ValueError(f"{name} must be a range 0 < low <= high, got {low}, {high}")
        return self

    @classmethod
    def from_option(cls, value: Any) -> DomainRandomization | None:
        """Read the ``randomize`` reset option: None/False, True, a mapping or a model."""
        if value is None or value is False:
            return None
        if value is True:
            return cls()
        if isinstance(value, cls):
            return value
        return cls.model_validate(value)

    @classmethod
    def sensors_only(cls, sensor: SensorNoise | None = None) -> DomainRandomization:
        """The sensor model alone (``--sensor-noise``): objects, arm and observations exact."""
        return cls(
            friction_scale=(1.0, 1.0),
            mass_scale=(1.0, 1.0),
            color_jitter=0.0,
            arm_jitter=0.0,
            observation_noise=0.0,
            sensor_noise=True,
            sensor=sensor or SensorNoise(),
        )


@dataclass
class Nominal:
    """The model's unrandomised parameters, restored before each draw."""

    geom_friction: np.ndarray
    geom_rgba: np.ndarray
    body_mass: np.ndarray
    body_inertia: np.ndarray

    @classmethod
    def of(cls, model: mujoco.MjModel) -> Nominal:
        return cls(
            model.geom_friction.copy(),
            model.geom_rgba.copy(),
            model.body_mass.copy(),
            model.body_inertia.copy(),
        )

    def restore(self, model: mujoco.MjModel) -> None:
        model.geom_friction[:] = self.geom_friction
        model.geom_rgba[:] = self.geom_rgba
        model.body_mass[:] = self.body_mass
        model.body_inertia[:] = self.body_inertia


def randomize_objects(
    model: mujoco.MjModel,
    config: DomainRandomization,
    rng: np.random.Generator,
    object_names: list[str],
) -> dict[str, dict[str, Any]]:
    """Draw friction, mass and colour for each object; returns the values drawn, by object."""
    drawn: dict[str, dict[str, Any]] = {}
    for name in object_names:
        body = model.body(name).id
        geoms = np.flatnonzero(model.geom_bodyid == body)
        friction = float(rng.uniform(*config.friction_scale))
        mass = float(rng.uniform(*config.mass_scale))
        shift = rng.uniform(-config.color_jitter, config.color_jitter, size=3)
        model.geom_friction[geoms, 0] *= friction
        model.body_mass[body] *= mass
        model.body_inertia[body] *= mass
        model.geom_rgba[geoms, :3] = np.clip(model.geom_rgba[geoms, :3] + shift, 0.0, 1.0)
        drawn[name] = {
            "friction": float(model.geom_friction[geoms[0], 0]),
            "mass": float(model.body_mass[body]),
            "rgb": [round(float(c), 4) for c in model.geom_rgba[geoms[0], :3]],
        }
    return drawn
