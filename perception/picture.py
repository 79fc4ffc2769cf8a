"""A picture of what the camera perceiver saw: each view with the pixels it matched to objects
tinted in their palette colour and the estimated boxes drawn over them, views side by side."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from claw.envs import objects as catalog
from claw.envs.cameras import Camera
from claw.envs.objects import COLOR_RGBA, COLORS
from claw.perception.calibration import Correction
from claw.perception.estimate import Detection
from claw.perception.segment import View
from claw.perception.sensors import Frame, SensorReading

_EDGES = (
    (0, 1),
    (1, 2),
    (2, 3),
    (3, 0),
    (4, 5),
    (5, 6),
    (6, 7),
    (7, 4),
    (0, 4),
    (1, 5),
    (2, 6),
    (3, 7),
)
SCALE = 2
"""Each view is drawn this many times its size."""


def draw(
    reading: SensorReading, views: list[View], detections: list[Detection], path: Path
) -> Path:
    """Write the picture of ``reading`` — its ``views`` as the perceiver segmented them and its
    ``detections`` — to ``path`` (PNG); the path."""
    drawn = [_view(f, v, detections) for f, v in zip(reading.frames, views, strict=True)]
    picture = np.concatenate(drawn, axis=1)
    path.parent.mkdir(parents=True, exist_ok=True)
    if not cv2.imwrite(str(path), cv2.cvtColor(picture, cv2.COLOR_RGB2BGR)):
        raise OSError(f"cannot write the picture {path}")
    return path


def _view(frame: Frame, view: View, detections: list[Detection]) -> NDArray[np.uint8]:
    image = frame.rgb.copy()
    rows, cols = view.pixels
    tint = np.array([COLOR_RGBA[c][:3] for c in COLORS]) * 255
    image[rows, cols] = (0.4 * image[rows, cols] + 0.6 * tint[view.points.colours]).astype(np.uint8)
    image = cv2.resize(image, None, fx=SCALE, fy=SCALE, interpolation=cv2.INTER_NEAREST)
    correction = view.correction or Correction.identity()
    for detection in detections:
        seen_as = correction.undo(_corners(detection))  # where the calibrated camera sees them
        projected = _project(frame.camera, seen_as)
        if projected is None:
            continue
        corners = projected * SCALE
        for a, b in _EDGES:
            start, end = tuple(map(int, corners[a])), tuple(map(int, corners[b]))
            cv2.line(image, start, end, (255, 255, 255), 1, cv2.LINE_AA)
        label = f"{detection.color} {detection.type}"
        top = tuple(map(int, corners[4:].min(axis=0)))
        cv2.putText(image, label, top, cv2.FONT_HERSHEY_SIMPLEX, 0.35, (0, 0, 0), 1, cv2.LINE_AA)
    return image


def _corners(detection: Detection) -> NDArray[np.float64]:
    """The 8 corners of a detection's box (bottom four, then top four)."""
    hx, hy, hz = catalog.half_extents(detection.type, detection.size)
    c, s = np.cos(detection.yaw), np.sin(detection.yaw)
    square = np.array([[-hx, -hy], [hx, -hy], [hx, hy], [-hx, hy]])
    turned = square @ np.array([[c, s], [-s, c]]) + detection.centre[:2]
    bottom = np.column_stack([turned, np.full(4, detection.centre[2] - hz)])
    top = np.column_stack([turned, np.full(4, detection.centre[2] + hz)])
    return np.vstack([bottom, top])


def _project(camera: Camera, points: NDArray[np.float64]) -> NDArray[np.float64] | None:
    """Pixel (column, row) of world points in a view; ``None`` when any lies behind it."""
    local = (points - camera.position) @ camera.rotation
    depth = -local[:, 2]
    if (depth <= 1e-6).any():
        return None
    cols = camera.fx * local[:, 0] / depth + camera.cx - 0.5
    rows = -camera.fy * local[:, 1] / depth + camera.cy - 0.5
    return np.column_stack([cols, rows])
