"""A camera's calibration checked against what it sees, every frame: the table plane fixes its
tilt and height, and the arm — whose shape and pose the robot knows from its own kinematics —
fixes the rest (x, y and the turn about the vertical), by iterative closest points.

A camera a few millimetres and a degree off its calibration puts objects a centimetre or two
from where they are at a metre's range; after this they are a few millimetres off.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from claw.perception.sensors import SelfShape, ShapeKind

NEAR_ROBOT = 0.04
"""Points within this distance (m) of the arm's shapes are taken for the arm when registering."""
ABOVE_TABLE = 0.012
"""Points lower than this (m) are the table, not the arm (its base plate stands on it)."""
ITERATIONS = 60
REASSIGN = 8
CONVERGED = 5e-5
"""Iterations stop when a step moves the points less than this (m)."""
TRIM = 0.015
"""After the first iterations, pairs farther apart than this (m) are left out."""
MAX_POINTS = 1500
MAX_SHIFT = 0.05
MAX_TURN = math.radians(4.0)
"""A correction larger than these is refused as a failed registration."""


@dataclass(frozen=True)
class Correction:
    """A rigid transform ``p -> rotation @ p + translation`` from the calibrated frame to the
    world (the table at z = 0)."""

    rotation: NDArray[np.float64]
    translation: NDArray[np.float64]

    @classmethod
    def identity(cls) -> Correction:
        return cls(np.eye(3), np.zeros(3))

    def apply(self, points: NDArray[np.float32]) -> NDArray[np.float32]:
        return points @ self.rotation.T.astype(np.float32) + self.translation.astype(np.float32)

    def undo(self, points: NDArray[np.floating]) -> NDArray[np.float64]:
        """Points of the world back in the calibrated frame."""
        return (np.asarray(points, dtype=np.float64) - self.translation) @ self.rotation

    def then(self, other: Correction) -> Correction:
        """This correction followed by ``other``."""
        return Correction(
            other.rotation @ self.rotation, other.rotation @ self.translation + other.translation
        )


def level(normal: NDArray[np.float64], offset: float) -> Correction:
    """The correction that lays the plane ``normal . p + offset = 0`` on z = 0."""
    z = np.array([0.0, 0.0, 1.0])
    axis = np.cross(normal, z)
    sine, cosine = float(np.linalg.norm(axis)), float(normal @ z)
    if sine < 1e-12:
        rotation = np.eye(3)
    else:
        k = axis / sine
        cross = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
        rotation = np.eye(3) + sine * cross + (1 - cosine) * cross @ cross
    return Correction(rotation, np.array([0.0, 0.0, offset]))


def closest_on_robot(
    points: NDArray[np.float64], robot: SelfShape, shapes: NDArray[np.int64] | None = None
) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """For each point, the nearest point on the surface of the arm's shapes, and which shape
    it is on; with ``shapes``, on the shape given for each point (-1: none, the point kept)."""
    best = np.full(len(points), np.inf)
    nearest = points.copy()
    chosen = np.full(len(points), -1, dtype=np.int64)
    for index, (centre, rotation, half, kind) in enumerate(
        zip(robot.centres, robot.rotations, robot.half_sizes, robot.kinds, strict=True)
    ):
        mine = np.arange(len(points)) if shapes is None else np.flatnonzero(shapes == index)
        if len(mine) == 0:
            continue
        local = (points[mine] - centre) @ rotation
        surface = _surface(local, half, ShapeKind(int(kind)))
        distance = np.linalg.norm(local - surface, axis=1)
        closer = distance < best[mine]
        rows = mine[closer]
        best[rows] = distance[closer]
        nearest[rows] = surface[closer] @ rotation.T + centre
        chosen[rows] = index
    return nearest, chosen


