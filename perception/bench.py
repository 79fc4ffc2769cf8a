"""``claw bench perception``: what the ``camera`` perceiver sees against what is, on randomised
layouts of the built-in scenes: detection precision and recall, position, yaw and size errors,
colour and type accuracy, and the time per estimate.

A detection matches the true object nearest to its centre within :data:`MATCH_RADIUS`, whatever
its colour (colour and type are then scored); each true object is matched once. Detections are
compared before they are named, so that precision counts every object the cameras claim.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
from pydantic import BaseModel, Field

from claw.envs.randomization import DomainRandomization
from claw.envs.scene import builtin_scenes
from claw.envs.seeding import check_seeds
from claw.envs.state import ObjectState, WorldState
from claw.envs.tabletop import TabletopEnv
from claw.perception.camera import CameraPerceiver
from claw.perception.estimate import Detection
from claw.perception.picture import draw
from claw.perception.sensors import DEFAULT_CAMERAS, DEFAULT_IMAGE_SIZE

MATCH_RADIUS = 0.025
"""A detection whose centre is farther (m) than this from every true object's is false."""
SETTLE_STEPS = 10
"""Control steps the scene settles for before it is seen."""


class ErrorStats(BaseModel):
    """Median and 95th percentile of one error."""

    p50: float
    p95: float

    @classmethod
    def of(cls, values: Sequence[float]) -> ErrorStats:
        if not values:
            return cls(p50=math.nan, p95=math.nan)
        return cls(
            p50=round(float(np.percentile(values, 50)), 2),
            p95=round(float(np.percentile(values, 95)), 2),
        )


class PerceptionRow(BaseModel):
    """The figures of one scene (or of all: ``scene="all"``)."""

    scene: str
    objects: int
    detections: int
    matched: int
    precision: float
    recall: float
    position_mm: ErrorStats
    yaw_deg: ErrorStats
    size_mm: ErrorStats
    color_accuracy: float
    type_accuracy: float


class PerceptionBench(BaseModel):
    """What ``claw bench perception --json`` prints."""

    episodes: int
    seed: int
    scenes: list[str]
    cameras: list[str]
    image_size: list[int]
    sensor_noise: bool
    overall: PerceptionRow
    rows: list[PerceptionRow] = Field(default_factory=list)
    estimate_ms: ErrorStats
    """Images to a world estimate (capture excluded), once the cameras' calibration is checked."""
    first_estimate_ms: ErrorStats
    """The first estimate of an episode, which also checks each camera's calibration."""
    capture_ms: ErrorStats
    """Rendering the views (the simulated cameras' time)."""
    misses: list[str] = Field(default_factory=list)
    """``scene/seed/object`` of the true objects not detected (the first 50)."""
    wall_seconds: float = 0.0


