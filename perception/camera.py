"""The ``camera`` perceiver: RGB-D views and the arm's readings to a believed ``WorldState``.

Each view's object points (:mod:`~claw.perception.segment`) are fused into objects
(:mod:`~claw.perception.estimate`), which are named after the scene's vocabulary (colour and
type; identical objects keep the names they were first given by following them from one
estimate to the next). An object in a closed claw is tracked from the claw's pose and its last
sighting. An object no view shows is left out and listed as unseen, unless the arm stands over
where it was last seen (then the arm hides it, and its last sighting is kept).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from claw.envs import objects as catalog
from claw.envs.objects import COLORS
from claw.envs.state import GripperState, ObjectState, WorldState, yaw_rotation
from claw.perception.base import ObjectBelief, Perception
from claw.perception.calibration import Correction
from claw.perception.estimate import Detection, detect
from claw.perception.segment import View, object_points
from claw.perception.sensors import (
    DEFAULT_CAMERAS,
    DEFAULT_IMAGE_SIZE,
    ArmReadings,
    SensorReading,
    Sensors,
)

if TYPE_CHECKING:
    from claw.envs.tabletop import TabletopEnv

TYPE_MISMATCH = 0.25
"""Cost (as metres of distance) of naming a detection after an object of another type."""
MAX_TRACK_JUMP = 0.3
"""A detection farther than this (m) from an object's last belief is not that object."""
HELD_OPENING = 0.012
"""A closing claw whose pads stay further apart than this (m) holds something."""
FINGERS_STOPPED = 0.0005
"""Fingers whose opening changed less than this (m) in one control step have stopped."""
HELD_REACH = 0.05
"""The object held is the one last seen within this distance (m) of the pads' midpoint."""
OCCLUDED_REACH = 0.2
"""An unseen object's last sighting is kept while the claw is within this (m, in x-y) of it."""
MOVING = 0.005
"""Displacements (m) between estimates smaller than this are noise, not motion."""


@dataclass
class _Track:
    """What is remembered of one named object between estimates."""

    state: ObjectState
    time: float
    held_offset: NDArray[np.float64] | None = None
    held_yaw: float = 0.0
    held_by: str | None = None