def _surface(
    local: NDArray[np.float64], half: NDArray[np.float64], kind: ShapeKind
) -> NDArray[np.float64]:
    """Nearest surface points of one shape, in its own frame."""
    if kind == ShapeKind.CYLINDER:
        radius, height = half[0], half[2]
        rho = np.maximum(np.linalg.norm(local[:, :2], axis=1), 1e-9)
        outside = np.column_stack(
            [
                local[:, :2] * np.minimum(1.0, radius / rho)[:, None],
                np.clip(local[:, 2], -height, height),
            ]
        )
        side = np.column_stack([local[:, :2] * (radius / rho)[:, None], local[:, 2]])
        cap = np.column_stack([local[:, :2], np.sign(local[:, 2]) * height])
        inside = (rho <= radius) & (np.abs(local[:, 2]) <= height)
        nearer_side = (radius - rho) < (height - np.abs(local[:, 2]))
        return np.where(inside[:, None], np.where(nearer_side[:, None], side, cap), outside)
    if kind == ShapeKind.CAPSULE:
        radius = half[0]
        axis = np.zeros_like(local)
        axis[:, 2] = np.clip(local[:, 2], -(half[2] - radius), half[2] - radius)
        away = local - axis
        length = np.maximum(np.linalg.norm(away, axis=1), 1e-9)
        return axis + away * (radius / length)[:, None]
    if kind == ShapeKind.SPHERE:
        length = np.maximum(np.linalg.norm(local, axis=1), 1e-9)
        return local * (half[0] / length)[:, None]
    clipped = np.clip(local, -half, half)
    inside = (np.abs(local) <= half).all(axis=1)
    if inside.any():
        depth = half - np.abs(local[inside])
        face = np.argmin(depth, axis=1)
        rows = np.arange(len(face))
        pushed = clipped[inside]
        pushed[rows, face] = np.sign(local[inside][rows, face]) * half[face]
        clipped[inside] = pushed
    return clipped


def register_to_robot(points: NDArray[np.float32], robot: SelfShape) -> Correction | None:
    """The turn about z and the x-y shift that lay the arm as seen (points of a levelled view)
    on the arm as its kinematics pose it; ``None`` when too little of the arm is seen or the
    answer is implausibly large. Each point is paired with its nearest shape every
    :data:`REASSIGN` iterations, and with the nearest point of that shape at each."""
    high = points[points[:, 2] > ABOVE_TABLE].astype(np.float64)
    if len(high) > 4 * MAX_POINTS:
        high = high[np.linspace(0, len(high) - 1, 4 * MAX_POINTS).astype(int)]
    if len(high) == 0:
        return None
    nearest, _ = closest_on_robot(high, robot)
    seen = high[np.linalg.norm(nearest - high, axis=1) < NEAR_ROBOT]
    if len(seen) < 200:
        return None
    if len(seen) > MAX_POINTS:
        seen = seen[np.linspace(0, len(seen) - 1, MAX_POINTS).astype(int)]
    total = Correction.identity()
    moved, shapes = seen, None
    for iteration in range(ITERATIONS):
        if iteration % REASSIGN == 0:
            shapes = None
        target, shapes = closest_on_robot(moved, robot, shapes)
        keep = np.linalg.norm(target - moved, axis=1) < (TRIM if iteration >= 2 else NEAR_ROBOT)
        if keep.sum() < 100:
            return None
        total = total.then(_planar_fit(moved[keep], target[keep]))
        before, moved = moved, total.apply(seen.astype(np.float32)).astype(np.float64)
        if float(np.abs(moved - before).max()) < CONVERGED:
            break
    turn = math.atan2(total.rotation[1, 0], total.rotation[0, 0])
    if abs(turn) > MAX_TURN or float(np.linalg.norm(total.translation)) > MAX_SHIFT:
        return None
    return total


def _planar_fit(source: NDArray[np.float64], target: NDArray[np.float64]) -> Correction:
    """The turn about z and the x-y shift that best take ``source`` to ``target`` (2-D Kabsch)."""
    a, b = source[:, :2], target[:, :2]
    ca, cb = a.mean(axis=0), b.mean(axis=0)
    h = (a - ca).T @ (b - cb)
    angle = math.atan2(h[0, 1] - h[1, 0], h[0, 0] + h[1, 1])
    c, s = math.cos(angle), math.sin(angle)
    turn = np.array([[c, -s], [s, c]])
    rotation = np.eye(3)
    rotation[:2, :2] = turn
    shift = np.zeros(3)
    shift[:2] = cb - turn @ ca
    return Correction(rotation, shift)
