"""One view's pixels to coloured 3-D points of objects: the table plane found in depth, the
robot's own shape removed, each pixel's colour matched to the world's palette.

Colour is matched by its chromaticity (the direction of the RGB vector), so that a face in
shade and a face in light of the same object match the same palette colour; brightness only has
to lie in a range around the palette colour's.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from claw.envs.objects import COLOR_RGBA, COLORS
from claw.perception.calibration import Correction, level, register_to_robot
from claw.perception.sensors import Frame, SelfShape

PLANE_TOLERANCE = 0.006
"""A point within this distance (m) of a plane supports it, when fitting the table."""
PLANE_SAMPLES = 3000
PLANE_TRIALS = 60
MIN_HEIGHT = 0.005
"""Points lower than this (m) above the table are the table."""
SELF_MARGIN = 0.008
"""The arm's shapes are grown by this much (m) before removing the points inside them."""
MAX_COLOR_ANGLE = 7.0
"""The widest angle (degrees) between a pixel's RGB direction and its palette colour's."""
BRIGHTNESS_RANGE = (0.3, 1.7)
"""A pixel's brightness against its palette colour's, in this range, may match it."""

_PALETTE = np.array([COLOR_RGBA[c][:3] for c in COLORS], dtype=np.float32)
_PALETTE_NORM = np.linalg.norm(_PALETTE, axis=1)
_PALETTE_DIRECTION = _PALETTE / _PALETTE_NORM[:, None]


@dataclass(frozen=True)
class Plane:
    """A plane ``normal . p + offset = 0``, its normal up (+z)."""

    normal: NDArray[np.float64]
    offset: float


@dataclass(frozen=True)
class ColouredPoints:
    """Object points of one or more views: world positions (N x 3), heights above the table
    (N), the palette index of each point's colour (N), and the x-y of the camera that saw each
    (N x 2)."""

    points: NDArray[np.float32]
    heights: NDArray[np.float32]
    colours: NDArray[np.int64]
    eyes: NDArray[np.float32]

    @classmethod
    def empty(cls) -> ColouredPoints:
        return cls(
            np.zeros((0, 3), np.float32),
            np.zeros(0, np.float32),
            np.zeros(0, np.int64),
            np.zeros((0, 2), np.float32),
        )

    @classmethod
    def join(cls, views: list[ColouredPoints]) -> ColouredPoints:
        """The points of every view together."""
        if not views:
            return cls.empty()
        return cls(
            np.concatenate([v.points for v in views]),
            np.concatenate([v.heights for v in views]),
            np.concatenate([v.colours for v in views]),
            np.concatenate([v.eyes for v in views]),
        )

    def take(self, index: NDArray[np.bool_] | NDArray[np.int64]) -> ColouredPoints:
        """The points at ``index`` (a mask or indices)."""
        return ColouredPoints(
            self.points[index], self.heights[index], self.colours[index], self.eyes[index]
        )

    def __len__(self) -> int:
        return len(self.points)


def fit_table(points: NDArray[np.float32], rng: np.random.Generator) -> Plane | None:
    """The dominant plane of the points, facing up (RANSAC, refined by least squares on its
    inliers); ``None`` when the points are too few."""
    if len(points) < 100:
        return None
    sample = points[rng.choice(len(points), min(PLANE_SAMPLES, len(points)), replace=False)]
    sample = sample.astype(np.float64)
    best: NDArray[np.bool_] | None = None
    for _ in range(PLANE_TRIALS):
        a, b, c = sample[rng.choice(len(sample), 3, replace=False)]
        normal = np.cross(b - a, c - a)
        norm = np.linalg.norm(normal)
        if norm < 1e-9 or abs(normal[2]) < 0.7 * norm:  # the table faces up, roughly
            continue
        normal /= norm
        inliers = np.abs((sample - a) @ normal) < PLANE_TOLERANCE
        if best is None or inliers.sum() > best.sum():
            best = inliers
    if best is None or best.sum() < 50:
        return None
    inlying = sample[best]
    centre = inlying.mean(axis=0)
    _, _, vt = np.linalg.svd(inlying - centre, full_matrices=False)
    normal = vt[2] if vt[2][2] > 0 else -vt[2]
    return Plane(normal, float(-normal @ centre))