class CameraPerceiver:
    """Sees the table through calibrated RGB-D cameras.

    Args:
        cameras: Scene camera names (default: :data:`~claw.perception.sensors.DEFAULT_CAMERAS`).
        image_size: (height, width) of each view.
    """

    name = "camera"

    def __init__(
        self,
        cameras: tuple[str, ...] = DEFAULT_CAMERAS,
        image_size: tuple[int, int] = DEFAULT_IMAGE_SIZE,
    ) -> None:
        self.cameras = tuple(cameras)
        self.image_size = image_size
        self._sensors: Sensors | None = None
        self._tracks: dict[str, _Track] = {}
        self._openings: dict[str, float] = {}
        self._corrections: dict[str, Correction] = {}
        """Each camera's correction, found at its first view of an episode."""
        self._rng = np.random.default_rng(0)
        self.last_detections: list[Detection] = []
        """The objects of the last estimate before naming (for benchmarks and pictures)."""
        self.last_reading: SensorReading | None = None
        self.last_views: list[View] = []

    def reset(self, env: TabletopEnv, seed: int | None = None) -> None:
        if self._sensors is None or not self._sensors.serve(env):
            self.close()
            self._sensors = Sensors(env, self.cameras, self.image_size)
        self._sensors.reset(seed)
        self._tracks = {}
        self._openings = {}
        self._corrections = {}
        self._rng = np.random.default_rng(seed)

    def perceive(self, env: TabletopEnv) -> Perception:
        if self._sensors is None or not self._sensors.serve(env):
            self.reset(env)
        assert self._sensors is not None
        reading = self._sensors.read()
        return self.estimate(reading)

    def estimate(self, reading: SensorReading) -> Perception:
        """The world as ``reading`` shows it (and as earlier estimates followed it)."""
        tic = time.perf_counter()
        self.last_reading = reading
        seen = [
            object_points(frame, reading.robot, self._rng, self._corrections.get(frame.camera.name))
            for frame in reading.frames
        ]
        for frame, view in zip(reading.frames, seen, strict=True):
            if view.correction is not None:  # a camera's calibration error holds all episode
                self._corrections[frame.camera.name] = view.correction
        self.last_views = seen
        views = [view.points for view in seen]
        detections = detect(views, COLORS)
        self.last_detections = detections
        perception = self._name(detections, reading)
        return Perception(
            perception.world, perception.beliefs, perception.unseen, time.perf_counter() - tic
        )

    # -- naming and tracking -------------------------------------------------------------------

    def _name(self, detections: list[Detection], reading: SensorReading) -> Perception:
        arm = reading.arms[reading.acting_arm]
        held = self._follow_claws(reading)
        named = self._match(detections, reading, held)
        objects: dict[str, ObjectState] = {}
        beliefs: dict[str, ObjectBelief] = {}
        unseen: list[str] = []
        for name, kind, color in reading.vocabulary:
            track = self._tracks.get(name)
            if name in held and track is not None:
                state = self._carried(track, reading.arms[held[name]])
                track.state, track.time = state, reading.time
                beliefs[name] = ObjectBelief(
                    name, seen=False, held=True, confidence={"position": 0.8}
                )
            elif name in named:
                detection = named[name]
                state = self._state(name, kind, color, detection, track, reading.time)
                beliefs[name] = ObjectBelief(
                    name, seen=True, confidence=detection.confidence, points=detection.points
                )
            elif track is not None and _near_claw(track.state, reading):
                state = track.state
                beliefs[name] = ObjectBelief(name, seen=False, confidence={"position": 0.5})
            else:
                unseen.append(name)
                self._tracks.pop(name, None)
                continue
            objects[name] = state
            if name not in held or track is None:
                self._tracks[name] = _Track(state, reading.time)
        for name, belief in list(beliefs.items()):
            beliefs[name] = replace(belief, support=_support(objects[name], objects))
        grippers = {a: _gripper(r, held) for a, r in reading.arms.items()}
        world = WorldState(
            objects=objects,
            gripper=grippers[arm.arm],
            table_z=0.0,
            grippers=grippers,
            arm=arm.arm,
            unseen=tuple(unseen),
        )
        return Perception(world, beliefs, tuple(unseen))

    def _follow_claws(self, reading: SensorReading) -> dict[str, str]:
        """Replay the arms' readings since the last estimate, step by step: a claw whose
        fingers stop apart on a close command took the object last believed between its pads;
        one that opens lets it go where the claw is, onto what lies under it. The objects held
        now, by name, with the arm holding each."""
        for _, arms in (*reading.arm_log, (reading.time, reading.arms)):
            for arm in arms.values():
                self._follow(arm)
        return {n: t.held_by for n, t in self._tracks.items() if t.held_by is not None}

    def _follow(self, arm: ArmReadings) -> None:
        holding = next((n for n, t in self._tracks.items() if t.held_by == arm.arm), None)
        previous = self._openings.get(arm.arm, arm.opening)
        self._openings[arm.arm] = arm.opening
        if holding is not None:
            if not (arm.closing and arm.opening > HELD_OPENING):
                track = self._tracks[holding]
                let_go = self._carried(track, arm)
                track.state = _dropped(let_go, [t.state for t in self._tracks.values()])
                track.held_by, track.held_offset = None, None
            return
        stopped = abs(arm.opening - previous) < FINGERS_STOPPED
        if not (arm.closing and arm.opening > HELD_OPENING and stopped):
            return
        midway = 0.5 * (arm.left_pad + arm.right_pad)
        free = [(n, t) for n, t in self._tracks.items() if t.held_by is None]
        if not free:
            return
        track = min(
            (t for _, t in free), key=lambda t: float(np.linalg.norm(t.state.position - midway))
        )
        if float(np.linalg.norm(track.state.position - midway)) > HELD_REACH:
            return
        offset = track.state.position - arm.tcp
        across = arm.right_pad - arm.left_pad
        across /= max(float(np.linalg.norm(across)), 1e-9)
        offset -= (offset @ across) * across  # the pads centre what they close on
        track.held_offset, track.held_yaw = offset, track.state.yaw - arm.tcp_yaw
        track.held_by = arm.arm

    def _carried(self, track: _Track, arm: ArmReadings) -> ObjectState:
        """Where a held object is: where it was in the claw when grasped, moved with the claw."""
        assert track.held_offset is not None
        old = track.state
        return ObjectState(
            name=old.name,
            type=old.type,
            position=arm.tcp + track.held_offset,
            rotation=yaw_rotation(arm.tcp_yaw + track.held_yaw),
            half_extents=old.half_extents,
            inner_half_width=old.inner_half_width,
            color=old.color,
        )

    def _match(
        self, detections: list[Detection], reading: SensorReading, held: dict[str, str]
    ) -> dict[str, Detection]:
        """Each named object's detection: same colour, the nearest to its last belief (or, at
        first sight, of its type), no detection used twice."""
        costs: list[tuple[float, int, str]] = []
        for name, kind, color in reading.vocabulary:
            if name in held:
                continue
            track = self._tracks.get(name)
            for i, detection in enumerate(detections):
                if detection.color != color:
                    continue
                cost = 0.0 if detection.type == kind else TYPE_MISMATCH
                if track is not None:
                    distance = float(np.linalg.norm(detection.centre[:2] - track.state.xy))
                    if distance > MAX_TRACK_JUMP:
                        continue
                    cost += distance
                else:
                    cost += 1.0 - 1e-4 * min(detection.points, 1000)  # the surest first
                costs.append((cost, i, name))
        named: dict[str, Detection] = {}
        used: set[int] = set()
        for _, i, name in sorted(costs):
            if name in named or i in used:
                continue
            named[name] = detections[i]
            used.add(i)
        return named

    def _state(
        self,
        name: str,
        kind: str,
        color: str,
        detection: Detection,
        track: _Track | None,
        now: float,
    ) -> ObjectState:
        size = detection.size
        if detection.type != kind:
            size = catalog.default_size(kind)
        centre = detection.centre.copy()
        if detection.type != kind:
            half_height = catalog.half_extents(kind, size)[2]
            centre[2] = detection.top - half_height
        velocity = np.zeros(3)
        if track is not None and now > track.time:
            moved = centre - track.state.position
            if float(np.linalg.norm(moved)) > MOVING:
                velocity = moved / (now - track.time)
        return ObjectState(
            name=name,
            type=kind,
            position=centre,
            rotation=yaw_rotation(detection.yaw),
            half_extents=np.array(catalog.half_extents(kind, size)),
            inner_half_width=catalog.inner_half_width(kind, size),
            linear_velocity=velocity,
            color=color,
        )

    def close(self) -> None:
        if self._sensors is not None:
            self._sensors.close()
            self._sensors = None