class _Tally:
    """Errors and counts of one scene."""

    def __init__(self) -> None:
        self.objects = self.detections = self.matched = 0
        self.color_right = self.type_right = 0
        self.position: list[float] = []
        self.yaw: list[float] = []
        self.size: list[float] = []

    def add(self, truth: WorldState, detections: list[Detection]) -> list[str]:
        """Count one estimate; the names of the true objects left unmatched."""
        self.objects += len(truth.objects)
        self.detections += len(detections)
        unmatched = dict(truth.objects)
        by_distance = sorted(
            (float(np.linalg.norm(d.centre - o.position)), i, name)
            for i, d in enumerate(detections)
            for name, o in truth.objects.items()
        )
        used: set[int] = set()
        for distance, i, name in by_distance:
            if distance > MATCH_RADIUS or i in used or name not in unmatched:
                continue
            self._compare(detections[i], unmatched.pop(name))
            used.add(i)
        return list(unmatched)

    def _compare(self, detection: Detection, true: ObjectState) -> None:
        self.matched += 1
        self.color_right += detection.color == true.color
        self.type_right += detection.type == true.type
        self.position.append(float(np.linalg.norm(detection.centre - true.position)) * 1000)
        period = math.pi if true.type == "bar" else math.pi / 2
        turn = (detection.yaw - true.yaw + period / 2) % period - period / 2
        self.yaw.append(abs(math.degrees(turn)))
        self.size.append(abs(detection.size - true.size) * 1000)

    def merge(self, other: _Tally) -> None:
        for name in ("objects", "detections", "matched", "color_right", "type_right"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.position += other.position
        self.yaw += other.yaw
        self.size += other.size

    def row(self, scene: str) -> PerceptionRow:
        return PerceptionRow(
            scene=scene,
            objects=self.objects,
            detections=self.detections,
            matched=self.matched,
            precision=round(self.matched / max(self.detections, 1), 4),
            recall=round(self.matched / max(self.objects, 1), 4),
            position_mm=ErrorStats.of(self.position),
            yaw_deg=ErrorStats.of(self.yaw),
            size_mm=ErrorStats.of(self.size),
            color_accuracy=round(self.color_right / max(self.matched, 1), 4),
            type_accuracy=round(self.type_right / max(self.matched, 1), 4),
        )


def bench_perception(
    scenes: Sequence[str] | None = None,
    episodes: int = 40,
    seed: int = 0,
    sensor_noise: bool = False,
    cameras: Sequence[str] = DEFAULT_CAMERAS,
    image_size: tuple[int, int] = DEFAULT_IMAGE_SIZE,
    image: Path | None = None,
    progress: Callable[[int], None] | None = None,
) -> PerceptionBench:
    """Measure the ``camera`` perceiver on ``episodes`` seeded layouts, the scenes taking turns.

    Args:
        scenes: Built-in scene names or YAML files (default: every built-in scene).
        episodes: Layouts seen: two estimates each (the first checks the cameras' calibration;
            the second is measured).
        seed: Seed of the first layout (layout ``i`` has seed ``seed + i``).
        sensor_noise: Turn the sensor model on (``SensorNoise``'s defaults).
        cameras: The views.
        image_size: (height, width) of each view.
        image: Write a picture of the last estimate here (PNG): the pixels matched to objects
            and the estimated boxes, over each view.
        progress: Called with the number of episodes done.

    Raises:
        InvalidSeedError: a seed out of range.
        InvalidSceneError: a scene that cannot be built.
        ValueError: an unknown camera.
    """
    check_seeds(seed, episodes)
    names = list(scenes or builtin_scenes())
    envs = {name: TabletopEnv(scene=name) for name in names}
    perceivers = {name: CameraPerceiver(tuple(cameras), image_size) for name in names}
    randomize = DomainRandomization.sensors_only() if sensor_noise else None
    tallies = {name: _Tally() for name in names}
    estimate: list[float] = []
    calibrate: list[float] = []
    capture: list[float] = []
    misses: list[str] = []
    start = time.perf_counter()
    try:
        for episode in range(episodes):
            name = names[episode % len(names)]
            env, perceiver = envs[name], perceivers[name]
            options = {} if randomize is None else {"randomize": randomize}
            env.reset(seed=seed + episode, options=options)
            perceiver.reset(env, seed + episode)
            for _ in range(SETTLE_STEPS):
                env.actuate()
            first = perceiver.perceive(env)  # checks each camera's calibration: once an episode
            calibrate.append(first.seconds)
            env.actuate()
            tic = time.perf_counter()
            perception = perceiver.perceive(env)
            capture.append(time.perf_counter() - tic - perception.seconds)
            estimate.append(perception.seconds)
            missed = tallies[name].add(env.true_world_state(), perceiver.last_detections)
            misses += [f"{name}/{seed + episode}/{m}" for m in missed]
            if progress is not None:
                progress(episode + 1)
        last = perceivers[names[(episodes - 1) % len(names)]]
        if image is not None and last.last_reading is not None:
            draw(last.last_reading, last.last_views, last.last_detections, image)
    finally:
        for name in names:
            perceivers[name].close()
            envs[name].close()
    overall = _Tally()
    for tally in tallies.values():
        overall.merge(tally)
    return PerceptionBench(
        episodes=episodes,
        seed=seed,
        scenes=names,
        cameras=list(cameras),
        image_size=list(image_size),
        sensor_noise=sensor_noise,
        overall=overall.row("all"),
        rows=[tally.row(name) for name, tally in tallies.items()],
        estimate_ms=ErrorStats.of([s * 1000 for s in estimate]),
        first_estimate_ms=ErrorStats.of([s * 1000 for s in calibrate]),
        capture_ms=ErrorStats.of([s * 1000 for s in capture]),
        misses=misses[:50],
        wall_seconds=round(time.perf_counter() - start, 1),
    )