def outside_robot(points: NDArray[np.float32], robot: SelfShape) -> NDArray[np.bool_]:
    """Which points lie outside every shape of the arms (grown by :data:`SELF_MARGIN`)."""
    keep = np.ones(len(points), dtype=bool)
    if len(points) == 0:
        return keep
    for centre, rotation, half in zip(
        robot.centres, robot.rotations, robot.half_sizes + SELF_MARGIN, strict=True
    ):
        reach = float(np.linalg.norm(half))
        near = keep & (np.abs(points - centre).max(axis=1) < reach)
        if not near.any():
            continue
        local = np.abs((points[near] - centre) @ rotation)
        inside = (local <= half).all(axis=1)
        index = np.flatnonzero(near)
        keep[index[inside]] = False
    return keep


def palette_colours(rgb: NDArray[np.uint8]) -> NDArray[np.int64]:
    """The palette index each RGB pixel (N x 3) matches, or -1."""
    values = rgb.astype(np.float32) / 255.0
    brightness = np.linalg.norm(values, axis=1)
    direction = values / np.maximum(brightness, 1e-6)[:, None]
    cosine = direction @ _PALETTE_DIRECTION.T
    best = np.argmax(cosine, axis=1)
    ratio = brightness / _PALETTE_NORM[best]
    matched = (
        (cosine[np.arange(len(best)), best] >= np.cos(np.radians(MAX_COLOR_ANGLE)))
        & (ratio >= BRIGHTNESS_RANGE[0])
        & (ratio <= BRIGHTNESS_RANGE[1])
    )
    return np.where(matched, best, -1)


def calibrate(
    world: NDArray[np.float32], robot: SelfShape, rng: np.random.Generator
) -> Correction | None:
    """The correction of one view's points (in its calibrated frame): levelled on the table
    plane it sees, then registered on the arm it sees where enough of it is seen; ``None``
    when no table is seen."""
    plane = fit_table(world, rng)
    if plane is None:
        return None
    correction = level(plane.normal, plane.offset)
    on_robot = register_to_robot(correction.apply(world), robot)
    return correction if on_robot is None else correction.then(on_robot)


@dataclass(frozen=True)
class View:
    """One view's object points, the pixels (rows, columns) they came from, and the correction
    that took the view's calibrated frame to the world's (``None``: no table was found)."""

    points: ColouredPoints
    pixels: tuple[NDArray[np.int64], NDArray[np.int64]]
    correction: Correction | None


def object_points(
    frame: Frame,
    robot: SelfShape,
    rng: np.random.Generator,
    correction: Correction | None = None,
) -> View:
    """The points of one view that lie on objects — above the table, off the robot, of a
    palette colour — in the world's frame: the view levelled on the table it sees and
    registered on the arm it sees (:mod:`~claw.perception.calibration`), unless the
    ``correction`` found earlier for this camera is given."""
    valid = frame.depth > 0
    rows, cols = np.nonzero(valid)
    world = frame.camera.back_project(frame.depth)[valid]
    rgb = frame.rgb[valid]
    if correction is None:
        correction = calibrate(world, robot, rng)
    if correction is None:
        return View(ColouredPoints.empty(), (rows[:0], cols[:0]), None)
    world = correction.apply(world)
    keep = world[:, 2] > MIN_HEIGHT
    colours = np.full(len(world), -1, dtype=np.int64)
    colours[keep] = palette_colours(rgb[keep])
    keep &= colours >= 0
    keep[keep] = outside_robot(world[keep], robot)
    world, colours = world[keep], colours[keep]
    eye = correction.apply(frame.camera.position[None].astype(np.float32))[0, :2]
    eyes = np.broadcast_to(eye, (len(world), 2)).copy()
    points = ColouredPoints(world, world[:, 2].copy(), colours, eyes)
    return View(points, (rows[keep], cols[keep]), correction)