def _dropped(state: ObjectState, others: list[ObjectState]) -> ObjectState:
    """``state`` let go: lowered onto the highest thing under its centre (a block's top, a
    box's floor, the table), unless it already rests lower."""
    floor = 0.0
    for other in others:
        if other.name == state.name:
            continue
        local = (state.position - other.position) @ other.rotation
        if other.inner_half_width is not None:
            if np.abs(local[:2]).max() < other.inner_half_width:
                floor = max(floor, other.bottom + catalog.BOX_FLOOR_THICKNESS)
        elif np.abs(local[:2]).max() < float(np.max(other.half_extents[:2])):
            floor = max(floor, other.top)
    if state.bottom <= floor:
        return state
    position = state.position.copy()
    position[2] -= state.bottom - floor
    return ObjectState(
        name=state.name,
        type=state.type,
        position=position,
        rotation=state.rotation,
        half_extents=state.half_extents,
        inner_half_width=state.inner_half_width,
        color=state.color,
    )


def _near_claw(state: ObjectState, reading: SensorReading) -> bool:
    """Whether some claw stands over where ``state`` was last seen (and may hide it)."""
    return any(
        float(np.linalg.norm(arm.tcp[:2] - state.xy)) <= OCCLUDED_REACH
        for arm in reading.arms.values()
    )


def _gripper(arm: ArmReadings, held: dict[str, str]) -> GripperState:
    mine = frozenset(name for name, holder in held.items() if holder == arm.arm)
    return GripperState(arm.left_pad, arm.right_pad, mine, mine)


def _support(state: ObjectState, objects: dict[str, ObjectState]) -> str | None:
    """What ``state`` rests on or in, from the geometry: the table, an object whose top its
    bottom meets over its centre, or a box around it; ``None`` when nothing fits."""
    bottom = state.bottom
    if abs(bottom) < 0.012:  # the views are levelled on the table: it is z = 0
        return "table"
    for other in objects.values():
        if other.name == state.name:
            continue
        local = (state.position - other.position) @ other.rotation
        if other.inner_half_width is not None:
            if np.abs(local[:2]).max() < other.inner_half_width and bottom < other.top:
                return other.name
        elif np.abs(local[:2]).max() < float(np.max(other.half_extents[:2])) and math.isclose(
            bottom, other.top, abs_tol=0.012
        ):
            return other.name
    return None
